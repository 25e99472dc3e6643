"""Five Crowns throughput: player-turns/s of the batch engine vs the referee, same run.

Whole 4-player games (rounds 1-11) with the heuristic policy, one process,
median of repeats; then the referee replays the rounds of some of those
games one at a time (its own plain-Python exact solver). Run::

    python bench/five_crowns.py
    python bench/five_crowns.py --games 500 --players 6 --policy random
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from simulators.five_crowns import melds, referee  # noqa: E402
from simulators.five_crowns.engine import simulate_games  # noqa: E402
from simulators.five_crowns.policies import make_policy  # noqa: E402
from simulators.five_crowns.rules import FiveCrownsConfig  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--games", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--referee-games", type=int, default=40)
    args = parser.parse_args(argv)
    compile_seconds = melds.warm_up()
    config = FiveCrownsConfig(n_players=args.players)
    policy = make_policy(args.policy)
    simulate_games(config, policy, 20, seed=0)  # warm caches
    rates, games_per_s = [], []
    for r in range(args.repeats):
        start = time.perf_counter()
        batch = simulate_games(config, policy, args.games, seed=r + 1)
        seconds = time.perf_counter() - start
        rates.append(batch.rounds["turns"].sum() / seconds)
        games_per_s.append(args.games / seconds)
    sample = simulate_games(config, policy, args.referee_games, seed=99)
    records = [rec for g in sample.game_ids for rec in sample.records(int(g))]
    turns = sum(len(rec.turns) for rec in records)
    ref = []
    for _ in range(3):
        start = time.perf_counter()
        for rec in records:
            referee.replay_round(rec, config)
        ref.append(turns / (time.perf_counter() - start))
    e, g, rr = statistics.median(rates), statistics.median(games_per_s), statistics.median(ref)
    verdict = {True: "PASS", False: "BELOW"}
    print(f"Five Crowns {args.players}p games (rounds 1-11), {args.policy} policy, "
          f"{platform.machine()}, Python {platform.python_version()}; solver compile/load "
          f"{compile_seconds:.2f} s")
    print(f"engine  {args.games:>6} games: {e:>10,.0f} player-turns/s per core "
          f"({g:,.0f} games/s; median of {args.repeats}, min {min(rates):,.0f}, "
          f"max {max(rates):,.0f})")
    print(f"referee one at a time : {rr:>10,.0f} player-turns/s per core "
          f"({len(records)} rounds, median of 3)")
    print(f"engine / referee      : {e / rr:>10.1f}x")
    print(f"target                : >= 100,000 player-turns/s per core: {verdict[e >= 100_000]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
