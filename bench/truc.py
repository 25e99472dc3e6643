"""Truc throughput: vectorized engine vs the one-deal referee, same run.

Prints deals/s per core (single process, numpy single-threaded) for the
engine at the given batch size — whole ``simulate_deals`` calls (shuffle,
card call, proposals, tricks, scores and the tidy table), and the engine
alone (``play_batch`` on pre-drawn decks and noise) — and for the referee
replaying engine deals one at a time (the plain-Python baseline), measured
in the same run. Run::

    python bench/truc.py                       # heuristic, batch 10^5
    python bench/truc.py --policy random --batch 10000
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures

import numpy as np  # noqa: E402

from simulators.truc import engine, referee  # noqa: E402
from simulators.truc.policies import make_policy  # noqa: E402
from simulators.truc.rules import TrucConfig  # noqa: E402

TARGET = 1_000_000  # deals/s per core, issue 12


def simulate_rate(config, policy, batch: int, repeats: int) -> list[float]:
    """Deals/s of whole simulate_deals calls."""
    engine.simulate_deals(config, policy, min(batch, 2_000), seed=0)  # warm caches
    rates = []
    for r in range(repeats):
        start = time.perf_counter()
        engine.simulate_deals(config, policy, batch, seed=r + 1)
        rates.append(batch / (time.perf_counter() - start))
    return rates


def play_rate(config, policy, batch: int, repeats: int) -> list[float]:
    """Deals/s of play_batch alone (random draws and the table excluded)."""
    dispatch = engine.Dispatch(policy)
    units = np.arange(batch, dtype=np.int64)
    dealer = (units % 2).astype(np.int8)
    scores = np.zeros((batch, 2), dtype=np.int8)
    rates = []
    for r in range(repeats):
        deck, shuffle, noise = engine.draw_deals(r + 1, units, 0, dispatch.uses_noise)
        start = time.perf_counter()
        engine.play_batch(config, dispatch, deck, dealer, scores, noise, units, shuffle=shuffle)
        rates.append(batch / (time.perf_counter() - start))
    return rates


def referee_rate(config, policy, deals: int, repeats: int) -> list[float]:
    """Deals/s of the referee replaying recorded engine deals, one at a time."""
    batch = engine.simulate_deals(config, policy, deals, seed=99)
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
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--referee-deals", type=int, default=5_000)
    args = parser.parse_args(argv)
    config = TrucConfig()
    policy = make_policy(args.policy)
    whole = simulate_rate(config, policy, args.batch, args.repeats)
    alone = play_rate(config, policy, args.batch, args.repeats)
    ref = referee_rate(config, policy, args.referee_deals, 3)
    w, a, r = statistics.median(whole), statistics.median(alone), statistics.median(ref)
    machine = platform.processor() or platform.machine()
    print(f"Truc, {args.policy} policy, {machine}, Python {platform.python_version()}, "
          f"numpy {np.__version__}")
    print(f"simulate_deals batch {args.batch:>7}: {w:>11,.0f} deals/s per core "
          f"(median of {args.repeats}; min {min(whole):,.0f}, max {max(whole):,.0f})")
    print(f"play_batch     batch {args.batch:>7}: {a:>11,.0f} deals/s per core "
          f"(median of {args.repeats}; min {min(alone):,.0f}, max {max(alone):,.0f})")
    print(f"referee one at a time       : {r:>11,.0f} deals/s per core (median of 3, "
          f"{args.referee_deals} deals)")
    print(f"simulate_deals / referee    : {w / r:>11.1f}x")
    verdict = {True: "PASS", False: "BELOW"}
    print(f"target >= {TARGET:,} deals/s per core: simulate_deals {verdict[w >= TARGET]}, "
          f"play_batch {verdict[a >= TARGET]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
