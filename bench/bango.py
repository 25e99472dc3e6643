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


def engine_rates(config, policy, games: int, repeats: int) -> tuple[list[float], list[float]]:
    """Player-turns/s and games/s (CPU time) of whole simulate_games calls."""
    rates, games_per_s = [], []
    for r in range(repeats):
        start = time.process_time()
        batch = simulate_games(config, policy, games, seed=r + 1)
        seconds = time.process_time() - start
        rates.append(len(batch.turns) / seconds)
        games_per_s.append(games / seconds)
    return rates, games_per_s


def referee_rates(config, policy, games: int, repeats: int = 3) -> list[float]:
    """Player-turns/s of the referee replaying recorded engine games, one at a time."""
    sample = simulate_games(config, policy, games, seed=99)
    records = list(sample.records().values())
    turns = sum(len(rec.turns) for rec in records)
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        for rec in records:
            referee.replay_game(rec)
        rates.append(turns / (time.process_time() - start))
    return rates


def warm_up(config, policy) -> float:
    """Wall seconds of a first 50-game call: numba kernels compiled or loaded from cache."""
    start = time.perf_counter()
    simulate_games(config, policy, 50, seed=0)
    return time.perf_counter() - start


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
    warm = warm_up(config, policy)
    rates, games_per_s = engine_rates(config, policy, args.games, args.repeats)
    ref = referee_rates(config, policy, args.referee_games)
    e, g, rr = statistics.median(rates), statistics.median(games_per_s), statistics.median(ref)
    verdict = {True: "PASS", False: "BELOW"}
    print(f"Bango {args.players}p whole games, {args.policy} policy, {platform.machine()}, "
          f"Python {platform.python_version()}")
    print(f"engine  {args.games:>6} games: {e:>10,.0f} player-turns/s per core "
          f"({g:,.0f} games/s; median of {args.repeats}, min {min(rates):,.0f}, "
          f"max {max(rates):,.0f})")
    print(f"referee one at a time : {rr:>10,.0f} player-turns/s per core "
          f"({args.referee_games} games, median of 3)")
    print(f"engine / referee      : {e / rr:>10.1f}x")
    print(f"first 50 games        : {warm:>10.2f} s wall (numba kernels compiled, or loaded "
          "from their cache)")
    print(f"target                : >= {TARGET:,} player-turns/s per core: "
          f"{verdict[e >= TARGET]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
