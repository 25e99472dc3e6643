"""The numba kernel behind :mod:`simulators.truc.fast` (imported only when first used).

Each function mirrors a numpy counterpart line for line — engine:
``shuffle_prefix``, ``_card_call``, ``_proposals``, ``_play_tricks``,
``_end_trick``; policies: ``call``/``propose``/``answer``/``play`` of the
three shipped classes and ``win_chance``/``hold_probability`` — with the
same dtypes (float32 where numpy computes in float32, float64 where it
promotes), so that both paths give identical results
(``tests/truc/test_truc_fast.py``). Card masks are int64 holding 32 bits.
"""

from __future__ import annotations

import numpy as np

from simulators.core.bits import highest_index32, lowest_index32, popcount32
from simulators.core.jit import jit_once
from simulators.truc import rules as R
from simulators.truc.policies import NOT_BEATING as _NB
from simulators.truc.policies import WIN_SHARE as _WS

NOT_BEATING = _NB.astype(np.int64)
WIN_SHARE = _WS.astype(np.float64)
ALL = np.int64(R.ALL_CARDS)
F1 = np.float32(1.0)
F0 = np.float32(0.0)
WON, LOST, POURRI = R.WON, R.LOST, R.POURRI
REFUSE, ACCEPT, COUNTER = R.REFUSE, R.ACCEPT, R.COUNTER
PLAYED, REFUSED, NULL = R.PLAYED, R.REFUSED, R.NULL
HEURISTIC, ORDERED, RANDOM = 0, 1, 2


def select_bit(m, k):
    for i in range(32):
        if (m >> i) & 1:
            if k == 0:
                return i
            k -= 1
    return -1


def hold(card, unseen, n, inverse):
    if card < 0:
        return F0
    q = np.float32(popcount32(unseen & NOT_BEATING[card])) * inverse
    p = q
    for _ in range(n - 1):
        p = p * q
    return p


def inverse_count(unseen):
    return F1 / np.float32(max(popcount32(unseen), 1))


def strongest3(hand):
    rest = hand
    out0 = out1 = out2 = -1
    if rest:
        low = rest & -rest
        out0 = popcount32(low - 1)
        rest ^= low
    if rest:
        low = rest & -rest
        out1 = popcount32(low - 1)
        rest ^= low
    if rest:
        low = rest & -rest
        out2 = popcount32(low - 1)
    return out0, out1, out2


def win_chance(hand, discarded, played, trick, position, to_play, table, r0, r1, r2):
    unseen = ALL & ~(hand | discarded | played)
    inverse = inverse_count(unseen)
    cards = strongest3(hand)
    n_opp = 3 - trick
    now_count = 0
    now_p = (F0, F0, F0)
    if position == 1:
        table_rank = table >> 2
        if to_play:
            best_rank = cards[0] >> 2
            win_now = cards[0] >= 0 and best_rank < table_rank
            tie_now = cards[0] >= 0 and best_rank == table_rank
            lost_now = not win_now and not tie_now
            now_count = 3
            now_p = (F1 if win_now else F0, F1 if lost_now else F0, F1 if tie_now else F0)
        else:
            h = hold(table, unseen, n_opp, inverse)
            now_count = 2
            now_p = (h, F1 - h, F0)
    first_future = trick + (1 if position == 1 else 0)
    used = 1 if (position == 1 and to_play) else 0
    n_free = 3 - first_future
    p0 = p1 = p2 = F0
    for k in range(n_free):
        idx = used + k
        p = hold(cards[idx], unseen, 3 - (first_future + k), inverse) if idx < 3 else F0
        if k == 0:
            p0 = p
        elif k == 1:
            p1 = p
        else:
            p2 = p
    probs = (p0, p1, p2)
    share = 0.0
    has_now = 1 if now_count else 0
    for o in range(max(now_count, 1)):
        now_code = (WON, LOST, POURRI)[o]
        for pattern in range(1 << n_free):
            weight = now_p[o] if now_count else F1
            for k in range(n_free):
                if (pattern >> k) & 1:
                    weight = weight * probs[k]
                else:
                    weight = weight * (F1 - probs[k])
            index = 0
            for j in range(3):
                if j < trick:
                    code = r0 if j == 0 else (r1 if j == 1 else r2)
                elif has_now and j == trick:
                    code = now_code
                else:
                    code = WON if (pattern >> (j - trick - has_now)) & 1 else LOST
                index = index * 4 + code
            share = share + np.float64(weight) * WIN_SHARE[index]
    return share


