"""Five Crowns meld solver (FC-4, FC-5): exact least penalty, best discard, an arrangement.

A hand is a count vector over the 56 canonical kinds of :mod:`.rules` (0..54
suited, 55 joker). Every function is exact: it returns the minimum over all
arrangements of the hand into books, runs and unmelded cards.

API
---
``min_penalty(hands, wild)``  (N,) int32 least penalty of each hand.
``best_discard(hands, wild)`` (penalty, kind): the best single-card removal.
``can_go_out(hands, wild)``   (N,) bool, all cards meld (penalty 0).
``arrangement(hand, wild)``   one optimal ``(melds, unmelded)`` of one hand.
``warm_up()``                 compiles the kernels and builds the tables (seconds).

Algorithm
---------
*Wilds.* A card of the wild rank may stand for itself, so treating every
wild-rank card as a wild loses nothing: the naturals are the other suited
cards. If a non-empty set S of naturals can be laid in melds with m wilds, it
can with any number of wilds >= m: three spare wilds form their own meld, one
or two join a book, extend a run shorter than 11, or extend the two halves of
an 11-card run cut in two (3..7 + the 8, and the 8 + 8..K). So the penalty is
``pen(naturals) - V`` where V is the largest value of a set of naturals that
melds with at most W wilds (W = wilds held), except when V = 0 and W is 1 or
2: those wilds then stay in hand (2 wilds alone score 40/70/100).

*Books and runs.* A book holding one natural costs 2 wilds, like a 3-run
around it, so only books of 0 or >= 2 naturals of each rank are enumerated
(a 2-natural book costs 1 wild, 3+ cost none). The naturals left for runs
split by suit; for a suit's count vector v (0..2 per rank, 3^11 vectors) a
table gives ``RUNCOST[v]``, the fewest wilds laying all of v in runs (a
left-to-right DP over the open runs' ages; by an exchange argument two runs
through one rank always suffice), and ``BEST[v, k]``, the largest value of a
sub-vector laid in runs with at most k wilds. Per hand the solver enumerates
the book choices of the ranks holding 2+ naturals, and for each one combines
the five suits' ``BEST`` rows by a knapsack over the wild budget, pruned by an
upper bound and stopped as soon as every natural melds.

*Best discard.* Removing natural x leaves ``pen - val(x) - V(N - x)``: the
search maximises ``val(x) + val(S)`` over a melded set S and one free
unmelded natural x, with a second table ``BEST2[v, k] = max_x BEST[v - x, k]
+ val(x)`` (tie-broken towards the highest x) and a knapsack whose state says
whether the free card is used. Removing a wild leaves budget W - 1, read off
the same search. One search per hand, not one per card (except with 1-2
wilds when no meld exists beside the free card: then the wilds' fate depends
on the removal, and one exact solve per held kind decides; rare, small hands).

The kernels are compiled with numba on first use (``cache=True``); importing
this module does not import numba.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Sequence

import numpy as np

from simulators.core.jit import jit_once
from simulators.five_crowns import rules as R

N_VEC = 3 ** R.N_RANKS  # suit count vectors, 0..2 per rank
KB = 16  # wild budgets 0..15 in the tables
MAX_CARDS = 15  # largest hand accepted (a round-11 hand after the draw holds 14)
_NO_DISCARD = -1

# ---------------------------------------------------------------------------
# Kernels: plain functions, jitted lazily by _kernels() (dependency order).
# ---------------------------------------------------------------------------


def _k_runcost_table():
    """RUNCOST[v]: fewest wilds laying every natural of suit vector v in runs.

    Runs are intervals of >= 3 ranks; a run holds at most one natural per rank
    and a wild on every other rank, so the cost is the total length of the
    intervals minus the naturals, and any intervals covering each rank at
    least v[r] times work. The DP scans ranks (K down to 3) with the open runs'
    ages (1, 2, 3+) as state; at most 2 runs ever cover one rank in an optimum
    (3 runs through one rank: merge or drop one, shorter total).
    """
    n_states = 10
    sn1 = np.zeros(n_states, np.int64)
    sn2 = np.zeros(n_states, np.int64)
    sn3 = np.zeros(n_states, np.int64)
    smap = np.full((3, 3, 3), -1, np.int64)
    s = 0
    for a in range(3):
        for b in range(3 - a):
            for c in range(3 - a - b):
                sn1[s] = a
                sn2[s] = b
                sn3[s] = c
                smap[a, b, c] = s
                s += 1
    inf = 1000
    dp = np.full((12, n_states), inf, np.int64)
    dp[0, smap[0, 0, 0]] = 0
    digits = np.zeros(11, np.int64)
    out = np.empty(N_VEC, np.uint8)
    for v in range(N_VEC):
        start = 10
        if v > 0:
            d = 0
            while digits[d] == 2:
                digits[d] = 0
                d += 1
            digits[d] += 1
            start = d
        for r in range(start, -1, -1):
            lev = 10 - r
            vr = digits[r]
            for st in range(n_states):
                dp[lev + 1, st] = inf
            for st in range(n_states):
                c = dp[lev, st]
                if c >= inf:
                    continue
                n1 = sn1[st]
                n2 = sn2[st]
                n3 = sn3[st]
                for j in range(n3 + 1):
                    for t in range(3 - n1 - n2 - j):
                        cov = n1 + n2 + j + t
                        if cov < vr:
                            continue
                        nst = smap[t, n1, n2 + j]
                        nc = c + cov - vr
                        if nc < dp[lev + 1, nst]:
                            dp[lev + 1, nst] = nc
        m = dp[11, smap[0, 0, 0]]
        m = min(m, dp[11, smap[0, 0, 1]])
        m = min(m, dp[11, smap[0, 0, 2]])
        out[v] = m
    return out


def _k_best_tables(runcost):
    """BEST[v, k] (uint8) and BEST2[v, k] (uint16 key ``total * 16 + rank index``).

    BEST: largest value (sum of ranks) of a sub-vector of v laid in runs with
    at most k wilds. BEST2: largest ``BEST[v - x, k] + val(x)`` over one
    natural x of v (the free discard), ties to the highest x; 0 for v = 0.
    """
    best = np.zeros((N_VEC, KB), np.uint8)
    best2 = np.zeros((N_VEC, KB), np.uint16)
    p3 = np.empty(11, np.int64)
    p3[0] = 1
    for r in range(1, 11):
        p3[r] = p3[r - 1] * 3
    digits = np.zeros(11, np.int64)
    for v in range(N_VEC):
        if v > 0:
            d = 0
            while digits[d] == 2:
                digits[d] = 0
                d += 1
            digits[d] += 1
        val = 0
        for r in range(11):
            val += digits[r] * (r + 3)
        rc = runcost[v]
        for k in range(KB):
            m = 0
            m2 = 0
            for r in range(11):
                if digits[r] > 0:
                    x = np.int64(best[v - p3[r], k])
                    if x > m:
                        m = x
                    key = (x + r + 3) * 16 + r
                    if key > m2:
                        m2 = key
            if rc <= k:
                m = val
            best[v, k] = m
            best2[v, k] = m2
    return best, best2


def _k_setup(cnt, wi, p3, base, optd, optv, optc, nopt, bvec):
    """Read one hand: wilds, naturals per suit, book options per rank.

    Returns (status, W, jokers, wild-rank cards, pen(naturals), max natural
    rank, number of book ranks). status 1: impossible counts or too many cards.
    """
    jok = np.int64(cnt[55])
    status = 0
    if jok > 6:
        status = 1
    nwr = 0
    pen = 0
    maxnat = 0
    ncards = jok
    for s in range(5):
        base[s] = 0
    for s in range(5):
        for r in range(11):
            c = np.int64(cnt[11 * s + r])
            if c == 0:
                continue
            if c > 2:
                status = 1
            ncards += c
            if r == wi:
                nwr += c
            else:
                base[s] += c * p3[r]
                pen += c * (r + 3)
                if r + 3 > maxnat:
                    maxnat = r + 3
    if ncards > 15:
        status = 1
    nr = 0
    for r in range(11):
        if r == wi:
            continue
        tot = 0
        for s in range(5):
            tot += np.int64(cnt[11 * s + r])
        if tot < 2:
            continue
        # every book sub-multiset of this rank: 0 or >= 2 naturals
        for s in range(5):
            bvec[s] = 0
        n = 0
        while True:
            sb = 0
            for s in range(5):
                sb += bvec[s]
            if sb != 1:
                for s in range(5):
                    optd[nr, n, s] = bvec[s] * p3[r]
                optv[nr, n] = sb * (r + 3)
                optc[nr, n] = 1 if sb == 2 else 0
                n += 1
            j = 0
            while j < 5:
                if bvec[j] < np.int64(cnt[11 * j + r]):
                    bvec[j] += 1
                    break
                bvec[j] = 0
                j += 1
            if j == 5:
                break
        nopt[nr] = n
        nr += 1
    return status, jok + nwr, jok, nwr, pen, maxnat, nr


def _k_leaf(choice, nr, base, optd, optv, optc, idx, w):
    """Value of the book choice ``choice`` and the wilds left of ``w`` for the runs (capped at
    the tables' largest budget; negative: the books cost more than ``w``); ``idx`` := each
    suit's leftover vector."""
    bv = 0
    bc = 0
    for s in range(5):
        idx[s] = base[s]
    for q in range(nr):
        o = choice[q]
        bv += optv[q, o]
        bc += optc[q, o]
        for s in range(5):
            idx[s] -= optd[q, o, s]
    return bv, min(w - bc, KB - 1)


def _k_next_choice(choice, nopt, nr):
    """Advance ``choice`` (an odometer over the book options); True once every choice was seen."""
    q = 0
    while q < nr:
        choice[q] += 1
        if choice[q] < nopt[q]:
            return False
        choice[q] = 0
        q += 1
    return True


def _k_solve_min(cnt, wi, best, p3, base, optd, optv, optc, nopt, bvec, choice, idx,
                 arr, flat):
    """Least penalty of one hand (count vector ``cnt``, wild rank index ``wi``); -1 if invalid."""
    status, w, jok, nwr, pen, maxnat, nr = _k_setup(cnt, wi, p3, base, optd, optv, optc,
                                                    nopt, bvec)
    if status != 0:
        return -1
    for q in range(nr):
        choice[q] = 0
    best_v = 0
    while True:
        # one leaf: the book choice `choice`
        bv, kk = _k_leaf(choice, nr, base, optd, optv, optc, idx, w)
        if kk >= 0:
            ub = bv
            for s in range(5):
                ub += best[idx[s], kk]
            if ub > best_v:
                if kk == 0:
                    best_v = ub
                else:
                    tot = bv
                    m = 0
                    for s in range(5):
                        i = idx[s]
                        if i == 0:
                            continue
                        b0 = best[i, 0]
                        if b0 == best[i, kk]:
                            tot += b0
                        else:
                            flat[m] = i
                            m += 1
                    if m == 1:
                        tot += best[flat[0], kk]
                    elif m > 1:
                        i0 = flat[0]
                        for k in range(kk + 1):
                            arr[k] = best[i0, k]
                        for q2 in range(1, m - 1):
                            i2 = flat[q2]
                            for k in range(kk, -1, -1):
                                x = arr[k] + best[i2, 0]
                                for j in range(1, k + 1):
                                    y = arr[k - j] + best[i2, j]
                                    if y > x:
                                        x = y
                                arr[k] = x
                        il = flat[m - 1]
                        x = 0
                        for j in range(kk + 1):
                            y = arr[kk - j] + best[il, j]
                            if y > x:
                                x = y
                        tot += x
                    if tot > best_v:
                        best_v = tot
                if best_v == pen:
                    break  # every natural melds
        if _k_next_choice(choice, nopt, nr):
            break
    if best_v > 0 or w >= 3 or w == 0:
        return pen - best_v
    return pen + 20 * nwr + 50 * jok


def _k_scratch():
    """The powers of 3 and the work arrays one solve needs, allocated once per batch."""
    p3 = np.empty(11, np.int64)
    p3[0] = 1
    for r in range(1, 11):
        p3[r] = p3[r - 1] * 3
    base = np.zeros(5, np.int64)
    optd = np.zeros((11, 243, 5), np.int64)
    optv = np.zeros((11, 243), np.int64)
    optc = np.zeros((11, 243), np.int64)
    nopt = np.zeros(11, np.int64)
    bvec = np.zeros(5, np.int64)
    choice = np.zeros(11, np.int64)
    idx = np.zeros(5, np.int64)
    arr = np.zeros(KB, np.int64)
    flat = np.zeros(5, np.int64)
    return p3, base, optd, optv, optc, nopt, bvec, choice, idx, arr, flat


def _k_min_batch(hands, wilds, best, out):
    """min_penalty over a batch; out[i] = -1 flags an invalid hand."""
    p3, base, optd, optv, optc, nopt, bvec, choice, idx, arr, flat = _k_scratch()
    for i in range(hands.shape[0]):
        out[i] = _k_solve_min(hands[i], wilds[i] - 3, best, p3, base, optd, optv, optc, nopt,
                              bvec, choice, idx, arr, flat)


def _k_discard_batch(hands, wilds, best, best2, out_pen, out_kind):
    """best_discard over a batch; out_pen[i] = -1 flags an invalid or empty hand."""
    p3, base, optd, optv, optc, nopt, bvec, choice, idx, arr, flat = _k_scratch()
    a_arr = np.zeros(KB, np.int64)
    f_arr = np.zeros(KB, np.int64)
    cnt = np.zeros(56, np.uint8)
    for i in range(hands.shape[0]):
        for k in range(56):
            cnt[k] = hands[i, k]
        pen_i, kind_i = _k_discard_one(cnt, wilds[i] - 3, best, best2, p3, base, optd, optv,
                                       optc, nopt, bvec, choice, idx, arr, flat, a_arr, f_arr)
        out_pen[i] = pen_i
        out_kind[i] = kind_i


def _k_discard_one(cnt, wi, best, best2, p3, base, optd, optv, optc, nopt, bvec, choice, idx,
                   arr, flat, a_arr, f_arr):
    """(least penalty after one removal, kind removed) for one hand; (-1, -1) if invalid.

    Natural removals: maximise the key ``(val(x) + val(S)) * 128 + rank(x) * 8 + suit(x)``
    over a free natural x and a melded set S. Wild removals: V at budget W - 1.
    Ties: highest own penalty, then highest kind (wilds before naturals).
    """
    status, w, jok, nwr, pen, maxnat, nr = _k_setup(cnt, wi, p3, base, optd, optv, optc,
                                                    nopt, bvec)
    if status != 0 or (w == 0 and maxnat == 0):
        return -1, -1
    for q in range(nr):
        choice[q] = 0
    best_f = -1  # key of the best natural removal
    best_a1 = -1  # largest V with budget W - 1 (wild removal)
    while True:
        bv, kk = _k_leaf(choice, nr, base, optd, optv, optc, idx, w)
        if kk >= 0:
            ub = bv
            ub1 = bv
            for s in range(5):
                ub += best[idx[s], kk]
                if kk >= 1:
                    ub1 += best[idx[s], kk - 1]
            need_f = maxnat > 0 and (ub + maxnat) * 128 + 127 > best_f
            need_a1 = kk >= 1 and ub1 > best_a1
            if need_f or need_a1:
                for k in range(kk + 1):
                    a_arr[k] = 0
                    f_arr[k] = -1
                for s in range(5):
                    i = idx[s]
                    if i == 0:
                        continue
                    for k in range(kk, -1, -1):
                        xa = a_arr[k] + best[i, 0]
                        key2 = np.int64(best2[i, 0])
                        xf = a_arr[k] * 128 + (key2 >> 4) * 128 + (key2 & 15) * 8 + s
                        if f_arr[k] >= 0:
                            y = f_arr[k] + np.int64(best[i, 0]) * 128
                            if y > xf:
                                xf = y
                        for j in range(1, k + 1):
                            bj = np.int64(best[i, j])
                            y = a_arr[k - j] + bj
                            if y > xa:
                                xa = y
                            key2 = np.int64(best2[i, j])
                            y = a_arr[k - j] * 128 + (key2 >> 4) * 128 + (key2 & 15) * 8 + s
                            if y > xf:
                                xf = y
                            if f_arr[k - j] >= 0:
                                y = f_arr[k - j] + bj * 128
                                if y > xf:
                                    xf = y
                        a_arr[k] = xa
                        f_arr[k] = xf
                if kk >= 1 and a_arr[kk - 1] + bv > best_a1:
                    best_a1 = a_arr[kk - 1] + bv
                if f_arr[kk] >= 0 and f_arr[kk] + bv * 128 > best_f:
                    best_f = f_arr[kk] + bv * 128
        if _k_next_choice(choice, nopt, nr):
            break
    big = 1 << 30
    # natural removal
    pen_n = big
    kind_n = -1
    if maxnat > 0:
        total = best_f >> 7
        if (w == 1 or w == 2) and total == maxnat:
            # rare: maybe no meld beside the free card; decide by explicit removals
            return _k_discard_explicit(cnt, wi, best, p3, base, optd, optv, optc, nopt, bvec,
                                       choice, idx, arr, flat)
        pen_n = pen - total
        kind_n = 11 * (best_f & 7) + ((best_f >> 3) & 15)
    # wild removal
    pen_w = big
    kind_w = -1
    if w >= 1:
        v1 = best_a1 if best_a1 > 0 else 0
        if v1 > 0 or w - 1 >= 3 or w - 1 == 0:
            pen_w = pen - v1
        elif jok > 0:
            pen_w = pen + 20 * nwr + 50 * (jok - 1)
        else:
            pen_w = pen + 20 * (nwr - 1) + 50 * jok
        if jok > 0:
            kind_w = 55
        else:
            for s in range(5):
                if cnt[11 * s + wi] > 0:
                    kind_w = 11 * s + wi
    if pen_w <= pen_n:
        return pen_w, kind_w
    return pen_n, kind_n


def _k_discard_explicit(cnt, wi, best, p3, base, optd, optv, optc, nopt, bvec, choice, idx,
                        arr, flat):
    """Best removal by one exact solve per distinct kind (same tie-break)."""
    best_p = 1 << 30
    best_own = -1
    best_k = -1
    for k in range(56):
        if cnt[k] == 0:
            continue
        cnt[k] -= 1
        p = _k_solve_min(cnt, wi, best, p3, base, optd, optv, optc, nopt, bvec, choice, idx,
                         arr, flat)
        cnt[k] += 1
        if k == 55:
            own = 50
        elif k % 11 == wi:
            own = 20
        else:
            own = k % 11 + 3
        if p < best_p or (p == best_p and (own > best_own or (own == best_own and k > best_k))):
            best_p = p
            best_own = own
            best_k = k
    return best_p, best_k


_KERNEL_NAMES = ("_k_runcost_table", "_k_best_tables", "_k_setup", "_k_solve_min", "_k_scratch",
                 "_k_min_batch", "_k_discard_explicit", "_k_discard_one", "_k_discard_batch")
_STATE: dict = {}
_LOCK = threading.Lock()


def _kernels() -> None:
    """Jit every kernel (numba, cache=True) and build the tables, once per process."""
    if "best" in _STATE:
        return
    with _LOCK:
        if "best" in _STATE:
            return
        jit_once(globals(), _KERNEL_NAMES, inline=("_k_leaf", "_k_next_choice"))
        runcost = _k_runcost_table()
        best, best2 = _k_best_tables(runcost)
        _STATE.update(runcost=runcost, best=best, best2=best2)


def warm_up() -> float:
    """Compile (or load from numba's cache) every kernel and build the tables; seconds spent."""
    start = time.perf_counter()
    _kernels()
    hand = np.zeros((1, R.N_KINDS), np.uint8)
    hand[0, [0, 1, 2, 12, 55]] = 1
    min_penalty(hand, 3)
    best_discard(hand, 3)
    return time.perf_counter() - start


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def _prepare(hands, wild) -> tuple[np.ndarray, np.ndarray, bool]:
    """(N, 56) contiguous uint8 hands, (N,) int64 wild ranks, whether one hand was given."""
    h = np.asarray(hands)
    single = h.ndim == 1
    if single:
        h = h[None, :]
    if h.ndim != 2 or h.shape[1] != R.N_KINDS:
        raise ValueError(f"hands must have shape (N, {R.N_KINDS}) or ({R.N_KINDS},) "
                         f"(counts per kind), got {h.shape}")
    if h.dtype != np.uint8:
        if h.dtype.kind not in "iub":
            raise ValueError(f"hands must hold integer counts, got dtype {h.dtype}")
        if h.size and (h.min() < 0 or h.max() > 6):
            raise ValueError("hand counts must be 0..2 per suited kind and 0..6 jokers")
    h = np.ascontiguousarray(h, dtype=np.uint8)
    if not h.flags.writeable:
        h = h.copy()  # one compiled signature: writable arrays
    if isinstance(wild, int | np.integer) and not isinstance(wild, bool):
        if not R.LOW_RANK <= wild <= R.HIGH_RANK:
            raise ValueError(f"wild must be a rank 3..13, got {wild!r}")
        return h, np.full(h.shape[0], wild, np.int64), single
    w = np.asarray(wild)
    if w.dtype.kind not in "iu":
        raise ValueError(f"wild must be an integer rank 3..13, got {wild!r}")
    try:
        w = np.array(np.broadcast_to(w, (h.shape[0],)), dtype=np.int64)  # writable copy
    except ValueError:
        raise ValueError(f"wild must be a scalar or hold one rank per hand ({h.shape[0]}), "
                         f"got shape {w.shape}") from None
    if w.size and (w.min() < R.LOW_RANK or w.max() > R.HIGH_RANK):
        raise ValueError(f"wild ranks must be 3..13, got {np.unique(w)}")
    return h, w, single


def _invalid(h: np.ndarray, bad: np.ndarray, what: str) -> ValueError:
    row = int(np.flatnonzero(bad)[0])
    return ValueError(f"hand {row} is not a Five Crowns hand{what}: at most 2 of a suited "
                      f"kind, 6 jokers and {MAX_CARDS} cards (counts "
                      f"{R.format_cards(np.repeat(np.arange(R.N_KINDS), h[row]))!r})")


def min_penalty(hands, wild) -> np.ndarray:
    """Exact least penalty of each hand over every arrangement (FC-4, FC-5).

    Parameters
    ----------
    hands : (N, 56) counts per kind (uint8 preferred), or one hand (56,).
    wild : the round's wild rank 3..13, scalar or (N,).

    Returns
    -------
    (N,) int32 penalties (a numpy int32 scalar for a single (56,) hand). 0
    means the whole hand melds.
    """
    _kernels()
    h, w, single = _prepare(hands, wild)
    out = np.empty(h.shape[0], np.int32)
    _k_min_batch(h, w, _STATE["best"], out)
    bad = out < 0
    if bad.any():
        raise _invalid(h, bad, "")
    return out[0] if single else out


def can_go_out(hands, wild) -> np.ndarray:
    """Whether every card of each hand can be laid in melds (FC-3): ``min_penalty == 0``."""
    return min_penalty(hands, wild) == 0


def best_discard(hands, wild) -> tuple[np.ndarray, np.ndarray]:
    """The best single-card removal of each hand (one card more than will be kept).

    Returns
    -------
    penalty : (N,) int32, ``min over held kinds k of min_penalty(hand - k)``.
    kind : (N,) int8, the kind to discard reaching it. Tie-break among the
        optimal discards: the highest own penalty (joker 50, wild rank 20, else
        rank), then the highest kind index. Numpy scalars for a single (56,)
        hand. Every hand must hold at least one card (ValueError otherwise).
    """
    _kernels()
    h, w, single = _prepare(hands, wild)
    pen = np.empty(h.shape[0], np.int32)
    kind = np.empty(h.shape[0], np.int8)
    _k_discard_batch(h, w, _STATE["best"], _STATE["best2"], pen, kind)
    bad = pen < 0
    if bad.any():
        raise _invalid(h, bad, " with a card to discard")
    if single:
        return pen[0], kind[0]
    return pen, kind


# ---------------------------------------------------------------------------
# One optimal arrangement (plain Python over the same tables)
# ---------------------------------------------------------------------------


def _counts(hand) -> np.ndarray:
    a = np.asarray(hand)
    if a.ndim == 1 and a.shape[0] == R.N_KINDS and not isinstance(hand, list | tuple):
        return a.astype(np.int64)
    cnt = np.zeros(R.N_KINDS, np.int64)
    for k in a.ravel():
        cnt[int(k)] += 1
    return cnt


def _runs_of(u: Sequence[int]) -> list[tuple[int, int]]:
    """Intervals (rank indices, inclusive) laying suit vector u with RUNCOST[u] wilds."""
    inf = 10 ** 6
    states = {(0, 0, 0): (0, None)}  # (n1, n2, n3) -> (cost, back pointer)
    layers = []
    for r in range(10, -1, -1):
        nxt: dict = {}
        for (n1, n2, n3), (c, _) in states.items():
            for j in range(n3 + 1):
                for t in range(3 - n1 - n2 - j):
                    cov = n1 + n2 + j + t
                    if cov < u[r]:
                        continue
                    key = (t, n1, n2 + j)
                    nc = c + cov - u[r]
                    if nc < nxt.get(key, (inf,))[0]:
                        nxt[key] = (nc, ((n1, n2, n3), j, t))
        layers.append(nxt)
        states = nxt
    end = min(((c, s) for s, (c, _) in states.items() if s[0] == 0 and s[1] == 0))[1]
    # replay the decisions forwards (ranks 10 down to 0)
    decisions = []
    s = end
    for layer in reversed(layers):
        _, (prev, j, t) = layer[s]
        decisions.append((j, t))
        s = prev
    decisions.reverse()
    open_runs: list[list[int]] = []  # [high, age] in scan order
    done: list[tuple[int, int]] = []
    for step, (j, t) in enumerate(decisions):
        r = 10 - step
        young = [x for x in open_runs if x[1] < 3]
        old = [x for x in open_runs if x[1] >= 3]
        for x in old[j:]:
            done.append((r + 1, x[0]))
        open_runs = young + old[:j] + [[r, 0] for _ in range(t)]
        for x in open_runs:
            x[1] += 1
    done.extend((0, x[0]) for x in open_runs)
    return done


def _suit_subvector(v: list[int], k: int, best: np.ndarray, runcost: np.ndarray) -> list[int]:
    """A sub-vector of v of value BEST[v, k] laid in runs with <= k wilds."""
    p3 = [3 ** r for r in range(11)]
    v = list(v)
    while True:
        code = sum(c * p for c, p in zip(v, p3, strict=True))
        if code == 0 or runcost[code] <= k:
            return v
        target = best[code, k]
        for r in range(11):
            if v[r] and best[code - p3[r], k] == target:
                v[r] -= 1
                break


def arrangement(hand, wild: int) -> tuple[list[list[int]], list[int]]:
    """One optimal arrangement of one hand: ``(melds, unmelded)`` as lists of kinds.

    ``hand`` is a (56,) count vector (ndarray) or a list of kinds. Every meld is a valid
    book or run (wilds included) and the unmelded penalties sum to
    :func:`min_penalty`.
    """
    _kernels()
    cnt = _counts(hand)
    wild = int(wild)
    if not R.LOW_RANK <= wild <= R.HIGH_RANK:
        raise ValueError(f"wild must be a rank 3..13, got {wild}")
    if cnt[:55].max(initial=0) > 2 or cnt[55] > 6 or cnt.min() < 0 or cnt.sum() > MAX_CARDS:
        raise ValueError("not a Five Crowns hand: at most 2 of a suited kind, 6 jokers and "
                         f"{MAX_CARDS} cards")
    best, runcost = _STATE["best"], _STATE["runcost"]
    wi = wild - R.LOW_RANK
    p3 = [3 ** r for r in range(11)]
    c = cnt[:55].reshape(5, 11).copy()
    wild_cards = [55] * int(cnt[55])
    for s in range(5):
        wild_cards += [11 * s + wi] * int(c[s, wi])
        c[s, wi] = 0
    wild_cards.sort(key=lambda k: -R.penalty(k, wild))  # the dearest are melded first
    n_w = len(wild_cards)
    # book options per rank: how many of each suit's copies go to the book
    ranks = [r for r in range(11) if c[:, r].sum() >= 2]
    options = []
    for r in ranks:
        opts = [b for b in itertools.product(*(range(int(c[s, r]) + 1) for s in range(5)))
                if sum(b) != 1]
        options.append(opts)
    best_total, best_plan = -1, None
    for combo in itertools.product(*options):
        bc = sum(1 for b in combo if sum(b) == 2)
        if bc > n_w:
            continue
        bv = sum(sum(b) * (r + 3) for r, b in zip(ranks, combo, strict=True))
        v = c.copy()
        for r, b in zip(ranks, combo, strict=True):
            v[:, r] -= b
        codes = [int(sum(int(v[s, r]) * p3[r] for r in range(11))) for s in range(5)]
        budget = min(n_w - bc, KB - 1)
        # knapsack with the allocation kept
        table = {k: (0, ()) for k in range(budget + 1)}
        for s in range(5):
            new = {}
            for k in range(budget + 1):
                new[k] = max(((table[k - j][0] + int(best[codes[s], j]), table[k - j][1] + (j,))
                              for j in range(k + 1)), key=lambda t: t[0])
            table = new
        total = bv + table[budget][0]
        if total > best_total:
            best_total, best_plan = total, (combo, v, table[budget][1])
    combo, v, alloc = best_plan
    melds: list[list[int]] = []
    runs: list[list[int]] = []
    books: list[list[int]] = []
    free = list(wild_cards)
    unmelded: list[int] = []
    if best_total > 0:
        for r, b in zip(ranks, combo, strict=True):
            if sum(b) >= 2:
                book = [11 * s + r for s in range(5) for _ in range(b[s])]
                if len(book) == 2:
                    book.append(free.pop(0))
                books.append(book)
        for s in range(5):
            u = _suit_subvector([int(x) for x in v[s]], alloc[s], best, runcost)
            for r in range(11):
                unmelded += [11 * s + r] * (int(v[s, r]) - u[r])
            if not any(u):
                continue
            left = list(u)
            for lo, hi in _runs_of(u):
                run = []
                for r in range(lo, hi + 1):
                    if left[r] > 0:
                        left[r] -= 1
                        run.append(11 * s + r)
                    else:
                        run.append(-1 - r)  # wild slot standing for rank index r
                runs.append(run)
        for run in runs:
            for i, k in enumerate(run):
                if k < 0:
                    run[i] = free.pop(0)
        melds = books + runs
        _place_spare_wilds(melds, books, runs, free, wild)
        free = []
    else:
        unmelded += [11 * s + r for s in range(5) for r in range(11) for _ in range(int(c[s, r]))]
        if len(free) >= 3:
            melds.append(free)
            free = []
    unmelded += free
    return melds, sorted(unmelded)


def _place_spare_wilds(melds, books, runs, free, wild) -> None:
    """Lay the spare wilds (all melds already hold naturals): see the module docstring."""
    if not free:
        return
    if len(free) >= 3:
        melds.append(list(free))
    elif books:
        books[0].extend(free)
    else:
        run = next((x for x in runs if len(x) < 11), None)
        if run is not None and len(run) + len(free) <= 11:
            run.extend(free)
        elif run is not None:  # a 10-card run and 2 spare wilds: one extends, then split
            run.append(free.pop())
            _split_full_run(melds, run, free, wild)
        else:
            _split_full_run(melds, runs[0], free, wild)
    free.clear()


def _split_full_run(melds, run, free, wild) -> None:
    """An 11-card run (ranks 3..K, in order) plus 1-2 wilds: 3..7 + a wild as the 8, then
    8..K (+ a wild as the 7)."""
    i = next(i for i, m in enumerate(melds) if m is run)
    low, high = run[:5] + [free[0]], run[5:] + free[1:]
    melds[i:i + 1] = [low, high]
