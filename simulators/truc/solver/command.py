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

from simulators.truc.solver.manche import PAYOFFS, TARGET


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
    parser.add_argument("--scores", type=_scores, default=(0, 0), metavar="A,B",
                        help="the non-dealer's and the dealer's scores before the deal "
                             "(default 0,0)")
    parser.add_argument("--payoff", choices=PAYOFFS, default="points",
                        help="points per deal, or the chance of winning the manche (with the "
                             "shipped equity table as the worth of the scores reached)")
    parser.add_argument("--no-card-call", dest="card_call", action="store_false",
                        help="solve the deal without the card call (TR-2)")
    parser.add_argument("--equity", action="store_true",
                        help="the equity table: the chance of winning the manche from every "
                             "score and dealer")
    parser.add_argument("--recompute", action="store_true",
                        help="solve again instead of loading (with --equity: every state, "
                             "about an hour on two cores)")
    parser.add_argument("--target", type=float, default=0.005,
                        help="exploitability to reach (points per deal, or chance of the "
                             "manche; default 0.005)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="worker processes for --equity --recompute")


def check(args) -> None:
    if not 0 < args.target < 1:
        raise ValueError(f"--target must be in (0, 1), got {args.target}")
    if args.payoff == "manche" and not args.card_call:
        raise ValueError("--payoff manche needs the card call: the equity table is solved "
                         "with it")
    if args.equity and not args.card_call:
        raise ValueError("--equity is solved with the card call; drop --no-card-call")
    if args.n_jobs == 0 or args.n_jobs < -1:
        raise ValueError(f"--n-jobs must be -1 or at least 1, got {args.n_jobs}")


def run(args, log) -> dict:
    if args.equity:
        return _equity(args, log)
    from simulators.truc.solver import solutions

    scores = tuple(args.scores)
    if args.recompute:
        _forget(solutions.state_dir(scores, args.payoff, args.card_call, args.target))
    loaded = solutions.load_state(scores, args.payoff, args.card_call, args.target)
    state = loaded or solutions.solved_state(scores, args.payoff, args.card_call, args.target,
                                             log=log)
    return {**state.report(), "scores_are": "non-dealer, dealer",
            "value_is": ("the non-dealer's points minus the dealer's, per deal"
                         if args.payoff == "points" else
                         "the non-dealer's chance of winning the manche"),
            "cached": loaded is not None}


def _forget(path) -> None:
    import shutil

    if path.exists():
        shutil.rmtree(path)


def _equity(args, log) -> dict:
    from simulators.truc.solver import manche

    if args.recompute:
        doc = manche.compute_equity(True, args.target, args.n_jobs, log=log)
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
        return "\n".join(rows)
    a, b = doc["scores"]
    call = "with" if doc["card_call"] else "without"
    return (f"Truc at {a}-{b} (non-dealer-dealer), {call} the card call, payoff "
            f"{doc['payoff']}:\n  value {doc['value']:+.4f} ({doc['value_is']})\n"
            f"  exploitability {doc['exploitability']:.4f} after {doc['iterations']} CFR+ "
            f"iterations ({doc['seconds']:.0f} s of solving)")
