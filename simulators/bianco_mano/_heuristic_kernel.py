"""Bianco Mano's heuristic bids and cards as compiled passes over the rows (numba, cached).

:class:`~simulators.bianco_mano.policies.HeuristicPolicy` hands its bidding
(``bid``, ``bid_score``) and its card play (``play``) to these passes: the
same numpy observation in, the same numpy actions out, one row at a time.
Plain Python in numba's subset, jitted by :func:`kernels` on first use:
importing this module does not import numba.
"""

from __future__ import annotations

import numpy as np

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import BONUS_MASK, FAMILY_MASK, STRONGER
from simulators.core.bits import highest_index32, lowest_bit32, lowest_index32, popcount32
from simulators.core.jit import jit_once

MAMMAS = np.uint32(R.RANK_MASK[0])
PASS = R.PASS


def heuristic_cards(position, n_players, hand, legal, dom_mask, led_mask, winning_card, ally,
                    played, on_side, lead_trump_min, charge_partner, out):
    """HeuristicPolicy's card for each row: a pool of cards, then its strongest or weakest."""
    last = position == n_players - 1
    charge = charge_partner == 2 or (charge_partner == 1 and last)
    for i in range(hand.shape[0]):
        dom = dom_mask[i]
        if position == 0:
            # lead: draw dominant cards (taker's side, enough of them, some still out),
            # else cash a side master card, else the weakest side card, else anything
            h = hand[i]
            unseen = ~played[i] & ~h
            n_dom = popcount32(h & dom)
            masters = np.uint32(0)
            for family in range(4):
                masters |= lowest_bit32(FAMILY_MASK[family] & ~played[i]) & h
            masters &= ~dom
            side = h & ~dom
            # at least one dominant card to draw with, even at lead_trump_min 0
            if on_side[i] and n_dom >= max(lead_trump_min, 1) and (unseen & dom) != 0:
                pool, strongest = h & dom, True
            elif masters != 0:
                pool, strongest = masters, True
            else:
                pool, strongest = (side if side != 0 else h), False
        else:
            # follow: win as cheaply as possible against opponents; feed or discard
            # under an ally who holds the trick
            lg = legal[i]
            best = winning_card[i]
            stronger = STRONGER[best]
            if (dom >> np.uint32(best)) & np.uint32(1):
                beaters = lg & stronger
            else:
                beaters = (lg & dom) | (lg & led_mask[i] & stronger)
            side_legal = lg & ~dom
            side_beaters = beaters & ~dom
            if not ally[i] and beaters != 0:
                pool = side_beaters if side_beaters != 0 else beaters
                strongest = side_beaters != 0 and not last
            else:
                pool = side_legal if side_legal != 0 else lg
                strongest = ally[i] and side_legal != 0 and charge
        out[i] = lowest_index32(pool) if strongest else highest_index32(pool)


def _score(hand, family, strength, side_mamma_value):
    """Bid score per card of one hand if ``family`` were dominant (see HeuristicPolicy)."""
    ranks = 0
    for rank in range(8):
        ranks |= ((hand >> np.uint32(4 * rank + family)) & np.uint32(1)) << np.uint32(rank)
    side_mammas = popcount32(hand & MAMMAS & ~FAMILY_MASK[family])
    return (strength[ranks] + side_mamma_value * side_mammas) / popcount32(hand)


def bid_scores(hand, family, strength, side_mamma_value):
    out = np.empty(hand.shape[0])
    for i in range(hand.shape[0]):
        out[i] = _score(hand[i], family[i], strength, side_mamma_value)
    return out


def heuristic_bids(round_, hand, turned_card, strength, side_mamma_value, bonus_discount,
                   take_threshold, round2_threshold, out):
    """HeuristicPolicy's bid for each row: the turned family (round 1) or the best
    other family (round 2) when its score, plus the BM-11 discount where both
    bonus cards are held, reaches the round's threshold; else pass."""
    for i in range(hand.shape[0]):
        turned_family = turned_card[i] & 3
        h = hand[i] | (np.uint32(1) << np.uint32(turned_card[i]))  # the taker receives it
        if round_ == 1:
            score = _score(h, turned_family, strength, side_mamma_value)
            if bonus_discount and (h & BONUS_MASK[turned_family]) == BONUS_MASK[turned_family]:
                score += bonus_discount
            out[i] = turned_family if score >= take_threshold else PASS
            continue
        best_family, best_score = PASS, -1.0
        for family in range(4):
            score = _score(h, family, strength, side_mamma_value)
            if bonus_discount and (h & BONUS_MASK[family]) == BONUS_MASK[family]:
                score += bonus_discount
            if family == turned_family:
                score = -1.0
            if score > best_score:
                best_family, best_score = family, score
        out[i] = best_family if best_score >= round2_threshold else PASS


KERNEL_NAMES = ("heuristic_cards", "bid_scores", "heuristic_bids")
INLINED = ("popcount32", "lowest_bit32", "lowest_index32", "highest_index32", "_score")


def kernels() -> None:
    """Jit this module's passes once per process (numba, ``cache=True``; see core.jit).

    Call it before the first use of a pass: until then they are plain Python.
    """
    jit_once(globals(), KERNEL_NAMES, inline=INLINED)
