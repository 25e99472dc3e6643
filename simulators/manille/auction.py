"""Manille's auction for the learned player: the trump choice (MA-3) and contre / surcontre
(MA-4) as net decisions, taught by rollouts of the card net.

**The teacher.** PIMC's auction solves each world double-dummy, which over-rates a contre
(every hand visible, the defence always finds its tricks) and ignores what the auction
reveals. A fast card player makes a better teacher cheap: each legal option of a decision
is *played out* — the rest of the auction, then the eight tricks — over sampled worlds by
the card net at every seat (:class:`AuctionTeacher`), and its value is the decider's
team's mean MA-6 score (taking score minus defence score, signed for his side). The worlds
are dealt **consistently with what the auction showed**, as the base policy would have
shown it: candidate worlds are drawn uniformly (the 24 cards he cannot see, eight to each
other seat) and kept when the base policy, holding the world's hands, would have made the
choices and answers already made (the dealer's pass, the trump named, the first
defender's silence, a contre). When fewer than ``worlds`` candidates of ``tries`` agree,
the agreeing ones are used, and the first candidates when none do. The rest of the
auction (the partner's choice after a pass, the other answers) is the base policy's.

**The features.** The trump choice sees the hand with its suits sorted by strength (most
cards first, then the stronger cards, MA-1; :func:`suit_order`), so the net learns one
long suit, not four: its actions are the four sorted suits, sans atout and pass. The contre
sees the hand with the trump suit first (:mod:`simulators.core.learn.cards`), sans atout,
the stage and the order asked, who named by relation to the player, and his position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core.dispatch import forwards
from simulators.core.learn import cards as C
from simulators.core.learn.card_play import per_row
from simulators.core.pimc import CardsBy, row_generator
from simulators.manille import rules as R
from simulators.manille.engine import (
    PARTNER_CHOICES,
    POSITION_OF_SEAT,
    Dispatch,
    play_from_choice,
)
from simulators.manille.observations import ChoiceObs, ContreObs

N_CHOICE_ACTIONS = R.PASS_TO_PARTNER + 1  # four sorted suits, sans atout, pass
N_CHOICE_FEATURES = 32 + 4
N_CONTRE_FEATURES = 32 + 1 + 2 + 1 + 4 + 4 + 1


# ---------------------------------------------------------------- the trump choice


suit_order = C.strength_order  # (B, 4) the table's suit at each sorted place (MA-1 ranks)


def choose_features(obs) -> np.ndarray:
    """(B, N_CHOICE_FEATURES): the sorted hand, whether the dealer passed, sans atout and
    passing allowed, the sans-atout beating option (MA-5)."""
    hand = np.asarray(obs.hand, np.uint32)
    b = len(hand)
    legal = np.asarray(obs.legal, np.int64)
    flags = np.zeros((b, 4), np.float32)
    flags[:, 0] = bool(obs.passed) if np.ndim(obs.passed) == 0 else np.asarray(obs.passed)
    flags[:, 1] = (legal >> R.SANS_ATOUT) & 1
    flags[:, 2] = (legal >> R.PASS_TO_PARTNER) & 1
    flags[:, 3] = bool(np.any(obs.sans_atout_must_beat))
    return np.concatenate([C.ordered_bits(hand, suit_order(hand)), flags], axis=1)


def choose_legal(obs) -> np.ndarray:
    """(B, 6) bool: the sorted suits, sans atout, pass."""
    legal = np.asarray(obs.legal, np.int64)
    out = ((legal[:, None] >> np.arange(N_CHOICE_ACTIONS)) & 1) == 1
    return out  # every suit is legal or none is: sorting them keeps the mask


def choose_action(obs, index: np.ndarray) -> np.ndarray:
    """The net's sorted-suit index back to the table's choice (int8)."""
    index = np.asarray(index, np.int64)
    order = suit_order(np.asarray(obs.hand, np.uint32))
    suit = np.take_along_axis(order, np.minimum(index, 3)[:, None], axis=1)[:, 0]
    return np.where(index < 4, suit, index).astype(np.int8)


def to_sorted(values: np.ndarray, hand) -> np.ndarray:
    """A (6,) value per table choice as the net's (6,) sorted order."""
    order = suit_order(np.array([hand], np.uint32))[0]
    return np.concatenate([values[order], values[4:]])


# ---------------------------------------------------------------- contre and surcontre


def contre_features(obs) -> np.ndarray:
    """(B, N_CONTRE_FEATURES): the hand with the trump suit first, sans atout, the stage
    (contre, surcontre), the order asked, who named by relation to the player, his
    turn-order position (0 the dealer's right .. 3 the dealer), the beating option."""
    hand = np.asarray(obs.hand, np.uint32)
    trump = np.asarray(obs.trump, np.int64)
    b = len(hand)
    seat, dealer = np.asarray(obs.seat, np.int64), np.asarray(obs.dealer, np.int64)
    chooser = np.asarray(obs.chooser, np.int64)
    flags = np.zeros((b, N_CONTRE_FEATURES - 32), np.float32)
    rows = np.arange(b)
    flags[:, 0] = trump == R.SANS_ATOUT
    flags[rows, 1 + per_row(obs, "level") - 1] = 1.0
    flags[:, 3] = per_row(obs, "order")
    flags[rows, 4 + (chooser - seat) % 4] = 1.0
    flags[rows, 8 + POSITION_OF_SEAT[dealer, seat]] = 1.0
    flags[:, 12] = bool(np.any(obs.sans_atout_must_beat))
    return np.concatenate([C.canonical(C.mask_bits(hand), trump), flags], axis=1)


