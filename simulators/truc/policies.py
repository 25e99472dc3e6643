"""Truc policies: a random-legal baseline and a parameterized heuristic family.

All are plain numpy over whole batches (``observations.py`` lists the four
decision methods and what each observation holds) and pure functions of the
observation and its noise. To write your own, copy one, keep the method
signatures and declare parameters with :func:`~simulators.core.params.param`::

    @dataclass(frozen=True)
    class NeverDouble(HeuristicPolicy):
        def propose(self, obs):
            return np.zeros(len(obs.hand), dtype=bool)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core import bits
from simulators.core.game import make_policy_attribute
from simulators.core.params import Policy, param, probability
from simulators.truc import rules as R

U32 = np.uint32
I8 = np.int8


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """Uniformly random card play; each other decision is a coin of set probability."""

    uses_noise = True

    ask_probability: float = probability(0.5, "probability of asking for new cards (TR-2)")
    propose_probability: float = probability(0.25, "probability of proposing before a card (TR-4)")
    accept_probability: float = probability(0.5, "probability of accepting a proposal (TR-4)")
    counter_probability: float = probability(0.5,
                                             "share of acceptances turned into a counter-banco "
                                             "where one is allowed (TR-5)")

    def call(self, obs):
        """Ask for new cards with ``ask_probability``."""
        return obs.noise < self.ask_probability

    def propose(self, obs):
        """Propose with ``propose_probability``."""
        return obs.noise < self.propose_probability

    def answer(self, obs):
        """Accept with ``accept_probability``; counter part of those where allowed."""
        accept = obs.noise < self.accept_probability
        scaled = obs.noise / max(self.accept_probability, 1e-30)
        counter = accept & (obs.counter > 0) & (scaled < self.counter_probability)
        return np.where(counter, I8(R.COUNTER), accept.astype(I8))

    def play(self, obs):
        """A card of the hand at random."""
        return bits.random_bit(obs.hand, obs.noise)


# ---------------------------------------------------------------- tables

# NOT_BEATING[c]: cards that do not beat card c (its rank or weaker), c itself excluded
NOT_BEATING = np.array([sum(1 << d for d in range(R.N_CARDS) if d >> 2 >= c >> 2 and d != c)
                        for c in range(R.N_CARDS)], dtype=U32)
ALL = U32(R.ALL_CARDS)


def _my_win_table() -> np.ndarray:
    """WIN[r0 * 16 + r1 * 4 + r2]: the decider's share of a deal with trick results r (TR-3).

    Results use the observation codes (WON, LOST, POURRI); a null deal counts
    one half. Only the prefix that decides the deal matters.
    """
    table = np.zeros(64)
    codes = (R.WON, R.LOST, R.POURRI)
    for r0 in codes:
        for r1 in codes:
            for r2 in codes:
                w = [{R.WON: 1, R.LOST: 0, R.POURRI: None}[r] for r in (r0, r1, r2)]
                if w[0] is not None and w[0] == w[1]:
                    share = w[0]
                elif (w[0] is None) != (w[1] is None):
                    share = w[0] if w[0] is not None else w[1]
                elif w[0] is None:
                    share = 0.5 if w[2] is None else w[2]
                else:
                    share = w[0] if w[2] is None else w[2]
                table[r0 * 16 + r1 * 4 + r2] = share
    return table


WIN_SHARE = _my_win_table()


def _strongest_cards(hand: np.ndarray) -> list[np.ndarray]:
    """The (up to) three cards of each hand, strongest first (-1 where absent)."""
    out = []
    rest = np.asarray(hand, dtype=U32)
    for _ in range(R.HAND_SIZE):
        low = bits.lowest_bit(rest)
        out.append(bits.bit_index(low))
        rest = rest ^ low
    return out


def unseen_cards(obs) -> np.ndarray:
    """Cards the decider has not seen: not in his hand, his discards, or played."""
    seen = obs.hand | obs.discarded
    if obs.played is not None:
        return ALL & ~(seen | obs.played)
    for t in range(R.N_TRICKS):
        seen = seen | _bit_or_zero(obs.my_cards[:, t]) | _bit_or_zero(obs.opp_cards[:, t])
    return ALL & ~seen


def _bit_or_zero(card: np.ndarray) -> np.ndarray:
    """One-hot masks of cards, 0 for -1."""
    return np.where(card >= 0, bits.card_bits(np.maximum(card, 0)), U32(0))


def hold_probability(card: np.ndarray, unseen: np.ndarray, n_opponent_cards: int,
                     inverse_unseen: np.ndarray | None = None) -> np.ndarray:
    """Chance the opponent cannot beat ``card`` with any of his ``n`` cards, all unseen (-1: 0).

    Treats his cards as independent draws from the unseen cards (a heuristic).
    ``inverse_unseen`` (1 / number of unseen cards) may be passed to save work.
    """
    if inverse_unseen is None:
        inverse_unseen = _inverse_count(unseen)
    not_beating = np.take(NOT_BEATING, np.maximum(card, 0))
    q = bits.popcount(unseen & not_beating).astype(np.float32) * inverse_unseen
    p = q
    for _ in range(int(n_opponent_cards) - 1):
        p = p * q
    return np.where(card >= 0, p, np.float32(0))


def _inverse_count(unseen: np.ndarray) -> np.ndarray:
    """1 / popcount (float32), 1 for an empty mask."""
    return np.float32(1) / np.maximum(bits.popcount(unseen), 1).astype(np.float32)


def call_strength(hand: np.ndarray, discarded: np.ndarray) -> np.ndarray:
    """Mean hold probability (vs one unseen card) of a hand's two strongest cards."""
    unseen = ALL & ~(hand | discarded)
    inverse = _inverse_count(unseen)
    c1, c2, _ = _strongest_cards(hand)
    return (hold_probability(c1, unseen, 1, inverse) + hold_probability(c2, unseen, 1, inverse)) / 2


