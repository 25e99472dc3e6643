"""The solved Truc deal played by the engine against itself: the non-dealer's mean points
beside the solver's value (the card call on, TR-2; exact card removal in the engine).

    python bench/truc_self_play.py --scores 0,0 --deals 1000000 --n-jobs 2

Prints one JSON object: the solver's value and exploitability, the engine's mean
points of the non-dealer with its 95% interval, and whether the value is inside.
The policy is ``equilibrium`` with ``score_aware=false`` at the given (equal) scores:
the points solution of that state.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _chunk(scores, n, seed, first):
    from simulators.truc import rules as R
    from simulators.truc.engine import simulate_deals
    from simulators.truc.game import make_policy

    policy = make_policy("equilibrium", score_aware=False, solved_scores=scores[0])
    batch = simulate_deals(R.TrucConfig(), [policy, policy], n, seed=seed, scores=scores,
                           first_deal=first)
    t = batch.table
    dealer = t["dealer"].to_numpy()
    d0, d1 = t["delta_0"].to_numpy().astype(np.int64), t["delta_1"].to_numpy().astype(np.int64)
    nd = np.where(dealer == 1, d0 - d1, d1 - d0)
    redealt = t["hand_no"].to_numpy() != 0
    return nd.sum(), (nd * nd).sum(), len(nd), int(redealt.sum())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", default="0,0", help="equal scores, e.g. 0,0")
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    a, b = (int(x) for x in args.scores.split(","))
    if a != b:
        parser.error("--scores: the points solution is played at equal scores, e.g. 0,0")
    from joblib import Parallel, delayed

    from simulators.truc.solver.solutions import solved_state

    state = solved_state((a, b), "points", card_call=True)
    began = time.perf_counter()
    starts = range(0, args.deals, args.chunk)
    parts = Parallel(n_jobs=args.n_jobs)(
        delayed(_chunk)((a, b), min(args.chunk, args.deals - s), args.seed, s) for s in starts)
    total, squares, n, redealt = (sum(p[i] for p in parts) for i in range(4))
    mean = total / n
    sd = np.sqrt(max(squares / n - mean * mean, 0.0) * n / (n - 1))
    half = 1.959964 * sd / np.sqrt(n)
    print(json.dumps({
        "scores": [a, b], "deals": n, "solver_value": state.value,
        "solver_exploitability": state.exploitability,
        "engine_mean": mean, "engine_low": mean - half, "engine_high": mean + half,
        "value_inside": bool(mean - half <= state.value <= mean + half),
        "redealt_share": redealt / n, "seconds": time.perf_counter() - began}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
