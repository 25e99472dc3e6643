"""``tapisvert report GAME|all``: the balance report (HTML + Markdown), or every game's and
an index page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.commands.common import UsageError, size_scale
from simulators.core.game import get_game, registered_names
from simulators.core.rng import DEFAULT_SEED


def run(args: argparse.Namespace) -> str:
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


def add_parser(commands, scope, run_parent) -> None:
    """The ``report`` subcommand's flags."""
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
    rep.set_defaults(run=run)
