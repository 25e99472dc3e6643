"""Five Crowns rollouts: continuations resume the round exactly, worlds are dealt uniformly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simulators.five_crowns import rollout as FR
from simulators.five_crowns import rules as R
from simulators.five_crowns.engine import simulate_rounds
from simulators.five_crowns.game import GAME
from simulators.five_crowns.policies import HeuristicPolicy

CONFIG = R.FiveCrownsConfig(n_players=3, round_no=2)


@pytest.mark.parametrize("kind", ["draw", "discard", "go_out"])
def test_a_continuation_of_the_true_state_ends_as_the_round_does(monkeypatch, kind):
    """Forced to the base's answer at a decision, the engine resumed from the true state
    plays the rest of the round exactly as the base does: the same penalty (FC-5)."""
    first: dict[int, float] = {}
    scores = FR.RoundWorld.scores

    def spy(self, actions, valid, base, k, horizon, seed):
        out = scores(self, actions, valid, base, k, horizon, seed)
        for i, u in enumerate(self.units[self.active[self._mine()]].tolist()):
            first.setdefault(u, out[i, 0, 0])
        return out

    monkeypatch.setattr(FR.RoundWorld, "_dealt", lambda self, g, seat, units, k, seed:
                        self._copies(g, seat, k))
    monkeypatch.setattr(FR.RoundWorld, "scores", spy)
    base = GAME.make_policy("heuristic")
    rollout = GAME.make_policy("rollout", k=1, kinds=kind)
    simulate_rounds(CONFIG, [rollout, base, base], 40, seed=3)
    penalty = simulate_rounds(CONFIG, base, 40, seed=3).table["penalty_0"].to_numpy()
    assert len(first) >= 30
    assert all(first[u] == -penalty[u] for u in first)


def test_worlds_keep_what_the_player_sees_and_deal_the_rest_uniformly():
    """A world keeps the player's hand, the pile, hand sizes and the cards the others took
    from the pile; the stock's top is any hidden kind with probability copies / hidden
    (exact), checked by a chi-square test on 20,000 worlds."""
    caught = []

    class Spy(HeuristicPolicy):
        wants_world = True

        def draw(self, obs):
            if not caught and obs.world is not None and obs.turn >= 9:
                world = obs.world.select(np.array([0]))
                g = world.active[world._mine()]
                seat = world.seat[world._mine()].astype(np.int64)
                caught.append((world._dealt(g, seat, world.units[g], 20_000, 0),
                               world.rd.rows(g), int(seat[0]), obs.seen[0].copy()))
            return super().draw(obs)

    simulate_rounds(R.FiveCrownsConfig(n_players=4, round_no=5), [Spy()] * 4, 2, seed=5)
    worlds, truth, me, seen = caught[0]
    assert (worlds.hands[:, me] == truth.hands[0, me]).all()
    assert (worlds.pile_counts == truth.pile_counts[0]).all()
    assert (worlds.hands.sum(axis=2) == truth.hands[0].sum(axis=1)).all()
    assert (worlds.hands >= truth.known[0]).all()
    hidden = FR.KIND_COPIES.astype(np.int64) - truth.hands[0, me] - seen
    top = worlds.stock[np.arange(len(worlds.stock)), worlds.stock_top]
    observed = np.bincount(top, minlength=R.N_KINDS)
    assert observed[hidden == 0].sum() == 0
    kinds = np.flatnonzero(hidden)
    expected = hidden[kinds] / hidden.sum() * len(top)
    assert stats.chisquare(observed[kinds], expected).pvalue > 1e-3


def test_rollout_decisions_do_not_depend_on_the_batch():
    base = GAME.make_policy("heuristic")
    rollout = GAME.make_policy("rollout", k=2)
    whole = simulate_rounds(CONFIG, [rollout, base, base], 8, seed=9).table
    part = simulate_rounds(CONFIG, [rollout, base, base], 4, seed=9, first_round_id=4).table
    assert part["penalty_0"].to_list() == whole["penalty_0"].to_list()[4:]


@pytest.mark.parametrize(("params", "message"), [
    ({"base": "lookahead_typo"}, "base must be one of"),
    ({"kinds": "draw,place"}, "place cannot be rolled out"),
    ({"horizon": "game"}, "horizon must be one of turn, round"),
])
def test_rollout_parameters_are_checked(params, message):
    with pytest.raises(ValueError, match=message):
        GAME.make_policy("rollout", **params)
