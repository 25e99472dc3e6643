"""Odds for a concrete hand: fixed cards really dealt, every choice on the same deals."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from analysis.odds import odds_table
from simulators.manille import rules as R
from simulators.manille.dealing import (
    DECISIONS,
    DealConstraintError,
    Situation,
    play_choices,
    situation_decks,
)
from simulators.manille.engine import _deal_hands
from simulators.manille.game import GAME, OddsQuestion, play_odds
from simulators.manille.policies import HeuristicPolicy, RandomPolicy, masters
from simulators.manille.rules import ManilleConfig

HAND = "10P AP RP 9P 10C 7C AK 8T"


@pytest.mark.parametrize("packets", [(4, 4), (3, 2, 3)])
def test_the_dealer_receives_the_fixed_hand_and_the_rest_is_uniform(packets):
    config = ManilleConfig(packets=packets)
    situation = Situation(HAND)
    deck, cut = situation_decks(situation, config, 3, np.arange(20_000))
    hands = _deal_hands(config, deck, cut)  # turn order: the dealer is position 3
    assert (hands[:, 3] == sum(1 << c for c in situation.hand)).all()
    # each of the 24 other cards lands with each of the 3 other players a third of the time
    others = hands[:, :3]
    for c in (R.parse_card("DP"), R.parse_card("7T")):
        share = ((others >> np.uint32(c)) & 1).mean(axis=0)
        assert np.allclose(share, 1 / 3, atol=0.015)


def test_every_choice_plays_the_same_deals():
    frame = play_choices(ManilleConfig(), HeuristicPolicy(), Situation(HAND), 500, seed=4)
    assert frame.height == 500 * len(DECISIONS)
    assert set(frame["decision"]) == set(DECISIONS)
    named = frame.filter(pl.col("decision") != "pass")
    assert (named["trump"] == named["decision"]).all()  # the forced choice is played
    passed = frame.filter(pl.col("decision") == "pass")
    assert passed["trump"].n_unique() > 1  # the partner chooses after a pass
    assert ((frame["taking_points"] > 34) == frame["made"]).all()
    table = odds_table(GAME.odds.metrics_for(ManilleConfig(), OddsQuestion(HAND)),
                       play_odds(ManilleConfig(), HeuristicPolicy(), OddsQuestion(HAND), 500, 4),
                       "pass")
    assert ((table["low"] <= table["value"]) & (table["value"] <= table["high"])).all()
    row = table.filter((pl.col("decision") == "P - pass")
                       & (pl.col("metric") == "net score per deal")).row(0, named=True)
    want = (frame.filter(pl.col("decision") == "P")["margin"].to_numpy()
            - frame.filter(pl.col("decision") == "pass")["margin"].to_numpy())
    assert row["value"] == pytest.approx(want.mean()) and row["n"] == 500
    half = stats.t.ppf(0.975, 499) * want.std(ddof=1) / np.sqrt(500)  # the paired t interval
    assert row["high"] - row["value"] == pytest.approx(half)
    same = table.filter((pl.col("decision") == "P - pass")
                        & (pl.col("metric") == "net score minus passing's, same deals"))
    assert same.is_empty()  # declared by P alone: nothing to pair


def test_odds_hook_adds_the_paired_difference_to_passing():
    frame = play_odds(ManilleConfig(), RandomPolicy(), OddsQuestion(HAND), 200, 1)
    sa = frame.filter(pl.col("decision") == "SA").sort("deal_id")
    passing = frame.filter(pl.col("decision") == "pass").sort("deal_id")
    assert (sa["margin_vs_pass"] == sa["margin"] - passing["margin"]).all()


@pytest.mark.parametrize("hand, words", [
    ("10P AP RP 9P 10C 7C AK", "8 cards"), ("10P AP RP 9P 10C 7C AK AK", "appears twice"),
    ("10P AP RP 9P 10C 7C AK XX", "malformed card"),
])
def test_bad_situations_refused(hand, words):
    with pytest.raises(DealConstraintError, match=words):
        Situation(hand)


def test_masters_match_their_definition():
    gen = np.random.default_rng(0)
    hand = gen.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    unseen = gen.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32) & ~hand
    got = masters(hand, unseen)
    for h, u, m in zip(hand.tolist(), unseen.tolist(), got.tolist(), strict=True):
        # a card is master when no unseen card of its suit has a lower (stronger) rank
        want = sum(1 << c for c in range(32) if h >> c & 1 and not any(
            u >> (4 * r + (c & 3)) & 1 for r in range(c >> 2)))
        assert m == want
