"""Bianco Mano engine: the 20,000-deal referee cross-check, tables, dealing, bad input.

Random play at several batch sizes, chunking, whole-game replay, card
conservation and the BM-10 score invariants run for every game in
tests/test_conformance.py (hooks in simulators/bianco_mano/game.py).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import stats

from simulators.bianco_mano import (
    BiancoManoConfig,
    HeuristicPolicy,
    IllegalAction,
    RandomPolicy,
    make_policy,
    simulate_deals,
    simulate_games,
)
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.crosscheck import check_deals
from simulators.bianco_mano.engine import FAMILY_MASK
from simulators.core import bits
from simulators.core.tricks import first_dealers

CROSSCHECK_DEALS = 20_000


# ------------------------------------------------------------ fidelity


@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_engine_deals_replayed_by_referee(n_players, bm_policy):
    """>= 20,000 deals per player count and policy: every move legal, every score equal."""
    config = BiancoManoConfig(n_players=n_players, bianco_mano=True)
    batch = simulate_deals(config, bm_policy, CROSSCHECK_DEALS, seed=101)
    assert check_deals(batch) == CROSSCHECK_DEALS
    outcomes = set(batch.table["outcome"].unique())
    assert {"made", "failed"} <= outcomes  # the check exercised both sides of BM-10


@pytest.mark.slow
@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_engine_million_deals_replayed_by_referee(n_players):
    """The large run: 10^6 deals per player count, both policies, bonus on half the chunks."""
    total = 0
    for k, first in enumerate(range(0, 1_000_000, 50_000)):
        config = BiancoManoConfig(n_players=n_players, bianco_mano=k % 2 == 1)
        for name in ("random", "heuristic"):
            batch = simulate_deals(config, make_policy(name), 25_000, 7, first_deal=first)
            total += check_deals(batch)
    assert total == 1_000_000


# ------------------------------------------------------------ tables


def test_deal_table_columns_agree_with_arrays():
    """The tidy table carries one row per deal with outcomes and per-seat deltas."""
    batch = simulate_deals(BiancoManoConfig(n_players=5), HeuristicPolicy(), 2_000, seed=4)
    t = batch.table
    assert t.height == 2_000
    assert t["deal_id"].to_list() == list(range(2_000))
    assert (t["dealer"].to_numpy() == np.arange(2_000) % 5).all()
    delta_sum = sum(t[f"delta_{s}"].to_numpy().astype(int) for s in range(5))
    # 5 players: made 2+1-3 = 0, capo 2+1-6 = -3, failed -2-1+3 = 0
    want = t["outcome"].replace_strict({"made": 0, "failed": 0, "capo": -3, "all_pass": 0})
    assert (delta_sum == want.to_numpy()).all()
    taken = t.filter(pl.col("taker") >= 0)
    assert (taken["partner"] != taken["taker"]).all()
    assert taken["taker_dominant_count"].min() >= 1  # the turned card's family, or the named one
    assert (taken["taker_points_held"] >= taken["taker_points_at_bid"]).all()


# ------------------------------------------------------------ determinism


def test_deals_do_not_depend_on_the_policy():
    """Common random numbers: the deck and cut of deal i depend on the seed only."""
    config = BiancoManoConfig(n_players=4)
    a = simulate_deals(config, RandomPolicy(), 500, seed=3).arrays
    b = simulate_deals(config, HeuristicPolicy(), 500, seed=3).arrays
    assert (a.deck == b.deck).all() and (a.cut == b.cut).all()


def test_seed_sequence_accepted_as_seed():
    """A root SeedSequence and its entropy integer give the same deals."""
    config = BiancoManoConfig()
    a = simulate_deals(config, HeuristicPolicy(), 100, seed=np.random.SeedSequence(12345)).table
    b = simulate_deals(config, HeuristicPolicy(), 100, seed=12345).table
    assert_frame_equal(a, b)


# ------------------------------------------------------------ dealing statistics


@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_turned_family_count_in_first_packet_is_hypergeometric(n_players):
    """The cards of the turned family in the first bidder's first distribution follow
    the exact hypergeometric law: 7 of that family among the 31 other cards."""
    taker_always = HeuristicPolicy(take_threshold=0.0)  # the dealer's left takes in round 1
    batch = simulate_deals(BiancoManoConfig(n_players=n_players), taker_always, 60_000, seed=8)
    a = batch.arrays
    assert (a.taker == (a.dealer + 1) % n_players).all() and (a.bid_round == 1).all()
    h1 = R.FIRST_DISTRIBUTION[n_players]
    turned_family = a.turned_card & 3
    in_hand = bits.popcount(a.taker_bid_hand & FAMILY_MASK[turned_family]).astype(int) - 1
    observed = np.bincount(in_hand, minlength=h1 + 1)
    expected = stats.hypergeom(31, 7, h1).pmf(np.arange(h1 + 1)) * len(in_hand)
    keep = expected > 5
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3
    assert abs(in_hand.mean() - h1 * 7 / 31) < 4 * np.sqrt(h1 * 7 / 31 * 24 / 31 * 26 / 30
                                                              / len(in_hand))


def test_first_dealer_draw_is_uniform_and_follows_bm2():
    """BM-2 on hand-made draws, and uniform over seats on random ones."""
    deck = np.array([[R.card(3, 0), R.card(0, 1), R.card(0, 2), R.card(5, 3),
                      R.card(2, 0), R.card(1, 0)] + [c for c in range(32) if c not in
                     (R.card(3, 0), R.card(0, 1), R.card(0, 2), R.card(5, 3), R.card(2, 0),
                      R.card(1, 0))]], dtype=np.int8)
    # seats 1 and 2 tie with Mammas; redraw: seat 1 gets an Avocat, seat 2 a Parrain
    assert first_dealers(deck, 4)[0] == 2
    batch = simulate_games(BiancoManoConfig(n_players=5, deals_per_game=1), HeuristicPolicy(),
                           20_000, seed=1)
    counts = np.bincount(batch.first_dealer, minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3


# ------------------------------------------------------------ bad input


def test_bad_config_values_are_rejected():
    with pytest.raises(ValueError, match="n_players must be 3, 4 or 5"):
        BiancoManoConfig(n_players=6)
    with pytest.raises(ValueError, match="gather must be one of"):
        BiancoManoConfig(gather="random")
    with pytest.raises(ValueError, match="gather has no effect with shuffle_every_deal"):
        BiancoManoConfig(shuffle_every_deal=True, gather="trick_order")
    with pytest.raises(ValueError, match="deals_per_game"):
        BiancoManoConfig(deals_per_game=0)
    with pytest.raises(ValueError, match="cut_weights"):
        BiancoManoConfig(cut_weights=(1.0,) * 30)


def test_bad_policy_parameters_are_named():
    with pytest.raises(ValueError, match=r"Policy.take_threshold must be in \[0.0, 30.0\]"):
        HeuristicPolicy(take_threshold=31)
    with pytest.raises(ValueError, match="RandomPolicy.take_probability must be in"):
        RandomPolicy(take_probability=-0.1)
    with pytest.raises(ValueError, match="lead_trump_min must be an integer"):
        HeuristicPolicy(lead_trump_min=2.5)
    with pytest.raises(ValueError, match="has no parameter 'treshold'"):
        make_policy("heuristic", treshold=3)
    with pytest.raises(ValueError, match="unknown Bianco Mano policy 'greedy'"):
        make_policy("greedy")
    assert make_policy("heuristic", take_threshold=5).get_params()["take_threshold"] == 5


def test_malformed_card_text_is_rejected():
    assert R.parse_cards("1R 8v 3J") == [0, 31, 10]
    assert R.format_cards(R.parse_cards("1R 8V 3J")) == "1R 8V 3J"
    for bad in ("9R", "1X", "R1", "10B", ""):
        with pytest.raises(ValueError, match="malformed card"):
            R.parse_card(bad)
    with pytest.raises(ValueError, match="appears twice"):
        R.parse_cards("1R 1r")


class _Cheater(HeuristicPolicy):
    """Plays its strongest card, ignoring the obligations (BM-8)."""

    def play(self, obs):
        return bits.bit_index(bits.lowest_bit(obs.hand))


def test_illegal_play_raises_with_the_ruling():
    with pytest.raises(IllegalAction, match=r"play .* by seat \d in trick \d+; legal: .*\(BM-8\)"):
        simulate_deals(BiancoManoConfig(), _Cheater(), 2_000, seed=1)


def test_per_seat_policies_dispatch_to_their_seats():
    """Seat-specific policies: a never-taking seat 0 never takes."""
    never = HeuristicPolicy(take_threshold=30.0, round2_threshold=30.0)
    batch = simulate_deals(BiancoManoConfig(), [never, HeuristicPolicy(), HeuristicPolicy(),
                                                HeuristicPolicy()], 4_000, seed=2)
    takers = batch.table["taker"].to_numpy()
    assert not (takers == 0).any() and (takers == 1).any()


def test_bm11_bonus_turns_near_misses_into_made_in_the_engine():
    """The rule text's case on engine deals: 40..44 card points + 5 announced is made,
    the same points unannounced fail (BM-10, BM-11)."""
    config = BiancoManoConfig(n_players=4, bianco_mano=True)
    t = simulate_deals(config, HeuristicPolicy(), 30_000, seed=12).table
    near = t.filter(pl.col("side_points").is_between(40, 44))
    announced = near.filter(pl.col("bonus_announced"))
    assert announced.height >= 10
    assert (announced["outcome"] == "made").all()
    assert (near.filter(~pl.col("bonus_announced"))["outcome"] == "failed").all()
    assert (t.filter(pl.col("bonus_announced"))["bonus_eligible"]).all()
