"""Double-dummy solver for the 32-card trick games: exact minimax with every hand visible.

It names no game. A position is what :func:`~simulators.core.tricks.play_tricks`
plays: the cards left in every hand (uint32 masks by seat), the trick in
progress (cards on the table in play order, who led it), the trump suit's
mask (0: no trump), the game's duty table (:class:`~simulators.core.tricks.Obligations`,
the same data the engines play by), the play direction, each seat's side
(``team`` label 0 or 1), each card's points and the points of a trick won.
The value is the number of points **side 0** wins from here on (the trick in
progress included) when side 0 maximises it and side 1 minimises it::

    values = solve(hands, leader, trump_mask, MA5_DUTIES, team=(0, 1, 0, 1),
                   card_points=card_points(POINTS), trick_points=1,
                   direction=COUNTER_CLOCKWISE)                   # (N,) int16
    made = solve(..., target=35)                                  # (N,) bool: value >= 35
    per_card = card_values(...)                                   # (N, 32): each legal card

The search (compiled, numba; one row at a time, the batch in one call) is
fail-soft alpha-beta with

* a **transposition table** at trick boundaries, keyed on every hand and the
  leader (exact keys, no false hits), storing a lower and an upper bound of
  the points still to win and the best lead; two-way buckets of one cache
  line, 1 MB in all, so that it stays in the processor's cache (a 30 MB table
  held more of a deal and cost a memory access a probe); entries carry a
  generation, so a new deal starts from an empty table without clearing it;
* **equivalent-card merging**: two cards of one hand that no live card
  separates in their suit, and that are worth the same points, lead to the
  same values; only one is searched;
* **move ordering** from card masks worked out once per node: the table's
  best lead, the last lead that cut at this depth, masters the opponents
  cannot trump (the most points first; zero-point ones after leads to a
  partner), leads to a partner's master or to a suit he trumps, then the
  weakest, cheapest cards; following, a card that takes the trick and that
  no later opponent can beat (the most points first), points thrown on a
  partner's trick nobody after can take (masters kept), a card that takes
  but can be beaten (the strongest first), else the cheapest;
* **bounds**: a node needing more than the points left, or nothing, is cut,
  and so is one the master-trump run decides (the unbroken top trumps of one
  side win the tricks they fall in, whatever is played);
* the **last two tricks** by a small alpha-beta of their own (no frames, no
  table inside; its results are kept in the table) and the last trick played
  out;
* the exact value by bisection over null-window searches sharing the table;
  ``target`` asks one null-window question ("does side 0 reach target?").

Legality is the trick kernel's :func:`~simulators.core.tricks._legal_one`,
i.e. the engines' own duty code; the tests check the solver against a plain
minimax written on each game's referee (a separate reading of the rules).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from simulators.core import tricks
from simulators.core.bits import popcount32
from simulators.core.jit import jit_once
from simulators.core.tricks import (
    CLOCKWISE,
    COUNTER_CLOCKWISE,
    STRONGER,
    SUIT_MASK,
    Obligations,
    _legal_one,
    _takes_one,
)

__all__ = ["solve", "card_values", "searched_moves", "Position", "position", "nodes_searched",
           "warm_up", "CLOCKWISE", "COUNTER_CLOCKWISE"]

U32 = np.uint32
MAX_SEATS = 5
# The table: 2**TT_BITS buckets of TT_WAYS entries of 8 uint32 (hands, meta, bounds, move and
# depth), 32 bytes each, so that a bucket is one cache line. A search uses the first
# 2**TT_SMALL_BITS buckets (1 MB, which stays in the processor's cache) for a contract
# question of at most 8 tricks: it touches few positions, and a larger table cost it a
# memory access a probe. Exact values, and longer deals, revisit far more positions and
# run faster on the whole table (4 MB). Measured with bench/double_dummy.py.
TT_BITS = 16
TT_SMALL_BITS = 14
TT_WAYS = 2
# move ordering: on a partner's safe trick, a master thrown only after every other card
# (it wins a trick of its own later); a master worth nothing led after the leads to a
# partner's master (tuned on node counts, bench/double_dummy.py)
MASTER_KEEP = 48
ZERO_MASTER = 750
# the last tricks searched by _endgame (3 halved the nodes but cost more time: no table)
ENDGAME_TRICKS = 2
TT_META, TT_BOUNDS, TT_MOVE = 5, 6, 7
NO_MOVE = -1

# ctx columns (int64): the constants of one search
CTX_N, CTX_TRICK_POINTS, CTX_TRUMP, CTX_FOLLOW, CTX_BEAT, CTX_TRUMP_DUTY, CTX_OVERTRUMP, \
    CTX_UNDERTRUMP, CTX_GEN, CTX_TT_MASK = range(10)
CTX_SIZE = 10

_HASH_KEYS = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                       0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53],
                      dtype=np.uint64)


# ---------------------------------------------------------------- compiled search

# count-trailing / count-leading zeros of the processor: numba's intrinsics, bound by
# _kernels() (this module imports no numba when it is imported)
_cttz = _ctlz = None


def _low_index(mask):
    """Index of the lowest set bit of a 32-bit mask, -1 for none (compiled only)."""
    m = np.uint32(mask)
    if m == 0:
        return np.int64(-1)
    return np.int64(_cttz(m))


def _high_index(mask):
    """Index of the highest set bit of a 32-bit mask, -1 for none (compiled only)."""
    m = np.uint32(mask)
    if m == 0:
        return np.int64(-1)
    return np.int64(31) - np.int64(_ctlz(m))



def _tt_index(hands, n, leader, mask):
    h = np.uint64(leader + 1) * _HASH_KEYS[5]
    for s in range(n):
        h ^= (np.uint64(hands[s]) + np.uint64(s)) * _HASH_KEYS[s]
        h = (h ^ (h >> np.uint64(29))) * _HASH_KEYS[0]
    return np.int64((h >> np.uint64(20)) & np.uint64(mask)) * TT_WAYS


def _tt_probe(tt, idx, hands, n, meta):
    """The slot of bucket ``idx`` holding this position (hands and ``meta``), or -1."""
    for slot in range(idx, idx + TT_WAYS):
        if tt[slot, TT_META] == meta:
            same = True
            for s in range(n):
                if tt[slot, s] != hands[s]:
                    same = False
            if same:
                return slot
    return np.int64(-1)


def _tt_store(tt, idx, hands, n, meta, value, alpha, beta, lo, hi, move, depth, gen):
    """Keep what a search of window [alpha, beta] returning ``value`` proved of a position
    (its bounds ``lo``, ``hi`` before, tightened) in bucket ``idx``: over its own slot if
    there, else over a slot of an older deal, else over the shallower entry (a deeper one
    saved more work)."""
    if value <= alpha:
        hi = min(hi, value)
    elif value >= beta:
        lo = max(lo, value)
    else:
        lo = value
        hi = value
    victim = _tt_probe(tt, idx, hands, n, meta)
    if victim < 0:
        victim_depth = np.int64(1 << 30)
        for slot in range(idx, idx + TT_WAYS):
            if (tt[slot, TT_META] >> np.uint32(3)) != gen:
                slot_depth = np.int64(-1)
            else:
                slot_depth = np.int64(tt[slot, TT_MOVE] >> np.uint32(8))
            if slot_depth < victim_depth:
                victim, victim_depth = slot, slot_depth
    for s in range(n):
        tt[victim, s] = hands[s]
    tt[victim, TT_META] = meta
    tt[victim, TT_BOUNDS] = np.uint32(lo) | (np.uint32(hi) << np.uint32(16))
    tt[victim, TT_MOVE] = np.uint32(move + 1) | (np.uint32(depth) << np.uint32(8))


def _add_card(c, k, led_mask, best, best_pos, best_trump, trump):
    """The trick after card ``c`` is played at position ``k`` (0: the lead): led suit mask,
    winning card, its position, whether a trump is on the table."""
    bit = np.uint32(1) << np.uint32(c)
    is_trump = (bit & trump) != 0
    if k == 0:
        return SUIT_MASK[c & 3], c, np.int64(0), is_trump
    if _takes_one(c, bit, led_mask, best, best_trump, is_trump):
        return led_mask, c, k, best_trump or is_trump
    return led_mask, best, best_pos, best_trump or is_trump


def _moves(legal, alive, pts):
    """The legal cards worth searching: a legal card whose nearest stronger live card of its
    suit is also legal (so in the same hand) and worth the same points is left out, since
    the two lead to the same values."""
    out = legal
    m = legal
    while m:
        c = _low_index(m)
        m &= m - np.uint32(1)
        above = STRONGER[c] & alive
        if above:
            nearest = _high_index(above)
            if (legal >> np.uint32(nearest)) & np.uint32(1) and pts[nearest] == pts[c]:
                out &= ~(np.uint32(1) << np.uint32(c))
    return out


def _above(mask, cards):
    """The cards of ``cards`` weaker than the strongest card of ``mask`` (none if empty)."""
    if mask == 0:
        return np.uint32(0)
    top = _low_index(mask)
    return cards & np.uint32(~((np.uint64(2) << np.uint64(top)) - np.uint64(1))
                             & np.uint64(0xFFFFFFFF))


def _lead_masks(alive, hand, partners, ruffed, partner_ruffs, trump):
    """For a lead: the masters (the strongest live card of each suit) not in a suit an
    opponent trumps (there a master is not a sure trick); the cards of the suits whose
    master a partner holds; those of the suits a partner can trump."""
    masters = np.uint32(0)
    to_partner = np.uint32(0)
    for u in range(4):
        live = alive & SUIT_MASK[u]
        if live:
            masters |= live & (np.uint32(0) - live)
            others = live & ~hand
            if others & (np.uint32(0) - others) & partners:
                to_partner |= SUIT_MASK[u]
    safe = ~np.uint32(ruffed * 0x11111111) | trump
    return (masters & safe, to_partner & safe,
            np.uint32(partner_ruffs * 0x11111111) & safe & ~trump)


def _follow_masks(moves, last, led_mask, best, best_trump, trump, opp_holds, opp_led,
                  opp_ruff):
    """For a follower: the cards that take the trick; the cards a later opponent can beat (a
    trump by a stronger trump of one who may play it, a card of the led suit by a stronger
    one or by any trump of one void in it); whether a partner's trick is safe."""
    if best_trump:
        takes = moves & trump & STRONGER[best]
    else:
        takes = (moves & led_mask & STRONGER[best]) | (moves & trump)
    beaten = np.uint32(0)
    if not last:
        beaten = _above(opp_led if led_mask & trump else opp_ruff, trump)
        if (led_mask & trump) == 0:
            beaten |= led_mask if opp_ruff else _above(opp_led, led_mask)
    partner_safe = not opp_holds and (beaten >> np.uint32(best)) & np.uint32(1) == 0
    return takes, beaten, partner_safe


