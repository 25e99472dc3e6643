"""Bango rollouts: continuations resume the game exactly, worlds are dealt uniformly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simulators.bango import rollout as BR
from simulators.bango import rules as R
from simulators.bango.engine import simulate_games
from simulators.bango.game import GAME
from simulators.bango.observations import centre_counts

CONFIG = R.BangoConfig(n_players=3)


def _spy(monkeypatch, exact: bool):
    """Record the first continuation of each unit (and the world behind it)."""
    first: dict[int, tuple] = {}
    scores = BR.TurnWorld.scores

    def spy(self, actions, valid, base, k, horizon, seed):
        out = scores(self, actions, valid, base, k, horizon, seed)
        units = self.turn.units[self.g[self._mine()]]
        for i, u in enumerate(units.tolist()):
            first.setdefault(u, (self.phase, out[i, 0, 0]))
        return out

    if exact:  # the true state, not a dealt world
        monkeypatch.setattr(BR.TurnWorld, "_dealt",
                            lambda self, g, seat, units, k, seed: self.turn.tb.rows(
                                np.repeat(g, k)))
    monkeypatch.setattr(BR.TurnWorld, "scores", spy)
    return first


@pytest.mark.parametrize("kind", [pytest.param("draw_on", marks=pytest.mark.slow),
                                  pytest.param("bango", marks=pytest.mark.slow), "take", "lay"])
def test_a_continuation_of_the_true_state_ends_as_the_game_does(monkeypatch, kind):
    """Forced to the base's answer at a decision, the engine resumed from the true state
    plays the rest of the game exactly as the game played by the base: same BG-8 score
    (stop-or-draw and bango, the costlier kinds, under -m slow)."""
    first = _spy(monkeypatch, exact=True)
    base = GAME.make_policy("optimal")
    rollout = GAME.make_policy("rollout", base="optimal", k=1, kinds=kind)
    simulate_games(CONFIG, [rollout, base, base], 6, seed=3)
    games = simulate_games(CONFIG, base, 6, seed=3).games
    score = games.filter(games["seat"] == 0).sort("game_id")["score"].to_numpy()
    assert len(first) >= 5
    assert all(first[u][1] == score[u] for u in first)


def test_worlds_keep_what_the_player_sees_and_deal_the_rest_uniformly():
    """A world keeps the player's hand, the centre, the face-up cards, every hand size and
    the cards the others took face up; the stock's top card is any hidden card with
    probability copies / hidden (exact), checked by a chi-square test on 20,000 worlds."""
    caught = []

    class Spy(type(GAME.make_policy("optimal"))):
        wants_world = True

        def draw_on(self, obs):
            if not caught and obs.world is not None and int(obs.stock_left[0]) < 40:
                world = obs.world.select(np.array([0]))
                g, seat = world.g[world._mine()], world.seat[world._mine()]
                caught.append((world._dealt(g, seat, world.turn.units[g], 20_000, 0),
                               world.turn.tb.rows(g), int(seat[0])))
            return super().draw_on(obs)

    simulate_games(R.BangoConfig(n_players=4), [Spy(), *[GAME.make_policy("optimal")] * 3],
                   4, seed=5)
    worlds, truth, me = caught[0]
    assert (worlds.hands[:, me] == truth.hands[0, me]).all()
    assert (worlds.public == truth.public[0]).all() and (worlds.centre == truth.centre[0]).all()
    assert (worlds.size == truth.size[0]).all()
    assert (worlds.hands.sum(axis=2) == truth.size[0]).all()
    assert (worlds.hands >= truth.known[0]).all()
    others_known = truth.known[0].sum(axis=0) - truth.known[0, me]
    hidden = (R.KIND_COPIES.astype(np.int64) - truth.hands[0, me] - truth.public[0]
              - centre_counts(truth.centre)[0] - others_known)
    top = worlds.stock[np.arange(len(worlds.stock)), worlds.top]
    observed = np.bincount(top, minlength=R.N_KINDS)
    assert observed[hidden == 0].sum() == 0
    kinds = np.flatnonzero(hidden)
    expected = hidden[kinds] / hidden.sum() * len(top)
    assert stats.chisquare(observed[kinds], expected).pvalue > 1e-3


def test_rollout_decisions_do_not_depend_on_the_batch():
    base = GAME.make_policy("optimal")
    rollout = GAME.make_policy("rollout", base="optimal", k=2, kinds="take")
    whole = simulate_games(CONFIG, [rollout, base, base], 4, seed=9).games
    part = simulate_games(CONFIG, [rollout, base, base], 2, seed=9, first_game=2).games
    assert part["score"].to_list() == whole.filter(whole["game_id"] >= 2)["score"].to_list()


@pytest.mark.parametrize(("params", "message"), [
    ({"base": "rollout"}, "base must be one of"), ({"base": "nobody"}, "base must be one of"),
    ({"kinds": "draw_on,spoil"}, "spoil cannot be rolled out"),
    ({"horizon": "round"}, "horizon must be one of turn, game"),
    ({"k": 0}, r"k must be in \[1, 4096\]"),
])
def test_rollout_parameters_are_checked(params, message):
    with pytest.raises(ValueError, match=message):
        GAME.make_policy("rollout", **params)
