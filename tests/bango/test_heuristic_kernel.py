"""The heuristic's compiled decisions equal its numpy statements on every decision of real games.

A referee policy asks both paths at every decision of whole engine games
(2-5 players, several parameter settings), and the greedy ``placeable``
bound of both at every lay decision, and fails on the first row where they
differ; the games it plays are the compiled path's.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pytest

from simulators.bango import _heuristic_kernel as compiled_heuristic
from simulators.bango.engine import simulate_games
from simulators.bango.policies import HeuristicPolicy, placeable
from simulators.bango.rules import BangoConfig
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
        self.asked = dict.fromkeys(("bango", "draw_on", "take", "spoil", "destroy", "lay",
                                    "placeable"), 0)

    def _both(self, method, obs):
        fast, slow = getattr(self.compiled, method)(obs), getattr(self.numpy, method)(obs)
        assert_same_answers(method, fast, slow)
        self.asked[method] += len(obs.seat)
        return fast

    def bango(self, obs):
        return self._both("bango", obs)

    def draw_on(self, obs):
        return self._both("draw_on", obs)

    def take(self, obs):
        return self._both("take", obs)

    def spoil(self, obs):
        return self._both("spoil", obs)

    def destroy(self, obs):
        return self._both("destroy", obs)

    def lay(self, obs):
        greedy = placeable(obs)
        assert (compiled_heuristic.placeable(obs) == greedy).all()
        self.asked["placeable"] += int((greedy > 0).sum())
        return self._both("lay", obs)

    def arrange(self, obs):
        return self.compiled.arrange(obs)


@pytest.mark.parametrize(("n_players", "params"), [
    (2, {}), (3, {"stop_threshold": 0.6, "enough": 1}), (4, {}),
    (4, {"shed": False, "cancel": False, "stop_threshold": 0.15, "enough": 3, "lay_margin": 3.0}),
    (5, {"enough": 6, "lay_margin": -2.0}),
])
def test_compiled_heuristic_decides_as_numpy(n_players, params):
    both = BothPaths(**params)
    batch = simulate_games(BangoConfig(n_players=n_players), both, 400, seed=n_players)
    assert all(both.asked[m] > 0 for m in both.asked), both.asked
    expected = simulate_games(BangoConfig(n_players=n_players), NumpyHeuristic(**params), 400,
                              seed=n_players)
    assert batch.games.equals(expected.games) and batch.turns.equals(expected.turns)


def test_numpy_subclass_keeps_the_parameters():
    assert [f.name for f in fields(NumpyHeuristic)] == [f.name for f in fields(HeuristicPolicy)]
    assert HeuristicPolicy.compiled and not NumpyHeuristic.compiled


@dataclass(frozen=True)
class NeverLays(HeuristicPolicy):
    """The heuristic, but it never lays unless compelled (a user's subclass)."""

    def lay(self, obs):
        return np.zeros(len(obs.seat), dtype=bool)


def test_a_subclass_redefining_lay_is_asked_lay_not_the_parents_plan():
    def final_lays(batch):  # BG-7's last lays: every lay but those of the turns
        return int(batch.games["lays"].sum()) - int(batch.turns["laid"].sum())

    parent = simulate_games(BangoConfig(n_players=4), HeuristicPolicy(), 200, seed=5)
    child = simulate_games(BangoConfig(n_players=4), NeverLays(), 200, seed=5)
    assert final_lays(parent) > 0  # the parent's plan lays at the end when it helps
    assert final_lays(child) == 0  # the child is asked lay, which says never
    assert child.turns["laid"].sum() > 0  # compulsory lays (BG-6) still happen
