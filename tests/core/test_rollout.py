"""The rollout machinery of the core: the uniform deal of the hidden cards, the paired choice."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from simulators.core.rollout import choose, deal_hidden


def _outcome(dealt, rest, row):
    """One world as a hashable: each slot's cards, then the rest in order."""
    slots = tuple(tuple(np.repeat(np.arange(dealt.shape[2]), dealt[row, s]))
                  for s in range(dealt.shape[1]))
    return slots, tuple(int(c) for c in rest[row] if c >= 0)


def test_deal_hidden_is_uniform_over_every_consistent_world():
    """Hidden cards {0, 0, 1, 2, 3} (two copies of kind 0) into slots of 1 and 2 cards and a
    rest of 2 in order: each world's frequency is its share of the 5! equally likely orders
    of the five physical cards (exact enumeration), checked by a chi-square test."""
    cards = (0, 0, 1, 2, 3)
    weight = Counter()
    for order in itertools.permutations(cards):  # the two 0s as distinct cards: 120 orders
        weight[((tuple(sorted(order[:1])), tuple(sorted(order[1:3]))), order[3:])] += 1
    # by hand: the slot of 1 holds a 0 (then 6 pairs x 2 orders) or 1, 2, 3 (7 worlds each)
    assert len(weight) == 12 + 3 * 7 and sum(weight.values()) == 120
    n = 30_000
    hidden = np.tile(np.bincount(cards, minlength=4), (n, 1))
    slots = np.tile([1, 2], (n, 1))
    uniforms = np.random.default_rng(7).random((n, 5))
    dealt, rest = deal_hidden(hidden, slots, 2, uniforms)
    seen = Counter(_outcome(dealt, rest, i) for i in range(n))
    assert set(seen) == set(weight)  # every world reached, none outside
    worlds = sorted(weight)
    expected = np.array([weight[w] for w in worlds]) * n / 120
    assert stats.chisquare([seen[w] for w in worlds], expected).pvalue > 1e-3


def test_deal_hidden_keeps_the_cards_and_sizes():
    rng = np.random.default_rng(1)
    hidden = rng.integers(0, 3, size=(50, 10))
    slots = np.stack([hidden.sum(1) // 3, hidden.sum(1) // 4], axis=1)
    rest = hidden.sum(1) - slots.sum(1)
    dealt, ordered = deal_hidden(hidden, slots, rest, rng.random((50, 40)))
    assert (dealt.sum(axis=2) == slots).all()
    again = dealt.sum(axis=1) + np.stack([np.bincount(r[r >= 0], minlength=10) for r in ordered])
    assert (again == hidden).all()
    assert ((ordered >= 0).sum(axis=1) == rest).all()


def test_deal_hidden_refuses_inconsistent_places():
    with pytest.raises(ValueError, match="do not fill"):
        deal_hidden(np.array([[2, 1]]), np.array([[1]]), 1, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="negative"):
        deal_hidden(np.array([[-1, 1]]), np.array([[0]]), 0, np.zeros((1, 3)))


def test_choose_leaves_the_base_only_on_a_significant_paired_gain():
    # row 0: candidate 1 gains 1 in every world (significant); row 1: +/-3 noise around +0.5
    base = np.zeros(4)
    scores = np.array([
        [base, base + 1, base - 1],
        [base, np.array([3.5, -2.5, 3.5, -2.5]), base],
    ])
    valid = np.ones((2, 3), bool)
    assert choose(scores, valid, confidence=1.0).tolist() == [1, 0]
    assert choose(scores, valid, confidence=0.0).tolist() == [1, 1]
    valid[0, 1] = False
    assert choose(scores, valid, confidence=1.0).tolist() == [0, 0]
    # a tie keeps the base's answer
    assert choose(np.zeros((1, 3, 4)), np.ones((1, 3), bool), 0.0).tolist() == [0]