def win_chance(obs) -> np.ndarray:
    """Estimated share of the deal the decider wins, from tricks so far and cards seen.

    The decider's remaining cards are played strongest first; each future
    trick is won with the chance the opponent holds no beating card among
    the unseen ones; the current trick is exact when its other card is on
    the table. Trick outcomes combine through the TR-3 resolution table.
    """
    unseen = unseen_cards(obs)
    inverse = _inverse_count(unseen)
    cards = _strongest_cards(obs.hand)
    trick = obs.trick
    n_opp = R.HAND_SIZE - trick  # the opponent's cards at the start of this trick
    win_now = lost_now = tie_now = None
    if obs.position == 1:
        table_rank = obs.table >> 2
        if obs.to_play:  # the opponent's card is on the table and the decider replies
            best_rank = cards[0] >> 2
            win_now = (cards[0] >= 0) & (best_rank < table_rank)
            tie_now = (cards[0] >= 0) & (best_rank == table_rank)
            lost_now = ~win_now & ~tie_now
        else:  # the decider's own card is on the table; the opponent replies
            hold = hold_probability(obs.table, unseen, n_opp, inverse)
            win_now, lost_now = hold, 1 - hold
    probs = []  # chance of winning each remaining trick
    first_future = trick + (1 if obs.position == 1 else 0)
    used = 1 if (obs.position == 1 and obs.to_play) else 0
    for k, t in enumerate(range(first_future, R.N_TRICKS)):
        card = cards[min(used + k, R.HAND_SIZE - 1)] if used + k < R.HAND_SIZE else None
        n = R.HAND_SIZE - t
        probs.append(np.float32(0) if card is None else
                     hold_probability(card, unseen, n, inverse))
    done = [obs.results[:, t].astype(np.intp) for t in range(trick)]
    share = np.zeros(len(obs.hand), dtype=np.float32)
    n_free = len(probs)
    now_options = [(None, None)]
    if win_now is not None:
        now_options = [(R.WON, win_now), (R.LOST, lost_now)]
        if tie_now is not None:
            now_options.append((R.POURRI, tie_now))
    for now_code, now_p in now_options:
        for pattern in range(1 << n_free):
            weight = np.float32(1) if now_p is None else now_p.astype(np.float32)
            seq = list(done) + ([] if now_code is None else [now_code])
            for k in range(n_free):
                won = (pattern >> k) & 1
                weight = weight * (probs[k] if won else 1 - probs[k])
                seq.append(R.WON if won else R.LOST)
            index = seq[0] * 16 + seq[1] * 4 + seq[2]
            share = share + weight * WIN_SHARE[index]
    return share


