"""Bango throughput: player-turns/s of the batch engine vs the referee, same run.

Whole 4-player games with the heuristic policy, one process, median of
repeats (CPU time, so other processes on the machine do not count); then the
referee replays some of those games one at a time from their records. Run::

    python bench/bango.py
    python bench/bango.py --games 20000 --players 5 --policy random
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from simulators.bango import referee  # noqa: E402
from simulators.bango.engine import simulate_games  # noqa: E402
from simulators.bango.policies import make_policy  # noqa: E402
from simulators.bango.rules import BangoConfig  # noqa: E402

TARGET = 200_000  # player-turns/s per core (issue 13)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--referee-games", type=int, default=300)
    args = parser.parse_args(argv)
    config = BangoConfig(n_players=args.players)
    policy = make_policy(args.policy)
    start = time.perf_counter()
    simulate_games(config, policy, 50, seed=0)  # compiles the numba kernels, or loads them
    warm = time.perf_counter() - start
    rates, games_per_s = [], []
    for r in range(args.repeats):
        start = time.process_time()
        batch = simulate_games(config, policy, args.games, seed=r + 1)
        seconds = time.process_time() - start
        rates.append(len(batch.turns) / seconds)
        games_per_s.append(args.games / seconds)
    sample = simulate_games(config, policy, args.referee_games, seed=99)
    records = list(sample.records().values())
    turns = sum(len(rec.turns) for rec in records)
    ref = []
    for _ in range(3):
        start = time.process_time()
        for rec in records:
            referee.replay_game(rec)
        ref.append(turns / (time.process_time() - start))
    e, g, rr = statistics.median(rates), statistics.median(games_per_s), statistics.median(ref)
    verdict = {True: "PASS", False: "BELOW"}
    print(f"Bango {args.players}p whole games, {args.policy} policy, {platform.machine()}, "
          f"Python {platform.python_version()}")
    print(f"engine  {args.games:>6} games: {e:>10,.0f} player-turns/s per core "
          f"({g:,.0f} games/s; median of {args.repeats}, min {min(rates):,.0f}, "
          f"max {max(rates):,.0f})")
    print(f"referee one at a time : {rr:>10,.0f} player-turns/s per core "
          f"({len(records)} games, median of 3)")
    print(f"engine / referee      : {e / rr:>10.1f}x")
    print(f"first 50 games        : {warm:>10.2f} s wall (numba kernels compiled, or loaded "
          "from their cache)")
    print(f"target                : >= {TARGET:,} player-turns/s per core: "
          f"{verdict[e >= TARGET]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
