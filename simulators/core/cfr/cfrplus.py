"""CFR+ and exact best response on a :class:`~.tree.PublicTree` (compiled with numba).

Every array the kernels touch is flat and indexed by *entry* (node, player,
type): reach probabilities flow from ``entry_parent`` to entry, values flow
back. One iteration is two sweeps over the nodes (parents precede children):
top-down for the current strategy (regret matching+) and the reach, bottom-up
for counterfactual values and the regret update. Updates alternate between
the players and the average strategy is weighted linearly (CFR+, Tammelin
2014; Bowling et al. 2015). Nothing here knows which game it solves: the same
code solves Kuhn poker (value -1/18) and a Truc deal.

Strategies are arrays over entries: ``strategy[e]`` is the probability that
the type of entry ``e`` took the action leading to ``e``'s node, for entries
of the player who acted at the parent (other entries hold 1).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from simulators.core.cfr.tree import CHANCE, PublicTree
from simulators.core.jit import jit_once

KERNEL_NAMES = ("_sum_by_parent", "_legal_counts", "_down", "_terminal_value", "_values",
                "_normalize")


def kernels() -> None:
    """Jit this module's passes once per process (numba, ``cache=True``; see core.jit)."""
    jit_once(globals(), KERNEL_NAMES)


def _sum_by_parent(player, parent, entry_start, entry_count, entry_parent, values, total):
    """``total[entry_parent[e]] += values[e]`` over every entry e of a decision's children."""
    for c in range(1, len(player)):
        a = player[parent[c]]
        if a == CHANCE:
            continue
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            total[entry_parent[s + k]] += values[s + k]


def _legal_counts(player, parent, entry_start, entry_count, entry_parent, n_entries):
    """Number of legal actions of each entry at its node (0 where the node is not its decision)."""
    legal = np.zeros(n_entries, dtype=np.int8)
    _sum_by_parent(player, parent, entry_start, entry_count, entry_parent,
                   np.ones(n_entries, dtype=np.int8), legal)
    return legal


def _down(p, weight_t, player, child_start, n_children, entry_start, entry_count, entry_parent,
          regret, sigma, reach, avg, scratch):
    """Top-down sweep: current strategy (regret matching+), reach, and p's strategy sums.

    ``p`` < 0 skips the strategy sums; ``regret`` None-like (size 0) keeps
    ``sigma`` as given (evaluating a fixed strategy).
    """
    for q in range(2):
        s = entry_start[0, q]
        for k in range(entry_count[0, q]):
            reach[s + k] = 1.0
    matching = len(regret) > 0
    for n in range(len(player)):
        a = player[n]
        if a < 0:
            continue
        c0, c1 = child_start[n], child_start[n] + n_children[n]
        if a == CHANCE:  # public chance: every entry carries on (its odds are in the weights)
            for c in range(c0, c1):
                for q in range(2):
                    s, sq = entry_start[c, q], entry_start[n, q]
                    for k in range(entry_count[c, q]):
                        reach[s + k] = reach[sq + k]
            continue
        sa, ka = entry_start[n, a], entry_count[n, a]
        if matching:
            for k in range(2 * ka):
                scratch[k] = 0.0
            for c in range(c0, c1):
                s = entry_start[c, a]
                for k in range(entry_count[c, a]):
                    loc = entry_parent[s + k] - sa
                    r = regret[s + k]
                    if r > 0.0:
                        scratch[loc] += r
                    scratch[ka + loc] += 1.0
        o = 1 - a
        so_parent, ko = entry_start[n, o], entry_count[n, o]
        for c in range(c0, c1):
            s = entry_start[c, a]
            for k in range(entry_count[c, a]):
                e = s + k
                pe = entry_parent[e]
                if matching:
                    d = scratch[pe - sa]
                    if d > 0.0:
                        r = regret[e]
                        sigma[e] = r / d if r > 0.0 else 0.0
                    else:
                        sigma[e] = 1.0 / scratch[ka + pe - sa]
                x = reach[pe] * sigma[e]
                reach[e] = x
                if a == p:
                    avg[e] += weight_t * x
            so = entry_start[c, o]
            for k in range(ko):
                reach[so + k] = reach[so_parent + k]