@dataclass(frozen=True)
class HeuristicPolicy(Policy):
    """A sensible table player, tunable by a few named parameters.

    It estimates its share of the deal (:func:`win_chance`: tricks so far,
    cards seen, the card on the table) and proposes above
    ``propose_threshold``, or bluffs with ``bluff_probability``; it accepts
    above ``accept_threshold`` (raised by ``near_end_caution`` when losing
    the proposed stake would give the opponent the manche, and always
    accepts when refusing already would) and counters a banco above
    ``counter_threshold``. It asks for new cards when its two best cards are
    weak (``call_threshold``). In play it leads its ``first_lead`` card to
    trick 1 and its strongest later, wins as cheaply as it can
    (``win_cheaply``), takes a pourri trick it would be awarded
    (``seek_pourri``) and otherwise sacrifices its weakest card.
    """

    uses_noise = True

    call_threshold: float = probability(0.42, "ask for new cards below this hand strength (TR-2)")
    propose_threshold: float = probability(0.52,
                                           "propose a double at or above this win chance (TR-4)")
    accept_threshold: float = probability(0.8, "accept a proposal at or above this win chance")
    counter_threshold: float = probability(0.51,
                                           "counter a banco at or above this win chance (TR-5)")
    bluff_probability: float = probability(0.03, "chance of proposing anyway below the threshold")
    near_end_caution: float = param(0.1, low=0.0, high=0.5,
                                    doc="accept threshold raise when losing ends the manche")
    first_lead: int = param(2, low=0, high=2,
                            doc="card led to the first trick: 0 weakest, 1 middle, 2 strongest")
    win_cheaply: bool = param(True, doc="reply with the weakest card that wins")
    seek_pourri: bool = param(True, doc="tie the trick when a pourri would be awarded to me")

    def call(self, obs):
        """Ask for new cards when the two best cards are weak."""
        return call_strength(obs.hand, obs.discarded) < self.call_threshold

    def propose(self, obs):
        """Propose on a good win chance, or bluff."""
        strong = win_chance(obs) >= self.propose_threshold
        bluff = obs.noise < self.bluff_probability if obs.noise is not None else False
        return strong | bluff

    def answer(self, obs):
        """Accept, refuse or counter by the win chance and the score."""
        chance = win_chance(obs)
        threshold = np.where(obs.opp_score + obs.proposal >= obs.target,
                             self.accept_threshold + self.near_end_caution, self.accept_threshold)
        # refusing gives the opponent the current stake (or, to a counter, the banco)
        refusal_loses = obs.opp_score + obs.stake >= obs.target
        accept = (chance >= threshold) | refusal_loses
        counter = accept & (obs.counter > 0) & (chance >= self.counter_threshold)
        return np.where(counter, I8(R.COUNTER), accept.astype(I8))

    def play(self, obs):
        """Lead by ``first_lead`` then strongest; reply cheaply, tie when useful, else sacrifice."""
        c1, c2, c3 = _strongest_cards(obs.hand)
        weakest = np.where(c3 >= 0, c3, np.where(c2 >= 0, c2, c1))
        if obs.position == 0:
            if obs.trick > 0:
                return c1
            return (weakest, np.where(c2 >= 0, c2, c1), c1)[self.first_lead]
        table_rank = obs.table >> 2
        winners = [c3, c2, c1]  # weakest first
        choice = weakest.copy()
        if self.seek_pourri:
            # a pourri goes to the first trick's winner (TR-3): worth it if that is me,
            # or in trick 1 where the next trick then decides both
            awarded_to_me = (obs.results[:, 0] == R.WON) if obs.trick > 0 else \
                np.ones(len(obs.hand), dtype=bool)
            for c in winners:
                tie = (c >= 0) & ((c >> 2) == table_rank) & awarded_to_me
                choice = np.where(tie, c, choice)
        order = winners if self.win_cheaply else winners[::-1]
        beat = np.zeros(len(obs.hand), dtype=bool)
        for c in order:
            beats = (c >= 0) & ((c >> 2) < table_rank) & ~beat
            choice = np.where(beats, c, choice)
            beat |= beats
        return choice.astype(I8)


@dataclass(frozen=True)
class OrderedPolicy(Policy):
    """Never asks, never proposes, accepts everything; plays its cards in a fixed order.

    ``strongest_first`` plays the strongest remaining card, else the weakest.
    Used for the exact check of the trick rules (enumeration of all hands).
    """

    strongest_first: bool = param(True, doc="play the strongest remaining card first")

    def call(self, obs):
        """Always play the hand dealt."""
        return np.zeros(len(obs.hand), dtype=bool)

    def propose(self, obs):
        """Never propose."""
        return np.zeros(len(obs.hand), dtype=bool)

    def answer(self, obs):
        """Always accept."""
        return np.full(len(obs.hand), R.ACCEPT, dtype=I8)

    def play(self, obs):
        """Strongest (lowest bit) or weakest (highest bit) card."""
        pick = bits.lowest_bit(obs.hand) if self.strongest_first else bits.highest_bit(obs.hand)
        return bits.bit_index(pick)


POLICIES: dict[str, type[Policy]] = {
    "random": RandomPolicy, "heuristic": HeuristicPolicy, "ordered": OrderedPolicy,
}

from simulators.truc.equilibrium import EquilibriumPolicy  # noqa: E402  (solver's policy)

POLICIES["equilibrium"] = EquilibriumPolicy

__getattr__ = make_policy_attribute(__name__, "simulators.truc.game")  # make_policy
