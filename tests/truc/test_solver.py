"""The Truc deal solver: known values first (Kuhn poker, a one-card Truc solved by hand),
then the deal tree's rules (TR-3..TR-5) and convergence on small variants."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from simulators.core.cfr.cfrplus import CFRPlus, evaluate, exploitability, game_value, solve
from simulators.core.cfr.kuhn import KUHN_VALUE, kuhn_tree
from simulators.truc.solver.deal import (
    ACCEPT,
    COUNTER,
    PASS,
    PLAY,
    PROPOSE,
    REFUSE,
    DealSpec,
    build_deal_tree,
    deal_result,
    deal_weights,
    follow,
    trick_winner,
)

SEVEN, EIGHT, ACE = 0, 1, 2


def test_kuhn_value_is_minus_one_eighteenth():
    result = solve(kuhn_tree(), iterations=2000, check_every=500)
    assert abs(result.value - KUHN_VALUE) < 1e-4
    assert result.exploitability < 1e-3


def test_one_card_truc_at_ten_all_is_kuhn_poker():
    """Three cards 7 8 A, one each, at 10-10 (one proposal fits under 12, TR-5).

    Solved by hand: the non-dealer proposes with the 7, bluffs with the A one
    time in three and passes with the 8; the dealer with the 8 accepts one
    time in three; after a pass the dealer proposes with the winning card and
    bluffs one time in three; the 8 accepts two times in three. The value is
    (7/6 - 1/3 - 1) / 3 = -1/18, Kuhn poker's.
    """
    tree = build_deal_tree(DealSpec(hand_size=1, n_ranks=3, copies=1, scores=(10, 10))).tree
    result = solve(tree, iterations=3000, check_every=1000)
    assert abs(result.value - KUHN_VALUE) < 1e-4
    assert result.exploitability < 1e-3


def test_no_proposal_possible_at_eleven_all_one_card_is_fair():
    # caps of 1 point leave no proposal (TR-5); one trick by chance: zero by symmetry
    deal = build_deal_tree(DealSpec(hand_size=1, scores=(11, 11)))
    assert not (deal.kind == 0).any()  # no proposal turn anywhere
    result = solve(deal.tree, iterations=10, check_every=10)
    assert result.value == pytest.approx(0.0, abs=1e-12)
    assert result.exploitability == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(("leader", "lead", "reply", "winner"), [
    (0, SEVEN, EIGHT, 0), (0, EIGHT, SEVEN, 1), (1, ACE, 7, 1), (1, 7, ACE, 0),
    (0, ACE, ACE, 2), (1, SEVEN, SEVEN, 2),
])
def test_tr3_trick_winner(leader, lead, reply, winner):
    assert trick_winner(leader, lead, reply) == winner


@pytest.mark.parametrize(("results", "outcome"), [
    ((0,), None), ((0, 0), 0), ((1, 1), 1),
    ((2, 0), 0), ((2, 1), 1),            # first pourri: to the winner of the second
    ((0, 2), 0), ((1, 2), 1),            # second pourri: to the winner of the first
    ((0, 1), None), ((2, 2), None),
    ((0, 1, 1), 1), ((1, 0, 2), 1),      # third pourri: to the winner of the first
    ((2, 2, 0), 0), ((2, 2, 1), 1),      # first two pourri: both to the third's winner
    ((2, 2, 2), 2),                      # all three pourri: null deal
])
def test_tr3_deal_result(results, outcome):
    assert deal_result(results) == outcome


def test_tr1_deal_weights_count_suits_and_card_removal():
    spec = DealSpec()
    w = deal_weights(spec)
    types = spec.types()
    assert len(types) == 120
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    i, j = types.index((0, 0, 0)), types.index((0, 1, 1))
    assert w[i, j] == pytest.approx(comb(4, 3) * comb(1, 1) * comb(4, 2)
                                    / (comb(32, 3) * comb(29, 3)))
    assert w[i, types.index((0, 0, 1))] == 0.0  # five sevens


def test_tr4_tr5_payoffs_of_refusals_banco_and_counter_banco():
    """One card each; the dealer stands at 9 (a banco of 3 at stake 2), the non-dealer at 0."""
    tree = build_deal_tree(DealSpec(hand_size=1, n_ranks=3, copies=1, scores=(0, 9))).tree
    assert tree.payoff[follow(tree, [PROPOSE, REFUSE])] == 1  # TR-4: the proposer's 1
    accepted = [PROPOSE, ACCEPT, PLAY + EIGHT, PROPOSE]  # dealer proposes min(4, 12-9) = 3
    assert tree.payoff[follow(tree, accepted + [REFUSE])] == -2  # stake before the banco
    assert tree.payoff[follow(tree, accepted + [COUNTER, REFUSE])] == 3  # the banco stake
    final = follow(tree, accepted + [COUNTER, ACCEPT])  # counter-banco: 12 - 0
    assert tree.player[final] == -1 and tree.payoff[final] == 12
    assert tree.payoff[follow(tree, accepted + [ACCEPT])] == 3
    with pytest.raises(KeyError):  # a plain double cannot be countered
        follow(tree, [PROPOSE, COUNTER])
    # TR-5: after the dealer's banco is accepted nobody can raise: the last card follows
    assert tree.player[follow(tree, [PASS, PLAY + SEVEN, PROPOSE, ACCEPT])] == -1


def test_small_variant_converges_below_a_hundredth_of_a_point(small_solved):
    solved, _ = small_solved
    tree = solved.deal.tree
    assert solved.exploitability <= 0.01
    # the exploitability's two best responses bracket the value
    br0 = evaluate(tree, solved.strategy, 0, best_response=True)
    br1 = evaluate(tree, solved.strategy, 1, best_response=True)
    assert -br1 <= solved.value <= br0
    assert exploitability(tree, solved.strategy) == pytest.approx(solved.exploitability)


def test_best_response_beats_any_fixed_strategy():
    tree = build_deal_tree(DealSpec(hand_size=1, n_ranks=4, copies=2)).tree
    uniform = CFRPlus(tree).average_strategy()  # no iteration: uniform
    value = game_value(tree, uniform)
    assert evaluate(tree, uniform, 0, best_response=True) >= value - 1e-12
    assert evaluate(tree, uniform, 1, best_response=True) >= -value - 1e-12
    assert exploitability(tree, uniform) > 0.1


@pytest.mark.slow
def test_full_deal_at_zero_all_is_solved_within_a_hundredth():
    tree = build_deal_tree(DealSpec()).tree
    result = solve(tree, iterations=1000, target=0.01, check_every=25)
    assert result.exploitability <= 0.01
    assert np.isfinite(result.value)


@pytest.mark.parametrize("nd_strong, d_strong", [(True, True), (False, True), (True, False)])
def test_fixed_order_play_on_the_tree_matches_exact_enumeration(nd_strong, d_strong):
    """TR-1, TR-3 cross-checked: the deal tree at 11-11 (no proposal fits, TR-5) with
    both players following OrderedPolicy gives the referee-based exact enumeration."""
    from simulators.truc.exact import fixed_order_distribution
    from simulators.truc.policies import OrderedPolicy
    from simulators.truc.solver.policy_eval import policy_strategy

    deal = build_deal_tree(DealSpec(scores=(11, 11)))
    exact = fixed_order_distribution(nd_strong, d_strong)
    expected = float(sum(p for (who, _), p in exact.items() if who == "non_dealer")
                     - sum(p for (who, _), p in exact.items() if who == "dealer"))
    strategy = np.ones(deal.tree.n_entries)
    for seat, strong in ((0, nd_strong), (1, d_strong)):
        own = policy_strategy(deal, OrderedPolicy(strongest_first=strong))
        rows = _entries_of_seat(deal.tree, seat)
        strategy[rows] = own[rows]
    assert game_value(deal.tree, strategy) == pytest.approx(expected, abs=1e-12)


def _entries_of_seat(tree, seat):
    """Entries holding the action probabilities of ``seat``."""
    nodes = np.flatnonzero(tree.player[tree.parent[1:]] == seat) + 1
    starts, counts = tree.entry_start[nodes, seat], tree.entry_count[nodes, seat]
    return np.concatenate([np.arange(s, s + k) for s, k in zip(starts, counts, strict=True)])


@pytest.fixture
def solver_cache(tmp_path, monkeypatch):
    """Solved deals go to a temporary cache directory."""
    monkeypatch.setenv("TAPISVERT_CACHE", str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def small_solved(tmp_path_factory):
    """A 4-rank, 2-copy deal solved to 0.01 into a temporary cache, and that cache."""
    from simulators.truc.solver.solutions import solved_deal

    cache = tmp_path_factory.mktemp("solver_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TAPISVERT_CACHE", str(cache))
        yield solved_deal(DealSpec(n_ranks=4, copies=2), target=0.01), cache


def test_solved_deal_is_cached_and_reloaded_identically(small_solved, monkeypatch):
    from simulators.truc.solver.solutions import solved_deal

    first, cache = small_solved
    monkeypatch.setenv("TAPISVERT_CACHE", str(cache))
    assert len(list((cache / "truc_solver").glob("v*.npz"))) == 1  # and one tree_*.npz
    again = solved_deal(DealSpec(n_ranks=4, copies=2), target=0.01)
    assert again.iterations == first.iterations and again.value == first.value
    np.testing.assert_allclose(again.strategy, first.strategy, atol=1e-7)  # stored as float32


def test_hand_values_average_to_the_seat_values(small_solved):
    from simulators.truc.solver.solutions import hand_values

    solved, _ = small_solved
    values = hand_values(solved)
    w = solved.deal.tree.weight[0]
    assert w.sum(axis=1) @ values[0] == pytest.approx(solved.value, abs=1e-9)
    assert w.sum(axis=0) @ values[1] == pytest.approx(-solved.value, abs=1e-9)
    best = solved.deal.types.index((0, 0, 1))  # both 7s of this deck: two tricks won
    assert values[0, best] > 0.95 and values[1, best] > 0.95


def test_equilibrium_policy_plays_the_solved_strategy(solver_cache):
    """Observations -> information sets -> sampled actions gives back the equilibrium
    (11-11: card play only), within the 1/20 resolution of 20 stratified noise levels."""
    from simulators.truc.equilibrium import EquilibriumPolicy, load_solution
    from simulators.truc.solver.policy_eval import policy_strategy

    policy = EquilibriumPolicy(score_aware=False, card_call=False, solved_scores=11)
    solved, _ = load_solution((11, 11), policy.target_exploitability)
    assert solved.exploitability <= policy.target_exploitability
    played = policy_strategy(solved.deal, policy, noise_levels=20)
    assert np.abs(played - solved.strategy).max() <= 1 / 20 + 1e-9


def test_equilibrium_policy_deals_are_legal_and_replayed_by_the_referee(solver_cache):
    from simulators.truc import rules as R
    from simulators.truc.crosscheck import check_deals
    from simulators.truc.engine import simulate_deals
    from simulators.truc.game import make_policy
    from simulators.truc.policies import HeuristicPolicy

    for params in ({"card_call": False}, {}):  # the deal alone; the card call in the game
        policy = make_policy("equilibrium", score_aware=False, solved_scores=11, **params)
        for scores in ((0, 0), (10, 3), (9, 11)):  # proposals mapped by order, bancos, counters
            batch = simulate_deals(R.TrucConfig(), [policy, HeuristicPolicy()], 400, seed=3,
                                   scores=scores)
            assert check_deals(batch) == 400


@pytest.mark.slow
def test_equilibrium_policy_at_ten_all_is_as_unexploitable_as_the_equilibrium(solver_cache):
    from simulators.truc.equilibrium import EquilibriumPolicy, load_solution
    from simulators.truc.solver.policy_eval import policy_exploitability

    solved, _ = load_solution((10, 10), 0.005)
    policy = EquilibriumPolicy(score_aware=False, card_call=False, solved_scores=10)
    result = policy_exploitability(solved, policy, noise_levels=50)
    assert result.exploitability <= solved.exploitability + 0.005
    assert result.self_play_value == pytest.approx(solved.value, abs=0.01)
