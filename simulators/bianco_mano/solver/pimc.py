"""Bianco Mano's PIMC card player: sampled worlds, each solved double-dummy, the best average.

At each card he plays, the player deals the cards he cannot see uniformly
among the hidden places **consistently with what he has seen**
(:func:`simulators.core.pimc.sample_hands`): his own hand (and his espion
when he took), every card played and by whom, each void and each "could not
beat the dominant card" the play revealed under BM-8
(:func:`simulators.core.pimc.read_history`), the turned card (the taker
received it: it is in his hand or his espion, BM-4..BM-6), the espion of two
unseen cards (3 and 5 players) and, in 5 players, the called card (never in
the taker's hand or espion; its holder is the partner, so the sides differ
from world to world until it is played, BM-6).

Each world is solved double-dummy for the taker's side's points
(:mod:`simulators.core.double_dummy`); the player scores each legal card by
his mean BM-10 score change over the worlds (made, capo or failed, the
announced bonus counted, BM-11), ties broken by the mean points. Bidding,
the espion, the call and the announcement are the heuristic's (this class
extends it): the worlds do not read them either (stated, not hidden).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import DUTIES
from simulators.bianco_mano.policies import HeuristicPolicy
from simulators.bianco_mano.solver import card_points
from simulators.core import bits, pimc
from simulators.core import double_dummy as dd
from simulators.core.params import param

ALL = np.uint32(0xFFFFFFFF)


@dataclass(frozen=True)
class PimcPolicy(pimc.PimcSettings, HeuristicPolicy):
    """Perfect-Information Monte Carlo card play over worlds consistent with what the player
    has seen; the heuristic's parameters serve the other decisions."""

    worlds: int = pimc.worlds_param("worlds sampled per card played")  # its only decision

    def play(self, obs):
        """The legal card with the best mean BM-10 score change over the sampled worlds."""
        return pimc.card_play(obs, lambda i: self._play_row(obs, i))

    def _play_row(self, obs, i: int) -> int:
        found = self._card_scores(obs, i)
        if not isinstance(found, tuple):
            return found
        score, mean_points, points = found
        legal = bits.cards_of(int(obs.legal[i]))
        return max(legal, key=lambda c: (score[c], mean_points[c], -points[c], c))

    def card_values(self, obs, i: int) -> np.ndarray:
        """(32,) row ``i``'s value of each card: the mean BM-10 score change over the worlds
        plus a thousandth of the side's mean points (PIMC's tie-break), or a 0-d array
        holding the one card worth playing when every world says so."""
        found = self._card_scores(obs, i)
        if not isinstance(found, tuple):
            return np.array(found)
        score, mean_points, _ = found
        return score + mean_points / 1000.0

    def _card_scores(self, obs, i: int):
        """(mean score change, mean side points, card points) per card over the worlds, or
        the one card worth playing (an int)."""
        n, seat, taker = obs.n_players, int(obs.seat[i]), int(obs.taker[i])
        dominant = int(obs.dominant[i])
        points = card_points(dominant)
        seen = pimc.read_history(obs.plays[i], obs.leaders[i], obs.dominant_mask[i], DUTIES,
                                 team=np.zeros(n, np.int64), direction=dd.CLOCKWISE)
        hand, played = np.uint32(obs.hand[i]), np.uint32(obs.played[i])
        own_espion = np.uint32(obs.own_espion[i]) if obs.own_espion is not None else 0
        gen = pimc.row_generator(self.seed, obs.noise[i], hand, played)
        hands, espion = self._worlds(obs, i, gen, seen, hand, played, own_espion)
        side = self._sides(obs, i, hands, seen, seat)  # (worlds, n) True: the taker's side
        team = np.where(side, 0, 1).astype(np.int64)
        pos = dd.position(hands, seen.leader, obs.dominant_mask[i], DUTIES, card_points=points,
                          team=team, direction=dd.CLOCKWISE, trick=seen.trick)
        only = pimc.only_move(pos)
        if only >= 0:
            return int(only)
        future = dd.card_values(pos).astype(np.float64)  # taker's side's points from here on
        won = np.array([[int(points[bits.cards_of(int(seen.won_by[s]))].sum()) for s in range(n)]
                        ], dtype=np.float64)
        banked = (won * side).sum(axis=1) + np.array(
            [points[bits.cards_of(int(e))].sum() for e in espion], dtype=np.float64)
        total = banked[:, None] + future  # the side's points at the end, per world and card
        bonus = bool(obs.bonus[i]) if obs.bonus is not None else False
        made = total + (R.BONUS_POINTS if bonus else 0) >= R.CONTRACT_POINTS
        capo = total >= R.TOTAL_POINTS
        mine = side[:, seat][:, None]
        is_taker = seat == taker
        gain = np.where(mine, np.where(made, 2 if is_taker else 1, -2 if is_taker else -1),
                        np.where(made, np.where(capo, -2, -1), 1))
        sign = 1.0 if side[0, seat] else -1.0  # the side's points: more for the taker's side
        return gain.mean(axis=0), total.mean(axis=0) * sign, points

    def _worlds(self, obs, i, gen, seen, hand, played, own_espion):
        """(worlds, n) hands now and (worlds,) espions of the hidden places."""
        n, seat, taker = obs.n_players, int(obs.seat[i]), int(obs.taker[i])
        has_espion = R.ESPION_SIZE[n] > 0
        hidden_espion = has_espion and seat != taker
        slots = [s for s in range(n) if s != seat]
        sizes = [R.HAND_SIZE[n] - bits.popcount(seen.played_by[s]) for s in slots]
        if hidden_espion:
            slots.append(-1)  # the espion, set aside by the taker
            sizes.append(R.ESPION_SIZE[n])
        unknown = np.array(bits.cards_of(int(ALL & ~hand & ~played & ~np.uint32(own_espion))),
                           dtype=np.int64)
        allowed = np.zeros(len(unknown), np.int64)
        for j, s in enumerate(slots):
            ok = np.ones(len(unknown), bool) if s < 0 else \
                ((int(seen.cannot_hold[s]) >> unknown) & 1) == 0
            allowed |= ok.astype(np.int64) << j
        taker_places = sum(1 << j for j, s in enumerate(slots) if s in (taker, -1))
        turned = int(obs.turned[i]) if obs.turned is not None else -1
        called = int(obs.called[i]) if obs.called is not None else -1
        for card, mask in ((turned, taker_places),  # BM-4..BM-6: the taker got the turned card
                           (called, ~taker_places)):  # BM-6: never the taker's nor the espion's
            allowed[unknown == card] &= mask
        hidden = pimc.sample_hands(gen, unknown, allowed, sizes, self.worlds)
        hands = np.zeros((self.worlds, n), np.uint32)
        hands[:, seat] = hand
        espion = np.full(self.worlds, np.uint32(own_espion))
        for j, s in enumerate(slots):
            if s < 0:
                espion = hidden[:, j]
            else:
                hands[:, s] = hidden[:, j]
        return hands, espion

    def _sides(self, obs, i, hands, seen, seat) -> np.ndarray:
        """(worlds, n) whether each seat plays for the taker in each world (BM-4..BM-6)."""
        n, taker = obs.n_players, int(obs.taker[i])
        seats = np.arange(n)
        if n == 4:
            side = (seats % 2) == (taker % 2)
        elif n == 3:
            side = seats == taker
        else:
            called = np.uint32(1) << np.uint32(int(obs.called[i]))
            holder = [s for s in range(n) if seen.played_by[s] & called]
            if holder:
                side = (seats == taker) | (seats == holder[0])
            else:
                held = (hands & called) != 0  # (worlds, n): who holds it in each world
                return held | (seats == taker)[None, :]
        return np.broadcast_to(side, hands.shape).copy()


@dataclass(frozen=True)
class TrueDealCards(PimcPolicy):
    """PIMC's valuation of one world, the deal actually dealt: each legal card's BM-10 score
    change in the true deal solved double-dummy, plus a thousandth of the side's points
    (the labels of ``tapisvert learn bianco-mano generate --true-deal``). The engine shows
    the deal (``world``) only to a policy that asks for it; a teacher, never a player."""

    worlds: int = param(1, low=1, high=1, doc="one: the deal dealt")
    wants_world: ClassVar[bool] = True

    def _worlds(self, obs, i, gen, seen, hand, played, own_espion):
        """(1, n) every seat's hand now and (1,) the espion, as dealt."""
        if obs.world is None:
            raise ValueError("the true-deal teacher needs the engine's world (wants_world)")
        n = obs.n_players
        world = np.asarray(obs.world[i], np.uint32)
        return (world[:n] & ~np.uint32(played))[None], world[n:n + 1]
