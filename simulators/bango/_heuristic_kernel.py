"""Compiled decisions of the Bango heuristic (see ``policies.HeuristicPolicy``).

The heuristic's numpy methods (``policies.py``) state each rule over the
batch; the profile showed their glue (value masks, per-value counts, fit
tests, one temporary after another) was most of a drawing step. These
kernels take the same observation arrays and return the same actions, one
row at a time: the tests compare both paths on every decision of real
batches. Plain numba-compilable Python, jitted by :func:`kernels`
(``cache=True``); kind ``k`` has value ``k % 11 + 1`` and colour ``k // 11``
(4: black), as in :mod:`simulators.bango.rules`.
"""

from __future__ import annotations

import sys

import numpy as np

from simulators.core.bits import popcount32
from simulators.core.jit import jit_once

N_VALUES = 11
N_COLOURS = 4
N_COLOURED_KINDS = N_COLOURS * N_VALUES
N_SLOTS = 3
COPIES_PER_VALUE = 9  # 4 colours x 2 copies + 1 black (BG-1)
FULL = (1 << N_VALUES) - 1
# VALUE_BIT_OF[k]: the bit of kind k's value (a table: an integer % costs more than the rest)
VALUE_BIT_OF = np.left_shift(1, np.arange(N_COLOURED_KINDS + N_VALUES) % N_VALUES)


def _k_fit_values(hand, seq_mask, n_open):
    """The value bitmask that fits one player's game (as ``policies.fit_values``)."""
    ends = 0
    for s in range(N_SLOTS):
        m = np.int64(seq_mask[s])
        if m != 0:
            ends |= ((m << 1) | (m >> 1)) & ~m & FULL
    held = 0
    for c in range(N_COLOURS):
        for v in range(N_VALUES):
            if hand[c * N_VALUES + v] > 0:
                held |= 1 << v
    neighbours = ((held << 1) | (held >> 1)) & FULL if n_open < N_SLOTS else 0
    return (ends | neighbours) & ~held


def _k_fits(fit, kind):
    """Whether a kind (-1: none; blacks never) fits the mask ``fit``."""
    return 0 <= kind < N_COLOURED_KINDS and fit & VALUE_BIT_OF[kind] != 0


def _k_held_kind(hand, v):
    """A held card of value index ``v`` (black first, then the highest colour), or -1."""
    for c in range(N_COLOURS, -1, -1):
        if hand[c * N_VALUES + v] > 0:
            return c * N_VALUES + v
    return -1


def _k_dead_kind(hand, v):
    """A held card of value index ``v`` worth shedding (black, or one of a double), or -1."""
    if hand[N_COLOURS * N_VALUES + v] > 0:
        return N_COLOURS * N_VALUES + v
    coloured = 0
    for c in range(N_COLOURS):
        coloured += hand[c * N_VALUES + v]
    if coloured < 2:
        return -1
    for c in range(N_COLOURS - 1, -1, -1):
        if hand[c * N_VALUES + v] > 0:
            return c * N_VALUES + v
    return -1


def _k_value_index(kind):
    """Value index (value - 1) of a kind, with numpy's wrap-around for negative indices."""
    return kind % N_VALUES if kind >= 0 else (kind + N_COLOURED_KINDS + N_VALUES) % N_VALUES


def _k_draw_on(seat, hand, public, centre, seq_mask, n_open, stop_threshold, enough, out):
    """HeuristicPolicy.draw_on per row: risk at most the threshold and too few fitting cards."""
    for i in range(hand.shape[0]):
        p = seat[i]
        fit = _k_fit_values(hand[i], seq_mask[i, p], n_open[i, p])
        in_centre = 0
        fitting = 0
        for j in range(centre.shape[1]):
            k = centre[i, j]
            if k >= 0:
                in_centre |= VALUE_BIT_OF[k]
                fitting += _k_fits(fit, k)
        hit = 0
        total = 0
        for v in range(N_VALUES):
            seen = 0
            for c in range(N_COLOURS + 1):
                seen += hand[i, c * N_VALUES + v] + public[i, c * N_VALUES + v]
            here = (in_centre >> v) & 1
            unseen = COPIES_PER_VALUE - seen - here
            total += unseen
            hit += unseen * here
        risk = hit / total if total > 0 else 0.0
        out[i] = risk <= stop_threshold and fitting < enough


