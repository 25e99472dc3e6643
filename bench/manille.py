"""Manille throughput: the vectorized engine beside the referee and OpenSpiel, same run.

Prints deals/s per core (one process, numpy single-threaded, timed in CPU
seconds of this process with ``time.process_time`` so that other jobs on a
shared machine distort the figures less than wall time) for the engine at
the given batch size and policy (the compiled heuristic's first calls are
made before timing), the referee replaying engine deals one
at a time (the plain-Python baseline), and OpenSpiel's C++ euchre and skat
random games (uniform random bots through ``pyspiel.evaluate_bots``) when
``pyspiel`` is installed (``pip install -e .[bench]``). Ratios measured in
the same run are the figures to read on a shared machine. Run::

    python bench/manille.py                      # heuristic, batch 10^5
    python bench/manille.py --policy random --batch 10000 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures

from simulators.core import tricks  # noqa: E402
from simulators.manille import ManilleConfig  # noqa: E402
from simulators.manille import _heuristic_kernel as compiled_heuristic  # noqa: E402
from simulators.manille.engine import simulate_deals  # noqa: E402
from simulators.manille.policies import make_policy  # noqa: E402
from simulators.manille.referee import replay_deal  # noqa: E402

TARGET_DEALS = 400_000  # heuristic deals/s per core at batch 10^5
TARGET_VS_REFEREE = 30.0


def engine_rates(config, policy, batch: int, repeats: int) -> list[float]:
    """Deals/s of whole simulate_deals calls (deal, choose, contre, play, score, table)."""
    simulate_deals(config, policy, min(batch, 2_000), seed=0)  # warm caches
    rates = []
    for r in range(repeats):
        start = time.process_time()
        simulate_deals(config, policy, batch, seed=r + 1)
        rates.append(batch / (time.process_time() - start))
    return rates


def referee_rates(config, policy, deals: int, repeats: int) -> list[float]:
    """Deals/s of the referee replaying recorded engine deals, one at a time."""
    batch = simulate_deals(config, policy, deals, seed=99)
    records = [batch.record(i) for i in range(deals)]
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        for record in records:
            replay_deal(record, config)
        rates.append(deals / (time.process_time() - start))
    return rates


def openspiel_rates(seconds: float, repeats: int) -> dict[str, list[float]]:
    """Random games/s (CPU seconds) of OpenSpiel's C++ euchre and skat, or {} without pyspiel."""
    try:
        import pyspiel
    except ImportError:
        return {}
    out = {}
    for name in ("euchre", "skat"):
        game = pyspiel.load_game(name)
        bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(game.num_players())]
        rates = []
        for _ in range(repeats):
            start, done = time.process_time(), 0
            while time.process_time() - start < seconds:
                pyspiel.evaluate_bots(game.new_initial_state(), bots, done)
                done += 1
            rates.append(done / (time.process_time() - start))
        out[name] = rates
    return out


def spread(rates: list[float]) -> str:
    return f"(median of {len(rates)}; min {min(rates):,.0f}, max {max(rates):,.0f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--referee-deals", type=int, default=3_000)
    parser.add_argument("--peer-seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    if min(args.batch, args.repeats, args.referee_deals) < 1 or args.peer_seconds <= 0:
        parser.error("--batch, --repeats, --referee-deals and --peer-seconds must be positive")
    config = ManilleConfig()
    policy = make_policy(args.policy)
    # loading (or, on an empty cache, compiling) the numba code: once per process
    load = {"kernel": tricks.warm_up(), "heuristic": compiled_heuristic.warm_up()}
    engine = engine_rates(config, policy, args.batch, args.repeats)
    random_engine = engine_rates(config, make_policy("random"), args.batch, args.repeats)
    ref = referee_rates(config, policy, args.referee_deals, 3)
    peers = openspiel_rates(args.peer_seconds, 3)
    e, er, r = (statistics.median(x) for x in (engine, random_engine, ref))
    print(f"Manille coincée, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, {os.cpu_count()} cores (figures per core)")
    print("compiled code, first call in this process (on-disk cache): "
          + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in load.items()))
    print(f"engine {args.policy:<9} batch {args.batch:>7}: {e:>10,.0f} deals/s {spread(engine)}")
    print(f"engine random    batch {args.batch:>7}: {er:>10,.0f} deals/s {spread(random_engine)}")
    print(f"referee one deal at a time       : {r:>10,.0f} deals/s {spread(ref)}")
    print(f"engine / referee                 : {e / r:>10.1f}x")
    for name, rates in peers.items():
        g = statistics.median(rates)
        print(f"OpenSpiel C++ {name:<6} random games: {g:>10,.0f} games/s {spread(rates)}; "
              f"Manille {args.policy} / {name}: {e / g:.1f}x, random / {name}: {er / g:.1f}x")
    if not peers:
        print("OpenSpiel: pyspiel not installed (pip install -e .[bench]); peers skipped")
    verdict = {True: "PASS", False: "BELOW"}
    print(f"targets: >= {TARGET_DEALS:,} deals/s per core: {verdict[e >= TARGET_DEALS]}; "
          f">= {TARGET_VS_REFEREE:g}x the referee: {verdict[e / r >= TARGET_VS_REFEREE]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
