"""Solve Truc deals without the card call; print their values and the policies' exploitability.

The game as played — the card call inside, the manche over the scores — is
``tapisvert solve truc`` (``simulators/truc/solver/command.py``).

Run::

    python -m simulators.truc.solver                      # 0-0 and the banco scores
    python -m simulators.truc.solver --scores 0-0 10-3 --policies heuristic random

Solved deals are cached (``solutions.py``); the tables are Markdown.
"""

from __future__ import annotations

import argparse
import sys
import time

from simulators.truc.solver.command import _scores  # one parser of "A,B" / "A-B"

BANCO_SCORES = ("0-0", "6-6", "9-9", "10-10", "11-11", "10-3", "3-10", "9-6", "6-9", "11-0",
                "0-11")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=_scores, nargs="+",
                        default=[_scores(s) for s in BANCO_SCORES])
    parser.add_argument("--policies", nargs="*",
                        default=["heuristic", "heuristic:bluff_probability=0", "random",
                                 "ordered", "equilibrium"],
                        help="registered policies whose exploitability to measure at the "
                             "first scores, as name or name:param=value,param=value")
    parser.add_argument("--target", type=float, default=0.005)
    parser.add_argument("--noise-levels", type=int, default=20)
    args = parser.parse_args(argv)
    from simulators.truc.game import policy_from_text

    policies = []
    for text in args.policies:
        try:
            policies.append((text, policy_from_text(text)))
        except (TypeError, ValueError) as exc:
            parser.error(str(exc))
    if not 0 < args.target < 1:
        parser.error(f"--target must be in (0, 1), got {args.target}")

    from simulators.truc.solver.deal import DealSpec
    from simulators.truc.solver.policy_eval import policy_exploitability
    from simulators.truc.solver.solutions import solved_deal

    print("| scores (non-dealer-dealer) | value for the non-dealer | exploitability "
          "| CFR+ iterations | solver s | info sets |")
    print("|---|---|---|---|---|---|")
    first = None
    for scores in args.scores:
        start = time.perf_counter()
        solved = solved_deal(DealSpec(scores=scores), target=args.target)
        first = first or solved
        print(f"| {scores[0]}-{scores[1]} | {solved.value:+.4f} | {solved.exploitability:.4f} "
              f"| {solved.iterations} | {solved.seconds:.0f} "
              f"| {solved.deal.tree.n_infosets():,} |", flush=True)
        del start
    if policies:
        s = first.deal.spec.scores
        print(f"\nExploitability at {s[0]}-{s[1]} (points per deal; equilibrium value "
              f"{first.value:+.4f} for the non-dealer)\n")
        print("| policy | self-play value | loss as non-dealer | loss as dealer "
              "| exploitability |")
        print("|---|---|---|---|---|")
        for name, policy in policies:
            e = policy_exploitability(first, policy, args.noise_levels)
            print(f"| {name} | {e.self_play_value:+.4f} | {e.loss_non_dealer:.4f} "
                  f"| {e.loss_dealer:.4f} | {e.exploitability:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
