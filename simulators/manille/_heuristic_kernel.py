"""The heuristic's decisions as compiled passes over the rows (numba, cached on disk).

:class:`~simulators.manille.policies.HeuristicPolicy` states its rules in
numpy (``choice_scores``, ``choose``, ``contre``, ``_lead``, ``_follow``); at
batch 10⁵ those statements allocate a few dozen temporaries per card and
were the engine's largest cost. These are the same rules written for one row
at a time, with the same floating-point operations in the same order: the
same observation in, the same decision out on every row
(``tests/manille/test_manille_heuristic_kernel.py`` plays real batches both
ways and compares every decision). Plain numpy policies need none of this.
Plain Python in numba's subset, jitted by :func:`kernels` on first use:
importing this module does not import numba.
"""

from __future__ import annotations

import time

import numpy as np

from simulators.core import tricks
from simulators.core.bits import highest_index32, lowest_index32, popcount32
from simulators.core.jit import jit_once
from simulators.manille import rules as R

SUIT_MASK = tricks.SUIT_MASK  # index 4 (sans atout): no trump card
STRONGER = tricks.STRONGER
MANILLES = np.uint32(R.RANK_MASK[R.MANILLE])
MANILLONS = np.uint32(R.RANK_MASK[R.MANILLON])


def _masters(hand, unseen):
    """Cards of ``hand`` no unseen card of their suit beats (see policies.masters)."""
    smear = np.uint32(unseen | np.uint32(unseen << np.uint32(4)))
    smear |= np.uint32(smear << np.uint32(8))
    smear |= np.uint32(smear << np.uint32(16))
    return hand & ~np.uint32(smear << np.uint32(4))


def _lead_one(hand, played, trump, trump_mask, taking, lead_trumps_min):
    """(pool, strongest) of a leader: policies.HeuristicPolicy._lead for one row."""
    unseen = ~(played | hand)
    trumps = hand & trump_mask
    top = _masters(hand, unseen)
    trumps_out = (unseen & trump_mask) != 0
    if taking and popcount32(trumps) >= lead_trumps_min and trumps_out:
        top_trumps = trumps & top
        if top_trumps != 0:
            return top_trumps, True
        return trumps, False
    side_top = top & ~trump_mask
    safe_side = side_top & MANILLES if trumps_out else side_top
    if safe_side != 0:
        return safe_side, True
    long_side = np.uint32(0)
    best_len = -1
    for suit in range(4):
        if suit == trump:
            continue
        cards = hand & SUIT_MASK[suit]
        length = popcount32(cards)
        if length > best_len:
            long_side, best_len = cards, length
    return (long_side if long_side != 0 else hand), False


def _follow_one(hand, legal, played, trump_mask, winning_card, partner_holds, last,
                charge_partner):
    """(pool, strongest) of a follower: policies.HeuristicPolicy._follow for one row."""
    stronger = STRONGER[winning_card]
    best_is_trump = ((trump_mask >> np.uint32(winning_card)) & np.uint32(1)) != 0
    side_legal = legal & ~trump_mask
    low = side_legal if side_legal != 0 else legal
    top = _masters(hand, ~(played | hand))
    if partner_holds:
        if charge_partner == 0:
            return low, False
        gifts = side_legal & ~top
        give = gifts != 0
        if charge_partner == 1 and not last:
            unseen = ~(played | hand)
            give = give and (stronger & unseen) == 0 and (
                best_is_trump or (unseen & trump_mask) == 0)
        return (gifts if give else low), give
    beaters = legal & (stronger | (np.uint32(0) if best_is_trump else trump_mask))
    if beaters == 0:
        return low, False
    side_beaters = beaters & ~trump_mask
    cheapest = side_beaters if side_beaters != 0 else beaters
    if last:
        return cheapest, False
    sure = side_beaters & top
    if sure != 0:
        return sure, True
    return cheapest, False


def heuristic_cards(position, hand, legal, played, trump, trump_mask, winning_card,
                    partner_holds, taking, lead_trumps_min, charge_partner, out):
    """HeuristicPolicy's card for each row: a pool of cards, then its strongest or weakest."""
    last = position == R.N_SEATS - 1
    for i in range(hand.shape[0]):
        if position == 0:
            pool, strongest = _lead_one(hand[i], played[i], trump[i], trump_mask[i], taking[i],
                                        lead_trumps_min)
        else:
            pool, strongest = _follow_one(hand[i], legal[i], played[i], trump_mask[i],
                                          winning_card[i], partner_holds[i], last,
                                          charge_partner)
        out[i] = lowest_index32(pool) if strongest else highest_index32(pool)


def _rank_pattern(hand, suit):
    """The 8-bit rank pattern (bit r = rank r held) of one suit (as policies._suit_ranks)."""
    spread = (hand >> np.uint32(suit)) & np.uint32(0x11111111)
    packed = (spread | (spread >> np.uint32(3))) & np.uint32(0x03030303)
    packed = (packed | (packed >> np.uint32(6))) & np.uint32(0x000F000F)
    return np.int64((packed | (packed >> np.uint32(12))) & np.uint32(0xFF))


