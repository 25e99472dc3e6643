"""Bianco Mano's double-dummy regret of card play (BEN's DCWER): what each card a policy
played gives up in the true deal, every hand visible.

For every card of every taken deal (``DealArrays``), the position just before it: the
hands at the first card as :func:`~simulators.bianco_mano.solver.deal_positions` reads
them back (the espion set aside, BM-4/BM-6) less the cards already played, the trick in
progress and its leader (the taker for the first trick, then each trick's winner; play
clockwise, BM-8). A card's value is the card points (BM-1, 75 in a deal; no points for
tricks) the mover's side wins from there on under double-dummy play (BM-8's duties,
BM-9's trick winner); the taker's side is the taker alone at 3 players, his partner
opposite at 4, the holder of the called card at 5 (BM-4..BM-6), the others the defence,
as the engine counts the sides' tricks (BM-10). The espion and the announced bonus
(BM-10, BM-11) are the same whatever is played, so they change no regret. The card's
regret is the best legal card's value minus the played card's (0 when it was one of the
best), as Manille's (``simulators/manille/solver/regret.py``). Forced cards (one legal
card, BM-8) and the deals nobody took (BM-7: no play) are NaN.
:func:`~simulators.core.regret.summary` reads the result.
"""

from __future__ import annotations

import numpy as np

from simulators.bianco_mano.solver import _duties, deal_positions
from simulators.core import double_dummy as dd
from simulators.core import tricks
from simulators.core.regret import summary as summary  # re-exported (game-agnostic)


def card_regrets(arrays) -> tuple[np.ndarray, np.ndarray]:
    """(N, tricks, n) float each, indexed by trick and position in the trick (play order,
    as ``arrays.plays``): every played card's double-dummy regret (NaN where the card was
    the only legal one, or the deal was not played), and the best legal card's value (the
    mover's side's card points from that position on; NaN where the deal was not played).

    One solve per card: the value before a card is the best of its legal cards' values and
    the played card's value is the value of the position after it (plus the trick's points
    when it ends the trick), so the regret needs no solve of the cards not played."""
    plays = np.asarray(arrays.plays, np.int64)
    n_rows, n_tricks, n = plays.shape
    out = np.full((n_rows, n_tricks, n), np.nan)
    best_values = np.full((n_rows, n_tricks, n), np.nan)
    rows, start, _, _ = deal_positions(arrays, n)  # side 0 = the taker's side
    m = len(rows)
    if not m:
        return out, best_values
    plays = plays[rows]
    winners = np.asarray(arrays.trick_winners, np.int64)[rows]
    leaders = np.concatenate([start.leader[:, None], winners[:, :-1]], axis=1)  # BM-8
    side, points, trump = start.team, start.card_points, start.trump_mask
    at = np.arange(m)
    hands = start.hands.copy()
    before = np.empty((m, n_tricks, n, n), np.uint32)  # the hands before each card
    on_table = np.full((m, n_tricks, n, n), -1, np.int8)  # the trick before each card
    n_legal = np.empty((m, n_tricks, n), np.int64)
    mover_side = np.empty((m, n_tricks, n), np.int64)
    trick_points = points[at[:, None, None], plays].sum(axis=2)  # (m, tricks), BM-1
    gain = np.empty((m, n_tricks))  # the taker's side's share of each (BM-10)
    for t in range(n_tricks):
        trick = tricks.new_trick(m)
        for j in range(n):
            mover = (leaders[:, t] + j) % n  # clockwise (BM-8)
            card = plays[:, t, j]
            before[:, t, j] = hands
            on_table[:, t, j, :j] = plays[:, t, :j]
            legal = tricks.legal_mask(hands[at, mover], trick, trump, _duties())  # BM-8
            if ((legal >> card.astype(np.uint32)) & np.uint32(1) == 0).any():
                raise RuntimeError("a card played is not legal under BM-8")
            n_legal[:, t, j] = np.bitwise_count(legal)
            mover_side[:, t, j] = side[at, mover]
            trick = tricks.add_card(trick, card, j, trump)
            hands[at, mover] &= ~(np.uint32(1) << card.astype(np.uint32))
        if ((leaders[:, t] + trick.best_pos) % n != winners[:, t]).any():  # BM-9
            raise RuntimeError("the trick winners read back differ from the batch's")
        taken = side[at, winners[:, t]] == 0
        gain[:, t] = np.where(taken, trick_points[:, t], 0)
    per_deal = n_tricks * n
    pos = dd.position(before.reshape(-1, n), np.repeat(leaders, n, axis=1).ravel(),
                      np.repeat(trump, per_deal), _duties(),
                      card_points=np.repeat(points, per_deal, axis=0),
                      team=np.repeat(side, per_deal, axis=0), trick_points=0,
                      direction=dd.CLOCKWISE, trick=on_table.reshape(-1, n))
    value = dd.solve(pos).astype(np.float64).reshape(m, n_tricks, n)  # the taker's side's
    after = np.empty_like(value)  # the taker's side's points after each card, from there on
    after[:, :, :-1] = value[:, :, 1:]
    after[:, :, -1] = gain + np.concatenate([value[:, 1:, 0], np.zeros((m, 1))], axis=1)
    # the points still to win before each card (both sides'), and each card's regret
    left = trick_points[:, ::-1].cumsum(axis=1)[:, ::-1].astype(np.float64)[:, :, None]
    taker_moves = mover_side == 0
    best = np.where(taker_moves, value, left - value)
    played = np.where(taker_moves, after, left - after)
    out[rows] = np.where(n_legal > 1, best - played, np.nan)
    best_values[rows] = best
    return out, best_values
