"""Bianco Mano's learned player (simulators/bianco_mano/learn.py): the card features read on
the engine's own batches at 3, 4 and 5 players, PIMC's labels, and the shipped net playing
only legal cards at every seat and player count."""

from __future__ import annotations

import numpy as np
import pytest
from recording import KeepObservations, assert_card_gate, assert_compiled_card_features

from simulators.bianco_mano import learn as L
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import simulate_deals
from simulators.bianco_mano.policies import HeuristicPolicy, RandomPolicy
from simulators.core.learn import cards as C


@pytest.mark.parametrize("n", R.PLAYER_COUNTS)
def test_the_card_features_read_the_batch_as_the_rules_say(n):
    """Every card-play batch of 30 deals: hand and legal cards (BM-8) as the engine holds
    them; the deal's cards by who played them add up to the cards played; the unseen cards
    are neither in his hand, nor played, nor his own espion (BM-4, BM-6); a snapshot gives
    back the same features (the labels keep the observation)."""
    keep = KeepObservations()
    simulate_deals(R.BiancoManoConfig(n_players=n), L.RecordingPolicy(HeuristicPolicy(), keep),
                   30, seed=3)
    assert len(keep.seen) == n * R.HAND_SIZE[n]
    for obs in keep.seen:
        f = L.card_features(obs)
        assert f.shape == (len(obs.hand), L.N_CARD_FEATURES)
        dominant = np.asarray(obs.dominant, np.int64)
        block = lambda k, d=dominant, f=f: C.canonical(f[:, 32 * k:32 * k + 32], d)  # noqa: E731
        assert (block(0) == C.mask_bits(obs.hand)).all()
        assert (block(1) == C.mask_bits(obs.legal)).all()
        assert (sum(block(2 + r) for r in range(5)) == C.mask_bits(obs.played)).all()
        espion = C.mask_bits(obs.own_espion if obs.own_espion is not None else
                             np.zeros(len(obs.hand), np.uint32))
        unseen = block(11)
        assert (unseen + np.maximum(C.mask_bits(obs.hand) + C.mask_bits(obs.played), espion)
                == 1).all()
        assert np.array_equal(f, L.card_features_by_numpy(obs))
        flags = f[:, L.N_BLOCKS * 32:]
        assert (flags[:, n - 3] == 1).all() and (flags[:, 3 + obs.position] == 1).all()
        snap = L.card_snapshot(obs, np.arange(len(obs.hand)))
        assert (L.card_features(L.restore(snap)) == f).all()


@pytest.mark.parametrize("n", R.PLAYER_COUNTS)
def test_the_compiled_card_blocks_are_the_numpy_definition_bit_for_bit(n):
    """``card_features`` (its card blocks one compiled pass) writes exactly what
    ``card_features_by_numpy`` writes, on every card play of 100 deals with ``net`` at every
    seat (the espion, the called card, the bonus in play), and on their snapshots."""
    keep = KeepObservations()
    simulate_deals(R.BiancoManoConfig(n_players=n), L.RecordingPolicy(L.NetPolicy(), keep),
                   100, seed=8)
    rows = assert_compiled_card_features(L, keep.seen)
    assert rows > 100 * R.HAND_SIZE[n] * n // 2  # taken deals play every card


@pytest.mark.parametrize("n", [4, 5])  # 5: the hidden espion and partner; 3 costs seconds a card
def test_the_true_deal_labels_rank_the_cards_as_the_deal_played_solves_them(n):
    """``teacher(true_deal=True)`` values each card by the deal the engine dealt (its
    ``world``): on every card play with a choice from trick 3 on of 6 deals, the side's
    points it scores
    each legal card (its tie-break) give the card played the regret the regret module finds
    by rebuilding the deal card by card from the dealt hands (BM-4..BM-10); its labels are
    the score change plus a thousandth of those points."""
    from simulators.bianco_mano.solver.regret import card_regrets
    from simulators.core import bits

    class Keep(KeepObservations):
        teacher = L.teacher(true_deal=True)

    config, checked = R.BiancoManoConfig(n_players=n), 0
    for deal in range(6):
        keep = Keep()
        batch = simulate_deals(config, L.RecordingPolicy(HeuristicPolicy(), keep), 1, seed=9,
                               first_deal=deal)
        regrets, _ = card_regrets(batch.arrays)
        for obs in keep.seen:
            legal = bits.cards_of(int(obs.legal[0]))
            if obs.trick < 2 or len(legal) < 2:
                continue
            found = keep.teacher.card._card_scores(obs, 0)
            if not isinstance(found, tuple):  # one card worth playing: not labelled
                continue
            gain, side_points, _ = found
            card = int(batch.arrays.plays[0, obs.trick, obs.position])
            assert max(side_points[c] for c in legal) - side_points[card] \
                == regrets[0, obs.trick, obs.position]
            values = L.card_teacher_values(keep.teacher, obs, 0)
            table = C.canonical(values[None], obs.dominant[:1])[0]
            assert np.allclose(table[legal], (gain + side_points / 1000.0)[legal])
            checked += 1
    assert checked >= 6 * 2


def test_pimc_labels_every_legal_card_and_only_those():
    keep = KeepObservations()
    simulate_deals(R.BiancoManoConfig(), L.RecordingPolicy(HeuristicPolicy(), keep), 6, seed=4)
    obs, teacher = keep.seen[10], L.teacher(worlds=2, seed=1)
    labelled = 0
    for i in range(len(obs.hand)):
        values = L.card_teacher_values(teacher, obs, i)
        if values is None:
            continue
        labelled += 1
        legal = C.canonical(C.mask_bits(obs.legal[i:i + 1]), obs.dominant[i:i + 1])[0] > 0
        assert (np.isnan(values) == ~legal).all()
        assert (np.abs(values[legal]) <= 2.1).all()  # a BM-10 score change, plus points/1000
    assert labelled >= 1


@pytest.mark.parametrize("n", R.PLAYER_COUNTS)
def test_the_shipped_net_plays_only_legal_cards_at_every_seat(n):
    net = L.NetPolicy()
    config = R.BiancoManoConfig(n_players=n, bianco_mano=True)
    assert len(simulate_deals(config, net, 200, seed=6).table) == 200
    others = [net, HeuristicPolicy(), RandomPolicy(), net, HeuristicPolicy()][:n]
    assert len(simulate_deals(config, others, 200, seed=7).table) == 200


def test_the_card_margin_keeps_the_heuristics_card_unless_the_net_scores_another_higher():
    """``margin`` (core ``NetCardPlay``), the canonical order turning on the dominant suit:
    the heuristic's card unless the net's best scores at least the margin above it, on
    every card play of 30 four-player deals; it leaves the heuristic's card on some."""
    keep = KeepObservations()
    simulate_deals(R.BiancoManoConfig(n_players=4), L.RecordingPolicy(HeuristicPolicy(), keep),
                   30, seed=5)
    assert assert_card_gate(L, keep.seen, HeuristicPolicy(), 0.1, "dominant") > 0
