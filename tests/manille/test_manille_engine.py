"""The Manille engine against the referee, exact combinatorics and its own invariants."""

from __future__ import annotations

from math import comb

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from simulators.core import tricks
from simulators.core.dispatch import IllegalAction
from simulators.manille import referee
from simulators.manille import rules as R
from simulators.manille.crosscheck import check_deals, check_games, check_invariants
from simulators.manille.engine import simulate_deals, simulate_games
from simulators.manille.game import make_policy
from simulators.manille.policies import HeuristicPolicy, RandomPolicy
from simulators.manille.rules import ManilleConfig

CONFIGS = (ManilleConfig(), ManilleConfig(sans_atout_must_beat=True, packets=(3, 2, 3)))


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_referee_replays_20000_engine_deals_per_policy(policy):
    checked = 0
    for k, config in enumerate(CONFIGS):
        batch = simulate_deals(config, make_policy(policy), 10_000, seed=11, first_deal=k * 10_000)
        check_invariants(batch.arrays)
        checked += check_deals(batch)
    assert checked == 20_000


def test_small_batches_mixing_sans_atout_and_trumps_replay():
    """Many small batches: any mix of sans-atout and trump deals, either first, either option."""
    for must_beat in (False, True):
        config = ManilleConfig(sans_atout_must_beat=must_beat)
        for first in range(0, 1600, 50):
            batch = simulate_deals(config, RandomPolicy(sans_atout_probability=0.5), 50, seed=2,
                                   first_deal=first)
            check_deals(batch)
    assert batch.table["sans_atout"].any()


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_referee_replays_whole_games(policy):
    for target in (50, 150):
        batch = simulate_games(ManilleConfig(target=target), make_policy(policy), 60, seed=3)
        check_invariants(batch.arrays)
        assert check_games(batch) == batch.deals.height
        games = batch.games
        top = np.maximum(games["score_team0"].to_numpy(), games["score_team1"].to_numpy())
        assert (top >= target).all()


def test_every_trump_choice_and_contre_level_is_exercised():
    table = simulate_deals(ManilleConfig(), RandomPolicy(contre_probability=0.5), 4000, 2).table
    assert set(table["trump"].cast(str)) == {"P", "C", "K", "T", "SA"}
    assert set(table["contre"].cast(str)) == {"none", "contre", "surcontre"}
    assert table["dealer_passed"].any() and not table["dealer_passed"].all()
    assert (table["result"] == "draw").any()  # 34-34 deals occur (MA-6)


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(32)), st.integers(1, 3), st.integers(0, 3), st.integers(0, 4),
       st.booleans(), st.integers(1, 8))
def test_declared_ma5_duties_on_the_kernel_match_the_referee(deck, played_before, seat, trump,
                                                              sa_beat, hand_size):
    """The MA-5 duty table, read by the shared kernel, gives the referee's legal_plays."""
    trump_mask = np.array([tricks.SUIT_MASK[trump]], dtype=np.uint32)
    state = tricks.new_trick(1)
    trick = []
    for k, c in enumerate(deck[:played_before]):
        player = (seat + played_before - k) % 4  # counter-clockwise: the seats before `seat`
        state = tricks.add_card(state, np.array([c], np.int8), k, trump_mask)
        trick.append((player, c))
    hand = deck[8:8 + hand_size]
    holder = trick[int(state.best_pos[0])][0]
    opponent = np.array([holder % 2 != seat % 2])
    mask = tricks.legal_mask(np.array([sum(1 << c for c in hand)], dtype=np.uint32), state,
                             trump_mask, R.duties(trump, sa_beat), opponent)
    want = referee.legal_plays(hand, trick, seat, trump, sa_beat)
    assert [c for c in range(32) if int(mask[0]) >> c & 1] == want
    assert referee.trick_winner(trick, trump) == holder


def test_dealing_matches_exact_combinatorics():
    """Cards of a suit and manilles in one hand follow the hypergeometric law (MA-2)."""
    batch = simulate_deals(ManilleConfig(), make_policy("random"), 40_000, seed=5)
    hand = batch.arrays.hands[:, 1]  # one seat per deal: independent samples
    spades = np.bitwise_count(hand & np.uint32(R.SUIT_MASK[0]))
    manilles = np.bitwise_count(hand & np.uint32(R.RANK_MASK[0]))
    for counts, in_deck in ((spades, 8), (manilles, 4)):
        observed = np.bincount(counts, minlength=in_deck + 1)
        # P(k) = C(in_deck, k) C(32 - in_deck, 8 - k) / C(32, 8)
        exact = np.array([comb(in_deck, k) * comb(32 - in_deck, 8 - k) / comb(32, 8)
                          for k in range(in_deck + 1)])
        # pool the sparse tail so every expected count is >= 5
        expected = exact * len(counts)
        keep = expected >= 5
        obs = np.append(observed[keep], observed[~keep].sum())
        exp = np.append(expected[keep], expected[~keep].sum())
        obs, exp = (obs, exp) if exp[-1] > 0 else (obs[:-1], exp[:-1])
        assert stats.chisquare(obs, exp).pvalue > 1e-4
    # exact values the law gives: P(no spade) = C(24,8)/C(32,8) ~ 0.0699
    assert abs((spades == 0).mean() - comb(24, 8) / comb(32, 8)) < 0.005


