"""Five Crowns meld solver throughput: compiled kernels vs the plain-Python brute force.

Prints, per core (one process, the kernels are single-threaded):

- compile time: a fresh process with an empty numba cache (first call ever:
  jit + tables), then a fresh process with that cache warm, then the tables
  alone (built once per process);
- ``min_penalty`` hands/s on round-11 deals (13 cards from a shuffled 116-card
  deck, Kings wild; and 14 cards: the 13 plus the next card, as after a draw)
  at batch 10^4 and 10^5, median of ``--repeats``;
- ``best_discard`` hands/s on the 14-card hands;
- the brute-force enumerator of ``tests/test_five_crowns_melds.py`` (plain
  Python, memoized) on the same hands, as the baseline of the same run.

Run::

    python bench/five_crowns_melds.py
    python bench/five_crowns_melds.py --repeats 5 --brute-hands 100
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from simulators.five_crowns import melds  # noqa: E402
from simulators.five_crowns.rules import N_CARDS, N_KINDS, kind_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DECK = np.array([kind_of(i) for i in range(N_CARDS)], dtype=np.int64)
TARGET_MIN = 100_000
TARGET_DISCARD = 50_000
PROBE = ("import time; t = time.perf_counter(); "
         "from simulators.five_crowns import melds; i = time.perf_counter() - t; "
         "print(i, melds.warm_up())")


def compile_times() -> tuple[tuple[float, float], tuple[float, float]]:
    """((import s, warm_up s) cold cache, (import s, warm_up s) warm cache), fresh processes."""
    out = []
    with tempfile.TemporaryDirectory() as cache_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=ROOT, check=True,
                                 capture_output=True, text=True)
            imp, warm = (float(x) for x in res.stdout.split())
            out.append((imp, warm))
    return out[0], out[1]


def round11_hands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(13-card, 14-card) count vectors of ``n`` round-11 deals (the 14th: the next card)."""
    rng = np.random.default_rng(seed)
    top = np.argsort(rng.random((n, N_CARDS)), axis=1)[:, :14]
    kinds = DECK[top]
    rows = np.repeat(np.arange(n), 14).reshape(n, 14) * N_KINDS

    def counts(k: int) -> np.ndarray:
        flat = (rows[:, :k] + kinds[:, :k]).ravel()
        return np.bincount(flat, minlength=n * N_KINDS).reshape(n, N_KINDS).astype(np.uint8)

    return counts(13), counts(14)


def rate(fn, hands: np.ndarray, batch: int, repeats: int) -> list[float]:
    """Hands/s of ``fn(hands[slice], 13)`` over ``repeats`` batches."""
    rates = []
    for r in range(repeats):
        lo = (r * batch) % len(hands)
        part = hands[lo:lo + batch] if lo + batch <= len(hands) else hands[:batch]
        start = time.perf_counter()
        fn(part, 13)
        rates.append(len(part) / (time.perf_counter() - start))
    return rates


def load_brute_force():
    path = ROOT / "tests" / "test_five_crowns_melds.py"
    spec = importlib.util.spec_from_file_location("_fc_melds_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--brute-hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    machine = platform.processor() or platform.machine()
    print(f"Five Crowns meld solver, {machine}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, {os.cpu_count()} cores (figures per core)")
    (imp_cold, cold), (imp_warm, warm) = compile_times()
    print(f"import melds (no numba, no compile): {imp_warm * 1e3:8.1f} ms")
    print(f"first call, numba cache empty      : {cold:8.2f} s   (jit + tables, fresh process)")
    print(f"first call, numba cache warm       : {warm:8.2f} s   (load + tables, fresh process)")
    here = melds.warm_up()
    start = time.perf_counter()
    runcost = melds._k_runcost_table()
    melds._k_best_tables(runcost)
    tables = time.perf_counter() - start
    print(f"  of which the tables (per process): {tables:8.2f} s   (this process warm_up "
          f"{here:.2f} s)")

    h13, h14 = round11_hands(100_000, args.seed)
    verdict = {True: "PASS", False: "BELOW"}
    results = {}
    for name, hands in (("13", h13), ("14", h14)):
        for batch in (10_000, 100_000):
            rates = rate(melds.min_penalty, hands, batch, args.repeats)
            med = statistics.median(rates)
            results[(name, batch)] = med
            print(f"min_penalty  {name} cards, batch {batch:>7,}: {med:>11,.0f} hands/s "
                  f"(median of {args.repeats}; min {min(rates):,.0f}, max {max(rates):,.0f})"
                  f"  {verdict[med >= TARGET_MIN]} vs {TARGET_MIN:,}")
    for batch in (10_000, 100_000):
        rates = rate(melds.best_discard, h14, batch, args.repeats)
        med = statistics.median(rates)
        results[("discard", batch)] = med
        print(f"best_discard 14 cards, batch {batch:>7,}: {med:>11,.0f} hands/s "
              f"(median of {args.repeats}; min {min(rates):,.0f}, max {max(rates):,.0f})"
              f"  {verdict[med >= TARGET_DISCARD]} vs {TARGET_DISCARD:,}")
    print(f"mean penalty: 13 cards {melds.min_penalty(h13, 13).mean():.2f}, 14 cards "
          f"{melds.min_penalty(h14, 13).mean():.2f}, after the best discard "
          f"{melds.best_discard(h14, 13)[0].mean():.2f}; can go out: 13 cards "
          f"{melds.can_go_out(h13, 13).mean():.4f}")

    ref = load_brute_force()
    n = args.brute_hands
    for name, hands in (("13", h13), ("14", h14)):
        kinds = [ref.kinds_of(h) for h in hands[:n]]
        start = time.perf_counter()
        want = [ref.brute_min_penalty(k, 13) for k in kinds]
        brute = n / (time.perf_counter() - start)
        assert want == melds.min_penalty(hands[:n], 13).tolist()
        print(f"brute force  {name} cards (plain Python): {brute:>11,.1f} hands/s ({n} hands, "
              f"same answers); kernel batch 10^5 is {results[(name, 100_000)] / brute:,.0f}x")
    m = max(n // 5, 1)
    start = time.perf_counter()
    for h in h14[:m]:
        k = ref.kinds_of(h)
        min(ref.brute_min_penalty(k[:i] + k[i + 1:], 13) for i in range(len(k)))
    brute_d = m / (time.perf_counter() - start)
    print(f"brute force  best discard, 14 cards: {brute_d:>11,.1f} hands/s ({m} hands); "
          f"kernel is {results[('discard', 100_000)] / brute_d:,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
