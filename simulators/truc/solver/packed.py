"""Truc's score-aware solution as the package ships it: every state's strategy, packed.

A solved state (``solutions.py``) is two card-play rows of 3 to 20 million
entries over a deal tree that takes seconds to build, plus the card call:
11 GB for the 144 states. What ships keeps only what play needs:

* **the card call** (2, T), each hand's chance of asking, as uint16 (p * 65535);
* **the card play at the information sets the player's own strategy reaches**
  where his hand has a choice. An information set his own strategy never
  reaches cannot matter to any opponent, so dropping it changes nothing a best
  response can find; a hand with one rank left has nothing to choose;
* **probabilities below** ``tau`` set to zero and the rest quantised to
  ``bits`` bits. Purifying a CFR average lowers its exploitability in Truc's
  solutions (measured: 0.00295 -> 0.00274 at 10-10 with tau = 0.05), and each
  dropped action takes its whole subtree of the player's own reach with it.

Play needs no tree: an information set is keyed by what the policy reads from
an observation (:func:`key_of`): the card call's outcome, the card slot, the
kind of decision, the ranks played, which slots were raised and which of those
were countered, and the hand (its rank counts as dealt). The keys of a state
are sorted; the policy finds its rows with one ``searchsorted``.

:func:`pack_state` packs a solved strategy, :func:`expand` turns packed
arrays back into a strategy over the round tree (what the policy plays, for
the exact best response of ``round.round_values``), and :func:`encode` /
:func:`decode` make the bytes that ship (lzma over delta-coded keys).
"""

from __future__ import annotations

import io
import json
import lzma
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulators.truc.solver import deal as D

PACK_VERSION = 1
PLAY_SCALE = 65535  # the card call's probabilities, as the cache stores the play's
TYPE_BITS = 7  # hand types (120), above the copy bit
METHODS = {D.K_PROPOSE: 0, D.K_ANSWER: 1, D.K_REPLY: 2, D.K_CARD: 3}  # the policy's M_* codes
CANDIDATES = ((0.2, 3), (0.15, 3), (0.1, 3), (0.05, 4), (0.05, 6), (0.0, 16))
"""(tau, bits) tried in order by the pack, smallest first: the first whose exact
exploitability is within the budget ships (``bench/truc_pack.py``). Measured at 4-8:
451 KB at (0.05, 4) and 0.00265, 243 KB at (0.15, 3) and 0.00493, 202 KB at (0.2, 3) and
0.00618 (solved: 0.00275)."""
SHIPPED = Path(__file__).parent / "data" / "solution.npz"
AS_PLAYED = Path(__file__).parent / "data" / "solution_as_played.json"


def infoset_key(node_key, hand, copy) -> np.ndarray:
    """An information set's key: its node's key, the hand as dealt, and which card play
    (``copy`` 0: the non-dealer kept, 1: he asked and the dealer kept) in the lowest bit, so
    the same situation after either call sits side by side (they are alike: the bytes
    compress better)."""
    return (((np.asarray(node_key, dtype=np.int64) << TYPE_BITS)
             | np.asarray(hand, dtype=np.int64)) << 1) | np.asarray(copy, dtype=np.int64)


def key_of(slot, method, ranks, raised, countered) -> np.ndarray:
    """Node keys (int64) from per-row arrays, as :func:`node_keys` makes them from the tree.

    ``ranks`` (N, 6) rank of each card slot (read below ``slot``); ``raised`` /
    ``countered`` (N, 6) booleans (read up to ``slot``): a proposal accepted (or
    pending, at an answer) before that slot's card, and countered.
    """
    slot = np.asarray(slot, dtype=np.int64)
    n = len(slot)
    j = np.arange(6)
    played = j[None, :] < slot[:, None]
    upto = j[None, :] <= slot[:, None]
    rank_bits = (np.where(played, np.asarray(ranks, dtype=np.int64), 0) << (3 * j)).sum(axis=1)
    raise_bits = (np.where(upto, np.asarray(raised, dtype=bool), False).astype(np.int64)
                  << j).sum(axis=1)
    counter_bits = (np.where(upto, np.asarray(countered, dtype=bool), False).astype(np.int64)
                    << j).sum(axis=1)
    method = np.broadcast_to(np.asarray(method, dtype=np.int64), (n,))
    return ((slot * 4 + method) << 30) | (rank_bits << 12) | (raise_bits << 6) | counter_bits