def decide_call(kind, params, noise, hand, discarded):
    if kind == HEURISTIC:
        unseen = ALL & ~(hand | discarded)
        inverse = inverse_count(unseen)
        c = strongest3(hand)
        strength = (hold(c[0], unseen, 1, inverse) + hold(c[1], unseen, 1, inverse)) \
            / np.float32(2)
        return strength < np.float32(params[0])
    if kind == RANDOM:
        return noise < np.float32(params[0])
    return False


def decide_propose(kind, params, noise, chance):
    if kind == HEURISTIC:
        return chance >= params[1] or noise < np.float32(params[4])
    if kind == RANDOM:
        return noise < np.float32(params[1])
    return False


def decide_answer(kind, params, noise, chance, opp_score, proposal, stake, target, counter):
    if kind == HEURISTIC:
        threshold = params[2] + params[5] if opp_score + proposal >= target else params[2]
        accept = chance >= threshold or opp_score + stake >= target
        if accept and counter > 0 and chance >= params[3]:
            return COUNTER
        return ACCEPT if accept else REFUSE
    if kind == RANDOM:
        accept = noise < np.float32(params[2])
        scaled = noise / np.float32(max(params[2], 1e-30))
        if accept and counter > 0 and scaled < np.float32(params[3]):
            return COUNTER
        return ACCEPT if accept else REFUSE
    return ACCEPT


def decide_play(kind, params, noise, hand, trick, position, table, r0):
    if kind == RANDOM:
        n = popcount32(hand)
        return select_bit(hand, int(noise * np.float32(n)))
    if kind == ORDERED:
        return lowest_index32(hand) if params[0] else highest_index32(hand)
    c = strongest3(hand)
    c1, c2, c3 = c[0], c[1], c[2]
    weakest = c3 if c3 >= 0 else (c2 if c2 >= 0 else c1)
    if position == 0:
        if trick > 0:
            return c1
        lead = int(params[6])
        if lead == 0:
            return weakest
        if lead == 1:
            return c2 if c2 >= 0 else c1
        return c1
    table_rank = table >> 2
    choice = weakest
    if params[8]:
        awarded = r0 == WON if trick > 0 else True
        for k in (2, 1, 0):
            if c[k] >= 0 and (c[k] >> 2) == table_rank and awarded:
                choice = c[k]
    order = (2, 1, 0) if params[7] else (0, 1, 2)
    for k in order:
        if c[k] >= 0 and (c[k] >> 2) < table_rank:
            return c[k]
    return choice


def chance_of(kind, hand, discarded, played, trick, position, to_play, table, r0, r1, r2):
    if kind != HEURISTIC:
        return 0.0
    return win_chance(hand, discarded, played, trick, position, to_play, table, r0, r1, r2)


def shuffle_steps(deck, u, i, start, stop):
    # deck and uniforms indexed by (row, position): no row view (and reference count) per call
    for j in range(start, stop):
        r = j + int(u[i, j] * np.float32(32 - j))
        if r > 31:
            r = 31
        held = deck[i, r]
        deck[i, r] = deck[i, j]
        deck[i, j] = held


def hand_of(deck, i, start):
    return (np.int64(1) << deck[i, start]) | (np.int64(1) << deck[i, start + 1]) \
        | (np.int64(1) << deck[i, start + 2])


