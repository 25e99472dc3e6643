"""The ``tapisvert`` command line: simulate, compare, sweep, odds, report.

Every command validates its whole input before doing any work; on bad input
it prints one line ``tapisvert: error: …`` to stderr and exits with status 2,
writing nothing. Output files appear by atomic rename only when complete.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from analysis.games import GAME_NAMES

EXIT_USAGE = 2


class UsageError(ValueError):
    """Bad command-line input (exit status 2)."""


def parse_value(raw: str) -> Any:
    """A command-line value read as bool, int, float or string."""
    low = raw.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw.strip()


def parse_assignment(text: str, flag: str) -> tuple[str, Any]:
    """``name=value`` from a repeatable flag."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{flag} expects name=value, got {text!r}")
    return name.strip(), parse_value(raw)


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


def build_experiment(args: argparse.Namespace):
    """The experiment described by --config and the flags (flags win)."""
    from analysis.experiment import Experiment, PolicySpec

    data: dict[str, Any] = {}
    if args.config is not None:
        data = Experiment.from_toml(args.config).to_dict()
        if data["game"] != args.game:
            raise UsageError(f"--config is for {data['game']!r}, not {args.game!r}")
    data["game"] = args.game
    options = dict(data.get("options", {}))
    if args.players is not None:
        options["n_players"] = args.players
    options.update(parse_assignment(o, "--option") for o in args.option)
    data["options"] = options
    if getattr(args, "rounds", None) is not None:
        data.update(unit="rounds", size=args.rounds)
    elif getattr(args, "solitaire", None) is not None:
        data.update(unit="solitaire", size=args.solitaire)
        data.setdefault("policies", [{"name": "solitaire"}])
    elif args.games is not None:
        data.update(unit="games", size=args.games)
    elif args.deals is not None:
        data.update(unit="deals", size=args.deals)
    elif "size" not in data:
        from analysis.games import game as game_adapter

        data.update(unit=game_adapter(args.game).units[0], size=args.default_size)
    if args.seed is not None:
        data["seed"] = args.seed
    if args.policy is not None or args.param:
        current = data.get("policies", [{"name": "heuristic"}])
        if len(current) != 1 and args.policy is None:
            raise UsageError("--param needs --policy when the config gives one policy per seat")
        name = args.policy or current[0]["name"]
        params = dict(current[0].get("params", {})) if args.policy is None else {}
        params.update(parse_assignment(p, "--param") for p in args.param)
        data["policies"] = [PolicySpec(name, params).to_dict()]
    return Experiment.from_dict(data)


def _policy_from(name: str | None, params: list[str], flag: str, fallback):
    from analysis.experiment import PolicySpec

    if name is None and not params:
        return fallback
    base = fallback if name is None else PolicySpec(name)
    merged = dict(base.params)
    merged.update(parse_assignment(p, flag) for p in params)
    return PolicySpec(base.name, merged)


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.n_jobs == 0:
        raise UsageError("--n-jobs must not be 0 (use 1, 2, … or -1 for all cores)")
    return {"n_jobs": args.n_jobs, "chunk_size": args.chunk_size, "progress": args.progress}


def _rates_text(rates: pl.DataFrame) -> list[str]:
    lines = []
    for r in rates.iter_rows(named=True):
        if r.get("kind", "rate") == "rate":
            lines.append(f"  {r['label']:<24} {100 * r['value']:6.1f}%   95% CI "
                         f"[{100 * r['low']:.1f}, {100 * r['high']:.1f}]   n={r['n']}")
        else:
            lines.append(f"  {r['label']:<24} {r['value']:7.2f}   95% CI "
                         f"[{r['low']:.2f}, {r['high']:.2f}]   n={r['n']}")
    return lines


