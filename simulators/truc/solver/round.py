"""A Truc deal with the card call (TR-2) in front: the game a player sits down to.

The round tree, player 0 the non-dealer::

    non-dealer keeps ─────────────────────────► card play A (the non-dealer kept)
    non-dealer asks ─► dealer keeps ──────────► card play B (he asked, the dealer kept)
                       dealer asks ─► redeal: a terminal worth the next hand

Both card-play subtrees are copies of :func:`~.deal.build_deal_tree`'s tree;
what differs is what the calls revealed, which CFR works out from the
reach of each hand. A refused proposal, a won or a null deal are worth
what ``Scoring`` says: points (the deal's own value), or the chance of
winning the manche from the scores the deal leads to (``simulators/truc/
solver/manche.py``).

**Abstraction (stated in docs/truc_solver.md, bounded there by measurement):
every hand of the call is dealt as from a full deck.** The first hand is
exact; a redeal ignores which cards the two discarded hands took out of the
stock. The hands of a redeal are then independent of everything before, so
the hand after a double ask is the same game again: the solver plays one
*stationary* strategy, the redeal terminal is worth the round's own value
(updated as CFR runs: a fixed point), and the game as played, whose fifth
hand cannot be redealt (both asking abandons the deal: worth a null deal),
is measured exactly by :func:`round_values` — five rounds, backward, the
last one's redeal worth the abandoned deal. Its best responses may play
each hand differently: the exploitability they give is the exact one of
the stationary strategy in the five-hand game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.truc.solver import cfr
from simulators.truc.solver.deal import PLAY, DealTree
from simulators.truc.solver.tree import TERMINAL, PublicTree

KEEP, ASK = PLAY + 8, PLAY + 9  # action labels of the call (after the eight ranks)
K_CALL = 6  # node kind of a call decision (deal.py's kinds are 0..5)
REDEAL = 4  # the stationary round's redeal terminal (node of the double ask)
COPY_ROOTS = (1, 3)  # its card play A (non-dealer kept), B (he asked, the dealer kept)
MAX_HANDS = 5  # TR-2: a 32-card deck deals five pairs of hands; a sixth cannot be dealt


@dataclass(frozen=True)
class RoundTree:
    """The round's public tree, its card-play tree and where the copies sit.

    The card play is copied at ``copy_roots`` (A: the non-dealer kept; B: he
    asked, the dealer kept); node ``k >= 1`` of the card-play tree is node
    ``copy_base[i] + k - 1`` of copy ``i``. ``redeal`` is the double ask.
    """

    deal: DealTree
    tree: PublicTree
    kind: np.ndarray
    copy_roots: tuple[int, ...]
    copy_base: tuple[int, ...]
    redeal: int

    def copy_nodes(self, i: int) -> np.ndarray:
        """Round node of each card-play node in copy ``i``."""
        n = self.deal.tree.n_nodes
        out = np.empty(n, dtype=np.int64)
        out[0] = self.copy_roots[i]
        out[1:] = self.copy_base[i] + np.arange(n - 1)
        return out


def build_round_tree(deal: DealTree) -> RoundTree:
    """The card call in front of two copies of ``deal``'s card play (module docstring).

    The redeal is a terminal worth the next hand: the types of a public tree
    are dealt once, so a redeal cannot be a subtree (its hands would be the
    same); the next hand's value comes in through ``set_redeal``.
    """
    t = deal.tree
    hands = 1
    n, types = t.n_nodes, len(t.type_names[0])
    n_head = 4 * hands + 1  # per hand: non-dealer's call, A, dealer's call, B; then the redeal
    total = n_head + 2 * hands * (n - 1)
    base = tuple(n_head + i * (n - 1) for i in range(2 * hands))
    roots = tuple(4 * (i // 2) + 1 + 2 * (i % 2) for i in range(2 * hands))
    player = np.empty(total, dtype=np.int8)
    parent = np.empty(total, dtype=np.int32)
    child_start = np.zeros(total, dtype=np.int32)
    n_children = np.zeros(total, dtype=np.int32)
    action = np.empty(total, dtype=np.int16)
    outcome = np.zeros((total, 3))
    kind = np.empty(total, dtype=np.int8)
    calls = np.array([4 * (i // 2) + 2 * (i % 2) for i in range(2 * hands)])  # 0, 2, 4, 6, ..
    player[calls] = np.tile([0, 1], hands)
    player[n_head - 1] = TERMINAL
    kind[calls] = K_CALL
    kind[n_head - 1] = 4  # deal.K_END
    parent[0] = -1
    for c in calls:
        child_start[c], n_children[c] = c + 1, 2
        parent[c + 1] = parent[c + 2] = c
        action[c + 1], action[c + 2] = KEEP, ASK
    action[0] = -1
    calls_and_redeal = np.append(calls, n_head - 1)
    head = 2 * types * len(calls_and_redeal)
    entries = t.n_entries
    entry_start = np.zeros((total, 2), dtype=np.int64)
    entry_count = np.zeros((total, 2), dtype=np.int32)
    entry_type = np.empty(head + 2 * hands * entries, dtype=np.int16)
    entry_parent = np.empty(head + 2 * hands * entries, dtype=np.int64)
    entry_sign = np.ones(head + 2 * hands * entries, dtype=np.int8)
    every = np.arange(types)
    for slot, node in enumerate(calls_and_redeal):  # every hand is possible before the play
        for p in (0, 1):
            s = (2 * slot + p) * types
            entry_start[node, p], entry_count[node, p] = s, types
            entry_type[s:s + types] = every
            entry_parent[s:s + types] = -1 if node == 0 else \
                entry_start[parent[node], p] + every
    for i in range(2 * hands):
        m = np.empty(n, dtype=np.int64)
        m[0] = roots[i]
        m[1:] = base[i] + np.arange(n - 1)
        player[m] = t.player
        parent[m[1:]] = m[t.parent[1:]]
        child_start[m] = np.where(t.n_children > 0, m[t.child_start], 0)
        n_children[m] = t.n_children
        action[m[1:]] = t.action[1:]
        outcome[m] = t.outcome_payoff
        kind[m] = deal.kind
        offset = head + i * entries
        entry_start[m] = t.entry_start + offset
        entry_count[m] = t.entry_count
        span = slice(offset, offset + entries)
        entry_type[span] = t.entry_type
        entry_sign[span] = t.entry_sign
        entry_parent[span] = t.entry_parent + offset
        top = entry_start[parent[roots[i]]]  # the call node the copy hangs from
        # the card play's root entries are every hand of player 0, then of player 1
        entry_parent[offset:offset + 2 * types] = np.concatenate([top[0] + every,
                                                                  top[1] + every])
    names = t.action_names + ("keep", "ask")
    tree = PublicTree(
        player=player, parent=parent, child_start=child_start, n_children=n_children,
        action=action, payoff=outcome[:, 2].copy(), showdown=np.zeros(total, dtype=bool),
        context=np.zeros(total, dtype=np.int8), entry_start=entry_start,
        entry_count=entry_count, entry_type=entry_type, entry_parent=entry_parent,
        entry_sign=entry_sign, weight=t.weight, sign=t.sign, action_names=names,
        type_names=t.type_names, outcome_payoff=outcome)
    tree.validate()
    return RoundTree(deal=deal, tree=tree, kind=kind, copy_roots=roots, copy_base=base,
                     redeal=n_head - 1)


def set_redeal(tree: PublicTree, value: float) -> None:
    """What a double ask is worth to the non-dealer (the next hand's value)."""
    tree.outcome_payoff[REDEAL] = value


@dataclass(frozen=True)
class RoundValues:
    """The five-hand game (TR-2) played with a stationary strategy, exactly.

    ``value``: the non-dealer's expected payoff; ``best`` (2,): each seat's
    best-response payoff (seat 1's in its own terms); ``exploitability``:
    half their sum minus nothing (the NashConv over two); ``by_hand``: the
    value from each hand number on (hand 0 = the whole deal).
    """

    value: float
    best: tuple[float, float]
    exploitability: float
    by_hand: tuple[float, ...]


def round_values(tree: PublicTree, strategy: np.ndarray, abandoned: float,
                 hands: int = MAX_HANDS) -> RoundValues:
    """Value and exact best responses of ``strategy`` in the ``hands``-hand card call.

    Backward over the hands: the last hand's redeal is worth ``abandoned``
    (TR-2: the deal is abandoned, worth what a null deal is); each earlier
    hand's redeal is worth the next hand's value — the strategy's own for the
    value, the best responder's for a best response (he plays the later
    hands best too). The reach (top-down sweep) is computed once.
    """
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    reach = np.empty(tree.n_entries)
    value = np.empty(tree.n_entries)
    none = np.empty(0)
    cfr.kernels()
    cfr._down(-1, 0.0, *cfr._down_args(tree), none, strategy, reach, none, cfr._scratch(tree))
    saved = tree.outcome_payoff[REDEAL].copy()

    def chain(p: int, mode: int) -> list[float]:
        nxt = abandoned  # player 0's terms
        out = []
        for _ in range(hands):
            set_redeal(tree, nxt)
            cfr._values(p, mode, *cfr._value_args(tree), reach, strategy, value, none)
            s, k = tree.entry_start[0, p], tree.entry_count[0, p]
            got = float(value[s:s + k].sum())
            nxt = got if p == 0 else -got
            out.append(nxt)
        return out[::-1]

    try:
        by_hand = chain(0, 0)
        best0 = chain(0, 1)[0]
        best1 = -chain(1, 1)[0]
    finally:
        tree.outcome_payoff[REDEAL] = saved
    return RoundValues(value=by_hand[0], best=(best0, best1),
                       exploitability=0.5 * (best0 + best1), by_hand=tuple(by_hand))
