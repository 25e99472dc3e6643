"""``tapisvert simulate GAME``: play units, print the game's rates with 95% intervals
(``--precision``: until one is narrow enough)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import polars as pl

from analysis.commands.common import (
    SCALE_VARIABLE,
    UsageError,
    check_precision,
    json_document,
    size_scale,
)
from analysis.commands.study import build_experiment, experiment_parser, run_options


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


def run(args: argparse.Namespace) -> str:
    from analysis import summaries
    from analysis.runner import run as run_experiment
    from analysis.runner import run_until, sessions_text

    started = time.perf_counter()
    experiment = build_experiment(args)
    unit = experiment.unit
    options = run_options(args)
    check_precision(args.precision)
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
            result = run_experiment(experiment, out_dir, **options)
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


def add_parser(commands, scope, run_parent) -> None:
    """The ``simulate`` subcommand's flags."""
    sim = commands.add_parser("simulate", parents=[experiment_parser(100_000, scope), run_parent],
                              help="play deals or games; print rates with 95%% intervals")
    sim.add_argument("--precision", type=float,
                     help="sequential mode: stop when --metric is within ± this many points")
    sim.add_argument("--metric", help="the metric --precision watches (default: the unit's "
                                      "first, e.g. take_rate)")
    sim.set_defaults(run=run)