def node_keys(deal: D.DealTree) -> np.ndarray:
    """Each card-play node's key, -1 where nobody decides.

    Breadth-first order puts a level's children in one contiguous run, so the
    history bits go down the tree one level at a time.
    """
    t = deal.tree
    n = t.n_nodes
    parent = t.parent.astype(np.int64)
    action = t.action.astype(np.int64)
    pslot = np.zeros(n, dtype=np.int64)
    pslot[1:] = deal.slot[parent[1:]]
    ranks = np.where(action >= D.PLAY, (action - D.PLAY) << (3 * pslot), 0)
    raised = np.where(action == D.PROPOSE, 1 << pslot, 0)
    countered = np.where(action == D.COUNTER, 1 << pslot, 0)
    ranks[0] = raised[0] = countered[0] = 0
    end = t.child_start + t.n_children
    lo, hi = 0, 1
    while True:
        level = np.arange(lo, hi)
        inner = level[t.n_children[level] > 0]
        if inner.size == 0:
            break
        lo, hi = int(t.child_start[inner].min()), int(end[inner].max())
        kids = np.arange(lo, hi)
        ranks[kids] |= ranks[parent[kids]]
        raised[kids] |= raised[parent[kids]]
        countered[kids] |= countered[parent[kids]]
    method = np.full(n, -1, dtype=np.int64)
    for kind, code in METHODS.items():
        method[deal.kind == kind] = code
    slot = deal.slot.astype(np.int64)
    keys = ((slot * 4 + method) << 30) | (ranks << 12) | (raised << 6) | countered
    return np.where(method >= 0, keys, -1)


@dataclass(frozen=True)
class Groups:
    """The card play's information sets in a round tree (both copies), structure only.

    ``key`` (G,) sorted; ``entries`` (G, 3) the round-tree entries of the legal
    actions in label order (-1 past the last); ``infoset`` (G,) the actor's entry
    at the decision node (whose own reach says whether play can get there).
    """

    key: np.ndarray
    entries: np.ndarray
    infoset: np.ndarray

    @property
    def n_legal(self) -> np.ndarray:
        return (self.entries >= 0).sum(axis=1)


def groups_of(round_tree) -> Groups:
    """Every (copy, decision node, hand) of a round tree's card play (``round.py``)."""
    deal = round_tree.deal
    dt, tree = deal.tree, round_tree.tree
    base = node_keys(deal)
    child = np.arange(1, dt.n_nodes)
    par = dt.parent[child].astype(np.int64)
    child, par = child[base[par] >= 0], par[base[par] >= 0]
    actor = dt.player[par].astype(np.int64)
    keys, entries, infosets = [], [], []
    for copy in (0, 1):
        rnode = round_tree.copy_nodes(copy)[child]
        starts = tree.entry_start[rnode, actor]
        counts = tree.entry_count[rnode, actor].astype(np.int64)
        e = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        node = np.repeat(child, counts)
        info = tree.entry_parent[e]
        order = np.lexsort((node, info))  # by information set, then the children's order
        e, node, info = e[order], node[order], info[order]
        first = np.r_[True, info[1:] != info[:-1]]
        gid = np.cumsum(first) - 1
        pos = np.arange(len(e)) - np.flatnonzero(first)[gid]
        if pos.max() > 2:
            raise AssertionError("an information set with more than 3 actions")
        block = np.full((int(first.sum()), 3), -1, dtype=np.int64)
        block[gid, pos] = e
        hand = tree.entry_type[e[first]].astype(np.int64)
        decision = dt.parent[node[first]].astype(np.int64)
        keys.append(infoset_key(base[decision], hand, copy))
        entries.append(block)
        infosets.append(info[first])
    key = np.concatenate(keys)
    order = np.argsort(key, kind="stable")
    return Groups(key[order], np.concatenate(entries)[order], np.concatenate(infosets)[order])


def own_reach(tree, strategy: np.ndarray) -> np.ndarray:
    """Each entry's reach by its own player's actions alone (pointer doubling up
    ``entry_parent``: every entry's parent comes first)."""
    actor = np.full(tree.n_nodes, -1, dtype=np.int64)
    actor[1:] = tree.player[tree.parent[1:]]
    factor = np.ones(tree.n_entries)
    for p in (0, 1):
        nodes = np.flatnonzero(actor == p)
        starts, counts = tree.entry_start[nodes, p], tree.entry_count[nodes, p].astype(np.int64)
        e = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        factor[e] = strategy[e]
    reach = factor
    up = tree.entry_parent.astype(np.int64).copy()
    while True:
        live = np.flatnonzero(up >= 0)
        if live.size == 0:
            return reach
        reach[live] = reach[live] * reach[up[live]]
        up[live] = up[up[live]]


