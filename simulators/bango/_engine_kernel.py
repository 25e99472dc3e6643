"""Compiled BG-6 check of the engine's lays; see :func:`simulators.bango.engine.lay_errors`.

The engine checks every arrangement a policy returns before placing it. The
numpy :func:`~simulators.bango.engine.lay_errors` is the readable statement
of the check; this kernel is the same check row by row (numba), which the
profile showed was most of the cost of a lay, and it also returns what
placing the arrangement adds to the board. Codes are those of ``lay_errors``
(the first breach in its order); the tests compare the two on legal and
illegal arrangements.

Plain numba-compilable Python, jitted by :func:`lay_check` (``cache=True``).
Kind ``k`` has value ``k % 11 + 1`` and colour ``k // 11`` (4: black), as in
:mod:`simulators.bango.rules`.
"""

from __future__ import annotations

import numpy as np

from simulators.core.bits import popcount32
from simulators.core.jit import jit_once

N_VALUES = 11
N_COLOURS = 4
N_COLOURED_KINDS = N_COLOURS * N_VALUES
N_KINDS = N_COLOURED_KINDS + N_VALUES
N_SLOTS = 3
MIN_OPEN = 2
FULL = (1 << N_VALUES) - 1
# each kind's value index and colour as tables: an integer % or // costs more than the rest
VALUE_INDEX_OF = np.arange(N_KINDS) % N_VALUES
COLOUR_OF = np.arange(N_KINDS) // N_VALUES


def _k_row_code(hand, mask, n_open, placed, free_discard, counts, added):
    """BG-6 breach code of one arrangement (0: legal); fills ``counts`` and ``added``."""
    for s in range(N_SLOTS):  # 1: a kind at the wrong value, or black
        for v in range(N_VALUES):
            k = placed[s, v]
            if k >= 0 and (k >= N_COLOURED_KINDS or VALUE_INDEX_OF[k] != v):
                return 1
    for s in range(N_SLOTS):  # 2: more cards than held
        a = 0
        for v in range(N_VALUES):
            k = placed[s, v]
            if k >= 0:
                counts[k] += 1
                a |= 1 << v
        added[s] = a
    for k in range(N_KINDS):
        if counts[k] > hand[k]:
            return 2
    after = np.zeros(N_SLOTS, np.int64)
    for s in range(N_SLOTS):  # 3: a value already in the sequence
        m = np.int64(mask[s])
        if added[s] & m:
            return 3
        after[s] = added[s] | m
    for s in range(N_SLOTS):  # 4: not consecutive
        m = after[s]
        if m & (m + (m & -m)):
            return 4
    for s in range(N_SLOTS):  # 5: a new sequence of one card
        if s >= n_open and added[s] != 0 and popcount32(added[s]) < MIN_OPEN:
            return 5
    for s in range(1, N_SLOTS):  # 6: a new sequence before an earlier slot
        if s >= n_open and added[s] != 0 and after[s - 1] == 0:
            return 6
    if free_discard:
        return 0
    discards = 0
    for c in range(N_COLOURS):
        for v in range(N_VALUES):
            k = c * N_VALUES + v
            if np.int64(hand[k]) - counts[k] > 0:
                discards |= 1 << v
    for s in range(N_SLOTS):  # 7: a discard extends a sequence
        m = after[s]
        if m != 0 and ((m << 1) | (m >> 1)) & ~m & FULL & discards:
            return 7
    n_after = 0
    for s in range(N_SLOTS):
        n_after += after[s] != 0
    if n_after < N_SLOTS and discards & (discards >> 1):  # 8: two discards could open one
        return 8
    return 0


def _k_lay_check(hands, seq_mask, n_open, placed, free_discard, code, added, colours, n_used):
    """Per row: the breach code, and the values, colour counts and cards a lay adds."""
    counts = np.zeros(N_KINDS, np.int64)
    row_added = np.zeros(N_SLOTS, np.int64)
    for i in range(hands.shape[0]):
        counts[:] = 0
        row_added[:] = 0
        code[i] = _k_row_code(hands[i], seq_mask[i], n_open[i], placed[i], free_discard,
                              counts, row_added)
        used = 0
        for s in range(N_SLOTS):
            added[i, s] = row_added[s]
            for v in range(N_VALUES):
                k = placed[i, s, v]
                if 0 <= k < N_COLOURED_KINDS:
                    colours[i, s, COLOUR_OF[k]] += 1
                    used += 1
        n_used[i] = used


KERNEL_NAMES = ("popcount32", "_k_row_code", "_k_lay_check")  # callees first


def _kernels() -> None:
    """Jit this module's kernels once per process (numba, ``cache=True``)."""
    jit_once(globals(), KERNEL_NAMES)


def lay_check(hands, seq_mask, n_open, placed, free_discard: bool):
    """BG-6 codes of arrangements (as :func:`~.engine.lay_errors`) and what each lay adds.

    Returns ``(code, added, colours, n_used)``: (N,) int8 codes, (N, 3) uint16
    value masks added to each slot, (N, 3, 4) int8 colour counts added, (N,)
    int32 cards placed. The last three are meaningful where ``code == 0``.
    """
    _kernels()
    n = len(hands)
    code = np.zeros(n, np.int8)
    added = np.zeros((n, N_SLOTS), np.uint16)
    colours = np.zeros((n, N_SLOTS, N_COLOURS), np.int8)
    n_used = np.zeros(n, np.int32)
    _k_lay_check(np.ascontiguousarray(hands, np.uint8), np.ascontiguousarray(seq_mask, np.uint16),
                 np.ascontiguousarray(n_open, np.int8), np.ascontiguousarray(placed, np.int8),
                 bool(free_discard), code, added, colours, n_used)
    return code, added, colours, n_used
