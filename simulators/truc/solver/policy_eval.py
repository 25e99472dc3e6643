"""Any Truc policy as a strategy on a deal's tree, and its exploitability.

A policy (``simulators/truc/policies.py``) is a pure function of an
observation and its noise. For every information set of the tree (decision
node, hand) this module builds the observation the engine would show there
(cards with suits assigned in play order, the stakes, the scores, no card
call: ``discarded`` is empty), asks the policy in one batch per kind of
decision and card slot, and repeats with ``noise_levels`` stratified
uniforms (k + 1/2) / K, so a policy that proposes when ``noise < 0.1`` does so
with probability exactly 0.1 when K is a multiple of 10. The frequencies are
the policy's behaviour strategy; a best response to it is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core.cfr.cfrplus import evaluate
from simulators.core.jit import jit_once
from simulators.truc import rules as R
from simulators.truc.observations import PlayObs
from simulators.truc.solver import deal as D
from simulators.truc.solver.lookup import _entry

N_LABELS = D.PLAY + 8


def _history(parent, player, action, slot, stake):
    """Per node: rank, player and stake of each card slot played so far (-1 / 0 if not)."""
    n = len(parent)
    ranks = np.full((n, 6), -1, dtype=np.int8)
    who = np.full((n, 6), -1, dtype=np.int8)
    stakes = np.zeros((n, 6), dtype=np.int16)
    for c in range(1, n):
        par = parent[c]
        ranks[c] = ranks[par]
        who[c] = who[par]
        stakes[c] = stakes[par]
        if action[c] >= 5:  # D.PLAY
            s = slot[par]
            ranks[c, s] = action[c] - 5
            who[c, s] = player[par]
            stakes[c, s] = stake[par]
    return ranks, who, stakes


def _scatter(rows_node, rows_type, freq, child_start, n_children, action, player,
             entry_start, entry_count, entry_type, strategy):
    """Write each row's action frequencies on the child entries of its hand."""
    bad = 0
    for i in range(len(rows_node)):
        n = rows_node[i]
        a = player[n]
        t = rows_type[i]
        total = 0.0
        found = 0
        for c in range(child_start[n], child_start[n] + n_children[n]):
            e = _entry(entry_start, entry_count, entry_type, c, a, t)
            if e >= 0:
                f = freq[i, action[c]]
                strategy[e] = f
                total += f
                found += 1
        if found and abs(total - 1.0) > 1e-6:  # found == 0: a hand no deal gives here
            bad += 1
    return bad


@dataclass(frozen=True)
class _Group:
    kind: int
    slot: int
    nodes: np.ndarray
    types: np.ndarray


