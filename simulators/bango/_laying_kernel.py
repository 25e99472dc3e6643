"""Compiled kernel of the Bango laying solver (BG-6, BG-8); see :mod:`.laying`.

Per row, with ``h[v, c]`` the coloured cards of value ``v`` and colour ``c``
held and ``H[v]`` their sum:

1. *Slot options.* An opened slot ``[lo, hi]`` may grow to any ``[a, b]``
   whose new values are all held (``H >= 1``); a free slot may stay free or
   open any interval of 2+ held values. Each option is the bitmask ``N`` of
   the values it adds.
2. *Structures.* One option per slot; free slots are interchangeable, so
   their options are taken in non-increasing index order ("stay free" is
   index 0, which also keeps new sequences in the first free slots). The
   demand per value (how many slots add it) must not exceed ``H``; the values
   left over (``H`` above demand) go to the personal discard, and compliance
   (BG-6) is a bitmask test on them and on the slots' final ends. The
   structure fixes the cards placed ``P``; the objective is
   ``2 P + sum of colour bonuses after`` (BG-8; the gain subtracts the hand
   size and the bonuses before). An upper bound replaces each slot's bonus
   by its largest possible colour count.
3. *Colours.* Structures are visited by decreasing bound (fewer sequences
   opened first on equal bounds) until the bound cannot beat the best found;
   each one's colour assignment (one held card per (slot, new value), copies
   limited by ``h``) is solved exactly by depth-first branch and bound over
   the values, the bound being, per slot, the exact bonus once the slot is
   complete, else its current colour count plus the values still to come
   that can take that colour, maximised over colours.

All functions are plain numba-compilable Python, jitted by
:func:`simulators.bango.laying._kernels` (``cache=True``).
"""

from __future__ import annotations

import numpy as np

from simulators.core.bits import popcount32

N_VALUES = 11
N_COLOURS = 4
N_SLOTS = 3
FULL = (1 << N_VALUES) - 1
MAX_OPTIONS = 1 + N_VALUES * (N_VALUES - 1) // 2  # stay free + every interval of 2+ values
MAX_TUPLES = N_COLOURS ** N_SLOTS


def _k_bonus(cnt, s):
    """BG-8 colour bonus of slot ``s``: the largest count held by exactly one colour."""
    best = 0
    for a in range(N_COLOURS):
        x = cnt[s, a]
        if x > best:
            unique = True
            for b in range(N_COLOURS):
                if b != a and cnt[s, b] == x:
                    unique = False
            if unique:
                best = x
    return best


def _k_interval(lo, hi):
    """Bitmask of values (bits) lo..hi, 0 if hi < lo."""
    if hi < lo:
        return 0
    return (1 << (hi + 1)) - (1 << lo)


def _k_slot_options(mask, ge1, opt):
    """Fill ``opt`` with the value masks a slot may add; returns how many."""
    n = 0
    if mask == 0:
        opt[0] = 0
        n = 1
        for x in range(N_VALUES):
            for y in range(x + 1, N_VALUES):
                iv = _k_interval(x, y)
                if iv & ge1 == iv:
                    opt[n] = iv
                    n += 1
        return n
    lo = 0
    while not (mask >> lo) & 1:
        lo += 1
    hi = N_VALUES - 1
    while not (mask >> hi) & 1:
        hi -= 1
    a_min = lo
    while a_min > 0 and (ge1 >> (a_min - 1)) & 1:
        a_min -= 1
    b_max = hi
    while b_max < N_VALUES - 1 and (ge1 >> (b_max + 1)) & 1:
        b_max += 1
    for a in range(lo, a_min - 1, -1):
        for b in range(hi, b_max + 1):
            opt[n] = _k_interval(a, lo - 1) | _k_interval(hi + 1, b)
            n += 1
    return n


def _k_ends(m):
    """Values just below and just above a non-empty contiguous mask."""
    return ((m << 1) | (m >> 1)) & ~m & FULL


