"""Bango laying solver throughput: the compiled kernel vs the plain-Python brute force.

Prints, per core (one process, the kernel is single-threaded):

- compile time: a fresh process with an empty numba cache (jit), then a fresh
  process with that cache warm (load), and the import alone;
- ``best_lays`` hands/s at batch 10^4 and 10^5 (median of ``--repeats``) on
  random boards and hands dealt from the 99 cards: end-of-turn hands of 6..10
  cards (a lay is compulsory above 5, BG-6) and large hands of 12..14 cards,
  with 0..3 sequences already opened, compulsory placement on;
- the brute force ``enumerate_lays`` (every legal arrangement, max gain) on
  the first ``--brute-hands`` states of each set, in the same run, checked to
  give the same gains, and the kernel's speed-up over it;
- how often the policies' greedy lay (``policies.greedy_arrangement``) falls
  short of the optimum, and by how much (quality, not speed).

Run::

    python bench/bango_laying.py
    python bench/bango_laying.py --repeats 5 --brute-hands 300
"""

from __future__ import annotations

import argparse
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

from simulators.bango import laying as L  # noqa: E402
from simulators.bango import rules as R  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBE = ("import time; t = time.perf_counter(); "
         "from simulators.bango import laying; i = time.perf_counter() - t; "
         "print(i, laying.warm_up())")
TARGET = 100_000  # hands/s per core on end-of-turn hands: the engine lays ~1 turn in 3


def compile_times() -> list[tuple[float, float]]:
    """[(import s, warm_up s)] with a cold then a warm numba cache, fresh processes."""
    out = []
    with tempfile.TemporaryDirectory() as cache_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=ROOT, check=True,
                                 capture_output=True, text=True)
            out.append(tuple(float(x) for x in res.stdout.split()))
    return out


def deal_states(n: int, sizes: tuple[int, int], seed: int):
    """``n`` (cards, sequences): 0..3 sequences (2..6 cards) and a hand, from one deck each."""
    gen = np.random.default_rng(seed)
    deck = np.array(R.full_deck())
    by_value = [[k for k in range(R.N_COLOURED_KINDS) if R.value_of(k) == v]
                for v in range(R.N_VALUES + 1)]
    states = []
    for _ in range(n):
        left = np.bincount(deck, minlength=R.N_KINDS)
        sequences = []
        for _ in range(int(gen.integers(0, R.MAX_SEQUENCES + 1))):
            length = int(gen.integers(R.MIN_OPEN, 7))
            low = int(gen.integers(1, R.N_VALUES - length + 2))
            seq = []
            for v in range(low, low + length):
                k = int(gen.choice(by_value[v]))
                left[k] -= 1
                seq.append(k)
            sequences.append(seq)
        pool = np.repeat(np.arange(R.N_KINDS), np.maximum(left, 0))
        size = int(gen.integers(sizes[0], sizes[1] + 1))
        states.append(([int(k) for k in gen.choice(pool, size, replace=False)], sequences))
    return states


def as_arrays(states):
    hands = np.stack([R.hand_counts(c) for c, _ in states])
    boards = [L.board_of(s) for _, s in states]
    return hands, np.stack([b[0] for b in boards]), np.stack([b[1] for b in boards])


