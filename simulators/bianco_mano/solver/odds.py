"""Odds with strength: one bidder's situation, the same dealt worlds played three ways.

``tapisvert odds bianco-mano --hand ... --turned ... --play heuristic,pimc,double-dummy``:
the bidder takes (BM-7: in round 1, or in round 2 naming ``--family``) on
every deal where his turn comes; the bidding, the espion, the call and the
announcement are the table's policies' (so each way answers the same
question), and the cards are played

* ``heuristic``: by the table's policies (the heuristic by default);
* ``pimc``: by a PIMC player at every seat (:mod:`simulators.bianco_mano.solver.pimc`);
* ``double-dummy``: perfectly, every hand visible (the bound of the cards).

Deal ``i`` is the same under every way, so the differences are paired.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.dealing import TAKE, Situation, play_attempts
from simulators.bianco_mano.solver import deal_positions, made
from simulators.bianco_mano.solver.pimc import PimcPolicy
from simulators.core import double_dummy as dd
from simulators.core.dispatch import forwards
from simulators.core.pimc import CardsBy as _CoreCardsBy
from simulators.core.pimc import parse_plays


@forwards("bidder", "first_packet", "bid", "espion", "call", "announce")
class CardsBy(_CoreCardsBy):
    """A seat's policy for every decision but the card play, another one's card play."""


def play_strengths(config: R.BiancoManoConfig, policies, situation: Situation,
                   family: int | None, plays: str, count: int, seed: int = 0, *,
                   worlds: int = 8, first: int = 0) -> pl.DataFrame:
    """Deal attempts ``first .. first + count - 1``: one row per way of playing and deal that
    reaches the bidder's turn (he takes), ``decision`` the way; ``outcome``, ``side_points``
    (the taker's side's, espion included) and ``score_change`` (the bidder's, BM-10)."""
    ways = parse_plays(plays)
    n = config.n_players
    per_seat = list(policies) if isinstance(policies, list | tuple) else [policies] * n
    base, ids = play_attempts(config, per_seat, situation, TAKE, first, count, seed,
                              family=family)
    frames = []
    for way in ways:
        if way in ("pimc", "net"):
            from simulators.bianco_mano.learn import NetPolicy

            strong = PimcPolicy(worlds=worlds) if way == "pimc" else NetPolicy()
            arrays, _ = play_attempts(config, [CardsBy(p, strong) for p in per_seat],
                                      situation, TAKE, first, count, seed, family=family)
            frames.append(_rows(way, ids, arrays.outcome, arrays.side_points,
                                arrays.deltas[:, situation.seat]))
        elif way == "double-dummy":
            rows, pos, espion_points, bonus = deal_positions(base, n)
            points = dd.solve(pos).astype(np.int64) + espion_points
            outcome = np.where(made(points, bonus),
                               np.where(points >= R.TOTAL_POINTS, R.CAPO, R.MADE), R.FAILED)
            taker_change = np.array([R.SCORE_CHANGES[o][0] for o in outcome], np.int64)
            frames.append(_rows(way, ids[rows], outcome, points, taker_change))
        else:
            frames.append(_rows(way, ids, base.outcome, base.side_points,
                                base.deltas[:, situation.seat]))
    return pl.concat(frames)


def _rows(way, ids, outcome, side_points, score_change) -> pl.DataFrame:
    outcome = np.asarray(outcome)
    return pl.DataFrame({
        "decision": [way] * len(ids), "deal_id": np.asarray(ids, np.int64),
        "reached": np.ones(len(ids), bool),
        "made": (outcome == R.MADE) | (outcome == R.CAPO), "capo": outcome == R.CAPO,
        "side_points": np.asarray(side_points).astype(np.int32),
        "score_change": np.asarray(score_change).astype(np.int32),
    })
