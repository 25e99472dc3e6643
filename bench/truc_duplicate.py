"""Whole Truc matches, duplicate: each match played twice on the same decks, seats swapped.

    python bench/truc_duplicate.py --a equilibrium --b heuristic --matches 20000 --n-jobs 2
    python bench/truc_duplicate.py --a equilibrium \
        --b equilibrium:score_aware=false --matches 20000 --n-jobs 2

Policy A plays seat 0 in the first playing of match i and seat 1 in the second;
both use the decks of match i (the engine draws deal k of match i from the seed
whatever happened before, TR-6), so the luck of the cards cancels within a pair.
Prints one JSON object: A's match win rate with its 95% interval (from the pairs'
spread), the share of pairs split one-one, manche win rate, and the seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _chunk(a_text, b_text, first, n, seed):
    from simulators.truc import rules as R
    from simulators.truc.engine import simulate_matches
    from simulators.truc.game import policy_from_text

    a, b = policy_from_text(a_text), policy_from_text(b_text)
    config = R.TrucConfig()
    out = []
    for seat_a, policies in ((0, [a, b]), (1, [b, a])):
        batch = simulate_matches(config, policies, n, seed=seed, first_match=first)
        m = batch.matches.sort("match_id")
        won = m["winner"].to_numpy() == seat_a
        manches = m[f"manches_{seat_a}"].to_numpy().astype(float)
        played = (m["manches_0"].to_numpy() + m["manches_1"].to_numpy()).astype(float)
        out.append((won, manches, played, m["deals"].to_numpy()))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="equilibrium")
    parser.add_argument("--b", default="heuristic")
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    from simulators.truc.game import policy_from_text

    for text in (args.a, args.b):  # bad names or parameters fail before any work
        try:
            policy_from_text(text)
        except (TypeError, ValueError) as exc:
            parser.error(str(exc))
    from joblib import Parallel, delayed

    began = time.perf_counter()
    starts = range(0, args.matches, args.chunk)
    parts = Parallel(n_jobs=args.n_jobs)(
        delayed(_chunk)(args.a, args.b, s, min(args.chunk, args.matches - s), args.seed)
        for s in starts)
    first = [np.concatenate([p[0][k] for p in parts]) for k in range(4)]
    second = [np.concatenate([p[1][k] for p in parts]) for k in range(4)]
    pair = (first[0].astype(float) + second[0]) / 2  # A's wins per pair of playings
    n = len(pair)
    mean = pair.mean()
    half = 1.959964 * pair.std(ddof=1) / np.sqrt(n)
    manche_rate = (first[1].sum() + second[1].sum()) / (first[2].sum() + second[2].sum())
    print(json.dumps({
        "a": args.a, "b": args.b, "matches": n, "playings": 2 * n, "seed": args.seed,
        "a_match_win_rate": mean, "low": mean - half, "high": mean + half,
        "split_pairs": float((pair == 0.5).mean()), "a_manche_win_rate": manche_rate,
        "deals_per_match": float((first[3].mean() + second[3].mean()) / 2),
        "seconds": time.perf_counter() - began}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
