"""What a Bango policy sees at each decision: one observation type, batches of arrays.

A policy is any object with the methods below; each receives a
:class:`BangoObs` whose array fields have the batch as leading axis (only the
rows that face this decision) and returns one action per row. Cards are kinds
(see :mod:`simulators.bango.rules`); hands are (N, 55) uint8 count vectors.

===================  =====================================================
method               returns (per row)
===================  =====================================================
``bango(obs)``       int8 hand kind played to destroy ``obs.revealed``, the
                     card just revealed (BG-5), or -1. Asked only where the
                     hand holds a card of that value.
``draw_on(obs)``     bool: reveal another card (BG-3). Asked when the
                     player may choose (not after an explosion, not on the
                     last card of the deck, not with an empty centre).
``take(obs)``        uint16 bitmask over centre positions 0..11: the cards
                     taken on a stop, at least one (BG-3).
``spoil(obs)``       ``(position, hand_kind)``: after an explosion, the
                     opponent ``obs.seat`` picks centre card ``position`` and
                     takes it (``hand_kind == -1``) or destroys it with that
                     hand card of the same value (BG-4, BG-5).
``destroy(obs)``     int8 hand kind destroying centre card ``obs.position``
                     at the end of an explosion (BG-5), or -1 to take it.
``lay(obs)``         bool: lay now (BG-6; BG-7's last lay when ``obs.final``).
                     Not asked when the lay is compulsory (``obs.forced``).
``arrange(obs)``     (N, 3, 11) int8 ``placed[s, v - 1]``: the kind laid at
                     value ``v`` of sequence slot ``s``, or -1 (see
                     :mod:`simulators.bango.rules`); the other hand cards go
                     to the personal discard. Must obey BG-6.
===================  =====================================================

Optionally a policy may implement ``lay_with_plan(obs)`` returning ``(lay,
placed)``: the lay decision and, where it lays, the arrangement (a policy
that weighed the lay already knows it). When every policy at the table has
it, the engine calls it instead of ``lay`` and skips ``arrange`` for those
rows; the arrangement is still checked.

The engine checks every action and raises ``IllegalAction`` on a bad one.
``noise`` is a float32 array of uniforms when the policy sets
``uses_noise = True``, else ``None``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulators.bango import rules as R

POLICY_METHODS = ("bango", "draw_on", "take", "spoil", "destroy", "lay", "arrange")
"""The decision methods every policy has (the table above), in the order of a game."""

CENTRE_SIZE = 12  # at most 11 distinct values, plus the card that explodes


class BangoObs(NamedTuple):
    """One decision's view of the table, for the player ``seat`` who decides.

    ``hand`` is his hand; ``centre`` (N, 12) the revealed cards in order
    (-1 past ``centre_len``); ``revealed`` the card just revealed (-1 outside
    drawing) and ``exploded`` whether it explodes; ``position`` the centre
    position asked about by ``destroy`` (-1 otherwise). ``seq_mask`` (N, n, 3)
    uint16 holds every player's sequences as value bitmasks (bit v-1) and
    ``seq_colours`` (N, n, 3, 4) their colour counts; ``n_open`` (N, n) how
    many each has opened. ``public`` (N, 55) counts the face-up cards out of
    play (common discard, every personal discard, every sequence). The active
    player is ``active``; ``forced`` marks a compulsory lay, ``final`` the
    last lay of BG-7. ``hand_sizes`` (N, n) is every player's hand size.
    ``known`` (N, n, 55) int16, given only to a table with a policy that sets
    ``wants_known = True`` (else None, so the simulators pay nothing for it):
    the cards each player took face up and still holds (BG-3, BG-4: every card
    taken after the deal is taken face up, so the whole table has seen them).
    """

    seat: np.ndarray
    active: np.ndarray
    hand: np.ndarray
    centre: np.ndarray
    centre_len: np.ndarray
    revealed: np.ndarray
    exploded: np.ndarray
    position: np.ndarray
    seq_mask: np.ndarray
    seq_colours: np.ndarray
    n_open: np.ndarray
    public: np.ndarray
    hand_sizes: np.ndarray
    stock_left: np.ndarray
    forced: np.ndarray
    final: bool
    n_players: int
    free_discard: bool
    noise: np.ndarray | None
    world: object | None = None
    known: np.ndarray | None = None

    def own(self, array: np.ndarray) -> np.ndarray:
        """The deciding player's slice of a per-player (N, n, ...) array."""
        k, n = array.shape[:2]
        flat = array.reshape(k * n, *array.shape[2:])
        return flat.take(np.arange(k) * n + self.seat, axis=0)


def centre_counts(centre: np.ndarray) -> np.ndarray:
    """(N, 55) counts of the cards in the centre (-1 entries ignored)."""
    n_rows = len(centre)
    flat = (np.arange(n_rows)[:, None] * (R.N_KINDS + 1) + (centre.astype(np.int64) + 1)).ravel()
    counts = np.bincount(flat, minlength=n_rows * (R.N_KINDS + 1)).reshape(n_rows, -1)
    return counts[:, 1:]


