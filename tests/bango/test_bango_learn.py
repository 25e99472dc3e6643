"""Bango's learned player (simulators/bango/learn.py): the decider's view, the features
read back from labels, the teacher's values against the rollout's own choices, the nets'
legality and refusals, and the pipeline end to end."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pytest
from extras import require_extra

from simulators.bango import learn as L
from simulators.bango import rules as R
from simulators.bango.engine import simulate_games
from simulators.bango.policies import HeuristicPolicy
from simulators.bango.rollout import RolloutPolicy
from simulators.core.learn.spec import Recorder
from tests.cli_run import run_cli


@dataclass(frozen=True)
class Keep(HeuristicPolicy):
    """The heuristic, keeping every observation of the four learned decisions."""

    wants_known = True
    seen: list = field(default_factory=list, compare=False, hash=False)

    def draw_on(self, obs):
        self.seen.append(("draw_on", obs))
        return super().draw_on(obs)

    def bango(self, obs):
        self.seen.append(("bango", obs))
        return super().bango(obs)

    def take(self, obs):
        self.seen.append(("take", obs))
        return super().take(obs)

    def lay_with_plan(self, obs):
        if not obs.final:
            self.seen.append(("lay", obs))
        return super().lay_with_plan(obs)


@pytest.mark.parametrize("n_players", [2, 3, 5])
def test_the_view_is_the_deciders_and_a_snapshot_gives_the_same_features(n_players):
    keep = Keep()
    config = R.BangoConfig(n_players=n_players)
    batch = simulate_games(config, keep, 30, seed=4)
    assert len(batch.games) == 30 * n_players
    names = {name for name, _ in keep.seen}
    assert names == {"draw_on", "bango", "take", "lay"}
    for name, obs in keep.seen:
        decision = L.LEARN.decisions[name]
        v = L.view(obs, take=name == "take")
        assert (v.seq_mask[:, 0] == obs.own(obs.seq_mask)).all()
        assert (v.n_open[:, 0] == obs.own(obs.n_open)).all()
        nxt = (obs.seat.astype(np.int64) + 1) % n_players
        assert (v.hand_sizes[:, 1] == obs.hand_sizes[np.arange(len(nxt)), nxt]).all()
        assert (v.hand_sizes[:, n_players:] == 0).all()
        # the cards he has not seen: the stock, the removed ones, the others' face-down cards
        hidden = L.unseen(v)
        assert (hidden >= 0).all()
        others = obs.hand_sizes.sum(axis=1) - obs.hand.sum(axis=1) - v.taken.sum(axis=1)
        assert (hidden.sum(axis=1) == obs.stock_left + config.n_removed + others).all()  # BG-2
        rows = np.arange(len(obs.hand))
        restored = L.restore(decision.snapshot(obs, rows))
        assert np.array_equal(decision.features(obs), decision.features(restored))
        assert np.array_equal(decision.legal(obs), decision.legal(restored))
        assert decision.features(obs).shape == (len(rows), decision.n_features)


@pytest.mark.parametrize("n_players", [2, 4, 5])
def test_the_compiled_features_are_the_numpy_definitions_bit_for_bit(n_players):
    """``common_features`` (a compiled pass over the rows) writes exactly what
    ``common_features_by_numpy`` writes, on every decision's states of real games."""
    keep = Keep()
    simulate_games(R.BangoConfig(n_players=n_players), keep, 60, seed=30 + n_players)
    rows = 0
    for name, obs in keep.seen:
        v = L.view(obs, take=name == "take")
        got, want = L.common_features(v), L.common_features_by_numpy(v)
        assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want), name
        rows += len(got)
    assert rows > 2000


def test_known_is_given_only_to_a_table_that_wants_it():
    seen = []

    @dataclass(frozen=True)
    class Plain(HeuristicPolicy):
        def take(self, obs):
            seen.append(obs.known)
            return super().take(obs)

    simulate_games(R.BangoConfig(n_players=3), Plain(), 5, seed=1)
    assert seen and all(k is None for k in seen)
    keep = Keep()
    simulate_games(R.BangoConfig(n_players=3), keep, 20, seed=1)
    held = [obs for name, obs in keep.seen if name == "take"]
    # a face-up held card is in his own hand where he is the one who took it
    for obs in held:
        mine = obs.own(obs.known)
        assert (mine <= obs.hand).all()
        assert (obs.known.sum(axis=2) <= obs.hand_sizes).all()
    assert sum(int(obs.known.sum()) for obs in held) > 0


