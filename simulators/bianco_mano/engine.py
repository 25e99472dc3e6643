"""Bianco Mano vectorized batch engine (RULINGS BM-1..BM-12).

A batch of N deals advances in lockstep: dealing, bidding and each card of
each trick is a handful of numpy operations over all N rows, with hands as
uint32 bitmasks (see ``rules.py`` for the encoding). There is no Python loop
over deals. Two entry points:

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

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import polars as pl

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.observations import (
    AnnounceObs,
    BidObs,
    CallObs,
    EspionObs,
    PacketObs,
    PlayObs,
)
from simulators.core import bits, rng
from simulators.core.dispatch import IllegalAction as IllegalAction  # re-exported
from simulators.core.dispatch import SeatDispatch, reject
from simulators.core.params import check_count

U32 = np.uint32
I8 = np.int8
ONE = U32(1)
ZERO = U32(0)

FAMILY_MASK = np.array(R.FAMILY_MASK, dtype=U32)
RANK_MASK = np.array(R.RANK_MASK, dtype=U32)
# STRONGER[c]: cards of c's family that beat c (BM-9)
STRONGER = np.array(
    [R.FAMILY_MASK[R.family_of(c)] & ((1 << (4 * R.rank_of(c))) - 1) for c in range(R.N_CARDS)],
    dtype=U32,
)
# BONUS_MASK[f]: Garde du Corps and Chauffeur of family f (BM-11)
BONUS_MASK = np.array(
    [(1 << R.card(R.GARDE_DU_CORPS, f)) | (1 << R.card(R.CHAUFFEUR, f)) for f in range(4)],
    dtype=U32,
)
ALL_CARDS = U32(R.ALL_CARDS)
# ROTATIONS[n][w, k] = (w + k) % n: play position k when seat/position w leads
ROTATIONS = {n: (np.arange(n)[:, None] + np.arange(n)) % n for n in R.PLAYER_COUNTS}

STREAM_SHUFFLE, STREAM_CUT, STREAM_NOISE, STREAM_DEALER_DRAW = 0, 1, 2, 3
POLICY_METHODS = ("first_packet", "bid", "espion", "call", "announce", "play")


def mask_points(mask: np.ndarray, dominant: np.ndarray) -> np.ndarray:
    """Card points held in each mask when ``dominant`` is dominant (BM-1)."""
    mask = np.asarray(mask, dtype=U32)
    doubled = mask & FAMILY_MASK[dominant]
    total = np.zeros(mask.shape, dtype=np.int16)
    for rank, points in enumerate(R.BASE_POINTS):
        if points:
            count = bits.popcount(mask & RANK_MASK[rank]) + bits.popcount(doubled & RANK_MASK[rank])
            total += np.int16(points) * count.astype(np.int16)
    return total


def legal_play_mask(hand, led_mask, best_card, trick_has_dominant, dom_mask) -> np.ndarray:
    """Legal cards (uint32 mask) for a follower, per BM-8.

    ``led_mask`` and ``dom_mask`` are the masks of the led and dominant
    families; ``best_card`` is the card currently winning the trick. For the
    leader the whole hand is legal and this function is not used.
    """
    hand = np.asarray(hand, dtype=U32)
    follow = hand & led_mask  # BM-8 (1)
    dom_cards = hand & dom_mask  # BM-8 (2)
    candidates = np.where(follow != 0, follow, np.where(dom_cards != 0, dom_cards, hand))
    over = candidates & STRONGER[best_card]  # BM-8 (3): beat the best dominant if you can
    must_beat = trick_has_dominant & ((candidates & dom_mask) != 0) & (over != 0)
    return np.where(must_beat, over, candidates)


def beats(card, best_card, led_family, trick_has_dominant, dominant) -> np.ndarray:
    """Whether ``card`` takes the lead of the trick from ``best_card`` (BM-9)."""
    family = card & 3
    is_dom = family == dominant
    stronger = card < best_card  # same family: lower index is stronger (rank-major)
    return np.where(is_dom, ~trick_has_dominant | stronger,
                    ~trick_has_dominant & (family == led_family) & stronger)


def score_changes(outcome, seat_is_taker, seat_on_side) -> np.ndarray:
    """Per-seat score changes (BM-10) for outcomes broadcast against seats."""
    table = np.array([R.SCORE_CHANGES[o] for o in (R.FAILED, R.MADE, R.CAPO)], dtype=I8)
    o = np.asarray(outcome)[..., None]
    return np.where(seat_is_taker, table[o, 0], np.where(seat_on_side, table[o, 1], table[o, 2]))


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
               gather: bool = False, first_packet: int | None = None) -> DealArrays:
    """Play one deal per row from pre-cut decks; pure given its inputs.

    ``noise`` is (decisions, N) uniforms or None; ``units`` are the row ids
    used in error messages; ``gather`` also builds each next deck (BM-3);
    ``first_packet`` fixes the dealer's packet choice (constrained deals).
    """
    n = config.n_players
    n_rows = len(deck)
    h1 = R.FIRST_DISTRIBUTION[n]
    n_tricks = R.HAND_SIZE[n]
    rows = np.arange(n_rows)
    dealer = dealer.astype(I8)

    def noise_at(slot: int, idx=None):
        if noise is None:
            return None
        return noise[slot] if idx is None else noise[slot][idx]

    # BM-3: the top `cut` cards go to the bottom (row i reads deck twice over from cut[i])
    windows = np.lib.stride_tricks.sliding_window_view(np.concatenate([deck, deck], 1), 32, 1)
    post = windows[rows, cut]
    card_bit = bits.card_bits(post)
    prefix = np.zeros((n_rows, R.N_CARDS + 1), dtype=U32)
    np.bitwise_xor.accumulate(card_bit, axis=1, out=prefix[:, 1:])

    def packet(p, start, stop):
        return p[:, stop] ^ p[:, start]  # cards are distinct: xor of a range is its union

    # BM-4..BM-6: first distribution, packets one per player from the dealer's left
    choices = R.FIRST_PACKET_CHOICES[n]
    if first_packet is not None:
        if first_packet not in choices:
            raise ValueError(f"first_packet must be one of {choices}, got {first_packet!r}")
        first = np.full(n_rows, first_packet, dtype=I8)
    elif len(choices) == 1:
        first = np.full(n_rows, choices[0], dtype=I8)
    else:
        first = dispatch("first_packet", PacketObs(dealer, n, choices, noise_at(0)), dealer, I8)
        reject(~np.isin(first, choices), units, "first packet of",
                lambda i: f"{int(first[i])} cards; allowed {choices} (BM-4/BM-5)")
    hand1 = np.zeros((n_rows, n), dtype=U32)
    for size in choices:
        rest = h1 - size
        chosen = first == size
        for j in range(n):
            h = packet(prefix, size * j, size * j + size) ^ packet(
                prefix, n * size + rest * j, n * size + rest * j + rest)
            hand1[:, j] = np.where(chosen, h, hand1[:, j])
    turned = post[:, n * h1]
    turned_family = (turned & 3).astype(np.uint8)
    seat_of_position = ((dealer[:, None] + 1 + np.arange(n)) % n).astype(I8)

    # BM-7: two bidding rounds from the dealer's left
    taker_pos = np.full(n_rows, -1, dtype=I8)
    bid_round = np.zeros(n_rows, dtype=I8)
    dominant = np.full(n_rows, -1, dtype=I8)
    bids = np.full((n_rows, 2 * n), -1, dtype=I8)
    turned_bit = np.left_shift(np.uint8(1), turned_family)
    pass_bit = np.uint8(1 << R.PASS)
    for rnd, legal in ((1, turned_bit | pass_bit), (2, (np.uint8(15) & ~turned_bit) | pass_bit)):
        for j in range(n):
            ask = np.flatnonzero(taker_pos < 0)  # rows already decided are not asked
            if not ask.size:
                break
            slot = (rnd - 1) * n + j
            seat = seat_of_position[ask, j]
            obs = BidObs(hand1[ask, j], turned[ask], seat, dealer[ask], j, rnd, legal[ask], n,
                         config.bianco_mano, noise_at(1 + slot, ask))
            action = dispatch("bid", obs, seat, I8)
            ok = (action >= 0) & (action <= R.PASS)
            ok &= ((legal[ask] >> np.clip(action, 0, 7).astype(np.uint8)) & 1) == 1
            reject(~ok, units[ask], "bid",
                    lambda i, a=action, s=seat, r=rnd, t=turned[ask]: f"{int(a[i])} by seat "
                    f"{int(s[i])} in round {r} (turned {R.format_card(int(t[i]))}) (BM-7)")
            bids[ask, slot] = action
            took = action != R.PASS
            taker_pos[ask[took]] = j
            bid_round[ask[took]] = rnd
            dominant[ask[took]] = action[took]

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
        for size in choices:  # BM-3: after an all-pass, stack hands, turned card, stock
            chosen = first == size
            next_deck[chosen] = post[chosen][:, _void_gather_order(n, size)]

    t = np.flatnonzero(taker_pos >= 0)
    if t.size:
        played = _play_taken(config, dispatch, units[t], prefix[t], card_bit[t], hand1[t],
                             taker_pos[t], seat_of_position[t], turned[t], dominant[t],
                             dealer[t], None if noise is None else noise[:, t], gather)
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


def _play_taken(config, dispatch, units, prefix, card_bit, hand1, taker_pos,
                seat_of_position, turned, dominant, dealer, noise, gather):
    """Complete, play and score the deals that have a taker (BM-4..BM-11)."""
    n = config.n_players
    m = len(taker_pos)
    rows = np.arange(m)
    n_tricks = R.HAND_SIZE[n]
    h1 = R.FIRST_DISTRIBUTION[n]
    base_slot = 1 + 2 * n

    def noise_at(slot):
        return None if noise is None else noise[slot]

    def packet(start, stop):
        return prefix[:, stop] ^ prefix[:, start]

    # second distribution, one packet per player from the dealer's left
    hands = hand1.copy()
    start = n * h1 + 1
    if n == 4:  # BM-5: the taker gets 2 cards, the others 3
        for j in range(n):
            s = start + 3 * j
            before, at, after = packet(s, min(s + 3, 32)), packet(s, s + 2), packet(s - 1, s + 2)
            hands[:, j] |= np.select([j < taker_pos, j == taker_pos], [before, at], after)
    else:  # BM-4, BM-6: equal packets, the last card face down to the taker
        size = R.SECOND_PACKET[n]
        for j in range(n):
            hands[:, j] |= packet(start + size * j, start + size * (j + 1))
        hands[rows, taker_pos] |= card_bit[:, R.N_CARDS - 1]
    turned_bit = bits.card_bits(turned)
    taker_bid_hand = hand1[rows, taker_pos] | turned_bit
    hands[rows, taker_pos] |= turned_bit  # BM-7: the taker always receives the turned card
    position_of_seat = (np.arange(n)[None, :] - dealer[:, None] - 1) % n
    hands = np.take_along_axis(hands, position_of_seat, 1)
    taker = seat_of_position[rows, taker_pos]
    taker_hand = hands[rows, taker]
    dom_mask = FAMILY_MASK[dominant]

    espion = np.zeros(m, dtype=U32)
    if R.ESPION_SIZE[n]:  # BM-4, BM-6: the taker sets 2 cards aside
        obs = EspionObs(taker_hand, dominant, taker, n, noise_at(base_slot))
        espion = dispatch("espion", obs, taker, U32)
        reject((bits.popcount(espion) != 2) | ((espion & ~taker_hand) != 0), units, "espion",
                lambda i: f"{bin(int(espion[i]))} is not 2 cards of the taker's hand (BM-4/BM-6)")
        hands[rows, taker] &= ~espion

    called = np.full(m, -1, dtype=I8)
    seats = np.arange(n)[None, :]
    if n == 5:  # BM-6: call a non-dominant card held by someone else
        held = hands[rows, taker]
        legal = ALL_CARDS & ~(held | espion | dom_mask)
        called = dispatch("call", CallObs(held, espion, dominant, legal, noise_at(base_slot + 1)),
                          taker, I8)
        bad = (called < 0) | (called >= R.N_CARDS)
        bad |= ((legal >> np.clip(called, 0, 31).astype(U32)) & ONE) == 0
        reject(bad, units, "call", lambda i: f"{int(called[i])} (BM-6)")
        partner = np.argmax((hands & bits.card_bits(called)[:, None]) != 0, axis=1).astype(I8)
        on_side = (seats == taker[:, None]) | (seats == partner[:, None])
    elif n == 4:  # BM-5: fixed teams 0 & 2 vs 1 & 3
        partner = ((taker + 2) % 4).astype(I8)
        on_side = (seats - taker[:, None]) % 2 == 0
    else:  # BM-4: the taker alone
        partner = np.full(m, -1, dtype=I8)
        on_side = seats == taker[:, None]

    held = hands[rows, taker]
    eligible = np.zeros(m, dtype=bool)
    bonus = np.zeros(m, dtype=bool)
    if config.bianco_mano:  # BM-11
        eligible = (held & BONUS_MASK[dominant]) == BONUS_MASK[dominant]
        obs = AnnounceObs(held, dominant, eligible, noise_at(base_slot + 2))
        bonus = dispatch("announce", obs, taker, bool)
        reject(bonus & ~eligible, units, "Bianco Mano announced",
                lambda i: "without both the Garde du Corps and the Chauffeur (BM-11)")

    # BM-8, BM-9: tricks, the taker leading the first. Hands and seats are kept in
    # play order; after each trick one gather rotates them to start at the winner.
    plays = np.empty((m, n_tricks, n), dtype=I8)
    winners = np.empty((m, n_tricks), dtype=I8)
    played = np.zeros(m, dtype=U32)
    side_won = np.zeros(m, dtype=U32)
    side_tricks = np.zeros(m, dtype=I8)
    revealed = np.zeros(m, dtype=bool)
    no_card = np.full(m, -1, dtype=I8)
    no_mask = np.zeros(m, dtype=U32)
    rotation = ROTATIONS[n]
    row_base = (rows * n)[:, None]
    order = rotation[taker].astype(I8)  # seats in play order
    in_hand = hands.ravel()[row_base + rotation[taker]]
    first_play_slot = base_slot + 3
    for trick in range(n_tricks):
        if n == 4:
            side_in_order = ((order ^ taker[:, None]) & 1) == 0
        else:
            side_in_order = order == taker[:, None]
            if n == 5:
                partner_in_order = order == partner[:, None]
                side_in_order |= partner_in_order
        table = np.zeros(m, dtype=U32)
        has_dom = winner_side = win_pos = None  # set by the leader's card (k == 0)
        for k in range(n):
            seat = order[:, k]
            hand = in_hand[:, k]
            if k == 0:
                legal, led, led_mask, best = hand, no_card, no_mask, no_card
                ally = np.zeros(m, dtype=bool)
            else:
                legal = legal_play_mask(hand, led_mask, best, has_dom, dom_mask)
                ally = side_in_order[:, k] == winner_side
                if n == 5:  # before the called card shows, only the partner knows the sides
                    ally &= revealed | partner_in_order[:, k]
            obs = PlayObs(hand, legal, seat, k, trick, dominant, dom_mask, led, led_mask, best,
                          ally, table, played, taker, side_in_order[:, k], n,
                          noise_at(first_play_slot + trick * n + k))
            card = dispatch("play", obs, seat, I8)
            bad = (card < 0) | (card >= R.N_CARDS)
            bad |= ((legal >> np.clip(card, 0, 31).astype(U32)) & ONE) == 0
            reject(bad, units, "play", lambda i, c=card, s=seat, lg=legal, t=trick: (
                f"{R.format_card(int(c[i])) if 0 <= c[i] < 32 else int(c[i])} by seat {int(s[i])}"
                f" in trick {t + 1}; legal: {R.format_cards(bits.cards_of(int(lg[i])))} (BM-8)"))
            bit = bits.card_bits(card)
            in_hand[:, k] = hand ^ bit
            table |= bit
            played |= bit
            plays[:, trick, k] = card
            family = (card & 3).astype(I8)
            if k == 0:
                led, best = family, card
                led_mask = FAMILY_MASK[led]
                win_pos = np.zeros(m, dtype=I8)
                has_dom = family == dominant
                winner_side = side_in_order[:, 0]
            else:
                takes = beats(card, best, led, has_dom, dominant)
                best = np.where(takes, card, best)
                win_pos = np.where(takes, I8(k), win_pos)
                winner_side = np.where(takes, side_in_order[:, k], winner_side)
                has_dom |= family == dominant
            if n == 5:
                revealed |= card == called
        next_order = row_base + rotation[win_pos]
        in_hand = in_hand.ravel()[next_order]
        order = order.ravel()[next_order]
        winners[:, trick] = order[:, 0]
        side_won |= np.where(winner_side, table, ZERO)
        side_tricks += winner_side

    # BM-10, BM-11: the side counts its tricks and the espion
    side_points = mask_points(side_won | espion, dominant)
    count = side_points + np.where(bonus, R.BONUS_POINTS, 0)
    outcome = np.where(side_points == R.TOTAL_POINTS, R.CAPO,
                       np.where(count >= R.CONTRACT_POINTS, R.MADE, R.FAILED)).astype(I8)
    deltas = score_changes(outcome, seats == taker[:, None], on_side).astype(I8)

    result = {
        "taker": taker, "partner": partner, "called": called, "espion": espion,
        "bonus_eligible": eligible, "bonus": bonus, "taker_bid_hand": taker_bid_hand,
        "taker_hand": taker_hand, "plays": plays, "trick_winners": winners,
        "side_points": side_points, "side_tricks": side_tricks, "outcome": outcome,
        "deltas": deltas,
    }
    if gather:
        result["next_deck"] = _gather_played(config, plays, winners, on_side, espion)
    return result


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


def _cuts(config: R.BiancoManoConfig):
    """Block drawer of cut points 1..31 (BM-3)."""
    if config.cut_weights is None:
        return lambda gen, size: gen.integers(1, R.N_CARDS, size=size, dtype=I8)
    p = np.asarray(config.cut_weights) / sum(config.cut_weights)
    return lambda gen, size: gen.choice(np.arange(1, R.N_CARDS, dtype=I8), size=size, p=p)


def _shuffles(gen, size):
    return rng.permutations(gen, size, R.N_CARDS)


def n_decisions(n_players: int) -> int:
    """Noise slots per deal: packet, bids, espion, call, announce, plays."""
    return 1 + 2 * n_players + 3 + R.HAND_SIZE[n_players] * n_players


def _noise(entropy, units, n_players, step):
    width = n_decisions(n_players)
    draws = rng.draw_per_unit(entropy, units, STREAM_NOISE,
                              lambda gen, size: rng.uniforms(gen, size, width), step)
    return np.ascontiguousarray(draws.T)


def first_dealers(draw: np.ndarray, n_players: int) -> np.ndarray:
    """First dealer of each game from its draw deck (BM-2).

    One card to each seat from the top, seat 0 first; the strongest rank deals;
    tied players draw again in seat order; if the pile cannot serve every tied
    player, the lowest tied seat deals.
    """
    games = len(draw)
    ranks = (draw >> 2).astype(I8)
    current = ranks[:, :n_players].copy()
    tied = np.ones((games, n_players), dtype=bool)
    next_card = np.full(games, n_players)
    while True:
        best = np.where(tied, current, 99).min(axis=1)
        tied &= current == best[:, None]
        count = tied.sum(axis=1)
        redraw = (count > 1) & (next_card + count <= R.N_CARDS)
        if not redraw.any():
            break
        index = np.minimum(next_card[:, None] + np.cumsum(tied, axis=1) - 1, R.N_CARDS - 1)
        fresh = np.take_along_axis(ranks, index, 1)
        current = np.where(tied & redraw[:, None], fresh, current)
        next_card = np.where(redraw, next_card + count, next_card)
    return np.argmax(tied, axis=1).astype(I8)


# ---------------------------------------------------------------- public API


@dataclass(frozen=True)
class DealBatch:
    """Independent deals: ``table`` (one row per deal) and the raw ``arrays``."""

    config: R.BiancoManoConfig
    seed: int
    deal_ids: np.ndarray
    arrays: DealArrays
    table: pl.DataFrame

    def record(self, i: int) -> R.DealRecord:
        """The replayable record of the batch's i-th deal."""
        return _record(self.config, self.arrays, i)