def _k_bango(seat, hand, revealed, exploded, seq_mask, n_open, shed, cancel, out):
    """HeuristicPolicy.bango per row: cancel an explosion, or shed a dead card."""
    for i in range(hand.shape[0]):
        v = _k_value_index(revealed[i])
        if exploded[i]:
            out[i] = _k_held_kind(hand[i], v) if cancel else -1
            continue
        p = seat[i]
        fit = _k_fit_values(hand[i], seq_mask[i, p], n_open[i, p])
        out[i] = _k_dead_kind(hand[i], v) if shed and not _k_fits(fit, revealed[i]) else -1


def _k_take(seat, hand, centre, seq_mask, n_open, out):
    """HeuristicPolicy.take per row: the centre cards that fit, else the first coloured one."""
    for i in range(hand.shape[0]):
        p = seat[i]
        fit = _k_fit_values(hand[i], seq_mask[i, p], n_open[i, p])
        mask = 0
        fallback = -1
        for j in range(centre.shape[1]):
            k = centre[i, j]
            if _k_fits(fit, k):
                mask |= 1 << j
            if fallback < 0 and 0 <= k < N_COLOURED_KINDS:
                fallback = j
        out[i] = mask if mask != 0 else 1 << max(fallback, 0)


def _k_spoil(seat, hand, centre, seq_mask, n_open, shed, pos_out, use_out):
    """HeuristicPolicy.spoil per row: a card that fits, else one a dead card destroys."""
    for i in range(hand.shape[0]):
        p = seat[i]
        fit = _k_fit_values(hand[i], seq_mask[i, p], n_open[i, p])
        dead = 0
        for v in range(N_VALUES):
            coloured = 0
            for c in range(N_COLOURS):
                coloured += hand[i, c * N_VALUES + v]
            if hand[i, N_COLOURED_KINDS + v] > 0 or coloured >= 2:
                dead |= 1 << v
        first_fit = -1
        first_kill = -1
        for j in range(centre.shape[1]):
            k = centre[i, j]
            if first_fit < 0 and _k_fits(fit, k):
                first_fit = j
            if first_kill < 0 and k >= 0 and dead & VALUE_BIT_OF[k]:
                first_kill = j
        use = -1
        if first_fit >= 0:
            pos = first_fit
        elif first_kill >= 0:
            pos = first_kill
            if shed:
                use = _k_dead_kind(hand[i], _k_value_index(centre[i, pos]))
        else:
            pos = 0
        pos_out[i] = pos
        use_out[i] = use


def _k_destroy(seat, hand, centre, position, seq_mask, n_open, shed, out):
    """HeuristicPolicy.destroy per row: a dead card on the asked card when it does not fit."""
    for i in range(hand.shape[0]):
        p = seat[i]
        target = centre[i, position[i]]
        fit = _k_fit_values(hand[i], seq_mask[i, p], n_open[i, p])
        unwanted = shed and not _k_fits(fit, target)
        out[i] = _k_dead_kind(hand[i], _k_value_index(target)) if unwanted else -1


def _k_grow(seed, allowed):
    """The maximal run containing ``seed`` that only adds values of ``allowed``."""
    x = seed
    for _ in range(N_VALUES):
        x |= ((x << 1) | (x >> 1)) & allowed & FULL
    return x


def _k_longest_run(allowed):
    """The longest run of consecutive values in ``allowed`` (the lowest among equals)."""
    if allowed == 0:
        return 0
    length_ok = allowed
    starts = allowed
    for _ in range(N_VALUES - 1):  # starts of runs one longer, while any remain
        length_ok &= length_ok >> 1
        if length_ok == 0:
            break
        starts = length_ok
    return _k_grow(starts & -starts, allowed) & allowed


