"""Contract odds: constrained dealing, rejection on earlier bids, typed failures."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.experiment import Experiment
from analysis.odds import odds
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, RandomPolicy
from simulators.bianco_mano.dealing import DealConstraintError, Situation, play_situation
from simulators.bianco_mano.game import OddsQuestion
from simulators.bianco_mano.rules import parse_cards
from simulators.core import bits


@pytest.mark.parametrize("n_players, position, hand, turned", [
    (3, 2, "1R 2R 3R 5B 8V 2J 6J", "4R"),
    (4, 1, "1R 7B 3B 8V 2J", "4B"),
    (5, 4, "1V 2V 3B 8J", "6V"),
])
def test_bidder_holds_exactly_the_situation(n_players, position, hand, turned):
    situation = Situation(n_players, position, hand, turned)
    deals, accepted, dealt = play_situation(BiancoManoConfig(n_players=n_players),
                                            HeuristicPolicy(), situation, "take", 2_000, seed=1)
    assert (deals.taker == situation.seat).all() and (deals.bid_round == 1).all()
    assert (deals.taker_bid_hand == bits.mask_of(parse_cards(f"{hand} {turned}"))).all()
    assert (deals.dealer == 0).all() and accepted >= 2_000 and dealt >= accepted
    # the unknown cards are uniform: each unseen card lands in the next seat's hand equally
    assert len(np.unique(deals.deck[:, 0])) > 20


def test_turn_comes_with_the_exact_probability_of_earlier_passes():
    """Two random bidders before (take probability 0.5 each): the turn comes 1/4 of the time."""
    experiment = Experiment("bianco-mano", config=BiancoManoConfig(), policies=RandomPolicy(),
                            size=5_000, seed=3)
    table = odds(experiment, OddsQuestion(hand="1R 7B 3B 8V 2J", turned="4R", position=2))
    row = table.filter(table["metric"] == "P(bidder's turn comes)").row(0, named=True)
    assert row["low"] <= 0.25 <= row["high"] and row["n"] == 5_000  # every deal dealt
    played = table.filter(table["metric"] == "P(made)").row(0, named=True)
    assert played["n"] == round(row["value"] * 5_000)  # the deals that reach his turn


def test_round2_take_names_the_family():
    situation = Situation(4, 0, "1R 7B 3B 8V 2J", "4R")
    deals, _, _ = play_situation(BiancoManoConfig(), HeuristicPolicy(), situation, "take", 500,
                                 seed=2, family=1)
    assert (deals.dominant == 1).all() and (deals.bid_round == 2).all()


def test_impossible_or_rare_situations_fail_with_a_typed_error():
    with pytest.raises(DealConstraintError, match="holds 5 cards"):
        Situation(4, 0, "1R 2R", "4R")
    with pytest.raises(DealConstraintError, match="cannot also be in the hand"):
        Situation(4, 0, "1R 2R 3R 4R 5R", "4R")
    with pytest.raises(DealConstraintError, match="position must be in 0..3"):
        Situation(4, 4, "1R 2R 3R 5R 6R", "4R")
    with pytest.raises(ValueError, match="malformed card"):
        Situation(4, 0, "1R 2R 3R 5R 9R", "4R")
    eager = HeuristicPolicy(take_threshold=0.0)  # the dealer's left always takes
    with pytest.raises(DealConstraintError, match="almost always take"):
        play_situation(BiancoManoConfig(), eager, Situation(4, 1, "1R 7B 3B 8V 2J", "4R"),
                       "take", 100, seed=1, max_attempts=5_000)
