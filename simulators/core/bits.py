"""Bitmask helpers for hands of at most 32 cards, one bit per card.

Every function works elementwise on arrays of any shape (the leading axis is
usually the batch) and never loops in Python over the batch.
"""

from __future__ import annotations

import numpy as np

U32 = np.uint32
ONE = U32(1)
ZERO = U32(0)
FULL32 = U32(0xFFFFFFFF)


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


def _select_table() -> np.ndarray:
    table = np.full((256, 8), -1, dtype=np.int8)
    for byte in range(256):
        bits = [b for b in range(8) if byte >> b & 1]
        table[byte, : len(bits)] = bits
    return table


_SELECT_IN_BYTE = _select_table()


def select_bit(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the k-th (0-based, from the lowest) set bit of each mask.

    ``k`` must be below ``popcount(mask)`` for every element.
    """
    mask = np.asarray(mask, dtype=U32)
    k = np.asarray(k, dtype=np.int32)
    result = np.full(np.broadcast(mask, k).shape, -1, dtype=np.int32)
    remaining = k.copy() if k.shape == result.shape else np.broadcast_to(k, result.shape).copy()
    found = np.zeros(result.shape, dtype=bool)
    for byte_no in range(4):
        byte = ((mask >> U32(8 * byte_no)) & U32(0xFF)).astype(np.intp)
        count = np.bitwise_count(byte.astype(np.uint8)).astype(np.int32)
        here = ~found & (remaining < count)
        pos = _SELECT_IN_BYTE[byte, np.clip(remaining, 0, 7)].astype(np.int32) + 8 * byte_no
        result = np.where(here, pos, result)
        found |= here
        remaining = np.where(found, remaining, remaining - count)
    return result.astype(np.int8)


def random_bit(mask: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Index of a uniformly chosen set bit, driven by uniforms ``noise`` in [0, 1)."""
    n = np.bitwise_count(np.asarray(mask, dtype=U32)).astype(np.int32)
    k = np.minimum((noise * n).astype(np.int32), np.maximum(n - 1, 0))
    return select_bit(mask, k)
