"""A two-player zero-sum game as a public tree over private types (the solver's input).

Both players hold a private *type* (a hand) dealt once at the start with the
joint probability ``weight[i, j]``; after that every action is public. A node
of the public tree is a decision of player 0 or 1, a public chance event
(``CHANCE``: Leduc poker's board card), or a terminal. At
each node, each player's *entries* are the types still consistent with the
public history (a hand that has played a 7 must contain a 7); an information
set is one (decision node, actor entry) pair, so the tree has perfect recall
by construction.

Children of a decision node are contiguous (breadth-first order, so every
parent precedes its children). The actor's entries at a child are the
parent's entries for which that action is legal, in the same order; the
other player's entries are copied. ``entry_parent`` links each entry to the
parent's entry of the same type, which is all the solver needs to propagate
reach probabilities down and values up.

At a terminal, with ``x = context[n]`` (0 unless public chance came before),
the pair of types (i, j) has probability ``weight[x, i, j]`` (the deal's
odds times those of the public cards). Its *result* is +1, 0 or -1: the
product of ``entry_sign`` of both entries (+1, 0 or -1 per type: Truc's last
card, whose result depends on the hand of the player who holds it) and, when
``showdown`` is True, ``sign[x, i, j]`` (Kuhn poker's showdown). Player 0
gets ``outcome_payoff[n, result + 1]``; by default that is ``payoff`` times
the result (points: the loser loses what the winner wins, a null result
scores nothing), and a game whose outcomes are worth other amounts (Truc's
chance of winning the manche from the scores a deal leads to) sets the
three columns. Player 1 gets the opposite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TERMINAL = -1
CHANCE = 2


@dataclass(frozen=True)
class PublicTree:
    """Flat arrays of a public tree with private types (see the module docstring).

    Attributes
    ----------
    player : int8 (N,) actor of each node, ``TERMINAL`` (-1) or ``CHANCE`` (2).
    parent : int32 (N,) parent node (-1 at the root).
    child_start, n_children : int32 (N,) children ``child_start .. +n_children``.
    action : int16 (N,) label of the action leading to the node (-1 at the root).
    payoff : float64 (N,) player 0's payoff at terminals when the result is +1.
    outcome_payoff : float64 (N, 3) player 0's payoff by result -1, 0, +1
        (default ``payoff`` times the result).
    showdown : bool (N,) payoff is multiplied by ``sign[x, i, j]``.
    context : int8 (N,) which ``weight`` and ``sign`` layer applies at a terminal.
    entry_start : int64 (N, 2) first entry of each player at each node.
    entry_count : int32 (N, 2) number of entries of each player at each node.
    entry_type : int16 (E,) type of each entry.
    entry_parent : int64 (E,) entry of the same player and type at the parent node.
    entry_sign : int8 (E,) factor of the payoff per entry at terminals (1 elsewhere).
    weight : float64 (X, T0, T1) probability of each pair of types, per context
        (layer 0 sums to 1).
    sign : float64 (X, T0, T1) showdown result for player 0 (+1, 0, -1).
    action_names : names of the action labels, for reading strategies.
    type_names : each player's type names.
    """

    player: np.ndarray
    parent: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    action: np.ndarray
    payoff: np.ndarray
    showdown: np.ndarray
    context: np.ndarray
    entry_start: np.ndarray
    entry_count: np.ndarray
    entry_type: np.ndarray
    entry_parent: np.ndarray
    entry_sign: np.ndarray
    weight: np.ndarray
    sign: np.ndarray
    action_names: tuple[str, ...] = ()
    type_names: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    outcome_payoff: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.outcome_payoff is None:
            pay = np.asarray(self.payoff, dtype=np.float64)
            object.__setattr__(self, "outcome_payoff",
                               np.stack([-pay, np.zeros_like(pay), pay], axis=1))

    @property
    def n_nodes(self) -> int:
        """Number of public nodes."""
        return len(self.player)

    @property
    def n_entries(self) -> int:
        """Number of (node, player, type) entries."""
        return len(self.entry_type)

    def n_infosets(self) -> int:
        """Number of information sets (decision node, actor type)."""
        rows = np.flatnonzero((self.player == 0) | (self.player == 1))
        return int(self.entry_count[rows, self.player[rows]].sum())

    def validate(self) -> None:
        """Check the structural invariants the solver relies on (raises ValueError)."""
        n = self.n_nodes
        if self.weight.ndim != 3 or not np.isclose(self.weight[0].sum(), 1.0):
            raise ValueError("weight must be (contexts, T0, T1) with layer 0 summing to 1")
        if (self.parent[1:] >= np.arange(1, n)).any() or self.parent[0] != -1:
            raise ValueError("nodes must be in an order where every parent precedes its children")
        decision = np.flatnonzero(self.player >= 0)
        if (self.n_children[decision] < 1).any():
            raise ValueError("a decision node has no child")
        ends = self.entry_start + self.entry_count
        if ends.max() > self.n_entries:
            raise ValueError("entry ranges run past the entry arrays")


def build_from_lists(player, parent, action, payoff, showdown, entry_types, weight, sign,
                     action_names=(), type_names=((), ()), context=None) -> PublicTree:
    """A :class:`PublicTree` from per-node Python lists (small games; nodes in BFS order).

    ``entry_types[n]`` is a pair of type lists (player 0's, player 1's) at node
    ``n``; each child's lists must keep the parent's order. ``weight`` and
    ``sign`` are (T0, T1) or (contexts, T0, T1).
    """
    weight = np.asarray(weight, dtype=np.float64)
    sign = np.asarray(sign, dtype=np.float64)
    if weight.ndim == 2:
        weight, sign = weight[None], sign[None]
    n = len(player)
    player = np.asarray(player, dtype=np.int8)
    parent = np.asarray(parent, dtype=np.int32)
    child_start = np.zeros(n, dtype=np.int32)
    n_children = np.zeros(n, dtype=np.int32)
    for node in range(n - 1, 0, -1):
        child_start[parent[node]] = node
        n_children[parent[node]] += 1
    entry_start = np.zeros((n, 2), dtype=np.int64)
    entry_count = np.zeros((n, 2), dtype=np.int32)
    types, parents = [], []
    for node in range(n):
        for p in (0, 1):
            entry_start[node, p] = len(types)
            entry_count[node, p] = len(entry_types[node][p])
            if node:
                at_parent = list(entry_types[parent[node]][p])
                base = entry_start[parent[node], p]
                parents.extend(base + at_parent.index(t) for t in entry_types[node][p])
            else:
                parents.extend([-1] * len(entry_types[node][p]))
            types.extend(entry_types[node][p])
    tree = PublicTree(
        player=player, parent=parent, child_start=child_start, n_children=n_children,
        action=np.asarray(action, dtype=np.int16), payoff=np.asarray(payoff, dtype=np.float64),
        showdown=np.asarray(showdown, dtype=bool),
        context=np.zeros(n, dtype=np.int8) if context is None else np.asarray(context, np.int8),
        entry_start=entry_start,
        entry_count=entry_count, entry_type=np.asarray(types, dtype=np.int16),
        entry_parent=np.asarray(parents, dtype=np.int64),
        entry_sign=np.ones(len(types), dtype=np.int8),
        weight=weight, sign=sign,
        action_names=tuple(action_names), type_names=type_names,
    )
    tree.validate()
    return tree
