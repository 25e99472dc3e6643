"""Double-dummy solver speed: whole deals one at a time, beside a plain minimax, same run.

Prints, on one core (one process, numpy single-threaded; times are CPU seconds of this
process, ``time.process_time``, so that other jobs on a shared machine distort the figures
less than wall time):

- the solver's first call in this process (``double_dummy.warm_up()``: numba's on-disk
  cache, or a compile on an empty cache);
- Manille coincée, whole deals from the first card (random deals, trump drawn over the 4
  suits and sans atout, the dealer's right leads, the dealer's team is side 0): deals
  solved per second, median, 99th percentile and largest time per deal, nodes per deal,
  for the exact value (``solve``) and the contract question (``solve(..., target=35)``:
  does the taking team get above 34, MA-6);
- Bianco Mano, 4 players, whole deals (8 cards each, random dominant, seat 0 leads, sides
  0 & 2 against 1 & 3): the same, with ``target=45`` (BM-10);
- the baseline: the plain minimax on the referee (tests/core/double_dummy_reference.py) and
  the solver on the same positions with 3 tricks left (random legal play to the start of
  the sixth trick), positions per second each.

Each deal is its own ``solve`` call on an already checked :class:`Position` (built before
timing), so the per-deal times are real. Run::

    python bench/double_dummy.py                    # 2,000 deals per game, a few minutes
    python bench/double_dummy.py --deals 200 --baseline 100
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: per-core figures
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.core.double_dummy_reference, the minimax baseline

import numpy as np  # noqa: E402

from simulators.bianco_mano import engine as bm_engine  # noqa: E402
from simulators.bianco_mano import rules as bm_rules  # noqa: E402
from simulators.core import double_dummy as dd  # noqa: E402
from simulators.core.tricks import SUIT_MASK  # noqa: E402
from simulators.manille import rules as ma_rules  # noqa: E402
from tests.core.double_dummy_reference import (  # noqa: E402
    BIANCO_MANO,
    MANILLE,
    minimax,
    random_spots,
    solver_position,
)

MANILLE_TARGET = ma_rules.THRESHOLD + 1  # MA-6: the taking team above 34
BIANCO_MANO_TARGET = bm_rules.CONTRACT_POINTS  # BM-10: 45


def _masks(deck: np.ndarray, n: int, size: int) -> np.ndarray:
    hands = np.zeros(n, np.uint32)
    for s in range(n):
        for c in deck[size * s:size * (s + 1)]:
            hands[s] |= np.uint32(1) << np.uint32(c)
    return hands


def manille_deals(count: int, rng: np.random.Generator) -> list[dd.Position]:
    """Whole Manille deals: random hands, trump over the 5 choices (MA-3), the dealer's right
    leads (MA-5), the dealer's team (the taking team) is side 0."""
    points = np.array([ma_rules.card_points(c) for c in range(32)], np.int64)
    out = []
    for _ in range(count):
        hands = _masks(rng.permutation(32), 4, ma_rules.HAND_SIZE)
        dealer, trump = int(rng.integers(4)), int(rng.integers(5))
        team = (0, 1, 0, 1) if dealer % 2 == 0 else (1, 0, 1, 0)
        out.append(dd.position(hands[None], (dealer - 1) % 4, SUIT_MASK[trump],
                               ma_rules.duties(trump), card_points=points, team=team,
                               trick_points=ma_rules.TRICK_POINT,
                               direction=dd.COUNTER_CLOCKWISE))
    return out


def bianco_mano_deals(count: int, rng: np.random.Generator) -> list[dd.Position]:
    """Whole 4-player Bianco Mano deals: 8 random cards each, random dominant, seat 0 (the
    taker) leads, seats 0 & 2 (side 0) against 1 & 3 (BM-5)."""
    out = []
    for _ in range(count):
        hands = _masks(rng.permutation(32), 4, bm_rules.HAND_SIZE[4])
        dominant = int(rng.integers(4))
        points = np.array([bm_rules.card_points(c, dominant) for c in range(32)], np.int64)
        out.append(dd.position(hands[None], 0, SUIT_MASK[dominant], bm_engine.DUTIES,
                               card_points=points, team=(0, 1, 0, 1), trick_points=0,
                               direction=dd.CLOCKWISE))
    return out