def _k_colour_search(hv, avail, col, added, base, need, cnt, dv, dk, ds, opts, nopt, score,
                     rem, ch, asg):
    """Best colour assignment of the new cells of one structure (branch and bound).

    Returns the best objective ``base + sum of bonuses`` that is >= ``need``
    (writing its colours into ``asg[s, v]``), or -1 if none reaches ``need``.
    """
    n_depth = 0
    for v in range(N_VALUES):
        k = 0
        for s in range(N_SLOTS):
            if (added[s] >> v) & 1:
                ds[n_depth, k] = s
                k += 1
        if k:
            dv[n_depth] = v
            dk[n_depth] = k
            n_depth += 1
    for s in range(N_SLOTS):
        for c in range(N_COLOURS):
            cnt[s, c] = col[s, c] + popcount32(added[s] & avail[c])  # potential, reset below
    # options per depth: colour tuples within the copies held, best potential first
    for d in range(n_depth):
        v, k = dv[d], dk[d]
        n = 0
        for code in range(N_COLOURS ** k):
            x = code
            ok = True
            sc = 0
            for j in range(k):
                c = x % N_COLOURS
                x //= N_COLOURS
                opts[d, n, j] = c
                sc += cnt[ds[d, j], c]
            for c in range(N_COLOURS):
                used = 0
                for j in range(k):
                    if opts[d, n, j] == c:
                        used += 1
                if used > hv[v, c]:
                    ok = False
            if ok:
                score[n] = sc
                n += 1
        for i in range(1, n):  # insertion sort, decreasing potential (stable)
            j = i
            while j > 0 and score[j - 1] < score[j]:
                score[j - 1], score[j] = score[j], score[j - 1]
                for t in range(k):
                    opts[d, j - 1, t], opts[d, j, t] = opts[d, j, t], opts[d, j - 1, t]
                j -= 1
        nopt[d] = n
    for s in range(N_SLOTS):
        for c in range(N_COLOURS):
            rem[n_depth, s, c] = 0
            cnt[s, c] = col[s, c]
    for d in range(n_depth - 1, -1, -1):
        for s in range(N_SLOTS):
            for c in range(N_COLOURS):
                rem[d, s, c] = rem[d + 1, s, c]
        for j in range(dk[d]):
            s = ds[d, j]
            for c in range(N_COLOURS):
                if hv[dv[d], c] > 0:
                    rem[d, s, c] += 1
    best = -1
    if n_depth == 0:
        val = base
        for s in range(N_SLOTS):
            val += _k_bonus(cnt, s)
        return val if val >= need else -1
    d = 0
    ch[0] = -1
    while d >= 0:
        if ch[d] >= 0:
            for j in range(dk[d]):
                cnt[ds[d, j], opts[d, ch[d], j]] -= 1
        ch[d] += 1
        if ch[d] >= nopt[d]:
            d -= 1
            continue
        for j in range(dk[d]):
            cnt[ds[d, j], opts[d, ch[d], j]] += 1
        bound = base
        for s in range(N_SLOTS):
            open_cells = 0
            top = 0
            for c in range(N_COLOURS):
                open_cells += rem[d + 1, s, c]
                if cnt[s, c] + rem[d + 1, s, c] > top:
                    top = cnt[s, c] + rem[d + 1, s, c]
            bound += top if open_cells else _k_bonus(cnt, s)
        if bound < need:
            continue
        if d + 1 < n_depth:
            d += 1
            ch[d] = -1
            continue
        best = bound  # complete: the bound is the exact objective
        need = best + 1
        for dd in range(n_depth):
            for j in range(dk[dd]):
                asg[ds[dd, j], dv[dd]] = opts[dd, ch[dd], j]
    return best


