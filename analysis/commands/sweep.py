"""``tapisvert sweep GAME``: every combination of ``--grid`` values on the same units."""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path
from typing import Any

from analysis.commands.common import (
    SCALE_VARIABLE,
    UsageError,
    check_out_file,
    field_types,
    json_document,
    parse_seats,
    parse_typed,
    seats_phrase,
    show,
    size_scale,
    write_table,
)
from analysis.commands.study import (
    build_experiment,
    check_partners,
    experiment_parser,
    run_options,
    study_dir_line,
)


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


def run(args: argparse.Namespace) -> str:
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
        check_partners(experiment.replace(options=point), seats, f" (at {at})" if at else "")
    if args.out is not None:
        check_out_file(args.out)
    executor = run_options(args)
    table = sweep(experiment, grid, seats=seats, correction=args.correction,
                  out_dir=args.out_dir, **executor)
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
    lines = [f"score = mean per {experiment.unit.singular} of {seats_phrase(seats)}, who "
             f"play the swept {swept} (other seats: "
             f"{policy_label(experiment.game, experiment.policies[0])}); one score is "
             f"{experiment.unit.score}",
             show(table.select([c for c in keep if c in table.columns])),
             f"diff_vs_first: paired difference with the first row; p_adjusted: "
             f"{args.correction}"]
    if args.out_dir is not None:
        lines.append(study_dir_line(args.out_dir))
    if size_scale() != 1:
        lines.append(f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    return "\n".join(lines)


def add_parser(commands, scope, run_parent) -> None:
    """The ``sweep`` subcommand's flags."""
    swp = commands.add_parser("sweep", parents=[experiment_parser(50_000, scope), run_parent],
                              help="grid over policy parameters or rule options")
    swp.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                     help="values of a policy parameter or rule option, repeatable")
    swp.add_argument("--seats", default="0",
                     help="seats that play the swept policy and whose score is summed "
                          "(default 0: one player's gain; the others play --policy)")
    swp.add_argument("--correction", default="holm", choices=("holm", "fdr_bh"))
    swp.add_argument("--out", type=Path, help="write the table (.csv or .parquet)")
    swp.set_defaults(run=run)