def cmd_simulate(args: argparse.Namespace) -> str:
    from analysis.games import game
    from analysis.runner import run, run_until

    experiment = build_experiment(args)
    options = _run_options(args)
    if args.precision is not None and args.precision <= 0:
        raise UsageError(f"--precision must be positive, got {args.precision}")
    if args.out_dir is not None and args.out_dir.exists() and not (
            (args.out_dir / "manifest.json").exists() or
            (args.out_dir.is_dir() and not any(args.out_dir.iterdir()))):
        raise UsageError(f"--out-dir {str(args.out_dir)!r} exists and is not a tapisvert run")
    adapter = game(experiment.game)
    with tempfile.TemporaryDirectory(prefix="tapisvert-") as scratch:
        out_dir = args.out_dir if args.out_dir is not None else Path(scratch) / "run"
        backend = {"backend": args.backend, "scheduler": args.scheduler}
        if args.precision is None:
            result = run(experiment, out_dir, **options, **backend)
        else:
            from analysis.summaries import bianco_mano_rate

            if experiment.game != "bianco-mano":
                raise UsageError("--precision is available for bianco-mano for now")

            def estimate(res):
                return bianco_mano_rate(res.scan("deals"), args.metric)

            result = run_until(experiment, out_dir, estimate, args.precision / 100, **options,
                               **backend)
        summary = adapter.summary_table[experiment.unit]
        rates = adapter.rates(result.scan(summary))
        session = result.manifest["sessions"][-1]
        policies = ", ".join(p.label() for p in experiment.policies)
        size = f"{result.manifest['units_done']} {experiment.unit}"
        if summary != experiment.unit:
            rows = result.scan(summary).select(pl.len()).collect().item()
            size += f" ({rows} {summary})"
        lines = [f"{experiment.game}, {dict(experiment.options) or 'default rules'}, "
                 f"{policies}, seed {experiment.seed}: {size} in {session['wall_seconds']:.1f} s"]
        lines += _rates_text(rates)
        if args.precision is not None:
            seq = result.manifest["sequential"]
            reached = "reached" if seq["precision_reached"] else "NOT reached (budget spent)"
            lines.append(f"  sequential: {args.metric} ±{args.precision} pt {reached}")
        if args.out_dir is not None:
            lines.append(f"  run directory: {args.out_dir} (rerun the same command to resume)")
    return "\n".join(lines)


def cmd_compare(args: argparse.Namespace) -> str:
    from analysis.compare import compare

    experiment = build_experiment(args)
    baseline = _policy_from(args.baseline, args.baseline_param, "--baseline-param",
                            experiment.policies[0])
    a = _policy_from(args.a, args.a_param, "--a-param", experiment.policies[0])
    b = _policy_from(args.b, args.b_param, "--b-param", experiment.policies[0])
    seats = parse_seats(args.seats)
    if a == b:
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
    unit = experiment.unit[:-1] if experiment.unit != "solitaire" else "solitaire game"
    paired = table.row(2, named=True)
    unpaired = table.row(3, named=True)
    verdict = ("A is better" if paired["low"] > 0 else "B is better" if paired["high"] < 0
               else "no significant difference")
    return "\n".join([
        f"Score per {unit} of seats {','.join(map(str, seats))} "
        f"(other seats: {baseline.label()}), same {experiment.unit} for A and B:",
        show(table),
        f"paired interval width {paired['high'] - paired['low']:.4f} vs unpaired "
        f"{unpaired['high'] - unpaired['low']:.4f}; {verdict} (p = {paired['p_value']:.3g})",
    ])


def cmd_sweep(args: argparse.Namespace) -> str:
    from analysis.compare import sweep

    experiment = build_experiment(args)
    if not args.grid:
        raise UsageError("sweep needs at least one --grid NAME=V1,V2,…")
    grid: dict[str, list[Any]] = {}
    for text in args.grid:
        name, sep, raw = text.partition("=")
        values = [parse_value(v) for v in raw.split(",") if v.strip()]
        if not sep or not name.strip() or not values:
            raise UsageError(f"--grid expects NAME=V1,V2,…, got {text!r}")
        grid[name.strip()] = values
    if args.out is not None:
        check_out_file(args.out)
    seats = None if args.seats is None else parse_seats(args.seats)
    table = sweep(experiment, grid, seats=seats, correction=args.correction,
                  **_run_options(args))
    if args.out is not None:
        write_table(table, args.out)
    keep = [c for c in table.columns if c.startswith("param_")] + [
        "n", "take_rate", "contract_success", "score", "diff_vs_first", "diff_low", "diff_high",
        "p_adjusted"]
    return show(table.select([c for c in keep if c in table.columns]))


