"""The ``tapisvert`` command line: simulate, compare, sweep, odds, report, env-check.

Every game comes from the registry (:mod:`simulators.core.game`): its units
give the size flags (``--deals``, ``--rounds``…), its config dataclass types
the ``--option`` values, its policy classes type the ``--param`` values, its
odds question gives the ``odds`` flags. Every command validates its whole
input before doing any work (values typed from the dataclasses' own fields,
output paths probed for writing, conflicting or ignored flags refused); on
bad input it prints one line ``tapisvert: error: …`` to stderr and exits
with status 2, writing nothing. Output files appear by atomic rename only
when complete. ``tapisvert games``, ``options GAME`` and ``policies GAME``
list what can be asked for.

Every error leaves through :func:`main`: usage and validation errors (exit
2), an interrupted run (Ctrl-C: exit 130, with the rerun-to-resume hint), a
closed pipe (``| head``: quiet), and anything unexpected (exit 1, one line;
``TAPISVERT_DEBUG=1`` shows the traceback).

``TAPISVERT_SCALE`` (a number in (0, 1]) multiplies every size — units,
budgets, report scale — for smoke tests of the documented commands.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import sys
import tempfile
import time
import types
import typing
from pathlib import Path
from typing import Any

import polars as pl

from simulators.core.files import atomic_path, write_atomically
from simulators.core.game import Game, games, get_game, registered_names
from simulators.core.rng import DEFAULT_SEED

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
SCALE_VARIABLE = "TAPISVERT_SCALE"


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line through :func:`main`, not a usage block.

    Abbreviated flags are refused (``--deal`` is not ``--deals``): a typo
    must not quietly become another flag.
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D102 (argparse's hook)
        raise UsageError(f"{message} (see: {self.prog} --help)")


def size_scale() -> float:
    """``TAPISVERT_SCALE`` (default 1): every size is multiplied by it."""
    raw = os.environ.get(SCALE_VARIABLE)
    if raw is None or not raw.strip():
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise UsageError(f"{SCALE_VARIABLE} must be a number in (0, 1], got {raw!r}")
    return value


def scaled(size: int) -> int:
    """A size multiplied by ``TAPISVERT_SCALE`` (at least 1)."""
    return max(1, round(size * size_scale()))


# ------------------------------------------------------------------ typed values


def parse_value(raw: str) -> Any:
    """A value of unknown type read as bool, int, float or string."""
    low = raw.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw.strip()


def parse_typed(raw: str, kind: Any, where: str) -> Any:
    """``raw`` read as the annotated type ``kind`` (bool, int, float, str, tuples, optionals)."""
    text = raw.strip()
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if text.lower() == "none" and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return parse_typed(raw, inner[0], where) if len(inner) == 1 else parse_value(raw)
    if origin is tuple:
        item = args[0] if args else str
        return tuple(parse_typed(v, item, where) for v in text.split(",") if v.strip())
    if kind is bool:
        if text.lower() not in ("true", "false", "1", "0"):
            raise UsageError(f"{where} must be true or false, got {raw!r}")
        return text.lower() in ("true", "1")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise UsageError(f"{where} must be {'an integer' if kind is int else 'a number'}, "
                             f"got {raw!r}") from None
    return text if kind is str else parse_value(raw)


def field_types(cls: type) -> dict[str, Any]:
    """Field name -> resolved annotation of a dataclass."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls)}


def parse_assignment(text: str, flag: str) -> tuple[str, str]:
    """``name=value`` from a repeatable flag (value still text)."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{flag} expects name=value, got {text!r}")
    return name.strip(), raw


def typed_options(game: Game, texts: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` flags typed from the game's config fields."""
    kinds = field_types(game.config)
    out = {}
    for text in texts:
        name, raw = parse_assignment(text, "--option")
        if name not in kinds:
            raise UsageError(f"unknown rule option for {game.name}: {name!r} "
                             f"(options: {', '.join(kinds)})")
        out[name] = parse_typed(raw, kinds[name], f"option {name}")
    return out


def typed_params(policy_cls: type, texts: list[str], flag: str) -> dict[str, Any]:
    """``--param NAME=VALUE`` flags typed from the policy's parameter fields."""
    kinds = field_types(policy_cls)
    out = {}
    for text in texts:
        name, raw = parse_assignment(text, flag)
        if name not in kinds:
            raise UsageError(f"{flag}: {policy_cls.__name__} has no parameter {name!r} "
                             f"(parameters: {', '.join(kinds) or 'none'})")
        if name in out:
            raise UsageError(f"{flag} {name} is given twice")
        out[name] = parse_typed(raw, kinds[name], f"{flag} {name}")
    return out


def parse_seats(text: str) -> tuple[int, ...]:
    """``0,2`` -> (0, 2); a repeated seat is an error."""
    try:
        seats = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise UsageError(f"--seats expects seat numbers like 0,2, got {text!r}") from None
    if len(set(seats)) != len(seats):
        raise UsageError(f"--seats names a seat twice: {text!r}")
    return seats


def check_out_file(path: Path) -> None:
    """Reject an output file we could not write, before any work is done."""
    from analysis.runner import check_writable

    if path.suffix.lower() not in (".parquet", ".csv"):
        raise UsageError(f"--out must end in .parquet or .csv, got {str(path)!r}")
    if path.is_dir():
        raise UsageError(f"--out {str(path)!r} is a directory")
    check_writable(path)


def write_table(table: pl.DataFrame, path: Path) -> None:
    """Write a table as Parquet or CSV, atomically (no partial file on failure)."""
    check_out_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        if path.suffix.lower() == ".parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp)


def show(table: pl.DataFrame) -> str:
    """A table as aligned text."""
    with pl.Config(tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True, tbl_rows=200,
                   tbl_cols=30, float_precision=4, tbl_width_chars=160, fmt_str_lengths=60):
        return str(table)


# ------------------------------------------------------------------ experiments


def _unit_flags(scope: list[Game]) -> dict[str, str]:
    """Every unit name of the games in scope -> the games that have it."""
    found: dict[str, list[str]] = {}
    for game in scope:
        for unit in game.units:
            found.setdefault(unit.name, []).append(game.name)
    return {name: ", ".join(owners) for name, owners in found.items()}


def _policy_cls(game: Game, name: str | None, fallback, flag: str = "--policy") -> type:
    if name is None:
        return type(fallback)
    if name in game.policies:
        return game.policies[name]
    from analysis.experiment import build_policy

    try:
        return type(build_policy(game, name))
    except ValueError as exc:
        if ":" not in name:  # a registered name: the registry's message names the choices
            raise
        raise UsageError(f"{flag} {name}: {exc}") from None


