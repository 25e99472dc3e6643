"""Manille's learned player (simulators/manille/learn.py): the card features read on the
engine's own batches, PIMC's labels, the net policy's refusals, and (with the [learn] extra)
generate -> train -> certify -> play end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from extras import require_extra
from recording import KeepObservations, assert_card_gate, assert_compiled_card_features

from analysis.learn import round_seed
from simulators.core.learn import cards as C
from simulators.manille import learn as L
from simulators.manille import rules as R
from simulators.manille.engine import simulate_deals
from simulators.manille.policies import HeuristicPolicy
from tests.cli_run import run_cli

DATA = Path(L.__file__).parent / "data"


def _observations(n_deals=40, seed=3):
    keep = KeepObservations()
    simulate_deals(R.ManilleConfig(), L.RecordingPolicy(HeuristicPolicy(), keep), n_deals, seed)
    return keep.seen


def test_the_card_features_read_the_batch_as_the_rules_say():
    """On every card-play batch of 40 deals: the hand and the legal cards (MA-5) as the
    engine holds them; the deal's cards by who played them add up to the cards played, his
    own never in his hand; the trick in progress holds ``position`` cards, the last of them
    played by the seat right before him (play turns from s to s - 1, MA-5: seat + 1)."""
    batches = _observations()
    assert len(batches) == 32  # 8 tricks x 4 positions
    for obs in batches:
        f = L.card_features(obs)
        assert f.shape == (len(obs.hand), L.N_CARD_FEATURES) and f.dtype == np.float32
        trump = np.asarray(obs.trump, np.int64)
        back = lambda cols, trump=trump: C.canonical(cols, trump)  # noqa: E731 (an involution)
        hand, legal = back(f[:, :32]), back(f[:, 32:64])
        assert (hand == C.mask_bits(obs.hand)).all() and (legal == C.mask_bits(obs.legal)).all()
        deal = np.stack([back(f[:, 64 + 32 * r:96 + 32 * r]) for r in range(4)], axis=1)
        assert (deal.sum(axis=1) == C.mask_bits(obs.played)).all()
        assert not (deal[:, 0] * C.mask_bits(obs.hand)).any()
        trick = np.stack([back(f[:, 192 + 32 * r:224 + 32 * r]) for r in range(3)], axis=1)
        assert (trick.sum(axis=(1, 2)) == obs.position).all()
        assert (trick.sum(axis=1) == C.mask_bits(obs.table)).all()
        if obs.position:
            last = obs.plays[:, obs.trick, obs.position - 1]
            assert (trick[np.arange(len(last)), 0, last] == 1).all()
        unseen = back(f[:, 288:320])
        assert (unseen + C.mask_bits(obs.hand) + C.mask_bits(obs.played) == 1).all()
        winning = back(f[:, 320:352])
        assert (winning.sum(axis=1) == (obs.position > 0)).all()
        flags = f[:, 356:]
        assert (flags[:, 0] == (trump == R.SANS_ATOUT)).all()
        assert (flags[:, 1 + obs.position] == 1).all() and (flags[:, 5 + obs.trick] == 1).all()
        snap = L.card_snapshot(obs, np.arange(len(obs.hand)))
        assert (L.card_features(L.restore(snap)) == f).all()  # labels keep the obs


@pytest.mark.parametrize("behaviour", ["heuristic", "net"])
def test_the_compiled_card_blocks_are_the_numpy_definition_bit_for_bit(behaviour):
    """``card_features`` (its card blocks one compiled pass) writes exactly what
    ``card_features_by_numpy`` writes, on every card play of 200 deals, and on their
    snapshots (the labels' rows)."""
    keep = KeepObservations()
    policy = HeuristicPolicy() if behaviour == "heuristic" else L.NetPolicy()
    simulate_deals(R.ManilleConfig(), L.RecordingPolicy(policy, keep), 200, seed=8)
    assert assert_compiled_card_features(L, keep.seen) == 200 * 32


def test_the_voids_are_the_suits_a_seat_did_not_follow():
    """Deal 0 of seed 2 at trick 5 (seat 1 to lead, sans atout): in trick 4, led by seat 1
    with the A of suit 0 (card 4), seat 2 played card 29 (suit 1) — so seat 2, one seat
    after him in seat numbers (relation 1), lacks suit 0 (MA-5); nobody else left a suit."""
    obs = _observations(20, seed=2)[20]
    assert (obs.seat[0], obs.trump[0], obs.trick, obs.position) == (1, R.SANS_ATOUT, 5, 0)
    assert obs.plays[0][4].tolist() == [4, 24, 16, 29] and obs.leaders[0][4] == 1
    voids = L.card_features(obs)[0, -12:].reshape(3, 4)
    assert voids.tolist() == [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def test_pimc_labels_every_legal_card_and_only_those():
    teacher = L.teacher(worlds=2, seed=1)
    obs = _observations(4)[9]  # trick 2, third to play: several legal cards in most rows
    labelled = 0
    for i in range(len(obs.hand)):
        values = L.card_teacher_values(teacher, obs, i)
        if values is None:
            continue
        labelled += 1
        legal = C.canonical(C.mask_bits(obs.legal[i:i + 1]), obs.trump[i:i + 1])[0] > 0
        assert (np.isnan(values) == ~legal).all()
        assert ((values[legal] >= 0) & (values[legal] <= 68)).all()  # his team's points (MA-6)
    assert labelled >= 1


def test_the_recorder_keeps_the_rows_pimc_labels_with_their_values():
    """The card decision's ``teacher_rows`` asks PIMC row by row: the recorder keeps exactly
    the rows ``card_teacher_values`` labels (a row PIMC says teaches nothing is dropped),
    with the same values."""
    from simulators.core.learn.spec import Recorder

    obs = _observations(4)[9]
    want = {i: L.card_teacher_values(L.teacher(worlds=2, seed=1), obs, i)
            for i in range(len(obs.hand)) if int(obs.legal[i]).bit_count() > 1}
    recorder = Recorder(L.LEARN, ("card",), L.teacher(worlds=2, seed=1))
    recorder.see("card", obs)
    kept = recorder.columns("card")
    labelled = [i for i, v in want.items() if v is not None]
    assert 0 < len(labelled) < len(want)  # some rows teach nothing
    assert kept["hand"].tolist() == [int(obs.hand[i]) for i in labelled]
    assert np.array_equal(kept["values"], np.stack([want[i] for i in labelled])
                          .astype(np.float32), equal_nan=True)


def test_the_net_policy_refuses_a_missing_or_foreign_weights_file(tmp_path):
    done = run_cli(["simulate", "manille", "--policy", "net", "--param",
                    f"weights={tmp_path / 'none.npz'}", "--deals", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1 and done.stdout == ""
    assert "NetPolicy.weights: no weights file" in err[0]
    from simulators.core.learn import mlp

    net = mlp.Mlp(np.zeros(3, np.float32), np.ones(3, np.float32),
                  (np.zeros((3, 32), np.float32),), (np.zeros(32, np.float32),),
                  {"game": "bianco-mano", "decision": "card"})
    mlp.save(tmp_path / "other.npz", net)
    done = run_cli(["simulate", "manille", "--policy", "net", "--param",
                    f"weights={tmp_path / 'other.npz'}", "--deals", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1
    assert "net for game 'bianco-mano', not 'manille'" in err[0]
    done = run_cli(["learn", "manille", "train", "--out-dir", str(tmp_path / "empty")])
    assert done.returncode == 2 and "no labels of the card decision" in done.stderr
    # an auction net beside the card net that is another decision's: refused before play
    import shutil

    shutil.copyfile(L.SHIPPED, tmp_path / "weights-card.npz")
    shutil.copyfile(L.SHIPPED, tmp_path / "weights-choose.npz")
    done = run_cli(["simulate", "manille", "--policy", "net", "--param",
                    f"weights={tmp_path / 'weights-card.npz'}", "--deals", "10"])
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1 and done.stdout == ""
    assert err[0].startswith("tapisvert: error:") and "NetPolicy.weights" in err[0]
    assert "choose" in err[0]


def _check_round_seeds_init_and_refused_seeds(out: Path, retrained: dict) -> None:
    """The end-to-end test's DAgger directory: round 1 dealt on round_seed (not seed + 1,
    once the certificates' 2027), train --init starts at the kept net (epoch 0 measures
    it), and certify refuses the labels' seeds before any work."""
    assert retrained["label_seeds"] == sorted([2026, round_seed(2026, 1)])
    assert round_seed(2026, 1) not in range(2000, 4000)
    kept = retrained["history"][retrained["epoch"] - 1]
    done = run_cli(["learn", "manille", "train", "--out-dir", str(out), "--decisions", "card",
                    "--epochs", "1", "--hidden", "16", "--init", str(out / "weights-card.npz"),
                    "--learning-rate", "1e-4", "--json"])  # fine-tuned from the kept net
    tuned = json.loads(done.stdout)["decisions"]["card"]
    assert [row["epoch"] for row in tuned["history"]] == [0, 1]
    assert tuned["history"][0]["holdout_regret"] == pytest.approx(kept["holdout_regret"],
                                                                  abs=1e-4)
    for wrong, message in ((["--decisions", "card", "--hidden", "8"], "hidden widths 16, not"),
                           ([], "--init: one weights file starts one decision's net")):
        done = run_cli(["learn", "manille", "train", "--out-dir", str(out), "--epochs", "1",
                        "--init", str(out / "weights-card.npz"), *wrong])
        assert done.returncode == 2 and message in done.stderr, done.stderr
    for seen in retrained["label_seeds"]:  # refused before any work, nothing written
        before = sorted(p.name for p in out.iterdir())
        done = run_cli(["learn", "manille", "certify", "--out-dir", str(out), "--deals", "20",
                        "--seed", str(seen)])
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"--seed {seen}: the nets in" in done.stderr
        assert sorted(p.name for p in out.iterdir()) == before


@pytest.mark.extras
def test_generate_train_certify_and_play_end_to_end(tmp_path):
    """CI-sized: 6 deals labelled by PIMC with 1 world, 2 epochs of a 16-unit net, its
    certificate against the heuristic on 20 deals, and the net at every seat playing only
    legal cards (the engine refuses any other)."""
    require_extra("learn", "sklearn")
    out = tmp_path / "net"
    done = run_cli(["learn", "manille", "generate", "--deals", "6", "--worlds", "1",
                    "--chunk-size", "3", "--out-dir", str(out), "--json"])
    assert done.returncode == 0, done.stderr
    gen = json.loads(done.stdout)
    assert gen["units"] == 6 and gen["rows"]["card"] > 30
    assert gen["rows"]["choose"] >= 6 and gen["rows"]["contre"] >= 6  # every deal's dealer
    done = run_cli(["learn", "manille", "train", "--out-dir", str(out), "--epochs", "2",
                    "--hidden", "16", "--json"])
    assert done.returncode == 0, done.stderr
    decisions = json.loads(done.stdout)["decisions"]
    assert set(decisions) == {"card", "choose", "contre"}
    trained = decisions["card"]
    assert len(trained["history"]) == 2
    assert trained["parameters"] == L.N_CARD_FEATURES * 16 + 16 + 16 * 32 + 32
    done = run_cli(["learn", "manille", "generate", "--deals", "3", "--worlds", "1",
                    "--round", "1", "--out-dir", str(out), "--json"])  # DAgger: the net plays
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["behaviour"]["name"] == "net"
    assert (out / "labels-1" / "manifest.json").exists()
    done = run_cli(["learn", "manille", "train", "--out-dir", str(out), "--epochs", "1",
                    "--hidden", "16", "--json"])
    retrained = json.loads(done.stdout)["decisions"]["card"]
    assert retrained["rows"] > trained["rows"]
    _check_round_seeds_init_and_refused_seeds(out, retrained)
    done = run_cli(["learn", "manille", "certify", "--out-dir", str(out), "--deals", "20",
                    "--regret", "heuristic,net", "--regret-deals", "4", "--json"])
    assert done.returncode == 0, done.stderr
    cert = json.loads(done.stdout)
    assert cert["against"]["heuristic"]["n"] == 20 and cert["seats"] == [0, 2]
    from analysis.learn import weights_digest  # retrained nets never resume these chunks

    assert (out / f"certify-heuristic-{weights_digest(out)}" / "manifest.json").is_file()
    regret = {r["policy"]: r for r in cert["double_dummy_regret"]}
    assert set(regret) == {"heuristic", "net"} and regret["net"]["units"] == 4
    assert 4 * 16 <= regret["heuristic"]["card_plays"] <= 4 * 32
    assert 0 <= regret["net"]["share_giving_up"] <= 1 and regret["net"]["mean_points_given_up"] >= 0
    done = run_cli(["learn", "manille", "certify", "--out-dir", str(out), "--deals", "20",
                    "--design", "same-seat", "--json"])  # the net, then the heuristic, at seat 0
    assert done.returncode == 0, done.stderr
    same = json.loads(done.stdout)
    assert same["design"] == "same-seat" and same["seats"] == [0]
    assert (out / "certificate-same-seat.json").is_file()
    done = run_cli(["compare", "manille", "--a", "net", "--a-param",
                    f"weights={out / 'weights-card.npz'}", "--b", "heuristic", "--seats", "0",
                    "--deals", "20", "--seed", str(cert["seed"]), "--json"])
    paired = next(r for r in json.loads(done.stdout)["rows"] if r["row"] == "A - B paired")
    assert same["against"]["heuristic"]["mean"] == pytest.approx(paired["mean"])
    assert same["against"]["heuristic"]["n"] == paired["n"] == 20
    policy = L.NetPolicy(weights=str(out / "weights-card.npz"))
    assert policy.decision_net("choose") is not None  # found beside the card net
    assert L.NetPolicy(weights=str(out / "weights-card.npz"), auction=False
                       ).decision_net("contre") is None
    batch = simulate_deals(R.ManilleConfig(), policy, 50, seed=9)
    assert len(batch.table) == 50


def test_the_double_dummy_regret_reads_every_card_from_the_true_deal():
    """The first card's best value is the defence's double-dummy points from the first card
    (68 less the taking team's, MA-6: the dealer's right leads, MA-5); every regret is at
    least 0, and the last card of a deal is forced (no regret counted)."""
    from simulators.core import double_dummy as dd
    from simulators.manille.solver import deal_positions
    from simulators.manille.solver.regret import card_regrets, summary

    batch = simulate_deals(R.ManilleConfig(), HeuristicPolicy(), 12, seed=4)
    regrets, best = card_regrets(batch.arrays)
    taking = dd.solve(deal_positions(batch.arrays)).astype(np.float64)
    assert (best[:, 0, 0] == 68 - taking).all()
    assert (regrets[~np.isnan(regrets)] >= 0).all() and np.isnan(regrets[:, 7, 3]).all()
    found = summary(regrets)
    assert found["card_plays"] == int((~np.isnan(regrets)).sum()) > 12 * 16


@pytest.mark.parametrize("sans_atout_must_beat", [False, True])
def test_the_true_deal_labels_are_the_double_dummy_values_of_the_deal_played(
        sans_atout_must_beat):
    """Each labelled card play of a deal (``teacher(true_deal=True)``, the engine's world):
    its best legal card is worth what the regret module, which rebuilds the deal card by
    card from the dealt hands (MA-5), finds best there, and the card the heuristic played
    is worth that best less its regret; every legal card is valued, only those."""
    from simulators.core.learn.spec import Recorder
    from simulators.manille.solver.regret import card_regrets

    config = R.ManilleConfig(sans_atout_must_beat=sans_atout_must_beat)
    checked = 0
    for deal in range(4):
        recorder = Recorder(L.LEARN, ("card",), L.teacher(true_deal=True))
        batch = simulate_deals(config, L.RecordingPolicy(HeuristicPolicy(), recorder), 1,
                               seed=9, first_deal=deal)
        regrets, best = card_regrets(batch.arrays, sans_atout_must_beat)
        rows = recorder.columns("card")
        for i in range(len(rows["values"])):
            t, j = int(rows["trick"][i]), int(rows["position"][i])
            trump = int(rows["trump"][i])
            values = C.canonical(rows["values"][i][None], np.array([trump]))[0]  # table order
            legal = C.mask_bits(rows["legal"][i:i + 1])[0] > 0
            assert (~np.isnan(values) == legal).all()
            assert np.nanmax(values) == best[0, t, j]
            card = int(batch.arrays.plays[0, t, j])
            assert values[card] == best[0, t, j] - regrets[0, t, j]
            checked += 1
    assert checked > 4 * 16


def test_generate_labels_by_the_true_deal_only_where_the_teacher_offers_it(tmp_path):
    """``--true-deal`` labels Manille's card plays (the settings say so, so a PIMC run of
    the same directory cannot resume it); a game whose teacher has no such labels has no
    such flag (one line, exit 2)."""
    done = run_cli(["learn", "manille", "generate", "--deals", "3", "--true-deal",
                    "--decisions", "card", "--out-dir", str(tmp_path / "td"), "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["teacher"] == {"worlds": 8, "true_deal": True} and doc["rows"]["card"] > 3 * 16
    pimc = run_cli(["learn", "manille", "generate", "--deals", "3", "--decisions", "card",
                    "--out-dir", str(tmp_path / "td")])
    assert pimc.returncode == 2 and len(pimc.stderr.strip().splitlines()) == 1
    bango = run_cli(["learn", "bango", "generate", "--games", "2", "--true-deal",
                     "--out-dir", str(tmp_path / "bg")])
    assert bango.returncode == 2 and "--true-deal" in bango.stderr
    assert not (tmp_path / "bg").exists()


def test_a_dagger_round_plays_the_net_at_the_seats_given_and_records_every_seat(tmp_path):
    """``--net-seats 0,2``: the round's net at seats 0 and 2, the heuristic at 1 and 3 (the
    states of the net among heuristic opponents); every seat's card plays are labelled. A
    seat off the table, or the flag on round 0, is one line, exit 2, before any work."""
    out = tmp_path / "td"
    out.mkdir()
    for decision in ("card", "choose", "contre"):
        shutil.copy(DATA / f"net_{decision}.npz", out / f"weights-{decision}.npz")
    args = ["learn", "manille", "generate", "--deals", "3", "--true-deal", "--decisions", "card"]
    done = run_cli([*args, "--out-dir", str(out), "--round", "1", "--net-seats", "0,2",
                    "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    net = {"name": "net", "params": {"margin": 0.0, "weights": str(out / "weights-card.npz")}}
    assert doc["behaviour"] == [net, "heuristic", net, "heuristic"]
    # more than the net's two seats' card plays, each card play once (a whole-batch ask of
    # each seat's recording policy used to record every row again for each)
    assert 3 * 2 * 7 < doc["rows"]["card"] <= 3 * 4 * 7
    for wrong, message in ((["--round", "1", "--net-seats", "0,4"],
                            "--net-seats: distinct seats from 0 to 3, got 0,4"),
                           (["--round", "1", "--net-seats", "1,1"], "--net-seats: distinct"),
                           (["--round", "0", "--net-seats", "0"], "for a DAgger round"),
                           (["--round", "1", "--net-seats", "x"], "seat numbers like 0,2")):
        refused = run_cli([*args, "--out-dir", str(tmp_path / "no"), *wrong])
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("sans_atout_must_beat", [False, True])
def test_the_shipped_net_loads_and_plays_only_legal_cards_at_every_seat(sans_atout_must_beat):
    """The package's weights, with no extra installed: the net alone at every seat, and beside
    the heuristic and the random player (the engine refuses any illegal card, MA-5)."""
    from simulators.manille.policies import RandomPolicy

    net = L.NetPolicy()
    config = R.ManilleConfig(sans_atout_must_beat=sans_atout_must_beat)
    assert len(simulate_deals(config, net, 300, seed=6).table) == 300
    mixed = simulate_deals(config, [net, HeuristicPolicy(), net, RandomPolicy()], 300, seed=7)
    assert len(mixed.table) == 300
    assert L.LEARN.load("manille", "card").n_features == L.N_CARD_FEATURES


@pytest.mark.parametrize("partner_may_sans_atout", [True, False])
def test_the_shipped_auction_nets_name_only_legal_choices(partner_may_sans_atout):
    """The shipped trump-choice and contre nets at every seat: the engine refuses a choice
    the rules forbid (MA-3: the partner names a suit, sans atout only when allowed); the
    nets name sans atout, pass and say contre on some deals, not on all."""
    net = L.NetPolicy()
    assert net.decision_net("choose") is not None and net.decision_net("contre") is not None
    config = R.ManilleConfig(partner_may_sans_atout=partner_may_sans_atout)
    table = simulate_deals(config, net, 2000, seed=8).table
    for column in ("dealer_passed", "sans_atout"):
        assert 0 < table[column].mean() < 1, column
    assert 0 < (table["contre_level"] > 0).mean() < 0.5
    if not partner_may_sans_atout:
        assert not (table["dealer_passed"] & table["sans_atout"]).any()


def test_the_card_margin_keeps_the_heuristics_card_unless_the_net_scores_another_higher():
    """``margin`` (core ``NetCardPlay``): the heuristic's card unless the net's best scores at
    least the margin above it, exactly, on every card play of 40 deals; it leaves the
    heuristic's card on some."""
    assert assert_card_gate(L, _observations(), HeuristicPolicy(), 0.5, "trump") > 0