def cmd_odds(args: argparse.Namespace) -> str:
    from analysis.odds import bianco_mano_odds
    from simulators.bianco_mano import rules as R
    from simulators.bianco_mano.dealing import Situation

    if args.game != "bianco-mano":
        raise UsageError(f"odds is available for bianco-mano, not {args.game}")
    experiment = build_experiment(args)
    config = experiment.config()
    situation = Situation(config.n_players, args.position, args.hand, args.turned)
    family = None if args.family is None else R.parse_family(args.family)
    table = bianco_mano_odds(config, experiment.build_policies(), situation,
                             n_deals=experiment.size, seed=experiment.seed, family=family)
    named = R.FAMILY_NAMES[R.family_of(situation.turned) if family is None else family]
    return "\n".join([
        f"{config.n_players} players, position {args.position} from the dealer's left, hand "
        f"{R.format_cards(situation.hand)}, turned {R.format_card(situation.turned)}; "
        f"taking names {named}:",
        show(table),
    ])


def cmd_report(args: argparse.Namespace) -> str:
    if args.game == "bianco-mano":
        from analysis.report import build_bianco_mano_report as build
    else:
        from analysis.five_crowns_report import build_five_crowns_report as build

    if args.scale <= 0:
        raise UsageError(f"--scale must be positive, got {args.scale}")
    if args.out_dir.exists() and not args.out_dir.is_dir():
        raise UsageError(f"--out-dir {str(args.out_dir)!r} is a file")
    if not args.out_dir.parent.is_dir():
        raise UsageError(f"--out-dir parent does not exist: {str(args.out_dir.parent)!r}")

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    paths = build(args.out_dir, scale=args.scale, seed=args.seed, progress=progress)
    return f"report written: {paths['html']} (self-contained) and {paths['markdown']}"


# ------------------------------------------------------------------ parser


def _experiment_parent(default_size: int) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("game", choices=GAME_NAMES)
    parent.add_argument("--config", type=Path, help="experiment TOML file (flags override it)")
    parent.add_argument("--players", type=int, help="number of players (default 4)")
    size = parent.add_mutually_exclusive_group()
    size.add_argument("--deals", type=int, help=f"independent deals (default {default_size})")
    size.add_argument("--games", type=int, help="whole games instead of deals")
    size.add_argument("--rounds", type=int, help="independent rounds (five-crowns)")
    size.add_argument("--solitaire", type=int, help="solitaire games (five-crowns, FC-8)")
    parent.add_argument("--seed", type=int, help="root seed (default 2026)")
    parent.add_argument("--policy", help="policy for every seat: heuristic (default) or random")
    parent.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="policy parameter, repeatable (e.g. take_threshold=4.5)")
    parent.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="rule option, repeatable (e.g. bianco_mano=true)")
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
    sim.add_argument("--metric", default="contract_success",
                     choices=("take_rate", "contract_success", "capo_rate"))
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
    odds.add_argument("--hand", required=True, help='first-distribution cards, e.g. "1R 3R 5B"')
    odds.add_argument("--turned", required=True, help="the turned card, e.g. 4R")
    odds.add_argument("--position", type=int, default=0,
                      help="bidding position from the dealer's left (0) to the dealer")
    odds.add_argument("--family", help="take in round 2 naming this family (R, B, J, V)")
    odds.set_defaults(run=cmd_odds)

    rep = commands.add_parser("report", help="rule-balance report (HTML + Markdown)")
    rep.add_argument("game", choices=GAME_NAMES)
    rep.add_argument("--out-dir", type=Path, default=Path("reports"))
    rep.add_argument("--scale", type=float, default=1.0, help="multiply every sample size")
    rep.add_argument("--seed", type=int, default=2026)
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