def _k_order(key, n, order):
    """``order[:n]``: indices of ``key[:n]`` by increasing key, stable."""
    if n > 32:
        order[:n] = np.argsort(key[:n], kind="mergesort")
        return
    for i in range(n):
        j = i
        while j > 0 and key[order[j - 1]] > key[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


def _k_tally(hand, hv, avail):
    """Fill ``hv[v, c]`` and ``avail[c]`` from a hand; returns (ge1, ge2, ge3, ge4, total).

    ``geN`` is the mask of values held at least N times (coloured cards).
    """
    ge1 = ge2 = ge3 = ge4 = 0
    total = 0
    for c in range(N_COLOURS):
        avail[c] = 0
    for k in range(N_COLOURS * N_VALUES + N_VALUES):
        total += np.int64(hand[k])
    for v in range(N_VALUES):
        h = 0
        for c in range(N_COLOURS):
            hv[v, c] = hand[c * N_VALUES + v]
            h += hv[v, c]
            if hv[v, c] > 0:
                avail[c] |= 1 << v
        if h >= 1:
            ge1 |= 1 << v
        if h >= 2:
            ge2 |= 1 << v
        if h >= 3:
            ge3 |= 1 << v
        if h >= 4:
            ge4 |= 1 << v
    return ge1, ge2, ge3, ge4, total


def _k_options_and_bounds(mask, col, ge1, avail, opt, n_opt, ub):
    """Each slot's options (``opt``, ``n_opt``) and the upper bound of its bonus (``ub``)."""
    for s in range(N_SLOTS):
        if mask[s] == 0 and s > 0 and mask[s - 1] == 0:  # free slots share their options
            n_opt[s] = n_opt[s - 1]
            for o in range(n_opt[s]):
                opt[s, o] = opt[s - 1, o]
        else:
            n_opt[s] = _k_slot_options(mask[s], ge1, opt[s])
        for o in range(n_opt[s]):
            extra = opt[s, o]
            if extra == 0:
                ub[s, o] = _k_bonus(col, s)
            else:
                top = 0
                for c in range(N_COLOURS):
                    x = col[s, c] + popcount32(extra & avail[c])
                    if x > top:
                        top = x
                ub[s, o] = top


def _k_structures(mask, free_discard, n_open, ge1, ge2, ge3, ge4, opt, n_opt, ub, cand_key,
                  cand_opt):
    """The structures that obey BG-6, keyed by bound (best first); returns how many."""
    n_cand = 0
    for o0 in range(n_opt[0]):
        a0 = opt[0, o0]
        m0 = mask[0] | a0
        top1 = n_opt[1] if mask[1] or mask[0] else o0 + 1
        for o1 in range(top1):
            a1 = opt[1, o1]
            m1 = mask[1] | a1
            if a0 & a1 & ~ge2:
                continue
            top2 = n_opt[2] if mask[2] or mask[1] else o1 + 1
            for o2 in range(top2):
                a2 = opt[2, o2]
                m2 = mask[2] | a2
                u1 = a0 | a1 | a2
                u2 = (a0 & a1) | (a0 & a2) | (a1 & a2)
                u3 = a0 & a1 & a2
                if u2 & ~ge2 or u3 & ~ge3:
                    continue
                n_after = int(m0 != 0) + int(m1 != 0) + int(m2 != 0)
                if not free_discard:
                    left = (ge1 & ~u1) | (ge2 & ~u2) | (ge3 & ~u3) | ge4
                    ends = 0
                    if m0:
                        ends |= _k_ends(m0)
                    if m1:
                        ends |= _k_ends(m1)
                    if m2:
                        ends |= _k_ends(m2)
                    if left & ends:
                        continue
                    if n_after < N_SLOTS and left & (left >> 1):
                        continue
                    # BG-6: nothing left fits an end; no two left values open a sequence
                n_placed = popcount32(a0) + popcount32(a1) + popcount32(a2)
                bound = 2 * n_placed + ub[0, o0] + ub[1, o1] + ub[2, o2]
                cand_key[n_cand] = -(bound * 4 + (N_SLOTS - (n_after - n_open)))
                cand_opt[n_cand, 0] = o0
                cand_opt[n_cand, 1] = o1
                cand_opt[n_cand, 2] = o2
                n_cand += 1
    return n_cand


def _k_solve_row(hand, mask, col, free_discard, placed, work_i, work_asg, opt, cand_key,
                 cand_opt, order, hv, avail, n_opt, ub, added, cnt, dv, dk, ds, opts, nopt,
                 score, rem, ch):
    """Best lay of one row; fills ``placed`` and ``work_i`` = (gain, discards, opened)."""
    ge1, ge2, ge3, ge4, total = _k_tally(hand, hv, avail)
    n_open = 0
    bonus_before = 0
    for s in range(N_SLOTS):
        if mask[s]:
            n_open += 1
        bonus_before += _k_bonus(col, s)
    _k_options_and_bounds(mask, col, ge1, avail, opt, n_opt, ub)
    n_cand = _k_structures(mask, free_discard, n_open, ge1, ge2, ge3, ge4, opt, n_opt, ub,
                           cand_key, cand_opt)
    _k_order(cand_key, n_cand, order)
    best = -1
    best_opened = N_SLOTS + 1
    best_placed = 0
    for i in order[:n_cand]:
        key = -cand_key[i]
        bound = key // 4
        opened = N_SLOTS - key % 4
        if bound < best or (bound == best and opened >= best_opened):
            break
        n_placed = 0
        for s in range(N_SLOTS):
            added[s] = opt[s, cand_opt[i, s]]
            n_placed += popcount32(added[s])
        need = best if opened < best_opened else best + 1
        val = _k_colour_search(hv, avail, col, added, 2 * n_placed, need, cnt, dv, dk, ds,
                               opts, nopt, score, rem, ch, work_asg)
        if val >= need:
            best = val
            best_opened = opened
            best_placed = n_placed
            for s in range(N_SLOTS):
                for v in range(N_VALUES):
                    placed[s, v] = -1
                    if (added[s] >> v) & 1:
                        placed[s, v] = work_asg[s, v] * N_VALUES + v
    work_i[0] = best - total - bonus_before
    work_i[1] = total - best_placed
    work_i[2] = best_opened


def _k_solve_batch(hands, seq_mask, seq_colours, free_discard, placed, gain, discards, opened):
    """Fill the outputs of every row (see :func:`simulators.bango.laying.best_lays`)."""
    opt = np.zeros((N_SLOTS, MAX_OPTIONS), np.int64)
    cap = MAX_OPTIONS ** N_SLOTS
    cand_key = np.empty(cap, np.int64)
    cand_opt = np.empty((cap, N_SLOTS), np.int64)
    order = np.empty(cap, np.int64)
    hv = np.zeros((N_VALUES, N_COLOURS), np.int64)
    avail = np.zeros(N_COLOURS, np.int64)
    n_opt = np.zeros(N_SLOTS, np.int64)
    ub = np.zeros((N_SLOTS, MAX_OPTIONS), np.int64)
    added = np.zeros(N_SLOTS, np.int64)
    cnt = np.zeros((N_SLOTS, N_COLOURS), np.int64)
    col = np.zeros((N_SLOTS, N_COLOURS), np.int64)
    mask = np.zeros(N_SLOTS, np.int64)
    dv = np.zeros(N_VALUES, np.int64)
    dk = np.zeros(N_VALUES, np.int64)
    ds = np.zeros((N_VALUES, N_SLOTS), np.int64)
    opts = np.zeros((N_VALUES, MAX_TUPLES, N_SLOTS), np.int64)
    nopt = np.zeros(N_VALUES, np.int64)
    score = np.zeros(MAX_TUPLES, np.int64)
    rem = np.zeros((N_VALUES + 1, N_SLOTS, N_COLOURS), np.int64)
    ch = np.zeros(N_VALUES, np.int64)
    asg = np.zeros((N_SLOTS, N_VALUES), np.int64)
    work_i = np.zeros(3, np.int64)
    for r in range(hands.shape[0]):
        for s in range(N_SLOTS):
            mask[s] = seq_mask[r, s]
            for c in range(N_COLOURS):
                col[s, c] = seq_colours[r, s, c]
        _k_solve_row(hands[r], mask, col, free_discard, placed[r], work_i, asg, opt, cand_key,
                     cand_opt, order, hv, avail, n_opt, ub, added, cnt, dv, dk, ds, opts, nopt,
                     score, rem, ch)
        gain[r] = work_i[0]
        discards[r] = work_i[1]
        opened[r] = work_i[2]


KERNEL_NAMES = ("popcount32", "_k_bonus", "_k_interval", "_k_slot_options", "_k_ends",
                "_k_colour_search", "_k_order", "_k_tally", "_k_options_and_bounds",
                "_k_structures", "_k_solve_row", "_k_solve_batch")
