"""Bianco Mano policies: a random-legal baseline and a parameterized heuristic.

Both are plain numpy over whole batches (see ``observations.py`` for the
decision methods and what each observation holds). To write your own, copy
one, keep the method signatures, and declare parameters with
:func:`~simulators.core.params.param` so they are validated and reported::

    @dataclass(frozen=True)
    class AlwaysTake(HeuristicPolicy):
        def bid(self, obs):
            return np.where(obs.round == 1, obs.turned_card & 3, PASS).astype(np.int8)
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import BONUS_MASK, FAMILY_MASK, STRONGER
from simulators.core import bits
from simulators.core.params import Policy, param

U32 = np.uint32
I8 = np.int8
MAMMAS = U32(R.RANK_MASK[0])
PASS = R.PASS
ZERO = U32(0)


def _choose(noise, probability) -> np.ndarray:
    """Rows where a uniform falls below ``probability``."""
    return noise < probability


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """Uniformly random legal play; takes and announces with set probabilities."""

    uses_noise = True

    take_probability: float = param(0.5, low=0.0, high=1.0,
                                    doc="probability of taking at each bidding turn")
    announce_probability: float = param(0.5, low=0.0, high=1.0,
                                        doc="probability of announcing an eligible bonus")
    large_first_probability: float = param(0.5, low=0.0, high=1.0,
                                           doc="chance the dealer deals the large packet first")

    def first_packet(self, obs):
        """Large or small packet first, at random."""
        large = _choose(obs.noise, self.large_first_probability)
        return np.where(large, max(obs.choices), min(obs.choices)).astype(I8)

    def bid(self, obs):
        """Take with ``take_probability``, naming a legal family at random."""
        take = _choose(obs.noise, self.take_probability)
        rescaled = obs.noise / max(self.take_probability, 1e-300)
        family = bits.random_bit(obs.legal & np.uint8(15), np.minimum(rescaled, 0.999999))
        return np.where(take, family, R.PASS).astype(I8)

    def espion(self, obs):
        """Two cards of the hand at random."""
        count = bits.popcount(obs.hand)
        first = bits.card_bits(bits.random_bit(obs.hand, obs.noise))
        second_noise = (obs.noise * count) % 1.0
        second = bits.card_bits(bits.random_bit(obs.hand & ~first, second_noise))
        return first | second

    def call(self, obs):
        """A legal card at random."""
        return bits.random_bit(obs.legal, obs.noise)

    def announce(self, obs):
        """Announce an eligible bonus with ``announce_probability``."""
        return obs.eligible & _choose(obs.noise, self.announce_probability)

    def play(self, obs):
        """A legal card at random."""
        return bits.random_bit(obs.legal, obs.noise)


def _strength_table(trump_card_value: float) -> np.ndarray:
    """Bid strength of each subset of one family's 8 ranks when dominant (256 entries)."""
    per_rank = np.array([R.DOMINANT_FACTOR * p + trump_card_value for p in R.BASE_POINTS])
    subsets = np.arange(256)[:, None] >> np.arange(8) & 1
    return subsets @ per_rank


def _weakest(mask):
    return bits.highest_bit(mask)


def _strongest(mask):
    return bits.lowest_bit(mask)


def _prefer(*masks):
    """First non-empty mask of each row, in order."""
    out = masks[-1]
    for m in reversed(masks[:-1]):
        out = np.where(m != 0, m, out)
    return out