def test_the_take_actions_map_to_masks_and_back():
    keep = Keep()
    simulate_games(R.BangoConfig(n_players=4), keep, 30, seed=2)
    for name, obs in keep.seen:
        if name != "take":
            continue
        legal = L.take_legal(obs)
        for a in range(legal.shape[1]):
            rows = np.flatnonzero(legal[:, a])
            if not len(rows):
                continue
            sub = L._rows_of(obs, rows, len(obs.hand))
            mask = L.take_action(sub, np.full(len(rows), a))
            assert (mask != 0).all()
            occupied = (1 << sub.centre_len.astype(np.int64)) - 1
            assert ((mask.astype(np.int64) & ~occupied) == 0).all()
            assert (L.take_index(sub, mask) == a).all()
        assert (L.take_action(obs, np.zeros(len(obs.hand), np.int64))
                == HeuristicPolicy().take(obs)).all()


@dataclass(frozen=True, eq=False)
class Chosen:
    """The rollout, keeping its answer on each row the recorder labels (more than one legal
    action), in the recorder's order."""

    rollout: object
    kept: dict = field(default_factory=dict)
    wants_world = True
    wants_known = True

    def _play(self, name, obs):
        answer = np.asarray(getattr(self.rollout, name)(obs))
        taught = L.LEARN.decisions[name].legal(obs).sum(axis=1) > 1
        self.kept.setdefault(name, []).append(answer[taught])
        return answer

    def draw_on(self, obs):
        return self._play("draw_on", obs)

    def bango(self, obs):
        return self._play("bango", obs)

    def take(self, obs):
        return self._play("take", obs)

    def lay_with_plan(self, obs):
        lay = self.rollout.lay(obs) if obs.final else self._play("lay", obs)
        return lay, self.rollout.arrange(obs)

    def spoil(self, obs):
        return self.rollout.spoil(obs)

    def destroy(self, obs):
        return self.rollout.destroy(obs)

    def arrange(self, obs):
        return self.rollout.arrange(obs)


def test_the_labels_best_action_is_the_rollouts_own_choice():
    """On the same worlds (k = 4, seed 3), the rollout with no significance gate plays an
    action whose labelled value is the row's best: the labels are its action values."""
    rec = Recorder(L.LEARN, tuple(L.LEARN.decisions), L.teacher(worlds=4, seed=3))
    chosen = Chosen(RolloutPolicy(k=4, confidence=0.0, seed=3))
    simulate_games(R.BangoConfig(n_players=3), L.RecordingPolicy(chosen, rec), 2, seed=6)
    index = {"draw_on": lambda v, a: a.astype(np.int64),
             "lay": lambda v, a: a.astype(np.int64), "bango": L.bango_index,
             "take": L.take_index}
    moved = 0
    for d, decision in L.LEARN.decisions.items():
        cols = rec.columns(d)
        values = cols.pop("values")
        restored = L.restore(cols)
        assert np.array_equal(np.isfinite(values), decision.legal(restored))
        played = index[d](restored, np.concatenate(chosen.kept[d]))
        assert len(played) == len(values) > 5, d
        best = np.nanmax(values, axis=1)
        assert np.allclose(values[np.arange(len(values)), played], best), d
        moved += int((played != 0).sum()) if d in ("bango", "take") else 0
    assert moved > 0  # the rollout left the heuristic's answer somewhere