def _groups(deal: D.DealTree):
    """Information sets grouped by decision kind and card slot (one policy call each)."""
    tree = deal.tree
    nodes = np.flatnonzero((tree.player == 0) | (tree.player == 1))
    actor = tree.player[nodes].astype(np.intp)
    counts = tree.entry_count[nodes, actor]
    row_nodes = np.repeat(nodes, counts)
    starts = tree.entry_start[nodes, actor]
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    row_types = tree.entry_type[np.repeat(starts, counts) + offsets]
    key = deal.kind[row_nodes].astype(np.int64) * 8 + deal.slot[row_nodes]
    order = np.argsort(key, kind="stable")
    key, row_nodes, row_types = key[order], row_nodes[order], row_types[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    for part in np.split(np.arange(len(key)), bounds):
        if len(part):
            k = int(key[part[0]])
            yield _Group(k // 8, k % 8, row_nodes[part], row_types[part])


def _cards_seen(ranks, n: int, slot: int, n_ranks: int):
    """Card ids of the cards played so far, their bitmask, and how many of each rank.

    Suits are given in order of appearance (played cards, then the hand).
    """
    occ = np.zeros((n, n_ranks), dtype=np.int64)
    rows = np.arange(n)
    cards = np.full((n, 6), -1, dtype=np.int8)
    played = np.zeros(n, dtype=np.uint32)
    for j in range(slot):
        r = ranks[:, j].astype(np.int64)
        c = 4 * r + np.minimum(occ[rows, r], 3)
        occ[rows, r] += 1
        cards[:, j] = c
        played |= np.left_shift(np.uint32(1), c.astype(np.uint32))
    return cards, played, occ


def _hand_left(deal: D.DealTree, g: _Group, ranks, who, a, occ):
    """The deciding player's remaining ranks (counts) and his hand as a card bitmask."""
    n = len(g.nodes)
    counts = deal.type_counts[g.types].astype(np.int64)
    mine_played = np.zeros_like(counts)
    for j in range(g.slot):
        hit = who[:, j] == a
        np.add.at(mine_played, (np.arange(n)[hit], ranks[hit, j].astype(np.int64)), 1)
    remaining = counts - mine_played
    hand = np.zeros(n, dtype=np.uint32)
    for r in range(deal.spec.n_ranks):
        for k in range(3):
            has = remaining[:, r] > k
            bit = np.left_shift(np.uint32(1), (4 * r + np.minimum(occ[:, r] + k, 3)).astype(
                np.uint32))
            hand |= np.where(has, bit, np.uint32(0))
    return remaining, hand


def _tricks_seen(slot: int, ranks, who, a, cards):
    """Per trick: my card, the opponent's, the result for me (TR-3) and whether I led."""
    n = len(a)
    my_cards = np.full((n, 3), -1, dtype=np.int8)
    opp_cards = np.full((n, 3), -1, dtype=np.int8)
    results = np.zeros((n, 3), dtype=np.int8)
    i_led = np.zeros((n, 3), dtype=bool)
    for t in range(3):
        for j in (2 * t, 2 * t + 1):
            if j < slot:
                mine = who[:, j] == a
                my_cards[:, t] = np.where(mine, cards[:, j], my_cards[:, t])
                opp_cards[:, t] = np.where(mine, opp_cards[:, t], cards[:, j])
        if 2 * t < slot:
            i_led[:, t] = who[:, 2 * t] == a
        if 2 * t + 1 < slot:
            lead, reply = ranks[:, 2 * t], ranks[:, 2 * t + 1]
            leader_wins = lead < reply
            i_won = np.where(i_led[:, t], leader_wins, ~leader_wins)
            results[:, t] = np.where(lead == reply, R.POURRI, np.where(i_won, R.WON, R.LOST))
    return my_cards, opp_cards, results, i_led


def _stakes_seen(deal: D.DealTree, g: _Group, my_score, opp_score):
    """Stake, proposal, banco and counter-banco as the deciding player sees them (TR-4, TR-5)."""
    spec, n = deal.spec, len(g.nodes)
    stake = deal.stake[g.nodes].astype(np.int8)
    pending = deal.pending[g.nodes].astype(np.int8)
    zero8, no = np.zeros(n, dtype=np.int8), np.zeros(n, dtype=bool)
    if g.kind == D.K_PROPOSE:
        proposal = np.minimum(2 * stake, spec.target - my_score).astype(np.int8)
        return stake, proposal, proposal < 2 * stake, zero8
    if g.kind == D.K_ANSWER:
        banco = pending < 2 * stake
        lacks = (spec.target - my_score).astype(np.int8)
        allowed = banco & (lacks > pending) & spec.counter_banco
        return stake, pending, banco, np.where(allowed, lacks, 0).astype(np.int8)
    if g.kind == D.K_REPLY:  # the proposer sees his banco accepted and the counter proposed
        return pending, (spec.target - opp_score).astype(np.int8), no, zero8
    return stake, zero8, no, zero8


def _observation(deal: D.DealTree, g: _Group, hist) -> tuple[PlayObs, np.ndarray]:
    """The engine's observation at each row of a group (noise left None), and legal ranks."""
    spec, tree = deal.spec, deal.tree
    ranks, who, stakes_by_slot = (h[g.nodes] for h in hist)
    a = tree.player[g.nodes].astype(np.int64)
    n = len(g.nodes)
    cards, played, occ = _cards_seen(ranks, n, g.slot, spec.n_ranks)
    remaining, hand = _hand_left(deal, g, ranks, who, a, occ)
    my_cards, opp_cards, results, i_led = _tricks_seen(g.slot, ranks, who, a, cards)
    position = g.slot % 2
    table = cards[:, g.slot - 1] if position == 1 else np.full(n, -1, dtype=np.int8)
    my_score = np.asarray(spec.scores)[a].astype(np.int8)
    opp_score = np.asarray(spec.scores)[1 - a].astype(np.int8)
    stake, proposal, banco, counter = _stakes_seen(deal, g, my_score, opp_score)
    slot_stakes = np.where(np.arange(6) < g.slot, stakes_by_slot, 0).astype(np.int8)
    obs = PlayObs(
        hand=hand, seat=a.astype(np.int8), is_dealer=(a == 1), trick=g.slot // 2,
        position=position, to_play=g.kind != D.K_ANSWER, table=table, my_cards=my_cards,
        opp_cards=opp_cards, results=results, i_led=i_led, stakes=slot_stakes, stake=stake,
        proposal=proposal, banco=banco, counter=counter, countering=bool(g.kind == D.K_REPLY),
        my_score=my_score, opp_score=opp_score, target=spec.target,
        discarded=np.zeros(n, dtype=np.uint32), noise=None, played=played)
    return obs, remaining


def _labels(kind: int, out: np.ndarray) -> np.ndarray:
    """Tree action labels of a policy's answers."""
    if kind == D.K_PROPOSE:
        return np.where(np.asarray(out, dtype=bool), D.PROPOSE, D.PASS)
    if kind in (D.K_ANSWER, D.K_REPLY):
        return D.REFUSE + np.asarray(out, dtype=np.int64)  # REFUSE 0, ACCEPT 1, COUNTER 2
    return D.PLAY + (np.asarray(out, dtype=np.int64) >> 2)


def policy_strategy(deal: D.DealTree, policy, noise_levels: int = 20) -> np.ndarray:
    """The behaviour strategy of ``policy`` in both seats, over the tree's entries."""
    if not isinstance(noise_levels, int) or noise_levels < 1:
        raise ValueError(f"noise_levels must be a positive integer, got {noise_levels!r}")
    tree = deal.tree
    jit_once(globals(), ("_entry", "_history", "_scatter"))  # on first use (core.jit)
    hist = _history(tree.parent, tree.player, tree.action, deal.slot.astype(np.int64),
                    deal.stake)
    strategy = np.ones(tree.n_entries)
    levels = ((np.arange(noise_levels) + 0.5) / noise_levels).astype(np.float32)
    if not getattr(policy, "uses_noise", False):
        levels = levels[:1]
    for g in _groups(deal):
        obs, remaining = _observation(deal, g, hist)
        method = {D.K_PROPOSE: "propose", D.K_ANSWER: "answer", D.K_REPLY: "answer",
                  D.K_CARD: "play"}[g.kind]
        freq = np.zeros((len(g.nodes), N_LABELS), dtype=np.float64)
        rows = np.arange(len(g.nodes))
        for u in levels:
            noise = np.full(len(g.nodes), u, dtype=np.float32) if len(levels) > 1 or \
                getattr(policy, "uses_noise", False) else None
            labels = _labels(g.kind, getattr(policy, method)(obs._replace(noise=noise)))
            if g.kind == D.K_CARD:
                r = labels - D.PLAY
                ok = (r >= 0) & (r < deal.spec.n_ranks)
                ok[ok] &= remaining[rows[ok], r[ok]] > 0
                if not ok.all():
                    raise ValueError(f"{type(policy).__name__}.play returned a card not in hand")
            freq[rows, labels] += 1.0 / len(levels)
        bad = _scatter(g.nodes, g.types.astype(np.int64), freq, tree.child_start,
                       tree.n_children, tree.action, tree.player, tree.entry_start,
                       tree.entry_count, tree.entry_type, strategy)
        if bad:
            raise ValueError(f"{type(policy).__name__}.{method} took an action the rules do not "
                             f"allow at {bad} information sets (kind {g.kind}, slot {g.slot})")
    return strategy


@dataclass(frozen=True)
class Exploitability:
    """How much a policy loses against a best response, in points per deal.

    ``loss_non_dealer`` = equilibrium value of the seat minus what the policy
    keeps there against a best response; the same for the dealer;
    ``exploitability`` is their mean (half the NashConv).
    """

    policy: str
    self_play_value: float
    best_response_non_dealer: float
    best_response_dealer: float
    loss_non_dealer: float
    loss_dealer: float
    exploitability: float


def policy_exploitability(solved, policy, noise_levels: int = 20) -> Exploitability:
    """Exploitability of ``policy`` on a solved deal (``solutions.solved_deal``)."""
    tree = solved.deal.tree
    strategy = policy_strategy(solved.deal, policy, noise_levels)
    br_nd = evaluate(tree, strategy, 0, best_response=True)
    br_d = evaluate(tree, strategy, 1, best_response=True)
    v = solved.value
    loss_nd = v + br_d  # the policy as non-dealer keeps -br_d
    loss_d = -v + br_nd  # as dealer it keeps -br_nd
    return Exploitability(
        policy=repr(policy), self_play_value=evaluate(tree, strategy, 0),
        best_response_non_dealer=br_nd, best_response_dealer=br_d,
        loss_non_dealer=loss_nd, loss_dealer=loss_d, exploitability=0.5 * (br_nd + br_d))
