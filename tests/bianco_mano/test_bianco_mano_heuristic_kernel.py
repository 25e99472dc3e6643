"""The heuristic's compiled bids and cards equal its numpy statements on every decision of
real deals.

A checking policy asks both paths at every bid and card of engine deals and
games (3 to 5 players, the BM-11 bonus on and off, several parameter
settings) and fails on the first row where they differ; the deals it plays
are the compiled path's, and the tables must equal those the numpy path
(``compiled = False``) plays alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from simulators.bianco_mano import BiancoManoConfig
from simulators.bianco_mano.engine import simulate_deals, simulate_games
from simulators.bianco_mano.policies import HeuristicPolicy
from tests.twins import assert_same_answers


@dataclass(frozen=True)
class NumpyHeuristic(HeuristicPolicy):
    """The heuristic through its numpy statements."""

    compiled = False


class BothPaths:
    """Plays the compiled heuristic, checking each bid and card against the numpy one."""

    def __init__(self, **params):
        self.compiled = HeuristicPolicy(**params)
        self.numpy = NumpyHeuristic(**params)
        self.asked = dict.fromkeys(("bid", "bid round 2", "play", "lead"), 0)

    def _both(self, method, obs):
        fast, slow = getattr(self.compiled, method)(obs), getattr(self.numpy, method)(obs)
        assert_same_answers(method, fast, slow)
        return fast

    def first_packet(self, obs):
        return self.compiled.first_packet(obs)

    def bid(self, obs):
        self.asked["bid" if obs.round == 1 else "bid round 2"] += len(obs.hand)
        return self._both("bid", obs)

    def espion(self, obs):
        return self.compiled.espion(obs)

    def call(self, obs):
        return self.compiled.call(obs)

    def announce(self, obs):
        return self.compiled.announce(obs)

    def play(self, obs):
        self.asked["play"] += len(obs.hand)
        self.asked["lead"] += len(obs.hand) if obs.position == 0 else 0
        return self._both("play", obs)


PARAMS = [
    {},
    {"charge_partner": 0, "lead_trump_min": 1, "take_threshold": 3.0, "round2_threshold": 3.5},
    {"charge_partner": 2, "lead_trump_min": 0, "bonus_discount": 2.5, "side_mamma_value": 0.5},
    {"lead_trump_min": 9, "trump_card_value": 1.25, "take_threshold": 5.5,
     "bonus_discount": 30.0},
]


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("n_players, bonus", [(3, True), (4, False), (4, True), (5, True)])
def test_compiled_heuristic_decides_as_numpy(params, n_players, bonus):
    config = BiancoManoConfig(n_players=n_players, bianco_mano=bonus)
    both = BothPaths(**params)
    batch = simulate_deals(config, both, 3_000, seed=len(params))
    assert all(n > 0 for n in both.asked.values()), both.asked
    expected = simulate_deals(config, NumpyHeuristic(**params), 3_000, seed=len(params))
    assert batch.table.equals(expected.table)


def test_compiled_heuristic_plays_whole_games_as_numpy():
    config = BiancoManoConfig(n_players=4, bianco_mano=True)
    games = simulate_games(config, BothPaths(), 100, seed=3)
    expected = simulate_games(config, NumpyHeuristic(), 100, seed=3)
    assert games.games.equals(expected.games) and games.deals.equals(expected.deals)


def test_bid_score_is_the_same_both_ways():
    hands = np.random.default_rng(5).integers(1, 2**32, size=2_000, dtype=np.uint64)
    hands = hands.astype(np.uint32)
    family = np.arange(2_000) % 4
    for params in PARAMS:
        fast = HeuristicPolicy(**params).bid_score(hands, family)
        slow = NumpyHeuristic(**params).bid_score(hands, family)
        np.testing.assert_array_equal(fast, slow)


def test_an_overridden_bid_score_reaches_the_bids():
    @dataclass(frozen=True)
    class NeverTakes(HeuristicPolicy):
        def bid_score(self, hand, family):
            return np.zeros(np.shape(hand))

    deals = simulate_deals(BiancoManoConfig(n_players=4), NeverTakes(), 500, seed=1)
    assert (deals.table["outcome"] == "all_pass").all()


@pytest.mark.parametrize("policy", [HeuristicPolicy, NumpyHeuristic])
def test_lead_trump_min_zero_never_leads_from_a_void(policy):
    # lead_trump_min=0 once drew dominant cards from a hand without any: an empty pool,
    # an illegal card and IllegalAction; now a lead needs at least one dominant card
    for n_players in (3, 4, 5):
        deals = simulate_deals(BiancoManoConfig(n_players=n_players), policy(lead_trump_min=0),
                               3_000, seed=2)
        assert deals.table.height == 3_000
