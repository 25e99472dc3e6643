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
    return mask & (~mask + ONE)


def highest_bit(mask: np.ndarray) -> np.ndarray:
    """Mask keeping only the highest set bit (0 where the mask is empty)."""
    m = np.asarray(mask, dtype=U32).copy()
    for shift in (1, 2, 4, 8, 16):
        m |= m >> U32(shift)
    return m ^ (m >> ONE)


def bit_index(onehot: np.ndarray) -> np.ndarray:
    """Index of the single set bit of each one-hot mask (-1 where empty), as int8."""
    onehot = np.asarray(onehot, dtype=U32)
    idx = np.bitwise_count(onehot - ONE).astype(np.int8)
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