def call_entries(tree) -> tuple[np.ndarray, ...]:
    """Entries of the card call: (non-dealer keeps, asks), (dealer keeps, asks) — all hands."""
    from simulators.truc.solver.round import COPY_ROOTS, REDEAL

    types = tree.entry_count[0, 0]
    every = np.arange(types)
    keep_nd, ask_nd = tree.entry_start[COPY_ROOTS[0], 0], tree.entry_start[2, 0]
    keep_d, ask_d = tree.entry_start[COPY_ROOTS[1], 1], tree.entry_start[REDEAL, 1]
    return tuple(s + every for s in (keep_nd, ask_nd, keep_d, ask_d))


@dataclass(frozen=True)
class Packed:
    """A state's strategy as shipped: sorted keys, quantised action weights (G, 3) (their
    row sum is the scale), the card call (2, T) uint16, and how it was packed."""

    key: np.ndarray
    weight: np.ndarray
    call: np.ndarray
    tau: float
    bits: int
    n_legal: np.ndarray  # (G,) 2 or 3 actions


def pack_state(round_tree, strategy: np.ndarray, call: np.ndarray, tau: float, bits: int,
               groups: Groups | None = None) -> Packed:
    """Pack a solved strategy over ``round_tree`` (see the module docstring); ``call`` is
    the stored (2, T) call probabilities."""
    if not 2 <= bits <= 16:
        raise ValueError(f"bits must be in [2, 16], got {bits!r}")
    groups = groups_of(round_tree) if groups is None else groups
    legal = groups.entries >= 0
    p = np.where(legal, strategy[np.maximum(groups.entries, 0)], 0.0)
    p = _normalized(p, legal)
    p = np.where((p < tau) & (p < p.max(axis=1, keepdims=True)), 0.0, p)
    p = _normalized(p, legal)
    level = (1 << bits) - 1
    weight = np.rint(p * level).astype(np.int64)
    last = groups.n_legal - 1  # the last action's weight is what the others leave (not stored)
    rows = np.arange(len(weight))
    weight[rows, last] = 0
    weight[rows, last] = np.maximum(level - weight.sum(axis=1), 0)
    weight = weight.astype(np.uint8 if bits <= 8 else np.uint16)
    call_q = np.rint(np.clip(call, 0.0, 1.0) * PLAY_SCALE).astype(np.uint16)
    n_legal = groups.n_legal.astype(np.int8)
    full = Packed(groups.key, weight, call_q, tau, bits, n_legal)
    reach = own_reach(round_tree.tree, expand(round_tree, full, groups))
    keep = (n_legal >= 2) & (reach[groups.infoset] > 0)
    return Packed(groups.key[keep], weight[keep], call_q, tau, bits, n_legal[keep])


def _normalized(p: np.ndarray, legal: np.ndarray) -> np.ndarray:
    total = p.sum(axis=1, keepdims=True)
    uniform = legal / legal.sum(axis=1, keepdims=True)
    return np.where(total > 0, p / np.where(total > 0, total, 1.0), uniform)


def expand(round_tree, packed: Packed, groups: Groups | None = None) -> np.ndarray:
    """The strategy over the round tree that the packed state plays: the stored weights where
    a key is kept, uniform where it is not (a set the player's own play never reaches, or
    a single action)."""
    tree = round_tree.tree
    groups = groups_of(round_tree) if groups is None else groups
    strategy = np.ones(tree.n_entries)
    legal = groups.entries >= 0
    at = np.minimum(np.searchsorted(packed.key, groups.key), max(len(packed.key) - 1, 0))
    found = packed.key[at] == groups.key if len(packed.key) else np.zeros(len(at), bool)
    w = np.where(found[:, None], packed.weight[at].astype(np.float64), legal.astype(np.float64))
    p = _normalized(np.where(legal, w, 0.0), legal)
    strategy[groups.entries[legal]] = p[legal]
    ask = packed.call.astype(np.float64) / PLAY_SCALE
    keep_nd, ask_nd, keep_d, ask_d = call_entries(tree)
    strategy[keep_nd], strategy[ask_nd] = 1.0 - ask[0], ask[0]
    strategy[keep_d], strategy[ask_d] = 1.0 - ask[1], ask[1]
    return strategy


