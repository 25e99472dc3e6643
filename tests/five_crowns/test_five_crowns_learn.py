"""Five Crowns' learned player (simulators/five_crowns/learn.py): the canonical suit order,
the features read on the engine's own batches, the lookahead's labels (their best action is
the lookahead's own), the net policy's refusals, and (with the [learn] extra) generate ->
train -> certify -> play end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest
from extras import require_extra

from simulators.five_crowns import learn as L
from simulators.five_crowns import melds
from simulators.five_crowns import rules as R
from simulators.five_crowns.engine import simulate_rounds
from simulators.five_crowns.lookahead import LookaheadPolicy
from simulators.five_crowns.policies import HeuristicPolicy
from tests.cli_run import run_cli


class Keep:
    """Stands in for the recorder: keeps a copy of each batch (the engine mutates hands)."""

    def __init__(self):
        self.seen = {"draw": [], "discard": []}

    def see(self, name, obs):
        self.seen[name].append(obs._replace(**{k: v.copy() for k, v in obs._asdict().items()
                                               if isinstance(v, np.ndarray)}))


def _observations(round_no: int, n_players: int = 4, rounds: int = 12, seed: int = 5):
    keep = Keep()
    simulate_rounds(R.FiveCrownsConfig(n_players=n_players, round_no=round_no),
                    L.RecordingPolicy(HeuristicPolicy(), keep), rounds, seed)
    return keep.seen


def _relabelled(obs, perm: np.ndarray):
    """The same observation with the suits renamed: table suit s becomes perm[s]."""
    kinds = np.arange(R.N_KINDS)
    new_kind = np.where(kinds < R.N_SUITED, perm[np.minimum(kinds // R.N_RANKS, 4)] * R.N_RANKS
                        + kinds % R.N_RANKS, R.JOKER)
    fields = {}
    for name in ("hand", "seen"):
        value = np.asarray(getattr(obs, name))
        moved = np.zeros_like(value)
        moved[:, new_kind] = value
        fields[name] = moved
    for name in ("top", "drawn"):
        if hasattr(obs, name):
            fields[name] = new_kind[np.asarray(getattr(obs, name), np.int64)].astype(np.int8)
    return obs._replace(**fields), new_kind


@pytest.mark.parametrize("round_no", [1, 6, 11])
def test_the_features_read_the_batch_and_do_not_depend_on_the_suits_names(round_no):
    """On every draw and discard batch of real 4-player rounds: the hand block is the hand
    (canonical order read back), unseen = copies - hand - seen (FC-1), the per-kind least
    penalty is the solver's; renaming the suits changes no feature, and the action the
    features' argmax names is renamed with them; a snapshot gives the same features."""
    seen = _observations(round_no)
    perm = np.array([3, 0, 4, 1, 2])
    for name, decision in (("draw", L.DRAW), ("discard", L.DISCARD)):
        assert seen[name]
        for obs in seen[name][:6]:
            f = decision.features(obs)
            assert f.shape == (len(obs.hand), decision.n_features) and f.dtype == np.float32
            table_kind = L._layout(obs)[2]
            assert (np.sort(table_kind, axis=1) == np.arange(R.N_KINDS)).all()
            back = np.zeros_like(f[:, :R.N_KINDS])
            np.put_along_axis(back, table_kind, f[:, :R.N_KINDS], axis=1)
            assert (back == obs.hand).all()
            np.put_along_axis(back, table_kind, f[:, R.N_KINDS:2 * R.N_KINDS] * 2, axis=1)
            assert (back == L.unseen(obs)).all() and (back >= 0).all()
            renamed, new_kind = _relabelled(obs, perm)
            assert np.array_equal(decision.features(renamed), f)
            legal = decision.legal(obs)
            pick = np.argmax(np.where(legal, f[:, :decision.n_actions] + 1, -1), axis=1)
            action = decision.action(obs, pick)
            if name == "discard":
                assert (obs.hand[np.arange(len(action)), action] > 0).all()
                assert (decision.action(renamed, pick) == new_kind[action]).all()
            snap = decision.snapshot(obs, np.arange(len(obs.hand)))
            assert np.array_equal(decision.features(L.restore(snap)), f)
    obs = seen["discard"][0]
    after = L.removal_penalties(np.asarray(obs.hand, np.int64), L.per_row(obs, "wild"))
    row, kind = np.argwhere(obs.hand > 0)[0]
    hand = obs.hand[row].copy()
    hand[kind] -= 1
    assert after[row, kind] == melds.min_penalty(hand, obs.wild)
    assert (after[obs.hand == 0] == -1).all()


