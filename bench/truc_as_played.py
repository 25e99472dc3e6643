"""The shipped Truc solution's exploitability as played: the first redeal from the real stock.

    python bench/truc_as_played.py                 # 0-0 (manche and points) and the 3 states
                                                   # where both players ask most: minutes
    python bench/truc_as_played.py --states 11-11 --out /tmp/as_played.json

The solved game deals every hand of the card call from a full deck; at the table the first
redeal comes from the 26 cards the two asked-for hands left, each player knowing his own
(``simulators/truc/solver/as_played.py``). For each state this measures the exact best
responses to what ships in both games and writes them beside the package's solution
(``solver/data/solution_as_played.json``, atomically), where ``tapisvert solve truc
--shipped`` shows them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def redeal_chance(call: np.ndarray) -> float:
    """P(both players ask) in the first hand of a state."""
    from simulators.truc.solver.deal import DealSpec, deal_weights

    w = deal_weights(DealSpec())
    return float((w * call[0][:, None] * call[1][None, :]).sum())


def measure(scores, payoff: str) -> dict:
    from simulators.truc.solver import manche, packed
    from simulators.truc.solver.as_played import as_played_values

    began = time.perf_counter()
    solver = manche.StateSolver(tuple(scores))
    if payoff == "manche":
        equity = manche.shipped_equity()["win_probability"]
        solver.set_scoring(manche.manche_scoring(tuple(scores), equity,
                                                 1.0 - equity[scores[1], scores[0]]))
    state = packed.shipped_state(scores, payoff)
    strategy = packed.expand(solver.round, packed.shipped_packed(scores, payoff))
    got = as_played_values(solver.round, strategy, solver.null)
    return {"scores": list(scores), "payoff": payoff, "exploitability": got.exploitability,
            "best": list(got.best), "stationary_exploitability": got.stationary_exploitability,
            "stationary_best": list(got.stationary_best), "redeal_chance": got.redeal_chance,
            "shipped_exploitability": state.meta["exploitability"],
            "seconds": time.perf_counter() - began}


def main(argv=None) -> int:
    from simulators.core.files import write_atomically
    from simulators.truc.solver import packed

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", default=None,
                        help="comma-separated A-B manche states (default: 0-0 and the three "
                             "states with the most double asks, and the points state at 0-0)")
    parser.add_argument("--out", type=Path, default=packed.AS_PLAYED)
    args = parser.parse_args(argv)
    index = packed.shipped_index()
    if index is None:
        parser.error(f"no shipped solution {packed.SHIPPED}: run bench/truc_pack.py first")
    if args.states:
        todo = [((int(a), int(b)), "manche") for a, b in
                (s.split("-") for s in args.states.split(","))]
    else:
        chances = sorted(((redeal_chance(packed.shipped_state((a, b)).call), (a, b))
                          for a in range(12) for b in range(12)), reverse=True)
        todo = [((0, 0), "manche")] + [(s, "manche") for _, s in chances[:3] if s != (0, 0)]
        if "points-0-0" in index["states"]:
            todo.append(((0, 0), "points"))
    figures = []
    for scores, payoff in todo:
        fig = measure(scores, payoff)
        figures.append(fig)
        print(f"{scores[0]}-{scores[1]} {payoff}: as played {fig['exploitability']:.5f}, solved "
              f"game {fig['stationary_exploitability']:.5f}, both ask "
              f"{100 * fig['redeal_chance']:.2f}% ({fig['seconds']:.0f} s)", flush=True)
    write_atomically(args.out, json.dumps({"states": figures}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
