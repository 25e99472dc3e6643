"""Bango laying solver (BG-6, BG-8): the best legal arrangement of a whole hand, exactly.

Laying places *all* hand cards: each coloured card starts or extends one of
the player's sequences or goes to his personal discard; black cards always go
to the personal discard (BG-6). Unless ``free_discard``, placement is
compulsory: after the lay no discarded card of this lay may fit at either end
of any of his sequences (new ones included), and while fewer than 3
sequences are opened (this lay's count) no two discarded cards may hold
consecutive values. At most 3 sequences in a game; two sequences may hold the
same values; one sequence never holds a value twice.

Objective
---------
The solver maximises the player's BG-8 score *after the lay, as if the game
ended now*: sequence cards + colour bonuses of all his sequences, minus his
personal discards. Earlier discards are a constant, so this is the same as
maximising the lay's **gain**::

    gain = points(board after) - points(board before) - cards discarded now
         = 2 * placed - hand size + sum(bonus after) - sum(bonus before)

(``points`` = cards + colour bonus per sequence, BG-8). The colour bonus is a
property of the whole sequence, old cards included, so one extra card can
*lower* it (a tie for the top colour); the solver accounts for that exactly.
Ties in gain are broken towards **fewer sequences opened** in this lay (a
slot kept free is an option kept for later; BG-6 allows 3 in a whole game),
then by the search order (deterministic).

A compulsory lay can be worse than sending the whole hand to the personal
discard (gain ``-hand size``); only BG-7's last lay and voluntary lays let a
player decline, and that choice is the caller's: compare ``gain`` with
``-hand size``.

Encoding (see :mod:`simulators.bango.rules`)
--------------------------------------------
* ``hands``: (N, 55) counts per kind (0..2 coloured, 0..1 black).
* ``seq_mask``: (N, 3) uint16, slot ``s``'s values as bits (bit ``v - 1``),
  0 while the slot is not opened; slots are opened in order, so the player
  has opened ``(seq_mask != 0).sum(axis=1)`` sequences.
* ``seq_colours``: (N, 3, 4) counts of each colour in each slot.
* The result's ``placed``: (N, 3, 11) int8, ``placed[s, v - 1]`` the kind laid
  at value ``v`` of slot ``s`` in this lay, or -1 (new sequences take the
  first free slots, in order); every other hand card goes to the personal
  discard. This is the ``arrange`` action of :mod:`.observations`.

API
---
``best_lays(hands, seq_mask, seq_colours, free_discard=False)``
    :class:`LayResult` of a batch: the best legal lay per row (compiled).
``best_lay(cards, sequences, free_discard=False)``
    one hand in the referee's conventions (lists of kinds): ``(lay, gain)``.
``enumerate_lays(cards, sequences, free_discard=False)``
    every legal arrangement with its gain, plain Python (the brute force the
    tests and the referee's cross-checks compare with; exponential).
``lay_gain(cards, sequences, lay)``, ``board_of(sequences)``,
``placed_to_lay(placed)``, ``lay_to_placed(lay)``: conversions and scoring.
``warm_up()``: compile (or load from numba's cache) the kernel; seconds spent.

Algorithm
---------
See :mod:`simulators.bango._laying_kernel`. The value level decides
legality: a *structure* gives each slot its final interval; the cards it
places, the values left over (hand count above demand) and so compliance
follow from values alone. Structures are enumerated (at most 3 slots, each an
interval), ordered by an upper bound on the objective, and the colour
assignment of the best candidates is solved exactly by branch and bound over
values; the search stops when the bound falls below the best found.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np

from simulators.bango import rules as R
from simulators.core.jit import jit_once

Lay = R.Lay
N_SLOTS = R.MAX_SEQUENCES
FULL = (1 << R.N_VALUES) - 1


class LayResult(NamedTuple):
    """The best legal lay of each row (BG-6) and what it is worth (BG-8).

    Attributes
    ----------
    placed : (N, 3, 11) int8, the kind laid at value ``v`` of slot ``s``
        (``placed[:, s, v - 1]``) in this lay, or -1.
    gain : (N,) int32, change of the player's score: points of his sequences
        after minus before, minus the cards sent to the personal discard.
    discards : (N,) int16, hand cards sent to the personal discard (black
        cards included).
    opened : (N,) int8, sequences opened by this lay.
    """

    placed: np.ndarray
    gain: np.ndarray
    discards: np.ndarray
    opened: np.ndarray


# ---------------------------------------------------------------------------
# Plain-Python rules (the reference; independent of the compiled kernel)
# ---------------------------------------------------------------------------


def colour_bonus(colour_counts: Sequence[int]) -> int:
    """BG-8 bonus of one sequence from its 4 colour counts.

    The top count held by exactly one colour: a tie for the top count passes
    to the next lower count, and so on; no such count, no bonus.
    """
    present = [c for c in colour_counts if c > 0]
    unique = [c for c in present if present.count(c) == 1]
    return max(unique, default=0)


def _colours(cards: Sequence[int]) -> list[int]:
    counts = [0] * R.N_COLOURS
    for k in cards:
        counts[R.colour_of(k)] += 1
    return counts


def _points(cards: Sequence[int]) -> int:
    return len(cards) + colour_bonus(_colours(cards)) if cards else 0


def _compliant(after: Sequence[Sequence[int]], discards: Sequence[int]) -> bool:
    """BG-6 compulsory placement, judged on the sequences after the lay."""
    values = sorted({R.value_of(k) for k in discards if not R.is_black(k)})
    for seq in after:
        if seq:
            vals = [R.value_of(k) for k in seq]
            if min(vals) - 1 in values or max(vals) + 1 in values:
                return False
    opened = sum(1 for seq in after if seq)
    return opened >= N_SLOTS or not any(v + 1 in values for v in values)


def _additions(hand: Counter, seq: Sequence[int]) -> Iterator[list[int]]:
    """Every list of hand kinds that extends ``seq`` (or opens a sequence if empty).

    One card per new value, chosen among the distinct kinds held (copies are
    interchangeable); the empty addition first.
    """
    held: dict[int, list[int]] = {v: [] for v in range(R.N_VALUES + 2)}  # 0, 12: none
    for k in sorted(hand):
        if hand[k] > 0 and not R.is_black(k):
            held[R.value_of(k)].append(k)
    if seq:
        vals = [R.value_of(k) for k in seq]
        lo, hi = min(vals), max(vals)
        lows = [lo]
        while held[lows[-1] - 1]:
            lows.append(lows[-1] - 1)
        highs = [hi]
        while held[highs[-1] + 1]:
            highs.append(highs[-1] + 1)
        intervals = [list(range(a, lo)) + list(range(hi + 1, b + 1)) for a in lows for b in highs]
    else:
        intervals = [[]]
        for a in range(1, R.N_VALUES + 1):
            b = a
            while held[b] and held[b + 1]:
                b += 1
                intervals.append(list(range(a, b + 1)))
    for values in intervals:
        yield from (list(choice) for choice in _product([held[v] for v in values]))


def _product(options: list[list[int]]) -> Iterator[tuple[int, ...]]:
    if not options:
        yield ()
        return
    for first in options[0]:
        for rest in _product(options[1:]):
            yield (first,) + rest


def enumerate_lays(cards: Sequence[int], sequences: Sequence[Sequence[int]],
                   free_discard: bool = False) -> list[tuple[Lay, int]]:
    """Every legal lay of ``cards`` onto ``sequences`` with its gain (BG-6, BG-8), brute force.

    Plain Python, exponential: slot by slot, every way to extend an opened
    sequence or open a new one (every interval, every choice of colour per
    value among the kinds held), the rest discarded; kept if compliant.
    Distinct up to identical copies; new sequences in every order. Meant for
    tests and cross-checks on small hands.

    Parameters
    ----------
    cards : the hand, kinds (0..54).
    sequences : the player's opened sequences, each a list of kinds, in the
        order opened (at most 3).
    free_discard : lift the compulsory placement (BG-6 option).

    Returns
    -------
    ``[(lay, gain), ...]``, ``lay`` as ``(kind, slot)`` pairs (see
    :data:`simulators.bango.rules.Lay`).
    """
    seqs = [list(s) for s in sequences]
    before = sum(_points(s) for s in seqs)
    out: list[tuple[Lay, int]] = []

    def finish(hand: Counter, after: list[list[int]], lay: list[tuple[int, int]]) -> None:
        discards = list(hand.elements())
        if free_discard or _compliant(after, discards):
            gain = sum(_points(s) for s in after) - before - len(discards)
            out.append((tuple(lay), gain))

    def walk(slot: int, hand: Counter, after: list[list[int]], lay: list[tuple[int, int]]):
        if slot == N_SLOTS:
            finish(hand, after, lay)
            return
        new = slot >= len(seqs)
        for add in _additions(hand, after[slot]):
            if new and not add:  # no new sequence here, so none in the later slots
                finish(hand, after, lay)
                continue
            grown = after[:slot] + [after[slot] + add] + after[slot + 1:]
            walk(slot + 1, hand - Counter(add), grown, lay + [(k, slot) for k in add])

    walk(0, Counter(cards), seqs + [[] for _ in range(N_SLOTS - len(seqs))], [])
    return out


def lay_gain(cards: Sequence[int], sequences: Sequence[Sequence[int]], lay: Lay) -> int:
    """Gain of a lay (not checked for legality): points after - before - discards (BG-8)."""
    after = [list(s) for s in sequences] + [[] for _ in range(N_SLOTS - len(sequences))]
    left = Counter(cards)
    for k, slot in lay:
        after[slot].append(k)
        left[k] -= 1
    return (sum(_points(s) for s in after) - sum(_points(s) for s in sequences)
            - sum(left.values()))


def board_of(sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """``(seq_mask (3,) uint16, seq_colours (3, 4) int8)`` of sequences given as lists of kinds."""
    if len(sequences) > N_SLOTS:
        raise ValueError(f"a player has at most {N_SLOTS} sequences, got {len(sequences)}")
    mask = np.zeros(N_SLOTS, np.uint16)
    colours = np.zeros((N_SLOTS, R.N_COLOURS), np.int8)
    for s, seq in enumerate(sequences):
        for k in seq:
            mask[s] |= 1 << (R.value_of(k) - 1)
            colours[s, R.colour_of(k)] += 1
    return mask, colours


def placed_to_lay(placed: np.ndarray) -> Lay:
    """A (3, 11) ``placed`` table as ``(kind, slot)`` pairs."""
    p = np.asarray(placed)
    return tuple((int(p[s, v]), s) for s in range(N_SLOTS) for v in range(R.N_VALUES)
                 if p[s, v] >= 0)


def lay_to_placed(lay: Lay) -> np.ndarray:
    """``(kind, slot)`` pairs as a (3, 11) int8 ``placed`` table."""
    placed = np.full((N_SLOTS, R.N_VALUES), -1, np.int8)
    for k, slot in lay:
        placed[slot, R.value_of(k) - 1] = k
    return placed


# ---------------------------------------------------------------------------
# The compiled solver
# ---------------------------------------------------------------------------


def _prepare(hands, seq_mask, seq_colours):
    """Validated contiguous arrays; a single row is promoted to a batch of one."""
    h = np.asarray(hands)
    single = h.ndim == 1
    m = np.asarray(seq_mask)
    c = np.asarray(seq_colours)
    if single:
        h, m, c = h[None], m[None], c[None]
    if h.ndim != 2 or h.shape[1] != R.N_KINDS:
        raise ValueError(f"hands must have shape (N, {R.N_KINDS}) (counts per kind), "
                         f"got {h.shape}")
    n = h.shape[0]
    if m.shape != (n, N_SLOTS):
        raise ValueError(f"seq_mask must have shape ({n}, {N_SLOTS}), got {m.shape}")
    if c.shape != (n, N_SLOTS, R.N_COLOURS):
        raise ValueError(f"seq_colours must have shape ({n}, {N_SLOTS}, {R.N_COLOURS}), "
                         f"got {c.shape}")
    for name, a in (("hands", h), ("seq_mask", m), ("seq_colours", c)):
        if a.dtype.kind not in "iub":
            raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
    # element-wise tests, one flat any(): the row is located only on failure (the solver is
    # asked on every lay of a batch, and reductions over short axes cost more than the tests)
    over = h > R.KIND_COPIES[None, :]
    if h.dtype.kind == "i":
        over |= h < 0
    if over.any():
        raise ValueError(f"hand {int(np.flatnonzero(over.any(axis=1))[0])}: counts must be 0..2 "
                         "per coloured kind and 0..1 per black kind")
    mi = m.astype(np.int64)
    low = mi & -mi
    length = np.bitwise_count(mi)
    ci = c.astype(np.int64)
    opened = mi != 0
    bad_slot = (((mi & (mi + low)) != 0) | (mi < 0) | (mi > FULL)
                | (ci[..., 0] < 0) | (ci[..., 1] < 0) | (ci[..., 2] < 0) | (ci[..., 3] < 0)
                | (ci[..., 0] + ci[..., 1] + ci[..., 2] + ci[..., 3] != length)
                | (opened & (length < R.MIN_OPEN)))
    bad_slot[:, 1:] |= opened[:, 1:] & ~opened[:, :-1]  # opened after a free slot
    if bad_slot.any():
        i = int(np.flatnonzero(bad_slot.any(axis=1))[0])
        raise ValueError(f"board {i} is not a Bango board: slots must be opened in order, each "
                         f"2+ consecutive values with colour counts summing to its length "
                         f"(seq_mask {m[i].tolist()}, seq_colours {c[i].tolist()})")
    return (np.ascontiguousarray(h, np.uint8), np.ascontiguousarray(m, np.uint16),
            np.ascontiguousarray(c, np.int8), single)


def _kernels():
    """The kernel module, its functions jitted once per process (numba, ``cache=True``).

    Importing :mod:`.laying` does not import numba.
    """
    from simulators.bango import _laying_kernel as K

    jit_once(vars(K), K.KERNEL_NAMES)  # callees first
    return K


def best_lays(hands, seq_mask, seq_colours, free_discard: bool = False) -> LayResult:
    """The best legal lay of every row (BG-6), by BG-8 score; exact.

    Parameters
    ----------
    hands : (N, 55) counts per kind, or one hand (55,).
    seq_mask : (N, 3) value bitmasks of the player's sequences (or (3,)).
    seq_colours : (N, 3, 4) colour counts of his sequences (or (3, 4)).
    free_discard : lift the compulsory placement (BG-6 option).

    Returns
    -------
    :class:`LayResult` (arrays keep the batch axis; a single row gives N = 1).
    Maximal ``gain``; among equal gains, fewest sequences opened.
    """
    kernel = _kernels()
    h, m, c, _ = _prepare(hands, seq_mask, seq_colours)
    n = h.shape[0]
    placed = np.full((n, N_SLOTS, R.N_VALUES), -1, np.int8)
    gain = np.zeros(n, np.int32)
    discards = np.zeros(n, np.int16)
    opened = np.zeros(n, np.int8)
    kernel._k_solve_batch(h, m, c, bool(free_discard), placed, gain, discards, opened)
    return LayResult(placed, gain, discards, opened)


def best_lay(cards: Sequence[int], sequences: Sequence[Sequence[int]],
             free_discard: bool = False) -> tuple[Lay, int]:
    """One hand in the referee's conventions: the best legal lay and its gain."""
    mask, colours = board_of(sequences)
    res = best_lays(R.hand_counts(cards) if len(cards) else np.zeros(R.N_KINDS, np.uint8),
                    mask, colours, free_discard)
    return placed_to_lay(res.placed[0]), int(res.gain[0])


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernel; seconds spent."""
    start = time.perf_counter()
    hand = R.hand_counts(R.parse_cards("3B 4B 5V 7R 8R 2K"))
    mask, colours = board_of([R.parse_cards("5B 6B")])
    best_lays(hand, mask, colours)
    best_lays(hand, mask, colours, free_discard=True)
    return time.perf_counter() - start