@pytest.mark.parametrize("round_no", [2, 6, 11])
def test_the_labels_best_action_is_the_lookaheads_own(round_no):
    """The teacher's values (NaN exactly where a kind is not held) pick what
    LookaheadPolicy plays, on every draw and every discard of real rounds, last turns
    (FC-5) included; a draw valued as a tie goes to the stock, as the lookahead's."""
    seen = _observations(round_no, rounds=8)
    teacher = L.teacher()
    finals = 0
    for obs in seen["draw"]:
        rows = np.arange(len(obs.hand))
        values = L.DRAW.teacher_rows(teacher, obs, rows)
        assert (np.argmax(values, axis=1) == 1).tolist() == LookaheadPolicy().draw(obs).tolist()
    for obs in seen["discard"]:
        rows = np.arange(len(obs.hand))
        values = L.values_in_net_order(obs, L.DISCARD.teacher_rows(teacher, obs, rows))
        legal = L.DISCARD.legal(obs)
        assert (np.isnan(values) == ~legal).all()
        pick = L.DISCARD.action(obs, np.nanargmax(values, axis=1))
        want = LookaheadPolicy().discard(obs._replace(plan=None))
        best = np.nanmax(values, axis=1)
        table_kind = L._layout(obs)[2]
        got = values[rows, np.argmax(table_kind == want[:, None], axis=1)]
        # equal value and immediate penalty is a true tie: either card is as good
        assert np.allclose(got, best) and (obs.hand[rows, pick] > 0).all()
        finals += int(np.asarray(obs.final).sum())
    assert finals > 0


def test_the_net_policy_refuses_a_missing_or_foreign_weights_file(tmp_path):
    done = run_cli(["simulate", "five-crowns", "--policy", "net", "--param",
                    f"weights={tmp_path / 'none.npz'}", "--rounds", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1 and done.stdout == ""
    assert "NetPolicy.weights: no weights file" in err[0]
    from simulators.core.learn import mlp

    net = mlp.Mlp(np.zeros(3, np.float32), np.ones(3, np.float32),
                  (np.zeros((3, 56), np.float32),), (np.zeros(56, np.float32),),
                  {"game": "five-crowns", "decision": "discard"})
    mlp.save(tmp_path / "weights-discard.npz", net)
    done = run_cli(["simulate", "five-crowns", "--policy", "net", "--param",
                    f"weights={tmp_path / 'weights-discard.npz'}", "--rounds", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1
    assert f"wrong shape: 3 features and 56 actions, this player needs {L.N_DISCARD_FEATURES}" \
        in err[0]
    done = run_cli(["learn", "five-crowns", "train", "--out-dir", str(tmp_path / "empty")])
    assert done.returncode == 2 and "no labels of the discard decision" in done.stderr


@pytest.mark.parametrize("n_players", [2, 4, 7])
def test_the_shipped_nets_play_only_legal_moves(n_players):
    """The shipped nets at every seat of rounds 1, 6 and 11 (the engine refuses an illegal
    discard: a kind not held, FC-3)."""
    policy = L.NetPolicy()
    assert policy.decision_net("draw") is not None
    for round_no in (1, 6, 11):
        batch = simulate_rounds(R.FiveCrownsConfig(n_players=n_players, round_no=round_no),
                                policy, 30, seed=round_no)
        assert len(batch.table) == 30


@pytest.mark.extras
def test_generate_train_certify_and_play_end_to_end(tmp_path):
    """CI-sized: 20 rounds labelled by the lookahead, 2 epochs of a 16-unit net per
    decision, a DAgger round played by it, its certificate against the heuristic on 40
    rounds, and the net at every seat."""
    require_extra("learn", "sklearn")
    out = tmp_path / "net"
    done = run_cli(["learn", "five-crowns", "generate", "--rounds", "20", "--chunk-size", "10",
                    "--option", "round_no=6", "--out-dir", str(out), "--json"])
    assert done.returncode == 0, done.stderr
    gen = json.loads(done.stdout)
    assert gen["units"] == 20 and gen["rows"]["discard"] > 40 and gen["rows"]["draw"] > 40
    done = run_cli(["learn", "five-crowns", "train", "--out-dir", str(out), "--epochs", "2",
                    "--grow-batch", "1", "--hidden", "16", "--json"])
    assert done.returncode == 0, done.stderr
    decisions = json.loads(done.stdout)["decisions"]
    assert set(decisions) == {"discard", "draw"}
    first, last = decisions["draw"]["history"]  # the last epoch's batch doubled
    assert decisions["draw"]["grow_batch"] == 1 and last["batch_size"] == 2 * first["batch_size"]
    assert decisions["draw"]["parameters"] == L.N_DRAW_FEATURES * 16 + 16 + 16 * 2 + 2
    done = run_cli(["learn", "five-crowns", "generate", "--rounds", "10", "--round", "1",
                    "--option", "round_no=6", "--out-dir", str(out), "--json"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["behaviour"]["name"] == "net"
    done = run_cli(["learn", "five-crowns", "certify", "--out-dir", str(out), "--rounds", "40",
                    "--option", "round_no=6", "--json"])
    assert done.returncode == 0, done.stderr
    cert = json.loads(done.stdout)
    assert cert["against"]["heuristic"]["n"] == 40 and cert["seats"] == [0]
    policy = L.NetPolicy(weights=str(out / "weights-discard.npz"))
    assert policy.decision_net("draw") is not None  # found beside the discard net
    batch = simulate_rounds(R.FiveCrownsConfig(round_no=11), policy, 20, seed=9)
    assert len(batch.table) == 20
