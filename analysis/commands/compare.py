"""``tapisvert compare GAME``: policy A against B on the same units (paired), or
``--duplicate``: A against B at one table, every seat rotation played."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from analysis.commands.common import (
    SCALE_VARIABLE,
    UsageError,
    check_out_file,
    check_precision,
    json_document,
    parse_seats,
    seats_phrase,
    show,
    size_scale,
    write_table,
)
from analysis.commands.study import (
    build_experiment,
    check_partners,
    experiment_parser,
    policy_from,
    policy_spec,
    run_options,
    study_dir_line,
)


def run(args: argparse.Namespace) -> str:
    from analysis.compare import comparison, verdict
    from analysis.experiment import check_seats, policy_label

    started = time.perf_counter()
    experiment = build_experiment(args)
    if len(experiment.policies) != 1 and args.baseline is None:
        raise UsageError("the config gives one policy per seat, but compare puts A (then B) at "
                         "--seats and one --baseline elsewhere: give --baseline, or one policy")
    focal = experiment.policies[0]
    baseline = policy_from(experiment, args.baseline, args.baseline_param, "--baseline-param",
                            focal)
    a = policy_from(experiment, args.a, args.a_param, "--a-param", focal)
    b = policy_from(experiment, args.b, args.b_param, "--b-param", focal)
    seats = check_seats(parse_seats(args.seats), experiment.seats)
    check_partners(experiment, seats)
    if type(a) is type(b) and a.get_params() == b.get_params():
        raise UsageError("policies A and B are identical: change --a/--a-param or --b/--b-param")
    if args.out is not None:
        check_out_file(args.out)
    precision = args.precision
    check_precision(precision)
    if args.duplicate:
        return _duplicate(args, experiment, a, b, baseline, seats, started)
    found = comparison(experiment.replace(policies=(focal,)), a, b, baseline, seats,
                       precision=precision, out_dir=args.out_dir, **run_options(args))
    table = found.table
    if args.out is not None:
        write_table(table, args.out)
    if args.json:
        return json_document(
            table, {**experiment.replace(policies=(baseline,)).to_dict(),
                    "a": policy_spec(experiment, a), "b": policy_spec(experiment, b),
                    "baseline": policy_spec(experiment, baseline), "seats": list(seats),
                    "precision": precision}, time.perf_counter() - started)
    paired, unpaired = found.difference, found.unpaired
    lines = [
        f"Score per {experiment.unit.singular} of {seats_phrase(seats)} "
        f"(other seats: {policy_label(experiment.game, baseline)}), same "
        f"{experiment.unit.name} for A and B.",
        f"score = {experiment.unit.score}",
        show(table.drop("target_reached")),
        f"paired interval width {paired.high - paired.low:.4f} vs unpaired "
        f"{unpaired.high - unpaired.low:.4f}; {verdict(found)} (p = {found.p_value:.3g})",
    ]
    if args.out_dir is not None:
        lines.append(study_dir_line(args.out_dir))
    if precision is not None:
        lines.append(f"sequential: target ±{precision} points "
                     + ("reached" if found.target_reached else "NOT reached: the budget was "
                        "spent first (raise the size)") + f" after {found.n} "
                     f"{experiment.unit.name}")
    if size_scale() != 1:
        lines.append(f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    return "\n".join(lines)


def _duplicate(args, experiment, a, b, baseline, seats, started) -> str:
    """``compare --duplicate``: A against B, every unit once per rotation of A's seats."""
    from analysis.compare import duplicate_comparison, rotations
    from analysis.experiment import policy_label

    if len(seats) == experiment.seats:
        raise UsageError(f"--seats: with --duplicate A takes the seats given and B every other "
                         f"one; give fewer than {experiment.seats}")
    found = duplicate_comparison(experiment.replace(policies=(baseline,)), a, b, baseline,
                                 seats, precision=args.precision, out_dir=args.out_dir,
                                 **run_options(args))
    table, reduction = found.table, found.variance_reduction
    if args.out is not None:
        write_table(table, args.out)
    turns = rotations(seats, experiment.seats)
    if args.json:
        return json_document(
            table, {**experiment.replace(policies=(baseline,)).to_dict(),
                    "a": policy_spec(experiment, a), "b": policy_spec(experiment, b),
                    "baseline": policy_spec(experiment, baseline), "seats": list(seats),
                    "duplicate": [list(t) for t in turns], "precision": args.precision},
            time.perf_counter() - started, variance_reduction=reduction)
    est = found.difference
    return "\n".join([
        f"Duplicate: A at {seats_phrase(seats)} against B at every other seat, each "
        f"{experiment.unit.singular} played {len(turns)} times (A's seats "
        + ", then ".join(",".join(map(str, t)) for t in turns)
        + ") with the same cards and random draws; A's mean seat score minus B's.",
        f"score = {experiment.unit.score}",
        show(table.drop("target_reached", strict=False)),
        f"A - B = {est.value:+.4f} [{est.low:+.4f}, {est.high:+.4f}] per "
        f"{experiment.unit.singular} (p = {found.p_value:.3g}, n = {est.n})"
        + ("" if args.precision is None else
           f"; sequential: an anytime-valid interval (confidence sequence), target "
           f"±{args.precision} " + ("reached" if found.target_reached else
                                    "NOT reached: the budget was spent first")),
        f"variance reduction per {experiment.unit.singular} played: "
        f"{reduction['independent']:.2f}x against independent {experiment.unit.name}, "
        f"{reduction['fixed_seat']:.2f}x against the fixed-seat pairing (A, then B, at "
        f"{seats_phrase(seats)} beside {policy_label(experiment.game, baseline)})",
        *([f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}"] if size_scale() != 1 else []),
    ])


def add_parser(commands, scope, run_parent) -> None:
    """The ``compare`` subcommand's flags."""
    cmp = commands.add_parser("compare", parents=[experiment_parser(100_000, scope), run_parent],
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
    cmp.set_defaults(run=run)
