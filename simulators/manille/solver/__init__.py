"""Manille's double-dummy values: the core solver (:mod:`simulators.core.double_dummy`) under
MA-5's duties and MA-6's count.

A value is the points of 68 (card points, MA-1, and 1 per trick, MA-6) that
side 0 wins from a position on when side 0 maximises them and side 1
minimises them, every hand visible. An engine deal is solved from its first
card with the trump it was played with, the dealer's right leading (MA-2,
MA-5), play counter-clockwise, side 0 = the taking team (the dealer's, MA-3):
it makes its contract under double-dummy play when it ends above 34 (MA-6).
``command`` is ``tapisvert solve manille``. Importing this package does not
import numba.
"""

from __future__ import annotations

import numpy as np

from simulators.core import double_dummy as dd
from simulators.core import tricks
from simulators.core.double_dummy_command import CardRules
from simulators.manille import rules as R

__all__ = ["RULES", "CARD_POINTS", "deal_positions", "made", "duty_tables", "solve_deals"]

RULES = CardRules(title="Manille coincée", parse_card=R.parse_card, format_card=R.format_card,
                  direction=dd.COUNTER_CLOCKWISE, trick_points=R.TRICK_POINT, seat_counts=(4,),
                  hand_size=lambda n: R.HAND_SIZE)
CARD_POINTS = tricks.card_points(R.POINTS).astype(np.int64)  # MA-1, per card
TEAM_OF_SEAT = np.arange(R.N_SEATS) % 2  # partners face to face: 0 & 2, 1 & 3


def made(points) -> np.ndarray | bool:
    """MA-6: the taking team scores when it ends above 34 (34-34 scores nobody)."""
    return np.asarray(points) > R.THRESHOLD if np.ndim(points) else int(points) > R.THRESHOLD


def duty_tables(sans_atout_must_beat: bool):
    """MA-5's two tables: with a trump suit (index 0), sans atout (index 1, the option's)."""
    return (R.duties(0), R.duties(R.SANS_ATOUT, sans_atout_must_beat))


def deal_positions(arrays, sans_atout_must_beat: bool = False) -> dd.Position:
    """Each engine deal (``DealArrays``) from its first card: the hands as dealt, the trump it
    was played with, the dealer's right leading; side 0 = the dealer's team (MA-3)."""
    dealer = np.asarray(arrays.dealer, np.int64)
    trump = np.asarray(arrays.trump, np.int64)
    team = (TEAM_OF_SEAT[None, :] + dealer[:, None]) % 2  # 0 for the dealer and his partner
    leader = (dealer - 1) % R.N_SEATS  # MA-2, MA-5: the dealer's right (counter-clockwise)
    return dd.position(np.asarray(arrays.hands, np.uint32), leader, tricks.SUIT_MASK[trump],
                       duty_tables(sans_atout_must_beat),
                       table=(trump == R.SANS_ATOUT).astype(np.int64), card_points=CARD_POINTS,
                       team=team, trick_points=R.TRICK_POINT, direction=dd.COUNTER_CLOCKWISE)


def mover_position(hands, leader, trump, mover, trick,
                   sans_atout_must_beat: bool = False) -> dd.Position:
    """Positions in the middle of deals: ``hands`` (N, 4) the cards each seat still holds,
    ``trick`` (N, 4) int8 the trick in progress by place (-1 not yet), led by ``leader``;
    side 0 = the team of ``mover``, the seat to play (MA-5, MA-6)."""
    trump = np.asarray(trump, np.int64)
    team = (TEAM_OF_SEAT[None, :] != TEAM_OF_SEAT[np.asarray(mover, np.int64)][:, None])
    return dd.position(np.asarray(hands, np.uint32), np.asarray(leader, np.int64),
                       tricks.SUIT_MASK[trump], duty_tables(sans_atout_must_beat),
                       table=(trump == R.SANS_ATOUT).astype(np.int64), card_points=CARD_POINTS,
                       team=team.astype(np.int64), trick_points=R.TRICK_POINT,
                       direction=dd.COUNTER_CLOCKWISE, trick=trick)


def solve_deals(config: R.ManilleConfig, n_deals: int, seed: int, policies=None):
    """Deals ``0 .. n_deals - 1`` of ``seed`` played by the engine (default: the heuristic
    at every seat, as ``tapisvert simulate``) and their double-dummy values: ``(arrays,
    values)``, the taking team's points under double-dummy play."""
    from simulators.manille.engine import simulate_deals
    from simulators.manille.policies import make_policy

    batch = simulate_deals(config, policies or make_policy("heuristic"), n_deals, seed)
    pos = deal_positions(batch.arrays, config.sans_atout_must_beat)
    return batch.arrays, dd.solve(pos).astype(np.int64)
