"""The heuristic's compiled decisions equal its numpy statements on every decision of real deals.

A checking policy asks both paths at every decision of engine deals and games
(several parameter settings, both sans-atout readings) and fails on the first
row where they differ; the deals it plays are the compiled path's, and the
tables must equal those the numpy path plays alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from simulators.manille.engine import simulate_deals, simulate_games
from simulators.manille.policies import HeuristicPolicy
from simulators.manille.rules import ManilleConfig
from tests.twins import assert_same_answers


@dataclass(frozen=True)
class NumpyHeuristic(HeuristicPolicy):
    """The heuristic through its numpy statements."""

    compiled = False


class BothPaths:
    """Plays the compiled heuristic, checking each decision against the numpy one."""

    def __init__(self, **params):
        self.compiled = HeuristicPolicy(**params)
        self.numpy = NumpyHeuristic(**params)
        self.asked = dict.fromkeys(("choose", "contre", "play", "lead"), 0)

    def _both(self, method, obs):
        fast, slow = getattr(self.compiled, method)(obs), getattr(self.numpy, method)(obs)
        assert_same_answers(method, fast, slow)
        self.asked[method] += len(obs.hand)
        return fast

    def choose(self, obs):
        return self._both("choose", obs)

    def contre(self, obs):
        return self._both("contre", obs)

    def play(self, obs):
        self.asked["lead"] += len(obs.hand) if obs.position == 0 else 0
        return self._both("play", obs)


PARAMS = [
    {},
    {"charge_partner": 0, "lead_trumps_min": 1, "pass_threshold": 30.0},
    {"charge_partner": 2, "lead_trumps_min": 0, "contre_threshold": 10.0,
     "surcontre_threshold": 12.0},
    {"lead_trumps_min": 9, "sans_atout_margin": -20.0, "sa_manillon_value": 7.5,
     "trump_length_value": 1.25, "side_manille_value": 0.1},
]


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("must_beat", [False, True])
def test_compiled_heuristic_decides_as_numpy(params, must_beat):
    config = ManilleConfig(sans_atout_must_beat=must_beat)
    both = BothPaths(**params)
    batch = simulate_deals(config, both, 4_000, seed=len(params))
    assert all(n > 0 for n in both.asked.values()), both.asked
    expected = simulate_deals(config, NumpyHeuristic(**params), 4_000, seed=len(params))
    assert batch.table.equals(expected.table)
    assert all(np.array_equal(a, b) for a, b in zip(batch.arrays, expected.arrays, strict=True))


def test_compiled_heuristic_plays_whole_games_as_numpy():
    config = ManilleConfig(target=50)
    both = BothPaths()
    games = simulate_games(config, both, 200, seed=3)
    expected = simulate_games(config, NumpyHeuristic(), 200, seed=3)
    assert games.games.equals(expected.games) and games.deals.equals(expected.deals)


def test_compiled_choice_scores_equal_numpy_on_every_hand_shape():
    rng = np.random.default_rng(0)
    hands = np.array([int(sum(1 << int(c) for c in rng.choice(32, 8, replace=False)))
                      for _ in range(5_000)] + [0, 0xFFFFFFFF, 0x0F, 0xF0000000], dtype=np.uint32)
    for params in PARAMS:
        fast = HeuristicPolicy(**params).choice_scores(hands)
        slow = NumpyHeuristic(**params).choice_scores(hands)
        assert fast.shape == slow.shape == (len(hands), 5)
        assert np.array_equal(fast, slow)  # bit for bit: same operations, same order


def test_lead_trumps_min_zero_never_leads_from_a_void():
    # it once drew trumps from an empty pool (card -1, refused by the engine as illegal)
    # when a leader of the taking team held no trump
    simulate_deals(ManilleConfig(), HeuristicPolicy(lead_trumps_min=0), 3_000, seed=5)
    simulate_deals(ManilleConfig(), NumpyHeuristic(lead_trumps_min=0), 3_000, seed=5)


class _OwnFollow(HeuristicPolicy):
    """Overrides a numpy rule: the compiled card play must not bypass it."""

    def _follow(self, obs):
        return obs.legal, np.ones(len(obs.legal), dtype=bool)  # always the strongest legal


class _NumpyOwnFollow(_OwnFollow):
    compiled = False


def test_an_overridden_rule_is_played_not_its_compiled_twin():
    batch = simulate_deals(ManilleConfig(), _OwnFollow(), 2_000, seed=1)
    default = simulate_deals(ManilleConfig(), HeuristicPolicy(), 2_000, seed=1)
    numpy_only = simulate_deals(ManilleConfig(), _NumpyOwnFollow(), 2_000, seed=1)
    assert not np.array_equal(batch.arrays.plays, default.arrays.plays)
    assert np.array_equal(batch.arrays.plays, numpy_only.arrays.plays)


class _LovesSansAtout(HeuristicPolicy):
    """Overrides the choice scores: choose and contre must be built on the override."""

    def choice_scores(self, hand):
        scores = super().choice_scores(hand)
        scores[:, 4] += 1_000.0
        return scores


def test_overridden_choice_scores_drive_choose_and_contre():
    table = simulate_deals(ManilleConfig(), _LovesSansAtout(), 2_000, seed=2).table
    assert (table["trump"] == "SA").all()  # the dealer always names it, never passes
    assert (table["contre"] == "surcontre").all()  # every hand scores 1,000 for sans atout