def rates(arrays, batch: int, repeats: int) -> list[float]:
    hands, mask, colours = arrays
    reps = -(-batch // len(hands))
    h, m, c = (np.concatenate([a] * reps)[:batch] for a in (hands, mask, colours))
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        L.best_lays(h, m, c)
        out.append(batch / (time.perf_counter() - start))
    return out


def greedy_gap(arrays, gains):
    """(share of hands where the greedy lay is worse, mean shortfall there) or None."""
    try:
        from simulators.bango.engine import lay_errors
        from simulators.bango.observations import BangoObs
        from simulators.bango.policies import greedy_arrangement
    except ImportError:
        return None
    hands, mask, colours = arrays
    n = len(hands)
    z = np.zeros(n, np.int64)
    obs = BangoObs(seat=z, active=z, hand=hands, centre=np.full((n, 12), -1, np.int8),
                   centre_len=z, revealed=z - 1, exploded=z.astype(bool), position=z - 1,
                   seq_mask=mask[:, None], seq_colours=colours[:, None],
                   n_open=(mask != 0).sum(axis=1)[:, None], public=np.zeros_like(hands),
                   hand_sizes=hands.sum(axis=1)[:, None], stock_left=z, forced=z.astype(bool),
                   final=False, n_players=1, free_discard=False, noise=None)
    placed = greedy_arrangement(obs)
    assert (lay_errors(hands, mask, (mask != 0).sum(axis=1), placed, False) == 0).all()
    # gain of a lay from its cards: 2 * placed - hand + bonus after - bonus before
    mine = L.best_lays(hands, mask, colours)
    worse = []
    for i in range(n):
        lay = L.placed_to_lay(placed[i])
        cards = [k for k in range(R.N_KINDS) for _ in range(int(hands[i, k]))]
        seqs = _sequences_of(mask[i], colours[i])
        worse.append(int(mine.gain[i]) - L.lay_gain(cards, seqs, lay))
    worse = np.array(worse)
    assert (worse >= 0).all(), "the greedy lay beats the exact solver"
    return float((worse > 0).mean()), float(worse[worse > 0].mean()) if (worse > 0).any() else 0.0


def _sequences_of(mask, colours):
    """Stand-in kinds with the board's values and colour counts (enough for scoring)."""
    seqs = []
    for s in range(R.MAX_SEQUENCES):
        if not mask[s]:
            break
        values = [v + 1 for v in range(R.N_VALUES) if (int(mask[s]) >> v) & 1]
        cols = [c for c in range(R.N_COLOURS) for _ in range(int(colours[s, c]))]
        seqs.append([R.kind(v, c) for v, c in zip(values, cols, strict=True)])
    return seqs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--brute-hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.brute_hands < 1:
        parser.error("--repeats and --brute-hands must be positive")

    machine = platform.processor() or platform.machine()
    print(f"Bango laying solver, {machine}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, {os.cpu_count()} cores (figures per core)")
    (imp, cold), (_, warm) = compile_times()
    print(f"import laying (no numba, no compile): {imp * 1e3:8.1f} ms")
    print(f"first call, numba cache empty       : {cold:8.2f} s   (jit, fresh process)")
    print(f"first call, numba cache warm        : {warm:8.2f} s   (load, fresh process)")
    L.warm_up()

    sets = {"6-10 cards": (6, 10), "12-14 cards": (12, 14)}
    for offset, (name, sizes) in enumerate(sets.items()):
        states = deal_states(20_000, sizes, args.seed + offset)
        arrays = as_arrays(states)
        kernel = {}
        for batch in (10_000, 100_000):
            r = rates(arrays, batch, args.repeats)
            kernel[batch] = statistics.median(r)
            verdict = "PASS" if kernel[batch] >= TARGET else "BELOW"
            extra = f"  {verdict} vs {TARGET:,}" if name.startswith("6") else ""
            print(f"best_lays {name}, batch {batch:>7,}: {kernel[batch]:>11,.0f} hands/s "
                  f"(median of {args.repeats}; min {min(r):,.0f}, max {max(r):,.0f}){extra}")
        n = args.brute_hands
        start = time.perf_counter()
        want = [max(g for _, g in L.enumerate_lays(c, s)) for c, s in states[:n]]
        brute = n / (time.perf_counter() - start)
        got = L.best_lays(*(a[:n] for a in arrays)).gain.tolist()
        assert got == want, "kernel and brute force disagree"
        print(f"brute force {name} (plain Python): {brute:>11,.1f} hands/s ({n} hands, same "
              f"gains); kernel batch 10^5 is {kernel[100_000] / brute:,.0f}x")
        gap = greedy_gap(tuple(a[:5000] for a in arrays), None)
        if gap is not None:
            print(f"greedy lay (policies) on {name}: below the optimum on {gap[0]:.1%} of "
                  f"hands, by {gap[1]:.2f} points on average there")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
