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

import numba
import numpy as np

from simulators.truc.solver.tree import PublicTree

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _legal_counts(player, parent, entry_start, entry_count, entry_parent, n_entries):
    """Number of legal actions of each entry at its node (0 where the node is not its decision)."""
    legal = np.zeros(n_entries, dtype=np.int8)
    for c in range(1, len(player)):
        a = player[parent[c]]
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            legal[entry_parent[s + k]] += 1
    return legal


@_jit
def _regret_matching(player, parent, entry_start, entry_count, entry_parent, regret, legal,
                     denom, sigma):
    """Current strategy of every actor entry from its positive regrets (CFR+)."""
    denom[:] = 0.0
    for c in range(1, len(player)):
        a = player[parent[c]]
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            r = regret[s + k]
            if r > 0.0:
                denom[entry_parent[s + k]] += r
    for c in range(1, len(player)):
        a = player[parent[c]]
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            e = s + k
            pe = entry_parent[e]
            d = denom[pe]
            if d > 0.0:
                r = regret[e]
                sigma[e] = r / d if r > 0.0 else 0.0
            else:
                sigma[e] = 1.0 / legal[pe]


@_jit
def _reach(player, parent, entry_start, entry_count, entry_parent, sigma, reach):
    """Each entry's own reach probability (product of its type's action probabilities)."""
    for p in range(2):
        s = entry_start[0, p]
        for k in range(entry_count[0, p]):
            reach[s + k] = 1.0
    for c in range(1, len(player)):
        a = player[parent[c]]
        for p in range(2):
            s = entry_start[c, p]
            if p == a:
                for k in range(entry_count[c, p]):
                    reach[s + k] = reach[entry_parent[s + k]] * sigma[s + k]
            else:
                for k in range(entry_count[c, p]):
                    reach[s + k] = reach[entry_parent[s + k]]


@_jit
def _terminal_value(n, p, payoff, showdown, entry_start, entry_count, entry_type, weight, sign,
                    reach, value):
    """Counterfactual values of player p's entries at terminal n."""
    q = 1 - p
    sp, sq = entry_start[n, p], entry_start[n, q]
    u = payoff[n] if p == 0 else -payoff[n]
    for i in range(entry_count[n, p]):
        ti = entry_type[sp + i]
        acc = 0.0
        for j in range(entry_count[n, q]):
            rq = reach[sq + j]
            if rq == 0.0:
                continue
            tj = entry_type[sq + j]
            if p == 0:
                w = weight[ti, tj]
                if showdown[n]:
                    w *= sign[ti, tj]
            else:
                w = weight[tj, ti]
                if showdown[n]:
                    w *= sign[tj, ti]
            acc += w * rq
        value[sp + i] = u * acc


@_jit
def _values(p, mode, player, parent, child_start, n_children, payoff, showdown, entry_start,
            entry_count, entry_type, entry_parent, weight, sign, reach, sigma, value, regret):
    """Bottom-up counterfactual values of player p.

    mode 0: p follows ``sigma``; mode 1: p best-responds; mode 2: as 0 and
    update p's regrets (CFR+: floored at zero).
    """
    n_nodes = len(player)
    for n in range(n_nodes):
        s = entry_start[n, p]
        fill = -np.inf if (mode == 1 and player[n] == p) else 0.0
        for k in range(entry_count[n, p]):
            value[s + k] = fill
    for n in range(n_nodes - 1, -1, -1):
        a = player[n]
        if a < 0:
            _terminal_value(n, p, payoff, showdown, entry_start, entry_count, entry_type,
                            weight, sign, reach, value)
        elif a == p and mode == 1:
            s = entry_start[n, p]
            for k in range(entry_count[n, p]):
                if value[s + k] == -np.inf:  # a hand no deal can hold here
                    value[s + k] = 0.0
        elif a == p and mode == 2:
            for c in range(child_start[n], child_start[n] + n_children[n]):
                s = entry_start[c, p]
                for k in range(entry_count[c, p]):
                    e = s + k
                    r = regret[e] + value[e] - value[entry_parent[e]]
                    regret[e] = r if r > 0.0 else 0.0
        if n == 0:
            break
        ap = player[parent[n]]
        s = entry_start[n, p]
        for k in range(entry_count[n, p]):
            e = s + k
            pe = entry_parent[e]
            if ap != p:
                value[pe] += value[e]
            elif mode == 1:
                if value[e] > value[pe]:
                    value[pe] = value[e]
            else:
                value[pe] += sigma[e] * value[e]


@_jit
def _accumulate(p, weight_t, player, parent, entry_start, entry_count, entry_parent, reach,
                sigma, avg):
    """Add ``weight_t`` x own reach x current strategy to p's strategy sums."""
    for c in range(1, len(player)):
        if player[parent[c]] != p:
            continue
        s = entry_start[c, p]
        for k in range(entry_count[c, p]):
            e = s + k
            avg[e] += weight_t * reach[entry_parent[e]] * sigma[e]


@_jit
def _normalize(player, parent, entry_start, entry_count, entry_parent, avg, legal, denom, out):
    """Average strategy from strategy sums (uniform where a sum is zero)."""
    denom[:] = 0.0
    out[:] = 1.0
    for c in range(1, len(player)):
        a = player[parent[c]]
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            denom[entry_parent[s + k]] += avg[s + k]
    for c in range(1, len(player)):
        a = player[parent[c]]
        s = entry_start[c, a]
        for k in range(entry_count[c, a]):
            e = s + k
            d = denom[entry_parent[e]]
            out[e] = avg[e] / d if d > 0.0 else 1.0 / legal[entry_parent[e]]


def _args(tree: PublicTree):
    return (tree.player, tree.parent, tree.entry_start, tree.entry_count, tree.entry_parent)


def _value_args(tree: PublicTree):
    return (tree.player, tree.parent, tree.child_start, tree.n_children, tree.payoff,
            tree.showdown, tree.entry_start, tree.entry_count, tree.entry_type,
            tree.entry_parent, tree.weight, tree.sign)


def legal_counts(tree: PublicTree) -> np.ndarray:
    """Number of legal actions of each entry at its node."""
    return _legal_counts(*_args(tree), tree.n_entries)


def evaluate(tree: PublicTree, strategy: np.ndarray, player: int, best_response: bool = False,
             ) -> float:
    """Expected payoff of ``player`` (or of its best response) against ``strategy``.

    ``strategy`` gives both players' action probabilities (see the module
    docstring); with ``best_response`` the player's own part is ignored.
    """
    strategy = np.asarray(strategy, dtype=np.float64)
    reach = np.empty(tree.n_entries)
    value = np.empty(tree.n_entries)
    _reach(*_args(tree), strategy, reach)
    _values(player, 1 if best_response else 0, *_value_args(tree), reach, strategy, value,
            np.empty(0))
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
        self.iterations = 0

    def step(self, n: int = 1) -> None:
        """Run ``n`` CFR+ iterations (each updates player 0, then player 1)."""
        t = self.tree
        for _ in range(n):
            self.iterations += 1
            for p in (0, 1):
                _regret_matching(*_args(t), self.regret, self.legal, self.value, self.sigma)
                _reach(*_args(t), self.sigma, self.reach)
                _accumulate(p, float(self.iterations), t.player, t.parent, t.entry_start,
                            t.entry_count, t.entry_parent, self.reach, self.sigma, self.avg)
                _values(p, 2, *_value_args(t), self.reach, self.sigma, self.value, self.regret)

    def average_strategy(self) -> np.ndarray:
        """The linearly weighted average strategy (the CFR+ output)."""
        out = np.empty(self.tree.n_entries)
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
