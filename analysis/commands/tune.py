"""``tapisvert tune GAME``: successive halving over ``--space``, the winner confirmed on
fresh units."""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import polars as pl

from analysis.commands.common import (
    SCALE_VARIABLE,
    UsageError,
    check_at_most,
    check_precision,
    json_document,
    parse_seats,
    seats_phrase,
    show,
    size_scale,
)
from analysis.commands.study import (
    build_experiment,
    check_partners,
    experiment_parser,
    policy_from,
    policy_spec,
    run_options,
)
from simulators.core.files import write_atomically


def _tune_budget(args: argparse.Namespace) -> int:
    """``--budget`` (scaled like every size), ``--candidates`` and ``--confirm`` checked."""
    from analysis.tune import min_budget

    if args.budget < 1:
        raise UsageError(f"--budget must be a positive number of units, got {args.budget}")
    check_at_most("--budget", args.budget)
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
        check_at_most("--confirm", args.confirm)
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


def run(args: argparse.Namespace) -> str:
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
    against = policy_from(experiment, args.against, args.against_param, "--against-param",
                           current)
    seats = check_seats(parse_seats(args.seats), experiment.seats)
    check_partners(experiment, seats)
    if args.out is not None:
        _check_toml_out(args.out)
    check_precision(args.precision)
    result = tune(experiment, space, baseline=against, seats=seats, budget=budget,
                  n_candidates=args.candidates, confirm_units=args.confirm,
                  precision=args.precision,
                  out_dir=args.out_dir, **run_options(args))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(args.out, config_toml(experiment, result.best))
    rounds = pl.DataFrame([{k: (", ".join(map(str, v)) if k == "kept" else v)
                            for k, v in r.items()} for r in result.rounds])
    if args.json:
        return json_document(
            rounds, {**experiment.to_dict(), "space": [vars(d) for d in space],
                     "against": policy_spec(experiment, against), "seats": list(seats),
                     "budget": budget},
            time.perf_counter() - started, best=result.best,
            candidates=result.candidates, spent=result.spent,
            confirmation=dataclasses.asdict(result.confirmation))
    c = result.confirmation
    tuned = {d.name: result.best[d.name] for d in space}
    unit = experiment.unit
    lines = [
        f"tune {experiment.game.name}: {args.candidates} settings of "
        f"{policy_label(experiment.game, current)} raced by successive halving on the same "
        f"{unit.name} at {seats_phrase(seats)} (other seats: "
        f"{policy_label(experiment.game, against)}); {result.spent:,} {unit.name} played.",
        show(rounds),
        "best: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                             for k, v in tuned.items()),
        f"confirmed on {c.n:,} fresh {unit.name} (seed {c.seed}): best - current = "
        f"{c.mean:+.4f} [{c.low:+.4f}, {c.high:+.4f}] per {unit.singular} "
        f"(p = {c.p_value:.3g})"
        + ("" if args.precision is None else
           f"; sequential: an anytime-valid interval, target ±{args.precision} "
           + ("reached" if c.target_reached else "NOT reached within --confirm")),
    ]
    if size_scale() != 1:
        lines.append(f"sizes scaled by {SCALE_VARIABLE}={size_scale():g}")
    if args.out is not None:
        lines.append(f"written: {args.out} (tapisvert simulate {experiment.game.name} "
                     f"--config {args.out})")
    return "\n".join(lines)


def add_parser(commands, scope, run_parent) -> None:
    """The ``tune`` subcommand's flags."""
    tun = commands.add_parser("tune", parents=[experiment_parser(0, scope), run_parent],
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
    tun.set_defaults(run=run)