def _k_placeable(seat, hand, seq_mask, n_open, out):
    """``policies.placeable`` per row: cards a greedy lay places (extend, then open runs)."""
    for i in range(hand.shape[0]):
        allowed = 0
        for c in range(N_COLOURS):
            for v in range(N_VALUES):
                if hand[i, c * N_VALUES + v] > 0:
                    allowed |= 1 << v
        p = seat[i]
        count = 0
        for s in range(N_SLOTS):
            m = np.int64(seq_mask[i, p, s])
            if m != 0:
                new = _k_grow(m, allowed) & ~m
                count += popcount32(new)
                allowed &= ~new
        opened = np.int64(n_open[i, p])
        for _ in range(N_SLOTS):
            run = _k_longest_run(allowed)
            length = popcount32(run)
            if opened < N_SLOTS and length >= 2:
                count += length
                allowed &= ~run
                opened += 1
        out[i] = count


KERNEL_NAMES = ("_k_fit_values", "_k_fits", "_k_held_kind", "_k_dead_kind", "_k_value_index",
                "_k_draw_on", "_k_bango", "_k_take", "_k_spoil", "_k_destroy", "popcount32",
                "_k_grow", "_k_longest_run", "_k_placeable")  # callees first


def _kernels():
    """This module with its kernels jitted once per process (numba, ``cache=True``)."""
    jit_once(globals(), KERNEL_NAMES)
    return sys.modules[__name__]


# ---------------------------------------------------------------------------
# The heuristic's decisions over a batch observation (same actions as numpy)
# ---------------------------------------------------------------------------


def draw_on(policy, obs) -> np.ndarray:
    """(N,) bool: ``policy.draw_on(obs)`` of the numpy heuristic."""
    out = np.empty(len(obs.seat), dtype=np.bool_)
    _kernels()._k_draw_on(obs.seat, obs.hand, obs.public, obs.centre, obs.seq_mask, obs.n_open,
                          float(policy.stop_threshold), int(policy.enough), out)
    return out


def bango(policy, obs) -> np.ndarray:
    """(N,) int8: ``policy.bango(obs)`` of the numpy heuristic."""
    out = np.empty(len(obs.seat), dtype=np.int8)
    _kernels()._k_bango(obs.seat, obs.hand, obs.revealed, obs.exploded, obs.seq_mask,
                        obs.n_open, bool(policy.shed), bool(policy.cancel), out)
    return out


def take(policy, obs) -> np.ndarray:
    """(N,) uint16: ``policy.take(obs)`` of the numpy heuristic."""
    out = np.empty(len(obs.seat), dtype=np.uint16)
    _kernels()._k_take(obs.seat, obs.hand, obs.centre, obs.seq_mask, obs.n_open, out)
    return out


def spoil(policy, obs) -> tuple[np.ndarray, np.ndarray]:
    """``(position, hand_kind)``: ``policy.spoil(obs)`` of the numpy heuristic."""
    pos = np.empty(len(obs.seat), dtype=np.int8)
    use = np.empty(len(obs.seat), dtype=np.int8)
    _kernels()._k_spoil(obs.seat, obs.hand, obs.centre, obs.seq_mask, obs.n_open,
                        bool(policy.shed), pos, use)
    return pos, use


def destroy(policy, obs) -> np.ndarray:
    """(N,) int8: ``policy.destroy(obs)`` of the numpy heuristic."""
    out = np.empty(len(obs.seat), dtype=np.int8)
    _kernels()._k_destroy(obs.seat, obs.hand, obs.centre, obs.position, obs.seq_mask,
                          obs.n_open, bool(policy.shed), out)
    return out


def placeable(obs) -> np.ndarray:
    """(N,) int32: ``policies.placeable(obs)``."""
    out = np.empty(len(obs.seat), dtype=np.int32)
    _kernels()._k_placeable(obs.seat, obs.hand, obs.seq_mask, obs.n_open, out)
    return out


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernels; seconds spent."""
    import time

    from simulators.bango.observations import situation
    from simulators.bango.policies import HeuristicPolicy

    start = time.perf_counter()
    obs = situation("3B 4B 7R 7R", "5V 9K", ["5B 6B"], n_players=3)
    policy = HeuristicPolicy()
    draw_on(policy, obs), bango(policy, obs), take(policy, obs), spoil(policy, obs)
    destroy(policy, obs._replace(position=np.zeros(1, np.int8)))
    placeable(obs)
    return time.perf_counter() - start

