"""Manille's PIMC player: sampled worlds, each solved double-dummy, the best average played.

At each decision it makes, the player deals the cards he cannot see
uniformly among the hidden hands **consistently with what he has seen**
(:func:`simulators.core.pimc.sample_hands`): his own hand, every card played
and by whom, and each void or "could not beat / could not trump" that the
play revealed under MA-5's duties (:func:`simulators.core.pimc.read_history`).
Each world is solved double-dummy (:mod:`simulators.core.double_dummy`) and
the action with the best mean is played:

* **card play** (MA-5): the mean points of 68 his team wins with each legal
  card. The MA-6 margin of a deal is ``(points − 34) × multiplier`` for
  the taking team, linear in the points, so the card with the most points on
  average is the card with the best mean score;
* **trump choice** (MA-3): each suit and sans atout solved from the first
  card (the dealer's right leads), scored as MA-6 margins (sans atout
  doubles); passing is scored with the partner naming by this policy's
  heuristic rules on his sampled hand;
* **contre / surcontre** (MA-4): said when the mean margin of the side asked
  is positive (a contre doubles a margin the side expects to win).

Not modelled in the worlds (stated, not hidden): what the trump choice and
the contre answers reveal about the hands (the worlds ignore them), and the
opponents' answers to a contre when the trump is chosen. Decisions the
``pimc_*`` switches turn off are the heuristic's (this class extends it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core import bits, pimc, tricks
from simulators.core import double_dummy as dd
from simulators.core.params import param
from simulators.manille import rules as R
from simulators.manille.observations import ChoiceObs
from simulators.manille.policies import HeuristicPolicy
from simulators.manille.solver import CARD_POINTS, TEAM_OF_SEAT, duty_tables

ALL = np.uint32(0xFFFFFFFF)
TRUMPS = (0, 1, 2, 3, R.SANS_ATOUT)


@dataclass(frozen=True)
class PimcPolicy(pimc.PimcSettings, HeuristicPolicy):
    """Perfect-Information Monte Carlo: worlds sampled from what the player knows, each solved
    double-dummy; the heuristic's parameters serve the decisions PIMC does not make."""

    pimc_choose: bool = param(False, doc="PIMC names the trump (MA-3); off by default: "
                                         "measured, it does not beat the heuristic's")
    pimc_contre: bool = param(False, doc="PIMC says contre / surcontre (MA-4); off by default: "
                                         "measured, it loses to the heuristic's (docs/manille.md)")
    pimc_play: bool = param(True, doc="PIMC plays the cards (MA-5); false: the heuristic")

    # ---------------------------------------------------------------- card play

    def play(self, obs):
        """The legal card with the most points on average over the sampled worlds."""
        if not self.pimc_play:
            return super().play(obs)
        return pimc.card_play(obs, lambda i: self._play_row(obs, i))

    def _play_row(self, obs, i: int) -> int:
        values = self.card_values(obs, i)
        if values.shape == ():  # one card worth playing
            return int(values)
        return _best_card(values, int(obs.legal[i]))

    def card_values(self, obs, i: int) -> np.ndarray:
        """(32,) row ``i``'s mean points of his team over the worlds after each legal card
        (-1 for the others), or a 0-d array holding the one card worth playing when every
        world says so (``pimc.only_move``)."""
        seat, trump = int(obs.seat[i]), int(obs.trump[i])
        duties = R.duties(trump, obs.sans_atout_must_beat)
        team = (TEAM_OF_SEAT != TEAM_OF_SEAT[seat]).astype(np.int64)  # side 0: his team
        seen = pimc.read_history(obs.plays[i], obs.leaders[i], tricks.SUIT_MASK[trump],
                                 duties, team=team, direction=dd.COUNTER_CLOCKWISE)
        hand = np.uint32(obs.hand[i])
        others = [s for s in range(R.N_SEATS) if s != seat]
        sizes = [R.HAND_SIZE - bits.popcount(seen.played_by[s]) for s in others]
        gen = pimc.row_generator(self.seed, obs.noise[i], hand, obs.played[i])
        hands = self._worlds(gen, hand, np.uint32(obs.played[i]), seat, others, sizes,
                             seen.cannot_hold)
        pos = dd.position(hands, seen.leader, tricks.SUIT_MASK[trump], duties,
                          card_points=CARD_POINTS, team=team, trick_points=R.TRICK_POINT,
                          direction=dd.COUNTER_CLOCKWISE, trick=seen.trick)
        only = pimc.only_move(pos)
        if only >= 0:
            return np.array(only)
        return dd.card_values(pos).astype(np.float64).mean(axis=0)

    def _worlds(self, gen, hand, played, seat, others, sizes, cannot_hold) -> np.ndarray:
        unknown = np.array(bits.cards_of(int(ALL & ~hand & ~played)), dtype=np.int64)
        allowed = np.zeros(len(unknown), np.int64)
        for j, s in enumerate(others):
            allowed |= (((int(cannot_hold[s]) >> unknown) & 1) == 0).astype(np.int64) << j
        hidden = pimc.sample_hands(gen, unknown, allowed, sizes, self.worlds)
        hands = np.zeros((self.worlds, R.N_SEATS), np.uint32)
        hands[:, seat] = hand
        for j, s in enumerate(others):
            hands[:, s] = hidden[:, j]
        return hands

    def _dealt_worlds(self, gen, hand, seat) -> np.ndarray:
        """Worlds at the deal's start: the other 24 cards, 8 to each other seat."""
        others = [s for s in range(R.N_SEATS) if s != seat]
        return self._worlds(gen, np.uint32(hand), np.uint32(0), seat, others,
                            [R.HAND_SIZE] * 3, np.zeros(R.N_SEATS, np.uint32))

    def _points(self, hands, trump: int, dealer: int, must_beat: bool) -> np.ndarray:
        """The taking team's double-dummy points of each world, from the first card."""
        team = ((TEAM_OF_SEAT + dealer) % 2).astype(np.int64)
        pos = dd.position(hands, (dealer - 1) % R.N_SEATS, tricks.SUIT_MASK[trump],
                          duty_tables(must_beat),
                          table=np.full(len(hands), int(trump == R.SANS_ATOUT)),
                          card_points=CARD_POINTS, team=team, trick_points=R.TRICK_POINT,
                          direction=dd.COUNTER_CLOCKWISE)
        return dd.solve(pos).astype(np.float64)

    # ---------------------------------------------------------------- trump choice

    def choose(self, obs):
        """The choice (a trump, or passing) with the best mean MA-6 margin over the worlds."""
        out = super().choose(obs)
        if not self.pimc_choose:
            return out
        for i in range(len(out)):
            out[i] = self._choose_row(obs, i)
        return out

    def _choose_row(self, obs, i: int) -> int:
        seat, dealer = int(obs.seat[i]), int(obs.dealer[i])
        gen = pimc.row_generator(self.seed, obs.noise[i], obs.hand[i], seat)
        hands = self._dealt_worlds(gen, obs.hand[i], seat)
        legal = int(obs.legal[i])
        margins = np.full(R.PASS_TO_PARTNER + 1, -np.inf)
        for trump in TRUMPS:
            if legal >> trump & 1:
                factor = R.SANS_ATOUT_FACTOR if trump == R.SANS_ATOUT else 1
                points = self._points(hands, trump, dealer, obs.sans_atout_must_beat)
                margins[trump] = ((points - R.THRESHOLD) * factor).mean()
        if legal >> R.PASS_TO_PARTNER & 1:
            margins[R.PASS_TO_PARTNER] = self._pass_margin(hands, seat, dealer,
                                                           obs.sans_atout_must_beat)
        return int(np.argmax(margins))

    def _pass_margin(self, hands, seat: int, dealer: int, must_beat: bool) -> float:
        """Mean margin when the partner names, by the heuristic rules, on each world."""
        partner = (seat + 2) % R.N_SEATS
        n = len(hands)
        obs = ChoiceObs(hands[:, partner], np.full(n, partner, np.int8),
                        np.full(n, dealer, np.int8), True,
                        np.full(n, 0b11111, np.uint8), None, must_beat)
        named = HeuristicPolicy.choose(self, obs)
        margin = np.empty(n)
        for trump in np.unique(named):
            rows = named == trump
            factor = R.SANS_ATOUT_FACTOR if trump == R.SANS_ATOUT else 1
            margin[rows] = (self._points(hands[rows], int(trump), dealer, must_beat)
                            - R.THRESHOLD) * factor
        return float(margin.mean())

    # ---------------------------------------------------------------- contre

    def contre(self, obs):
        """Contre (surcontre) when the asked side's mean margin over the worlds is positive."""
        out = super().contre(obs)
        if not self.pimc_contre:
            return out
        for i in range(len(out)):
            seat, dealer = int(obs.seat[i]), int(obs.dealer[i])
            gen = pimc.row_generator(self.seed, obs.noise[i], obs.hand[i], seat, obs.level)
            hands = self._dealt_worlds(gen, obs.hand[i], seat)
            taking = self._points(hands, int(obs.trump[i]), dealer,
                                  obs.sans_atout_must_beat) - R.THRESHOLD
            mine = taking if (seat - dealer) % 2 == 0 else -taking
            out[i] = mine.mean() > 0
        return out


def _best_card(values: np.ndarray, legal: int) -> int:
    """The legal card with the highest mean value; ties to the weakest, cheapest card."""
    cards = bits.cards_of(legal)
    return max(cards, key=lambda c: (values[c], -CARD_POINTS[c], c))
