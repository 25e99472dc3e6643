"""Compiled kernel of the Bango nets' common features (:func:`.learn.common_features`).

One pass per row writes the 378 numbers the numpy definition
(:func:`simulators.bango.learn.common_features_by_numpy`) writes, bit for bit: each block
in the same order, integers counted exactly, and every float computed in the type numpy
computes it in (``float32`` where numpy divides a ``float32`` array, ``float64`` where it
divides integers, then rounded to ``float32`` once). The learned player asks for features
on small batches (about 200 rows), where the numpy version's forty calls, not its
arithmetic, are the cost.

All functions are plain numba-compilable Python, jitted by
:func:`simulators.bango.learn._features_kernel` (``cache=True``).
"""

from __future__ import annotations

import numpy as np

N_VALUES = 11
N_COLOURS = 4
N_GROUPS = N_COLOURS + 1  # the colours, then black
BASE = N_VALUES + 1  # a colour's count in a sequence, 0..11: the bonus table's digits
N_KINDS = N_VALUES * N_GROUPS
N_COLOURED = N_COLOURS * N_VALUES
N_SLOTS = 3
MAX_PLAYERS = 5
FULL = (1 << N_VALUES) - 1
MAX_SEQUENCES = 3
PLAYER_COUNTS = (2, 3, 4, 5)


def _ends(m):
    """The values next to an open sequence's value mask (none for an empty one)."""
    if m == 0:
        return 0
    return ((m << 1) | (m >> 1)) & ~m & FULL


def _write_bits(out, i, o, mask):
    for bit in range(N_VALUES):
        out[i, o + bit] = np.float32((mask >> bit) & 1)
    return o + N_VALUES


def _count_row(hand, centre, public, taken, copies, i, in_centre_kind, hidden, held,
               hidden_by_value, value_in_centre, coloured_in_centre, by_value):
    """Row ``i``'s counts into the scratch arrays (the centre's cards by kind and by value
    and colour, the unseen cards, the held ones per value); his coloured values' mask and
    his dead values' mask (a held black, or two coloured cards)."""
    in_centre_kind[:] = 0
    by_value[:, :] = 0
    value_in_centre[:] = 0
    coloured_in_centre[:] = 0
    for j in range(centre.shape[1]):
        k = np.int64(centre[i, j])
        if k >= 0:
            in_centre_kind[k] += 1
            value, group = k % N_VALUES, k // N_VALUES
            by_value[value, group] = 1
            value_in_centre[value] = 1
            if group < N_COLOURS:
                coloured_in_centre[value] = 1
    held_mask, dead = 0, 0
    for v in range(N_VALUES):
        held[v] = 0
        hidden_by_value[v] = 0
        coloured = 0
        for g in range(N_GROUPS):
            k = g * N_VALUES + v
            h = np.int64(hand[i, k])
            hidden[k] = copies[k] - h - np.int64(public[i, k]) - in_centre_kind[k] \
                - np.int64(taken[i, k])
            held[v] += h
            hidden_by_value[v] += hidden[k]
            if g < N_COLOURS:
                coloured += h
        if coloured > 0:
            held_mask |= 1 << v
        if coloured >= 2 or np.int64(hand[i, N_COLOURED + v]) > 0:
            dead |= 1 << v
    return held_mask, dead


def _write_summary(out, i, o, hand, centre, centre_len, seq_mask, seq_colours, n_open,
                   stock_left, n_players, free_discard, bonus_table, fit, hidden_by_value,
                   value_in_centre):
    """Row ``i``'s last numbers from ``o``: the centre's length, the stock, the free discard,
    the explosion risk, the centre's fitting cards, the chance the next card fits, his hand
    size, his board's BG-8 points, his open sequences, then the player count (one-hot)."""
    total, exploding, fitting_unseen, size = 0, 0, 0, 0
    for v in range(N_VALUES):
        total += hidden_by_value[v]
        exploding += hidden_by_value[v] * value_in_centre[v]
        if (fit >> v) & 1 and value_in_centre[v] == 0:
            fitting_unseen += hidden_by_value[v]
    fitting = 0  # the centre's cards that fit (blacks never do)
    for j in range(centre.shape[1]):
        k = np.int64(centre[i, j])
        if 0 <= k < N_COLOURED and (fit >> (k % N_VALUES)) & 1:
            fitting += 1
    for k in range(N_KINDS):
        size += np.int64(hand[i, k])
    board = 0  # his sequences' BG-8 points
    for s in range(N_SLOTS):
        m = np.int64(seq_mask[i, 0, s])
        while m:
            board += m & 1
            m >>= 1
        index = 0
        for c in range(N_COLOURS):
            index = index * BASE + np.int64(seq_colours[i, 0, s, c])
        board += bonus_table[index]
    out[i, o] = np.float32(centre_len[i]) / np.float32(12.0)
    out[i, o + 1] = np.float32(stock_left[i]) / np.float32(99.0)
    out[i, o + 2] = np.float32(free_discard[i])
    out[i, o + 3] = np.float32(exploding / max(total, 1)) if total > 0 else np.float32(0.0)
    out[i, o + 4] = np.float32(fitting / 12.0)
    out[i, o + 5] = np.float32(fitting_unseen / max(total, 1))
    out[i, o + 6] = np.float32(size) / np.float32(20.0)
    out[i, o + 7] = np.float32(board) / np.float32(30.0)
    out[i, o + 8] = np.float32(n_open[i, 0]) / np.float32(3.0)
    o += 9
    for p in range(len(PLAYER_COUNTS)):
        out[i, o + p] = np.float32(n_players[i] == PLAYER_COUNTS[p])


