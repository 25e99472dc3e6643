"""The referees' shared helpers (simulators.core.rulings)."""

from __future__ import annotations

import importlib
import pickle

import pytest

from simulators.core import rulings
from simulators.core.rulings import RuleViolation

GAMES = ("bango", "bianco_mano", "five_crowns", "manille", "truc")


@pytest.mark.parametrize("game", GAMES)
def test_every_referee_raises_the_core_rule_violation(game):
    referee = importlib.import_module(f"simulators.{game}.referee")
    assert issubclass(referee.RuleViolation, RuleViolation)


def test_rule_violation_names_its_ruling_and_pickles():
    error = RuleViolation("BM-8", "must overtrump")
    assert str(error) == "BM-8: must overtrump"
    back = pickle.loads(pickle.dumps(error))
    assert (type(back), back.ruling, back.message) == (RuleViolation, "BM-8", "must overtrump")


def test_check_cards_refuses_out_of_range_bools_and_repeats():
    rulings.check_cards([0, 31, 5], "XX-1", "deck")
    for bad, text in (([32], "not a card index 0..31"), ([True], "not a card index"),
                      ([3, 3], "holds a card twice")):
        with pytest.raises(RuleViolation, match=text):
            rulings.check_cards(bad, "XX-1", "deck")


def test_cut_and_seat_order():
    assert rulings.cut([0, 1, 2, 3, 4], 2) == [2, 3, 4, 0, 1]
    assert rulings.seat_order(2, 4) == [2, 3, 0, 1]
    assert rulings.seat_order(3, 4, direction=-1) == [3, 2, 1, 0]


def test_draw_for_dealer_redraws_ties_and_gives_up_on_a_short_pile():
    rank = lambda c: c >> 2  # noqa: E731
    assert rulings.draw_for_dealer([8, 1, 9, 30], 4, rank) == 1  # ranks 2 0 2 7
    assert rulings.draw_for_dealer([0, 1, 9, 30, 8, 4], 4, rank) == 1  # seats 0, 1 tie, draw again
    assert rulings.draw_for_dealer([0, 1, 9, 30], 4, rank) == 0  # tied, pile empty: lowest seat
    assert rulings.draw_for_dealer([0, 1], 4, rank) is None
