"""The ``tapisvert`` command line: simulate, compare, sweep, odds, report.

Every game comes from the registry (:mod:`simulators.core.game`): its units
give the size flags (``--deals``, ``--rounds``…), its config dataclass types
the ``--option`` values, its policy classes type the ``--param`` values, its
odds question gives the ``odds`` flags. Every command validates its whole
input before doing any work; on bad input it prints one line
``tapisvert: error: …`` to stderr and exits with status 2, writing nothing.
Output files appear by atomic rename only when complete.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import types
import typing
from pathlib import Path
from typing import Any

import polars as pl

from simulators.core.game import Game, game_names, games, get_game

EXIT_USAGE = 2


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


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
        out[name] = parse_typed(raw, kinds[name], f"{flag} {name}") if name in kinds else raw
    return out


def parse_seats(text: str) -> tuple[int, ...]:
    """``0,2`` -> (0, 2)."""
    try:
        return tuple(int(s) for s in text.split(","))
    except ValueError:
        raise UsageError(f"--seats expects seat numbers like 0,2, got {text!r}") from None


def check_out_file(path: Path) -> None:
    """Reject an output file we could not write, before any work is done."""
    if path.suffix.lower() not in (".parquet", ".csv"):
        raise UsageError(f"--out must end in .parquet or .csv, got {str(path)!r}")
    if not path.parent.is_dir():
        raise UsageError(f"--out directory does not exist: {str(path.parent)!r}")


def write_table(table: pl.DataFrame, path: Path) -> None:
    """Write a table as Parquet or CSV, atomically (no partial file on failure)."""
    check_out_file(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        if path.suffix.lower() == ".parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def show(table: pl.DataFrame) -> str:
    """A table as aligned text."""
    with pl.Config(tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True, tbl_rows=200,
                   tbl_cols=30, float_precision=4, tbl_width_chars=160, fmt_str_lengths=60):
        return str(table)


# ------------------------------------------------------------------ experiments


def _unit_flags() -> dict[str, str]:
    """Every unit name of every registered game -> the games that have it."""
    found: dict[str, list[str]] = {}
    for game in games().values():
        for unit in game.units:
            found.setdefault(unit.name, []).append(game.name)
    return {name: ", ".join(owners) for name, owners in found.items()}


def _policy_cls(game: Game, name: str | None, fallback) -> type:
    if name is None:
        return type(fallback)
    if name in game.policies:
        return game.policies[name]
    from analysis.experiment import build_policy

    return type(build_policy(game, name))


def build_experiment(args: argparse.Namespace):
    """The experiment described by --config and the flags (flags win)."""
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
    if args.players is not None:
        options["n_players"] = args.players
    options.update(typed_options(game, args.option))
    data["options"] = options
    chosen = [(name, getattr(args, f"unit_{name}")) for name in _unit_flags()
              if getattr(args, f"unit_{name}", None) is not None]
    if chosen:
        unit, size = chosen[0]
        game.unit(unit)
        data.update(unit=unit, size=size)
    elif "size" not in data:
        data["size"] = args.default_size
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
        cls = game.policies.get(name)
        params.update(typed_params(cls, args.param, "--param") if cls else
                      dict(parse_assignment(p, "--param") for p in args.param))
        data["policies"] = [{"name": name, "params": params}]
    return Experiment.from_dict(data)


def _policy_from(experiment, name: str | None, params: list[str], flag: str, fallback):
    if name is None and not params:
        return fallback
    from analysis.experiment import build_policy

    game = experiment.game
    cls = _policy_cls(game, name, fallback)
    base = fallback.get_params() if name is None else {}
    return build_policy(game, {"name": name or _registry_name(game, fallback),
                               "params": {**base, **typed_params(cls, params, flag)}})


def _registry_name(game: Game, policy) -> str:
    from analysis.experiment import policy_name

    return policy_name(game, policy)


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.n_jobs == 0:
        raise UsageError("--n-jobs must not be 0 (use 1, 2, … or -1 for all cores)")
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UsageError(f"--chunk-size must be a positive integer, got {args.chunk_size}")
    return {"n_jobs": args.n_jobs, "chunk_size": args.chunk_size, "progress": args.progress}


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
    from analysis.runner import run, run_until

    experiment = build_experiment(args)
    unit = experiment.unit
    options = _run_options(args)
    if args.precision is not None and args.precision <= 0:
        raise UsageError(f"--precision must be positive, got {args.precision}")
    metric = args.metric
    if args.precision is not None:
        names = [m.name for m in unit.metrics]
        metric = metric or (names[0] if names else None)
        if metric not in names:
            raise UsageError(f"--metric must be one of {', '.join(names) or 'none'} for "
                             f"{experiment.game.name} {unit.name}, got {metric!r}")
    if args.out_dir is not None and args.out_dir.exists() and not (
            (args.out_dir / "manifest.json").exists() or
            (args.out_dir.is_dir() and not any(args.out_dir.iterdir()))):
        raise UsageError(f"--out-dir {str(args.out_dir)!r} exists and is not a tapisvert run")
    with tempfile.TemporaryDirectory(prefix="tapisvert-") as scratch:
        out_dir = args.out_dir if args.out_dir is not None else Path(scratch) / "run"
        backend = {"backend": args.backend, "scheduler": args.scheduler}
        if args.precision is None:
            result = run(experiment, out_dir, **options, **backend)
        else:
            def estimate(res):
                return summaries.estimate(unit.metrics, res.scan(unit.summary_table), metric)

            result = run_until(experiment, out_dir, estimate, args.precision / 100, **options,
                               **backend)
        rates = summaries.evaluate(unit.metrics, result.scan(unit.summary_table))
        session = result.manifest["sessions"][-1]
        size = f"{result.manifest['units_done']} {unit.name}"
        if unit.summary_table != unit.name:
            rows = result.scan(unit.summary_table).select(pl.len()).collect().item()
            size += f" ({rows} {unit.summary_table})"
        lines = [f"{experiment.game.name}, {experiment.options or 'default rules'}, "
                 f"{experiment.labels()}, seed {experiment.seed}: {size} in "
                 f"{session['wall_seconds']:.1f} s"]
        lines += _rates_text(rates)
        if args.precision is not None:
            seq = result.manifest["sequential"]
            reached = "reached" if seq["precision_reached"] else "NOT reached (budget spent)"
            lines.append(f"  sequential: {metric} ±{args.precision} pt {reached}")
        if args.out_dir is not None:
            lines.append(f"  run directory: {args.out_dir} (rerun the same command to resume)")
    return "\n".join(lines)


def cmd_compare(args: argparse.Namespace) -> str:
    from analysis.compare import compare
    from analysis.experiment import check_seats

    experiment = build_experiment(args)
    focal = experiment.policies[0]
    baseline = _policy_from(experiment, args.baseline, args.baseline_param, "--baseline-param",
                            focal)
    a = _policy_from(experiment, args.a, args.a_param, "--a-param", focal)
    b = _policy_from(experiment, args.b, args.b_param, "--b-param", focal)
    seats = check_seats(parse_seats(args.seats), experiment.seats)
    if type(a) is type(b) and a.get_params() == b.get_params():
        raise UsageError("policies A and B are identical: change --a/--a-param or --b/--b-param")
    if args.out is not None:
        check_out_file(args.out)
    precision = args.precision
    if precision is not None and precision <= 0:
        raise UsageError(f"--precision must be positive, got {precision}")
    table = compare(experiment, a, b, baseline, seats, precision=precision,
                    **_run_options(args))
    if args.out is not None:
        write_table(table, args.out)
    paired = table.row(2, named=True)
    unpaired = table.row(3, named=True)
    verdict = ("A is better" if paired["low"] > 0 else "B is better" if paired["high"] < 0
               else "no significant difference")
    from analysis.experiment import policy_label

    return "\n".join([
        f"Score per {experiment.unit.singular} of seats {','.join(map(str, seats))} "
        f"(other seats: {policy_label(experiment.game, baseline)}), same "
        f"{experiment.unit.name} for A and B; score = {experiment.unit.score}:",
        show(table),
        f"paired interval width {paired['high'] - paired['low']:.4f} vs unpaired "
        f"{unpaired['high'] - unpaired['low']:.4f}; {verdict} (p = {paired['p_value']:.3g})",
    ])


def cmd_sweep(args: argparse.Namespace) -> str:
    from analysis.compare import sweep

    experiment = build_experiment(args)
    if not args.grid:
        raise UsageError("sweep needs at least one --grid NAME=V1,V2,…")
    params = field_types(type(experiment.policies[0]))
    options = field_types(experiment.game.config)
    grid: dict[str, list[Any]] = {}
    for text in args.grid:
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise UsageError(f"--grid expects NAME=V1,V2,…, got {text!r}")
        kind = params.get(name, options.get(name))
        if kind is None:
            raise UsageError(f"--grid {name!r} is neither a parameter of "
                             f"{type(experiment.policies[0]).__name__} nor a rule option "
                             f"(parameters: {', '.join(params)}; options: {', '.join(options)})")
        grid[name] = [parse_typed(v, kind, f"--grid {name}") for v in raw.split(",")
                      if v.strip()]
    if args.out is not None:
        check_out_file(args.out)
    seats = None if args.seats is None else parse_seats(args.seats)
    table = sweep(experiment, grid, seats=seats, correction=args.correction,
                  **_run_options(args))
    if args.out is not None:
        write_table(table, args.out)
    metrics = [m.name for m in experiment.unit.metrics]
    keep = [c for c in table.columns if c.startswith("param_")] + [
        "n", *metrics[:3], "score", "diff_vs_first", "diff_low", "diff_high", "p_adjusted"]
    return show(table.select([c for c in keep if c in table.columns]))


def _question_fields() -> dict[str, tuple[Any, str, bool]]:
    """Every odds-question field of every game -> (type, doc, required somewhere)."""
    found: dict[str, tuple[Any, str, bool]] = {}
    for game in games().values():
        if game.odds is None:
            continue
        kinds = field_types(game.odds.question)
        for f in dataclasses.fields(game.odds.question):
            required = (f.default is dataclasses.MISSING
                        and f.default_factory is dataclasses.MISSING)
            found.setdefault(f.name, (kinds[f.name], f.metadata.get("doc", ""), required))
    return found


def cmd_odds(args: argparse.Namespace) -> str:
    from analysis.odds import odds

    game = get_game(args.game)
    if game.odds is None:
        raise UsageError(f"odds is not available for {game.name}")
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
    extra = [name for name in _question_fields() if name not in kinds
             and getattr(args, f"question_{name}", None) is not None]
    if extra:
        raise UsageError(f"odds {game.name} does not take --{extra[0].replace('_', '-')}")
    question = game.odds.question(**values)
    heading = game.odds.describe(experiment.config, question)
    table = odds(experiment, question)
    return "\n".join([heading, show(table)])


def cmd_report(args: argparse.Namespace) -> str:
    from analysis.reporting import build_all, build_report

    if args.scale <= 0:
        raise UsageError(f"--scale must be positive, got {args.scale}")
    if args.out_dir.exists() and not args.out_dir.is_dir():
        raise UsageError(f"--out-dir {str(args.out_dir)!r} is a file")
    if not args.out_dir.parent.is_dir():
        raise UsageError(f"--out-dir parent does not exist: {str(args.out_dir.parent)!r}")
    if args.n_jobs == 0:
        raise UsageError("--n-jobs must not be 0 (use 1, 2, … or -1 for all cores)")
    if args.game == "all" and args.config is not None:
        raise UsageError("--config applies to one game's report, not to 'all'")

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    settings = {"scale": args.scale, "seed": args.seed, "n_jobs": args.n_jobs,
                "config": args.config, "progress": progress}
    if args.game == "all":
        paths = build_all(args.out_dir, **settings)
        return f"reports written: {paths['index']} links {len(paths) - 1} game report(s)"
    paths = build_report(args.game, args.out_dir, **settings)
    return f"report written: {paths['html']} (self-contained) and {paths['markdown']}"


# ------------------------------------------------------------------ parser


def _experiment_parent(default_size: int) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("game", choices=game_names())
    parent.add_argument("--config", type=Path, help="experiment TOML file (flags override it)")
    parent.add_argument("--players", type=int, help="number of players (rule option n_players)")
    size = parent.add_mutually_exclusive_group()
    for unit, owners in _unit_flags().items():
        size.add_argument(f"--{unit}", type=int, dest=f"unit_{unit}", metavar="N",
                          help=f"play N {unit} ({owners})")
    parent.add_argument("--seed", type=int, help="root seed (default 2026)")
    parent.add_argument("--policy", help="policy for every seat: a registered name "
                                         "(default heuristic) or module:Class")
    parent.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="policy parameter, repeatable (e.g. take_threshold=4.5)")
    parent.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="rule option, repeatable (e.g. n_players=4)")
    parent.set_defaults(default_size=default_size)
    return parent


def _run_parent() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    parent.add_argument("--chunk-size", type=int, help="units per chunk")
    parent.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar (default: when stderr is a terminal)")
    return parent


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``tapisvert``."""
    parser = argparse.ArgumentParser(
        prog="tapisvert", description="Monte Carlo strategy analysis for card games.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run_parent = _run_parent()

    sim = commands.add_parser("simulate", parents=[_experiment_parent(100_000), run_parent],
                              help="play deals or games; print rates with 95%% intervals")
    sim.add_argument("--out-dir", type=Path,
                     help="keep the run (Parquet parts + manifest); rerun to resume")
    sim.add_argument("--backend", default="loky", choices=("loky", "threading", "dask"))
    sim.add_argument("--scheduler", help="Dask scheduler address (with --backend dask)")
    sim.add_argument("--precision", type=float,
                     help="sequential mode: stop when --metric is within ± this many points")
    sim.add_argument("--metric", help="the metric --precision watches (default: the unit's "
                                      "first, e.g. take_rate)")
    sim.set_defaults(run=cmd_simulate)

    cmp = commands.add_parser("compare", parents=[_experiment_parent(100_000), run_parent],
                              help="is policy A better than B? paired on the same deals")
    cmp.add_argument("--a", help="policy A (default: --policy)")
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

    swp = commands.add_parser("sweep", parents=[_experiment_parent(50_000), run_parent],
                              help="grid over policy parameters or rule options")
    swp.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                     help="values of a policy parameter or rule option, repeatable")
    swp.add_argument("--seats", help="sweep these seats only, e.g. 0 (others: --policy)")
    swp.add_argument("--correction", default="holm", choices=("holm", "fdr_bh"))
    swp.add_argument("--out", type=Path, help="write the table (.csv or .parquet)")
    swp.set_defaults(run=cmd_sweep)

    odds = commands.add_parser("odds", parents=[_experiment_parent(20_000)],
                               help="odds of making a contract with a given hand")
    for name, (_kind, doc, _required) in _question_fields().items():
        odds.add_argument(f"--{name.replace('_', '-')}", dest=f"question_{name}", help=doc)
    odds.set_defaults(run=cmd_odds)

    rep = commands.add_parser("report", help="balance report (HTML + Markdown); 'all' builds "
                                             "every game's report and an index page")
    rep.add_argument("game", choices=(*game_names(), "all"))
    rep.add_argument("--out-dir", type=Path, default=Path("reports"))
    rep.add_argument("--config", type=Path,
                     help="TOML with [options] and [[policies]] the report starts from")
    rep.add_argument("--scale", type=float, default=1.0, help="multiply every sample size")
    rep.add_argument("--seed", type=int, default=2026)
    rep.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    rep.add_argument("--quiet", action="store_true", help="no progress lines")
    rep.set_defaults(run=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        text = args.run(args)
    except ValueError as exc:  # usage, config and policy validation, IllegalAction
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"tapisvert: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
