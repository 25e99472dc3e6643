"""Exact distribution of deal results under fixed card orders, by enumerating all hands.

When both players play their three cards in a fixed order (strongest first,
or weakest first), never ask for new cards and never propose, a deal's
result depends only on the two hands. Suits never matter (TR-1), so the
enumeration runs over rank multisets (120 per hand) weighted by how many
32-card deals give them: ``C(4, a_r) * C(4 - a_r, b_r)`` over ranks ``r``,
summing to C(32, 3) * C(29, 3) = 18,123,840 deals. Each pair is resolved
with the referee's own :func:`~simulators.truc.referee.trick_result` and
:func:`~simulators.truc.referee.resolve_deal`, independently of the engine,
whose frequencies must then fall within the sampling interval.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb

from simulators.truc import rules as R
from simulators.truc.referee import resolve_deal, trick_result

NON_DEALER, DEALER = 0, 1  # roles in the result keys
CATEGORIES = (
    ("non_dealer", 2), ("non_dealer", 3), ("dealer", 2), ("dealer", 3), ("null", 3),
)


def _multisets():
    """Rank multisets of three cards (at most four of a rank), ascending ranks."""
    for ranks in combinations_with_replacement(range(R.N_RANKS), R.HAND_SIZE):
        counts = Counter(ranks)
        if max(counts.values()) <= R.N_SUITS:
            yield ranks, counts


def play_fixed_order(non_dealer_ranks, dealer_ranks) -> tuple[str, int]:
    """(winner role or 'null', tricks played) when both play their ranks in the given order."""
    leader = NON_DEALER  # TR-3: the non-dealer leads
    hands = {NON_DEALER: list(non_dealer_ranks), DEALER: list(dealer_ranks)}
    winners: list[int | None] = []
    for _ in range(R.N_TRICKS):
        lead = hands[leader].pop(0)
        reply = hands[1 - leader].pop(0)
        who = trick_result(R.card(lead, 0), R.card(reply, 1))
        winner = None if who is None else (leader if who == 0 else 1 - leader)
        winners.append(winner)
        if winner is not None:
            leader = winner
        over, deal_winner = resolve_deal(winners)
        if over:
            name = "null" if deal_winner is None else ("non_dealer", "dealer")[deal_winner]
            return name, len(winners)
    raise AssertionError("unreachable: three tricks end every deal")


def fixed_order_distribution(non_dealer_strongest_first: bool = True,
                             dealer_strongest_first: bool = True
                             ) -> dict[tuple[str, int], Fraction]:
    """Exact probability of each (winner role or 'null', tricks played) result.

    Each player plays his cards strongest first or weakest first.
    """
    totals: Counter = Counter()
    for a_ranks, a_counts in _multisets():
        for b_ranks, b_counts in _multisets():
            weight = 1
            for rank in range(R.N_RANKS):
                a, b = a_counts.get(rank, 0), b_counts.get(rank, 0)
                weight *= comb(R.N_SUITS, a) * comb(R.N_SUITS - a, b)
            if not weight:
                continue
            a_order = list(a_ranks) if non_dealer_strongest_first else list(a_ranks)[::-1]
            b_order = list(b_ranks) if dealer_strongest_first else list(b_ranks)[::-1]
            totals[play_fixed_order(a_order, b_order)] += weight
    n = sum(totals.values())
    assert n == comb(R.N_CARDS, 3) * comb(R.N_CARDS - 3, 3)
    return {key: Fraction(totals.get(key, 0), n) for key in CATEGORIES}