def test_the_net_policy_refuses_a_missing_or_foreign_weights_file(tmp_path):
    done = run_cli(["simulate", "bango", "--policy", "net", "--param",
                    f"weights={tmp_path / 'none.npz'}", "--games", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1 and done.stdout == ""
    assert "NetPolicy.weights: no weights file" in err[0]
    from simulators.core.learn import mlp

    net = mlp.Mlp(np.zeros(3, np.float32), np.ones(3, np.float32),
                  (np.zeros((3, 2), np.float32),), (np.zeros(2, np.float32),),
                  {"game": "bango", "decision": "draw_on"})
    mlp.save(tmp_path / "weights-draw_on.npz", net)
    done = run_cli(["simulate", "bango", "--policy", "net", "--param",
                    f"weights={tmp_path / 'weights-draw_on.npz'}", "--games", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1
    assert f"wrong shape: 3 features and 2 actions, this player needs {L.N_COMMON}" in err[0]
    foreign = mlp.Mlp(np.zeros(3, np.float32), np.ones(3, np.float32),
                      (np.zeros((3, 2), np.float32),), (np.zeros(2, np.float32),),
                      {"game": "five-crowns", "decision": "draw_on"})
    mlp.save(tmp_path / "weights-draw_on.npz", foreign)
    done = run_cli(["simulate", "bango", "--policy", "net", "--param",
                    f"weights={tmp_path / 'weights-draw_on.npz'}", "--games", "10"])
    assert done.returncode == 2 and "holds a net for game 'five-crowns', not 'bango'" \
        in done.stderr
    done = run_cli(["learn", "bango", "train", "--out-dir", str(tmp_path / "empty")])
    assert done.returncode == 2 and "no labels of the draw_on decision" in done.stderr


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_the_shipped_nets_play_only_legal_moves(n_players):
    """The shipped nets at every seat, and beside the heuristic (the engine refuses an
    illegal take, bango or lay, BG-3..BG-6)."""
    policy = L.NetPolicy()
    assert all(policy.decision_net(d) is not None for d in L.LEARN.decisions)
    config = R.BangoConfig(n_players=n_players)
    batch = simulate_games(config, policy, 40, seed=n_players)
    assert len(batch.games) == 40 * n_players
    mixed = (policy,) + (HeuristicPolicy(),) * (n_players - 1)
    batch = simulate_games(config, mixed, 40, seed=n_players)
    assert len(batch.games) == 40 * n_players


@pytest.mark.extras
def test_generate_train_certify_and_play_end_to_end(tmp_path):
    """CI-sized: 4 games labelled by 2-world rollouts, 2 epochs of a 16-unit net per
    decision, a DAgger round played by it, its certificate against the heuristic on 6
    games, and the net at every seat."""
    require_extra("learn", "sklearn")
    out = tmp_path / "net"
    done = run_cli(["learn", "bango", "generate", "--games", "4", "--chunk-size", "2",
                    "--worlds", "2", "--players", "3", "--out-dir", str(out), "--json"])
    assert done.returncode == 0, done.stderr
    gen = json.loads(done.stdout)
    assert gen["units"] == 4 and min(gen["rows"].values()) > 4, gen["rows"]
    done = run_cli(["learn", "bango", "train", "--out-dir", str(out), "--epochs", "2",
                    "--hidden", "16", "--json"])
    assert done.returncode == 0, done.stderr
    decisions = json.loads(done.stdout)["decisions"]
    assert set(decisions) == {"draw_on", "bango", "take", "lay"}
    assert decisions["take"]["parameters"] == L.N_TAKE_FEATURES * 16 + 16 + 16 * 13 + 13
    done = run_cli(["learn", "bango", "generate", "--games", "2", "--round", "1",
                    "--worlds", "2", "--players", "3", "--out-dir", str(out), "--json"])
    assert done.returncode == 0, done.stderr
    behaviour = json.loads(done.stdout)["behaviour"]
    assert behaviour["name"] == "net" and behaviour["params"]["margin"] == 0.0  # ungated
    done = run_cli(["learn", "bango", "certify", "--out-dir", str(out), "--games", "6",
                    "--players", "3", "--json"])
    assert done.returncode == 0, done.stderr
    cert = json.loads(done.stdout)
    assert cert["against"]["heuristic"]["n"] == 6 and cert["seats"] == [0]
    policy = L.NetPolicy(weights=str(out / "weights-draw_on.npz"))
    assert all(policy.decision_net(d) is not None for d in L.LEARN.decisions)
    batch = simulate_games(R.BangoConfig(n_players=4), policy, 10, seed=9)
    assert len(batch.games) == 40


def test_the_margin_keeps_the_heuristics_answer_unless_the_net_scores_another_higher():
    """``margin``: 0 plays the net's best; a margin above any score gap plays the
    heuristic's own stop-or-draw, bango and take; in between, a row leaves the heuristic's
    answer exactly where the net's best scores at least the margin above it."""
    keep = Keep()
    simulate_games(R.BangoConfig(n_players=3), keep, 30, seed=21)
    plain, gated, never = L.NetPolicy(margin=0.0), L.NetPolicy(), L.NetPolicy(margin=50.0)
    assert gated.margin == 0.3  # the default
    heuristic = HeuristicPolicy()
    seen = {d: 0 for d in ("draw_on", "bango", "take")}
    as_index = {"draw_on": L.yes_index, "bango": L.bango_index,  # the take's action 0: his own
                "take": lambda v, answer: np.zeros(len(v.hand), np.int64)}
    for decision, obs in keep.seen:
        if decision == "lay":
            continue
        own = getattr(heuristic, decision)(obs)
        assert np.array_equal(getattr(never, decision)(obs), own)
        best = getattr(plain, decision)(obs)
        got = getattr(gated, decision)(obs)
        v = L.view(obs, take=decision == "take")
        d = L.LEARN.decisions[decision]
        scores = np.where(d.legal(v), plain.decision_net(decision).scores(d.features(v)),
                          -np.inf)
        own_index = as_index[decision](v, own)
        gap = scores.max(axis=1) - scores[np.arange(len(own_index)), own_index]
        assert np.array_equal(got, np.where(gap >= 0.3, best, own))
        seen[decision] += int(np.sum((gap >= 0.3) & (best != own)))
    assert all(n > 0 for n in seen.values()), seen  # each decision leaves its answer somewhere