def _suit_score(h, suit, manilles, trump_table, side_manille_value):
    """A suit's choice score (HeuristicPolicy.choice_scores, column ``suit``)."""
    side = manilles - np.float64((h >> np.uint32(suit)) & np.uint32(1))
    return trump_table[_rank_pattern(h, suit)] + side_manille_value * side


def _sans_atout_score(h, manilles, sa_manille_value, sa_manillon_value, sans_atout_margin):
    """Sans atout's choice score (HeuristicPolicy.choice_scores, column 4)."""
    guarded = popcount32(h & MANILLONS & np.uint32((h & MANILLES) << np.uint32(4)))
    return (sa_manille_value * manilles + sa_manillon_value * np.float64(guarded)
            - sans_atout_margin)


def _choice_scores_one(hand, trump_table, side_manille_value, sa_manille_value,
                       sa_manillon_value, sans_atout_margin, out):
    """The five choice scores of one hand, with HeuristicPolicy.choice_scores' operations."""
    h = np.uint32(hand)
    manilles = np.float64(popcount32(h & MANILLES))
    for suit in range(4):
        out[suit] = _suit_score(h, suit, manilles, trump_table, side_manille_value)
    out[4] = _sans_atout_score(h, manilles, sa_manille_value, sa_manillon_value,
                               sans_atout_margin)


def choice_scores(hand, trump_table, side_manille_value, sa_manille_value, sa_manillon_value,
                  sans_atout_margin):
    """(N, 5) choice scores: HeuristicPolicy.choice_scores, one row at a time."""
    out = np.empty((hand.shape[0], 5))
    for i in range(hand.shape[0]):
        _choice_scores_one(hand[i], trump_table, side_manille_value, sa_manille_value,
                           sa_manillon_value, sans_atout_margin, out[i])
    return out


def choose_rows(hand, legal, passed, pass_threshold, trump_table, side_manille_value,
                sa_manille_value, sa_manillon_value, sans_atout_margin, out):
    """HeuristicPolicy.choose per row: the first best allowed score, or pass below the
    threshold (the dealer only)."""
    scores = np.empty(5)
    for i in range(hand.shape[0]):
        _choice_scores_one(hand[i], trump_table, side_manille_value, sa_manille_value,
                           sa_manillon_value, sans_atout_margin, scores)
        best, best_score = 0, -np.inf
        for choice in range(5):
            if (legal[i] >> choice) & 1 and scores[choice] > best_score:
                best, best_score = choice, scores[choice]
        out[i] = best if passed or best_score >= pass_threshold else R.PASS_TO_PARTNER


def contre_rows(hand, trump, threshold, trump_table, side_manille_value, sa_manille_value,
                sa_manillon_value, sans_atout_margin, out):
    """HeuristicPolicy.contre per row: the named trump's score (sans atout without its
    margin) at ``threshold`` or more."""
    for i in range(hand.shape[0]):
        h = np.uint32(hand[i])
        manilles = np.float64(popcount32(h & MANILLES))
        if trump[i] == R.SANS_ATOUT:
            score = _sans_atout_score(h, manilles, sa_manille_value, sa_manillon_value,
                                      sans_atout_margin) + sans_atout_margin
        else:
            score = _suit_score(h, trump[i], manilles, trump_table, side_manille_value)
        out[i] = score >= threshold


KERNEL_NAMES = ("heuristic_cards", "choice_scores", "choose_rows", "contre_rows")
INLINED = ("popcount32", "lowest_index32", "highest_index32", "_masters", "_lead_one",
           "_follow_one", "_rank_pattern", "_suit_score", "_sans_atout_score", "_choice_scores_one")


def kernels() -> None:
    """Jit this module's passes once per process (numba, ``cache=True``; see core.jit).

    Call it before the first use of a pass: until then they are plain Python.
    """
    jit_once(globals(), KERNEL_NAMES, inline=INLINED)


def warm_up() -> float:
    """Compile (or load from the on-disk cache) the heuristic's passes; seconds taken."""
    start = time.perf_counter()
    kernels()
    hand = np.array([0xFF, 0xFF00], dtype=np.uint32)
    small = np.zeros(2, dtype=np.int8)
    flag = np.zeros(2, dtype=np.bool_)
    table = np.zeros(256)
    played = np.zeros((2, 4), dtype=np.uint32)[:, 2]  # the engine's: a column of its state
    out = np.empty(2, dtype=np.int8)
    for position in (0, 1):
        heuristic_cards(position, hand, hand, played, small, hand, small, flag, flag, 3, 1, out)
    choice_scores(hand, table, 1.0, 1.0, 1.0, 1.0)
    choose_rows(hand, np.full(2, 0b111111, dtype=np.uint8), False, 1.0, table, 1.0, 1.0, 1.0,
                1.0, out)
    contre_rows(hand, small, 1.0, table, 1.0, 1.0, 1.0, 1.0, flag)
    return time.perf_counter() - start
