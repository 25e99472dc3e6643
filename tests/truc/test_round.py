"""The deal with the card call (TR-2) in the solved game: the round tree, the stationary
strategy and its exact measure in the five-hand game (simulators/truc/solver/round.py)."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.cfr.cfrplus import CFRPlus, exploitability, game_value, solve
from simulators.core.cfr.tree import TERMINAL
from simulators.truc.solver.deal import DealSpec, build_deal_tree
from simulators.truc.solver.round import (
    ASK,
    KEEP,
    MAX_HANDS,
    build_round_tree,
    round_values,
    set_redeal,
)

SMALL = DealSpec(n_ranks=4, copies=2, scores=(10, 10))  # 8 cards, 3-card hands, stakes to 2


def test_the_round_tree_is_the_call_then_two_card_plays():
    deal = build_deal_tree(SMALL)
    rt = build_round_tree(deal)
    tree = rt.tree
    assert tree.n_nodes == 5 + 2 * (deal.tree.n_nodes - 1)
    assert list(tree.player[:5]) == [0, 0, 1, 0, TERMINAL]  # A and B start with the lead
    assert list(tree.action[1:5]) == [KEEP, ASK, KEEP, ASK]
    assert rt.copy_roots == (1, 3) and rt.redeal == 4
    for i in (0, 1):  # each copy is the card play, node for node
        nodes = rt.copy_nodes(i)
        assert np.array_equal(tree.player[nodes], deal.tree.player)
        assert np.array_equal(tree.entry_count[nodes], deal.tree.entry_count)
        assert np.array_equal(tree.payoff[nodes], deal.tree.payoff)


def test_keeping_every_hand_is_the_deal_without_the_call():
    """Both keep their first hands: the round is worth the deal, move for move."""
    deal = build_deal_tree(SMALL)
    solved = solve(deal.tree, iterations=200, check_every=200)
    rt = build_round_tree(deal)
    strategy = np.ones(rt.tree.n_entries)
    types = len(deal.types)
    strategy[2 * types * 1:2 * types * 1 + types] = 0.0  # node 2 (non-dealer asked): never
    for i in (0, 1):
        off = 6 * types + i * deal.tree.n_entries
        strategy[off:off + deal.tree.n_entries] = solved.strategy
    value = round_values(rt.tree, strategy, abandoned=0.0).value
    assert value == pytest.approx(solved.value, abs=1e-12)


def test_the_five_hands_are_measured_backward():
    """One hand: round_values is the tree's own value and exploitability with the redeal
    worth the abandoned deal; five: each hand's redeal is worth the next hand's value."""
    deal = build_deal_tree(SMALL)
    tree = build_round_tree(deal).tree
    solver = CFRPlus(tree)
    solver.step(30)
    strategy = solver.average_strategy()
    one = round_values(tree, strategy, abandoned=0.25, hands=1)
    set_redeal(tree, 0.25)
    assert one.value == pytest.approx(game_value(tree, strategy), abs=1e-12)
    assert one.exploitability == pytest.approx(exploitability(tree, strategy), abs=1e-12)
    assert one.exploitability > 0.01  # 30 iterations: far from an equilibrium
    five = round_values(tree, strategy, abandoned=0.25)
    for hand in range(MAX_HANDS - 1):
        set_redeal(tree, five.by_hand[hand + 1])
        assert five.by_hand[hand] == pytest.approx(game_value(tree, strategy), abs=1e-12)


def test_the_stationary_solution_is_an_equilibrium_of_the_five_hand_game():
    """CFR+ with the redeal worth the round's own value: its exact exploitability in the
    five-hand game is small, and its value is that of the five-hand equilibrium solved
    backward (hand 5 first, its redeal the abandoned deal; TR-2)."""
    deal = build_deal_tree(SMALL)
    tree = build_round_tree(deal).tree
    solver = CFRPlus(tree)
    value = 0.0
    for _ in range(60):
        set_redeal(tree, value)
        solver.step(10)
        value = game_value(tree, solver.average_strategy())
    measured = round_values(tree, solver.average_strategy(), abandoned=0.0)
    backward = 0.0
    for _ in range(MAX_HANDS):
        set_redeal(tree, backward)
        exact = solve(tree, iterations=500, check_every=500)  # 3e-4 at 600 (1e-4 at 1500)
        assert exact.exploitability < 2e-3
        backward = exact.value
    assert measured.exploitability < 5e-3
    assert measured.value == pytest.approx(backward, abs=3e-3)
