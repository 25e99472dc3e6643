"""Bianco Mano throughput: vectorized engine vs the one-deal referee, same run.

Prints deals/s per core (single process, numpy single-threaded) for the
engine at the given batch size, and for the referee replaying engine deals
(the per-deal plain-Python baseline). Run::

    python bench/bianco_mano.py                 # 4 players, heuristic, batch 10^5
    python bench/bianco_mano.py --players 5 --policy random --batch 10000
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures

from simulators.bianco_mano import BiancoManoConfig, make_policy, referee, simulate_deals  # noqa: E402


def engine_rate(config, policy, batch: int, repeats: int) -> list[float]:
    """Deals/s of whole simulate_deals calls (deal, bid, play, score, table)."""
    simulate_deals(config, policy, min(batch, 2_000), seed=0)  # warm caches
    rates = []
    for r in range(repeats):
        start = time.perf_counter()
        simulate_deals(config, policy, batch, seed=r + 1)
        rates.append(batch / (time.perf_counter() - start))
    return rates


def referee_rate(config, policy, deals: int, repeats: int) -> list[float]:
    """Deals/s of the referee replaying recorded engine deals, one at a time."""
    batch = simulate_deals(config, policy, deals, seed=99)
    records = [batch.record(i) for i in range(deals)]
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for record in records:
            referee.replay_deal(record, config)
        rates.append(deals / (time.perf_counter() - start))
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--referee-deals", type=int, default=5_000)
    args = parser.parse_args(argv)
    config = BiancoManoConfig(n_players=args.players)
    policy = make_policy(args.policy)
    engine = engine_rate(config, policy, args.batch, args.repeats)
    ref = referee_rate(config, policy, args.referee_deals, 3)
    e, r = statistics.median(engine), statistics.median(ref)
    machine = platform.processor() or platform.machine()
    print(f"Bianco Mano {args.players}p, {args.policy} policy, {machine}, "
          f"Python {platform.python_version()}")
    print(f"engine  batch {args.batch:>7}: {e:>10,.0f} deals/s per core "
          f"(median of {args.repeats}; min {min(engine):,.0f}, max {max(engine):,.0f})")
    print(f"referee one at a time : {r:>10,.0f} deals/s per core (median of 3, "
          f"{args.referee_deals} deals)")
    print(f"engine / referee      : {e / r:>10.1f}x")
    verdict = {True: "PASS", False: "BELOW"}
    print(f"targets               : engine >= 300,000 deals/s: {verdict[e >= 300_000]}"
          f"; >= 25x referee: {verdict[e / r >= 25]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