def _order(moves, k, last, led_mask, best, best_trump, trump, opp_holds, alive, pts, hint, out,
           scores, killer, opp_led, opp_ruff, hand, partners, ruffed, partner_ruffs):
    """Write ``moves`` into ``out`` best-first (see the module docstring); returns the count.

    What decides a card's place is worked out once as card masks (the masters, the cards
    that take the trick, those a later opponent beats...), so that scoring a card is a few
    bit tests.
    """
    if moves & (moves - np.uint32(1)) == 0:  # one card: nothing to order
        out[0] = _low_index(moves)
        return 1
    if k == 0:
        masters, to_partner, to_ruff = _lead_masks(alive, hand, partners, ruffed,
                                                   partner_ruffs, trump)
    else:
        takes, beaten, partner_safe = _follow_masks(moves, last, led_mask, best, best_trump,
                                                    trump, opp_holds, opp_led, opp_ruff)
    n_moves = 0
    m = moves
    while m:
        c = _low_index(m)
        m &= m - np.uint32(1)
        bit = np.uint32(1) << np.uint32(c)
        p = pts[c]
        r = c >> 2
        if c == hint:
            score = np.int64(10_000)
        elif k == 0:
            # the killer; a master (not in a suit an opponent trumps), the most points
            # first; a lead to a partner's master or for him to trump, the cheapest; else
            # the weakest, cheapest cards
            if c == killer:
                score = np.int64(9_000)
            elif bit & masters:
                score = (1_000 if p > 0 else ZERO_MASTER) + p * 8 + ((bit & trump) != 0) * 4
            elif bit & to_partner:
                score = 800 - p * 8 + r
            elif bit & to_ruff:
                score = 700 - p * 8 + r
            else:
                score = r - p * 8
        elif bit & takes:
            # a card that takes and that no later opponent can beat wins the trick: the most
            # points first (on a partner's trick: as a thrown card); one that can be beaten,
            # the strongest first
            if bit & beaten:
                score = 400 - r * 2 + p
            else:
                score = 600 + p * 8 - r if opp_holds else 500 + p * 8
        elif partner_safe:
            # points on a partner's trick nobody after can take, masters kept for later
            score = 500 + p * 8 - MASTER_KEEP * ((STRONGER[c] & alive) == 0)
        else:
            score = 100 - p * 8 + r  # the cheapest
        # insertion, best first
        j = n_moves
        while j > 0 and scores[j - 1] < score:
            scores[j] = scores[j - 1]
            out[j] = out[j - 1]
            j -= 1
        scores[j] = score
        out[j] = c
        n_moves += 1
    return n_moves