@dataclass(frozen=True)
class HeuristicPolicy(Policy):
    """A sensible table player, tunable by a few named parameters.

    Bidding scores the cards known at bid time (first distribution plus the
    turned card) for a family ``f`` as: for each card of ``f``, its doubled
    points plus ``trump_card_value``; plus ``side_mamma_value`` per Mamma of
    another family; divided by the number of cards. It takes when that
    score per card reaches ``take_threshold`` (``round2_threshold`` for the
    best other family in round 2).
    In play it draws dominant cards when holding ``lead_trump_min`` of them
    on the taker's side, cashes master cards, wins tricks as cheaply as it
    can, gives points to a partner who holds the trick (``charge_partner``)
    and otherwise discards its cheapest card.
    """

    take_threshold: float = param(4.0, low=0.0, high=30.0,
                                  doc="bid score per card needed to take in round 1")
    round2_threshold: float = param(4.5, low=0.0, high=30.0,
                                    doc="bid score per card needed to name a family in round 2")
    trump_card_value: float = param(3.0, low=0.0, high=20.0,
                                    doc="bid value of holding any dominant card")
    side_mamma_value: float = param(4.0, low=0.0, high=20.0,
                                    doc="bid value of a Mamma of another family")
    large_first: bool = param(True, doc="dealer deals the large packet first")
    espion_keep_mammas: bool = param(True, doc="never put a side Mamma in the espion")
    announce_bonus: bool = param(True, doc="announce Bianco Mano whenever eligible")
    bonus_discount: float = param(0.0, low=0.0, high=30.0,
                                  doc="threshold cut when holding both BM-11 bonus cards")
    lead_trump_min: int = param(3, low=0, high=9,
                                doc="dominant cards held to lead them, taker's side (9: never)")
    charge_partner: int = param(1, low=0, high=2,
                                doc="feed a winning partner points: 0 never, 1 if last, 2 always")

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "_strength", _strength_table(self.trump_card_value))

    # bidding -----------------------------------------------------------------
    def first_packet(self, obs):
        """The large packet first, or the small one."""
        size = max(obs.choices) if self.large_first else min(obs.choices)
        return np.full(len(obs.dealer), size, dtype=I8)

    def bid_score(self, hand, family) -> np.ndarray:
        """Bid score per card of ``hand`` if ``family`` were dominant."""
        hand = np.atleast_1d(np.asarray(hand, dtype=U32))
        family = np.broadcast_to(np.asarray(family, dtype=np.int64), hand.shape)
        return _bid_scores(hand, np.ascontiguousarray(family), self._strength,
                           self.side_mamma_value)

    def bid(self, obs):
        """Take the turned family, or in round 2 the best other one, above a threshold.

        One compiled pass over the rows (:func:`_heuristic_bids`), like ``play``.
        """
        discount = self.bonus_discount if obs.bianco_mano else 0.0
        out = np.empty(len(obs.hand), dtype=I8)
        _heuristic_bids(obs.round, obs.hand, obs.turned_card, self._strength,
                        self.side_mamma_value, discount, self.take_threshold,
                        self.round2_threshold, out)
        return out

    # after bidding -----------------------------------------------------------
    def espion(self, obs):
        """Secure the richest side cards that cannot win on their own."""
        side = obs.hand & ~FAMILY_MASK[obs.dominant]
        keep = MAMMAS if self.espion_keep_mammas else ZERO
        first = _prefer(_strongest(side & ~keep), _strongest(side), _weakest(obs.hand))
        rest = obs.hand & ~first
        side_rest = side & ~first
        second = _prefer(_strongest(side_rest & ~keep), _strongest(side_rest), _weakest(rest))
        return first | second

    def call(self, obs):
        """Call the strongest card one may call (a missing side Mamma if any)."""
        return bits.bit_index(_strongest(obs.legal))

    def announce(self, obs):
        """Announce whenever eligible (if ``announce_bonus``)."""
        return obs.eligible & self.announce_bonus

    # play --------------------------------------------------------------------
    def play(self, obs):
        """Lead or follow by the rules of thumb in the class docstring.

        The card choice is one compiled pass over the rows (numba,
        :func:`_heuristic_cards`): the same numpy observation in, the same
        numpy cards out, as any policy. It shows the optional compiled path:
        write a policy's per-row rule as a scalar function when the profile
        says the numpy version is the cost; plain numpy policies need nothing.
        """
        out = np.empty(len(obs.hand), dtype=I8)
        _heuristic_cards(obs.position, obs.n_players, obs.hand, obs.legal, obs.dominant_mask,
                         obs.led_mask, obs.winning_card, obs.winner_is_ally, obs.played,
                         obs.on_taker_side, self.lead_trump_min, self.charge_partner, out)
        return out


