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


def _cards_kernel():
    """The card blocks' kernel module, jitted once per process (numba, ``cache=True``)."""
    from simulators.core.jit import jit_once
    from simulators.core.learn import _cards_kernel as K

    jit_once(vars(K), K.KERNEL_NAMES)
    return K


def write_card_blocks(out: np.ndarray, trump: np.ndarray, masks: dict[int, np.ndarray],
                      cards: dict[int, np.ndarray], plays: np.ndarray, leaders: np.ndarray,
                      seat: np.ndarray, trick: np.ndarray, n_seats: np.ndarray | int,
                      step: int, played_at: int, trick_at: int) -> None:
    """Write a trick game's card blocks into ``out`` ((B, F) float32 zeros; block ``k`` is
    columns ``32k..32k+31``), each row's suits in its canonical order (``trump`` (B,)
    0..4), in one compiled pass over the rows:

    - ``masks``: block -> (B,) card masks (the hand, the legal cards, the unseen cards);
    - ``cards``: block -> (B,) single cards, ``-1`` for none (the card holding the trick);
    - ``plays`` (B, T, S) the cards played at each trick's places (``-1``: none) and
      ``leaders`` (B, T) who led it (``-1``: not yet): every card shown up to trick
      ``trick`` (B,) goes to block ``played_at + relation``, the trick in progress's cards
      of the other seats also to ``trick_at + relation``, where ``relation = (leader +
      step * place - seat) mod n_seats`` (0 the player; ``step`` +1 where play goes up
      the seat numbers, -1 where it goes down).

    The games' numpy definitions (``card_features_by_numpy``) write the same bits."""
    b = len(out)
    _cards_kernel()._k_card_blocks(
        out, CANONICAL, _ints(trump, (b,)), _columns(masks, b), np.array(list(masks), np.int64),
        _columns(cards, b), np.array(list(cards), np.int64), _ints(plays, np.shape(plays)),
        _ints(leaders, np.shape(leaders)), _ints(seat, (b,)), _ints(trick, (b,)),
        _ints(n_seats, (b,)), int(step), int(played_at), int(trick_at))


def _ints(values, shape) -> np.ndarray:
    """``values`` as a contiguous int64 array of ``shape`` (a scalar broadcast)."""
    return np.ascontiguousarray(np.broadcast_to(np.asarray(values).astype(np.int64), shape))


def _columns(by_block: dict[int, np.ndarray], b: int) -> np.ndarray:
    """(B, K) int64: the K (B,) arrays of a block -> values dict, side by side."""
    return np.ascontiguousarray(
        np.stack([_ints(v, (b,)) for v in by_block.values()], axis=1).reshape(b, len(by_block)))


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