def _suits_held(hand):
    """The suits of ``hand`` as 4 bits (card c = 4 * rank + suit: fold the ranks together)."""
    m = hand | (hand >> np.uint32(16))
    m |= m >> np.uint32(8)
    m |= m >> np.uint32(4)
    return m & np.uint32(15)


def _ordered_moves(hands, seat, k, leader, best_pos, led, best, best_trump, trump, team, seat_of,
                   n, ctx, alive, pts, hint, killer, out, scores):
    """The cards ``seat`` searches here (legal, one per equivalent run), best-first in ``out``;
    returns their count. What the ordering looks at: for a lead, the partners' cards and
    which suits a partner or an opponent can trump; for a follower, the later opponents'
    cards of the led suit and the trumps of those void in it."""
    hand = hands[seat]
    opp_holds = k > 0 and team[seat_of[leader * n + best_pos]] != team[seat]
    legal = _legal_now(hands, seat, k, leader, best_pos, led, best, best_trump, trump, team,
                       seat_of, n, ctx)
    if legal & (legal - np.uint32(1)) == 0:  # one card: nothing to merge or order
        out[0] = _low_index(legal)
        return 1
    moves = _moves(legal, alive, pts)
    opp_led = np.uint32(0)
    opp_ruff = np.uint32(0)
    partners = np.uint32(0)
    ruffed = np.uint32(0)
    partner_ruffs = np.uint32(0)
    if k == 0:
        for s in range(n):
            h = hands[s]
            if s == seat or h & trump == 0:
                if s != seat and team[s] == team[seat]:
                    partners |= h
                continue
            voids = ~_suits_held(h) & np.uint32(15)
            if team[s] == team[seat]:
                partners |= h
                partner_ruffs |= voids
            else:
                ruffed |= voids
    for j in range(k + 1, n):
        later = seat_of[leader * n + j]
        if team[later] != team[seat]:
            opp_led |= hands[later] & led
            if hands[later] & led == 0:
                opp_ruff |= hands[later] & trump
    return _order(moves, k, k == n - 1, led, best, best_trump, trump, opp_holds, alive, pts, hint,
                  out, scores, killer, opp_led, opp_ruff, hand, partners, ruffed, partner_ruffs)


# frame columns of the iterative search (one row per depth of the current line, int64)
(F_K, F_LEADER, F_LED, F_BEST, F_POS, F_BTRUMP, F_TABLE, F_TPTS, F_REST, F_ALPHA, F_BETA, F_A,
 F_B, F_LO, F_HI, F_IDX, F_SEAT, F_HAND, F_NM, F_I, F_VALUE, F_BMOVE, F_GAIN, F_MAX,
 F_META) = range(25)
N_FRAME = 25
MAX_DEPTH = 34
_ENTER, _RETURN, _NEXT = 0, 1, 2


def _scratch():
    """Per-depth buffers of a search: moves in order, their scores and the killer lead; the
    frames of the explicit stack."""
    return (np.full((MAX_DEPTH, 3, 10), -1, np.int64), np.empty((MAX_DEPTH, N_FRAME), np.int64),
            np.empty((MAX_SEATS * (ENDGAME_TRICKS - 1), 13), np.int64))