def _terminal_value(n, p, outcome_payoff, showdown, context, entry_start, entry_count,
                    entry_type, entry_sign, weight, sign, reach, value):
    """Counterfactual values of player p's entries at terminal n.

    The opponent's reach is summed by the result it gives (+1, 0, -1 for
    player 0), so each of p's entries costs one pass over the opponent's.
    """
    q = 1 - p
    sp, sq = entry_start[n, p], entry_start[n, q]
    flip = 1.0 if p == 0 else -1.0
    lose, null, win = outcome_payoff[n, 0], outcome_payoff[n, 1], outcome_payoff[n, 2]
    x = context[n]
    for i in range(entry_count[n, p]):
        ti = entry_type[sp + i]
        plus = 0.0
        minus = 0.0
        zero = 0.0
        for j in range(entry_count[n, q]):
            rq = reach[sq + j]
            if rq == 0.0:
                continue
            tj = entry_type[sq + j]
            r = entry_sign[sq + j]
            if p == 0:
                w = weight[x, ti, tj]
                if showdown[n]:
                    r = r * int(sign[x, ti, tj])
            else:
                w = weight[x, tj, ti]
                if showdown[n]:
                    r = r * int(sign[x, tj, ti])
            if r > 0:
                plus += w * rq
            elif r < 0:
                minus += w * rq
            else:
                zero += w * rq
        si = entry_sign[sp + i]
        if si > 0:
            v = win * plus + lose * minus + null * zero
        elif si < 0:
            v = lose * plus + win * minus + null * zero
        else:
            v = null * (plus + minus + zero)
        value[sp + i] = flip * v


def _values(p, mode, player, child_start, n_children, outcome_payoff, showdown, context,
            entry_start, entry_count, entry_type, entry_parent, entry_sign, weight, sign, reach,
            sigma, value, regret):
    """Bottom-up counterfactual values of player p (children before parents).

    mode 0: p follows ``sigma``; mode 1: p best-responds; mode 2: as 0 and
    update p's regrets (CFR+: floored at zero).
    """
    for n in range(len(player) - 1, -1, -1):
        a = player[n]
        sp, kp = entry_start[n, p], entry_count[n, p]
        if a < 0:
            _terminal_value(n, p, outcome_payoff, showdown, context, entry_start, entry_count,
                            entry_type, entry_sign, weight, sign, reach, value)
            continue
        c0, c1 = child_start[n], child_start[n] + n_children[n]
        if a != p:
            for k in range(kp):
                value[sp + k] = 0.0
            for c in range(c0, c1):
                s = entry_start[c, p]
                for k in range(kp):
                    value[sp + k] += value[s + k]
            continue
        fill = -np.inf if mode == 1 else 0.0
        for k in range(kp):
            value[sp + k] = fill
        for c in range(c0, c1):
            s = entry_start[c, p]
            for k in range(entry_count[c, p]):
                e = s + k
                pe = entry_parent[e]
                if mode == 1:
                    if value[e] > value[pe]:
                        value[pe] = value[e]
                else:
                    value[pe] += sigma[e] * value[e]
        if mode == 1:
            for k in range(kp):
                if value[sp + k] == -np.inf:  # a hand no deal can hold here
                    value[sp + k] = 0.0
        elif mode == 2:
            for c in range(c0, c1):
                s = entry_start[c, p]
                for k in range(entry_count[c, p]):
                    e = s + k
                    r = regret[e] + value[e] - value[entry_parent[e]]
                    regret[e] = r if r > 0.0 else 0.0


def _normalize(player, parent, entry_start, entry_count, entry_parent, avg, legal, denom, out):
    """Average strategy from strategy sums (uniform where a sum is zero)."""
    denom[:] = 0.0
    out[:] = 1.0
    _sum_by_parent(player, parent, entry_start, entry_count, entry_parent, avg, denom)
    for c in range(1, len(player)):
        a = player[parent[c]]
        if a == CHANCE:
            continue
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            e = s + k
            d = denom[entry_parent[e]]
            out[e] = avg[e] / d if d > 0.0 else 1.0 / legal[entry_parent[e]]


def _args(tree: PublicTree):
    return (tree.player, tree.parent, tree.entry_start, tree.entry_count, tree.entry_parent)


def _down_args(tree: PublicTree):
    return (tree.player, tree.child_start, tree.n_children, tree.entry_start, tree.entry_count,
            tree.entry_parent)


def _value_args(tree: PublicTree):
    return (tree.player, tree.child_start, tree.n_children, tree.outcome_payoff, tree.showdown,
            tree.context, tree.entry_start, tree.entry_count, tree.entry_type, tree.entry_parent,
            tree.entry_sign, tree.weight, tree.sign)


