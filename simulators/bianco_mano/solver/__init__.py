"""Bianco Mano's double-dummy values: the core solver (:mod:`simulators.core.double_dummy`)
under BM-8's duties, BM-9's trick winner and BM-10's count.

A value is the card points (BM-1: the dominant family's doubled, 75 in a
deal; no points for tricks) that side 0 wins from a position on when side 0
maximises them and side 1 minimises them, every hand visible. An engine deal
where someone took is solved from its first card: the hands at the start of
play (after the espion is set aside), the taker leading (BM-8), play
clockwise, side 0 = the taker's side (the taker alone with 3 players, his
partner opposite with 4, the holder of the called card with 5). Its value
adds the espion (BM-10), and the side makes its contract under double-dummy
play with 45 points or more, the Bianco Mano bonus counting 5 when announced
(BM-10, BM-11). Deals where everybody passed have no play and no value.
``command`` is ``tapisvert solve bianco-mano``. Importing this package does
not import numba.
"""

from __future__ import annotations

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.core import double_dummy as dd
from simulators.core import tricks
from simulators.core.double_dummy_command import CardRules

__all__ = ["RULES", "card_points", "start_hands", "deal_positions", "made", "solve_deals"]

RULES = CardRules(title="Bianco Mano", parse_card=R.parse_card, format_card=R.format_card,
                  direction=dd.CLOCKWISE, trick_points=0, seat_counts=R.PLAYER_COUNTS,
                  hand_size=lambda n: R.HAND_SIZE[n])
BASE_CARD_POINTS = tricks.card_points(R.BASE_POINTS).astype(np.int64)  # BM-1, per card
FAMILY_OF_CARD = np.arange(R.N_CARDS) % R.N_FAMILIES


def card_points(dominant) -> np.ndarray:
    """(32,) points of each card with ``dominant`` dominant, or (N, 32) for an array (BM-1:
    the dominant family's count double)."""
    dominant = np.asarray(dominant, np.int64)
    factor = np.where(FAMILY_OF_CARD == dominant[..., None], R.DOMINANT_FACTOR, 1)
    return BASE_CARD_POINTS * factor


def made(points, bonus=False):
    """BM-10, BM-11: 45 points or more, the announced bonus adding 5 to the count."""
    total = np.asarray(points) + np.where(bonus, R.BONUS_POINTS, 0)
    return total >= R.CONTRACT_POINTS if np.ndim(total) else bool(total >= R.CONTRACT_POINTS)


def start_hands(arrays, rows: np.ndarray) -> np.ndarray:
    """(m, n) uint32 hands at the first card of the deals ``rows`` (taken deals), read back
    from the cards each seat played: the taker leads trick 1, the winner of a trick the
    next, clockwise (BM-8)."""
    plays = np.asarray(arrays.plays)[rows].astype(np.int64)  # (m, tricks, n) in play order
    winners = np.asarray(arrays.trick_winners)[rows].astype(np.int64)
    m, n_tricks, n = plays.shape
    leaders = np.concatenate([np.asarray(arrays.taker)[rows].astype(np.int64)[:, None],
                              winners[:, :-1]], axis=1)
    seats = (leaders[:, :, None] + np.arange(n)) % n
    card_bits = np.left_shift(np.uint32(1), np.clip(plays, 0, 31).astype(np.uint32))
    card_bits = np.where(plays >= 0, card_bits, np.uint32(0))
    hands = np.empty((m, n), np.uint32)
    for s in range(n):
        hands[:, s] = np.bitwise_or.reduce(np.where(seats == s, card_bits, np.uint32(0))
                                           .reshape(m, n_tricks * n), axis=1)  # m may be 0
    return hands


def deal_positions(arrays, n_players: int):
    """The taken deals of a batch (``DealArrays``) from their first card: ``(rows, position,
    espion points, bonus)``; side 0 = the taker's side."""
    taker = np.asarray(arrays.taker).astype(np.int64)
    rows = np.flatnonzero(taker >= 0)
    taker = taker[rows]
    partner = np.asarray(arrays.partner)[rows].astype(np.int64)
    dominant = np.asarray(arrays.dominant)[rows].astype(np.int64)
    hands = start_hands(arrays, rows)
    espion = np.asarray(arrays.espion, np.uint32)[rows]
    union = np.bitwise_or.reduce(hands, axis=1) | espion if len(rows) else espion
    sizes = np.bitwise_count(hands)
    taker_hand = np.asarray(arrays.taker_hand, np.uint32)[rows]  # recorded, espion included
    if ((union != np.uint32(R.ALL_CARDS)).any() or (sizes != R.HAND_SIZE[n_players]).any()
            or (hands[np.arange(len(rows)), taker] | espion != taker_hand).any()):
        raise RuntimeError("the hands read back from the plays do not hold the deal's cards")
    seats = np.arange(n_players)[None, :]
    on_side = (seats == taker[:, None]) | (seats == partner[:, None])
    points = card_points(dominant)
    espion_points = np.array([sum(int(points[i, c]) for c in range(32) if espion[i] >> c & 1)
                              for i in range(len(rows))], np.int64)
    pos = dd.position(hands, taker, tricks.SUIT_MASK[dominant], _duties(), card_points=points,
                      team=np.where(on_side, 0, 1), trick_points=0, direction=dd.CLOCKWISE)
    return rows, pos, espion_points, np.asarray(arrays.bonus, bool)[rows]


def _duties():
    from simulators.bianco_mano.engine import DUTIES  # BM-8, the engine's own table

    return DUTIES


def solve_deals(config: R.BiancoManoConfig, n_deals: int, seed: int, policies=None):
    """Deals ``0 .. n_deals - 1`` of ``seed`` played by the engine (default: the heuristic
    at every seat, as ``tapisvert simulate``) and the taker side's double-dummy points,
    espion included: ``(arrays, rows, values)``, ``rows`` the taken deals."""
    from simulators.bianco_mano.engine import simulate_deals
    from simulators.bianco_mano.policies import make_policy

    batch = simulate_deals(config, policies or make_policy("heuristic"), n_deals, seed)
    rows, pos, espion_points, _ = deal_positions(batch.arrays, config.n_players)
    return batch.arrays, rows, dd.solve(pos).astype(np.int64) + espion_points
