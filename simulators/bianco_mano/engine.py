"""Bianco Mano vectorized batch engine (RULINGS BM-1..BM-12).

A batch of N deals advances in lockstep: the packets are dealt by one
compiled pass per distribution (``_engine_kernel.py``) and the bidding is
numpy over all rows, with hands as uint32 bitmasks (see ``rules.py`` for
the encoding), and the tricks are played by the shared trick-taking kernel
(:mod:`simulators.core.tricks`) under Bianco Mano's duty table
(:data:`DUTIES`, BM-8), one compiled step per card for every row. There is
no Python loop over deals; large batches are played in blocks of
:data:`BLOCK_ROWS` rows. What is Bianco Mano's stays here: the packets, the
bidding, the espion, the call and the hidden partner, the bonus, the score
and the gathering of the cards. Two entry points:

* :func:`simulate_deals` — independent deals, each from a freshly shuffled
  deck; deal ``i`` is dealt by seat ``i % n_players``.
* :func:`simulate_games` — whole games (BM-12) with the first dealer drawn
  (BM-2) and the deck carried from deal to deal, gathered and cut but never
  shuffled (BM-3), unless ``shuffle_every_deal``.

Every random number comes from :mod:`simulators.core.rng`: deal (or game) ``i``
gets the same deck, cuts and policy noise whatever the batch it is simulated
in. Decks, cuts and noise use separate streams, so two policies compared on
the same seed play the same deals (common random numbers).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import polars as pl

from simulators.bianco_mano import _engine_kernel as kernel
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.observations import (
    POLICY_METHODS,
    AnnounceObs,
    BidObs,
    CallObs,
    EspionObs,
    PacketObs,
    PlayObs,
)
from simulators.core import batches, bits, rng, tricks
from simulators.core.dispatch import IllegalAction as IllegalAction  # re-exported
from simulators.core.dispatch import SeatDispatch, reject
from simulators.core.params import check_count
from simulators.core.tables import enum_column

U32 = np.uint32
I8 = np.int8
ONE = U32(1)
ZERO = U32(0)

FAMILY_MASK = tricks.SUIT_MASK[:R.N_FAMILIES]  # the kernel's suits are BM-1's families
RANK_MASK = tricks.RANK_MASK
STRONGER = tricks.STRONGER  # STRONGER[c]: cards of c's family that beat c (BM-9)
# BONUS_MASK[f]: Garde du Corps and Chauffeur of family f (BM-11)
BONUS_MASK = np.array(
    [(1 << R.card(R.GARDE_DU_CORPS, f)) | (1 << R.card(R.CHAUFFEUR, f)) for f in range(4)],
    dtype=U32,
)
ALL_CARDS = U32(R.ALL_CARDS)

# BM-8: follow the led family; void, play a dominant card; a dominant card played
# into a trick holding one must beat the strongest if it can, else any dominant;
# no partner exception, no duty to beat a non-dominant card.
DUTIES = tricks.Obligations(follow=True, beat=tricks.Duty.NEVER, trump=tricks.Duty.ALWAYS,
                            overtrump=tricks.Duty.ALWAYS, undertrump=True)

# SEAT_OF_POSITION[n][dealer, j]: the seat at position j from the dealer's left (BM-4..BM-6)
SEAT_OF_POSITION = {n: ((np.arange(n)[:, None] + 1 + np.arange(n)) % n).astype(I8)
                    for n in R.PLAYER_COUNTS}
SAME_TEAM_4 = (np.arange(4)[:, None] - np.arange(4)) % 2 == 0  # BM-5: seats 0 & 2 vs 1 & 3

STREAM_SHUFFLE, STREAM_CUT, STREAM_NOISE, STREAM_DEALER_DRAW = 0, 1, 2, 3
BLOCK_ROWS = 16_384  # rows played at once (measured: larger blocks leave the CPU cache)


def mask_points(mask: np.ndarray, dominant: np.ndarray) -> np.ndarray:
    """Card points held in each mask when ``dominant`` is dominant (BM-1: doubled)."""
    mask = np.asarray(mask, dtype=U32)
    extra = tricks.mask_points(mask & FAMILY_MASK[dominant], R.BASE_POINTS)
    return tricks.mask_points(mask, R.BASE_POINTS) + extra * np.int16(R.DOMINANT_FACTOR - 1)


def _void_gather_order(n: int, first: int) -> np.ndarray:
    """Post-cut deck positions stacked after an all-pass (BM-3): hands, turned card, stock."""
    h1 = R.FIRST_DISTRIBUTION[n]
    second = h1 - first
    order: list[int] = []
    for j in range(n):
        order += list(range(first * j, first * j + first))
        order += list(range(n * first + second * j, n * first + second * j + second))
    order += list(range(n * h1, R.N_CARDS))
    return np.array(order, dtype=np.intp)


class Dispatch(SeatDispatch):
    """Routes each Bianco Mano decision to the policy of the acting seat."""

    def __init__(self, policies, n_players: int):
        super().__init__(policies, n_players, POLICY_METHODS, "Bianco Mano")



class DealArrays(NamedTuple):
    """Per-deal results and records of one batch, one row per deal.

    Absent values are -1 (no taker, no partner, no call).
    """

    dealer: np.ndarray
    deck: np.ndarray  # (N, 32) pre-cut deck, top first
    cut: np.ndarray
    first_packet: np.ndarray
    bids: np.ndarray  # (N, 2n), -1 where not asked
    turned_card: np.ndarray
    taker: np.ndarray
    bid_round: np.ndarray
    dominant: np.ndarray
    partner: np.ndarray
    called: np.ndarray
    espion: np.ndarray  # uint32 mask
    bonus_eligible: np.ndarray
    bonus: np.ndarray
    taker_bid_hand: np.ndarray  # first distribution + turned card
    taker_hand: np.ndarray  # all cards received, espion included
    plays: np.ndarray  # (N, tricks, n) in play order, -1 if void
    trick_winners: np.ndarray  # (N, tricks)
    side_points: np.ndarray
    side_tricks: np.ndarray
    outcome: np.ndarray
    deltas: np.ndarray  # (N, n)
    next_deck: np.ndarray | None  # (N, 32) pre-cut deck of the next deal (BM-3)


def play_batch(config: R.BiancoManoConfig, dispatch: Dispatch, deck: np.ndarray, cut: np.ndarray,
               dealer: np.ndarray, noise: np.ndarray | None, units: np.ndarray,
               gather: bool = False, first_packet: int | None = None,
               forced_bids: np.ndarray | None = None) -> DealArrays:
    """Play one deal per row from pre-cut decks; pure given its inputs.

    ``noise`` is (decisions, N) uniforms or None; ``units`` are the row ids
    used in error messages; ``gather`` also builds each next deck (BM-3);
    ``first_packet`` fixes the dealer's packet choice (constrained deals);
    ``forced_bids`` (N, 2n) int8, where not -1, is the bid made at that turn
    whatever the policy says (the learned bidder's teacher plays each option out).

    Rows are independent, so large batches are played in blocks of
    ``BLOCK_ROWS``: each block's working arrays stay in the CPU cache, and
    the peak memory beyond the results does not grow with the batch.
    """
    if len(deck) <= BLOCK_ROWS:
        return _play_block(config, dispatch, deck, cut, dealer, noise, units, gather,
                           first_packet, forced_bids)
    parts = []
    for start in range(0, len(deck), BLOCK_ROWS):
        block = slice(start, start + BLOCK_ROWS)
        parts.append(_play_block(config, dispatch, deck[block], cut[block], dealer[block],
                                 None if noise is None else noise[:, block], units[block],
                                 gather, first_packet,
                                 None if forced_bids is None else forced_bids[block]))
    return concatenate(parts)


def concatenate(parts: list[DealArrays]) -> DealArrays:
    """One DealArrays from several, rows in order."""
    return DealArrays(*(
        None if field[0] is None else np.concatenate(field) for field in zip(*parts, strict=True)
    ))


def _play_block(config, dispatch, deck, cut, dealer, noise, units, gather, first_packet,
                forced_bids=None):
    """:func:`play_batch` on one block of rows."""
    n = config.n_players
    n_rows = len(deck)
    n_tricks = R.HAND_SIZE[n]
    dealer = dealer.astype(I8)
    # BM-3: the top `cut` cards go to the bottom; the packets read the cut deck in place
    first, hand1, turned = _first_distribution(n, dispatch, deck, cut, dealer, noise, units,
                                               first_packet)
    seat_of_position = SEAT_OF_POSITION[n][dealer]
    bids, taker_pos, bid_round, dominant = _bidding(config, dispatch, hand1, turned, dealer,
                                                    seat_of_position, noise, units, forced_bids)

    out = {
        "taker": np.full(n_rows, -1, I8), "partner": np.full(n_rows, -1, I8),
        "called": np.full(n_rows, -1, I8), "espion": np.zeros(n_rows, U32),
        "bonus_eligible": np.zeros(n_rows, bool), "bonus": np.zeros(n_rows, bool),
        "taker_bid_hand": np.zeros(n_rows, U32), "taker_hand": np.zeros(n_rows, U32),
        "plays": np.full((n_rows, n_tricks, n), -1, I8),
        "trick_winners": np.full((n_rows, n_tricks), -1, I8),
        "side_points": np.zeros(n_rows, np.int16), "side_tricks": np.zeros(n_rows, I8),
        "outcome": np.full(n_rows, R.ALL_PASS, I8), "deltas": np.zeros((n_rows, n), I8),
    }
    next_deck = None
    if gather:
        next_deck = np.empty_like(deck)
        post = tricks.cut_decks(deck, cut)
        for size in R.FIRST_PACKET_CHOICES[n]:  # BM-3: after an all-pass, hands, turned, stock
            chosen = first == size
            next_deck[chosen] = post[chosen][:, _void_gather_order(n, size)]

    t = np.flatnonzero(taker_pos >= 0)
    if t.size:
        played = _play_taken(config, dispatch, units[t], deck[t], cut[t], hand1[t], taker_pos[t],
                             seat_of_position[t], turned[t], dominant[t], dealer[t],
                             None if noise is None else noise[:, t], gather)
        for key, value in played.items():
            if key == "next_deck":
                next_deck[t] = value
            else:
                out[key][t] = value

    return DealArrays(
        dealer=dealer, deck=deck, cut=cut.astype(I8), first_packet=first, bids=bids,
        turned_card=turned.astype(I8), bid_round=bid_round, dominant=dominant,
        next_deck=next_deck, **out,
    )


def _first_distribution(n, dispatch, deck, cut, dealer, noise, units, first_packet):
    """BM-4..BM-6: the dealer's packet order, the first distribution by position and
    the turned card.

    Packets go one per player from the dealer's left (position 0).
    """
    n_rows = len(deck)
    choices = R.FIRST_PACKET_CHOICES[n]
    if first_packet is not None:
        if first_packet not in choices:
            raise ValueError(f"first_packet must be one of {choices}, got {first_packet!r}")
        first = np.full(n_rows, first_packet, dtype=I8)
    elif len(choices) == 1:
        first = np.full(n_rows, choices[0], dtype=I8)
    else:
        obs = PacketObs(dealer, n, choices, None if noise is None else noise[0])
        first = dispatch("first_packet", obs, dealer, I8)
        reject(~np.isin(first, choices), units, "first packet of",
               lambda i: f"{int(first[i])} cards; allowed {choices} (BM-4/BM-5)")
    hand1, turned = kernel.first_hands(deck, cut, first, n)
    return first, hand1, turned


def _bidding(config, dispatch, hand1, turned, dealer, seat_of_position, noise, units,
             forced_bids=None):
    """BM-7: two bidding rounds from the dealer's left; rows decided are not asked again.

    Returns the bids (N, 2n), the taker's position (-1: all passed), the round
    and the dominant family.
    """
    n = config.n_players
    n_rows = len(hand1)
    taker_pos = np.full(n_rows, -1, dtype=I8)
    bid_round = np.zeros(n_rows, dtype=I8)
    dominant = np.full(n_rows, -1, dtype=I8)
    bids = np.full((n_rows, 2 * n), -1, dtype=I8)
    turned_bit = np.left_shift(np.uint8(1), (turned & 3).astype(np.uint8))
    pass_bit = np.uint8(1 << R.PASS)
    ask = np.arange(n_rows)  # rows still undecided, in order
    for rnd, legal in ((1, turned_bit | pass_bit), (2, (np.uint8(15) & ~turned_bit) | pass_bit)):
        for j in range(n):
            if not ask.size:
                break
            slot = (rnd - 1) * n + j
            if ask.size == n_rows:  # the first turn: every row, no gather
                hand, seat, turned_ask, legal_ask, dealer_ask = (
                    hand1[:, j], seat_of_position[:, j], turned, legal, dealer)
            else:
                hand, seat, turned_ask, legal_ask, dealer_ask = kernel.turn_rows(
                    ask, j, hand1, seat_of_position, turned, legal, dealer)
            obs = BidObs(hand, turned_ask, seat, dealer_ask, j, rnd, legal_ask, n,
                         config.bianco_mano, None if noise is None else
                         noise[1 + slot] if ask.size == n_rows else noise[1 + slot][ask])
            action = dispatch("bid", obs, seat, I8)
            if forced_bids is not None:
                forced = forced_bids[ask, slot]
                action = np.where(forced >= 0, forced, action).astype(I8)
            if kernel.first_bad_bid(action, legal_ask) >= 0:
                _reject_bids(action, legal_ask, units[ask], seat, rnd, turned_ask)
            ask = ask[:kernel.record_bids(ask, action, slot, j, rnd, bids, taker_pos, bid_round,
                                          dominant)]
    return bids, taker_pos, bid_round, dominant


def _reject_bids(action, legal, units, seat, rnd, turned):
    """Raise IllegalAction for the first bid out of range or not legal (BM-7)."""
    ok = (action >= 0) & (action <= R.PASS)
    ok &= ((legal >> np.clip(action, 0, 7).astype(np.uint8)) & 1) == 1
    reject(~ok, units, "bid", lambda i: f"{int(action[i])} by seat {int(seat[i])} in round "
           f"{rnd} (turned {R.format_card(int(turned[i]))}) (BM-7)")


class _Taken(NamedTuple):
    """A taken deal's hands and roles, one row per deal (seats, not positions)."""

    hands: np.ndarray  # (m, n) cards in hand when play starts
    taker: np.ndarray
    dominant: np.ndarray
    dom_mask: np.ndarray
    taker_bid_hand: np.ndarray
    taker_hand: np.ndarray  # all cards received, espion included
    espion: np.ndarray
    partner: np.ndarray
    called: np.ndarray
    on_side: np.ndarray  # (m, n) bool: the seat plays for the taker


def _play_taken(config, dispatch, units, deck, cut, hand1, taker_pos, seat_of_position, turned,
                dominant, dealer, noise, gather):
    """Complete, play and score the deals that have a taker (BM-4..BM-11)."""
    n = config.n_players
    slot = 1 + 2 * n  # noise slots: espion, call, announce, then the cards

    def noise_at(k):
        return None if noise is None else noise[k]

    hands, taker_bid_hand = kernel.second_hands(deck, cut, hand1, taker_pos, turned, dealer)
    rows = np.arange(len(hands))
    taker = seat_of_position[rows, taker_pos]
    taker_hand = hands[rows, taker]
    dom_mask = FAMILY_MASK[dominant]
    espion = _set_espion(n, dispatch, hands, taker, dominant, noise_at(slot), units)
    partner, called, on_side = _sides(n, dispatch, hands, taker, espion, dominant, dom_mask,
                                      noise_at(slot + 1), units)
    deal = _Taken(hands, taker, dominant, dom_mask, taker_bid_hand, taker_hand, espion,
                  partner, called, on_side)
    eligible, bonus = _announce(config, dispatch, deal, noise_at(slot + 2), units)
    record = _play_tricks(n, dispatch, deal, noise, slot + 3, units, turned, bonus)
    # BM-10, BM-11: the side counts its tricks and the espion
    side_points, side_tricks, outcome, deltas = kernel.settle(
        on_side, record.won, record.tricks_won, espion, dominant, taker, bonus)
    result = {
        "taker": taker, "partner": partner, "called": called, "espion": espion,
        "bonus_eligible": eligible, "bonus": bonus, "taker_bid_hand": taker_bid_hand,
        "taker_hand": taker_hand, "plays": record.plays, "trick_winners": record.winners,
        "side_points": side_points, "side_tricks": side_tricks, "outcome": outcome,
        "deltas": deltas,
    }
    if gather:
        result["next_deck"] = _gather_played(config, record.plays, record.winners, on_side,
                                             espion)
    return result


def _set_espion(n, dispatch, hands, taker, dominant, noise, units):
    """BM-4, BM-6: the taker sets 2 cards of his hand aside (removed from ``hands``)."""
    rows = np.arange(len(hands))
    if not R.ESPION_SIZE[n]:
        return np.zeros(len(hands), dtype=U32)
    taker_hand = hands[rows, taker]
    espion = dispatch("espion", EspionObs(taker_hand, dominant, taker, n, noise), taker, U32)
    reject((bits.popcount(espion) != 2) | ((espion & ~taker_hand) != 0), units, "espion",
           lambda i: f"{bin(int(espion[i]))} is not 2 cards of the taker's hand (BM-4/BM-6)")
    hands[rows, taker] &= ~espion
    return espion


def _sides(n, dispatch, hands, taker, espion, dominant, dom_mask, noise, units):
    """The taker's partner, the called card and who plays for the taker (BM-4..BM-6)."""
    m = len(hands)
    rows = np.arange(m)
    seats = np.arange(n)[None, :]
    called = np.full(m, -1, dtype=I8)
    if n == 5:  # BM-6: call a non-dominant card held by someone else
        held = hands[rows, taker]
        legal = ALL_CARDS & ~(held | espion | dom_mask)
        called = dispatch("call", CallObs(held, espion, dominant, legal, noise), taker, I8)
        bad = (called < 0) | (called >= R.N_CARDS)
        bad |= ((legal >> np.clip(called, 0, 31).astype(U32)) & ONE) == 0
        reject(bad, units, "call", lambda i: f"{int(called[i])} (BM-6)")
        partner = np.argmax((hands & bits.card_bits(called)[:, None]) != 0, axis=1).astype(I8)
        on_side = (seats == taker[:, None]) | (seats == partner[:, None])
    elif n == 4:  # BM-5: fixed teams 0 & 2 vs 1 & 3
        partner = ((taker + 2) % 4).astype(I8)
        on_side = SAME_TEAM_4[taker]
    else:  # BM-4: the taker alone
        partner = np.full(m, -1, dtype=I8)
        on_side = seats == taker[:, None]
    return partner, called, on_side


def _announce(config, dispatch, deal: _Taken, noise, units):
    """BM-11: eligible takers (both bonus cards in hand) may announce Bianco Mano."""
    m = len(deal.taker)
    if not config.bianco_mano:
        return np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    held = deal.hands[np.arange(m), deal.taker]
    bonus_cards = BONUS_MASK[deal.dominant]
    eligible = (held & bonus_cards) == bonus_cards
    bonus = dispatch("announce", AnnounceObs(held, deal.dominant, eligible, noise), deal.taker,
                     bool)
    reject(bonus & ~eligible, units, "Bianco Mano announced",
           lambda i: "without both the Garde du Corps and the Chauffeur (BM-11)")
    return eligible, bonus


def _play_tricks(n, dispatch, deal: _Taken, noise, first_slot, units, turned,
                 bonus) -> tricks.TrickRecord:
    """BM-8, BM-9 on the kernel: the taker leads the first trick, play goes clockwise.

    What a player knows of the sides is Bianco Mano's: in 5 players only the
    partner knows the sides until the called card is played (BM-6).
    """
    n_tricks = R.HAND_SIZE[n]
    called_bit = bits.card_bits(np.maximum(deal.called, 0)) if n == 5 else None
    no_ally = np.zeros(len(deal.taker), dtype=bool)
    history: list[tricks.TrickRecord] = []
    world = (np.concatenate([deal.hands, deal.espion[:, None]], axis=1)  # for a teacher only
             if dispatch.wants_world else None)

    def keep_record(view: tricks.CardView, record: tricks.TrickRecord) -> None:
        if not history:
            history.append(record)  # the kernel's live record: the play so far, no copy

    def choose(view: tricks.CardView) -> np.ndarray:
        seat, k = view.seat, view.position
        mine = view.team.view(np.bool_)  # teams are the sides: 1 plays for the taker
        if k == 0:
            ally = no_ally
        else:
            ally = ~view.opponent_holds  # teams are the sides
            if n == 5:  # before the called card shows, only the partner knows the sides
                ally &= ((view.played & called_bit) != 0) | (seat == deal.partner)
        obs = PlayObs(view.hand, view.legal, seat, k, view.trick, deal.dominant, deal.dom_mask,
                      view.led_suit, view.led_mask, view.winning_card, ally, view.table,
                      view.played, deal.taker, mine, n,
                      None if noise is None else noise[first_slot + view.trick * n + k],
                      history[0].plays, history[0].leaders, turned, deal.called, bonus,
                      np.where(seat == deal.taker, deal.espion, U32(0)), world)
        return dispatch("play", obs, seat, I8)

    def describe(j: int, c: int, view: tricks.CardView) -> str:
        shown = R.format_card(c) if 0 <= c < R.N_CARDS else c
        return (f"{shown} by seat {int(view.seat[j])} in trick {view.trick + 1}; "
                f"legal: {R.format_cards(bits.cards_of(int(view.legal[j])))} (BM-8)")

    return tricks.play_tricks(deal.hands, deal.taker, n_tricks, deal.dom_mask, DUTIES,
                              choose=choose, before_card=keep_record,
                              team=deal.on_side.astype(I8),
                              direction=tricks.CLOCKWISE, units=units, describe=describe)


def _gather_played(config, plays, winners, on_side, espion) -> np.ndarray:
    """Next pre-cut deck after a played deal (BM-3): espion, then tricks."""
    m, n_tricks, n = plays.shape
    trick_no = np.broadcast_to(np.arange(n_tricks), (m, n_tricks))
    if config.gather == "team_piles":  # taker's side pile on top of the other side's
        winner_on_side = np.take_along_axis(on_side, winners.astype(np.intp), 1)
        key = trick_no + n_tricks * ~winner_on_side
    else:
        key = trick_no
    order = np.argsort(key, axis=1, kind="stable")
    pile = np.take_along_axis(plays, order[:, :, None], 1).reshape(m, n_tricks * n)
    if R.ESPION_SIZE[config.n_players]:
        low = bits.bit_index(bits.lowest_bit(espion))
        high = bits.bit_index(bits.highest_bit(espion))
        pile = np.concatenate([low[:, None], high[:, None], pile], axis=1)
    return pile.astype(I8)


# ---------------------------------------------------------------- randomness


def n_decisions(n_players: int) -> int:
    """Noise slots per deal: packet, bids, espion, call, announce, plays."""
    return 1 + 2 * n_players + 3 + R.HAND_SIZE[n_players] * n_players


def _noise(entropy, units, n_players, step):
    width = n_decisions(n_players)
    draws = rng.draw_per_unit(entropy, units, STREAM_NOISE,
                              lambda gen, size: rng.uniforms(gen, size, width), step)
    return np.ascontiguousarray(draws.T)


# ---------------------------------------------------------------- public API


class DealBatch(batches.DealBatch[R.BiancoManoConfig, DealArrays]):
    """Independent deals: ``table`` (one row per deal) and the raw ``arrays``."""

    def record(self, i: int) -> R.DealRecord:
        """The replayable record of the batch's i-th deal."""
        return _record(self.config, self.arrays, i)


class GameBatch(batches.GameBatch[R.BiancoManoConfig, DealArrays]):
    """Whole games: ``deals`` (one row per deal, all-pass deals included),
    ``games`` (one row per game and seat) and the raw per-deal ``arrays``."""

    def record(self, game_id: int) -> R.GameRecord:
        """The replayable record of one game."""
        g, rows = self.game_rows(game_id)
        return R.GameRecord(
            config=self.config,
            dealer_draw=tuple(int(c) for c in self.dealer_draw[g]),
            deals=tuple(_record(self.config, self.arrays, int(i)) for i in rows),
        )


def _record(config, a: DealArrays, i: int) -> R.DealRecord:
    """Plain-Python record of row i (see rules.DealRecord)."""
    bids = tuple(int(b) for b in a.bids[i] if b >= 0)
    plays = tuple(int(c) for c in a.plays[i].ravel() if c >= 0)
    return R.DealRecord(
        n_players=config.n_players, dealer=int(a.dealer[i]),
        deck=tuple(int(c) for c in a.deck[i]), cut=int(a.cut[i]),
        first_packet=int(a.first_packet[i]), bids=bids,
        espion=tuple(bits.cards_of(int(a.espion[i]))), called=int(a.called[i]),
        bonus=bool(a.bonus[i]), plays=plays,
    )


def _deal_table(config, seed, a: DealArrays, extra: dict[str, np.ndarray]) -> pl.DataFrame:
    """Tidy per-deal table (one row per deal)."""
    taken = a.taker >= 0
    dominant_at_bid, points_at_bid, dominant_held, points_held = kernel.taker_holdings(
        a.taker_bid_hand, a.taker_hand, a.dominant, a.taker)
    columns = {
        **extra,
        "seed": np.full(len(a.dealer), seed, dtype=np.int64),
        "n_players": np.full(len(a.dealer), config.n_players, dtype=I8),
        "dealer": a.dealer, "first_packet": a.first_packet,
        "turned_family": (a.turned_card & 3).astype(I8),
        "taker": a.taker, "bid_round": a.bid_round, "dominant": a.dominant,
        "partner": a.partner, "called": a.called,
        "taker_dominant_at_bid": dominant_at_bid, "taker_points_at_bid": points_at_bid,
        "taker_dominant_count": dominant_held, "taker_points_held": points_held,
        "bonus_eligible": a.bonus_eligible, "bonus_announced": a.bonus,
        "side_points": np.where(taken, a.side_points, -1).astype(np.int16),
        "side_tricks": np.where(taken, a.side_tricks, -1).astype(I8),
    }
    for s in range(config.n_players):
        columns[f"delta_{s}"] = a.deltas[:, s]
    outcome = enum_column("outcome", a.outcome, R.OUTCOME_NAMES)
    return pl.DataFrame(columns).insert_column(len(columns) - config.n_players, outcome)


def simulate_deals(config: R.BiancoManoConfig, policies, n_deals: int, seed: int = 0, *,
                   first_deal: int = 0) -> DealBatch:
    """Play deals ``first_deal .. first_deal + n_deals - 1`` of ``seed``.

    Each deal is dealt from a fresh uniform shuffle by seat ``deal_id % n``;
    ``policies`` is one policy for every seat or a sequence of one per seat.
    All-pass deals appear with outcome ``all_pass`` and no score.
    """
    n_deals = check_count("n_deals", n_deals)
    first_deal = check_count("first_deal", first_deal, low=0)
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies, config.n_players)
    ids = np.arange(first_deal, first_deal + n_deals, dtype=np.int64)
    deck = rng.draw_per_unit(entropy, ids, STREAM_SHUFFLE, tricks.shuffled_decks, 0)
    cut = rng.draw_per_unit(entropy, ids, STREAM_CUT, tricks.cut_drawer(config.cut_weights), 0)
    noise = _noise(entropy, ids, config.n_players, 0) if dispatch.uses_noise else None
    dealer = (ids % config.n_players).astype(I8)
    arrays = play_batch(config, dispatch, deck, cut, dealer, noise, ids)
    table = _deal_table(config, entropy, arrays, {"deal_id": ids})
    return DealBatch(config, entropy, ids, arrays, table)


