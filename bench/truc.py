"""Truc throughput: vectorized engine vs the one-deal referee, same run.

Prints deals/s per core (single process, numpy single-threaded) for the
engine at the given batch size — whole ``simulate_deals`` calls (shuffle,
card call, proposals, tricks, scores and the tidy table), and the engine
alone (``play_batch`` on pre-drawn decks and noise), through the compiled
fast path of the shipped policies and through the numpy path every other
policy takes — and for the referee replaying engine deals one at a time
(the plain-Python baseline), measured in the same run, with the kernel's
compile (or cache-load) time. Times are CPU time of this process
(``time.process_time``), so other work on a shared machine inflates them
less than wall time; every timed series starts with one uncounted warm-up
run at full size. Run::

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

from simulators.truc import engine, fast, referee  # noqa: E402
from simulators.truc.policies import make_policy  # noqa: E402
from simulators.truc.rules import TrucConfig  # noqa: E402

TARGET = 1_000_000  # deals/s per core, issue 12


def simulate_rate(config, policy, batch: int, repeats: int) -> list[float]:
    """Deals/s of whole simulate_deals calls."""
    engine.simulate_deals(config, policy, batch, seed=0)  # warm-up at full size, not counted
    rates = []
    for r in range(repeats):
        start = time.process_time()
        engine.simulate_deals(config, policy, batch, seed=r + 1)
        rates.append(batch / (time.process_time() - start))
    return rates


def play_rate(config, policy, batch: int, repeats: int, fast: bool) -> list[float]:
    """Deals/s of play_batch alone (random draws and the table excluded)."""
    dispatch = engine.Dispatch(policy)
    units = np.arange(batch, dtype=np.int64)
    dealer = (units % 2).astype(np.int8)
    scores = np.zeros((batch, 2), dtype=np.int8)
    rates = []
    for r in range(repeats + 1):  # the first run warms up and is not counted
        deck, shuffle, noise = engine.draw_deals(r, units, 0, dispatch.uses_noise)
        start = time.process_time()
        engine.play_batch(config, dispatch, deck, dealer, scores, noise, units, shuffle=shuffle,
                          fast=fast)
        if r:
            rates.append(batch / (time.process_time() - start))
    return rates


def referee_rate(config, policy, deals: int, repeats: int) -> list[float]:
    """Deals/s of the referee replaying recorded engine deals, one at a time."""
    batch = engine.simulate_deals(config, policy, deals, seed=99)
    records = [batch.record(i) for i in range(deals)]
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        for record in records:
            referee.replay_deal(record, config)
        rates.append(deals / (time.process_time() - start))
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
    compile_seconds = fast.warm_up()
    whole = simulate_rate(config, policy, args.batch, args.repeats)
    compiled = play_rate(config, policy, args.batch, args.repeats, fast=True)
    numpy_path = play_rate(config, policy, args.batch, args.repeats, fast=False)
    ref = referee_rate(config, policy, args.referee_deals, 3)
    w, c, p, r = (statistics.median(x) for x in (whole, compiled, numpy_path, ref))
    machine = platform.processor() or platform.machine()
    print(f"Truc, {args.policy} policy, {machine}, Python {platform.python_version()}, "
          f"numpy {np.__version__}; kernel compile or cache load {compile_seconds:.1f} s")
    for label, rates, rate in (("simulate_deals", whole, w), ("play_batch compiled", compiled, c),
                               ("play_batch numpy", numpy_path, p)):
        print(f"{label:<20} batch {args.batch:>7}: {rate:>11,.0f} deals/s per core "
              f"(median of {args.repeats}; min {min(rates):,.0f}, max {max(rates):,.0f}; "
              f"{rate / r:.1f}x referee)")
    print(f"{'referee one at a time':<34}: {r:>11,.0f} deals/s per core (median of 3, "
          f"{args.referee_deals} deals)")
    verdict = {True: "PASS", False: "BELOW"}
    print(f"target >= {TARGET:,} deals/s per core: simulate_deals {verdict[w >= TARGET]}, "
          f"play_batch compiled {verdict[c >= TARGET]}, numpy {verdict[p >= TARGET]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
