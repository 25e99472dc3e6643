"""Compiled lookups of the equilibrium policy: walk a solved deal tree from an observation.

Plain Python in numba's subset, jitted by :func:`kernels` on first use (see
``simulators/core/jit.py``): importing this module does not import numba.
"""

from __future__ import annotations

import numpy as np

from simulators.core.jit import jit_once


def _entry(entry_start, entry_count, entry_type, node, p, t):
    """Entry of hand t for player p at node (-1 if the hand cannot be there)."""
    s, k = entry_start[node, p], entry_count[node, p]
    lo, hi = 0, k
    while lo < hi:
        mid = (lo + hi) // 2
        if entry_type[s + mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return s + lo if lo < k and entry_type[s + lo] == t else -1


def _child(child_start, n_children, action, node, label):
    for c in range(child_start[node], child_start[node] + n_children[node]):
        if action[c] == label:
            return c
    return -1


def _sample(node, t, u, allowed, child_start, n_children, action, player, entry_start,
            entry_count, entry_type, strategy):
    """An action label at ``node`` for hand t, from the strategy and a uniform u."""
    p = player[node]
    total = 0.0
    for c in range(child_start[node], child_start[node] + n_children[node]):
        if allowed[action[c]]:
            e = _entry(entry_start, entry_count, entry_type, c, p, t)
            if e >= 0:
                total += strategy[e]
    acc = 0.0
    last = -1
    for c in range(child_start[node], child_start[node] + n_children[node]):
        if not allowed[action[c]]:
            continue
        e = _entry(entry_start, entry_count, entry_type, c, p, t)
        if e < 0:
            continue
        last = action[c]
        acc += strategy[e] / total if total > 0 else 0.0
        if u < acc:
            return action[c]
    return last


def _decide(method, n_played, ranks, players, raised, countered, hand_type, noise, allowed,
            kind, child_start, n_children, action, player, entry_start, entry_count, entry_type,
            strategy):
    """Per row: the label chosen by the equilibrium, or -1 where the tree has no answer."""
    out = np.full(len(method), -1, dtype=np.int64)
    for i in range(len(method)):
        m, s, t, u = method[i], n_played[i], hand_type[i], noise[i]
        node = 0
        for j in range(s + 1):
            here = j == s
            if kind[node] == 0:  # K_PROPOSE
                if here and m == 0:
                    out[i] = _sample(node, t, u, allowed[i], child_start, n_children, action,
                                     player, entry_start, entry_count, entry_type, strategy)
                    break
                if not raised[i, j]:
                    node = _child(child_start, n_children, action, node, 0)
                else:
                    node = _child(child_start, n_children, action, node, 1)  # -> answer
                    if here and m == 1:
                        out[i] = _sample(node, t, u, allowed[i], child_start, n_children, action,
                                         player, entry_start, entry_count, entry_type, strategy)
                        break
                    counter = _child(child_start, n_children, action, node, 4)
                    if countered[i, j] and counter >= 0:
                        node = counter
                        if here and m == 2:
                            out[i] = _sample(node, t, u, allowed[i], child_start, n_children,
                                             action, player, entry_start, entry_count,
                                             entry_type, strategy)
                            break
                    elif here and m == 2:
                        break
                    node = _child(child_start, n_children, action, node, 3)  # accept
            elif here and m != 3:
                break
            if node < 0 or kind[node] != 3:  # K_CARD
                break
            if here:
                out[i] = _sample(node, t, u, allowed[i], child_start, n_children, action,
                                 player, entry_start, entry_count, entry_type, strategy)
                break
            node = _child(child_start, n_children, action, node, 5 + ranks[i, j])
            if node < 0:
                break
    return out


KERNEL_NAMES = ("_entry", "_child", "_sample", "_decide")


def kernels() -> None:
    """Jit this module's walks once per process (numba, ``cache=True``; see core.jit)."""
    jit_once(globals(), KERNEL_NAMES)