def _param_tuple(p):
    return (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8])


def play_kernel(deck, shuffle_u, lazy, noise, has_noise, dealer, scores, kinds, params, target,
                card_call, counter_banco, force_role, force_ask,
                calls, hand_no, plays, leaders, trick_winners, proposed, answers, counters,
                replies, stakes, stake_out, outcome, winner, points):
    n_rows = deck.shape[0]
    scratch = (np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros((2, 3), np.int64),
               np.zeros((2, 3), np.int64), np.zeros(3, np.int64))
    # each seat's parameters as a tuple of floats: no array view (and its reference count) per deal
    by_seat = (_param_tuple(params[0]), _param_tuple(params[1]))
    for i in range(n_rows):
        d = np.int64(dealer[i])
        seat = (np.int64(1 - d), d)
        kind = (kinds[1 - d], kinds[d])
        par = (by_seat[1], by_seat[0]) if d == 0 else by_seat
        score = (np.int64(scores[i, 1 - d]), np.int64(scores[i, d]))

        if lazy:
            shuffle_steps(deck, shuffle_u, i, 0, 6)
        h0, h1 = hand_of(deck, i, 0), hand_of(deck, i, 3)
        disc0, disc1 = np.int64(0), np.int64(0)
        hn = 0
        if card_call:
            hn = -1
            for k in range(5):
                if k > 0:
                    if lazy:
                        shuffle_steps(deck, shuffle_u, i, 6 * k, 6 * k + 6)
                    disc0 |= h0
                    disc1 |= h1
                    h0, h1 = hand_of(deck, i, 6 * k), hand_of(deck, i, 6 * k + 3)
                decided = False
                for role in range(2):
                    if force_role == role and k == 0:
                        ask = force_ask
                    else:
                        nz = noise[i, 2 * k + role] if has_noise else np.float32(0.5)
                        ask = decide_call(kind[role], par[role], nz,
                                          h0 if role == 0 else h1, disc0 if role == 0 else disc1)
                    calls[i, 2 * k + role] = 1 if ask else 0
                    if not ask:
                        decided = True
                        break
                if decided:
                    hn = k
                    break
        hand_no[i] = hn
        if hn < 0:
            continue
        _play_deal(i, scratch, seat, kind, par, score, h0, h1, disc0, disc1, target,
                   counter_banco, noise, has_noise, plays, leaders, trick_winners, proposed,
                   answers, counters, replies, stakes, stake_out, outcome, winner, points)