def one_at_a_time(positions, target=None) -> tuple[np.ndarray, int, np.ndarray]:
    """CPU seconds of each ``solve`` call, nodes searched in all, the answers.

    The first position is solved once untimed: a batch of a new shape or layout loads its
    compiled specialisation from numba's cache on its first call (milliseconds, which the
    500 positions of the baseline would otherwise count as search)."""
    dd.solve(positions[0], target=target)
    seconds = np.empty(len(positions))
    answers = np.empty(len(positions), np.int64)
    nodes = dd.nodes_searched()
    for i, pos in enumerate(positions):
        start = time.process_time()
        answers[i] = dd.solve(pos, target=target)[0]
        seconds[i] = time.process_time() - start
    return seconds, dd.nodes_searched() - nodes, answers


def deal_line(label: str, seconds: np.ndarray, nodes: int) -> str:
    med, p99 = np.percentile(seconds, [50, 99])
    return (f"  {label:<28} {len(seconds) / seconds.sum():>8,.1f} deals/s   median "
            f"{1e3 * med:7.2f} ms   p99 {1e3 * p99:8.1f} ms   max {1e3 * seconds.max():8.1f} ms"
            f"   {nodes / len(seconds):>11,.0f} nodes/deal ({nodes / seconds.sum():,.0f}/s)")


def bench_deals(title: str, positions, target: int) -> None:
    print(f"{title}: {len(positions):,} deals, one solve() call each")
    seconds, nodes, values = one_at_a_time(positions)
    print(deal_line("exact value", seconds, nodes))
    t_seconds, t_nodes, made = one_at_a_time(positions, target)
    print(deal_line(f"target={target}", t_seconds, t_nodes))
    if not np.array_equal(made.astype(bool), values >= target):
        print("  MISMATCH: target answers differ from the exact values")
    print(f"  side 0 value: mean {values.mean():.2f}, reaches {target} in "
          f"{100 * (values >= target).mean():.1f}% of deals; exact / target time: "
          f"{seconds.sum() / t_seconds.sum():.2f}x")


def bench_baseline(count: int, seed: int) -> None:
    print(f"Baseline, {count:,} positions per game with 3 tricks left (start of the 6th "
          "trick, random legal play before): positions/s, one at a time")
    for label, game, players in (("Manille", MANILLE, None),
                                 ("Bianco Mano 4 players", BIANCO_MANO, 4)):
        spots = random_spots(game, count, seed, players=players, exact=(3, 0))
        start = time.process_time()
        ref = [minimax(s) for s in spots]
        plain = count / (time.process_time() - start)
        positions = [solver_position([s]) for s in spots]
        seconds, _, got = one_at_a_time(positions)
        solver = count / seconds.sum()
        agree = "agree" if list(got) == ref else "DISAGREE"
        print(f"  {label:<22} plain minimax {plain:>9,.0f}/s   solver {solver:>9,.0f}/s   "
              f"solver / minimax {solver / plain:6.1f}x   (values {agree})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2_000, help="whole deals per game")
    parser.add_argument("--baseline", type=int, default=500,
                        help="positions with 3 tricks left per game for the minimax baseline")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.deals, args.baseline) < 1:
        parser.error("--deals and --baseline must be positive")
    print(f"Double-dummy solver, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, {os.cpu_count()} cores (figures per core, "
          f"CPU time), seed {args.seed}")
    print(f"compiled code, first call in this process (on-disk cache): "
          f"{dd.warm_up():.2f} s")
    rng = np.random.default_rng(args.seed)
    bench_deals("Manille coincée (trump over 4 suits + sans atout, taking team = side 0)",
                manille_deals(args.deals, rng), MANILLE_TARGET)
    bench_deals("Bianco Mano, 4 players (random dominant, seat 0 leads, 0 & 2 vs 1 & 3)",
                bianco_mano_deals(args.deals, rng), BIANCO_MANO_TARGET)
    bench_baseline(args.baseline, args.seed + 1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
