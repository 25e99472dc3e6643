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

from simulators.core.cfr import cfrplus as cfr
from simulators.core.cfr.tree import TERMINAL, PublicTree
from simulators.truc import rules as R
from simulators.truc.solver.deal import PLAY, DealTree

KEEP, ASK = PLAY + 8, PLAY + 9  # action labels of the call (after the eight ranks)
K_CALL = 6  # node kind of a call decision (deal.py's kinds are 0..5)
REDEAL = 4  # the stationary round's redeal terminal (node of the double ask)
COPY_ROOTS = (1, 3)  # its card play A (non-dealer kept), B (he asked, the dealer kept)
MAX_HANDS = R.MAX_HANDS  # TR-2: a 32-card deck deals five pairs of hands, not a sixth


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
    n, types, entries = t.n_nodes, len(t.type_names[0]), t.n_entries
    total = 5 + 2 * (n - 1)
    head = 6 * types  # every hand of both players at the two calls and the redeal
    out = {
        "player": np.empty(total, dtype=np.int8), "parent": np.empty(total, dtype=np.int32),
        "child_start": np.zeros(total, dtype=np.int32),
        "n_children": np.zeros(total, dtype=np.int32),
        "action": np.empty(total, dtype=np.int16), "outcome_payoff": np.zeros((total, 3)),
        "kind": np.empty(total, dtype=np.int8),
        "entry_start": np.zeros((total, 2), dtype=np.int64),
        "entry_count": np.zeros((total, 2), dtype=np.int32),
        "entry_type": np.empty(head + 2 * entries, dtype=np.int16),
        "entry_parent": np.empty(head + 2 * entries, dtype=np.int64),
        "entry_sign": np.ones(head + 2 * entries, dtype=np.int8),
    }
    out["player"][[0, 2, REDEAL]] = (0, 1, TERMINAL)
    out["parent"][:5] = (-1, 0, 0, 2, 2)
    out["child_start"][[0, 2]] = (1, 3)
    out["n_children"][[0, 2]] = 2
    out["action"][:5] = (-1, KEEP, ASK, KEEP, ASK)
    out["kind"][[0, 2, REDEAL]] = (K_CALL, K_CALL, 4)  # the redeal ends the round (K_END)
    every = np.arange(types)
    for slot, node in enumerate((0, 2, REDEAL)):
        for p in (0, 1):
            s = (2 * slot + p) * types
            out["entry_start"][node, p], out["entry_count"][node, p] = s, types
            out["entry_type"][s:s + types] = every
            out["entry_parent"][s:s + types] = -1 if node == 0 else \
                out["entry_start"][out["parent"][node], p] + every
    base = (5, 5 + n - 1)
    for i in (0, 1):
        _place_copy(deal, out, COPY_ROOTS[i], base[i], head + i * entries)
    kind = out.pop("kind")
    tree = PublicTree(payoff=out["outcome_payoff"][:, 2].copy(),
                      showdown=np.zeros(total, dtype=bool), context=np.zeros(total, np.int8),
                      weight=t.weight, sign=t.sign, action_names=t.action_names + ("keep", "ask"),
                      type_names=t.type_names, **out)
    tree.validate()
    return RoundTree(deal=deal, tree=tree, kind=kind, copy_roots=COPY_ROOTS, copy_base=base,
                     redeal=REDEAL)


def _place_copy(deal: DealTree, out: dict, root: int, base: int, offset: int) -> None:
    """Write the card-play tree into the round's arrays: its root at node ``root``, its node
    k >= 1 at ``base + k - 1``, its entries from ``offset``; its root entries (every hand of
    player 0, then of player 1) hang from the call node above ``root``."""
    t = deal.tree
    n, types = t.n_nodes, len(t.type_names[0])
    m = np.empty(n, dtype=np.int64)
    m[0] = root
    m[1:] = base + np.arange(n - 1)
    out["player"][m] = t.player
    out["parent"][m[1:]] = m[t.parent[1:]]
    out["child_start"][m] = np.where(t.n_children > 0, m[t.child_start], 0)
    out["n_children"][m] = t.n_children
    out["action"][m[1:]] = t.action[1:]
    out["outcome_payoff"][m] = t.outcome_payoff
    out["kind"][m] = deal.kind
    out["entry_start"][m] = t.entry_start + offset
    out["entry_count"][m] = t.entry_count
    span = slice(offset, offset + t.n_entries)
    out["entry_type"][span] = t.entry_type
    out["entry_sign"][span] = t.entry_sign
    out["entry_parent"][span] = t.entry_parent + offset
    top = out["entry_start"][out["parent"][root]]
    every = np.arange(types)
    out["entry_parent"][offset:offset + 2 * types] = np.concatenate([top[0] + every,
                                                                     top[1] + every])


def set_redeal(tree: PublicTree, value: float) -> None:
    """What a double ask is worth to the non-dealer (the next hand's value)."""
    tree.outcome_payoff[REDEAL] = value


@dataclass(frozen=True)
class RoundValues:
    """The five-hand game (TR-2) played with a stationary strategy, exactly.

    ``value``: the non-dealer's expected payoff; ``best`` (2,): what a best
    response gets in each seat, each in its own terms (the dealer's is minus
    the non-dealer's payoff); ``exploitability``: half their sum, half the
    NashConv (zero at an equilibrium); ``by_hand``: the value from each hand
    number on (hand 0 = the whole deal).
    """

    value: float
    best: tuple[float, float]
    exploitability: float
    by_hand: tuple[float, ...]


def strategy_reach(tree: PublicTree, strategy: np.ndarray) -> np.ndarray:
    """Every entry's reach under ``strategy`` (the top-down sweep that value passes read)."""
    reach = np.empty(tree.n_entries)
    none = np.empty(0)
    cfr.kernels()
    cfr._down(-1, 0.0, *cfr._down_args(tree), none, strategy, reach, none, cfr._scratch(tree))
    return reach


def hand_chain(tree: PublicTree, strategy: np.ndarray, reach: np.ndarray, value: np.ndarray,
               p: int, mode: int, abandoned: float, hands: int) -> list[float]:
    """Player p's value from each hand on (player 0's terms, hand 0 first), backward from
    the last hand, whose redeal is worth ``abandoned``; ``mode`` 0 follows ``strategy``,
    1 best-responds (``cfrplus._values``). ``reach`` is the strategy's top-down sweep;
    sets the redeal terminal's payoff as it goes (the caller restores it)."""
    nxt = abandoned  # player 0's terms
    out = []
    none = np.empty(0)
    for _ in range(hands):
        set_redeal(tree, nxt)
        cfr._values(p, mode, *cfr._value_args(tree), reach, strategy, value, none)
        s, k = tree.entry_start[0, p], tree.entry_count[0, p]
        got = float(value[s:s + k].sum())
        nxt = got if p == 0 else -got
        out.append(nxt)
    return out[::-1]


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
    reach = strategy_reach(tree, strategy)
    value = np.empty(tree.n_entries)
    saved = tree.outcome_payoff[REDEAL].copy()

    def chain(p: int, mode: int) -> list[float]:
        return hand_chain(tree, strategy, reach, value, p, mode, abandoned, hands)

    try:
        by_hand = chain(0, 0)
        best0 = chain(0, 1)[0]
        best1 = -chain(1, 1)[0]
    finally:
        tree.outcome_payoff[REDEAL] = saved
    return RoundValues(value=by_hand[0], best=(best0, best1),
                       exploitability=0.5 * (best0 + best1), by_hand=tuple(by_hand))
