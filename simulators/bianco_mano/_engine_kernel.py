"""Compiled steps of the Bianco Mano engine: packets, bid bookkeeping, score.

Both distributions read the cards straight from the pre-cut deck (position
``p`` of the cut deck is ``deck[(p + cut) % 32]``, BM-3), so no cut deck and
no prefix masks are built on the hot path. The referee (``referee.py``)
deals the same packets in plain Python; the cross-check replays every
engine deal through it. Plain Python in numba's subset, jitted on first use
(:func:`simulators.core.jit.jit_once`): importing this module does not import numba.
"""

from __future__ import annotations

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.core.bits import popcount32
from simulators.core.jit import jit_once
from simulators.core.tricks import SUIT_MASK

U32 = np.uint32
PASS = R.PASS

KERNEL_NAMES = ("_first_hands", "_second_hands", "_turn_rows", "_first_bad_bid", "_record_bids",
                "_settle", "_taker_holdings")
INLINED = ("_card_bit", "_points", "popcount32")  # per-card helpers: no call per use


def _kernels() -> None:
    """Jit this module's kernels once per process (numba, ``cache=True``; see core.jit)."""
    jit_once(globals(), KERNEL_NAMES, inline=INLINED)


def first_hands(deck: np.ndarray, cut: np.ndarray, first: np.ndarray,
                n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """BM-4..BM-6: first-distribution hands by position (dealer's left first) and
    the turned card, for pre-cut decks, cuts and the dealer's first packet size."""
    _kernels()
    return _first_hands(np.ascontiguousarray(deck), np.ascontiguousarray(cut, dtype=np.int64),
                        np.ascontiguousarray(first, dtype=np.int64), n_players,
                        R.FIRST_DISTRIBUTION[n_players])


def _card_bit(deck, r, top, p, width):
    """Bit of the card at position ``p`` of row ``r``'s deck cut at ``top`` (BM-3)."""
    at = top + p
    return np.uint32(1) << np.uint32(deck[r, at - width if at >= width else at])


def _first_hands(deck, cut, first, n, h1):
    rows, width = deck.shape
    hands = np.zeros((rows, n), dtype=np.uint32)
    turned = np.empty(rows, dtype=np.int8)
    for r in range(rows):
        start = cut[r] % width
        size = first[r]
        rest = h1 - size
        for j in range(n):
            h = np.uint32(0)
            for p in range(size * j, size * (j + 1)):
                h |= _card_bit(deck, r, start, p, width)
            for p in range(n * size + rest * j, n * size + rest * (j + 1)):
                h |= _card_bit(deck, r, start, p, width)
            hands[r, j] = h
        at = start + n * h1
        turned[r] = deck[r, at - width if at >= width else at]
    return hands, turned


def second_hands(deck: np.ndarray, cut: np.ndarray, hand1: np.ndarray, taker_pos: np.ndarray,
                 turned: np.ndarray, dealer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hands by seat after the second distribution (BM-4..BM-7), and the taker's bid hand.

    One packet per player from the dealer's left (position 0). In 4 players
    the taker gets 2 cards and the others 3 (BM-5); in 3 and 5 players the
    packets are equal and the last card goes face down to the taker (BM-4,
    BM-6). The taker always receives the turned card (BM-7).
    """
    n = hand1.shape[1]
    _kernels()
    return _second_hands(np.ascontiguousarray(deck), np.ascontiguousarray(cut, dtype=np.int64),
                         np.ascontiguousarray(hand1, dtype=U32),
                         np.ascontiguousarray(taker_pos, dtype=np.int64),
                         np.ascontiguousarray(turned, dtype=np.int64),
                         np.ascontiguousarray(dealer, dtype=np.int64),
                         n * R.FIRST_DISTRIBUTION[n] + 1, R.SECOND_PACKET[n])


def _second_hands(deck, cut, hand1, taker_pos, turned, dealer, start, size):
    rows, width = deck.shape
    n = hand1.shape[1]
    hands = np.empty((rows, n), dtype=np.uint32)
    bid_hand = np.empty(rows, dtype=np.uint32)
    one = np.uint32(1)
    for r in range(rows):
        top = cut[r] % width
        taker = taker_pos[r]
        turned_bit = one << np.uint32(turned[r])
        p = start
        for j in range(n):
            h = hand1[r, j]
            # BM-5: the 4-player taker's packet is one card short; BM-4, BM-6: equal packets
            take = size - 1 if (n == 4 and j == taker) else size
            for _ in range(take):
                if p < width:
                    h |= _card_bit(deck, r, top, p, width)
                p += 1
            if j == taker:
                bid_hand[r] = hand1[r, j] | turned_bit
                h |= turned_bit
            hands[r, (dealer[r] + 1 + j) % n] = h
        if n != 4:  # the last card, face down, to the taker
            hands[r, (dealer[r] + 1 + taker) % n] |= _card_bit(deck, r, top, width - 1, width)
    return hands, bid_hand


def turn_rows(ask: np.ndarray, position: int, hand1: np.ndarray, seat_of_position: np.ndarray,
              turned: np.ndarray, legal: np.ndarray, dealer: np.ndarray):
    """The asked rows' first hands, seats, turned cards, legal bids and dealers (BM-7)."""
    _kernels()
    return _turn_rows(ask, position, hand1, seat_of_position, turned, legal, dealer)


def _turn_rows(ask, j, hand1, seat_of_position, turned, legal, dealer):
    m = ask.shape[0]
    hand = np.empty(m, dtype=hand1.dtype)
    seat = np.empty(m, dtype=seat_of_position.dtype)
    turned_ask = np.empty(m, dtype=turned.dtype)
    legal_ask = np.empty(m, dtype=legal.dtype)
    dealer_ask = np.empty(m, dtype=dealer.dtype)
    for k in range(m):
        i = ask[k]
        hand[k] = hand1[i, j]
        seat[k] = seat_of_position[i, j]
        turned_ask[k] = turned[i]
        legal_ask[k] = legal[i]
        dealer_ask[k] = dealer[i]
    return hand, seat, turned_ask, legal_ask, dealer_ask


def first_bad_bid(action: np.ndarray, legal: np.ndarray) -> int:
    """Index of the first bid outside 0..PASS or not in its row's ``legal`` bits; -1 if none."""
    _kernels()
    return _first_bad_bid(action, legal)


def _first_bad_bid(action, legal):
    for k in range(action.shape[0]):
        a = action[k]
        if a < 0 or a > PASS or not (legal[k] >> np.uint8(a)) & np.uint8(1):
            return k
    return -1


def record_bids(ask, action, slot, position, rnd, bids, taker_pos, bid_round, dominant) -> int:
    """Write one turn's bids (BM-7); a taker settles the row. Compacts ``ask`` in place
    to the rows that passed and returns their number."""
    _kernels()
    return _record_bids(ask, action, slot, position, rnd, bids, taker_pos, bid_round, dominant)


def _record_bids(ask, action, slot, position, rnd, bids, taker_pos, bid_round, dominant):
    left = 0
    for k in range(ask.shape[0]):
        i = ask[k]
        a = action[k]
        bids[i, slot] = a
        if a == PASS:  # asked again in the next turn
            ask[left] = i
            left += 1
        else:
            taker_pos[i] = position
            bid_round[i] = rnd
            dominant[i] = a
    return left


# BYTE_POINTS[dominant, b, v]: points (BM-1, dominant family doubled) of the cards whose
# bits in byte b of a hand mask are v (byte b holds ranks 2b and 2b + 1, all families)
_CARD_POINTS = np.array([[R.card_points(c, dominant) for c in range(R.N_CARDS)]
                         for dominant in range(R.N_FAMILIES)], dtype=np.int64)
_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (value, bit)
BYTE_POINTS = np.einsum("vk,dbk->dbv", _BYTE_BITS, _CARD_POINTS.reshape(R.N_FAMILIES, 4, 8))
# DELTAS[outcome, role]: score change of the taker (0), his side (1), the others (2) (BM-10)
DELTAS = np.array([R.SCORE_CHANGES[o] for o in (R.FAILED, R.MADE, R.CAPO)], dtype=np.int8)


def _points(cards, dominant):
    """Card points of one mask (BM-1), four table lookups."""
    points = 0
    for b in range(4):
        points += BYTE_POINTS[dominant, b, (cards >> np.uint32(8 * b)) & np.uint32(255)]
    return points


def settle(on_side: np.ndarray, won: np.ndarray, tricks_won: np.ndarray, espion: np.ndarray,
           dominant: np.ndarray, taker: np.ndarray, bonus: np.ndarray):
    """BM-10, BM-11: the side's points (its tricks and the espion) and tricks, the
    outcome and the per-seat score changes, one pass per row."""
    _kernels()
    return _settle(on_side, won, tricks_won, espion, dominant.astype(np.int64),
                   taker.astype(np.int64), bonus)


def _settle(on_side, won, tricks_won, espion, dominant, taker, bonus):
    m, n = on_side.shape
    side_points = np.empty(m, dtype=np.int16)
    side_tricks = np.empty(m, dtype=np.int8)
    outcome = np.empty(m, dtype=np.int8)
    deltas = np.empty((m, n), dtype=np.int8)
    for r in range(m):
        cards = espion[r]
        count = 0
        for s in range(n):
            if on_side[r, s]:
                cards |= won[r, s]
                count += tricks_won[r, s]
        points = _points(cards, dominant[r])
        side_points[r] = points
        side_tricks[r] = count
        if points == R.TOTAL_POINTS:
            o = R.CAPO
        elif points + (R.BONUS_POINTS if bonus[r] else 0) >= R.CONTRACT_POINTS:
            o = R.MADE
        else:
            o = R.FAILED
        outcome[r] = o
        for s in range(n):
            deltas[r, s] = DELTAS[o, 0 if s == taker[r] else (1 if on_side[r, s] else 2)]
    return side_points, side_tricks, outcome, deltas


def taker_holdings(bid_hand: np.ndarray, hand: np.ndarray, dominant: np.ndarray,
                   taker: np.ndarray):
    """Dominant cards and card points (BM-1) of the taker's bid hand and full hand:
    four columns of the deal table, -1 where nobody took."""
    _kernels()
    return _taker_holdings(np.ascontiguousarray(bid_hand, dtype=U32),
                           np.ascontiguousarray(hand, dtype=U32),
                           np.ascontiguousarray(dominant, dtype=np.int64),
                           np.ascontiguousarray(taker, dtype=np.int64))


def _taker_holdings(bid_hand, hand, dominant, taker):
    m = hand.shape[0]
    dominant_at_bid = np.full(m, -1, dtype=np.int8)
    points_at_bid = np.full(m, -1, dtype=np.int16)
    dominant_held = np.full(m, -1, dtype=np.int8)
    points_held = np.full(m, -1, dtype=np.int16)
    for r in range(m):
        if taker[r] < 0:
            continue
        d = dominant[r]
        family = SUIT_MASK[d]
        dominant_at_bid[r] = popcount32(bid_hand[r] & family)
        points_at_bid[r] = _points(bid_hand[r], d)
        dominant_held[r] = popcount32(hand[r] & family)
        points_held[r] = _points(hand[r], d)
    return dominant_at_bid, points_at_bid, dominant_held, points_held