# ---------------------------------------------------------------- bytes


def encode(packed: Packed) -> bytes:
    """One state's bytes: a small JSON header, then lzma of the key deltas, which keys have
    three actions, the weights but each row's last (the level minus the others), and the
    call."""
    delta = np.diff(packed.key, prepend=np.int64(0)).astype("<u8")
    three = packed.n_legal == 3
    dtype = "<u1" if packed.bits <= 8 else "<u2"
    body = (delta.tobytes() + np.packbits(three).tobytes()
            + packed.weight[:, 0].astype(dtype).tobytes()
            + packed.weight[three, 1].astype(dtype).tobytes()
            + packed.call.astype("<u2").tobytes())
    head = json.dumps({"n": int(len(packed.key)), "types": int(packed.call.shape[1]),
                       "tau": packed.tau, "bits": packed.bits}).encode()
    return len(head).to_bytes(4, "little") + head + lzma.compress(
        body, preset=9 | lzma.PRESET_EXTREME)


def decode(blob: bytes) -> Packed:
    """The inverse of :func:`encode`."""
    size = int.from_bytes(blob[:4], "little")
    head = json.loads(blob[4:4 + size])
    raw = io.BytesIO(lzma.decompress(blob[4 + size:]))
    n, types, bits = head["n"], head["types"], head["bits"]
    key = np.cumsum(np.frombuffer(raw.read(8 * n), dtype="<u8").astype(np.int64))
    three = np.unpackbits(np.frombuffer(raw.read((n + 7) // 8), dtype=np.uint8))[:n] \
        .astype(bool)
    dtype = np.dtype("<u1" if bits <= 8 else "<u2")
    level = (1 << bits) - 1
    weight = np.zeros((n, 3), dtype=np.int64)
    weight[:, 0] = np.frombuffer(raw.read(n * dtype.itemsize), dtype=dtype)
    weight[three, 1] = np.frombuffer(raw.read(int(three.sum()) * dtype.itemsize), dtype=dtype)
    last = np.where(three, 2, 1)
    weight[np.arange(n), last] = np.maximum(level - weight.sum(axis=1), 0)
    call = np.frombuffer(raw.read(2 * types * 2), dtype="<u2").reshape(2, types).copy()
    n_legal = np.where(three, 3, 2).astype(np.int8)
    return Packed(key, weight.astype(np.uint8 if bits <= 8 else np.uint16), call,
                  head["tau"], bits, n_legal)


# ---------------------------------------------------------------- play


@dataclass(frozen=True)
class ShippedState:
    """A shipped state as the policy reads it: ``call`` (2, T) probabilities, and the card
    play's information sets in about 6 bytes each (a state holds up to a few million):

    ``nodes`` the sorted node keys; ``local`` (uint32, sorted) each set's node rank times
    256 plus its low byte (hand and copy); ``weight`` the first two actions' weights, two
    nibbles of a byte when ``bits`` <= 4 (the third is what they leave of ``level``).
    """

    scores: tuple[int, int]
    payoff: str
    call: np.ndarray
    nodes: np.ndarray
    local: np.ndarray
    weight: np.ndarray
    level: int
    meta: dict

    @classmethod
    def of(cls, packed: Packed, scores, payoff: str, meta: dict) -> ShippedState:
        node = packed.key >> (TYPE_BITS + 1)  # sorted, as the keys are: no sort needed
        first = np.ones(len(node), dtype=bool)
        first[1:] = node[1:] != node[:-1]
        nodes, rank = node[first], np.cumsum(first) - 1
        if len(nodes) >= 1 << 24:
            raise ValueError("too many nodes for the compact layout")
        local = (rank.astype(np.uint32) << 8) | (packed.key & 255).astype(np.uint32)
        w = packed.weight.astype(np.uint16)
        weight = (w[:, 0] | (w[:, 1] << 4)).astype(np.uint8) if packed.bits <= 4 else \
            packed.weight[:, :2].copy()
        return cls(scores=(int(scores[0]), int(scores[1])), payoff=payoff,
                   call=packed.call.astype(np.float64) / PLAY_SCALE, nodes=nodes, local=local,
                   weight=weight, level=(1 << packed.bits) - 1, meta=meta)

    @property
    def nbytes(self) -> int:
        return self.nodes.nbytes + self.local.nbytes + self.weight.nbytes + self.call.nbytes

    def weights(self, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found, (N, 3) weights) of information-set keys (:func:`infoset_key`)."""
        key = np.asarray(key, dtype=np.int64)
        out = np.zeros((len(key), 3), dtype=np.int64)
        if len(self.nodes) == 0:
            return np.zeros(len(key), dtype=bool), out
        node = key >> (TYPE_BITS + 1)
        rank = np.minimum(np.searchsorted(self.nodes, node), len(self.nodes) - 1)
        want = (rank.astype(np.uint32) << 8) | (key & 255).astype(np.uint32)
        at = np.minimum(np.searchsorted(self.local, want), len(self.local) - 1)
        found = (self.nodes[rank] == node) & (self.local[at] == want)
        w = self.weight[at].astype(np.int64)
        if w.ndim == 1:
            out[:, 0], out[:, 1] = w & 15, w >> 4
        else:
            out[:, :2] = w
        out[:, 2] = np.maximum(self.level - out[:, 0] - out[:, 1], 0)
        return found, out

    def choose(self, key: np.ndarray, allowed: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """The column (0..2, in label order of the legal actions) each row plays, sampled with
        its uniform ``noise``; -1 where the key is not kept (a set this strategy never
        reaches, or one action only)."""
        found, weight = self.weights(key)
        w = np.where(allowed, weight.astype(np.float64), 0.0)
        total = w.sum(axis=1)
        cum = np.cumsum(w, axis=1)
        col = (np.asarray(noise, dtype=np.float64)[:, None] * total[:, None] >= cum).sum(axis=1)
        last = 2 - np.argmax(w[:, ::-1] > 0, axis=1)  # a noise of 1.0 takes the last one
        col = np.minimum(col, last)
        return np.where(found & (total > 0), col, -1)


_ARCHIVE: dict = {}  # path -> (NpzFile, index); one open archive per process
_LOADED: dict = {}  # (path, payoff, scores) -> ShippedState


def shipped_index(path: Path | None = None) -> dict | None:
    """The shipped file's index (settings, and every state's figures), or None without it."""
    path = Path(SHIPPED if path is None else path)
    if path not in _ARCHIVE:
        if not path.exists():
            return None
        archive = np.load(path)
        _ARCHIVE[path] = (archive, json.loads(archive["index"].tobytes()))
    return _ARCHIVE[path][1]


def as_played_figures() -> list[dict]:
    """The shipped solution's exploitability as played (``bench/truc_as_played.py``), [] if
    it was not measured."""
    path = AS_PLAYED
    return json.loads(path.read_text())["states"] if path.exists() else []


def member(payoff: str, scores) -> str:
    return f"{payoff}-{int(scores[0])}-{int(scores[1])}"


def shipped_bytes(scores, payoff: str = "manche", path: Path | None = None) -> bytes | None:
    """A shipped state's bytes as packed (None if the package does not ship it)."""
    path = Path(SHIPPED if path is None else path)
    index = shipped_index(path)
    name = member(payoff, scores)
    if index is None or name not in index["states"]:
        return None
    return _ARCHIVE[path][0][name].tobytes()


def shipped_packed(scores, payoff: str = "manche", path: Path | None = None
                   ) -> Packed | None:
    """A shipped state's packed arrays (None if the package does not ship it)."""
    blob = shipped_bytes(scores, payoff, path)
    return None if blob is None else decode(blob)


def shipped_state(scores, payoff: str = "manche", path: Path | None = None
                  ) -> ShippedState | None:
    """A state of the shipped solution (None if the package does not ship it), decoded once
    per process: milliseconds, nothing written to disk."""
    path = Path(SHIPPED if path is None else path)
    name = member(payoff, scores)
    found = _LOADED.get((path, name))
    if found is not None:
        return found
    packed = shipped_packed(scores, payoff, path)
    if packed is None:
        return None
    state = ShippedState.of(packed, scores, payoff, shipped_index(path)["states"][name])
    _LOADED[(path, name)] = state
    return state


# ---------------------------------------------------------------- packing a solved state


def stored_strategy(round_tree, solution) -> np.ndarray:
    """A cached :class:`~.solutions.StateSolution` back over its round tree (call and both
    card-play rows), each information set normalised as the policy samples it."""
    from simulators.truc.solver.round import COPY_ROOTS

    tree = round_tree.tree
    strategy = np.ones(tree.n_entries)
    width = solution.play.shape[1]
    for copy, root in enumerate(COPY_ROOTS):
        start = tree.entry_start[root, 0]
        strategy[start:start + width] = np.asarray(solution.play[copy], dtype=np.float64) / 65535
    keep_nd, ask_nd, keep_d, ask_d = call_entries(tree)
    strategy[ask_nd], strategy[keep_nd] = solution.call[0], 1.0 - solution.call[0]
    strategy[ask_d], strategy[keep_d] = solution.call[1], 1.0 - solution.call[1]
    groups = groups_of(round_tree)
    legal = groups.entries >= 0
    p = _normalized(np.where(legal, strategy[np.maximum(groups.entries, 0)], 0.0), legal)
    strategy[groups.entries[legal]] = p[legal]
    return strategy


@dataclass(frozen=True)
class PackResult:
    """One state packed: its bytes, and the figures that certify what ships."""

    blob: bytes
    meta: dict


def pack_solved(scores, payoff: str, budget: float, equity: np.ndarray | None = None,
                candidates=CANDIDATES, log=None) -> PackResult:
    """Pack the cached solution of a state: the first of ``candidates`` (tau, bits) whose
    exact exploitability (five hands with the card call, ``round.round_values``) is at most
    ``budget`` (the last candidate otherwise); the bytes are checked to decode to exactly
    the arrays measured."""
    import time

    from simulators.truc.solver import manche
    from simulators.truc.solver.round import round_values
    from simulators.truc.solver.solutions import load_state

    began = time.perf_counter()
    scores = (int(scores[0]), int(scores[1]))
    solution = load_state(scores, payoff, True)
    if solution is None:
        raise FileNotFoundError(f"state {scores[0]}-{scores[1]} ({payoff}) is not in the "
                                "cache: solve it first (tapisvert solve truc --equity "
                                "--recompute)")
    solver = manche.StateSolver(scores)
    if payoff == "manche":
        equity = manche.shipped_equity()["win_probability"] if equity is None else equity
        solver.set_scoring(manche.manche_scoring(scores, equity, 1.0 - equity[scores[1],
                                                                               scores[0]]))
    null = solver.null
    groups = groups_of(solver.round)
    strategy = stored_strategy(solver.round, solution)
    tried = []
    for tau, bits in candidates:
        shipped = pack_state(solver.round, strategy, solution.call, tau, bits, groups)
        measured = round_values(solver.tree, expand(solver.round, shipped, groups),
                                abandoned=null)
        tried.append({"tau": tau, "bits": bits, "exploitability": measured.exploitability})
        if log:
            log(f"{scores[0]}-{scores[1]} {payoff}: tau {tau:g}, {bits} bits: exploitability "
                f"{measured.exploitability:.5f}")
        if measured.exploitability <= budget:
            break
    blob = encode(shipped)
    back = decode(blob)  # what ships is what was measured
    for name in ("key", "weight", "call", "n_legal"):
        if not np.array_equal(getattr(back, name), getattr(shipped, name)):
            raise AssertionError(f"the encoded state does not decode to what was measured "
                                 f"({name})")
    meta = {"scores": list(scores), "payoff": payoff, "tau": tau, "bits": bits,
            "bytes": len(blob), "information_sets": int(len(shipped.key)),
            "value": measured.value, "exploitability": measured.exploitability,
            "solved_value": solution.value, "solved_exploitability": solution.exploitability,
            "tried": tried, "seconds": time.perf_counter() - began}
    return PackResult(blob, meta)


def write_shipped(path: Path, packs: dict[str, PackResult], settings: dict) -> None:
    """The shipped archive: one member per state (its bytes) and ``index`` (the settings and
    every state's figures), written atomically."""
    from simulators.core.files import atomic_path

    index = {"version": PACK_VERSION, "settings": settings,
             "states": {name: pack.meta for name, pack in sorted(packs.items())}}
    arrays = {name: np.frombuffer(pack.blob, dtype=np.uint8) for name, pack in packs.items()}
    arrays["index"] = np.frombuffer(json.dumps(index).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)
    for key in [k for k in _ARCHIVE if Path(k) == Path(path)]:
        del _ARCHIVE[key]
    for key in [k for k in _LOADED if Path(k[0]) == Path(path)]:
        del _LOADED[key]
