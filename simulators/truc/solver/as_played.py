"""Exploitability as played: the first redeal dealt from the real stock (TR-2).

The solved game (``round.py``) deals every hand of the card call as from a full
deck. At the table, after both players ask, the new hands come from the 26
cards left: the two discarded hands are out of the stock, and each player
knows his own. A best response can use that (a dealer holding low cards
knows the stock is rich in high ones), which the solved game cannot see.

:func:`as_played_values` measures it exactly for a stationary strategy: the
best responder's first redeal is a game whose types are (his discarded
hand, his new hand), which splits into one best response per discarded
hand ``d`` over the round tree with the deal weights ``W_d[i, j]`` = the
chance of ``d``, of the opponent's discard ``e`` asking, and of new hands
``i, j`` from the stock without ``d`` and ``e`` (card removal by rank
counts, as ``deal.deal_weights``). The first hand's call then takes, per
``d``, the best of keeping and asking with that redeal's worth. Later
redeals are dealt as in the solved game (from a full deck: they are what
the abstraction's own figures already cover), and a fifth hand's double
ask abandons the deal (TR-2).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from math import comb

import numpy as np

from simulators.core.cfr import cfrplus as cfr
from simulators.truc.solver.packed import call_entries
from simulators.truc.solver.round import (
    COPY_ROOTS,
    MAX_HANDS,
    REDEAL,
    hand_chain,
    set_redeal,
    strategy_reach,
)


@dataclass(frozen=True)
class AsPlayed:
    """Best responses with the first redeal from the real stock.

    ``best`` (2,) each seat's best-response payoff in its own terms; ``exploitability``
    half their sum; ``stationary`` the same figures in the solved game (full-deck
    redeals, ``round.round_values``); ``redeal_chance`` the chance that both ask.
    """

    best: tuple[float, float]
    exploitability: float
    stationary_best: tuple[float, float]
    stationary_exploitability: float
    redeal_chance: float


def stock_weights(type_counts: np.ndarray, copies: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """The redeal's deal weights after every pair of discarded hands: ``(pair, weights)``
    where ``weights[pair[d, e]]`` (T, T) is the chance of dealing hands i (non-dealer) then
    j (dealer) from the deck without hands d and e (zero rows if d and e cannot both be
    dealt). The weights depend on the two hands' rank counts together only, so each of the
    few hundred 6-card multisets is computed once."""
    t, ranks = type_counts.shape
    h = int(type_counts[0].sum())
    both = type_counts[:, None, :] + type_counts[None, :, :]
    combos, pair = np.unique(both.reshape(-1, ranks), axis=0, return_inverse=True)
    table = np.array([[comb(n, k) if n >= 0 else 0 for k in range(copies + 1)]
                      for n in range(copies + 1)], dtype=np.float64)
    i = type_counts[:, None, :]
    j = type_counts[None, :, :]
    out = np.zeros((len(combos), t, t))
    for c, used in enumerate(combos):
        stock = copies - used
        if (stock < 0).any():
            continue
        size = int(stock.sum())
        left = stock - i
        ways = np.where((left >= 0) & (left >= j),
                        table[np.broadcast_to(stock, i.shape), i] *
                        table[left.clip(0), j], 0.0)
        out[c] = ways.prod(axis=2) / (comb(size, h) * comb(size - h, h))
    return pair.reshape(t, t), out


_STOCK: dict = {}


def _stock_table(type_counts: np.ndarray):
    key = type_counts.tobytes()
    if key not in _STOCK:
        _STOCK[key] = stock_weights(type_counts)
    return _STOCK[key]


def as_played_values(round_tree, strategy: np.ndarray, abandoned: float,
                     hands: int = MAX_HANDS, stock=None) -> AsPlayed:
    """The exact best responses to ``strategy`` with the first redeal from the real stock
    (module docstring). ``stock(first, second)`` gives the redeal's (T, T) weights after the
    discards (default :func:`stock_weights`; a full deck's gives back the solved game's
    figures, which the tests check)."""
    from simulators.truc.solver.round import round_values

    tree = round_tree.tree
    counts = round_tree.deal.type_counts.astype(np.int64)
    full = tree.weight[0]
    pair, by_pair = _stock_table(counts) if stock is None else (None, None)
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    stationary = round_values(tree, strategy, abandoned, hands)
    types = len(counts)
    _, ask_nd, _, ask_d = call_entries(tree)
    ask = np.stack([strategy[ask_nd], strategy[ask_d]])
    reach = strategy_reach(tree, strategy)
    value = np.empty(tree.n_entries)
    none = np.empty(0)
    saved = tree.outcome_payoff[REDEAL].copy()
    best = []
    try:
        for p in (0, 1):
            later = hand_chain(tree, strategy, reach, value, p, 1, abandoned, hands)
            redeal = np.zeros(types)
            set_redeal(tree, later[2] if hands > 2 else abandoned)
            for d in range(types):
                # the opponent's discard e, given that he asked: first hand's chance times his
                # chance of asking (the non-dealer asks first; the dealer after him)
                mass = (full[d, :] if p == 0 else full[:, d]) * ask[1 - p]
                if stock is None:
                    weights = np.tensordot(mass, by_pair[pair[d]], axes=1)
                else:
                    weights = sum(m * stock(counts[d], counts[e]) for e, m in enumerate(mass)
                                  if m > 0)
                if not np.any(weights):
                    continue
                sub = dataclasses.replace(tree, weight=weights[None])
                cfr._values(p, 1, *cfr._value_args(sub), reach, strategy, value, none)
                s, k = tree.entry_start[0, p], tree.entry_count[0, p]
                redeal[d] = value[s:s + k].sum()
            set_redeal(tree, 0.0)
            cfr._values(p, 1, *cfr._value_args(tree), reach, strategy, value, none)
            keep = value[tree.entry_start[COPY_ROOTS[0], p]:][:types]
            kept_after_ask = value[tree.entry_start[COPY_ROOTS[1], p]:][:types]
            if p == 0:
                best.append(float(np.maximum(keep, kept_after_ask + redeal).sum()))
            else:
                best.append(float((keep + np.maximum(kept_after_ask, redeal)).sum()))
    finally:
        tree.outcome_payoff[REDEAL] = saved
    chance = float((full * ask[0][:, None] * ask[1][None, :]).sum())
    return AsPlayed(best=(best[0], best[1]), exploitability=0.5 * (best[0] + best[1]),
                    stationary_best=stationary.best,
                    stationary_exploitability=stationary.exploitability, redeal_chance=chance)
