"""One Truc deal, from the first proposal to the last card, as a :class:`~.tree.PublicTree`.

The model (RULINGS TR-1, TR-3..TR-5), player 0 the non-dealer:

* Types are the hands dealt, as rank multisets: suits never matter in play
  (TR-1), so the 32-card deck gives 120 hands of 3 ranks, dealt with
  probability ``weight[i, j]`` = (ways to deal rank multisets i then j) /
  (C(32,3) C(29,3)), card removal included. Card play chooses a rank.
* Before each card its player may propose (TR-4) when the proposal
  ``min(2 * stake, target - his score)`` raises the stake (TR-5); the
  opponent refuses (the proposer scores the stake before the proposal),
  accepts, or counter-bancos a banco when he lacks more than the banco
  stake; the proposer then accepts the counter stake or refuses (the
  counter-proposer scores the banco stake).
* Tricks (TR-3): the higher rank wins and leads next; equal ranks make a
  pourri trick, led next by its leader and awarded as TR-3 says; the deal
  ends when a player holds two tricks, or null when all three are pourri.
* The payoff is player 0's points minus player 1's for the deal at the
  given scores (a zero-sum deal; banco caps the stakes).

**Abstraction**: the card call (TR-2) is not in the tree. The deal starts
with hands dealt once from a full deck, which is the game exactly when both
players keep their first hands; see ``docs/truc_solver.md`` for what this
leaves out. Everything else is the rules, with no abstraction.

Smaller variants (fewer ranks or copies, one-card hands) use the same code
for fast, hand-checkable tests.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from math import comb

import numpy as np

from simulators.core.cfr.tree import TERMINAL, PublicTree
from simulators.core.jit import jit_once

# Action labels (PublicTree.action)
PASS, PROPOSE, REFUSE, ACCEPT, COUNTER = 0, 1, 2, 3, 4
PLAY = 5  # PLAY + r plays rank r
# Node kinds (DealTree.kind)
K_PROPOSE, K_ANSWER, K_REPLY, K_CARD, K_END, K_FINAL = 0, 1, 2, 3, 4, 5
RANK_CODES = ("7", "8", "A", "R", "D", "V", "10", "9")


@dataclass(frozen=True)
class DealSpec:
    """Which deal to solve: scores before it, rule options, and the deck (variants).

    ``scores`` are (non-dealer, dealer). ``n_ranks`` keeps the strongest
    ranks only, ``copies`` cards of each (4 suits); ``hand_size`` is 3 or 1
    (a one-trick variant for checks).
    """

    scores: tuple[int, int] = (0, 0)
    target: int = 12
    counter_banco: bool = True
    n_ranks: int = 8
    copies: int = 4
    hand_size: int = 3

    def __post_init__(self) -> None:
        if self.hand_size not in (1, 3):
            raise ValueError(f"hand_size must be 1 or 3, got {self.hand_size!r}")
        if not 1 <= self.n_ranks <= 8 or not 1 <= self.copies <= 4:
            raise ValueError(f"n_ranks must be in [1, 8] and copies in [1, 4], got "
                             f"{self.n_ranks!r}, {self.copies!r}")
        if 2 * self.hand_size > self.n_ranks * self.copies:
            raise ValueError("the deck is too small to deal two hands")
        if not 2 <= self.target <= 100:
            raise ValueError(f"target must be in [2, 100], got {self.target!r}")
        for s in self.scores:
            if not 0 <= s < self.target:
                raise ValueError(f"scores must be in [0, {self.target - 1}], got {self.scores!r}")

    def types(self) -> list[tuple[int, ...]]:
        """The hands as sorted rank tuples (strongest rank first)."""
        return [h for h in itertools.combinations_with_replacement(range(self.n_ranks),
                                                                   self.hand_size)
                if max(h.count(r) for r in h) <= self.copies]


@dataclass(frozen=True)
class DealTree:
    """A deal's public tree plus what is needed to read it as Truc.

    ``kind``, ``slot`` (card slot 0..5 about to be played), ``stake`` (in
    force) and ``pending`` (stake proposed, 0 if none) describe each node.
    ``type_counts`` (T, n_ranks) is each hand's count of each rank.
    """

    spec: DealSpec
    tree: PublicTree
    kind: np.ndarray
    slot: np.ndarray
    stake: np.ndarray
    pending: np.ndarray
    types: tuple[tuple[int, ...], ...]
    type_counts: np.ndarray


def deal_weights(spec: DealSpec) -> np.ndarray:
    """P(non-dealer holds hand i and dealer hand j) with card removal (sums to 1)."""
    counts = _type_counts(spec)
    n = spec.n_ranks * spec.copies
    h = spec.hand_size
    c = spec.copies
    w = np.ones((len(counts), len(counts)))
    for r in range(spec.n_ranks):
        a = counts[:, r][:, None]
        b = counts[:, r][None, :]
        ways_a = np.array([comb(c, k) for k in range(c + 1)], dtype=float)
        ok = a + b <= c
        rest = np.where(ok, c - a, 0)
        ways_b = np.vectorize(comb)(rest, np.where(ok, b, 0)).astype(float)
        w *= ways_a[a] * np.where(ok, ways_b, 0.0)
    return w / (comb(n, h) * comb(n - h, h))


def _type_counts(spec: DealSpec) -> np.ndarray:
    types = spec.types()
    out = np.zeros((len(types), spec.n_ranks), dtype=np.int8)
    for i, t in enumerate(types):
        for r in t:
            out[i, r] += 1
    return out


def trick_winner(leader: int, lead_rank: int, reply_rank: int) -> int:
    """Winner of a trick (0 or 1), or 2 for pourri (TR-3: equal ranks); rank 0 is the 7."""
    if lead_rank == reply_rank:
        return 2
    return leader if lead_rank < reply_rank else 1 - leader


def deal_result(results: tuple[int, ...], n_tricks: int = 3) -> int | None:
    """Winner of the deal from its trick results so far, 2 for null, None to go on (TR-3)."""
    if n_tricks == 1:
        return results[0]
    if len(results) < 2:
        return None
    first, second = results[0], results[1]
    if len(results) == 2:
        if first < 2 and second in (first, 2):  # second pourri goes to the first's winner
            return first
        if first == 2 and second < 2:  # first pourri goes to the second's winner
            return second
        return None  # one each, or both pourri
    third = results[2]
    if third < 2:
        return third
    return first if first < 2 else 2  # third pourri: to the first's winner; all pourri: null


def _multisets(spec: DealSpec):
    """Every multiset of played ranks (sorted tuple) -> id, and the types containing it."""
    types = spec.types()
    ids: dict[tuple[int, ...], int] = {}
    for size in range(spec.hand_size + 1):
        for ms in itertools.combinations_with_replacement(range(spec.n_ranks), size):
            if max([ms.count(r) for r in ms], default=0) <= spec.copies:
                ids[ms] = len(ids)
    position = np.full((len(ids), len(types)), -1, dtype=np.int32)
    lists = np.full((len(ids), len(types)), -1, dtype=np.int16)
    sizes = np.zeros(len(ids), dtype=np.int32)
    for ms, m in ids.items():
        k = 0
        for t, hand in enumerate(types):
            if all(hand.count(r) >= ms.count(r) for r in set(ms)):
                position[m, t] = k
                lists[m, k] = t
                k += 1
        sizes[m] = k
    return ids, lists, sizes, position


def build_deal_tree(spec: DealSpec = DealSpec(), use_cache: bool = False) -> DealTree:
    """The public tree of one deal (breadth-first; see the module docstring).

    ``use_cache`` keeps the enumerated nodes in the solver's cache directory
    (the plain-Python enumeration is most of the build: about 8 s at 0-0).
    """
    ids, lists, sizes, position = _multisets(spec)
    cols = _cached_walk(spec, ids) if use_cache else {
        k: np.asarray(v) for k, v in _walk(spec, ids).items()}
    player, parent = cols["player"], cols["parent"].astype(np.int32)
    n = len(player)
    n_children = np.zeros(n, dtype=np.int32)
    np.add.at(n_children, parent[1:], 1)
    first = np.full(n, n, dtype=np.int64)
    np.minimum.at(first, parent[1:], np.arange(1, n))
    child_start = np.where(n_children > 0, first, 0).astype(np.int32)
    ms = np.stack([cols["ms0"], cols["ms1"]], axis=1).astype(np.int32)
    entry_count = sizes[ms].astype(np.int32)
    flat = entry_count.ravel().astype(np.int64)
    entry_start = np.zeros((n, 2), dtype=np.int64)
    entry_start.ravel()[1:] = np.cumsum(flat)[:-1]
    counts = _type_counts(spec)
    ms_counts = np.zeros((len(ids), spec.n_ranks), dtype=np.int8)
    for played, m in ids.items():
        for r in played:
            ms_counts[m, r] += 1
    jit_once(globals(), ("_entries",))  # compiled on first use (see core.jit)
    entry_type, entry_parent, entry_sign = _entries(
        parent, ms, entry_start, entry_count, lists, position, int(flat.sum()),
        cols["final_actor"].astype(np.int8), cols["final_table"].astype(np.int8),
        cols["fallback"].astype(np.int8), counts, ms_counts)
    type_names = tuple(" ".join(RANK_CODES[r] for r in t) for t in spec.types())
    names = ("pass", "propose", "refuse", "accept", "counter") + tuple(
        f"play {RANK_CODES[r]}" for r in range(spec.n_ranks))
    tree = PublicTree(
        player=player.astype(np.int8), parent=parent, child_start=child_start,
        n_children=n_children, action=cols["action"].astype(np.int16),
        payoff=cols["payoff"].astype(np.float64), showdown=np.zeros(n, dtype=bool),
        context=np.zeros(n, dtype=np.int8),
        entry_start=entry_start, entry_count=entry_count, entry_type=entry_type,
        entry_parent=entry_parent, entry_sign=entry_sign, weight=deal_weights(spec)[None],
        sign=np.zeros((1, len(type_names), len(type_names))), action_names=names,
        type_names=(type_names, type_names))
    return DealTree(spec=spec, tree=tree, kind=cols["kind"].astype(np.int8),
                    slot=cols["slot"].astype(np.int8), stake=cols["stake"].astype(np.int16),
                    pending=cols["pending"].astype(np.int16), types=tuple(spec.types()),
                    type_counts=counts)


def _entries(parent, ms, entry_start, entry_count, lists, position, n_entries, final_actor,
             final_table, fallback, type_counts, ms_counts):
    """Entry types (each node's consistent hands), parent entries and last-card signs."""
    etype = np.empty(n_entries, dtype=np.int16)
    eparent = np.full(n_entries, -1, dtype=np.int64)
    esign = np.ones(n_entries, dtype=np.int8)
    for n in range(len(parent)):
        for p in range(2):
            s = entry_start[n, p]
            m = ms[n, p]
            for k in range(entry_count[n, p]):
                t = lists[m, k]
                etype[s + k] = t
                if n > 0:
                    par = parent[n]
                    eparent[s + k] = entry_start[par, p] + position[ms[par, p], t]
                if final_actor[n] == p:  # the last card is this hand's one unplayed rank
                    r = 0
                    while type_counts[t, r] == ms_counts[m, r]:
                        r += 1
                    table = final_table[n]
                    if r == table:
                        winner = fallback[n]  # TR-3: a last pourri trick
                    elif r < table:
                        winner = p
                    else:
                        winner = 1 - p
                    esign[s + k] = 0 if winner == 2 else (1 if winner == 0 else -1)
    return etype, eparent, esign


TREE_VERSION = 1  # bump when the enumeration changes (cached trees and strategies)


def _cached_walk(spec: DealSpec, ids: dict) -> dict:
    """``_walk``'s columns from the cache directory, enumerated and stored on a miss."""
    from simulators.truc.solver.cache import cache_dir, save_npz

    name = "_".join(str(v) for v in dataclasses.astuple(spec)).translate(
        str.maketrans("(), ", "--- ")).replace(" ", "")
    path = cache_dir() / f"tree_v{TREE_VERSION}_{name}.npz"
    if path.exists():
        with np.load(path) as data:
            return {k: data[k] for k in _COLUMNS}
    cols = {k: np.asarray(v) for k, v in _walk(spec, ids).items()}
    save_npz(path, **cols)
    return cols


_COLUMNS = ("player", "parent", "action", "payoff", "kind", "slot", "stake", "pending", "ms0",
            "ms1", "final_actor", "final_table", "fallback")


def _walk(spec: DealSpec, ids: dict) -> dict:
    """Breadth-first enumeration of the deal's public nodes, as column arrays."""
    from array import array
    from collections import deque

    cols = {name: array("d" if name == "payoff" else "i") for name in _COLUMNS}
    caps = (spec.target - spec.scores[0], spec.target - spec.scores[1])
    # queue items: (parent, action, payoff, state); state =
    # (kind, p, played0, played1, results, leader, table, stake, pending)
    queue = deque([(-1, -1, 0.0, _before_card(0, ((), ()), (), 0, -1, 1, caps))])
    node = -1

    def add(act, st, pay=0.0):
        queue.append((node, act, pay, st))

    while queue:
        par, act, pay, st = queue.popleft()
        node += 1
        k, p, pl0, pl1, results, leader, table, stake, pend = st
        final = k == K_CARD and table >= 0 and len((pl0, pl1)[p]) == spec.hand_size - 1
        if final:  # the deal's last card: a terminal whose result depends on p's hand
            k, pay = K_FINAL, float(stake)
        row = (TERMINAL if k in (K_END, K_FINAL) else p, par, act, 0, k, len(pl0) + len(pl1),
               stake, pend, ids[pl0], ids[pl1], p if final else -1, table if final else -1,
               deal_result(results + (2,), spec.hand_size) if final else -1)
        for name, value in zip(_COLUMNS, row, strict=True):
            cols[name].append(value)
        cols["payoff"][-1] = pay
        if k in (K_END, K_FINAL):
            continue
        q = 1 - p
        sign_p = 1.0 if p == 0 else -1.0
        if k == K_PROPOSE:
            add(PASS, (K_CARD,) + st[1:])
            add(PROPOSE, (K_ANSWER, q, pl0, pl1, results, leader, table, stake,
                          min(2 * stake, caps[p])))
        elif k == K_ANSWER:  # p answers; q proposed
            add(REFUSE, (K_END, -1, pl0, pl1, results, leader, table, stake, 0), -sign_p * stake)
            add(ACCEPT, (K_CARD, q, pl0, pl1, results, leader, table, pend, 0))
            if spec.counter_banco and pend < 2 * stake and caps[p] > pend:
                add(COUNTER, (K_REPLY, q, pl0, pl1, results, leader, table, stake, pend))
        elif k == K_REPLY:  # p proposed the banco ``pend``, q countered with caps[q]
            add(REFUSE, (K_END, -1, pl0, pl1, results, leader, table, pend, 0), -sign_p * pend)
            add(ACCEPT, (K_CARD, p, pl0, pl1, results, leader, table, caps[q], 0))
        else:
            _card_children(spec, st, caps, add)
    return cols


def _card_children(spec, st, caps, add):
    """Children of a card node: one per rank the player may hold (TR-3)."""
    _, p, pl0, pl1, results, leader, table, stake, _ = st
    played = (pl0, pl1)
    for r in range(spec.n_ranks):
        if pl0.count(r) + pl1.count(r) >= spec.copies:
            continue
        mine = tuple(sorted(played[p] + (r,)))
        new = (mine, pl1) if p == 0 else (pl0, mine)
        if table < 0:  # p led: the other player replies
            add(PLAY + r, _before_card(1 - p, new, results, leader, r, stake, caps))
            continue
        winner = trick_winner(leader, table, r)
        res = results + (winner,)
        outcome = deal_result(res, spec.hand_size)
        if outcome is not None:
            points = 0.0 if outcome == 2 else (stake if outcome == 0 else -stake)
            add(PLAY + r, (K_END, -1, new[0], new[1], res, leader, -1, stake, 0), points)
            continue
        nxt_leader = leader if winner == 2 else winner  # TR-3: a pourri's leader leads again
        add(PLAY + r, _before_card(nxt_leader, new, res, nxt_leader, -1, stake, caps))


def _before_card(p, played, results, leader, table, stake, caps):
    """State before p's card: a proposal turn if p may raise the stake (TR-5), else the card."""
    k = K_PROPOSE if min(2 * stake, caps[p]) > stake else K_CARD
    return (k, p, played[0], played[1], results, leader, table, stake, 0)


def child(tree: PublicTree, node: int, action: int) -> int:
    """The child of ``node`` reached by ``action`` (raises KeyError if not legal there)."""
    start = int(tree.child_start[node])
    labels = tree.action[start:start + int(tree.n_children[node])]
    hits = np.flatnonzero(labels == action)
    if tree.player[node] < 0 or not len(hits):
        raise KeyError(f"action {action} is not available at node {node}")
    return start + int(hits[0])


def follow(tree: PublicTree, actions) -> int:
    """The node reached from the root by a sequence of action labels."""
    node = 0
    for a in actions:
        node = child(tree, node, a)
    return node