def _search(hands, k, leader, led_mask, best, best_pos, best_trump, table, table_pts, rest,
            alpha, beta, ctx, seat_of, team, pts, tt, counter, scratch):
    """Points side 0 wins from this node (fail-soft, within [alpha, beta]); ``rest`` is every
    point still to be won (cards in hands and on the table, and the tricks' points).

    Iterative (an explicit stack, one row per depth): numba's on-disk cache does not keep
    recursive kernels reliably. ``scratch`` holds the per-depth buffers (:func:`_scratch`).
    """
    buf, fr, tw = scratch
    n = ctx[CTX_N]
    trump = np.uint32(ctx[CTX_TRUMP])
    d = 0
    fr[0, F_K], fr[0, F_LEADER], fr[0, F_LED] = k, leader, np.int64(led_mask)
    fr[0, F_BEST], fr[0, F_POS], fr[0, F_BTRUMP] = best, best_pos, np.int64(best_trump)
    fr[0, F_TABLE], fr[0, F_TPTS], fr[0, F_REST] = np.int64(table), table_pts, rest
    fr[0, F_ALPHA], fr[0, F_BETA] = alpha, beta
    mode = _ENTER
    ret = np.int64(0)
    while True:
        if mode == _ENTER:
            counter[0] += 1
            k = fr[d, F_K]
            leader = fr[d, F_LEADER]
            rest = fr[d, F_REST]
            alpha = fr[d, F_ALPHA]
            beta = fr[d, F_BETA]
            table = np.uint32(fr[d, F_TABLE])
            in_hands = np.uint32(0)
            for s in range(n):
                in_hands |= hands[s]
            mode = _RETURN
            if rest <= 0 or beta <= 0 or in_hands == 0:
                ret = np.int64(0)
                continue
            if alpha >= rest:
                ret = rest
                continue
            hint = NO_MOVE
            lo = np.int64(0)
            hi = rest
            idx = np.int64(-1)
            meta = np.uint32((ctx[CTX_GEN] << 3) | leader)
            if k == 0 and popcount32(hands[leader]) == 1:
                ret = _last_trick(hands, n, leader, trump, seat_of, team, pts,
                                  ctx[CTX_TRICK_POINTS])
                continue
            if k == 0 and trump != 0:
                side, sure = _sure_trump_points(hands, n, trump, team, pts,
                                                ctx[CTX_TRICK_POINTS])
                if side == 0 and sure >= beta:
                    ret = sure
                    continue
                if side == 1 and rest - sure <= alpha:
                    ret = rest - sure
                    continue
            if k == 0:
                idx = _tt_index(hands, n, leader, ctx[CTX_TT_MASK])
                slot = _tt_probe(tt, idx, hands, n, meta)
                if slot >= 0:
                    bounds = tt[slot, TT_BOUNDS]
                    lo = np.int64(bounds & np.uint32(0xFFFF))
                    hi = np.int64(bounds >> np.uint32(16))
                    if lo >= beta or lo == hi:
                        ret = lo
                        continue
                    if hi <= alpha:
                        ret = hi
                        continue
                    hint = np.int64(tt[slot, TT_MOVE] & np.uint32(0xFF)) - 1
                    alpha = max(alpha, lo)
                    beta = min(beta, hi)
                if popcount32(hands[leader]) <= ENDGAME_TRICKS:
                    ret = _endgame(hands, n, leader, trump, team, seat_of, pts, ctx, tw, alpha,
                                   beta)
                    _tt_store(tt, idx, hands, n, meta, ret, alpha, beta, lo, hi, NO_MOVE,
                              popcount32(hands[leader]), np.uint32(ctx[CTX_GEN]))
                    continue
            seat = seat_of[leader * n + k]
            hand = hands[seat]
            led = np.uint32(fr[d, F_LED])
            best = fr[d, F_BEST]
            best_trump = fr[d, F_BTRUMP] != 0
            fr[d, F_NM] = _ordered_moves(hands, seat, k, leader, fr[d, F_POS], led, best,
                                         best_trump, trump, team, seat_of, n, ctx,
                                         in_hands | table, pts, hint, buf[d, 2, 0], buf[d, 0],
                                         buf[d, 1])
            maximising = team[seat] == 0
            fr[d, F_ALPHA], fr[d, F_BETA], fr[d, F_A], fr[d, F_B] = alpha, beta, alpha, beta
            fr[d, F_LO], fr[d, F_HI], fr[d, F_IDX], fr[d, F_META] = lo, hi, idx, np.int64(meta)
            fr[d, F_SEAT], fr[d, F_HAND], fr[d, F_I] = seat, np.int64(hand), 0
            fr[d, F_VALUE] = np.int64(-1) if maximising else rest + 1
            fr[d, F_BMOVE], fr[d, F_MAX] = NO_MOVE, np.int64(maximising)
            mode = _NEXT
        elif mode == _RETURN:
            if d == 0:
                return ret
            d -= 1
            x = fr[d, F_GAIN] + ret
            seat = fr[d, F_SEAT]
            hands[seat] = np.uint32(fr[d, F_HAND])
            i = fr[d, F_I] - 1
            if fr[d, F_MAX]:
                if x > fr[d, F_VALUE]:
                    fr[d, F_VALUE], fr[d, F_BMOVE] = x, buf[d, 0, i]
                if fr[d, F_VALUE] > fr[d, F_A]:
                    fr[d, F_A] = fr[d, F_VALUE]
            else:
                if x < fr[d, F_VALUE]:
                    fr[d, F_VALUE], fr[d, F_BMOVE] = x, buf[d, 0, i]
                if fr[d, F_VALUE] < fr[d, F_B]:
                    fr[d, F_B] = fr[d, F_VALUE]
            if fr[d, F_A] >= fr[d, F_B]:
                buf[d, 2, 0] = buf[d, 0, i]  # killer: the move that cut at this depth
            if fr[d, F_A] >= fr[d, F_B] or fr[d, F_I] == fr[d, F_NM]:
                value = fr[d, F_VALUE]
                if fr[d, F_K] == 0:
                    _tt_store(tt, fr[d, F_IDX], hands, n, np.uint32(fr[d, F_META]), value,
                              fr[d, F_ALPHA], fr[d, F_BETA], fr[d, F_LO], fr[d, F_HI],
                              fr[d, F_BMOVE], popcount32(hands[fr[d, F_LEADER]]),
                              np.uint32(ctx[CTX_GEN]))
                ret = value
                continue  # still _RETURN: to the parent
            mode = _NEXT
        if mode == _NEXT:
            i = fr[d, F_I]
            fr[d, F_I] = i + 1
            c = buf[d, 0, i]
            k = fr[d, F_K]
            leader = fr[d, F_LEADER]
            seat = fr[d, F_SEAT]
            bit = np.uint32(1) << np.uint32(c)
            hands[seat] = np.uint32(fr[d, F_HAND]) & ~bit
            led = np.uint32(fr[d, F_LED])
            best = fr[d, F_BEST]
            best_pos = fr[d, F_POS]
            best_trump = fr[d, F_BTRUMP] != 0
            led, best, best_pos, best_trump = _add_card(c, k, led, best, best_pos, best_trump,
                                                        trump)
            points = fr[d, F_TPTS] + pts[c]
            e = d + 1
            rest = fr[d, F_REST]
            gain = np.int64(0)
            if k == n - 1:
                won = points + ctx[CTX_TRICK_POINTS]
                winner = seat_of[leader * n + best_pos]
                if team[winner] == 0:
                    gain = won
                rest -= won
            fr[d, F_GAIN] = gain
            alpha = fr[d, F_A] - gain
            beta = fr[d, F_B] - gain
            # the child's own first test, done here: no frame for a child decided by the
            # points left (a third of the nodes)
            if rest <= 0 or beta <= 0:
                counter[0] += 1
                ret = np.int64(0)
                d = e
                mode = _RETURN
                continue
            if alpha >= rest:
                counter[0] += 1
                ret = rest
                d = e
                mode = _RETURN
                continue
            if k == n - 1:
                fr[e, F_K], fr[e, F_LEADER], fr[e, F_LED] = 0, winner, 0
                fr[e, F_BEST], fr[e, F_POS], fr[e, F_BTRUMP] = -1, 0, 0
                fr[e, F_TABLE], fr[e, F_TPTS] = 0, 0
            else:
                fr[e, F_K], fr[e, F_LEADER], fr[e, F_LED] = k + 1, leader, np.int64(led)
                fr[e, F_BEST], fr[e, F_POS], fr[e, F_BTRUMP] = best, best_pos, \
                    np.int64(best_trump)
                fr[e, F_TABLE], fr[e, F_TPTS] = fr[d, F_TABLE] | np.int64(bit), points
            fr[e, F_REST], fr[e, F_ALPHA], fr[e, F_BETA] = rest, alpha, beta
            d = e
            mode = _ENTER


def _last_trick(hands, n, leader, trump, seat_of, team, pts, trick_points):
    """Side 0's points from the last trick, every hand down to one card (no choice left)."""
    led_mask = np.uint32(0)
    best = np.int64(-1)
    best_pos = np.int64(0)
    best_trump = False
    points = trick_points
    for j in range(n):
        c = _low_index(hands[seat_of[leader * n + j]])
        led_mask, best, best_pos, best_trump = _add_card(c, np.int64(j), led_mask, best,
                                                         best_pos, best_trump, trump)
        points += pts[c]
    return points if team[seat_of[leader * n + best_pos]] == 0 else np.int64(0)


