"""Card features of the 32-card trick games (a card is ``4 * rank + suit``), for nets.

Suits are put in a canonical order before a net sees them: the trump suit first, the
others in their order (a deal without trump keeps the order), so the net learns one
suit's play, not four. :data:`CANONICAL` ``[t]`` maps a card to its canonical index
under trump ``t`` (0..3, or 4 for none); it is its own inverse (a swap of two suits).
"""

from __future__ import annotations

import numpy as np

N_CARDS = 32
_SUITS = np.arange(N_CARDS) % 4
_RANKS = np.arange(N_CARDS) // 4


def _swap(trump: int) -> np.ndarray:
    if trump >= 4:
        return np.arange(N_CARDS)
    suit = np.where(_SUITS == trump, 0, np.where(_SUITS == 0, trump, _SUITS))
    return 4 * _RANKS + suit


CANONICAL = np.stack([_swap(t) for t in range(5)])


def mask_bits(masks: np.ndarray) -> np.ndarray:
    """(B,) uint32 card masks as (B, 32) float32 0/1 columns."""
    m = np.asarray(masks).astype(np.int64)
    return ((m[:, None] >> np.arange(N_CARDS)) & 1).astype(np.float32)


def canonical(columns: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """(B, 32) card columns in each row's canonical suit order (``trump`` (B,) 0..4)."""
    return np.take_along_axis(columns, CANONICAL[np.asarray(trump, np.int64)], axis=1)


def canonical_blocks(blocks: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """(B, K, 32) card columns in each row's canonical suit order: :func:`canonical` for
    K columns at once. The canonical order swaps the trump suit with suit 0, so the rows
    of each trump swap two suit slices in place of a gather over every column (the gather
    was a quarter of the learned players' time)."""
    trump = np.asarray(trump, np.int64)
    out = np.array(blocks, copy=True)
    by_suit = out.reshape(out.shape[0], out.shape[1], 8, 4)
    source = np.asarray(blocks).reshape(by_suit.shape)
    for t in (1, 2, 3):
        rows = np.flatnonzero(trump == t)
        if len(rows):
            by_suit[rows, :, :, 0] = source[rows, :, :, t]
            by_suit[rows, :, :, t] = source[rows, :, :, 0]
    return out


def from_canonical(index: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """Canonical card indices (B,) back to the table's cards."""
    return CANONICAL[np.asarray(trump, np.int64), np.asarray(index, np.int64)]


def one_hot(values: np.ndarray, size: int) -> np.ndarray:
    """(B,) ints in 0..size-1 as (B, size) float32."""
    out = np.zeros((len(values), size), np.float32)
    out[np.arange(len(values)), np.asarray(values, np.int64)] = 1.0
    return out


_RANK_WEIGHT = 2 ** (7 - np.arange(8))  # rank 0 the strongest


def strength_order(hand: np.ndarray, first: np.ndarray | None = None) -> np.ndarray:
    """(B, 4) the table's suit at each place of a hand's own order: most cards first, then
    the stronger cards (rank 0 the strongest), then the lower suit; ``first`` (B,), when
    given, puts that suit first whatever it holds. A net that sees its hand so learns "my
    longest suit", not four suits."""
    held = mask_bits(np.asarray(hand, np.uint32)).reshape(len(hand), 8, 4)  # rank, suit
    key = held.sum(axis=1) * 256 + np.einsum("brs,r->bs", held, _RANK_WEIGHT)
    key = key * 4 + (3 - np.arange(4))
    if first is not None:
        key[np.arange(len(hand)), np.asarray(first, np.int64)] = 1 << 30
    return np.argsort(-key, axis=1, kind="stable")


def ordered_bits(mask: np.ndarray, order: np.ndarray) -> np.ndarray:
    """(B, 32) a card mask's bits with its suits in ``order`` (:func:`strength_order`)."""
    held = mask_bits(np.asarray(mask, np.uint32)).reshape(len(mask), 8, 4)
    return np.take_along_axis(held, order[:, None, :], axis=2).reshape(len(mask), 32)