def _play_deal(i, scratch, seat, kind, par, score, h0, h1, disc0, disc1, target, counter_banco,
               noise, has_noise, plays, leaders, trick_winners, proposed, answers, counters,
               replies, stakes, stake_out, outcome, winner, points):
    hand, disc, cards, results, tw = scratch
    hand[0], hand[1] = h0, h1
    disc[0], disc[1] = disc0, disc1
    cards[:] = -1
    results[:] = 0
    tw[:] = -2
    played = np.int64(0)
    stake = 1
    leader = 0
    for t in range(3):
        for p in range(2):
            actor = leader if p == 0 else 1 - leader
            other = 1 - actor
            slot = 2 * t + p
            base = 10 + 4 * slot
            table = cards[leader, t] if p == 1 else -1
            offered = min(2 * stake, target - score[actor])
            if offered > stake:
                banco = offered < 2 * stake
                chance = chance_of(kind[actor], hand[actor], disc[actor], played, t, p, True,
                                   table, results[actor, 0], results[actor, 1],
                                   results[actor, 2])
                nz = noise[i, base] if has_noise else np.float32(0.5)
                if decide_propose(kind[actor], par[actor], nz, chance):
                    lacks = target - score[other]
                    counter = lacks if (banco and lacks > offered and counter_banco) else 0
                    chance = chance_of(kind[other], hand[other], disc[other], played, t, p,
                                       False, table, results[other, 0], results[other, 1],
                                       results[other, 2])
                    nz = noise[i, base + 1] if has_noise else np.float32(0.5)
                    answer = decide_answer(kind[other], par[other], nz, chance, score[actor],
                                           offered, stake, target, counter)
                    proposed[i, slot] = offered
                    answers[i, slot] = answer
                    counters[i, slot] = counter if answer == COUNTER else 0
                    if answer == REFUSE:
                        _finish(i, REFUSED, seat[actor], stake, stake, tw, stake_out, outcome,
                                winner, points, trick_winners)
                        return
                    if answer == ACCEPT:
                        stake = offered
                    else:
                        chance = chance_of(kind[actor], hand[actor], disc[actor], played, t, p,
                                           True, table, results[actor, 0], results[actor, 1],
                                           results[actor, 2])
                        nz = noise[i, base + 2] if has_noise else np.float32(0.5)
                        reply = decide_answer(kind[actor], par[actor], nz, chance, score[other],
                                              counter, offered, target, 0)
                        replies[i, slot] = reply
                        if reply == ACCEPT:
                            stake = counter
                        else:
                            _finish(i, REFUSED, seat[other], offered, offered, tw, stake_out,
                                    outcome, winner, points, trick_winners)
                            return
            nz = noise[i, base + 3] if has_noise else np.float32(0.5)
            card = decide_play(kind[actor], par[actor], nz, hand[actor], t, p, table,
                               results[actor, 0])
            hand[actor] ^= np.int64(1) << card
            played |= np.int64(1) << card
            cards[actor, t] = card
            stakes[i, slot] = stake
            plays[i, slot] = card
            if p == 0:
                leaders[i, t] = seat[actor]
        lead_rank = cards[leader, t] >> 2
        reply_rank = cards[1 - leader, t] >> 2
        follower = 1 - leader
        if lead_rank == reply_rank:
            results[0, t] = POURRI
            results[1, t] = POURRI
            tw[t] = -1
        elif lead_rank < reply_rank:
            results[leader, t], results[follower, t] = WON, LOST
            tw[t] = seat[leader]
        else:
            results[leader, t], results[follower, t] = LOST, WON
            tw[t] = seat[follower]
            leader = follower
        if t == 1:
            w0, w1 = tw[0], tw[1]
            if (w0 >= 0 and w0 == w1) or ((w0 < 0) != (w1 < 0)):
                _finish(i, PLAYED, w0 if w0 >= 0 else w1, stake, stake, tw, stake_out, outcome,
                        winner, points, trick_winners)
                return
        elif t == 2:
            w0, w2 = tw[0], tw[2]
            w = w2 if w0 < 0 else (w0 if w2 < 0 else w2)
            if w < 0:
                _finish(i, NULL, -1, 0, stake, tw, stake_out, outcome, winner, points,
                        trick_winners)
            else:
                _finish(i, PLAYED, w, stake, stake, tw, stake_out, outcome, winner, points,
                        trick_winners)
            return


def _finish(i, how, who, pts, stake, tw, stake_out, outcome, winner, points, trick_winners):
    stake_out[i] = stake
    outcome[i] = how
    winner[i] = who
    points[i] = pts
    for t in range(3):
        trick_winners[i, t] = tw[t]


# scalar-only helpers: plain compiled calls
_SCALAR = ("select_bit", "hold", "inverse_count", "strongest3", "win_chance", "chance_of")
# helpers taking arrays: inlined, so no call (and no reference counting) per deal; and the
# scalar bit helpers of simulators.core.bits
_INLINED = ("popcount32", "lowest_index32", "highest_index32", "_param_tuple", "decide_call",
            "decide_propose", "decide_answer", "decide_play", "shuffle_steps", "hand_of",
            "_finish", "_play_deal")


def compiled():
    """Jit every function of this module once (see core.jit) and return the kernel."""
    jit_once(globals(), _SCALAR + ("play_kernel",), inline=_INLINED)
    return globals()["play_kernel"]
