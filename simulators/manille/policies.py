"""Manille policies: a random-legal baseline and a parameterized heuristic.

Both are plain numpy over whole batches (``observations.py`` lists the three
decision methods and what each observation holds). To write your own, copy
one, keep the method signatures, and declare parameters with
:func:`~simulators.core.params.param` so they are validated and reported::

    @dataclass(frozen=True)
    class NeverContre(HeuristicPolicy):
        def contre(self, obs):
            return np.zeros(len(obs.hand), dtype=bool)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core import bits, tricks
from simulators.core.game import make_policy_attribute
from simulators.core.params import Policy, param, probability
from simulators.core.trick_play import TrickPlayPolicy
from simulators.manille import _heuristic_kernel as compiled_heuristic
from simulators.manille import rules as R

U32 = np.uint32
I8 = np.int8
ZERO = U32(0)
SUIT_MASK = tricks.SUIT_MASK  # index 4 (sans atout): no trump card
MANILLES = U32(R.RANK_MASK[R.MANILLE])
MANILLONS = U32(R.RANK_MASK[R.MANILLON])
STRONGER = tricks.STRONGER  # STRONGER[c]: the cards of c's suit that beat c (MA-1)


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """Uniformly random legal play; random trump choice, contre with set probabilities."""

    uses_noise = True

    pass_probability: float = probability(0.25,
                                          "probability that the dealer passes the choice (MA-3)")
    sans_atout_probability: float = probability(0.2,
                                                "probability of naming sans atout when choosing")
    contre_probability: float = probability(0.1,
                                            "probability of each contre / surcontre answer (MA-4)")

    def choose(self, obs):
        """Pass, sans atout or a uniformly random suit, with the set probabilities."""
        u = obs.noise
        may_pass = (obs.legal >> np.uint8(R.PASS_TO_PARTNER)) & 1 == 1
        may_sa = (obs.legal >> np.uint8(R.SANS_ATOUT)) & 1 == 1
        go_pass = may_pass & (u < self.pass_probability)
        u2 = (u * 7.0) % 1.0  # a second, independent-enough uniform from the same draw
        go_sa = may_sa & (u2 < self.sans_atout_probability)
        suit = np.minimum((((u * 49.0) % 1.0) * 4).astype(I8), 3)
        return np.where(go_pass, R.PASS_TO_PARTNER, np.where(go_sa, R.SANS_ATOUT, suit)).astype(I8)

    def contre(self, obs):
        """Say it with ``contre_probability``."""
        return obs.noise < self.contre_probability

    def play(self, obs):
        """A legal card at random."""
        return bits.random_bit(obs.legal, obs.noise)


# ---------------------------------------------------------------- helpers


def _suit_ranks(hand: np.ndarray, suit: int) -> np.ndarray:
    """The 8-bit rank pattern (bit r = rank r held) of one suit in each hand."""
    spread = (np.asarray(hand, dtype=U32) >> U32(suit)) & U32(0x11111111)
    packed = (spread | (spread >> U32(3))) & U32(0x03030303)
    packed = (packed | (packed >> U32(6))) & U32(0x000F000F)
    return ((packed | (packed >> U32(12))) & U32(0xFF)).astype(np.intp)


def masters(hand: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """Cards of ``hand`` that no unseen card of their suit can beat.

    Rank-major encoding: shifting a mask by multiples of 4 bits keeps every
    card in its suit and makes it weaker, so smearing ``unseen`` upwards marks
    every card that some unseen card of its suit beats.
    """
    smear = unseen | (unseen << U32(4))
    smear |= smear << U32(8)
    smear |= smear << U32(16)
    return hand & ~(smear << U32(4))


def longest_suit(hand: np.ndarray, exclude: np.ndarray) -> np.ndarray:
    """Mask of each hand's longest suit other than ``exclude`` (a trump 0..4), ties to the lower."""
    best = np.zeros_like(hand)
    best_len = np.full(len(hand), -1, dtype=I8)
    for suit in range(R.N_SUITS):
        cards = hand & SUIT_MASK[suit]
        length = np.where(exclude == suit, I8(-1), bits.popcount(cards).astype(I8))
        longer = length > best_len
        best = np.where(longer, cards, best)
        best_len = np.maximum(length, best_len)
    return best


