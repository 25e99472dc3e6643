"""``tapisvert solve truc``: one state's solved deal, or the equity table (JSON or text).

    tapisvert solve truc --scores 0,0 --json                  # points, card call on
    tapisvert solve truc --scores 10,3 --payoff manche --json # chance of the manche
    tapisvert solve truc --scores 0,0 --no-card-call --json   # the deal alone
    tapisvert solve truc --equity --json                      # the shipped table
    tapisvert solve truc --equity --recompute --n-jobs 2      # recompute it (about an hour)

``--scores A,B`` are the non-dealer's and the dealer's scores before the
deal. A solved state is kept in the user cache and loads in seconds.
"""

from __future__ import annotations

import argparse

from simulators.truc.solver.manche import MAX_ITERATIONS, PAYOFFS, TARGET, TARGET_FLOOR
from simulators.truc.solver.solutions import DEFAULT_TARGET


def _scores(text: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.replace("-", ",").split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--scores must look like 10,3 (non-dealer, dealer), got {text!r}") from None
    if not (0 <= a < TARGET and 0 <= b < TARGET):
        raise argparse.ArgumentTypeError(f"--scores must be in 0..{TARGET - 1}, got {text!r}")
    return a, b


def add_arguments(parser) -> None:
    # flags default to None so that check() can tell a flag given from one left out
    parser.add_argument("--scores", type=_scores, metavar="A,B",
                        help="the non-dealer's and the dealer's scores before the deal "
                             "(default 0,0)")
    parser.add_argument("--payoff", choices=PAYOFFS,
                        help="points per deal (default), or the chance of winning the manche "
                             "(with the shipped equity table as the worth of the scores "
                             "reached)")
    parser.add_argument("--no-card-call", dest="card_call", action="store_false",
                        help="solve the deal without the card call (TR-2)")
    parser.add_argument("--equity", action="store_true",
                        help="the equity table: the chance of winning the manche from every "
                             "score and dealer")
    parser.add_argument("--recompute", action="store_true",
                        help="solve again instead of loading (with --equity: every state, "
                             "about an hour on two cores)")
    parser.add_argument("--target", type=float,
                        help="exploitability to reach (points per deal, or chance of the "
                             f"manche; default {DEFAULT_TARGET}, at least {TARGET_FLOOR})")
    parser.add_argument("--n-jobs", type=int,
                        help="worker processes for --equity --recompute (default 1)")


def _check_equity_flags(args) -> None:
    """The flags of one state are refused with --equity (the table of every state), and
    --target and --n-jobs without --recompute (the shipped table is read, not solved)."""
    if not args.card_call:
        raise ValueError("--equity is solved with the card call; drop --no-card-call")
    if args.scores is not None:
        raise ValueError("--scores picks one state; --equity is the table of every state: "
                         "drop --scores, or drop --equity to solve that state")
    if args.payoff == "points":
        raise ValueError("--payoff points does not apply to --equity: the table is the chance "
                         "of winning the manche")
    if not args.recompute:
        given = [flag for flag, value in (("--target", args.target), ("--n-jobs", args.n_jobs))
                 if value is not None]
        if given:
            raise ValueError(f"{given[0]} applies to solving: --equity without --recompute "
                             "reads the shipped table; add --recompute (about an hour on two "
                             "cores) or drop it")


def check(args) -> None:
    target = target_of(args)
    if not TARGET_FLOOR <= target < 1:
        raise ValueError(f"--target must be in [{TARGET_FLOOR}, 1), got {target:g}: the solver "
                         f"stops at its cap of {MAX_ITERATIONS} CFR+ iterations before a "
                         "smaller exploitability (it falls as about 1/iterations)")
    if args.n_jobs is not None and (args.n_jobs == 0 or args.n_jobs < -1):
        raise ValueError(f"--n-jobs must be -1 or at least 1, got {args.n_jobs}")
    if args.equity:
        _check_equity_flags(args)
        return
    if args.n_jobs is not None:
        raise ValueError("--n-jobs sets the worker processes of --equity --recompute; one "
                         "state is solved in one process: drop --n-jobs")
    if args.payoff == "manche" and not args.card_call:
        raise ValueError("--payoff manche needs the card call: the equity table is solved "
                         "with it")


def target_of(args) -> float:
    """--target, or the default."""
    return DEFAULT_TARGET if args.target is None else args.target


def run(args, log) -> dict:
    if args.equity:
        return _equity(args, log)
    from simulators.truc.solver import solutions

    scores = (0, 0) if args.scores is None else tuple(args.scores)
    payoff = args.payoff or "points"
    target = target_of(args)
    if args.recompute:
        _forget(solutions.state_dir(scores, payoff, args.card_call, target))
    loaded = solutions.load_state(scores, payoff, args.card_call, target)
    state = loaded or solutions.solved_state(scores, payoff, args.card_call, target, log=log)
    return {**state.report(), "scores_are": "non-dealer, dealer",
            "value_is": ("the non-dealer's points minus the dealer's, per deal"
                         if payoff == "points" else
                         "the non-dealer's chance of winning the manche"),
            "cached": loaded is not None}


def _forget(path) -> None:
    import shutil

    if path.exists():
        shutil.rmtree(path)


def _equity(args, log) -> dict:
    from simulators.truc.solver import manche

    if args.recompute:
        doc = manche.compute_equity(True, target_of(args), args.n_jobs or 1, log=log)
    else:
        doc = manche.shipped_equity(True)
    doc = dict(doc)
    for key in ("win_probability", "exploitability"):
        doc[key] = [[float(x) for x in row] for row in doc[key]]
    return doc


def text(doc: dict) -> str:
    if "states" in doc:
        rows = ["Chance that the non-dealer wins the manche (rows: his score; columns: the "
                "dealer's):", "     " + "".join(f"{b:>6}" for b in range(TARGET))]
        for a, row in enumerate(doc["win_probability"]):
            rows.append(f"{a:>4} " + "".join(f"{x:6.3f}" for x in row))
        rows.append(f"largest exploitability {doc['largest_exploitability']:.5f} (chance of "
                    f"the manche); solved in {doc['seconds']:.0f} s with {doc['n_jobs']} "
                    "jobs")
        if not doc.get("target_reached", True):
            rows.append(f"TARGET NOT REACHED: some states stopped at the cap of "
                        f"{MAX_ITERATIONS} iterations above the target {doc['target']:g} "
                        "(those states are not cached)")
        return "\n".join(rows)
    a, b = doc["scores"]
    call = "with" if doc["card_call"] else "without"
    text = (f"Truc at {a}-{b} (non-dealer-dealer), {call} the card call, payoff "
            f"{doc['payoff']}:\n  value {doc['value']:+.4f} ({doc['value_is']})\n"
            f"  exploitability {doc['exploitability']:.4f} after {doc['iterations']} CFR+ "
            f"iterations ({doc['seconds']:.0f} s of solving)")
    if not doc["target_reached"]:
        text += (f"\n  TARGET NOT REACHED: stopped at the cap of {doc['iterations']} "
                 f"iterations above the target {doc['target']:g}; not cached as solved")
    return text
