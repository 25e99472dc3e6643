"""Truc engine on real batches: referee cross-check, invariants, determinism, exact values."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from simulators.core import bits
from simulators.truc import crosscheck
from simulators.truc import rules as R
from simulators.truc.engine import IllegalAction, simulate_deals, simulate_matches
from simulators.truc.exact import CATEGORIES, fixed_order_distribution
from simulators.truc.policies import HeuristicPolicy, OrderedPolicy, RandomPolicy

POLICIES = {
    "random": RandomPolicy(),
    "heuristic": HeuristicPolicy(),
    # asks often and bluffs often: many redeals, bancos and counter-bancos
    "heuristic_wild": HeuristicPolicy(call_threshold=0.8, bluff_probability=0.5,
                                      counter_threshold=0.3, accept_threshold=0.2),
}
SCORES = ((0, 0), (10, 3), (3, 10), (9, 6), (11, 11))


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_referee_replays_20000_engine_deals_per_policy(name):
    checked = 0
    for k, scores in enumerate(SCORES[:4]):
        batch = simulate_deals(R.TrucConfig(), POLICIES[name], 5000, seed=11,
                               first_deal=5000 * k, scores=scores)
        checked += crosscheck.check_deals(batch)
    assert checked == 20_000


def test_referee_replays_the_variants():
    for config in (R.TrucConfig(card_call=False), R.TrucConfig(counter_banco=False),
                   R.TrucConfig(target=6)):
        batch = simulate_deals(config, POLICIES["heuristic_wild"], 2000, seed=5, scores=(3, 4))
        assert crosscheck.check_deals(batch) == 2000


def test_the_checked_batches_hold_every_kind_of_event():
    table = simulate_deals(R.TrucConfig(), POLICIES["heuristic_wild"], 5000, seed=11,
                           first_deal=15000, scores=(9, 6)).table  # the last checked chunk
    outcomes = set(table["outcome"].cast(str).to_list())
    assert outcomes == {"played", "refused", "abandoned"}
    random = simulate_deals(R.TrucConfig(), POLICIES["random"], 5000, seed=11).table
    assert "null" in set(random["outcome"].cast(str).to_list())
    assert table["bancos"].sum() > 100 and table["counter_bancos"].sum() > 10
    assert table["hands_dealt"].max() == R.MAX_HANDS


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_referee_replays_whole_matches(name):
    batch = simulate_matches(R.TrucConfig(), POLICIES[name], 150, seed=4)
    assert crosscheck.check_matches(batch) == batch.deals.height


@pytest.mark.slow
def test_referee_replays_a_million_deals():
    assert crosscheck.main(["--deals", "1000000", "--jobs", "2"]) == 0


def test_a_corrupted_record_is_caught():
    batch = simulate_deals(R.TrucConfig(), POLICIES["random"], 200, seed=2)
    i = int(np.flatnonzero(batch.arrays.outcome == R.PLAYED)[0])
    batch.arrays.points[i] += 1
    with pytest.raises(AssertionError, match="points"):
        crosscheck.check_deals(batch)


def test_invariants_on_a_real_batch():
    batch = simulate_deals(R.TrucConfig(), POLICIES["heuristic_wild"], 20000, seed=8,
                           scores=(9, 6))
    a = batch.arrays
    assert (np.sort(a.deck, axis=1) == np.arange(32)).all()  # a deck is the 32 cards
    played = a.outcome != R.ABANDONED
    # the cards played are the two hands of the hand played, each card once
    col = np.maximum(a.hand_no, 0).astype(int) * R.DEAL_SIZE
    hands = np.stack([a.deck[np.arange(len(col)), col + k] for k in range(6)], axis=1)
    for i in np.flatnonzero(played)[:2000]:
        cards = [c for c in a.plays[i] if c >= 0]
        assert len(set(cards)) == len(cards) and set(cards) <= set(hands[i].tolist())
    # one player scores the stake (TR-4), or the pre-proposal stake on a refusal
    deltas = a.deltas
    assert (deltas.sum(axis=1) == a.points).all()
    assert ((a.outcome == R.PLAYED) == ((a.points > 0) & (a.outcome != R.REFUSED))).all()
    assert (a.points[a.outcome == R.PLAYED] == a.stake[a.outcome == R.PLAYED]).all()
    assert (a.points[(a.outcome == R.NULL) | (a.outcome == R.ABANDONED)] == 0).all()
    # stakes never fall and never take the proposer beyond the target (TR-5)
    assert (np.diff(np.where(a.stakes > 0, a.stakes, 99), axis=1)[:, :1] >= 0).all()
    assert a.stake.max() <= 12
    # a played deal lasts two tricks or three (TR-3)
    tricks = batch.table.filter(batch.table["outcome"] == "played")["tricks_played"]
    assert set(tricks.unique().to_list()) <= {2, 3}


def test_same_seed_same_deals_whatever_the_chunking():
    whole = simulate_deals(R.TrucConfig(), POLICIES["random"], 3000, seed=9)
    parts = [simulate_deals(R.TrucConfig(), POLICIES["random"], n, seed=9, first_deal=f)
             for f, n in ((0, 1000), (1000, 1500), (2500, 500))]
    for field in ("deck", "plays", "proposed", "answers", "points", "winner"):
        joined = np.concatenate([getattr(p.arrays, field) for p in parts])
        assert np.array_equal(getattr(whole.arrays, field), joined), field


def test_common_random_numbers_the_first_hands_do_not_depend_on_the_policy():
    a = simulate_deals(R.TrucConfig(), POLICIES["random"], 2000, seed=3).arrays
    b = simulate_deals(R.TrucConfig(), POLICIES["heuristic"], 2000, seed=3).arrays
    assert np.array_equal(a.deck[:, :6], b.deck[:, :6])
    both_redealt = (a.hand_no >= 1) & (b.hand_no >= 1)
    assert np.array_equal(a.deck[both_redealt, :12], b.deck[both_redealt, :12])


def test_tr1_dealt_cards_are_uniform():
    a = simulate_deals(R.TrucConfig(), OrderedPolicy(), 64000, seed=1).arrays
    for position in (0, 5):
        counts = np.bincount(a.deck[:, position], minlength=32)
        assert stats.chisquare(counts).pvalue > 1e-3
    # asking regardless of the hand, the second hand is uniform too (a hand-based call would
    # rightly leave the stock richer in strong cards)
    blind = simulate_deals(R.TrucConfig(), RandomPolicy(ask_probability=0.9), 64000,
                           seed=1).arrays
    redealt = blind.deck[blind.hand_no >= 1, 6]  # the first card of the second hand
    assert redealt.size > 5000
    assert stats.chisquare(np.bincount(redealt, minlength=32)).pvalue > 1e-3


def _check_against_exact(results, exact):
    n = len(results)
    for key in CATEGORIES:
        k = sum(1 for r in results if r == key)
        p = float(exact[key])
        if p == 0:
            assert k == 0, key
            continue
        low, high = stats.binomtest(k, n).proportion_ci(0.999)
        assert low <= p <= high, (key, k / n, p)


def _results(table):
    """(winner role or 'null', tricks played) of each deal of a table."""
    rows = zip(table["winner"], table["dealer"], table["tricks_played"], strict=True)
    return [("null" if w < 0 else ("dealer" if w == d else "non_dealer"), int(t))
            for w, d, t in rows]


@pytest.mark.parametrize("strongest", [True, False])
def test_tr3_deal_results_match_the_enumeration_same_order(strongest):
    table = simulate_deals(R.TrucConfig(), OrderedPolicy(strongest_first=strongest), 60000,
                           seed=21).table
    _check_against_exact(_results(table), fixed_order_distribution(strongest, strongest))


def test_tr3_deal_results_match_the_enumeration_opposite_orders():
    # seat 0 strongest first, seat 1 weakest first; seat i % 2 deals deal i
    table = simulate_deals(R.TrucConfig(), (OrderedPolicy(True), OrderedPolicy(False)), 60000,
                           seed=22).table
    seat0_deals = table.filter(table["dealer"] == 0)
    seat1_deals = table.filter(table["dealer"] == 1)
    _check_against_exact(_results(seat0_deals), fixed_order_distribution(False, True))
    _check_against_exact(_results(seat1_deals), fixed_order_distribution(True, False))


@pytest.mark.slow
def test_tr3_enumeration_at_a_million_deals():
    table = simulate_deals(R.TrucConfig(), (OrderedPolicy(True), OrderedPolicy(False)),
                           1_000_000, seed=23).table
    _check_against_exact(_results(table.filter(table["dealer"] == 0)),
                         fixed_order_distribution(False, True))
    same = simulate_deals(R.TrucConfig(), OrderedPolicy(True), 1_000_000, seed=24).table
    _check_against_exact(_results(same), fixed_order_distribution(True, True))


def test_exact_distribution_sums_to_one_and_is_symmetric_for_equal_orders():
    d = fixed_order_distribution(True, True)
    assert sum(d.values()) == 1
    assert d[("non_dealer", 2)] == d[("dealer", 2)]
    assert d[("null", 3)] > 0


def test_matches_tables_are_consistent():
    batch = simulate_matches(R.TrucConfig(), POLICIES["heuristic"], 300, seed=6)
    m, manches = batch.matches, batch.manches
    assert m.height == 300
    assert ((m["manches_0"] == 2) ^ (m["manches_1"] == 2)).all()
    assert (m["deals"].sum() == batch.deals.height)
    winner_score = np.where(manches["winner"] == 0, manches["score_0"], manches["score_1"])
    loser_score = np.where(manches["winner"] == 0, manches["score_1"], manches["score_0"])
    assert (winner_score >= 12).all() and (loser_score < 12).all()
    first = batch.deals.group_by("match_id").agg(d=pl.col("dealer").first())
    assert (first.sort("match_id")["d"].to_numpy() == np.arange(300) % 2).all()


def test_bad_policy_output_is_refused():
    class Silent(RandomPolicy):
        def play(self, obs):
            return np.zeros(3, dtype=np.int8)

    with pytest.raises(IllegalAction, match="shape"):
        simulate_deals(R.TrucConfig(), Silent(), 10, seed=0)


def test_call_observation_shows_own_discards():
    seen = []

    class Recorder(HeuristicPolicy):
        def call(self, obs):
            if obs.hand_no:
                seen.append((obs.hand.copy(), obs.discarded.copy(), obs.hand_no))
            return np.ones(len(obs.hand), dtype=bool)

    simulate_deals(R.TrucConfig(), Recorder(), 50, seed=0)
    assert seen
    for hand, discarded, k in seen:
        assert (bits.popcount(discarded) == 3 * k).all()
        assert ((hand & discarded) == 0).all()