@dataclass(frozen=True)
class HeuristicPolicy(TrickPlayPolicy):
    """A sensible club player, tunable by a few named parameters.

    **Trump choice** (MA-3). A suit ``s`` as trump scores, per card of ``s``
    held, its points plus ``trump_length_value``, plus ``side_manille_value``
    per manille (10) of another suit. Sans atout scores ``sa_manille_value``
    per manille and ``sa_manillon_value`` per manillon guarded by its own
    manille. The best of the five is named when its score reaches
    ``pass_threshold``; below it the dealer passes to his partner, who names
    his own best (sans atout only if it beats every suit by
    ``sans_atout_margin``, for the dealer as well).

    **Contre** (MA-4). An opponent scores his hand as if he had named the
    trump himself and says contre at ``contre_threshold`` or more; a player
    of the taking team says surcontre at ``surcontre_threshold`` or more.

    **Play** (MA-5). The leader draws trumps when on the taking team holding
    ``lead_trumps_min`` of them while trumps are still out (counting trumps
    out from the cards played), else cashes a master card (the manille of a
    suit, or what has become the best card left), else leads the weakest
    card of his longest side suit. A follower never overtakes a partner who
    holds the trick: he gives him points (``charge_partner``: 0 never,
    1 when the partner's card is master or he plays last, 2 always) or
    plays low. Against an opponent he wins with a master card when he has
    one (the manille when it wins), else the cheapest winning card, else
    discards his weakest side card.

    The methods state these rules in numpy; with ``compiled`` (the default)
    the same rules run as numba passes over the rows
    (:mod:`simulators.manille._heuristic_kernel`), with identical decisions
    (tested), because the numpy temporaries were the engine's largest cost.
    A subclass with ``compiled = False`` runs the numpy statements; one that
    overrides ``choice_scores`` (or ``_lead`` / ``_follow``) gets the numpy
    choice and contre (or card play) built on its override.
    """

    trump_length_value: float = param(3.0, low=0.0, high=20.0,
                                      doc="choice value of each card of the trump suit")
    side_manille_value: float = param(4.0, low=0.0, high=20.0,
                                      doc="choice value of a manille (10) of another suit")
    sa_manille_value: float = param(9.0, low=0.0, high=30.0,
                                    doc="sans-atout value of each manille held")
    sa_manillon_value: float = param(4.0, low=0.0, high=30.0,
                                     doc="sans-atout value of each manillon guarded by its 10")
    sans_atout_margin: float = param(-4.0, low=-50.0, high=50.0,
                                     doc="sans atout must beat the best suit by this much")
    pass_threshold: float = param(20.0, low=0.0, high=100.0,
                                  doc="the dealer names a trump at this score or more, else passes")
    contre_threshold: float = param(20.0, low=0.0, high=200.0,
                                    doc="an opponent says contre at this score or more (MA-4)")
    surcontre_threshold: float = param(26.0, low=0.0, high=200.0,
                                       doc="the taking team surcontres at this score or more")
    lead_trumps_min: int = param(3, low=0, high=9,
                                 doc="trumps held to lead them, taking team only (9: never)")
    charge_partner: int = param(1, low=0, high=2,
                                doc="give points to the partner who holds: 0 never, 1 when "
                                    "safe, 2 always")

    def __post_init__(self) -> None:
        super().__post_init__()
        per_rank = np.array([p + self.trump_length_value for p in R.POINTS])
        subsets = np.arange(256)[:, None] >> np.arange(8) & 1
        object.__setattr__(self, "_trump_table", subsets @ per_rank)

    # choice and contre -------------------------------------------------------
    def choice_scores(self, hand: np.ndarray) -> np.ndarray:
        """(N, 5) score of each trump choice for each hand: suits 0..3, then sans atout."""
        hand = np.asarray(hand, dtype=U32)
        if self.compiled:
            compiled_heuristic.kernels()
            return compiled_heuristic.choice_scores(np.ascontiguousarray(np.atleast_1d(hand)),
                                                    *self._choice_values())
        manilles = bits.popcount(hand & MANILLES).astype(np.float64)
        scores = np.empty((len(hand), 5))
        for suit in range(R.N_SUITS):
            side = manilles - ((hand >> U32(suit)) & U32(1))  # the 10 of suit s is bit s
            scores[:, suit] = self._trump_table[_suit_ranks(hand, suit)] \
                + self.side_manille_value * side
        guarded = bits.popcount(hand & MANILLONS & ((hand & MANILLES) << U32(4)))
        scores[:, R.SANS_ATOUT] = (self.sa_manille_value * manilles
                                   + self.sa_manillon_value * guarded - self.sans_atout_margin)
        return scores

    def _choice_values(self) -> tuple:
        """The compiled choice scores' arguments after the hands."""
        return (self._trump_table, self.side_manille_value, self.sa_manille_value,
                self.sa_manillon_value, self.sans_atout_margin)

    def _compiled_choice(self) -> bool:
        """Whether choose() and contre() run compiled (``choice_scores`` not overridden)."""
        return self.compiled and type(self).choice_scores is HeuristicPolicy.choice_scores

    def choose(self, obs):
        """The best-scoring trump, or pass when the dealer's best is below ``pass_threshold``."""
        if self._compiled_choice():
            out = np.empty(len(obs.hand), dtype=I8)
            compiled_heuristic.kernels()
            compiled_heuristic.choose_rows(np.ascontiguousarray(obs.hand, dtype=U32), obs.legal,
                                           bool(obs.passed), self.pass_threshold,
                                           *self._choice_values(), out)
            return out
        scores = self.choice_scores(obs.hand)
        allowed = (obs.legal[:, None] >> np.arange(5, dtype=np.uint8)) & 1 == 1
        scores = np.where(allowed, scores, -np.inf)
        best = np.argmax(scores, axis=1).astype(I8)
        if obs.passed:
            return best
        return np.where(scores.max(axis=1) >= self.pass_threshold, best,
                        R.PASS_TO_PARTNER).astype(I8)

    def contre(self, obs):
        """Contre (or surcontre) when the hand scores high for the named trump."""
        threshold = self.contre_threshold if obs.level == R.CONTRE else self.surcontre_threshold
        if self._compiled_choice():
            out = np.empty(len(obs.hand), dtype=bool)
            compiled_heuristic.kernels()
            compiled_heuristic.contre_rows(np.ascontiguousarray(obs.hand, dtype=U32), obs.trump,
                                           threshold, *self._choice_values(), out)
            return out
        scores = self.choice_scores(obs.hand)
        trump = obs.trump.astype(np.intp)
        score = scores[np.arange(len(trump)), trump]
        score = np.where(trump == R.SANS_ATOUT, score + self.sans_atout_margin, score)
        return score >= threshold

    # play: TrickPlayPolicy.play, by _lead / _follow or their compiled twin --------
    def _compiled_cards(self, obs, out) -> None:
        """One pass over the rows (:func:`._heuristic_kernel.heuristic_cards`)."""
        compiled_heuristic.kernels()
        compiled_heuristic.heuristic_cards(
            obs.position, obs.hand, obs.legal, obs.played, obs.trump, obs.trump_mask,
            obs.winning_card, obs.partner_holds, obs.taking, max(self.lead_trumps_min, 1),
            self.charge_partner, out)

    def _card_of(self, pool, take_strongest):
        strongest = bits.bit_index(tricks.strongest(pool))
        # the weakest card is the highest set bit: the binary exponent of the mask, exact in
        # float64 for 32-bit integers (frexp(2**k .. 2**(k+1) - 1) has exponent k + 1)
        weakest = (np.frexp(pool.astype(np.float64))[1] - 1).astype(I8)
        return np.where(take_strongest, strongest, weakest)

    # Each rule picks a pool of cards and whether to play its strongest (lowest
    # bit) or weakest (highest bit) member; play() extracts one card.
    def _lead(self, obs):
        hand, trumps_mask = obs.hand, obs.trump_mask
        unseen = ~(obs.played | hand)
        trumps = hand & trumps_mask
        top = masters(hand, unseen)
        trumps_out = (unseen & trumps_mask) != 0  # trumps counted out from the cards played
        # at least one trump to draw with, even at lead_trumps_min 0 (which once led a void)
        draw = obs.taking & (bits.popcount(trumps) >= max(self.lead_trumps_min, 1)) & trumps_out
        # cash side masters while trumps are out only if they are manilles
        side_top = top & ~trumps_mask
        safe_side = np.where(trumps_out, side_top & MANILLES, side_top)
        long_side = longest_suit(hand, obs.trump)
        pool = np.where(draw, bits.prefer(trumps & top, trumps),
                        bits.prefer(safe_side, long_side, hand))
        strongest = np.where(draw, (trumps & top) != 0, safe_side != 0)
        return pool, strongest

    def _follow(self, obs):
        legal, trumps_mask = obs.legal, obs.trump_mask
        stronger = STRONGER[obs.winning_card]
        best_is_trump = (bits.card_bits(obs.winning_card) & trumps_mask) != 0
        beaters = legal & (stronger | np.where(best_is_trump, ZERO, trumps_mask))
        unseen = ~(obs.played | obs.hand)
        last = obs.position == R.N_SEATS - 1  # the same for every row: a Python bool
        side_legal = legal & ~trumps_mask
        low = np.where(side_legal != 0, side_legal, legal)  # discard side cards before trumps
        top = masters(obs.hand, unseen)
        # the partner holds: give him points (never a master card) when his card is safe
        if self.charge_partner == 0:
            give = np.zeros(len(legal), dtype=bool)
        else:
            gifts = side_legal & ~top
            give = gifts != 0
            if self.charge_partner == 1 and not last:
                # safe: nothing unseen of the suit beats it, and no trump can ruff it
                # (it is a trump, or no trump is out; sans atout has no trump card)
                give &= ((stronger & unseen) == 0) & (best_is_trump
                                                      | ((unseen & trumps_mask) == 0))
        partner_pool = np.where(give, side_legal & ~top, low)
        # an opponent holds: win with a master (the manille when it wins), else cheapest winner
        side_beaters = beaters & ~trumps_mask
        cheapest = np.where(side_beaters != 0, side_beaters, beaters)
        if last:
            win_pool, win_strongest = cheapest, False
        else:
            sure = side_beaters & top
            win_strongest = sure != 0
            win_pool = np.where(win_strongest, sure, cheapest)
        can_win = beaters != 0
        pool = np.where(obs.partner_holds, partner_pool, np.where(can_win, win_pool, low))
        strongest = np.where(obs.partner_holds, give, can_win & win_strongest)
        return pool, strongest


POLICIES: dict[str, type[Policy]] = {"random": RandomPolicy, "heuristic": HeuristicPolicy}

__getattr__ = make_policy_attribute(__name__, "simulators.manille.game")  # make_policy
