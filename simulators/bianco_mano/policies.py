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

import numpy as np

from simulators.bianco_mano import _heuristic_kernel as compiled_heuristic
from simulators.bianco_mano import rules as R
from simulators.bianco_mano.engine import BONUS_MASK, FAMILY_MASK, STRONGER
from simulators.core import bits
from simulators.core.game import make_policy_attribute
from simulators.core.params import Policy, param, probability
from simulators.core.trick_play import TrickPlayPolicy
from simulators.core.tricks import strongest, weakest

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

    take_probability: float = probability(0.5, "probability of taking at each bidding turn")
    announce_probability: float = probability(0.5, "probability of announcing an eligible bonus")
    large_first_probability: float = probability(0.5,
                                                 "chance the dealer deals the large packet first")

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


def _family_ranks(hand: np.ndarray, family: np.ndarray | int) -> np.ndarray:
    """The 8-bit rank pattern (bit r = rank r held) of one family in each hand."""
    spread = (np.asarray(hand, dtype=U32) >> np.asarray(family, dtype=U32)) & U32(0x11111111)
    packed = (spread | (spread >> U32(3))) & U32(0x03030303)  # every 4th bit into one byte
    packed = (packed | (packed >> U32(6))) & U32(0x000F000F)
    return ((packed | (packed >> U32(12))) & U32(0xFF)).astype(np.intp)


