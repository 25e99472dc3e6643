"""The worked example of docs/envs.md: OpenSpiel's own CFR+ on a reduced Truc deal.

OpenSpiel's C++ ``pyspiel.CFRPlusSolver`` runs on the Truc StepGame
registered as a Python game (``simulators.core.rl.openspiel``), reduced to
two ranks of four cards (Sept, Huit: 8 cards, 6 dealt, so hands stay hidden)
without the card call; the project's CFR+ (``simulators/core/cfr/cfrplus.py``) solves the
same deal as a :class:`~simulators.truc.solver.deal.DealSpec`
``(n_ranks=2, copies=4)``.
Both report player 0's (the non-dealer's) value, the exploitability (half
the NashConv, OpenSpiel's ``exploitability.nash_conv`` on one side, the
project's exact best responses on the other) and the interval
``[value - gain of player 1's best response, value + gain of player 0's]``,
which holds the game value whatever the strategy: the two intervals must
meet, and the values agree within the sum of the NashConvs. Run::

    flock /tmp/cpu.lock python -m simulators.truc.solver.openspiel_example --iterations 200
"""

from __future__ import annotations

import argparse
import json
import time

from simulators.truc.solver.deal import DealSpec


def reduced(n_ranks: int = 2, copies: int = 4) -> tuple[DealSpec, dict]:
    """The project's DealSpec and the StepGame options of the same reduced deal (TR-1's
    strongest ranks; no card call, which the solver's tree leaves out; player 0 the
    non-dealer at 0-0)."""
    spec = DealSpec(n_ranks=n_ranks, copies=copies)
    return spec, {"card_call": False, "n_ranks": n_ranks, "copies": copies, "dealer": 1}


def openspiel_side(iterations: int, options: dict) -> dict:
    """OpenSpiel's CFR+ on the registered reduced Truc: value, exploitability, interval."""
    import pyspiel
    from open_spiel.python.algorithms import exploitability

    from simulators.core.rl.openspiel import load
    from simulators.truc.game import GAME

    game = load(GAME, **options)
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    policy = solver.average_policy()
    value = float(pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)[0])
    conv = exploitability.nash_conv(game, policy, return_only_nash_conv=False)
    gain = [float(g) for g in conv.player_improvements]
    return {"solver": "pyspiel.CFRPlusSolver", "game": str(game), "iterations": iterations,
            "seconds": round(seconds, 2), "value": value,
            "exploitability": float(conv.nash_conv) / 2, "low": value - gain[1],
            "high": value + gain[0]}


def project_side(iterations: int, spec: DealSpec) -> dict:
    """The project's CFR+ on the same DealSpec: value, exploitability, interval."""
    from simulators.core.cfr.cfrplus import evaluate, solve
    from simulators.truc.solver.deal import build_deal_tree

    tree = build_deal_tree(spec).tree
    result = solve(tree, iterations=iterations, check_every=iterations)
    best = [evaluate(tree, result.strategy, p, best_response=True) for p in (0, 1)]
    return {"solver": "simulators.core.cfr.cfrplus", "spec": repr(spec),
            "iterations": result.iterations, "seconds": round(result.seconds, 2),
            "value": result.value, "exploitability": result.exploitability,
            "low": -best[1], "high": best[0]}


def compare(openspiel_iterations: int, project_iterations: int, n_ranks: int = 2,
            copies: int = 4) -> dict:
    """Both sides and whether they agree within their certificates."""
    spec, options = reduced(n_ranks, copies)
    theirs = openspiel_side(openspiel_iterations, options)
    ours = project_side(project_iterations, spec)
    bound = 2 * (theirs["exploitability"] + ours["exploitability"])  # the two NashConvs
    return {"openspiel": theirs, "project": ours,
            "difference": theirs["value"] - ours["value"], "bound": bound,
            "agree": abs(theirs["value"] - ours["value"]) <= bound
            and max(theirs["low"], ours["low"]) <= min(theirs["high"], ours["high"])}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200,
                        help="OpenSpiel CFR+ iterations (about 1 s each)")
    parser.add_argument("--project-iterations", type=int, default=2000)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--copies", type=int, default=4)
    args = parser.parse_args(argv)
    print(json.dumps(compare(args.iterations, args.project_iterations, args.ranks,
                             args.copies), indent=1))


if __name__ == "__main__":
    main()