def contre_legal(obs) -> np.ndarray:
    return np.ones((len(obs.hand), 2), bool)


def contre_action(obs, index: np.ndarray) -> np.ndarray:
    return np.asarray(index, np.int64) == 1


CHOOSE_FIELDS = ("hand", "seat", "dealer", "passed", "legal", "sans_atout_must_beat")
CONTRE_FIELDS = ("hand", "seat", "dealer", "chooser", "trump", "level", "order",
                 "sans_atout_must_beat")


# ---------------------------------------------------------------- the teacher


@forwards("bidder", "choose", "contre")
class _CardsBy(CardsBy):
    """The base policy's auction, the card net's play."""


@dataclass(frozen=True)
class AuctionTeacher:
    """Each legal auction option of a row played out over ``worlds`` worlds consistent with
    the auction so far (module docstring); ``card`` plays the cards at every seat, ``base``
    makes the rest of the auction and is the model the worlds are kept by."""

    card: object
    base: object
    worlds: int = 32
    tries: int = 8  # candidate worlds drawn per kept world
    seed: int = 0

    # -- worlds --------------------------------------------------------------------------
    def _candidates(self, gen, hand: int, position: int) -> np.ndarray:
        """(tries * worlds, 4) hands by turn-order position, ``hand`` at ``position``."""
        n = self.tries * self.worlds
        unknown = np.array([c for c in range(32) if not hand >> c & 1], np.int64)
        dealt = gen.permuted(np.broadcast_to(unknown, (n, 24)), axis=1).reshape(n, 3, 8)
        masks = (np.uint32(1) << dealt.astype(np.uint32)).sum(axis=2, dtype=np.uint64)
        hands = np.zeros((n, 4), np.uint32)
        others = [p for p in range(4) if p != position]
        hands[:, others] = masks.astype(np.uint32)
        hands[:, position] = hand
        return hands

    def _choices(self, hands: np.ndarray, must_beat: bool) -> tuple[np.ndarray, np.ndarray]:
        """The base policy's dealer choice and partner choice on each world (the partner's
        as if the dealer had passed)."""
        n = len(hands)
        seat = np.zeros(n, np.int8)  # seats do not matter to the choice: dealer seat 0
        first = self.base.choose(ChoiceObs(hands[:, 3], seat, seat, False,
                                           np.full(n, 0b111111, np.uint8), None, must_beat))
        second = self.base.choose(ChoiceObs(hands[:, 1], np.full(n, 2, np.int8), seat, True,
                                            np.full(n, PARTNER_CHOICES[True]), None,
                                            must_beat))
        return np.asarray(first), np.asarray(second)

    def _contre_says(self, hands, position: int, chooser_pos: int, trump: int, level: int,
                     order: int, must_beat: bool) -> np.ndarray:
        n = len(hands)
        dealer = np.zeros(n, np.int8)
        seat = np.full(n, (0 - 1 - position) % 4, np.int8)
        chooser = np.full(n, (0 - 1 - chooser_pos) % 4, np.int8)
        return np.asarray(self.base.contre(ContreObs(hands[:, position], seat, dealer, chooser,
                                                     np.full(n, trump, np.int8), level, order,
                                                     None, must_beat)), bool)

    def _keep(self, hands: np.ndarray, agree: np.ndarray) -> np.ndarray:
        kept = np.flatnonzero(agree)[: self.worlds]
        if len(kept) == 0:
            kept = np.arange(self.worlds)
        return hands[kept]

    # -- rollouts ------------------------------------------------------------------------
    def _scores(self, hands, trump, chooser_pos, must_beat: bool, forced=None) -> np.ndarray:
        """The taking team's MA-6 margin of each world played out from a named trump (the
        table's sans-atout beating option, MA-5)."""
        n = len(hands)
        dispatch = Dispatch(_CardsBy(self.base, self.card))
        taking, defence = play_from_choice(
            R.ManilleConfig(sans_atout_must_beat=must_beat), dispatch, hands,
            np.zeros(n, np.int8),
            np.asarray(trump, np.int8), np.asarray(chooser_pos, np.int8),
            np.arange(n, dtype=np.int64), forced)
        return taking.astype(np.float64) - defence.astype(np.float64)

    def choice_values(self, obs, rows: np.ndarray) -> np.ndarray:
        """(len(rows), 6) each legal choice's mean margin of the dealer's team over the
        worlds, in the net's sorted order; NaN where illegal."""
        out = np.full((len(rows), N_CHOICE_ACTIONS), np.nan)
        must_beat = bool(np.any(obs.sans_atout_must_beat))
        passed = np.broadcast_to(np.asarray(obs.passed), (len(obs.hand),))
        blocks, plan = [], []
        for k, i in enumerate(rows):
            hand, position = int(obs.hand[i]), 1 if passed[i] else 3
            gen = row_generator(self.seed, obs.noise[i], hand, int(obs.seat[i]), 1)
            hands = self._candidates(gen, hand, position)
            if passed[i]:  # the dealer passed: keep the worlds where the base passes
                first, _ = self._choices(hands, must_beat)
                hands = self._keep(hands, first == R.PASS_TO_PARTNER)
            else:
                hands = hands[: self.worlds]
            legal = int(obs.legal[i])
            for option in range(N_CHOICE_ACTIONS):
                if legal >> option & 1:
                    blocks.append(hands)
                    plan.append((k, option, position))
        hands = np.concatenate(blocks)
        trump = np.concatenate([np.full(len(h), o) for h, (_, o, _) in zip(blocks, plan,
                                                                            strict=True)])
        chooser = np.concatenate([np.full(len(h), p) for h, (_, _, p) in zip(blocks, plan,
                                                                              strict=True)])
        passing = trump == R.PASS_TO_PARTNER
        if passing.any():  # the partner names by the base policy
            _, second = self._choices(hands[passing], must_beat)
            trump[passing], chooser[passing] = second, 1
        scores = self._scores(hands, trump, chooser, must_beat)
        start = 0
        for block, (k, option, _) in zip(blocks, plan, strict=True):
            out[k, option] = scores[start:start + len(block)].mean()
            start += len(block)
        return np.stack([to_sorted(out[k], int(obs.hand[i])) for k, i in enumerate(rows)])

    def contre_values(self, obs, rows: np.ndarray) -> np.ndarray:
        """(len(rows), 2) the mean margin of the asked player's team when he keeps silent
        and when he says it, over worlds consistent with the auction so far."""
        must_beat = bool(np.any(obs.sans_atout_must_beat))
        level, order = per_row(obs, "level"), per_row(obs, "order")
        blocks, trumps, choosers, keys, signs = [], [], [], [], []
        for i in rows:
            seat, dealer, chooser = int(obs.seat[i]), int(obs.dealer[i]), int(obs.chooser[i])
            position = int(POSITION_OF_SEAT[dealer, seat])
            chooser_pos = int(POSITION_OF_SEAT[dealer, chooser])
            trump = int(obs.trump[i])
            gen = row_generator(self.seed, obs.noise[i], int(obs.hand[i]), seat,
                                int(level[i]))
            hands = self._candidates(gen, int(obs.hand[i]), position)
            first, second = self._choices(hands, must_beat)
            agree = (first == trump) if chooser_pos == 3 else (
                (first == R.PASS_TO_PARTNER) & (second == trump))
            if chooser_pos == position:  # his own choice: nothing to infer from it
                agree = np.ones(len(hands), bool)
            if level[i] == R.CONTRE and order[i] == 1:  # the first defender kept silent
                agree &= ~self._contre_says(hands, 0, chooser_pos, trump, R.CONTRE, 0,
                                            must_beat)
            if level[i] == R.SURCONTRE:  # a defender said contre
                said = self._contre_says(hands, 0, chooser_pos, trump, R.CONTRE, 0, must_beat)
                said |= self._contre_says(hands, 2, chooser_pos, trump, R.CONTRE, 1, must_beat)
                agree &= said
            kept = self._keep(hands, agree)
            blocks.append(np.concatenate([kept, kept]))  # silent, then said
            trumps.append(trump)
            choosers.append(chooser_pos)
            keys.append((int(level[i]), int(order[i])))
            signs.append(1.0 if position % 2 == 1 else -1.0)  # odd: the dealer's team
        sizes = [len(b) for b in blocks]
        total = sum(sizes)
        forced = {(stage, o): np.full(total, -1, np.int8) for stage in (R.CONTRE, R.SURCONTRE)
                  for o in (0, 1)}
        start = 0
        for size, (stage, o) in zip(sizes, keys, strict=True):
            part = slice(start, start + size)
            forced[(stage, o)][part] = np.repeat([0, 1], size // 2)
            if o == 1:  # the one asked before him kept silent, as the worlds were kept
                forced[(stage, 0)][part] = 0
            if stage == R.SURCONTRE:  # the contre was said, as the worlds were kept
                forced[(R.CONTRE, 0)][part] = 1
            start += size
        margin = self._scores(np.concatenate(blocks), np.repeat(trumps, sizes),
                              np.repeat(choosers, sizes), must_beat, forced)
        out = np.empty((len(rows), 2))
        start = 0
        for k, (size, sign) in enumerate(zip(sizes, signs, strict=True)):
            out[k] = sign * margin[start:start + size].reshape(2, -1).mean(axis=1)
            start += size
        return out