def _endgame_first(hands, n, legal, k, led_mask, best, best_trump, trump, opp_holds):
    """The cards the endgame tries first: a lead, the masters; a follower, the cards that
    take the trick from an opponent, or that leave it to a partner."""
    if k == 0:
        alive = np.uint32(0)
        for s in range(n):
            alive |= hands[s]
        masters = np.uint32(0)
        for u in range(4):
            live = alive & SUIT_MASK[u]
            masters |= live & (np.uint32(0) - live)
        return legal & masters
    if best_trump:
        takes = legal & trump & STRONGER[best]
    else:
        takes = (legal & led_mask & STRONGER[best]) | (legal & trump)
    return takes if opp_holds else legal & ~takes


def _endgame(hands, n, leader, trump, team, seat_of, pts, ctx, tw, alpha, beta):
    """Side 0's points from the last tricks (every hand down to at most ENDGAME_TRICKS
    cards), fail-soft within [alpha, beta]: a plain alpha-beta in the small buffer ``tw``,
    a row per card played (cards still to try, the trick so far, its leader, side 0's
    points of the tricks before, the value so far, the card played, the window). No
    table, no ordering: near the end they cost more than the few lines they save. The
    last trick is played out (:func:`_last_trick`)."""
    trick_points = ctx[CTX_TRICK_POINTS]
    plies = n * (popcount32(hands[leader]) - 1)
    tw[0, 0], tw[0, 1], tw[0, 2], tw[0, 3], tw[0, 4], tw[0, 5] = hands[leader], 0, -1, 0, 0, 0
    tw[0, 6] = -1 if team[leader] == 0 else np.int64(1 << 30)
    tw[0, 8], tw[0, 9], tw[0, 10], tw[0, 11] = alpha, beta, leader, 0
    tw[0, 12] = np.int64(_endgame_first(hands, n, hands[leader], 0, np.uint32(0), -1, False,
                                        trump, False))
    j = 0
    while True:
        k = j % n
        seat = seat_of[tw[j, 10] * n + k]
        m = np.uint32(tw[j, 0])
        if m == 0:  # every card of this seat tried, or a cut: its value to the ply before
            v = tw[j, 6]
            if j == 0:
                return v
            j -= 1
            seat = seat_of[tw[j, 10] * n + j % n]
            hands[seat] |= np.uint32(1) << np.uint32(tw[j, 7])
        else:
            first = m & np.uint32(tw[j, 12])
            c = _low_index(first if first else m)
            bit = np.uint32(1) << np.uint32(c)
            tw[j, 0] = np.int64(m & ~bit)
            tw[j, 7] = c
            hands[seat] &= ~bit
            led, best, best_pos, best_trump = _add_card(c, np.int64(k), np.uint32(tw[j, 1]),
                                                        tw[j, 2], tw[j, 3], tw[j, 4] != 0,
                                                        trump)
            points = tw[j, 5] + pts[c]
            lead = tw[j, 10]
            e = j + 1
            if k < n - 1:
                nxt = seat_of[lead * n + k + 1]
                tw[e, 0] = np.int64(_legal_now(hands, nxt, k + 1, lead, best_pos, led, best,
                                               best_trump, trump, team, seat_of, n, ctx))
                tw[e, 1], tw[e, 2], tw[e, 3], tw[e, 4], tw[e, 5] = np.int64(led), best, \
                    best_pos, np.int64(best_trump), points
                tw[e, 10], tw[e, 11] = lead, tw[j, 11]
                tw[e, 12] = np.int64(_endgame_first(
                    hands, n, np.uint32(tw[e, 0]), k + 1, led, best, best_trump, trump,
                    team[seat_of[lead * n + best_pos]] != team[nxt]))
            else:
                winner = seat_of[lead * n + best_pos]
                gain = tw[j, 11] + (points + trick_points if team[winner] == 0 else 0)
                if e < plies:
                    nxt = winner
                    tw[e, 0], tw[e, 1], tw[e, 2], tw[e, 3], tw[e, 4], tw[e, 5] = \
                        np.int64(hands[winner]), 0, -1, 0, 0, 0
                    tw[e, 10], tw[e, 11] = winner, gain
                    tw[e, 12] = np.int64(_endgame_first(hands, n, hands[winner], 0,
                                                        np.uint32(0), -1, False, trump, False))
                else:
                    v = gain + _last_trick(hands, n, winner, trump, seat_of, team, pts,
                                           trick_points)
                    hands[seat] |= bit
                    e = -1
            if e >= 0:
                tw[e, 6] = -1 if team[nxt] == 0 else np.int64(1 << 30)
                tw[e, 8], tw[e, 9] = tw[j, 8], tw[j, 9]
                j = e
                continue
        if team[seat] == 0:
            tw[j, 6] = max(tw[j, 6], v)
            tw[j, 8] = max(tw[j, 8], v)
        else:
            tw[j, 6] = min(tw[j, 6], v)
            tw[j, 9] = min(tw[j, 9], v)
        if tw[j, 8] >= tw[j, 9]:
            tw[j, 0] = 0


def _sure_trump_points(hands, n, trump, team, pts, trick_points):
    """The side holding the master trump, and points it wins whatever is played: every trump
    of the unbroken run from the top that its seats hold wins the trick it falls in, and
    the seat holding the most of them wins that many tricks."""
    live = np.uint32(0)
    for s in range(n):
        live |= hands[s]
    live &= trump
    if live == 0:
        return np.int64(-1), np.int64(0)
    side = np.int64(-1)
    total = np.int64(0)
    most = np.int64(0)
    counts = 0  # up to 5 seats, 4 bits each
    while live:
        c = _low_index(live)
        live &= live - np.uint32(1)
        bit = np.uint32(1) << np.uint32(c)
        holder = 0
        for s in range(n):
            if hands[s] & bit:
                holder = s
        if side < 0:
            side = team[holder]
        elif team[holder] != side:
            break
        total += pts[c]
        counts += 1 << (4 * holder)
        held = (counts >> (4 * holder)) & 15
        if held > most:
            most = np.int64(held)
    return side, total + most * trick_points


def _points_left(hands, n, table, tricks_left, trick_points, pts):
    alive = table
    for s in range(n):
        alive |= hands[s]
    total = np.int64(0)
    m = alive
    while m:
        c = _low_index(m)
        m &= m - np.uint32(1)
        total += pts[c]
    return total + tricks_left * trick_points


def _enter_trick(row_trick, n, leader, seat_of, trump, pts):
    """The trick state after the cards on the table: k, led mask, best card, best position,
    best is trump, table mask, table points."""
    k = np.int64(0)
    led_mask = np.uint32(0)
    best = np.int64(-1)
    best_pos = np.int64(0)
    best_trump = False
    table = np.uint32(0)
    table_pts = np.int64(0)
    for j in range(n):
        c = np.int64(row_trick[j])
        if c < 0:
            break
        bit = np.uint32(1) << np.uint32(c)
        led_mask, best, best_pos, best_trump = _add_card(c, np.int64(j), led_mask, best, best_pos,
                                                         best_trump, trump)
        table |= bit
        table_pts += pts[c]
        k += 1
    return k, led_mask, best, best_pos, best_trump, table, table_pts