def simulate_games(config: R.BiancoManoConfig, policies, n_games: int, seed: int = 0, *,
                   first_game: int = 0, max_deals: int | None = None) -> GameBatch:
    """Play whole games ``first_game .. first_game + n_games - 1`` of ``seed`` (BM-12).

    A game ends after ``config.deals_per_game`` played deals; all-pass deals
    are redealt by the next dealer from the stacked cards (BM-3, BM-7). A game
    that needs more than ``max_deals`` deals in all (default: 20 per played
    deal) raises ``RuntimeError``: the policies almost never take.
    """
    n_games = check_count("n_games", n_games)
    first_game = check_count("first_game", first_game, low=0)
    entropy = rng.root_entropy(seed)
    n = config.n_players
    dispatch = Dispatch(policies, n)
    max_deals = 20 * config.deals_per_game if max_deals is None else max_deals
    ids = np.arange(first_game, first_game + n_games, dtype=np.int64)
    dealer_draw = rng.draw_per_unit(entropy, ids, STREAM_DEALER_DRAW, tricks.shuffled_decks)
    first_dealer = tricks.first_dealers(dealer_draw, n)  # BM-2
    deck = rng.draw_per_unit(entropy, ids, STREAM_SHUFFLE, tricks.shuffled_decks, 0)
    dealer = first_dealer.copy()
    played = np.zeros(n_games, dtype=np.int32)
    active = np.arange(n_games)
    deals_played: batches.DealsPlayed[DealArrays] = batches.DealsPlayed()
    step = 0
    draw_cuts = tricks.cut_drawer(config.cut_weights)
    while active.size:
        if step >= max_deals:
            raise RuntimeError(f"{active.size} game(s) unfinished after {max_deals} deals: "
                               "the policies pass too often (BM-7 all-pass redeals)")
        units = ids[active]
        if step and config.shuffle_every_deal:
            deck[active] = rng.draw_per_unit(entropy, units, STREAM_SHUFFLE,
                                             tricks.shuffled_decks, step)
        cut = rng.draw_per_unit(entropy, units, STREAM_CUT, draw_cuts, step)
        noise = _noise(entropy, units, n, step) if dispatch.uses_noise else None
        arrays = play_batch(config, dispatch, deck[active], cut, dealer[active], noise, units,
                            gather=not config.shuffle_every_deal)
        deals_played.add(arrays, units, step)
        if not config.shuffle_every_deal:
            deck[active] = arrays.next_deck
        played[active] += arrays.outcome != R.ALL_PASS
        dealer[active] = (dealer[active] + 1) % n
        active = active[played[active] < config.deals_per_game]
        step += 1

    arrays = concatenate(deals_played.parts)
    deal_game, deal_no = deals_played.rows()
    deals = _deal_table(config, entropy, arrays, {"game_id": deal_game, "deal_no": deal_no})
    deals = deals.sort(["game_id", "deal_no"])
    games = _game_table(config, ids, first_dealer, arrays, deal_game)
    return GameBatch(config, entropy, ids, arrays, deal_game, deal_no, dealer_draw, first_dealer,
                     deals, games)


def _game_table(config, ids, first_dealer, a: DealArrays, deal_game) -> pl.DataFrame:
    """One row per game and seat: score, contracts made, winner flag (BM-12)."""
    n = config.n_players
    g = np.searchsorted(ids, deal_game)
    totals = np.zeros((len(ids), n), dtype=np.int32)
    np.add.at(totals, g, a.deltas.astype(np.int32))
    made = np.zeros((len(ids), n), dtype=np.int32)
    won = (a.outcome == R.MADE) | (a.outcome == R.CAPO)
    np.add.at(made, (g[won], a.taker[won]), 1)
    key = totals.astype(np.int64) * 4096 + made  # most points, then most contracts made
    winner = key == key.max(axis=1, keepdims=True)
    return pl.DataFrame({
        "game_id": np.repeat(ids, n),
        "seat": np.tile(np.arange(n, dtype=I8), len(ids)),
        "first_dealer": np.repeat(first_dealer, n),
        "score": totals.ravel(),
        "contracts_made": made.ravel(),
        "is_winner": winner.ravel(),
        "n_winners": np.repeat(winner.sum(axis=1), n).astype(I8),
    })