def _scratch(tree: PublicTree) -> np.ndarray:
    return np.empty(2 * int(tree.entry_count.max()) + 2)


def legal_counts(tree: PublicTree) -> np.ndarray:
    """Number of legal actions of each entry at its node."""
    kernels()
    return _legal_counts(*_args(tree), tree.n_entries)


def evaluate(tree: PublicTree, strategy: np.ndarray, player: int, best_response: bool = False,
             ) -> float:
    """Expected payoff of ``player`` (or of its best response) against ``strategy``.

    ``strategy`` gives both players' action probabilities (see the module
    docstring); with ``best_response`` the player's own part is ignored.
    """
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    reach = np.empty(tree.n_entries)
    value = np.empty(tree.n_entries)
    none = np.empty(0)
    kernels()
    _down(-1, 0.0, *_down_args(tree), none, strategy, reach, none, _scratch(tree))
    _values(player, 1 if best_response else 0, *_value_args(tree), reach, strategy, value, none)
    s, k = tree.entry_start[0, player], tree.entry_count[0, player]
    return float(value[s:s + k].sum())


def game_value(tree: PublicTree, strategy: np.ndarray) -> float:
    """Player 0's expected payoff when both follow ``strategy``."""
    return evaluate(tree, strategy, 0)


def exploitability(tree: PublicTree, strategy: np.ndarray) -> float:
    """Half the NashConv: mean gain of a best response over the two seats (payoff units)."""
    return 0.5 * (evaluate(tree, strategy, 0, True) + evaluate(tree, strategy, 1, True))


@dataclass
class SolveResult:
    """Average strategy of a CFR+ run and its convergence record."""

    strategy: np.ndarray
    iterations: int
    seconds: float
    value: float
    exploitability: float
    curve: list[tuple[int, float, float]] = field(default_factory=list)  # (iter, s, expl.)


class CFRPlus:
    """CFR+ (alternating updates, regret floor, linear averaging) on a public tree.

    ``step(n)`` runs n iterations; ``average_strategy()`` is the output. The
    regret and strategy-sum arrays are float64 over entries.
    """

    def __init__(self, tree: PublicTree):
        self.tree = tree
        e = tree.n_entries
        self.legal = legal_counts(tree)
        self.regret = np.zeros(e)
        self.avg = np.zeros(e)
        self.sigma = np.ones(e)
        self.reach = np.empty(e)
        self.value = np.empty(e)
        self.scratch = _scratch(tree)
        self.iterations = 0

    def step(self, n: int = 1) -> None:
        """Run ``n`` CFR+ iterations (each updates player 0, then player 1)."""
        t = self.tree
        kernels()
        for _ in range(n):
            self.iterations += 1
            for p in (0, 1):
                _down(p, float(self.iterations), *_down_args(t), self.regret, self.sigma,
                      self.reach, self.avg, self.scratch)
                _values(p, 2, *_value_args(t), self.reach, self.sigma, self.value, self.regret)

    def average_strategy(self) -> np.ndarray:
        """The linearly weighted average strategy (the CFR+ output)."""
        out = np.empty(self.tree.n_entries)
        kernels()
        _normalize(*_args(self.tree), self.avg, self.legal, np.empty(self.tree.n_entries), out)
        return out


def solve(tree: PublicTree, iterations: int = 1000, target: float | None = None,
          check_every: int = 50, time_limit: float | None = None) -> SolveResult:
    """Run CFR+ until ``iterations``, ``target`` exploitability or ``time_limit`` seconds.

    The convergence curve records (iterations, solver seconds, exploitability)
    every ``check_every`` iterations; exploitability checks are not counted
    in the seconds.
    """
    solver = CFRPlus(tree)
    curve = []
    spent = 0.0
    expl = float("inf")
    while solver.iterations < iterations:
        n = min(check_every, iterations - solver.iterations)
        start = time.perf_counter()
        solver.step(n)
        spent += time.perf_counter() - start
        expl = exploitability(tree, solver.average_strategy())
        curve.append((solver.iterations, spent, expl))
        if (target is not None and expl <= target) or (time_limit and spent >= time_limit):
            break
    strategy = solver.average_strategy()
    return SolveResult(strategy=strategy, iterations=solver.iterations, seconds=spent,
                       value=game_value(tree, strategy), exploitability=expl, curve=curve)