# de Bruijn tables: the index of a one-hot (or smeared) 32-bit word in one multiply
_DEBRUIJN_LOW = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8, 31, 27,
                          13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int8)
_DEBRUIJN_HIGH = np.array([0, 9, 1, 10, 13, 21, 2, 29, 11, 14, 16, 18, 22, 25, 3, 30, 8, 12,
                           20, 28, 15, 17, 24, 7, 19, 27, 23, 6, 26, 5, 4, 31], dtype=np.int8)


@numba.njit(cache=True, inline="always")
def _lowest_index(mask):
    """Index of the lowest set bit (the strongest card of a non-empty mask)."""
    low = np.uint64(mask & (~mask + np.uint32(1)))
    return _DEBRUIJN_LOW[((low * np.uint64(0x077CB531)) & np.uint64(0xFFFFFFFF)) >> np.uint64(27)]


@numba.njit(cache=True, inline="always")
def _highest_index(mask):
    """Index of the highest set bit (the weakest card of a non-empty mask)."""
    m = np.uint64(mask)
    m |= m >> np.uint64(1)
    m |= m >> np.uint64(2)
    m |= m >> np.uint64(4)
    m |= m >> np.uint64(8)
    m |= m >> np.uint64(16)
    return _DEBRUIJN_HIGH[((m * np.uint64(0x07C4ACDD)) & np.uint64(0xFFFFFFFF)) >> np.uint64(27)]


@numba.njit(cache=True, inline="always")
def _lowest(mask):
    return mask & (~mask + np.uint32(1))


@numba.njit(cache=True)
def _heuristic_cards(position, n_players, hand, legal, dom_mask, led_mask, winning_card, ally,
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
            n_dom = 0
            rest = h & dom
            while rest:
                rest &= rest - np.uint32(1)
                n_dom += 1
            masters = np.uint32(0)
            for family in range(4):
                masters |= _lowest(FAMILY_MASK[family] & ~played[i]) & h
            masters &= ~dom
            side = h & ~dom
            if on_side[i] and n_dom >= lead_trump_min and (unseen & dom) != 0:
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
        out[i] = _lowest_index(pool) if strongest else _highest_index(pool)


@numba.njit(cache=True, inline="always")
def _popcount(mask):
    m = np.uint32(mask)
    m = m - ((m >> np.uint32(1)) & np.uint32(0x55555555))
    m = (m & np.uint32(0x33333333)) + ((m >> np.uint32(2)) & np.uint32(0x33333333))
    m = (m + (m >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    return np.int64(((m * np.uint32(0x01010101)) & np.uint32(0xFFFFFFFF)) >> np.uint32(24))


@numba.njit(cache=True, inline="always")
def _score(hand, family, strength, side_mamma_value):
    """Bid score per card of one hand if ``family`` were dominant (see HeuristicPolicy)."""
    ranks = 0
    for rank in range(8):
        ranks |= ((hand >> np.uint32(4 * rank + family)) & np.uint32(1)) << np.uint32(rank)
    side_mammas = _popcount(hand & MAMMAS & ~FAMILY_MASK[family])
    return (strength[ranks] + side_mamma_value * side_mammas) / _popcount(hand)


@numba.njit(cache=True)
def _bid_scores(hand, family, strength, side_mamma_value):
    out = np.empty(hand.shape[0])
    for i in range(hand.shape[0]):
        out[i] = _score(hand[i], family[i], strength, side_mamma_value)
    return out


@numba.njit(cache=True)
def _heuristic_bids(round_, hand, turned_card, strength, side_mamma_value, bonus_discount,
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


POLICIES: dict[str, type[Policy]] = {"random": RandomPolicy, "heuristic": HeuristicPolicy}
