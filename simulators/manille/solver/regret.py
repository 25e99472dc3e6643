"""The double-dummy regret of card play (BEN's DCWER): what each card a policy played gives up
in the true deal, every hand visible.

For every card of every deal (``DealArrays``), the position just before it — the hands as
dealt less the cards already played, the trick in progress, its leader (the dealer's right
for the first trick, then each trick's winner, MA-5) — is solved double-dummy for each legal
card: the points of 68 (MA-6) the mover's team wins from there on. The card's regret is the
best legal card's value minus the played card's (0 when it was one of the best). A policy's
figures are the share of its card plays with a positive regret and the mean regret per
card play (over the plays with more than one legal card: a forced card gives up nothing).
"""

from __future__ import annotations

import numpy as np

from simulators.core import double_dummy as dd
from simulators.core.regret import summary as summary  # re-exported (game-agnostic)
from simulators.manille import rules as R
from simulators.manille.solver import mover_position


def card_regrets(arrays, sans_atout_must_beat: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(N, 8, 4) float each: every played card's double-dummy regret (NaN where the card was
    the only legal one), and the best legal card's value (the mover's team's points)."""
    n = len(arrays.dealer)
    dealer = np.asarray(arrays.dealer, np.int64)
    trump = np.asarray(arrays.trump, np.int64)
    plays = np.asarray(arrays.plays, np.int64)
    winners = np.asarray(arrays.trick_winners, np.int64)
    hands = np.asarray(arrays.hands, np.uint32).copy()
    leaders = np.concatenate([((dealer - 1) % R.N_SEATS)[:, None], winners[:, :-1]], axis=1)
    out = np.full((n, 8, R.N_SEATS), np.nan)
    best_values = np.zeros((n, 8, R.N_SEATS))
    rows = np.arange(n)
    for t in range(8):
        trick = np.full((n, R.N_SEATS), -1, np.int8)
        for j in range(R.N_SEATS):
            mover = (leaders[:, t] - j) % R.N_SEATS  # play turns from s to s - 1 (MA-5)
            pos = mover_position(hands, leaders[:, t], trump, mover, trick,
                                 sans_atout_must_beat)
            values = dd.card_values(pos).astype(np.float64)  # -1 where illegal
            legal = values >= 0
            card = plays[:, t, j]
            several = legal.sum(axis=1) > 1
            best = np.where(legal, values, -np.inf).max(axis=1)
            regret = best - values[rows, card]
            out[:, t, j] = np.where(several, regret, np.nan)
            best_values[:, t, j] = best
            hands[rows, mover] &= ~(np.uint32(1) << card.astype(np.uint32))
            trick[:, j] = card
    return out, best_values
