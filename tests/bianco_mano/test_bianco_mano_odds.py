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


def test_odds_with_strength_pairs_the_three_ways_on_the_same_deals():
    """--play: the bidder takes (BM-7) and the same deals are played by the heuristic, by PIMC
    players and double-dummy; the rows pair each way with the first."""
    from simulators.bianco_mano.solver.odds import play_strengths

    situation = Situation(4, 0, "1R 2R 3B 8V 2J", "4R")
    frame = play_strengths(BiancoManoConfig(), HeuristicPolicy(), situation, None,
                           "heuristic,pimc,double-dummy", 6, seed=4, worlds=2)
    ways = frame.partition_by("decision", as_dict=True)
    ids = [set(ways[(w,)]["deal_id"].to_list()) for w in ("heuristic", "pimc", "double-dummy")]
    assert ids[0] == ids[1] == ids[2] and len(ids[0]) == 6  # position 0: every deal reached
    dd_points = ways[("double-dummy",)]["side_points"].to_numpy()
    assert ((0 <= dd_points) & (dd_points <= 75)).all()  # BM-1: 75 points in a deal
    # BM-10: the bidder is the taker, so his score change is +2 made (capo too), -2 failed
    for way in ways.values():
        expect = np.where(way["made"].to_numpy(), 2, -2)
        assert (way["score_change"].to_numpy() == expect).all()
    experiment = Experiment("bianco-mano", config=BiancoManoConfig(), policies=HeuristicPolicy(),
                            size=4, seed=4)
    table = odds(experiment, OddsQuestion(hand="1R 2R 3B 8V 2J", turned="4R",
                                          play="heuristic,double-dummy"))
    assert set(table["decision"]) == {"heuristic", "double-dummy", "double-dummy - heuristic"}


def test_odds_with_strength_refuses_an_unknown_way():
    with pytest.raises(ValueError,
                       match="play must list some of heuristic, net, pimc, double-dummy"):
        OddsQuestion(hand="1R 2R 3B 8V 2J", turned="4R", play="heuristic,expert")


def test_worlds_without_a_pimc_player_is_refused():
    """worlds sets the PIMC players' worlds: with no pimc in play it would change nothing."""
    with pytest.raises(ValueError, match="worlds 2 sets the worlds of the PIMC players"):
        OddsQuestion(hand="1R 2R 3B 8V 2J", turned="4R", play="heuristic,double-dummy",
                     worlds=2)
    assert OddsQuestion(hand="1R 2R 3B 8V 2J", turned="4R", play="pimc", worlds=2).worlds == 2
    with pytest.raises(ValueError, match="twice"):
        OddsQuestion(hand="1R 2R 3B 8V 2J", turned="4R", play="pimc,pimc")