def build_experiment(args: argparse.Namespace):
    """The experiment described by --config and the flags (flags win); conflicts refused."""
    from analysis.experiment import Experiment, read_toml

    game = get_game(args.game)
    data: dict[str, Any] = {}
    if args.config is not None:
        data = read_toml(args.config)
        if data.get("game", game.name) != game.name:
            raise UsageError(f"--config is for {data['game']!r}, not {game.name!r}")
        Experiment.from_dict({**data, "game": game.name})  # the file alone, naming its errors
    data["game"] = game.name
    options = dict(data.get("options", {}))
    flagged = typed_options(game, args.option)
    if not _has_player_counts(game):
        fixed = game.seats(game.units[0], game.make_config())
        if getattr(args, "players", None) is not None:
            raise UsageError(f"{game.name} is always played by {fixed} players: drop --players")
        if "n_players" in options:
            raise UsageError(f"{game.name} is always played by {fixed} players: the config "
                             f"sets n_players = {options['n_players']!r}")
    if getattr(args, "players", None) is not None:
        if "n_players" in flagged:
            raise UsageError("give the number of players once: --players or --option n_players")
        flagged["n_players"] = args.players
    options.update(flagged)
    data["options"] = options
    chosen = [(key.removeprefix("unit_"), value) for key, value in vars(args).items()
              if key.startswith("unit_") and value is not None]
    if chosen:
        unit, size = chosen[0]
        game.unit(unit)
        if size < 1:
            raise UsageError(f"--{unit} must be a positive number, got {size}")
        _check_at_most(f"--{unit}", size)
        data.update(unit=unit, size=size)
    elif "size" not in data:
        data["size"] = args.default_size
    if isinstance(data.get("size"), int) and not isinstance(data["size"], bool):
        data["size"] = scaled(data["size"])
    if args.seed is not None:
        data["seed"] = args.seed
    if args.policy is not None or args.param:
        current = data.get("policies", data.pop("policy", None)) or [{"name": game.default_policy}]
        current = [current] if isinstance(current, str | dict) else list(current)
        if len(current) != 1 and args.policy is None:
            raise UsageError("--param needs --policy when the config gives one policy per seat")
        first = current[0] if isinstance(current[0], dict) else {"name": current[0]}
        name = args.policy or first["name"]
        params = dict(first.get("params", {})) if args.policy is None else {}
        params.update(typed_params(_policy_cls(game, name, None), args.param, "--param"))
        data.pop("policy", None)
        data["policies"] = [{"name": name, "params": params}]
    experiment = Experiment.from_dict(data)
    ignored = [o for o in getattr(experiment.unit, "ignores", ()) if o in options]
    if ignored:
        raise UsageError(f"option {ignored[0]} has no effect on {game.name} "
                         f"{experiment.unit.name}: drop it, or choose another unit")
    return experiment


def _check_at_most(flag: str, size: int) -> None:
    """A size beyond the units a run can number (``MAX_UNITS``) is refused, naming its flag."""
    from simulators.core.rng import MAX_UNITS

    if size > MAX_UNITS:
        raise UsageError(f"{flag} must be at most {MAX_UNITS:,} (unit ids are 64-bit "
                         f"integers), got {size}")


def _check_partners(experiment, seats, where: str = "") -> None:
    """--seats within one of the game's partnerships (analysis.experiment.check_one_side)."""
    from analysis.experiment import check_one_side

    try:
        check_one_side(experiment.game, experiment.config, seats)
    except ValueError as exc:
        raise UsageError(f"--seats: {exc}{where}") from None


def _policy_from(experiment, name: str | None, params: list[str], flag: str, fallback):
    if name is None and not params:
        return fallback
    from analysis.experiment import build_policy

    game = experiment.game
    cls = _policy_cls(game, name, fallback, flag.removesuffix("-param"))
    base = fallback.get_params() if name is None else {}
    return build_policy(game, {"name": name or _registry_name(game, fallback),
                               "params": {**base, **typed_params(cls, params, flag)}})


def _registry_name(game: Game, policy) -> str:
    from analysis.experiment import policy_name

    return policy_name(game, policy)


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The executor's options of a study command, checked before any work."""
    from analysis.runner import check_n_jobs, check_run_dir

    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    if args.backend == "dask" and args.scheduler is None:
        raise UsageError("--backend dask needs --scheduler tcp://HOST:PORT")
    try:
        check_n_jobs(args.n_jobs, args.backend)
    except ValueError as exc:
        raise UsageError(f"--{exc}".replace("--n_jobs", "--n-jobs")) from None
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UsageError(f"--chunk-size must be a positive integer, got {args.chunk_size}")
    if args.out_dir is not None:
        check_run_dir(args.out_dir)
        args.resume_hint = args.out_dir
    return {"n_jobs": args.n_jobs, "chunk_size": args.chunk_size, "progress": args.progress,
            "backend": args.backend, "scheduler": args.scheduler}


def _study_dir_line(out_dir: Path) -> str:
    """Where a study is kept, its units and time over every session, and how to resume."""
    import json

    from analysis.runner import MANIFEST, sessions_text

    manifest = json.loads((out_dir / MANIFEST).read_text())
    return (f"study directory: {out_dir}: {manifest['units_done']} units "
            f"{sessions_text(manifest)} (rerun the same command to resume; a larger size "
            "extends it)")


def _json_value(value: Any) -> Any:
    """A value JSON can hold: NaN and infinities become null (strict JSON has neither)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


def json_document(rows: pl.DataFrame, experiment: dict[str, Any], seconds: float,
                  **extra: Any) -> str:
    """``{"rows": [...], "experiment": {...}, "seconds": ...}``: the printed table's rows as
    objects (same column names), what was played, and the command's wall time."""
    import json

    doc = {"rows": rows.to_dicts(), "experiment": experiment, "seconds": round(seconds, 3),
           **extra}
    return json.dumps(_json_value(doc), indent=2, default=str)


def _policy_spec(experiment, policy) -> dict[str, Any]:
    from analysis.experiment import policy_name

    return {"name": policy_name(experiment.game, policy), "params": policy.get_params()}


def _check_precision(precision: float | None) -> None:
    if precision is not None and not (0 < precision < float("inf")):
        raise UsageError(f"--precision must be a positive number, got {precision}")


def _rates_text(rates: pl.DataFrame) -> list[str]:
    lines = []
    for r in rates.iter_rows(named=True):
        if r["kind"] == "rate":
            lines.append(f"  {r['label']:<24} {100 * r['value']:6.1f}%   95% CI "
                         f"[{100 * r['low']:.1f}, {100 * r['high']:.1f}]   n={r['n']}")
        else:
            lines.append(f"  {r['label']:<24} {r['value']:7.2f}   95% CI "
                         f"[{r['low']:.2f}, {r['high']:.2f}]   n={r['n']}")
    return lines


