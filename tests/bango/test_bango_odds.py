"""Bango odds (stop or draw?): the what-if agrees with the exact explosion probability."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pytest
from scipy import stats

from simulators.bango import rules as R
from simulators.bango.observations import explosion_probability, situation
from simulators.bango.odds import OddsQuestion, describe_odds, play_odds
from simulators.bango.policies import HeuristicPolicy

QUESTION = OddsQuestion(hand="4B 6R", centre="5Y 9K 2V", sequences="7B 8B 9B",
                        seen="1R 1B 3Y")


@dataclass(frozen=True)
class OneMoreCard(HeuristicPolicy):
    """Reveals exactly one more card, then stops."""

    def draw_on(self, obs):
        return np.zeros(len(obs.seat), dtype=bool)


def test_drawing_one_card_explodes_at_the_exact_rate():
    config = R.BangoConfig(n_players=4)
    table = play_odds(config, OneMoreCard(), QUESTION, 6000, seed=3)
    draw = table.filter(pl.col("decision") == "draw")
    assert (draw["revealed"] == 1).all()
    p = float(explosion_probability(situation("4B 6R", "5Y 9K 2V", ("7B 8B 9B",),
                                              "1R 1B 3Y"))[0])
    # unseen: 8 fives, 7 nines (9K revealed, 9B laid), 8 twos, of 99 - 11 seen cards
    assert p == pytest.approx(23 / 88)
    low, high = stats.binom.interval(0.999, 6000, p)
    assert low <= int(draw["exploded"].sum()) <= high


def test_stop_rows_are_the_same_situation_every_time():
    table = play_odds(R.BangoConfig(n_players=3), HeuristicPolicy(), QUESTION, 200, seed=1)
    stop = table.filter(pl.col("decision") == "stop")
    assert (~stop["exploded"]).all() and (stop["fitting"] == 1).all()  # the 5Y fits 4B-6R
    again = play_odds(R.BangoConfig(n_players=3), HeuristicPolicy(), QUESTION, 200, seed=1)
    assert table.equals(again)
    assert "0.2614" in describe_odds(R.BangoConfig(n_players=4), QUESTION)


def test_bad_situations_are_refused():
    config = R.BangoConfig()
    with pytest.raises(ValueError, match="repeats a value"):
        play_odds(config, HeuristicPolicy(), OddsQuestion(hand="", centre="5Y 5R"), 10, 0)
    with pytest.raises(ValueError, match="at least one"):
        play_odds(config, HeuristicPolicy(), OddsQuestion(hand="1B", centre=""), 10, 0)
    with pytest.raises(ValueError, match="4K appears 2 times"):
        play_odds(config, HeuristicPolicy(), OddsQuestion(hand="4K", centre="4K"), 10, 0)
