"""Bitmask helpers for hands of at most 32 cards, one bit per card.

Every function works elementwise on arrays of any shape (the leading axis is
usually the batch) and never loops in Python over the batch.
"""

from __future__ import annotations

import numpy as np

U32 = np.uint32
ONE = U32(1)
ZERO = U32(0)


def card_bits(cards: np.ndarray) -> np.ndarray:
    """One-hot uint32 masks for card indices (0..31)."""
    return np.left_shift(ONE, np.asarray(cards).astype(U32))


def mask_of(cards) -> int:
    """Python int mask of an iterable of card indices."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """Card indices set in a Python int mask, ascending."""
    mask = int(mask)
    return [i for i in range(32) if mask >> i & 1]


def popcount(mask: np.ndarray) -> np.ndarray:
    """Number of cards in each mask."""
    return np.bitwise_count(mask)


def lowest_bit(mask: np.ndarray) -> np.ndarray:
    """Mask keeping only the lowest set bit (0 where the mask is empty)."""
    mask = np.asarray(mask, dtype=U32)
    # mask - 1 clears the lowest bit and sets those below it; 0 stays 0 (no uint32 wrap)
    return mask & ~(mask - (mask != 0).astype(U32))


def highest_bit(mask: np.ndarray) -> np.ndarray:
    """Mask keeping only the highest set bit (0 where the mask is empty)."""
    m = np.asarray(mask, dtype=U32).copy()
    for shift in (1, 2, 4, 8, 16):
        m |= m >> U32(shift)
    return m ^ (m >> ONE)


def prefer(*masks: np.ndarray) -> np.ndarray:
    """Each row's first non-empty mask among ``masks``, in order (the last one if all are empty)."""
    out = masks[-1]
    for m in reversed(masks[:-1]):
        out = np.where(m != 0, m, out)
    return out


def bit_index(onehot: np.ndarray) -> np.ndarray:
    """Index of the single set bit of each one-hot mask (-1 where empty), as int8."""
    onehot = np.asarray(onehot, dtype=U32)
    idx = np.bitwise_count(onehot - (onehot != 0).astype(U32)).astype(np.int8)  # no 0 - 1 wrap
    return np.where(onehot == 0, np.int8(-1), idx)


def select_bit(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the k-th (0-based, from the lowest) set bit of each mask.

    A binary search over halves of the word (16, 8, 4, 2, 1 bits), each step
    a popcount, written without branches (``np.where`` on unpredictable masks
    costs several times more): five rounds of plain uint32 arithmetic.
    ``k`` must be below ``popcount(mask)`` for every element.
    """
    window = np.asarray(mask, dtype=U32)
    k = np.asarray(k, dtype=U32)
    position = np.zeros(np.broadcast(window, k).shape, dtype=U32)
    for width in (16, 8, 4, 2, 1):
        keep = U32((1 << width) - 1)
        count = np.bitwise_count(window & keep).astype(U32)
        high = (k >= count).astype(U32)  # 1: the bit is in the upper half
        k = k - count * high
        shift = high * U32(width)
        window = (window >> shift) & keep
        position += shift
    return position.astype(np.int8)


def random_bit(mask: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Index of a uniformly chosen set bit, driven by uniforms ``noise`` in [0, 1)."""
    n = np.bitwise_count(np.asarray(mask, dtype=U32))
    k = (noise * n).astype(np.int32)  # noise < 1, so k < n (exact in float32 for n <= 32)
    return select_bit(mask, k)


# ------------------------------------------------------------------ scalar helpers for kernels
#
# One 32-bit mask at a time, written in numba's subset for compiled kernels: a
# kernel module imports them and compiles them inlined with its own kernels,
#
#     from simulators.core.bits import lowest_index32, popcount32
#     jit_once(globals(), KERNEL_NAMES, inline=("popcount32", "lowest_index32", ...))
#
# so this module never imports numba. They also run as plain Python on ints
# (the tests compare them with the array helpers above). Every step stays in
# range: masks are widened to uint64 where a product or a shift could pass 32
# bits, never left to wrap around.

_M1, _M2, _M4 = np.uint64(0x55555555), np.uint64(0x33333333), np.uint64(0x0F0F0F0F)
_LOW32 = np.uint64(0xFFFFFFFF)
# de Bruijn tables: the index of a one-hot (or smeared) 32-bit word in one multiply; no
# helper calls another (a compiled kernel could not see a plain-Python callee here)
_DEBRUIJN_LOW_KEY, _DEBRUIJN_HIGH_KEY = np.uint64(0x077CB531), np.uint64(0x07C4ACDD)
_DEBRUIJN_LOW = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8, 31, 27,
                          13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int8)
_DEBRUIJN_HIGH = np.array([0, 9, 1, 10, 13, 21, 2, 29, 11, 14, 16, 18, 22, 25, 3, 30, 8, 12,
                           20, 28, 15, 17, 24, 7, 19, 27, 23, 6, 26, 5, 4, 31], dtype=np.int8)


def popcount32(mask):
    """Number of set bits of a 32-bit mask (int64); bits above 31 are ignored."""
    m = np.uint64(mask) & _LOW32
    m = m - ((m >> np.uint64(1)) & _M1)
    m = (m & _M2) + ((m >> np.uint64(2)) & _M2)
    m = (m + (m >> np.uint64(4))) & _M4
    return np.int64(((m * np.uint64(0x01010101)) & _LOW32) >> np.uint64(24))


def lowest_bit32(mask):
    """The lowest set bit of a 32-bit mask as a uint32 mask (0 for an empty mask)."""
    m = np.uint64(mask) & _LOW32
    return np.uint32(m & ((m ^ _LOW32) + np.uint64(1)))


def lowest_index32(mask):
    """Index of the lowest set bit of a 32-bit mask (int64), -1 for an empty mask."""
    m = np.uint64(mask) & _LOW32
    if m == 0:
        return np.int64(-1)
    low = m & ((m ^ _LOW32) + np.uint64(1))  # the lowest bit alone
    return np.int64(_DEBRUIJN_LOW[((low * _DEBRUIJN_LOW_KEY) & _LOW32) >> np.uint64(27)])


def highest_index32(mask):
    """Index of the highest set bit of a 32-bit mask (int64), -1 for an empty mask."""
    m = np.uint64(mask) & _LOW32
    if m == 0:
        return np.int64(-1)
    m |= m >> np.uint64(1)  # smear the highest bit down: m = 2**(index + 1) - 1
    m |= m >> np.uint64(2)
    m |= m >> np.uint64(4)
    m |= m >> np.uint64(8)
    m |= m >> np.uint64(16)
    return np.int64(_DEBRUIJN_HIGH[((m * _DEBRUIJN_HIGH_KEY) & _LOW32) >> np.uint64(27)])


SCALAR_HELPERS = ("popcount32", "lowest_bit32", "lowest_index32", "highest_index32")
"""The scalar helpers, in the order a kernel module passes them to ``jit_once(inline=...)``."""
