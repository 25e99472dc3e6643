"""Manille's auction as net decisions (simulators/manille/auction.py): the engine's rollout
entry replays the engine's own deals, the sorted-suit features, and the rollout teacher's
labels (legal options only, worlds kept by what the auction showed, deterministic)."""

from __future__ import annotations

import numpy as np
import pytest
from recording import KeepObservations

from simulators.manille import auction as A
from simulators.manille import learn as L
from simulators.manille import rules as R
from simulators.manille.engine import (
    POSITION_OF_SEAT,
    Dispatch,
    play_from_choice,
    simulate_deals,
)
from simulators.manille.policies import HeuristicPolicy


def _by_position(arrays) -> np.ndarray:
    """The batch's hands (by seat) back in turn order: position r is seat dealer - 1 - r."""
    dealer = np.asarray(arrays.dealer, np.int64)
    seats = (dealer[:, None] - 1 - np.arange(4)) % 4
    return np.take_along_axis(np.asarray(arrays.hands, np.uint32), seats, axis=1)


def test_playing_on_from_the_named_trump_gives_the_engines_scores():
    """The engine's deals, replayed from their trump and chooser by play_from_choice with the
    same policy: the same contre answers, so the same MA-6 scores, deal for deal; forcing the
    first defender's contre gives level >= 1 wherever he was asked."""
    batch = simulate_deals(R.ManilleConfig(), HeuristicPolicy(), 400, seed=11)
    a = batch.arrays
    dealer = np.asarray(a.dealer, np.int64)
    chooser_pos = POSITION_OF_SEAT[dealer, np.asarray(a.chooser, np.int64)]
    taking, defence = play_from_choice(R.ManilleConfig(), Dispatch(HeuristicPolicy()),
                                       _by_position(a), a.dealer, a.trump, chooser_pos,
                                       np.arange(400))
    assert (taking == a.taking_score).all() and (defence == a.defence_score).all()
    forced = {(R.CONTRE, 0): np.ones(400, np.int8)}
    taking2, defence2 = play_from_choice(R.ManilleConfig(), Dispatch(HeuristicPolicy()),
                                         _by_position(a), a.dealer, a.trump, chooser_pos,
                                         np.arange(400), forced)
    changed = np.asarray(a.contre_level) == 0  # a contre now doubles these deals (MA-4, MA-6)
    assert changed.sum() > 100
    assert ((taking2 + defence2)[changed] % 2 == 0).all()  # |points - 34| x 2 or 4
    suit = np.asarray(a.trump) != R.SANS_ATOUT
    assert ((taking + defence)[changed & suit] % 2 == 1).any()


def test_the_sorted_suits_map_the_nets_choice_back_to_the_table():
    hand = np.array([sum(1 << (4 * r + 2) for r in (0, 1, 3))  # three cards of suit 2
                     | (1 << (4 * 0 + 1)) | (1 << (4 * 5 + 1))  # 10 and a small card of 1
                     | (1 << (4 * 2 + 3)) | (1 << (4 * 6 + 0)) | (1 << (4 * 7 + 3))],
                    np.uint32)
    order = A.suit_order(hand)[0]
    assert order.tolist() == [2, 1, 3, 0]  # 3 cards; 2 with the 10 (rank 0); 2; 1
    obs = type("Obs", (), {"hand": hand})()
    assert A.choose_action(obs, np.array([0]))[0] == 2
    assert A.choose_action(obs, np.array([4]))[0] == R.SANS_ATOUT
    assert A.choose_action(obs, np.array([5]))[0] == R.PASS_TO_PARTNER
    values = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    assert A.to_sorted(values, int(hand[0])).tolist() == [2.0, 1.0, 3.0, 0.0, 4.0, 5.0]
    # permuting the suits permutes the order, so the features do not change
    swapped = 0
    for c in range(32):
        if int(hand[0]) >> c & 1:
            suit = c % 4
            swapped |= 1 << (c - suit + {0: 1, 1: 0, 2: 3, 3: 2}[suit])
    more = type("Obs", (), {"hand": np.array([hand[0], swapped], np.uint32),
                            "legal": np.full(2, 0b111111), "passed": False,
                            "sans_atout_must_beat": False})()
    features = A.choose_features(more)
    assert (features[0] == features[1]).all()


@pytest.fixture(scope="module")
def auction_rows():
    keep = KeepObservations()
    simulate_deals(R.ManilleConfig(), L.RecordingPolicy(HeuristicPolicy(), keep), 12, seed=5)
    return keep.auction


def _teacher(worlds=6):
    return A.AuctionTeacher(card=L.NetPolicy(auction=False), base=HeuristicPolicy(),
                            worlds=worlds, seed=3)


def test_the_choice_teacher_values_every_legal_option_and_only_those(auction_rows):
    obs = [o for name, o in auction_rows if name == "choose"]
    teacher = _teacher()
    for o in obs[:2]:
        rows = np.arange(len(o.hand))
        values = teacher.choice_values(o, rows)
        legal = L.CHOOSE.legal(o)
        assert values.shape == (len(rows), 6)
        assert np.isfinite(values[legal]).all() and np.isnan(values[~legal]).all()
        # the same rows again, alone: the same worlds, the same values
        again = teacher.choice_values(o, rows[-1:])
        assert np.array_equal(again[0], values[-1], equal_nan=True)
    partner = [o for o in obs if o.passed]
    assert partner and np.isnan(teacher.choice_values(partner[0], np.arange(1))[0, 5])


def test_the_contre_teacher_keeps_worlds_where_the_heuristic_named_that_trump(auction_rows):
    obs = next(o for name, o in auction_rows if name == "contre" and o.level == R.CONTRE)
    teacher = _teacher(worlds=4)
    i = 0
    position = int(POSITION_OF_SEAT[int(obs.dealer[i]), int(obs.seat[i])])
    from simulators.core.pimc import row_generator

    gen = row_generator(teacher.seed, obs.noise[i], int(obs.hand[i]), int(obs.seat[i]), 1)
    hands = teacher._candidates(gen, int(obs.hand[i]), position)
    first, second = teacher._choices(hands, False)
    chooser_pos = int(POSITION_OF_SEAT[int(obs.dealer[i]), int(obs.chooser[i])])
    named = first if chooser_pos == 3 else np.where(first == R.PASS_TO_PARTNER, second, -1)
    assert (hands[:, position] == obs.hand[i]).all()
    assert (np.bitwise_or.reduce(hands, axis=1) == 0xFFFFFFFF).all()
    assert (named == obs.trump[i]).sum() >= 1
    values = teacher.contre_values(obs, np.arange(len(obs.hand)))
    assert values.shape == (len(obs.hand), 2) and np.isfinite(values).all()