def _mtd(hands, k, leader, led_mask, best, best_pos, best_trump, table, table_pts, rest, guess,
         ctx, seat_of, team, pts, tt, counter, scratch):
    """The exact value: null-window searches bisecting between the bounds until they meet
    (fewer searches than MTD(f) steps here; the first guess is ``guess``)."""
    lower, upper = np.int64(0), rest
    beta = min(max(guess, lower + 1), upper)
    while lower < upper:
        g = _search(hands, k, leader, led_mask, best, best_pos, best_trump, table, table_pts,
                    rest, beta - 1, beta, ctx, seat_of, team, pts, tt, counter, scratch)
        if g < beta:
            upper = g
        else:
            lower = g
        beta = (lower + upper + 1) // 2
    return lower


def _row_buffers(n):
    """One row's hands, sides, card points and search constants, filled by _row_setup."""
    return (np.empty(n, np.uint32), np.empty(n, np.int64), np.empty(32, np.int64),
            np.empty(CTX_SIZE, np.int64))


def _row_setup(r, hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
               seat_of, trick_points, gen, ctx, hands, team, pts, target):
    n = hands_all.shape[1]
    for s in range(n):
        hands[s] = hands_all[r, s]
        team[s] = teams[r, s]
    for c in range(32):
        pts[c] = pts_all[r, c]
    d = duty_row[r]
    ctx[CTX_N] = n
    ctx[CTX_TRICK_POINTS] = trick_points
    ctx[CTX_TRUMP] = np.int64(trumps[r])
    for j in range(5):
        ctx[CTX_FOLLOW + j] = duty_codes[d, j]
    ctx[CTX_GEN] = gen
    small = target >= 0 and popcount32(hands[0]) <= 8
    ctx[CTX_TT_MASK] = (1 << (TT_SMALL_BITS if small else TT_BITS)) - 1
    k, led_mask, best, best_pos, best_trump, table, table_pts = _enter_trick(
        trick_all[r], n, leaders[r], seat_of, np.uint32(trumps[r]), pts)
    cards_left = popcount32(table)
    for s in range(n):
        cards_left += popcount32(hands[s])
    rest = _points_left(hands, n, table, (cards_left + n - 1) // n, trick_points, pts)
    return k, led_mask, best, best_pos, best_trump, table, table_pts, rest


def _legal_now(hands, seat, k, leader, best_pos, led_mask, best, best_trump, trump, team,
               seat_of, n, ctx):
    """The legal cards of ``seat``, to play at position ``k`` of the trick (the trick
    kernel's duties: an opponent holds it when its winning card's side is not his)."""
    if k == 0:
        return hands[seat]
    opp = team[seat_of[leader * n + best_pos]] != team[seat]
    return _legal_one(hands[seat], led_mask, best, best_trump, trump, opp, ctx[CTX_FOLLOW],
                      ctx[CTX_BEAT], ctx[CTX_TRUMP_DUTY], ctx[CTX_OVERTRUMP],
                      ctx[CTX_UNDERTRUMP])


def _solve_rows(hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
                seat_of, trick_points, targets, first_gen, tt, counter, out):
    """Each row's value (``targets[r] < 0``) or whether side 0 reaches ``targets[r]`` (0/1)."""
    n = hands_all.shape[1]
    hands, team, pts, ctx = _row_buffers(n)
    scratch = _scratch()
    for r in range(hands_all.shape[0]):
        k, led_mask, best, best_pos, best_trump, table, table_pts, rest = _row_setup(
            r, hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
            seat_of, trick_points, first_gen + r, ctx, hands, team, pts, targets[r])
        if targets[r] >= 0:
            t = targets[r]
            v = _search(hands, k, leaders[r], led_mask, best, best_pos, best_trump, table,
                        table_pts, rest, t - 1, t, ctx, seat_of, team, pts, tt, counter, scratch)
            out[r] = 1 if v >= t else 0
        else:
            out[r] = _mtd(hands, k, leaders[r], led_mask, best, best_pos, best_trump, table,
                          table_pts, rest, rest // 2, ctx, seat_of, team, pts, tt, counter, scratch)


def _card_rows(hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
               seat_of, trick_points, targets, first_gen, tt, counter, out):
    """Each legal card's value for the player to move (``out[r, c]``; -1: not legal)."""
    n = hands_all.shape[1]
    hands, team, pts, ctx = _row_buffers(n)
    scratch = _scratch()
    for r in range(hands_all.shape[0]):
        k, led_mask, best, best_pos, best_trump, table, table_pts, rest = _row_setup(
            r, hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
            seat_of, trick_points, first_gen + r, ctx, hands, team, pts, targets[r])
        leader = np.int64(leaders[r])
        seat = seat_of[leader * n + k]
        hand = hands[seat]
        trump = np.uint32(trumps[r])
        legal = _legal_now(hands, seat, k, leader, best_pos, led_mask, best, best_trump, trump,
                           team, seat_of, n, ctx)
        for c in range(32):
            out[r, c] = -1
        guess = rest // 2
        m = legal
        while m:
            c = _low_index(m)
            m &= m - np.uint32(1)
            bit = np.uint32(1) << np.uint32(c)
            hands[seat] = hand & ~bit
            n_led, n_best, n_pos, n_trump = _add_card(np.int64(c), k, led_mask, best, best_pos,
                                                      best_trump, trump)
            n_pts = table_pts + pts[c]
            if k == n - 1:
                won = n_pts + trick_points
                winner = seat_of[leader * n + n_pos]
                gain = won if team[winner] == 0 else np.int64(0)
                c_args = (np.int64(0), winner, np.uint32(0), np.int64(-1), np.int64(0),
                          np.bool_(False),
                          np.uint32(0), np.int64(0), rest - won)
            else:
                gain = np.int64(0)
                c_args = (k + 1, leader, n_led, n_best, n_pos, n_trump, table | bit, n_pts, rest)
            if targets[r] >= 0:
                t = targets[r] - gain
                v = _search(hands, c_args[0], c_args[1], c_args[2], c_args[3], c_args[4],
                            c_args[5], c_args[6], c_args[7], c_args[8], t - 1, t, ctx, seat_of,
                            team, pts, tt, counter, scratch)
                out[r, c] = 1 if v >= t else 0
            else:
                v = _mtd(hands, c_args[0], c_args[1], c_args[2], c_args[3], c_args[4], c_args[5],
                         c_args[6], c_args[7], c_args[8], guess - gain, ctx, seat_of, team, pts,
                         tt, counter, scratch)
                out[r, c] = gain + v
                guess = gain + v
            hands[seat] = hand


def _root_moves(hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
                seat_of, trick_points, out):
    """The cards the search tries at each row's root (after equivalent-card merging)."""
    n = hands_all.shape[1]
    hands, team, pts, ctx = _row_buffers(n)
    for r in range(hands_all.shape[0]):
        k, led_mask, best, best_pos, best_trump, table, table_pts, rest = _row_setup(
            r, hands_all, leaders, trick_all, trumps, duty_codes, duty_row, teams, pts_all,
            seat_of, trick_points, 0, ctx, hands, team, pts, -1)
        leader = np.int64(leaders[r])
        seat = seat_of[leader * n + k]
        alive = table
        for s in range(n):
            alive |= hands[s]
        legal = _legal_now(hands, seat, k, leader, best_pos, led_mask, best, best_trump,
                           np.uint32(trumps[r]), team, seat_of, n, ctx)
        out[r] = _moves(legal, alive, pts)


# ---------------------------------------------------------------- Python side


class Position:
    """A checked batch of positions, ready for the compiled search (see :func:`position`)."""

    __slots__ = ("hands", "leader", "trick", "trump_mask", "duty_codes", "duty_row", "team",
                 "card_points", "seat_of", "trick_points", "n_seats")

    def __init__(self, hands, leader, trick, trump_mask, duty_codes, duty_row, team, card_points,
                 seat_of, trick_points):
        self.hands, self.leader, self.trick = hands, leader, trick
        self.trump_mask, self.duty_codes, self.duty_row = trump_mask, duty_codes, duty_row
        self.team, self.card_points, self.seat_of = team, card_points, seat_of
        self.trick_points = trick_points
        self.n_seats = hands.shape[1]

    def __len__(self) -> int:
        return self.hands.shape[0]

    def take(self, rows) -> Position:
        """The positions of ``rows`` (an index array or a slice)."""
        return Position(self.hands[rows], self.leader[rows], self.trick[rows],
                        self.trump_mask[rows], self.duty_codes, self.duty_row[rows],
                        self.team[rows], self.card_points[rows], self.seat_of, self.trick_points)

    def args(self) -> tuple:
        return (self.hands, self.leader, self.trick, self.trump_mask, self.duty_codes,
                self.duty_row, self.team, self.card_points, self.seat_of, self.trick_points)


def position(hands, leader, trump_mask, obligations: Obligations | Sequence[Obligations], *,
             card_points, team=None, trick_points: int = 0, direction: int = CLOCKWISE,
             trick=None, table=None) -> Position:
    """Check and pack a batch of positions (``ValueError`` naming what is wrong).

    Parameters
    ----------
    hands : (N, n) uint32 masks, the cards each seat still holds (n = 2..5).
    leader : (N,) seat that led the trick in progress, or leads the next one.
    trump_mask : (N,) or scalar uint32, ``SUIT_MASK[trump]`` (0: no trump).
    obligations : the game's duty table, or several with ``table`` giving each row's.
    card_points : (32,) or (N, 32) points of each card.
    team : (n,) or (N, n) side of each seat, 0 or 1; values are side 0's points
        (default: seat 0 alone against the others).
    trick_points : points of each trick won, beside its cards.
    direction : :data:`CLOCKWISE` or :data:`COUNTER_CLOCKWISE`.
    trick : (N, n) int8 cards of the trick in progress in play order, -1 padded.
    """
    hands = np.atleast_2d(np.asarray(hands, dtype=U32))
    n_rows, n = hands.shape
    if not 2 <= n <= MAX_SEATS:
        raise ValueError(f"hands must have 2..{MAX_SEATS} seats per row, got {n}")
    if direction not in (CLOCKWISE, COUNTER_CLOCKWISE):
        raise ValueError(f"direction must be 1 (clockwise) or -1 (counter-clockwise), "
                         f"got {direction!r}")
    leader = np.ascontiguousarray(np.broadcast_to(np.asarray(leader, dtype=np.int64), (n_rows,)))
    if leader.size and (leader.min() < 0 or leader.max() >= n):
        raise ValueError(f"leader must be a seat 0..{n - 1}")
    trick = (np.full((n_rows, n), -1, np.int8) if trick is None
             else np.ascontiguousarray(np.broadcast_to(np.asarray(trick, dtype=np.int8),
                                                       (n_rows, n))))
    if ((trick < -1) | (trick >= 32)).any():
        raise ValueError("trick cards must be card indices 0..31 (-1: none)")
    k = (trick >= 0).sum(axis=1)
    if ((trick >= 0) != (np.arange(n) < k[:, None])).any():
        raise ValueError("trick: the cards on the table come first, then -1")
    if (k >= n).any():
        raise ValueError(f"trick: a trick in progress holds at most {n - 1} cards")
    team = np.ascontiguousarray(np.broadcast_to(
        np.asarray((0,) + (1,) * (n - 1) if team is None else team, dtype=np.int64), (n_rows, n)))
    if not np.isin(team, (0, 1)).all():
        raise ValueError("team labels must be 0 or 1")
    points = np.ascontiguousarray(np.broadcast_to(np.asarray(card_points, dtype=np.int64),
                                                  (n_rows, 32)))
    if (points < 0).any():
        raise ValueError("card_points must be non-negative")
    trump_mask = np.ascontiguousarray(np.broadcast_to(np.asarray(trump_mask, dtype=U32),
                                                      (n_rows,)))
    if not np.isin(trump_mask, SUIT_MASK).all():
        raise ValueError("trump_mask must be one suit's mask (tricks.SUIT_MASK) or 0")
    duty_codes, duty_row = tricks._duty_tables(obligations, table, n_rows)
    seat_of = ((np.arange(n)[:, None] + direction * np.arange(n)) % n).ravel().astype(np.int64)
    _check_cards(hands, trick, k, leader, seat_of)
    return Position(np.ascontiguousarray(hands), leader, trick, trump_mask, duty_codes,
                    np.ascontiguousarray(duty_row), team, points, seat_of, int(trick_points))


def _check_cards(hands, trick, k, leader, seat_of) -> None:
    """Every card at most once; the seats still to play hold one card more than the others."""
    n_rows, n = hands.shape
    on_table = np.zeros(n_rows, U32)
    for j in range(n):
        c = trick[:, j]
        bit = np.where(c >= 0, U32(1) << np.clip(c, 0, 31).astype(U32), U32(0))
        if (on_table & bit).any():
            raise ValueError("trick: a card is on the table twice")
        on_table |= bit
    union = np.zeros(n_rows, U32)
    for s in range(n):
        if (union & hands[:, s]).any():
            raise ValueError(f"hands: seat {s} holds a card another seat holds")
        union |= hands[:, s]
    if (union & on_table).any():
        raise ValueError("a card on the table is also in a hand")
    sizes = np.bitwise_count(hands).astype(np.int64)
    rows = np.arange(n_rows)
    # position of each seat in the trick after the leader: it played if position < k
    position_of = np.empty((n_rows, n), np.int64)
    for p in range(n):
        position_of[rows, seat_of.reshape(n, n)[leader, p]] = p
    expected = sizes[rows, leader] + (k > 0)  # the leader's hand after his lead, + 1 if he led
    want = np.where(position_of < k[:, None], expected[:, None] - 1, expected[:, None])
    if (sizes != want).any():
        bad = int(np.flatnonzero((sizes != want).any(axis=1))[0])
        raise ValueError(f"hands: row {bad} has {sizes[bad].tolist()} cards by seat; with "
                         f"{int(k[bad])} card(s) on the table and seat {int(leader[bad])} "
                         "leading, the seats still to play must hold one card more than the "
                         "others, and every seat the same number otherwise")


class _ThreadState(threading.local):
    """One thread's transposition table, table generations and node count.

    The kernels release the GIL (``nogil``), so two threads sharing one table could interleave
    between a probe and the read of its bounds: every thread that solves gets a table of its
    own (4 MB, allocated on its first search), and the values do not depend on threads."""

    def __init__(self) -> None:
        self.table: list[np.ndarray] = []
        self.generation = 1
        self.nodes = np.zeros(40, np.int64)


_THREAD = _ThreadState()


def _table() -> list[np.ndarray]:
    if not _THREAD.table:
        size = 1 << TT_BITS
        raw = np.zeros(size * TT_WAYS * 8 + 16, U32)
        start = (-raw.ctypes.data % 64) // 4  # a bucket per cache line
        _THREAD.table.append(raw[start:start + size * TT_WAYS * 8].reshape(size * TT_WAYS, 8))
    return _THREAD.table


def _generations(rows: int) -> int:
    """The first of ``rows`` fresh table generations (29 bits, leader in the low 3)."""
    first = _THREAD.generation
    if first + rows >= 1 << 29:
        _table()[0][:] = 0
        first = 1
    _THREAD.generation = first + rows
    return first


def _targets(target, n_rows: int) -> np.ndarray:
    if target is None:
        return np.full(n_rows, -1, np.int64)
    t = np.ascontiguousarray(np.broadcast_to(np.asarray(target, dtype=np.int64), (n_rows,)))
    if (t < 0).any():
        raise ValueError("target must be a non-negative number of points")
    return t


def _as_position(args, kwargs) -> Position:
    if len(args) == 1 and not kwargs and isinstance(args[0], Position):
        return args[0]
    return position(*args, **kwargs)


def solve(*args, target=None, **kwargs) -> np.ndarray:
    """Side 0's points from each position on under perfect play by both sides (int16), or
    with ``target`` (scalar or per row) whether side 0 reaches it (bool).

    Takes a :class:`Position` or :func:`position`'s arguments.
    """
    pos = _as_position(args, kwargs)
    _kernels()
    targets = _targets(target, len(pos))
    out = np.empty(len(pos), np.int64)
    _solve_rows(*pos.args(), targets, _generations(len(pos)), *_table(), _THREAD.nodes, out)
    return out.astype(bool) if target is not None else out.astype(np.int16)


def card_values(*args, target=None, **kwargs) -> np.ndarray:
    """(N, 32) int16: side 0's points after each legal card of the player to move (-1 for
    the cards he may not play), or with ``target`` 1 / 0 whether side 0 reaches it."""
    pos = _as_position(args, kwargs)
    _kernels()
    targets = _targets(target, len(pos))
    out = np.empty((len(pos), 32), np.int64)
    _card_rows(*pos.args(), targets, _generations(len(pos)), *_table(), _THREAD.nodes, out)
    return out.astype(np.int16)


def searched_moves(*args, **kwargs) -> np.ndarray:
    """(N,) uint32: the cards the search tries at each root (legal, one per equivalent run)."""
    pos = _as_position(args, kwargs)
    _kernels()
    out = np.empty(len(pos), U32)
    _root_moves(*pos.args(), out)
    return out


def player_to_move(pos: Position) -> np.ndarray:
    """(N,) the seat to play at each root."""
    k = (pos.trick >= 0).sum(axis=1)
    return pos.seat_of.reshape(pos.n_seats, pos.n_seats)[pos.leader, k]


def nodes_searched() -> int:
    """Nodes visited by every search of this thread so far (for benchmarks)."""
    return int(_THREAD.nodes[0])


# ---------------------------------------------------------------- compilation

# the ordering's and the table's helpers are inlined into the search (a call with array
# arguments cost more than their work: 362 -> 588 deals/s); _endgame stays a kernel of its
# own at no measured cost, which keeps the first compile at about 15 s instead of 21 s
_KERNELS = ("_scratch", "_row_buffers", "_search", "_endgame", "_points_left",
            "_enter_trick", "_mtd", "_row_setup", "_solve_rows", "_card_rows", "_root_moves")
_INLINED = ("popcount32", "_low_index", "_high_index", "_legal_now", "_add_card",
            "_moves", "_order", "_ordered_moves", "_tt_index", "_tt_probe", "_tt_store",
            "_sure_trump_points", "_suits_held", "_last_trick", "_endgame_first", "_above",
            "_lead_masks", "_follow_masks")


def _kernels() -> None:
    """Jit this module's kernels once per process (numba, ``cache=True``; see core.jit).

    The duties are the trick kernel's own compiled ``_legal_one`` (compiled there first).
    """
    tricks._kernels()
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

    globals().update(_legal_one=tricks._legal_one, _takes_one=tricks._takes_one,
                     _cttz=trailing_zeros, _ctlz=leading_zeros)
    jit_once(globals(), _KERNELS, inline=_INLINED)


def warm_up() -> float:
    """Compile (or load from the on-disk cache) the solver; seconds taken."""
    start = time.perf_counter()
    hands = np.array([[0x1, 0x2, 0x4, 0x8]], dtype=U32)
    solve(hands, 0, U32(0), Obligations(), card_points=np.ones(32, np.int64))
    card_values(hands, 0, U32(0), Obligations(), card_points=np.ones(32, np.int64))
    searched_moves(hands, 0, U32(0), Obligations(), card_points=np.ones(32, np.int64))
    return time.perf_counter() - start