@dataclass(frozen=True)
class HeuristicPolicy(TrickPlayPolicy):
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

    The methods state these rules in numpy; with ``compiled`` (the default)
    the bids and the card play run as numba passes over the rows
    (:mod:`simulators.bianco_mano._heuristic_kernel`), with identical
    decisions (``tests/bianco_mano/test_bianco_mano_heuristic_kernel.py``),
    because the numpy temporaries were the engine's largest cost. A
    subclass with ``compiled = False`` runs the numpy statements; one that
    overrides ``bid_score`` (or ``_lead`` / ``_follow``) gets the numpy bids
    (or card play) built on its override.
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
        if self.compiled:
            compiled_heuristic.kernels()
            return compiled_heuristic.bid_scores(hand, np.ascontiguousarray(family),
                                                 self._strength, self.side_mamma_value)
        trumps = self._strength[_family_ranks(hand, family)]
        side_mammas = bits.popcount(hand & MAMMAS & ~FAMILY_MASK[family])
        return (trumps + self.side_mamma_value * side_mammas) / bits.popcount(hand)

    def _bonus_credit(self, obs, hand, family) -> np.ndarray | float:
        """Threshold reduction where both BM-11 bonus cards of ``family`` are held."""
        if not (obs.bianco_mano and self.bonus_discount):
            return 0.0
        both = (hand & BONUS_MASK[family]) == BONUS_MASK[family]
        return np.where(both, self.bonus_discount, 0.0)

    def bid(self, obs):
        """Take the turned family, or in round 2 the best other one, above a threshold.

        Compiled: one pass over the rows (:func:`._heuristic_kernel.heuristic_bids`).
        """
        if self.compiled and type(self).bid_score is HeuristicPolicy.bid_score:
            discount = self.bonus_discount if obs.bianco_mano else 0.0
            out = np.empty(len(obs.hand), dtype=I8)
            compiled_heuristic.kernels()
            compiled_heuristic.heuristic_bids(obs.round, obs.hand, obs.turned_card,
                                              self._strength, self.side_mamma_value, discount,
                                              self.take_threshold, self.round2_threshold, out)
            return out
        turned_family = (obs.turned_card & 3).astype(I8)
        hand = obs.hand | bits.card_bits(obs.turned_card)  # the taker receives it (BM-7)
        if obs.round == 1:
            score = self.bid_score(hand, turned_family) + self._bonus_credit(obs, hand,
                                                                             turned_family)
            return np.where(score >= self.take_threshold, turned_family, I8(PASS)).astype(I8)
        best_family = np.full(len(hand), PASS, dtype=I8)
        best_score = np.full(len(hand), -1.0)
        for family in range(R.N_FAMILIES):
            score = self.bid_score(hand, family) + self._bonus_credit(obs, hand, family)
            score = np.where(turned_family == family, -1.0, score)
            better = score > best_score
            best_family = np.where(better, I8(family), best_family)
            best_score = np.where(better, score, best_score)
        return np.where(best_score >= self.round2_threshold, best_family, I8(PASS)).astype(I8)

    # after bidding -----------------------------------------------------------
    def espion(self, obs):
        """Secure the richest side cards that cannot win on their own."""
        side = obs.hand & ~FAMILY_MASK[obs.dominant]
        keep = MAMMAS if self.espion_keep_mammas else ZERO
        first = bits.prefer(strongest(side & ~keep), strongest(side), weakest(obs.hand))
        rest = obs.hand & ~first
        side_rest = side & ~first
        second = bits.prefer(strongest(side_rest & ~keep), strongest(side_rest), weakest(rest))
        return first | second

    def call(self, obs):
        """Call the strongest card one may call (a missing side Mamma if any)."""
        return bits.bit_index(strongest(obs.legal))

    def announce(self, obs):
        """Announce whenever eligible (if ``announce_bonus``)."""
        return obs.eligible & self.announce_bonus

    # play: TrickPlayPolicy.play, by _lead / _follow or their compiled twin --------
    def _compiled_cards(self, obs, out) -> None:
        """One pass over the rows (:func:`._heuristic_kernel.heuristic_cards`), the same numpy
        observation in and the same cards out as the numpy rules below."""
        compiled_heuristic.kernels()
        compiled_heuristic.heuristic_cards(
            obs.position, obs.n_players, obs.hand, obs.legal, obs.dominant_mask,
            obs.led_mask, obs.winning_card, obs.winner_is_ally, obs.played,
            obs.on_taker_side, self.lead_trump_min, self.charge_partner, out)

    def _card_of(self, pool, take_strongest):
        return bits.bit_index(np.where(take_strongest, strongest(pool), weakest(pool)))

    # Each rule picks a pool of cards and whether to play its strongest (lowest
    # bit) or weakest (highest bit) member; play() extracts one card.
    def _lead(self, obs):
        hand, dom = obs.hand, obs.dominant_mask
        unseen = ~obs.played & ~hand
        # at least one dominant card to draw with, even at lead_trump_min 0 (which once led a void)
        draw_trumps = (obs.on_taker_side
                       & (bits.popcount(hand & dom) >= max(self.lead_trump_min, 1))
                       & ((unseen & dom) != 0))
        masters = ZERO
        for family in range(R.N_FAMILIES):
            masters = masters | (strongest(FAMILY_MASK[family] & ~obs.played) & hand)
        masters &= ~dom
        side = hand & ~dom
        pool = np.where(draw_trumps, hand & dom, bits.prefer(masters, side, hand))
        return pool, draw_trumps | (masters != 0)

    def _follow(self, obs):
        legal, dom = obs.legal, obs.dominant_mask
        stronger = STRONGER[obs.winning_card]
        beaters = np.where((dom & bits.card_bits(obs.winning_card)) != 0, legal & stronger,
                           (legal & dom) | (legal & obs.led_mask & stronger))
        last = obs.position == obs.n_players - 1
        side_legal = legal & ~dom
        side_beaters = beaters & ~dom
        charge = self.charge_partner == 2 or (self.charge_partner == 1 and last)
        # an ally holds the trick: feed it points (strongest side card) or discard cheaply,
        # side cards before dominant ones
        pool = bits.prefer(side_legal, legal)
        take_strongest = obs.winner_is_ally & (side_legal != 0) & charge
        # otherwise win if possible: a side card (the strongest unless last), else the
        # cheapest dominant that wins
        win = ~obs.winner_is_ally & (beaters != 0)
        pool = np.where(win, bits.prefer(side_beaters, beaters), pool)
        take_strongest = np.where(win, (side_beaters != 0) & (not last), take_strongest)
        return pool, take_strongest


POLICIES: dict[str, type[Policy]] = {"random": RandomPolicy, "heuristic": HeuristicPolicy}

__getattr__ = make_policy_attribute(__name__, "simulators.bianco_mano.game")  # make_policy