def unseen_counts(obs: BangoObs) -> np.ndarray:
    """(N, 55) cards the deciding player cannot see: the deck, removed cards, other hands."""
    return (R.KIND_COPIES[None, :].astype(np.int16) - obs.hand - obs.public
            - centre_counts(obs.centre))


def per_value(counts: np.ndarray) -> np.ndarray:
    """(N, 11) card counts per value 1..11 of (N, 55) kind counts (colours and black summed)."""
    c = counts.astype(np.int16)
    v = R.N_VALUES
    return c[:, :v] + c[:, v:2 * v] + c[:, 2 * v:3 * v] + c[:, 3 * v:4 * v] + c[:, 4 * v:]


KIND_BIT = np.concatenate([[0], 1 << (R.KIND_VALUE.astype(np.int32) - 1)]).astype(np.int32)


def centre_mask(centre: np.ndarray) -> np.ndarray:
    """(N,) int32 bitmask of the values in the centre (bit v-1 for value v)."""
    bits = KIND_BIT[centre.astype(np.int64) + 1]
    mask = bits[:, 0].copy()
    for j in range(1, bits.shape[1]):
        mask |= bits[:, j]
    return mask


def centre_values(centre: np.ndarray) -> np.ndarray:
    """(N, 11) bool: the values present in the centre."""
    return ((centre_mask(centre)[:, None] >> np.arange(R.N_VALUES)) & 1).astype(bool)


def explosion_probability(obs: BangoObs) -> np.ndarray:
    """Exact probability that the next card revealed explodes, from the cards the player sees.

    Every unseen card is equally likely to be the next card of the deck
    (removed cards and opponents' hands are as unknown as the deck), so the
    chance is the share of unseen cards whose value is already in the centre.
    """
    in_centre = centre_values(obs.centre)
    # each value has 9 cards: 4 colours x 2 copies + 1 black (BG-1)
    unseen = (R.N_COLOURS * R.COLOURED_COPIES + 1 - per_value(obs.hand) - per_value(obs.public)
              - in_centre)
    hit = (unseen * in_centre).sum(axis=1)
    total = unseen.sum(axis=1)
    return np.where(total > 0, hit / np.maximum(total, 1), 0.0)


def situation(hand: str = "", centre: str = "", sequences=(), seen: str = "",
              n_players: int = 4, stock_left: int = 40) -> BangoObs:
    """A one-row observation of a draw decision written in card notation (for what-ifs).

    ``hand`` and ``centre`` (in reveal order) are the deciding player's hand
    and the revealed cards; ``sequences`` his sequences, one string each;
    ``seen`` every other face-up card out of play (common discard, personal
    discards, other players' sequences). The player is seat 0 and active.
    """
    cen = np.full((1, CENTRE_SIZE), -1, dtype=np.int8)
    cards = R.parse_cards(centre)
    if len(cards) > CENTRE_SIZE:
        raise ValueError(f"centre: at most {CENTRE_SIZE} cards, got {len(cards)}")
    cen[0, :len(cards)] = cards
    if len(sequences) > R.MAX_SEQUENCES:
        raise ValueError(f"sequences: at most {R.MAX_SEQUENCES}, got {len(sequences)}")
    mask = np.zeros((1, n_players, R.MAX_SEQUENCES), dtype=np.uint16)
    colours = np.zeros((1, n_players, R.MAX_SEQUENCES, R.N_COLOURS), dtype=np.int8)
    laid = []
    for s, text in enumerate(sequences):
        seq = R.parse_sequence(text)  # BG-6: consecutive distinct values, no black card
        laid += seq
        for c in seq:
            mask[0, 0, s] |= 1 << (R.value_of(c) - 1)
            colours[0, 0, s, R.colour_of(c)] += 1
    held = R.parse_cards(hand)
    public = R.parse_cards(seen) + laid
    R.parse_cards(R.format_cards(held + cards + public))  # no card more often than the deck has
    zero = np.zeros(1, dtype=np.int8)
    return BangoObs(
        seat=zero, active=zero, hand=R.hand_counts(held)[None, :], centre=cen,
        centre_len=np.array([len(cards)]), revealed=np.array([cards[-1] if cards else -1]),
        exploded=np.zeros(1, bool), position=np.array([-1]), seq_mask=mask, seq_colours=colours,
        n_open=np.array([[len(sequences)] + [0] * (n_players - 1)], dtype=np.int8),
        public=R.hand_counts(public)[None, :], hand_sizes=np.zeros((1, n_players), np.int16),
        stock_left=np.array([stock_left]), forced=np.zeros(1, bool), final=False,
        n_players=n_players, free_discard=False, noise=None)
