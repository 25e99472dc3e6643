"""Odds for a concrete hand, policy parameters and the policies' building blocks."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as scipy_stats

from analysis.odds import odds_table
from simulators.truc import rules as R
from simulators.truc.dealing import (
    DealConstraintError,
    Situation,
    play_choices,
    situation_decks,
)
from simulators.truc.game import GAME, make_policy
from simulators.truc.policies import (
    WIN_SHARE,
    HeuristicPolicy,
    OrderedPolicy,
    RandomPolicy,
    hold_probability,
)
from simulators.truc.referee import resolve_deal


def test_situation_deals_my_cards_to_my_seat_and_the_rest_uniformly():
    s = Situation("7 8 A", role="dealer")
    decks = situation_decks(s, 5, np.arange(20000))
    assert (np.sort(decks[:, 3:6], axis=1) == np.array(s.hand)).all()
    assert (np.sort(decks, axis=1) == np.arange(32)).all()
    first = np.bincount(decks[:, 0], minlength=32)
    assert first[list(s.hand)].sum() == 0
    expected = 20000 / 29
    assert np.abs(first[first > 0] - expected).max() < 5 * np.sqrt(expected)


def test_both_answers_are_played_on_the_same_deals():
    frame = play_choices(R.TrucConfig(), HeuristicPolicy(), Situation("A R 9"), 3000, seed=4)
    play = frame.filter(pl.col("decision") == "play")
    ask = frame.filter(pl.col("decision") == "ask")
    assert play["deal_id"].to_list() == ask["deal_id"].to_list() == list(range(3000))
    assert (play["hands_dealt"] == 1).all()  # the non-dealer keeps his hand: one hand dealt
    assert (ask["hands_dealt"] >= 1).all()
    assert (ask["net_vs_play"] == ask["net"] - play["net"]).all()
    table = odds_table(GAME.odds.metrics, frame)
    d = table.filter((pl.col("decision") == "ask - play")
                     & (pl.col("metric") == "net points per deal")).row(0, named=True)
    diff = ask["net_vs_play"].to_numpy()
    assert d["value"] == pytest.approx(diff.mean()) and d["n"] == 3000
    half = scipy_stats.t.ppf(0.975, 2999) * diff.std(ddof=1) / np.sqrt(3000)
    assert d["high"] - d["value"] == pytest.approx(half)


def test_a_hand_of_two_sevens_and_an_eight_never_loses_when_played():
    # the opponent holds at most two 7s and three 8s: 7 7 8 ties or beats every trick
    frame = play_choices(R.TrucConfig(), HeuristicPolicy(), Situation("7 7 8"), 3000, seed=1)
    play = frame.filter(pl.col("decision") == "play")
    assert not play["lost"].any()


def test_the_dealer_is_asked_only_after_the_non_dealer_asked():
    frame = play_choices(R.TrucConfig(), HeuristicPolicy(), Situation("9 10 V", "dealer"),
                         5000, seed=2)
    n = frame.filter(pl.col("decision") == "play").height
    assert 0 < n < 5000  # deals where the non-dealer played are rejected
    assert frame["asked"].all()


def test_odds_are_deterministic():
    a = play_choices(R.TrucConfig(), RandomPolicy(), Situation("A R 9"), 500, seed=3)
    b = play_choices(R.TrucConfig(), RandomPolicy(), Situation("A R 9"), 500, seed=3)
    assert a.equals(b)


@pytest.mark.parametrize("kwargs, message", [
    ({"hand": "7 7"}, "3 cards"), ({"hand": "7 8 A", "role": "banker"}, "role"),
    ({"hand": "7 8 A", "my_score": 12}, "my_score"), ({"hand": (1, 1, 2)}, "distinct"),
])
def test_bad_situations_are_named(kwargs, message):
    with pytest.raises(DealConstraintError, match=message):
        Situation(**kwargs)


def test_no_choice_without_the_card_call():
    with pytest.raises(DealConstraintError, match="card_call"):
        play_choices(R.TrucConfig(card_call=False), HeuristicPolicy(), Situation("A R 9"), 10)


def test_policy_parameters_are_validated_by_name():
    with pytest.raises(ValueError, match="HeuristicPolicy.bluff_probability must be in"):
        HeuristicPolicy(bluff_probability=1.5)
    with pytest.raises(ValueError, match="first_lead must be an integer"):
        HeuristicPolicy(first_lead=1.5)
    with pytest.raises(ValueError, match="no parameter 'bluff'"):
        make_policy("heuristic", bluff=0.2)
    with pytest.raises(ValueError, match="unknown Truc policy"):
        make_policy("optimal")
    assert make_policy("ordered", strongest_first=False) == OrderedPolicy(False)


def test_win_share_table_follows_tr3():
    codes = {R.WON: 1, R.LOST: 0, R.POURRI: None}
    for r0 in codes:
        for r1 in codes:
            for r2 in codes:
                over, winner = resolve_deal([codes[r0], codes[r1], codes[r2]])
                expected = 0.5 if winner is None else (1.0 if winner == 1 else 0.0)
                assert WIN_SHARE[r0 * 16 + r1 * 4 + r2] == expected


def test_hold_probability_of_a_seven_and_a_nine():
    unseen = np.array([R.ALL_CARDS & ~0b1], dtype=np.uint32)  # every card but the 7P is unseen
    seven = hold_probability(np.array([0], dtype=np.int8), unseen, 3)
    assert seven[0] == pytest.approx(1.0)  # nothing beats a seven
    nine = hold_probability(np.array([28], dtype=np.int8), unseen, 1)
    assert nine[0] == pytest.approx(3 / 31)  # only the three other nines do not beat it


def test_heuristic_replies_with_the_cheapest_winning_card():
    # the opponent led a King; holding 7, Q and 8, the cheapest card that wins is the 8
    hand = np.uint32((1 << R.parse_card("7P")) | (1 << R.parse_card("DP"))
                     | (1 << R.parse_card("8P")))
    obs = _play_obs(hand, table=R.parse_card("RC"))
    assert HeuristicPolicy().play(obs)[0] == R.parse_card("8P")
    assert HeuristicPolicy(win_cheaply=False).play(obs)[0] == R.parse_card("7P")
    # nothing wins on a 7: sacrifice the weakest card
    obs = _play_obs(hand, table=R.parse_card("7C"))
    assert HeuristicPolicy(seek_pourri=False).play(obs)[0] == R.parse_card("DP")


def _play_obs(hand, table):
    from simulators.truc.observations import PlayObs

    one = np.ones(1, dtype=np.int8)
    none3 = np.full((1, 3), -1, dtype=np.int8)
    opp = none3.copy()
    opp[0, 0] = table
    return PlayObs(
        hand=np.array([hand], dtype=np.uint32), seat=one, is_dealer=np.ones(1, bool), trick=0,
        position=1, to_play=True, table=np.array([table], np.int8), my_cards=none3,
        opp_cards=opp, results=np.zeros((1, 3), np.int8), i_led=np.zeros((1, 3), bool),
        stakes=np.zeros((1, 6), np.int8), stake=one, proposal=np.zeros(1, np.int8),
        banco=np.zeros(1, bool), counter=np.zeros(1, np.int8), countering=False,
        my_score=np.zeros(1, np.int8), opp_score=np.zeros(1, np.int8), target=12,
        discarded=np.zeros(1, np.uint32), noise=np.zeros(1, np.float32))