@dataclass(frozen=True)
class GameBatch:
    """Whole games: ``deals`` (one row per deal, all-pass deals included),
    ``games`` (one row per game and seat) and the raw per-deal ``arrays``."""

    config: R.BiancoManoConfig
    seed: int
    game_ids: np.ndarray
    arrays: DealArrays
    deal_game: np.ndarray  # game id of each row of arrays
    deal_no: np.ndarray  # deal number within its game
    dealer_draw: np.ndarray  # (games, 32)
    first_dealer: np.ndarray
    deals: pl.DataFrame
    games: pl.DataFrame

    def record(self, game_id: int) -> R.GameRecord:
        """The replayable record of one game."""
        g = int(np.searchsorted(self.game_ids, game_id))
        if g >= len(self.game_ids) or self.game_ids[g] != game_id:
            raise ValueError(f"game {game_id} is not in this batch")
        rows = np.flatnonzero(self.deal_game == game_id)
        rows = rows[np.argsort(self.deal_no[rows])]
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
    dominant = np.where(taken, a.dominant, 0)
    columns = {
        **extra,
        "seed": np.full(len(a.dealer), seed, dtype=np.int64),
        "n_players": np.full(len(a.dealer), config.n_players, dtype=I8),
        "dealer": a.dealer, "first_packet": a.first_packet,
        "turned_family": (a.turned_card & 3).astype(I8),
        "taker": a.taker, "bid_round": a.bid_round, "dominant": a.dominant,
        "partner": a.partner, "called": a.called,
        "taker_dominant_at_bid": np.where(
            taken, bits.popcount(a.taker_bid_hand & FAMILY_MASK[dominant]), -1).astype(I8),
        "taker_points_at_bid": np.where(taken, mask_points(a.taker_bid_hand, dominant), -1),
        "taker_dominant_count": np.where(
            taken, bits.popcount(a.taker_hand & FAMILY_MASK[dominant]), -1).astype(I8),
        "taker_points_held": np.where(taken, mask_points(a.taker_hand, dominant), -1),
        "bonus_eligible": a.bonus_eligible, "bonus_announced": a.bonus,
        "side_points": np.where(taken, a.side_points, -1).astype(np.int16),
        "side_tricks": np.where(taken, a.side_tricks, -1).astype(I8),
    }
    for s in range(config.n_players):
        columns[f"delta_{s}"] = a.deltas[:, s]
    outcome = pl.Series("outcome", a.outcome).replace_strict(
        dict(enumerate(R.OUTCOME_NAMES)), return_dtype=pl.Enum(list(R.OUTCOME_NAMES)))
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
    deck = rng.draw_per_unit(entropy, ids, STREAM_SHUFFLE, _shuffles, 0)
    cut = rng.draw_per_unit(entropy, ids, STREAM_CUT, _cuts(config), 0)
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
    dealer_draw = rng.draw_per_unit(entropy, ids, STREAM_DEALER_DRAW, _shuffles)
    first_dealer = first_dealers(dealer_draw, n)
    deck = rng.draw_per_unit(entropy, ids, STREAM_SHUFFLE, _shuffles, 0)
    dealer = first_dealer.copy()
    played = np.zeros(n_games, dtype=np.int32)
    active = np.arange(n_games)
    parts: list[DealArrays] = []
    part_game: list[np.ndarray] = []
    part_no: list[np.ndarray] = []
    step = 0
    while active.size:
        if step >= max_deals:
            raise RuntimeError(f"{active.size} game(s) unfinished after {max_deals} deals: "
                               "the policies pass too often (BM-7 all-pass redeals)")
        units = ids[active]
        if step and config.shuffle_every_deal:
            deck[active] = rng.draw_per_unit(entropy, units, STREAM_SHUFFLE, _shuffles, step)
        cut = rng.draw_per_unit(entropy, units, STREAM_CUT, _cuts(config), step)
        noise = _noise(entropy, units, n, step) if dispatch.uses_noise else None
        arrays = play_batch(config, dispatch, deck[active], cut, dealer[active], noise, units,
                            gather=not config.shuffle_every_deal)
        parts.append(arrays)
        part_game.append(units)
        part_no.append(np.full(active.size, step, dtype=np.int16))
        if not config.shuffle_every_deal:
            deck[active] = arrays.next_deck
        played[active] += arrays.outcome != R.ALL_PASS
        dealer[active] = (dealer[active] + 1) % n
        active = active[played[active] < config.deals_per_game]
        step += 1

    arrays = DealArrays(*(
        None if field[0] is None else np.concatenate(field) for field in zip(*parts, strict=True)
    ))
    deal_game = np.concatenate(part_game)
    deal_no = np.concatenate(part_no)
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