def cmd_simulate(args: argparse.Namespace) -> str:
    from analysis import summaries
    from analysis.runner import run, run_until, sessions_text

    started = time.perf_counter()
    experiment = build_experiment(args)
    unit = experiment.unit
    options = _run_options(args)
    _check_precision(args.precision)
    metric = args.metric
    names = [m.name for m in unit.metrics]
    if metric is not None and args.precision is None:
        raise UsageError("--metric chooses what --precision watches: give --precision too")
    if args.precision is not None:
        metric = metric or (names[0] if names else None)
        if metric not in names:
            raise UsageError(f"--metric must be one of {', '.join(names) or 'none'} for "
                             f"{experiment.game.name} {unit.name}, got {metric!r}")
    with tempfile.TemporaryDirectory(prefix="tapisvert-") as scratch:
        out_dir = args.out_dir if args.out_dir is not None else Path(scratch) / "run"
        if args.precision is None:
            result = run(experiment, out_dir, **options)
        else:
            def estimate(res):
                return summaries.estimate(unit.metrics, res.scan(unit.summary_table), metric,
                                          cluster=unit.cluster)

            result = run_until(experiment, out_dir, estimate, args.precision / 100, **options)
        rates = summaries.evaluate(unit.metrics, result.scan(unit.summary_table),
                                   cluster=unit.cluster)
        if args.json:
            extra = {"sequential": result.manifest["sequential"]} if args.precision else {}
            return json_document(rates, experiment.to_dict(), time.perf_counter() - started,
                                 units=result.manifest["units_done"],
                                 sessions=len(result.manifest["sessions"]), **extra)
        size = f"{result.manifest['units_done']} {unit.name}"
        if unit.summary_table != unit.name:
            rows = result.scan(unit.summary_table).select(pl.len()).collect().item()
            size += f" ({rows} {unit.summary_table})"
        lines = [f"{experiment.game.name}, {experiment.options or 'default rules'}, "
                 f"{experiment.labels()}, seed {experiment.seed}: {size} "
                 f"{sessions_text(result.manifest)}"]
        lines += _rates_text(rates)
        if unit.cluster is not None:
            lines.append(f"  intervals are cluster-robust: the {unit.summary_table} of one "
                         f"{unit.singular} are not independent (clusters: {unit.cluster})")
        if args.precision is not None:
            seq = result.manifest["sequential"]
            reached = ("reached" if seq["precision_reached"]
                       else "NOT reached: the budget was spent first (raise the size)")
            lines.append(f"  sequential: target {metric} ±{args.precision} pt {reached}; "
                         f"checked after every chunk of {result.manifest['chunk_size']} "
                         f"{unit.name}")
        if args.out_dir is not None:
            lines.append(f"  run directory: {args.out_dir} (rerun the same command to resume; "
                         "a larger size extends it)")
        if size_scale() != 1:
            lines.append(f"  sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    return "\n".join(lines)


def cmd_compare(args: argparse.Namespace) -> str:
    from analysis.compare import compare, verdict
    from analysis.experiment import check_seats, policy_label

    started = time.perf_counter()
    experiment = build_experiment(args)
    if len(experiment.policies) != 1 and args.baseline is None:
        raise UsageError("the config gives one policy per seat, but compare puts A (then B) at "
                         "--seats and one --baseline elsewhere: give --baseline, or one policy")
    focal = experiment.policies[0]
    baseline = _policy_from(experiment, args.baseline, args.baseline_param, "--baseline-param",
                            focal)
    a = _policy_from(experiment, args.a, args.a_param, "--a-param", focal)
    b = _policy_from(experiment, args.b, args.b_param, "--b-param", focal)
    seats = check_seats(parse_seats(args.seats), experiment.seats)
    _check_partners(experiment, seats)
    if type(a) is type(b) and a.get_params() == b.get_params():
        raise UsageError("policies A and B are identical: change --a/--a-param or --b/--b-param")
    if args.out is not None:
        check_out_file(args.out)
    precision = args.precision
    _check_precision(precision)
    if args.duplicate:
        return _duplicate(args, experiment, a, b, baseline, seats, started)
    table = compare(experiment.replace(policies=(focal,)), a, b, baseline, seats,
                    precision=precision, out_dir=args.out_dir, **_run_options(args))
    if args.out is not None:
        write_table(table, args.out)
    if args.json:
        return json_document(
            table, {**experiment.replace(policies=(baseline,)).to_dict(),
                    "a": _policy_spec(experiment, a), "b": _policy_spec(experiment, b),
                    "baseline": _policy_spec(experiment, baseline), "seats": list(seats),
                    "precision": precision}, time.perf_counter() - started)
    paired = table.row(2, named=True)
    unpaired = table.row(3, named=True)
    lines = [
        f"Score per {experiment.unit.singular} of {_seats_phrase(seats)} "
        f"(other seats: {policy_label(experiment.game, baseline)}), same "
        f"{experiment.unit.name} for A and B.",
        f"score = {experiment.unit.score}",
        show(table.drop("target_reached")),
        f"paired interval width {paired['high'] - paired['low']:.4f} vs unpaired "
        f"{unpaired['high'] - unpaired['low']:.4f}; {verdict(table)} (p = {paired['p_value']:.3g})",
    ]
    if args.out_dir is not None:
        lines.append(_study_dir_line(args.out_dir))
    if precision is not None:
        reached = paired["target_reached"]
        lines.append(f"sequential: target ±{precision} points "
                     + ("reached" if reached else "NOT reached: the budget was spent first "
                        "(raise the size)") + f" after {paired['n']} {experiment.unit.name}")
    if size_scale() != 1:
        lines.append(f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    return "\n".join(lines)


def _duplicate(args, experiment, a, b, baseline, seats, started) -> str:
    """``compare --duplicate``: A against B, every unit once per rotation of A's seats."""
    from analysis.compare import duplicate, rotations
    from analysis.experiment import policy_label

    if len(seats) == experiment.seats:
        raise UsageError(f"--seats: with --duplicate A takes the seats given and B every other "
                         f"one; give fewer than {experiment.seats}")
    table, reduction = duplicate(experiment.replace(policies=(baseline,)), a, b, baseline,
                                 seats, precision=args.precision, out_dir=args.out_dir,
                                 **_run_options(args))
    if args.out is not None:
        write_table(table, args.out)
    turns = rotations(seats, experiment.seats)
    if args.json:
        return json_document(
            table, {**experiment.replace(policies=(baseline,)).to_dict(),
                    "a": _policy_spec(experiment, a), "b": _policy_spec(experiment, b),
                    "baseline": _policy_spec(experiment, baseline), "seats": list(seats),
                    "duplicate": [list(t) for t in turns], "precision": args.precision},
            time.perf_counter() - started, variance_reduction=reduction)
    est = table.row(2, named=True)
    return "\n".join([
        f"Duplicate: A at {_seats_phrase(seats)} against B at every other seat, each "
        f"{experiment.unit.singular} played {len(turns)} times (A's seats "
        + ", then ".join(",".join(map(str, t)) for t in turns)
        + ") with the same cards and random draws; A's mean seat score minus B's.",
        f"score = {experiment.unit.score}",
        show(table.drop("target_reached", strict=False)),
        f"A - B = {est['mean']:+.4f} [{est['low']:+.4f}, {est['high']:+.4f}] per "
        f"{experiment.unit.singular} (p = {est['p_value']:.3g}, n = {est['n']})"
        + ("" if args.precision is None else
           f"; sequential: an anytime-valid interval (confidence sequence), target "
           f"±{args.precision} " + ("reached" if est["target_reached"] else
                                    "NOT reached: the budget was spent first")),
        f"variance reduction per {experiment.unit.singular} played: "
        f"{reduction['independent']:.2f}x against independent {experiment.unit.name}, "
        f"{reduction['fixed_seat']:.2f}x against the fixed-seat pairing (A, then B, at "
        f"{_seats_phrase(seats)} beside {policy_label(experiment.game, baseline)})",
        *([f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}"] if size_scale() != 1 else []),
    ])


def _tune_budget(args: argparse.Namespace) -> int:
    """``--budget`` (scaled like every size), ``--candidates`` and ``--confirm`` checked."""
    from analysis.tune import min_budget

    if args.budget < 1:
        raise UsageError(f"--budget must be a positive number of units, got {args.budget}")
    _check_at_most("--budget", args.budget)
    if args.candidates < 2:
        raise UsageError(f"--candidates must be 2 or more, got {args.candidates}")
    least = min_budget(args.candidates)
    if args.budget < least:
        raise UsageError(f"--budget {args.budget} cannot race {args.candidates} --candidates: "
                         f"the first round plays every candidate on at least one unit, so give "
                         f"--budget {least} or more, or fewer --candidates")
    if args.confirm is not None and args.confirm < 2:
        raise UsageError(f"--confirm must be 2 units or more, got {args.confirm}")
    if args.confirm is not None:
        _check_at_most("--confirm", args.confirm)
    return max(least, round(args.budget * size_scale()))


def _check_toml_out(path: Path) -> None:
    """``--out`` of tune: a writable .toml file."""
    from analysis.runner import check_writable

    if path.suffix.lower() != ".toml" or path.is_dir():
        raise UsageError(f"--out must be a .toml file, got {str(path)!r}")
    try:
        check_writable(path)
    except ValueError as exc:
        raise UsageError(f"--out: {exc}") from None


def cmd_tune(args: argparse.Namespace) -> str:
    """``tapisvert tune``: successive halving over ``--space``, then a fresh confirmation."""
    from analysis.experiment import check_seats, policy_label
    from analysis.tune import config_toml, parse_space, tune

    started = time.perf_counter()
    experiment = build_experiment(args)
    if len(experiment.policies) != 1:
        raise UsageError("tune starts from one policy for every seat (--policy, --param)")
    current = experiment.policies[0]
    try:
        space = parse_space(args.space, type(current))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    budget = _tune_budget(args)
    against = _policy_from(experiment, args.against, args.against_param, "--against-param",
                           current)
    seats = check_seats(parse_seats(args.seats), experiment.seats)
    _check_partners(experiment, seats)
    if args.out is not None:
        _check_toml_out(args.out)
    _check_precision(args.precision)
    result = tune(experiment, space, baseline=against, seats=seats, budget=budget,
                  n_candidates=args.candidates, confirm_units=args.confirm,
                  precision=args.precision,
                  out_dir=args.out_dir, **_run_options(args))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(args.out, config_toml(experiment, result["best"]))
    rounds = pl.DataFrame([{k: (", ".join(map(str, v)) if k == "kept" else v)
                            for k, v in r.items()} for r in result["rounds"]])
    if args.json:
        return json_document(
            rounds, {**experiment.to_dict(), "space": [vars(d) for d in space],
                     "against": _policy_spec(experiment, against), "seats": list(seats),
                     "budget": budget},
            time.perf_counter() - started, best=result["best"],
            candidates=result["candidates"], spent=result["spent"],
            confirmation=result["confirmation"])
    c = result["confirmation"]
    tuned = {d.name: result["best"][d.name] for d in space}
    unit = experiment.unit
    lines = [
        f"tune {experiment.game.name}: {args.candidates} settings of "
        f"{policy_label(experiment.game, current)} raced by successive halving on the same "
        f"{unit.name} at {_seats_phrase(seats)} (other seats: "
        f"{policy_label(experiment.game, against)}); {result['spent']:,} {unit.name} played.",
        show(rounds),
        "best: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                             for k, v in tuned.items()),
        f"confirmed on {c['n']:,} fresh {unit.name} (seed {c['seed']}): best - current = "
        f"{c['mean']:+.4f} [{c['low']:+.4f}, {c['high']:+.4f}] per {unit.singular} "
        f"(p = {c['p_value']:.3g})"
        + ("" if args.precision is None else
           f"; sequential: an anytime-valid interval, target ±{args.precision} "
           + ("reached" if c["target_reached"] else "NOT reached within --confirm")),
    ]
    if size_scale() != 1:
        lines.append(f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    if args.out is not None:
        lines.append(f"written: {args.out} (tapisvert simulate {experiment.game.name} "
                     f"--config {args.out})")
    return "\n".join(lines)


def _grid(experiment, texts: list[str]) -> dict[str, list[Any]]:
    """``--grid NAME=V1,V2`` flags typed from the policy's parameters or the config's fields."""
    params = field_types(type(experiment.policies[0]))
    options = field_types(experiment.game.config)
    grid: dict[str, list[Any]] = {}
    for text in texts:
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise UsageError(f"--grid expects NAME=V1,V2,…, got {text!r}")
        if name in grid:
            raise UsageError(f"--grid {name} is given twice: list its values once")
        kind = params.get(name, options.get(name))
        if kind is None:
            raise UsageError(f"--grid {name!r} is neither a parameter of "
                             f"{type(experiment.policies[0]).__name__} nor a rule option "
                             f"(parameters: {', '.join(params)}; options: {', '.join(options)})")
        values = [parse_typed(v, kind, f"--grid {name}") for v in raw.split(",") if v.strip()]
        if len({repr(v) for v in values}) != len(values):
            raise UsageError(f"--grid {name} repeats a value: {raw!r}")
        grid[name] = values
    return grid


def cmd_sweep(args: argparse.Namespace) -> str:
    from analysis.compare import sweep
    from analysis.experiment import check_seats, policy_label

    started = time.perf_counter()
    experiment = build_experiment(args)
    if not args.grid:
        raise UsageError("sweep needs at least one --grid NAME=V1,V2,…")
    if len(experiment.policies) != 1:
        raise UsageError("sweep varies one policy: the config gives one policy per seat")
    grid = _grid(experiment, args.grid)
    seats = parse_seats(args.seats)
    options = [k for k in grid if k in field_types(experiment.game.config)]
    points = [dict(zip(options, combo, strict=True))
              for combo in itertools.product(*(grid[k] for k in options))]
    fewest = min(experiment.replace(options=point).seats for point in points)
    try:
        check_seats(seats, fewest)
    except ValueError:
        raise UsageError(f"--seats must be seat numbers in 0..{fewest - 1} (every grid point "
                         f"has at least {fewest} seats), got {args.seats!r}") from None
    for point in points:
        at = ", ".join(f"{k}={v}" for k, v in point.items())
        _check_partners(experiment.replace(options=point), seats, f" (at {at})" if at else "")
    if args.out is not None:
        check_out_file(args.out)
    run_options = _run_options(args)
    table = sweep(experiment, grid, seats=seats, correction=args.correction,
                  out_dir=args.out_dir, **run_options)
    if args.out is not None:
        write_table(table, args.out)
    if args.json:
        return json_document(table, {**experiment.to_dict(), "grid": grid, "seats": list(seats),
                                     "correction": args.correction},
                             time.perf_counter() - started)
    metrics = [m.name for m in experiment.unit.metrics]
    keep = [c for c in table.columns if c.startswith("param_")] + [
        "n", *metrics[:3], "score", "diff_vs_first", "diff_low", "diff_high", "p_adjusted"]
    swept = type(experiment.policies[0]).__name__
    lines = [f"score = mean per {experiment.unit.singular} of {_seats_phrase(seats)}, who "
             f"play the swept {swept} (other seats: "
             f"{policy_label(experiment.game, experiment.policies[0])}); one score is "
             f"{experiment.unit.score}",
             show(table.select([c for c in keep if c in table.columns])),
             f"diff_vs_first: paired difference with the first row; p_adjusted: "
             f"{args.correction}"]
    if args.out_dir is not None:
        lines.append(_study_dir_line(args.out_dir))
    if size_scale() != 1:
        lines.append(f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    return "\n".join(lines)


def _question_fields(scope: list[Game]) -> dict[str, tuple[Any, str, bool]]:
    """Every odds-question field of the games in scope -> (type, doc, required somewhere)."""
    found: dict[str, tuple[Any, str, bool]] = {}
    for game in scope:
        if game.odds is None:
            continue
        kinds = field_types(game.odds.question)
        for f in dataclasses.fields(game.odds.question):
            required = (f.default is dataclasses.MISSING
                        and f.default_factory is dataclasses.MISSING)
            doc = f.metadata.get("doc", "")
            card = game.odds.cards.get(f.name)
            if card is not None and card.example and card.example not in doc:
                doc += f' (e.g. "{card.example}")'
            found.setdefault(f.name, (kinds[f.name], doc, required))
    return found


def _question(game: Game, values: dict[str, Any]):
    """The odds question; its own refusal names the flag of the field it starts with
    (``worlds ...`` -> ``--worlds ...``)."""
    try:
        return game.odds.question(**values)
    except ValueError as exc:
        text = str(exc)
        for f in dataclasses.fields(game.odds.question):
            if text.startswith((f"{f.name} ", f"{f.name}:")):
                text = f"--{f.name.replace('_', '-')}{text[len(f.name):]}"
                break
        raise UsageError(text) from None


def cmd_odds(args: argparse.Namespace) -> str:
    from analysis.odds import odds, verdict

    game = get_game(args.game)
    if game.odds is None:
        raise UsageError(f"odds is not available for {game.name}")
    others = [key.removeprefix("unit_") for key, value in vars(args).items()
              if key.startswith("unit_") and value is not None
              and key != f"unit_{game.units[0].name}"]
    if others:
        raise UsageError(f"odds plays single {game.units[0].name}: give "
                         f"--{game.units[0].name} N (per decision), not --{others[0]}")
    experiment = build_experiment(args)
    kinds = field_types(game.odds.question)
    values = {}
    for f in dataclasses.fields(game.odds.question):
        raw = getattr(args, f"question_{f.name}", None)
        if raw is None:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise UsageError(f"odds {game.name} needs --{f.name.replace('_', '-')}")
            continue
        values[f.name] = parse_typed(raw, kinds[f.name], f"--{f.name}")
    extra = [key.removeprefix("question_") for key, value in vars(args).items()
             if key.startswith("question_") and value is not None
             and key.removeprefix("question_") not in kinds]
    if extra:
        raise UsageError(f"odds {game.name} does not take --{extra[0].replace('_', '-')}")
    question = _question(game, values)
    understood = game.odds.understood(question)  # every card argument read, before any work
    heading = game.odds.describe(experiment.config, question)
    options = _run_options(args)
    started = time.perf_counter()
    table = odds(experiment, question, out_dir=args.out_dir, **options)
    if args.json:
        return json_document(table, {**experiment.to_dict(),
                                     "question": dataclasses.asdict(question),
                                     "understood": understood},
                             time.perf_counter() - started, heading=heading)
    lines = [heading]
    if understood:
        lines.append("read as: " + "; ".join(f"--{k.replace('_', '-')} {v!r}"
                                             for k, v in understood.items()))
    lines.append(show(table))
    said = verdict(experiment, question, table)
    if said:
        lines.append(said)
    if args.out_dir is not None:
        lines.append(_study_dir_line(args.out_dir))
    return "\n".join(lines)


def cmd_report(args: argparse.Namespace) -> str:
    from analysis.reporting import build_all, build_report, check_out_dir, report_module
    from analysis.runner import check_n_jobs

    if not (0 < args.scale < float("inf")):
        raise UsageError(f"--scale must be a positive number, got {args.scale}")
    try:
        check_n_jobs(args.n_jobs)
    except ValueError as exc:
        raise UsageError(f"--{exc}".replace("--n_jobs", "--n-jobs")) from None
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.game == "all" and args.config is not None:
        raise UsageError("--config applies to one game's report, not to 'all'")
    if args.game != "all" and report_module(get_game(args.game)) is None:
        raise UsageError(f"{args.game} has no report yet")
    check_out_dir(args.out_dir)
    args.resume_hint = args.out_dir

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    settings = {"scale": args.scale * size_scale(), "seed": args.seed, "n_jobs": args.n_jobs,
                "config": args.config, "progress": progress}
    if args.game == "all":
        paths = build_all(args.out_dir, **settings)
        return f"reports written: {paths['index']} links {len(paths) - 1} game report(s)"
    paths = build_report(args.game, args.out_dir, **settings)
    return f"report written: {paths['html']} (self-contained) and {paths['markdown']}"


# ------------------------------------------------------------------ discovery


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def option_docs(config: type) -> dict[str, str]:
    """Each rule option's text from the config's numpydoc ``Parameters`` section."""
    docs: dict[str, str] = {}
    current = None
    names = {f.name for f in dataclasses.fields(config)}
    for line in (config.__doc__ or "").splitlines():
        head, sep, rest = line.strip().partition(" : ")
        if sep and head in names:
            current = head
            docs[current] = rest.strip()
        elif current and line.strip() and line.startswith(" " * 8):
            docs[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return docs


def cmd_solve(args: argparse.Namespace) -> str:
    """tapisvert solve GAME: the game's exact solver (checked before any work)."""
    import json

    hook = get_game(args.game).solve
    hook.check(args)
    doc = hook.run(args, lambda line: print(line, file=sys.stderr, flush=True))
    return json.dumps(_json_value(doc), indent=1) if args.json else hook.text(doc)


def cmd_env_check(args: argparse.Namespace) -> str:
    """tapisvert env-check GAME: PettingZoo's and OpenSpiel's own tests on the game's
    environments (simulators.core.rl.check), one line per check; exit 1 if one fails."""
    from simulators.core.steps import step_parameters

    game = get_game(args.game)
    if game.steps is None:
        raise UsageError(f"{game.name} has no step-by-step game yet (Game.steps is not "
                         "declared): there is no environment to check")
    if args.games < 1:
        raise UsageError(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    defaults = step_parameters(game)  # rule options and the step game's own, with defaults
    options: dict[str, Any] = {}
    for text in args.option:
        name, raw = parse_assignment(text, "--option")
        if name not in defaults:
            raise UsageError(f"unknown option for {game.name}'s environments: {name!r} "
                             f"(options: {', '.join(defaults)})")
        options[name] = parse_typed(raw, type(defaults[name]), f"option {name}")
    try:
        from simulators.core.rl.check import run_checks
    except ImportError as error:  # the [rl] extra is missing: the message says how to add it
        raise UsageError(str(error)) from None
    started = time.perf_counter()
    results = run_checks(game, options, games=args.games, seed=args.seed,
                         progress=lambda message: print(f"  {game.name}: {message}",
                                                        file=sys.stderr, flush=True))
    failed = [r.name for r in results if not r.passed]
    args.exit_status = 1 if failed else 0
    if args.json:
        rows = pl.DataFrame([{"check": r.name, "passed": r.passed, "detail": r.detail,
                              "seconds": round(r.seconds, 3)} for r in results])
        experiment = {"game": game.name, "options": {**defaults, **options},
                      "games": args.games, "seed": args.seed}
        return json_document(rows, experiment, time.perf_counter() - started)
    verdict = (f"{len(failed)} of {len(results)} checks failed: {', '.join(failed)}" if failed
               else f"all {len(results)} checks passed")
    return "\n".join([*(r.line() for r in results), verdict])


def cmd_games(args: argparse.Namespace) -> str:
    lines = []
    for game in games().values():
        lines.append(f"{game.name}: {game.title}   (rules: {game.rules_doc or 'docs/rules'})")
        for unit in game.units:
            lines.append(f"  --{unit.name} N   {unit.doc or unit.singular}; score = {unit.score}")
        lines.append(f"  policies: {', '.join(game.policies)} (default {game.default_policy})"
                     f"; odds: {'yes' if game.odds else 'no'}")
    lines.append("More: tapisvert options GAME, tapisvert policies GAME")
    return "\n".join(lines)


def cmd_options(args: argparse.Namespace) -> str:
    game = get_game(args.game)
    default = game.config()
    docs = option_docs(game.config)
    kinds = field_types(game.config)
    lines = [f"Rule options of {game.title} (--option NAME=VALUE, or [options] in --config):"]
    for f in dataclasses.fields(game.config):
        kind = getattr(kinds[f.name], "__name__", str(kinds[f.name]))
        lines.append(f"  {f.name} ({kind}, default {getattr(default, f.name)!r}): "
                     f"{docs.get(f.name, '')}")
        ignored = [u.name for u in game.units if f.name in getattr(u, "ignores", ())]
        if ignored:
            lines[-1] += f" [no effect on {', '.join(ignored)}]"
    return "\n".join(lines)


def _only_with_text(spec: dict[str, Any]) -> str:
    """`` [only with card_call=false]`` for a parameter one mode of the policy reads."""
    needs = spec.get("only_with")
    if not needs:
        return ""
    return " [only with " + ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in needs.items()) + "]"


def cmd_policies(args: argparse.Namespace) -> str:
    game = get_game(args.game)
    lines = [f"Policies of {game.title} (--policy NAME --param NAME=VALUE; your own class: "
             "--policy module:Class):"]
    for name, cls in game.policies.items():
        lines.append(f"  {name}{' (default)' if name == game.default_policy else ''}: "
                     f"{_first_line(cls.__doc__)}")
        for pname, spec in cls.parameters().items():
            bounds = ("" if spec["low"] is None and spec["high"] is None
                      else f", {spec['low']}..{spec['high']}")
            lines.append(f"      {pname} (default {spec['default']!r}{bounds}): {spec['doc']}"
                         + _only_with_text(spec))
    return "\n".join(lines)


# ------------------------------------------------------------------ parser


def _has_player_counts(game: Game) -> bool:
    """Whether the number of players is a rule option of the game (not a fixed count)."""
    return "n_players" in {f.name for f in dataclasses.fields(game.config)}


def _examples(scope: list[Game]) -> tuple[str, str]:
    """``--param`` and ``--option`` examples from the registry of the game in scope (the
    first game's, naming it, when the parser serves every game); a game whose default
    policy has no parameter, or whose config no number or switch, gets ``NAME=VALUE``."""
    game = scope[0]
    where = "" if len(scope) == 1 else f" for {game.name}"
    params = list(game.policies[game.default_policy].parameters().items())
    params.sort(key=lambda item: isinstance(item[1]["default"], bool))  # numbers first
    param = f"{params[0][0]}={params[0][1]['default']}{where}" if params else "NAME=VALUE"
    fields = [f for f in dataclasses.fields(game.config)
              if isinstance(f.default, bool | int) and f.name != "seed"]
    if not fields:
        return param, "NAME=VALUE"
    shown = fields[0].default if not isinstance(fields[0].default, bool) else \
        not fields[0].default
    option = f"{fields[0].name}={str(shown).lower() if isinstance(shown, bool) else shown}"
    return param, f"{option}{where}"


def _experiment_parent(default_size: int, scope: list[Game]) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("game", choices=registered_names())
    parent.add_argument("--config", type=Path, help="experiment TOML file (flags override it)")
    counted = [g for g in scope if _has_player_counts(g)]
    if counted:
        parent.add_argument("--players", type=int,
                            help="number of players (rule option n_players)" + (
                                "" if len(scope) == 1 else
                                f"; games with a choice: {', '.join(g.name for g in counted)}"))
    param_example, option_example = _examples(scope)
    size = parent.add_mutually_exclusive_group()
    for unit, owners in _unit_flags(scope).items():
        size.add_argument(f"--{unit}", type=int, dest=f"unit_{unit}", metavar="N",
                          help=f"play N {unit} ({owners})")
    parent.add_argument("--seed", type=int, help=f"root seed (default {DEFAULT_SEED})")
    parent.add_argument("--policy", help="policy for every seat: a registered name "
                                         "(tapisvert policies GAME) or your class, "
                                         "module:Class")
    parent.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help=f"policy parameter, repeatable (e.g. {param_example}); the list: "
                             "tapisvert policies GAME")
    parent.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help=f"rule option, repeatable (e.g. {option_example}); the list: "
                             "tapisvert options GAME")
    parent.set_defaults(default_size=default_size)
    return parent


def _run_parent() -> argparse.ArgumentParser:
    """The executor's flags, the same for every study (analysis.runner)."""
    parent = Parser(add_help=False)
    parent.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    parent.add_argument("--chunk-size", type=int, help="units per chunk")
    parent.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar (default: when stderr is a terminal)")
    parent.add_argument("--out-dir", type=Path,
                        help="keep the run (manifest + Parquet parts); rerun the same command "
                             "to resume, with a larger size to extend")
    parent.add_argument("--backend", default="loky", choices=("loky", "threading", "dask"))
    parent.add_argument("--scheduler", help="Dask scheduler address, tcp://HOST:PORT "
                                            "(with --backend dask)")
    parent.add_argument("--json", action="store_true",
                        help="print one JSON document {rows, experiment, seconds} instead of "
                             "the table")
    return parent


def _add_tune(commands, experiment_parent, run_parent) -> None:
    """The ``tune`` subcommand's flags."""
    tun = commands.add_parser("tune", parents=[experiment_parent, run_parent],
                              help="find the best parameters: successive halving on common "
                                   "deals, the winner confirmed on fresh ones")
    tun.add_argument("--space", action="append", default=[],
                     metavar="NAME=LOW..HIGH[:int|:log]",
                     help="a parameter of --policy and its range, repeatable")
    tun.add_argument("--budget", type=int, required=True,
                     help="units played by the race, every candidate's counted (the unit: "
                          "the game's first, or the one a size flag such as --games names; "
                          "that flag's number is not used)")
    tun.add_argument("--against", help="policy of the other seats (default: --policy as given, "
                                       "the current setting)")
    tun.add_argument("--against-param", action="append", default=[], metavar="NAME=VALUE")
    tun.add_argument("--candidates", type=int, default=16,
                     help="settings raced, the current one included (default 16)")
    tun.add_argument("--seats", default="0", help="seats that play the tuned policy")
    tun.add_argument("--confirm", type=int,
                     help="fresh units of the confirmation (default: the winner's race units)")
    tun.add_argument("--precision", type=float,
                     help="stop the confirmation once its anytime-valid interval is within "
                          "± this many points (a confidence sequence: no optional-stopping "
                          "bias)")
    tun.add_argument("--out", type=Path,
                     help="write the best setting as an experiment TOML, reusable with --config")
    tun.set_defaults(run=cmd_tune)


def build_parser(game: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``tapisvert``.

    With ``game``, only that game is loaded and its units, options and odds
    question give the flags (the command line then starts without importing
    every game); without, every registered game does (full ``--help``).
    """
    scope = [get_game(game)] if game is not None else list(games().values())
    parser = Parser(
        prog="tapisvert", description="Monte Carlo strategy analysis for card games.",
        epilog="Errors print one line 'tapisvert: error: ...' and exit with status 2. "
               f"{SCALE_VARIABLE}=0.01 shrinks every size (smoke tests).")
    parser.add_argument("--version", action="version", version=f"tapisvert {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run_parent = _run_parent()

    sim = commands.add_parser("simulate", parents=[_experiment_parent(100_000, scope), run_parent],
                              help="play deals or games; print rates with 95%% intervals")
    sim.add_argument("--precision", type=float,
                     help="sequential mode: stop when --metric is within ± this many points")
    sim.add_argument("--metric", help="the metric --precision watches (default: the unit's "
                                      "first, e.g. take_rate)")
    sim.set_defaults(run=cmd_simulate)

    cmp = commands.add_parser("compare", parents=[_experiment_parent(100_000, scope), run_parent],
                              help="is policy A better than B? paired on the same deals")
    cmp.add_argument("--a", help="policy A (default: --policy)")
    cmp.add_argument("--duplicate", action="store_true",
                     help="A against B: A at --seats, B at every other seat, each unit replayed "
                          "once per rotation of A's seats round the table with the same cards "
                          "and random draws (duplicate play); prints the variance reduction "
                          "against independent units and the fixed-seat pairing")
    cmp.add_argument("--a-param", action="append", default=[], metavar="NAME=VALUE")
    cmp.add_argument("--b", help="policy B (default: --policy)")
    cmp.add_argument("--b-param", action="append", default=[], metavar="NAME=VALUE")
    cmp.add_argument("--baseline", help="policy of the other seats (default: --policy)")
    cmp.add_argument("--baseline-param", action="append", default=[], metavar="NAME=VALUE")
    cmp.add_argument("--seats", default="0", help="seats under study, e.g. 0,2 (default 0)")
    cmp.add_argument("--precision", type=float,
                     help="stop once the paired difference is within ± this many points")
    cmp.add_argument("--out", type=Path, help="write the table (.csv or .parquet)")
    cmp.set_defaults(run=cmd_compare)

    swp = commands.add_parser("sweep", parents=[_experiment_parent(50_000, scope), run_parent],
                              help="grid over policy parameters or rule options")
    swp.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                     help="values of a policy parameter or rule option, repeatable")
    swp.add_argument("--seats", default="0",
                     help="seats that play the swept policy and whose score is summed "
                          "(default 0: one player's gain; the others play --policy)")
    swp.add_argument("--correction", default="holm", choices=("holm", "fdr_bh"))
    swp.add_argument("--out", type=Path, help="write the table (.csv or .parquet)")
    swp.set_defaults(run=cmd_sweep)

    _add_tune(commands, _experiment_parent(0, scope), run_parent)

    odds_help = ("my odds in a given situation: each decision (take or pass, stop or draw, "
                 "play or ask, take the discard or draw) played on the same deals, with 95%% "
                 "intervals; tapisvert odds GAME --help lists that game's question")
    odds = commands.add_parser("odds", parents=[_experiment_parent(20_000, scope), run_parent],
                               help=odds_help, description=odds_help)
    for name, (_kind, doc, _required) in _question_fields(scope).items():
        odds.add_argument(f"--{name.replace('_', '-')}", dest=f"question_{name}", help=doc)
    odds.set_defaults(run=cmd_odds)

    rep = commands.add_parser("report", help="balance report (HTML + Markdown); 'all' builds "
                                             "every game's report and an index page")
    rep.add_argument("game", choices=(*registered_names(), "all"))
    rep.add_argument("--out-dir", type=Path, default=Path("reports"))
    rep.add_argument("--config", type=Path,
                     help="TOML with [options] and [[policies]] the report starts from")
    rep.add_argument("--scale", type=float, default=1.0, help="multiply every sample size")
    rep.add_argument("--seed", type=int, default=DEFAULT_SEED)
    rep.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    rep.add_argument("--quiet", action="store_true", help="no progress lines")
    rep.set_defaults(run=cmd_report)

    _add_solve_command(commands, scope)
    _add_env_check(commands)
    _add_discovery_commands(commands)
    return parser


def _add_env_check(commands) -> None:
    """env-check GAME: the game-AI environments through their libraries' own tests."""
    env = commands.add_parser("env-check", help="PettingZoo's api_test and seed_test and "
                                                "OpenSpiel's checks on a game's environments "
                                                "(needs: pip install -e \".[rl]\")")
    env.add_argument("game", choices=registered_names())
    env.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="rule option or environment option, repeatable (docs/envs.md)")
    env.add_argument("--games", type=int, default=100,
                     help="random units per simulation check (default 100)")
    env.add_argument("--seed", type=int, default=DEFAULT_SEED,
                     help=f"root seed (default {DEFAULT_SEED})")
    env.add_argument("--json", action="store_true",
                     help="print one JSON document {rows, experiment, seconds}")
    env.set_defaults(run=cmd_env_check)


def _add_solve_command(commands, scope) -> None:
    """solve GAME: the games with an exact solver (Game.solve) declare its flags, each on
    its own parser (``solve GAME --help``), so two games may use one flag name."""
    solvers = [g for g in scope if g.solve is not None]
    if not solvers:
        return
    solve = commands.add_parser("solve", help="exact solvers: "
                                + "; ".join(f"{g.name}: {g.solve.doc}" for g in solvers))
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    games_of = solve.add_subparsers(dest="game", required=True, metavar="GAME")
    for g in solvers:
        sub = games_of.add_parser(g.name, help=g.solve.doc)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print one JSON object")
        g.solve.add_arguments(sub)
    solve.set_defaults(run=cmd_solve)


def _add_discovery_commands(commands) -> None:
    """games, options GAME, policies GAME: what can be simulated, and how."""
    listing = commands.add_parser("games", help="the registered games, their units and scores")
    listing.set_defaults(run=cmd_games)
    for name, helptext, run in (("options", "a game's rule options: types, defaults, docs",
                                 cmd_options),
                                ("policies", "a game's policies and their parameters (ranges, "
                                             "docs)", cmd_policies)):
        sub = commands.add_parser(name, help=helptext)
        sub.add_argument("game", choices=registered_names())
        sub.set_defaults(run=run)


def _version() -> str:
    from analysis.runner import _package_version

    return _package_version()


def _game_named(argv: list[str]) -> str | None:
    """The registered game a command line names (its second word), if any."""
    words = [w for w in argv if not w.startswith("-")][:2]
    return words[1] if len(words) == 2 and words[1] in registered_names() else None


def _seats_phrase(seats) -> str:
    """'seat 0' or 'seats 0, 2'."""
    seats = list(seats)
    return f"seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))}"


def _parse(argv: list[str], args: argparse.Namespace) -> argparse.Namespace:
    """Parse with the named game's flags only; a flag of another game is then
    parsed with every game's flags, so the error names what the game lacks
    (e.g. "unit must be one of ...") rather than an unknown flag."""
    game = _game_named(argv)
    try:
        return build_parser(game).parse_args(argv, namespace=argparse.Namespace(**vars(args)))
    except UsageError as exc:
        if game is None or not str(exc).startswith("unrecognized arguments"):
            raise
        try:
            return build_parser(None).parse_args(argv, namespace=args)
        except UsageError:
            raise exc from None


def _fail(message: str, status: int = EXIT_USAGE) -> int:
    text = message.strip().splitlines()[0] if message.strip() else "failed"
    print(f"tapisvert: error: {text}", file=sys.stderr, flush=True)
    return status


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status. The one place errors leave the command."""
    if os.getcwd() not in sys.path:  # your own policy as module:Class, like python -m
        sys.path.append(os.getcwd())
    args = argparse.Namespace(resume_hint=None)
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = _parse(argv, args)
        text = args.run(args)
        print(text, flush=True)
        status = int(getattr(args, "exit_status", 0))  # a command whose checks failed: 1
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0) if not isinstance(exc.code, str) else _fail(exc.code)
    except ValueError as exc:  # usage, config and policy validation, IllegalAction
        return _fail(str(exc) or type(exc).__name__)
    except KeyboardInterrupt:
        hint = (f"; finished chunks are kept in {str(args.resume_hint)!r}: rerun the same "
                "command to resume" if args.resume_hint is not None else "")
        return _fail(f"interrupted{hint}", EXIT_INTERRUPTED)
    except BrokenPipeError:  # `tapisvert … | head`: the reader has gone, say nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 (a bug: still one line, unless debugging)
        if os.environ.get("TAPISVERT_DEBUG"):
            raise
        return _fail(f"internal error, {type(exc).__name__}: {exc} (TAPISVERT_DEBUG=1 shows "
                     "the traceback; please report it)", 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
