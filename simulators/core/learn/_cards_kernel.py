"""Compiled kernel of the trick games' card blocks (:func:`.cards.write_card_blocks`).

One pass per row writes, in the row's canonical suit order, the 0/1 card columns that
the games' numpy definitions (``card_features_by_numpy`` in Manille's and Bianco Mano's
``learn.py``: their ``_card_blocks`` then :func:`.cards.canonical_blocks`) write, bit for
bit. The nets ask for features on batches of a few thousand rows, where the numpy
version's index arithmetic over every (trick, seat) cell and its copies, not the ones it
writes, are the cost (40% of a Bianco Mano deal with ``net`` at every seat).

Plain numba-compilable Python, jitted by :func:`.cards.write_card_blocks` (``cache=True``).
"""

from __future__ import annotations

N_CARDS = 32


def _write_mask(out, row, slot, canon, bits):
    for card in range(N_CARDS):
        if (bits >> card) & 1:
            out[row, slot * N_CARDS + canon[card]] = 1.0


def _k_card_blocks(out, canonical, trump, masks, mask_slots, cards, card_slots, plays,
                   leaders, seat, trick, n_seats, step, played_at, trick_at):
    """``out`` (B, F) float32 zeros: for each row, each mask's cards in its slot, each single
    card (``-1``: none) in its slot, and every card shown so far (tricks up to ``trick``,
    with a leader) in slot ``played_at + relation``, the trick in progress's cards of the
    other seats also in ``trick_at + relation``; ``relation = (leader + step * place -
    seat) mod n_seats``, the player's own 0 (``step`` is the seat numbers' way round)."""
    for row in range(out.shape[0]):
        canon = canonical[trump[row]]
        for k in range(masks.shape[1]):
            _write_mask(out, row, mask_slots[k], canon, masks[row, k])
        for k in range(cards.shape[1]):
            if cards[row, k] >= 0:
                out[row, card_slots[k] * N_CARDS + canon[cards[row, k]]] = 1.0
        for t in range(min(trick[row] + 1, plays.shape[1])):
            leader = leaders[row, t]
            if leader < 0:
                continue
            for place in range(plays.shape[2]):
                card = plays[row, t, place]
                if card < 0:
                    continue
                relation = (leader + step * place - seat[row]) % n_seats[row]
                column = canon[card]
                out[row, (played_at + relation) * N_CARDS + column] = 1.0
                if t == trick[row] and relation > 0:
                    out[row, (trick_at + relation) * N_CARDS + column] = 1.0


KERNEL_NAMES = ("_write_mask", "_k_card_blocks")