def _k_common_features(hand, centre, centre_len, public, taken, seq_mask, seq_colours, n_open,
                       hand_sizes, known_sizes, stock_left, n_players, free_discard, copies,
                       bonus_table, out):
    """``out[i]``: row ``i``'s common features (integer inputs of any width, read as int64;
    ``free_discard`` bool)."""
    n_rows = hand.shape[0]
    in_centre_kind = np.zeros(N_KINDS, np.int64)
    hidden = np.zeros(N_KINDS, np.int64)
    held = np.zeros(N_VALUES, np.int64)
    hidden_by_value = np.zeros(N_VALUES, np.int64)
    value_in_centre = np.zeros(N_VALUES, np.int64)
    coloured_in_centre = np.zeros(N_VALUES, np.int64)
    by_value = np.zeros((N_VALUES, N_GROUPS), np.int64)
    two = np.float32(2.0)
    for i in range(n_rows):
        held_mask, dead = _count_row(hand, centre, public, taken, copies, i, in_centre_kind,
                                     hidden, held, hidden_by_value, value_in_centre,
                                     coloured_in_centre, by_value)
        own_ends = 0
        for s in range(N_SLOTS):
            own_ends |= _ends(np.int64(seq_mask[i, 0, s]))
        neighbours = 0
        if np.int64(n_open[i, 0]) < MAX_SEQUENCES:
            neighbours = ((held_mask << 1) | (held_mask >> 1)) & FULL
        fit = (own_ends | neighbours) & ~held_mask & FULL
        others_ends = 0
        for r in range(1, MAX_PLAYERS):
            for s in range(N_SLOTS):
                others_ends |= _ends(np.int64(seq_mask[i, r, s]))
        o = 0
        for k in range(N_KINDS):
            out[i, o + k] = np.float32(hand[i, k]) / two
        o += N_KINDS
        for k in range(N_KINDS):
            out[i, o + k] = np.float32(hidden[k]) / two
        o += N_KINDS
        for k in range(N_KINDS):
            out[i, o + k] = np.float32(taken[i, k])
        o += N_KINDS
        for s in range(N_SLOTS):
            o = _write_bits(out, i, o, np.int64(seq_mask[i, 0, s]))
        for s in range(N_SLOTS):
            for c in range(N_COLOURS):
                out[i, o] = np.float32(seq_colours[i, 0, s, c]) / np.float32(11.0)
                o += 1
        o = _write_bits(out, i, o, fit)
        o = _write_bits(out, i, o, dead)
        o = _write_bits(out, i, o, own_ends)
        for v in range(N_VALUES):
            out[i, o + v] = np.float32(held[v] / 2.0)
        o += N_VALUES
        for v in range(N_VALUES):
            out[i, o + v] = np.float32(hidden_by_value[v] / 9.0)
        o += N_VALUES
        for v in range(N_VALUES):
            out[i, o + v] = np.float32(((fit >> v) & 1) * coloured_in_centre[v])
        o += N_VALUES
        for v in range(N_VALUES):
            out[i, o + v] = np.float32(held[v] > 0 and coloured_in_centre[v] > 0)
        o += N_VALUES
        for r in range(1, MAX_PLAYERS):
            out[i, o] = np.float32(n_open[i, r]) / np.float32(3.0)
            o += 1
        for r in range(1, MAX_PLAYERS):
            out[i, o] = np.float32(hand_sizes[i, r]) / np.float32(20.0)
            o += 1
        for r in range(1, MAX_PLAYERS):
            out[i, o] = np.float32(known_sizes[i, r]) / np.float32(10.0)
            o += 1
        o = _write_bits(out, i, o, others_ends)
        for v in range(N_VALUES):
            for g in range(N_GROUPS):
                out[i, o] = np.float32(by_value[v, g])
                o += 1
        _write_summary(out, i, o, hand, centre, centre_len, seq_mask, seq_colours, n_open,
                       stock_left, n_players, free_discard, bonus_table, fit, hidden_by_value,
                       value_in_centre)


KERNEL_NAMES = ("_ends", "_write_bits", "_count_row", "_write_summary",
                "_k_common_features")