def test_deterministic_across_batch_sizes():
    config = ManilleConfig()
    for policy in (RandomPolicy(), HeuristicPolicy()):
        whole = simulate_deals(config, policy, 3000, seed=9).table
        parts = pl.concat([simulate_deals(config, policy, 1000, 9, first_deal=f).table
                           for f in (0, 1000, 2000)])
        assert whole.equals(parts)
        games = simulate_games(config, policy, 40, seed=9)
        split = [simulate_games(config, policy, 20, 9, first_game=f) for f in (0, 20)]
        assert games.games.equals(pl.concat([g.games for g in split]))
        assert games.deals.equals(pl.concat([g.deals for g in split]))


def test_scores_and_tables_are_consistent():
    table = simulate_deals(ManilleConfig(), make_policy("heuristic"), 5000, seed=4).table
    assert (table["team0_points"] + table["team1_points"] == 68).all()
    assert (table["team0_tricks"].cast(int) + table["team1_tricks"] == 8).all()
    draw = table.filter(pl.col("result") == "draw")
    assert (draw["taking_score"] == 0).all() and (draw["defence_score"] == 0).all()
    assert (table["dealer_passed"] == (table["chooser"] != table["dealer"])).all()


class _FirstCard(HeuristicPolicy):
    def play(self, obs):
        return np.asarray(np.log2(obs.hand & -obs.hand.astype(np.int64)), dtype=np.int8)


def test_illegal_play_refused_with_the_ruling():
    with pytest.raises(IllegalAction, match=r"MA-5"):
        simulate_deals(ManilleConfig(), _FirstCard(), 2000, seed=1)


class _BadChoice(HeuristicPolicy):
    def choose(self, obs):
        return np.full(len(obs.hand), R.PASS_TO_PARTNER, dtype=np.int8)  # the partner too


def test_partner_may_not_pass_back():
    with pytest.raises(IllegalAction, match="partner; he must name a suit"):
        simulate_deals(ManilleConfig(), _BadChoice(), 100, seed=1)


@pytest.mark.parametrize("call, words", [
    (lambda: simulate_deals(ManilleConfig(), RandomPolicy(), 0), "n_deals"),
    (lambda: simulate_deals(ManilleConfig(), RandomPolicy(), 10, first_deal=-1), "first_deal"),
    (lambda: simulate_deals(ManilleConfig(), [RandomPolicy()] * 3, 10), "expected one policy"),
    (lambda: simulate_deals(ManilleConfig(), object(), 10), "lacks the method"),
    (lambda: simulate_games(ManilleConfig(), RandomPolicy(), 0), "n_games"),
    (lambda: HeuristicPolicy(pass_threshold=-1.0), "HeuristicPolicy.pass_threshold"),
    (lambda: RandomPolicy(contre_probability=2), "RandomPolicy.contre_probability"),
    (lambda: make_policy("heuristic", thresold=1), "no parameter 'thresold'"),
    (lambda: make_policy("clever"), "unknown Manille coincée policy"),
])
def test_bad_input_refused(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_mixed_policies_per_seat():
    batch = simulate_deals(ManilleConfig(), [HeuristicPolicy(), RandomPolicy()] * 2, 3000, 8)
    check_invariants(batch.arrays)
    assert check_deals(batch) == 3000


@pytest.mark.slow
def test_referee_replays_a_million_deals_per_policy():
    from simulators.core.conformance import main

    assert main(["manille", "--unit", "deals", "--units", "350000", "--n-jobs", "2"]) == 0


def test_ma6_a_played_34_34_deal_scores_nothing_even_contred():
    batch = simulate_deals(ManilleConfig(), RandomPolicy(contre_probability=0.6), 3000, seed=6)
    table = batch.table
    draws = np.flatnonzero((table["result"] == "draw").to_numpy())
    contred = [i for i in draws if table["contre_level"][int(i)] > 0]
    assert len(draws) > 20 and contred
    for i in (int(draws[0]), int(contred[0])):
        result = referee.replay_deal(batch.record(i), batch.config)
        assert result.team_points == (34, 34) and result.scores == (0, 0)
