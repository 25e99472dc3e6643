"""Runner throughput and memory: deals/s on 1 vs 2 worker processes, peak RSS vs run size,
and the fixed cost of a chunk.

Each measurement is a whole `tapisvert.analysis.runner.run` into a fresh
directory (4 players, heuristic policy), timed from outside, with the RSS
of this process and of every worker sampled every 20 ms. The fixed costs are
the intercepts of a straight line fitted to a chunk's time against its size
(16 to 1,024 deals), for each stage a worker goes through: seeding (the
deck draw), the engine with its table, the Parquet write; with
``--base DIR`` (a git worktree of an older commit) the same stages of that
checkout are measured too, in a subprocess. Run::

    python bench/runner.py                   # 2x10^6 deals for scaling; 10^6 and 10^7 for memory
    python bench/runner.py --scaling 1000000 --memory 1000000 3000000 --base /tmp/base
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from analysis.experiment import Experiment
from analysis.runner import run


class PeakRSS:
    """Samples the RSS of this process and of its descendants in a thread."""

    def __init__(self, every: float = 0.02):
        self.every, self.parent, self.worker = every, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        me = psutil.Process()
        while not self._stop.is_set():
            try:
                self.parent = max(self.parent, me.memory_info().rss)
                for child in me.children(recursive=True):
                    self.worker = max(self.worker, child.memory_info().rss)
            except psutil.Error:
                pass
            time.sleep(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


ENGINE_LOOP = """
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals
for i in range({chunks}):
    simulate_deals(BiancoManoConfig(), HeuristicPolicy(), {chunk}, seed=i)
"""


def machine_ceiling(deals: int, chunk: int) -> float:
    """Speed-up of two independent engine processes over one: what 2 cores give right now."""
    code = ENGINE_LOOP.format(chunks=max(1, deals // chunk // 2), chunk=chunk)

    def wall(copies: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(copies)]
        for p in procs:
            p.wait()
        return time.perf_counter() - start

    return 2 * wall(1) / wall(2)


def timed_run(deals: int, n_jobs: int, chunk: int) -> tuple[float, PeakRSS]:
    """Wall seconds and peak memory of one whole run."""
    with tempfile.TemporaryDirectory() as tmp, PeakRSS() as peak:
        start = time.perf_counter()
        run(Experiment("bianco-mano", size=deals, seed=1), Path(tmp) / "run", n_jobs=n_jobs,
            chunk_size=chunk, progress=False)
        return time.perf_counter() - start, peak


FIXED_COSTS = """
import json, sys, tempfile, time
from pathlib import Path
import numpy as np
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals
from simulators.bianco_mano.engine import STREAM_SHUFFLE
from simulators.core import rng, tricks

config, policy = BiancoManoConfig(), HeuristicPolicy()
folder = Path(tempfile.mkdtemp())
sizes = [16, 64, 256, 1024]

def seeding(first, n):
    ids = np.arange(first, first + n, dtype=np.int64)
    rng.draw_per_unit(1, ids, STREAM_SHUFFLE, tricks.shuffled_decks, 0)

def engine(first, n):
    return simulate_deals(config, policy, n, seed=1, first_deal=first).table

def write(first, n, tables={}):
    table = tables.setdefault(n, engine(0, n))
    table.write_parquet(folder / "part.parquet")

simulate_deals(config, policy, 2000, seed=1)  # compile or load the kernels
out = {}
for name, stage in (("seeding", seeding), ("engine + table", engine), ("parquet write", write)):
    times = []
    for n in sizes:
        spent = []
        for r in range(9):
            start = time.perf_counter()
            stage(r * n + 500, n)
            spent.append(time.perf_counter() - start)
        times.append(min(spent))
    slope, intercept = np.polyfit(sizes, times, 1)
    out[name] = {"fixed_ms": 1000 * intercept, "per_1000_deals_ms": 1e6 * slope}
print(json.dumps(out))
"""


def fixed_costs(checkout: Path) -> dict[str, dict[str, float]]:
    """Per stage: the fixed cost of a chunk (ms) and its cost per 1,000 deals, by ``checkout``."""
    import json
    import os

    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", FIXED_COSTS], cwd=checkout, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scaling", type=int, default=2_000_000, help="deals per scaling run")
    parser.add_argument("--memory", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--chunk", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--base", type=Path, help="an older checkout whose fixed costs to show")
    args = parser.parse_args(argv)
    checkouts = [("this checkout", Path(__file__).resolve().parent.parent)]
    checkouts += [(f"base {args.base}", args.base)] if args.base else []
    print("fixed cost of a chunk (intercept of time vs size, 16..1,024 deals):")
    for label, checkout in checkouts:
        for stage, cost in fixed_costs(checkout).items():
            print(f"  {label:>22}  {stage:<15} fixed {cost['fixed_ms']:6.2f} ms, "
                  f"{cost['per_1000_deals_ms']:5.2f} ms per 1,000 deals")
    timed_run(args.chunk, 2, args.chunk)  # start the worker pool once (loky reuses it)
    rates: dict[int, list[float]] = {1: [], 2: []}
    ceilings = []
    for _ in range(args.repeats):  # interleave so machine drift hits every figure
        for jobs in (1, 2):
            seconds, _ = timed_run(args.scaling, jobs, args.chunk)
            rates[jobs].append(args.scaling / seconds)
        ceilings.append(machine_ceiling(args.scaling, args.chunk))
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    ceiling = statistics.median(ceilings)
    print(f"runner, 4 players, heuristic, {args.scaling:,} deals, chunks of {args.chunk:,}, "
          f"median of {args.repeats}:")
    print(f"  n_jobs=1: {one:>10,.0f} deals/s")
    print(f"  n_jobs=2: {two:>10,.0f} deals/s   speed-up {two / one:.2f}x "
          f"(target >= 1.8x: {'PASS' if two / one >= 1.8 else 'BELOW'})")
    print(f"  machine ceiling now: two independent engine processes run {ceiling:.2f}x one "
          f"(min {min(ceilings):.2f}, max {max(ceilings):.2f}); runner efficiency "
          f"{two / one / ceiling:.0%} of it")
    for deals in args.memory:
        seconds, peak = timed_run(deals, 2, args.chunk)
        print(f"  {deals:>11,} deals, n_jobs=2: {seconds:6.1f} s, peak RSS parent "
              f"{peak.parent / 2**20:6.0f} MiB, largest worker {peak.worker / 2**20:6.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
