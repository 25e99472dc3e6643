"""PIMC: the sampler, the reading of the play, the worlds and the two PIMC players (issue 21).

* **Sampler** (:func:`simulators.core.pimc.sample_hands`, ``count_deals``): on small cases
  (6-9 cards, 2-5 hidden slots, voids, cards bound to one slot, an empty slot, a 5-player
  Bianco Mano table with its espion, turned and called cards), every consistent deal is
  enumerated with plain recursion; the count must match, the draws must hit every deal and
  only those, and a chi-square goodness-of-fit test against uniform must pass. Larger cases:
  closed-form counts, and each card's slot frequencies against the exact marginals.
* **Reading the play** (:func:`simulators.core.pimc.read_history`): the singleton rule the
  module relies on (card ``c`` is legal for the *referee* in hand ``H`` iff no card of
  ``H - {c}`` is in what playing ``c`` proves absent) on random referee positions of both
  games, every Manille trump, sans atout with and without ``sans_atout_must_beat``; on
  whole deals played at random by the referees, the truth is never excluded (each seat's
  real hand never meets its ``cannot_hold``) and the public bookkeeping is right; one
  hand-made case per ruling (MA-5, BM-8).
* **Worlds**: the worlds both PIMC players sample in engine deals (spied on through their
  ``_worlds`` methods) hold the player's own hand, no played card, each seat's exact hand
  size, nothing ``cannot_hold`` excludes, every unplayed card once; Bianco Mano: the turned
  card with the taker or in the espion, the called card (5 players) neither.
* **Players**: engine batches with ``pimc`` seats (Manille: its trump choice and contre
  switched on at the default table, card play only at a ``sans_atout_must_beat`` table)
  replay under the referee; the same deals whatever the batch split; handed the true hands
  as its only world, each player plays a double-dummy-optimal card; parameter validation;
  the sans atout duties of the trump choice at a must-beat table.
* **odds --play**: the rows and paired rows of ``tapisvert odds manille --play``; bad input.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from dataclasses import dataclass

import numpy as np
import polars as pl
import pytest
from scipy import stats

from analysis import cli
from simulators.bianco_mano import crosscheck as bm_crosscheck
from simulators.bianco_mano import engine as bm_engine
from simulators.bianco_mano import observations as bm_obs
from simulators.bianco_mano import rules as bm_rules
from simulators.bianco_mano.game import GAME as BM_GAME
from simulators.bianco_mano.solver import pimc as bm_pimc
from simulators.core import double_dummy as dd
from simulators.core import pimc
from simulators.core.tricks import SUIT_MASK
from simulators.manille import crosscheck as ma_crosscheck
from simulators.manille import engine as ma_engine
from simulators.manille import observations as ma_obs
from simulators.manille import rules as ma_rules
from simulators.manille.game import GAME as MA_GAME
from simulators.manille.solver import pimc as ma_pimc
from tests.core.double_dummy_reference import (
    BIANCO_MANO,
    MANILLE,
    Spot,
    cards_of,
    mask_of,
    random_spots,
    solver_position,
)

ALL = (1 << 32) - 1
MA_TEAM = np.array([0, 1, 0, 1], np.int64)  # MA-5: partners face to face


def _popcount(mask: int) -> int:
    return bin(int(mask)).count("1")


# ================================================================ the sampler

# (cards, allowed slots of each card as a bitmask, slot sizes)
SAMPLER_CASES = {
    "2-slots-6-cards": ([3, 7, 12, 18, 25, 31], [1, 3, 3, 2, 3, 3], [2, 4]),
    "2-slots-8-cards-voids": ([0, 4, 8, 9, 15, 22, 23, 30], [1, 1, 3, 3, 3, 2, 3, 3], [3, 5]),
    "3-slots-8-cards": ([0, 5, 9, 10, 14, 21, 27, 30], [3, 5, 6, 7, 7, 7, 1, 6], [3, 3, 2]),
    "3-slots-empty-slot": ([2, 6, 9, 13, 22, 26], [5, 7, 7, 4, 3, 5], [3, 0, 3]),
    "3-slots-bound-cards": ([2, 6, 9, 13, 22, 26, 30], [1, 1, 2, 4, 7, 7, 6], [3, 2, 2]),
    "4-slots-9-cards": ([1, 2, 4, 8, 16, 17, 19, 23, 29], [3, 6, 12, 9, 15, 15, 15, 5, 10],
                        [3, 2, 2, 2]),
    # Bianco Mano, 5 players, seen by a defender: slots 0..3 the other seats (slot 0 the
    # taker), slot 4 the espion; card 0 the turned card (the taker's or the espion's),
    # card 3 the called card (neither), cards 6 and 28 not in slot 2 (a void), card 24
    # not in slot 1
    "5-slots-bm5-espion": ([0, 3, 6, 11, 13, 20, 24, 28, 31],
                           [1 | 16, 2 | 4 | 8, 27, 31, 31, 31, 29, 27, 31], [2, 2, 2, 1, 2]),
}
SAMPLER_IDS = list(SAMPLER_CASES)
DRAWS_PER_DEAL = 50  # expected hits per consistent deal in the chi-square test
P_FLOOR = 1e-3
"""Chi-square threshold. The seed is fixed, so each case is deterministic: if the sampler is
exactly uniform the statistic is chi-square distributed and a seed fails with probability
0.001 (this one passed once and passes forever). Bias is what must fail: at 50 draws per
deal, a sampler off by a few percent on a class of deals gives p far below 1e-6 (the
one-card-at-a-time sampler of ``test_chi_square_catches_a_biased_sampler`` gets p < 1e-12),
so so low a threshold costs no power while keeping seed luck out of the verdict."""


def _enumerate(allowed, sizes) -> list[tuple[int, ...]]:
    """Every consistent deal, as the slot of each card (plain recursion)."""
    room, slot_of, out = list(sizes), [0] * len(allowed), []

    def place(j: int) -> None:
        if j == len(allowed):
            out.append(tuple(slot_of))
            return
        for s in range(len(sizes)):
            if allowed[j] >> s & 1 and room[s]:
                room[s] -= 1
                slot_of[j] = s
                place(j + 1)
                room[s] += 1

    place(0)
    return out


def _codes(slot_of: np.ndarray, m: int) -> np.ndarray:
    """One integer per deal: sum of slot_of[:, j] * m**j."""
    return (np.asarray(slot_of, np.int64) * m ** np.arange(np.shape(slot_of)[-1])).sum(axis=-1)


def _slots_drawn(hands: np.ndarray, cards) -> np.ndarray:
    """(worlds, cards): the slot each card was dealt to; asserts each is dealt exactly once."""
    held = (hands.astype(np.int64)[:, :, None] >> np.asarray(cards, np.int64)[None, None, :]) & 1
    assert (held.sum(axis=1) == 1).all(), "a card dealt to no slot or to two"
    return held.argmax(axis=1)


def _check_draws(hands, cards, allowed, sizes) -> None:
    """Right shape, right sizes, only the cards given, each in an allowed slot."""
    assert hands.shape[1] == len(sizes) and hands.dtype == np.uint32
    for j, size in enumerate(sizes):
        assert (np.array([_popcount(h) for h in hands[:, j]]) == size).all(), f"slot {j} size"
    union = np.bitwise_or.reduce(hands, axis=1)
    assert (union == mask_of(cards)).all()
    slot = _slots_drawn(hands, cards)
    ok = (np.asarray(allowed)[None, :] >> slot) & 1
    assert ok.all(), "a card dealt to a slot it is not allowed in"


@pytest.mark.parametrize("case", SAMPLER_IDS)
def test_count_deals_equals_enumeration(case):
    cards, allowed, sizes = SAMPLER_CASES[case]
    assert pimc.count_deals(cards, allowed, sizes) == len(_enumerate(allowed, sizes))


@pytest.mark.parametrize("case", SAMPLER_IDS)
def test_sample_hands_is_uniform_over_consistent_deals(case):
    cards, allowed, sizes = SAMPLER_CASES[case]
    deals = sorted(_codes(np.array(_enumerate(allowed, sizes)), len(sizes)).tolist())
    n = DRAWS_PER_DEAL * len(deals)
    hands = pimc.sample_hands(np.random.default_rng(2021), cards, allowed, sizes, n)
    _check_draws(hands, cards, allowed, sizes)
    drawn = _codes(_slots_drawn(hands, cards), len(sizes))
    codes, counts = np.unique(drawn, return_counts=True)
    assert codes.tolist() == deals, "the draws miss a consistent deal or hit another one"
    p = stats.chisquare(counts).pvalue
    assert p > P_FLOOR, f"{case}: chi-square p = {p:.2e} over {len(deals)} deals, {n} draws"


def _sequential_sampler(rng, allowed, sizes, n) -> np.ndarray:
    """A plausible wrong sampler: each card in turn to a random allowed slot with room,
    starting over on a dead end (slot_of per card)."""
    out = np.empty((n, len(allowed)), np.int64)
    for w in range(n):
        while True:
            room, ok = list(sizes), True
            for j, a in enumerate(allowed):
                options = [s for s in range(len(sizes)) if a >> s & 1 and room[s]]
                if not options:
                    ok = False
                    break
                s = options[int(rng.integers(len(options)))]
                room[s] -= 1
                out[w, j] = s
            if ok:
                break
    return out


def test_chi_square_catches_a_biased_sampler():
    """The test above has teeth: the same draws from a one-card-at-a-time sampler fail."""
    cards, allowed, sizes = SAMPLER_CASES["3-slots-8-cards"]
    deals = sorted(_codes(np.array(_enumerate(allowed, sizes)), 3).tolist())
    drawn = _codes(_sequential_sampler(np.random.default_rng(0), allowed, sizes,
                                       DRAWS_PER_DEAL * len(deals)), 3)
    codes, counts = np.unique(drawn, return_counts=True)
    assert codes.tolist() == deals
    assert stats.chisquare(counts).pvalue < 1e-12


def test_count_deals_closed_forms():
    """24 cards to three hands of 8: 24!/(8!)^3; with one seat void in a suit of 6 (those
    cards to the other two): C(18, 8) x 16!/(8! 8!); a card bound to a seat: C(23, 7) x ..."""
    cards = list(range(8, 32))
    f = math.factorial
    assert pimc.count_deals(cards, [7] * 24, [8, 8, 8]) == f(24) // f(8) ** 3
    void = [6 if c % 4 == 0 else 7 for c in cards]  # suit 0 (6 cards here) not in slot 0
    assert pimc.count_deals(cards, void, [8, 8, 8]) == math.comb(18, 8) * math.comb(16, 8)
    bound = [1] + [7] * 23
    assert pimc.count_deals(cards, bound, [8, 8, 8]) == math.comb(23, 7) * math.comb(16, 8)


def _exact_marginals(cards, allowed, sizes) -> np.ndarray:
    """P(card j in slot s), by counting the deals with card j bound to slot s."""
    total = pimc.count_deals(cards, allowed, sizes)
    out = np.zeros((len(cards), len(sizes)))
    for j, s in itertools.product(range(len(cards)), range(len(sizes))):
        if allowed[j] >> s & 1:
            bound = list(allowed)
            bound[j] = 1 << s
            out[j, s] = pimc.count_deals(cards, bound, sizes) / total
    return out


LARGE_CASES = {
    # Manille, trick 3 of a seat's view: 20 hidden cards, three seats; voids and an
    # inferred "no trump"
    "manille-3-seats": (list(range(12, 32)),
                        [6] * 5 + [4] * 3 + [5] * 3 + [7] * 9, [7, 7, 6]),
    # Bianco Mano 5 players, first trick: 4 seats of 6 (one has played) and the espion
    "bm5-5-slots": (list(range(7, 32)),
                    [1 | 16] + [14] + [29] * 4 + [27] * 3 + [31] * 16, [6, 5, 6, 6, 2]),
}


@pytest.mark.parametrize("case", list(LARGE_CASES))
def test_large_case_marginals(case):
    """Every card's slot frequencies against the exact marginals (chi-square per card,
    Bonferroni over the cards); sizes and allowed slots on every draw."""
    cards, allowed, sizes = LARGE_CASES[case]
    n = 20_000
    hands = pimc.sample_hands(np.random.default_rng(7), cards, allowed, sizes, n)
    _check_draws(hands, cards, allowed, sizes)
    slot = _slots_drawn(hands, cards)
    exact = _exact_marginals(cards, allowed, sizes)
    np.testing.assert_allclose(exact.sum(axis=0), np.array(sizes), rtol=1e-9)
    worst = 1.0
    for j in range(len(cards)):
        possible = np.flatnonzero(exact[j] > 0)
        if len(possible) < 2:
            assert set(slot[:, j].tolist()) <= set(possible.tolist())
            continue
        counts = np.bincount(slot[:, j], minlength=len(sizes))
        assert counts[exact[j] == 0].sum() == 0
        worst = min(worst, stats.chisquare(counts[possible], n * exact[j, possible]).pvalue)
    assert worst > P_FLOOR / len(cards), f"{case}: smallest per-card p = {worst:.2e}"


def test_no_consistent_deal_raises():
    with pytest.raises(ValueError, match="no deal"):  # two cards bound to a slot of one
        pimc.sample_hands(np.random.default_rng(0), [1, 2, 3], [1, 1, 3], [1, 2], 4)
    assert pimc.count_deals([1, 2, 3], [1, 1, 3], [1, 2]) == 0
    with pytest.raises(ValueError, match="no deal"):  # a card allowed nowhere
        pimc.sample_hands(np.random.default_rng(0), [1, 2], [0, 3], [1, 1], 4)
    with pytest.raises(ValueError, match="no deal"):  # 5 slots: the espion overfull
        pimc.sample_hands(np.random.default_rng(0), list(range(6)), [16, 16, 16, 31, 31, 31],
                          [1, 1, 1, 1, 2], 4)
    with pytest.raises(ValueError, match="sizes"):
        pimc.sample_hands(np.random.default_rng(0), [1, 2], [3, 3], [1, 2], 4)
    with pytest.raises(ValueError, match="slots"):
        pimc.sample_hands(np.random.default_rng(0), list(range(6)), [63] * 6, [1] * 6, 4)


# ================================================================ reading the play


def _trick_history(spot: Spot, c: int):
    """read_history of the trick in progress of ``spot`` with ``c`` played next (one trick:
    the duties only read the trick in progress). Teams: Manille's partners; Bianco Mano's
    none, as its PIMC player passes them (BM-8 has no exception for a partner)."""
    plays = np.full((1, spot.n), -1, np.int64)
    plays[0, :len(spot.trick)] = spot.trick
    plays[0, len(spot.trick)] = c
    team = MA_TEAM if spot.game == MANILLE else np.zeros(spot.n, np.int64)
    return pimc.read_history(plays, [spot.leader], spot.trump_mask(), spot.duties(), team=team,
                             direction=spot.direction)


def _singleton_failures(spot: Spot, hand: list[int]) -> list[str]:
    seat = spot.to_move()
    hands = list(spot.hand_lists())
    hands[seat] = tuple(hand)
    legal = set(spot.legal(hands, spot.leader, spot.trick))
    failures = []
    for c in hand:
        forbidden = int(_trick_history(spot, c).cannot_hold[seat])
        rest = mask_of(hand) & ~(1 << c)
        if (c in legal) != (rest & forbidden == 0):
            failures.append(f"card {c} referee-legal {c in legal}, hand {hand}, forbidden "
                            f"{cards_of(forbidden)}: {spot.describe()}")
    return failures


SINGLETON_SPOTS = 1_500


@pytest.mark.parametrize("game", [MANILLE, BIANCO_MANO])
def test_singleton_rule_matches_referee(game):
    """c is legal for the referee in H iff no x in H - {c} is in what playing c proves absent:
    on each random position, for the player's real hand and for a random hand of 1..10
    cards (any cards off the table)."""
    rng = np.random.default_rng(21)
    spots = random_spots(game, SINGLETON_SPOTS, 21, max_tricks_left=10)
    spots = [s for s in spots if s.trick]  # a leader may play anything: nothing to read
    if game == MANILLE:
        kinds = {(s.trump, s.must_beat) for s in spots}
        assert kinds == {(t, False) for t in range(4)} | {(4, False), (4, True)}
    else:
        assert {s.n for s in spots} == set(bm_rules.PLAYER_COUNTS)
    failures = []
    for s in spots:
        failures += _singleton_failures(s, list(s.hand_lists()[s.to_move()]))
        off_table = [c for c in range(32) if c not in s.trick]
        size = int(rng.integers(1, 11))
        failures += _singleton_failures(s, sorted(rng.choice(off_table, size, replace=False)
                                                  .tolist()))
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:3])


@dataclass(frozen=True)
class Played:
    """A whole deal played at random by a referee: hands when play starts (masks by seat),
    each card in play order with its seat, each trick's leader; Bianco Mano's taker,
    espion, turned and called cards."""

    game: str
    hands: tuple[int, ...]
    trump: int
    must_beat: bool
    order: tuple[tuple[int, int], ...]
    leaders: tuple[int, ...]
    taker: int = -1
    espion: int = 0
    turned: int = -1
    called: int = -1

    @property
    def n(self) -> int:
        return len(self.hands)

    def shell(self, hands=None, leader=0, trick=(), team=None) -> Spot:
        n = self.n
        return Spot(self.game, tuple(hands or (0,) * n), leader, tuple(trick), self.trump,
                    tuple(team or (0,) * n), self.must_beat)

    def duties(self):
        return self.shell().duties()

    def prefix(self, m: int):
        """After ``m`` cards: plays (tricks, n) and leaders as the engines fill them, each
        seat's hand, the trick in progress and its leader."""
        n, tricks = self.n, len(self.leaders)
        plays = np.full((tricks, n), -1, np.int8)
        leaders = np.full(tricks, -1, np.int8)
        for k in range(m):
            plays[k // n, k % n] = self.order[k][1]
        leaders[:min(m // n + 1, tricks)] = self.leaders[:m // n + 1]
        hands = [0] * n
        for seat, c in self.order[m:]:
            hands[seat] |= 1 << c
        if m == n * tricks:  # all played: the last trick's winner would lead
            last = [c for _, c in self.order[-n:]]
            return plays, leaders, hands, self.shell().winner(self.leaders[-1], last), []
        t = m // n
        return plays, leaders, hands, self.leaders[t], [c for _, c in self.order[t * n:m]]

    def side(self) -> tuple[int, ...]:
        """1 for the seats playing for the taker (Bianco Mano, BM-4..BM-6)."""
        n, taker = self.n, self.taker
        partner = {4: (taker + 2) % 4, 3: -1}.get(n)
        if n == 5:
            partner = next(s for s in range(n) if self.hands[s] >> self.called & 1)
        return tuple(int(s in (taker, partner)) for s in range(n))


def _play_out(game, hands: list[list[int]], leader: int, trump: int, must_beat: bool, rng):
    """Random legal play to the end of the deal by the referee; (order, leaders)."""
    shell = Spot(game, (0,) * len(hands), leader, (), trump, (0,) * len(hands), must_beat)
    order, leaders, trick = [], [leader], []
    for _ in range(sum(len(h) for h in hands)):
        seat = shell.seat_at(leader, len(trick))
        legal = shell.legal(hands, leader, trick)
        c = legal[int(rng.integers(len(legal)))]
        hands[seat].remove(c)
        trick.append(c)
        order.append((seat, c))
        if len(trick) == len(hands):
            leader, trick = shell.winner(leader, trick), []
            leaders.append(leader)
    return tuple(order), tuple(leaders[:-1])


def random_manille(rng, trump: int, must_beat: bool) -> Played:
    deck = rng.permutation(32).tolist()
    hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
    masks = tuple(mask_of(h) for h in hands)
    order, leaders = _play_out(MANILLE, hands, int(rng.integers(4)), trump, must_beat, rng)
    return Played(MANILLE, masks, trump, must_beat, order, leaders)


def random_bianco_mano(rng, n: int) -> Played:
    """A random deal of ``n`` players: hands, espion (3 and 5 players), a taker who leads,
    the turned card among the taker's cards or espion, a called card (5 players, not of the
    dominant family) in another seat's hand."""
    size, spy = bm_rules.HAND_SIZE[n], bm_rules.ESPION_SIZE[n]
    deck = rng.permutation(32).tolist()
    hands = [sorted(deck[size * s:size * s + size]) for s in range(n)]
    espion = deck[n * size:n * size + spy]
    taker, dominant = int(rng.integers(n)), int(rng.integers(4))
    turned = int(rng.choice(hands[taker] + espion))
    called = -1
    if n == 5:
        called = int(rng.choice([c for s in range(n) if s != taker for c in hands[s]
                                 if c % 4 != dominant]))
    masks = tuple(mask_of(h) for h in hands)
    order, leaders = _play_out(BIANCO_MANO, hands, taker, dominant, False, rng)
    return Played(BIANCO_MANO, masks, dominant, False, order, leaders, taker, mask_of(espion),
                  turned, called)


def _read(deal: Played, m: int):
    plays, leaders, *_ = deal.prefix(m)
    team = MA_TEAM if deal.game == MANILLE else np.zeros(deal.n, np.int64)
    return pimc.read_history(plays, leaders, SUIT_MASK[deal.trump], deal.duties(), team=team,
                             direction=deal.shell().direction)


def _history_failures(deal: Played) -> list[str]:
    """At every point of the deal: the truth is never excluded, and the public record is
    read right (cards played by each seat, tricks won, trick in progress, leader)."""
    n, failures = deal.n, []
    shell = deal.shell()
    for m in range(len(deal.order) + 1):
        seen = _read(deal, m)
        _, _, hands, leader, trick = deal.prefix(m)
        played_by, won_by = [0] * n, [0] * n
        for seat, c in deal.order[:m]:
            played_by[seat] |= 1 << c
        for t in range(m // n):
            cards = [c for _, c in deal.order[t * n:(t + 1) * n]]
            won_by[shell.winner(deal.leaders[t], cards)] |= mask_of(cards)
        expected = {"played_by": played_by, "won_by": won_by, "leader": leader,
                    "tricks_done": m // n,
                    "trick": trick + [-1] * (n - len(trick))}
        got = {"played_by": seen.played_by.tolist(), "won_by": seen.won_by.tolist(),
               "leader": seen.leader, "tricks_done": seen.tricks_done,
               "trick": seen.trick.tolist()}
        if got != expected:
            failures.append(f"after {m} cards: read {got}, expected {expected}: {deal}")
        for s in range(n):
            if int(seen.cannot_hold[s]) & hands[s]:
                failures.append(f"after {m} cards: seat {s} holds "
                                f"{cards_of(int(seen.cannot_hold[s]) & hands[s])}, which "
                                f"read_history says it cannot hold: {deal}")
    return failures


HISTORY_DEALS = 60
HISTORY_CONFIGS = ([pytest.param(MANILLE, t, False, id=f"manille-{ma_rules.TRUMP_CODES[t]}")
                    for t in range(5)]
                   + [pytest.param(MANILLE, ma_rules.SANS_ATOUT, True, id="manille-SA-must-beat")]
                   + [pytest.param(BIANCO_MANO, n, False, id=f"bianco_mano-{n}p")
                      for n in bm_rules.PLAYER_COUNTS])


@pytest.mark.parametrize(("game", "kind", "must_beat"), HISTORY_CONFIGS)
def test_truth_is_never_excluded(game, kind, must_beat):
    """The must-not-fail property: the real deal is always one of the consistent worlds."""
    rng = np.random.default_rng(kind * 2 + must_beat + (100 if game == BIANCO_MANO else 0))
    failures, inferred = [], 0
    for _ in range(HISTORY_DEALS):
        deal = (random_manille(rng, kind, must_beat) if game == MANILLE
                else random_bianco_mano(rng, kind))
        failures += _history_failures(deal)
        inferred += sum(_popcount(x) for x in _read(deal, len(deal.order)).cannot_hold)
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:3])
    assert inferred > 0  # the play did reveal something


def _one_trick(game, trump, cards, leader=0, n=4, must_beat=False):
    """read_history of one trick (cards in notation, in play order) led by ``leader``."""
    parse = ma_rules.parse_cards if game == MANILLE else bm_rules.parse_cards
    plays = np.full((1, n), -1, np.int64)
    played = parse(cards)
    plays[0, :len(played)] = played
    if game == MANILLE:
        return pimc.read_history(plays, [leader], SUIT_MASK[trump],
                                 ma_rules.duties(trump, must_beat), team=MA_TEAM,
                                 direction=dd.COUNTER_CLOCKWISE).cannot_hold
    return pimc.read_history(plays, [leader], SUIT_MASK[trump], bm_engine.DUTIES,
                             team=np.zeros(n, np.int64), direction=dd.CLOCKWISE).cannot_hold


def _ma(text: str) -> int:
    return mask_of(ma_rules.parse_cards(text))


SPADES, HEARTS = int(SUIT_MASK[0]), int(SUIT_MASK[1])  # Manille P and C
MA_HEARTS = 1  # trump C; seats play 0, 3, 2, 1 (MA-5: counter-clockwise)


def test_ma5_failing_to_follow_reveals_a_void():
    """Seat 3's partner (seat 1) does not hold the trick: seat 1 discards a diamond when its
    partner holds it with the ace, so no spade, and no trump duty (partner holds)."""
    seen = _one_trick(MANILLE, MA_HEARTS, "7P AP 8P 7K")
    assert seen[1] == SPADES


def test_ma5_not_trumping_when_opponent_holds_reveals_no_trump():
    seen = _one_trick(MANILLE, MA_HEARTS, "RP 7K")
    assert seen[3] == SPADES | HEARTS


def test_ma5_not_beating_an_opponent_reveals_no_higher_card():
    """Seat 2 follows low under seat 3's ace: no 10 of spades (the only card above the ace)."""
    seen = _one_trick(MANILLE, MA_HEARTS, "7P AP 8P")
    assert seen[2] == _ma("10P")
    assert seen[0] == 0  # the leader plays anything


def test_ma5_undertrumping_reveals_no_higher_trump():
    """Seat 3 trumps with the jack; seat 2, void, plays the 7 of trumps: no spade and no
    trump above the jack (lower trumps and discards stay possible: no undertrump duty);
    seat 1, whose partner holds, discards: only the void."""
    seen = _one_trick(MANILLE, MA_HEARTS, "RP VC 7C 8K")
    assert seen[2] == SPADES | _ma("10C AC RC DC")
    assert seen[1] == SPADES


def test_ma5_sans_atout_only_the_void_unless_must_beat():
    sa = ma_rules.SANS_ATOUT
    assert _one_trick(MANILLE, sa, "RP 7P 7K").tolist()[1:3] == [0, SPADES]  # seat 3, 2
    seen = _one_trick(MANILLE, sa, "RP 7P 7K", must_beat=True)
    assert seen[3] == _ma("10P AP") and seen[2] == SPADES


def _bm(text: str) -> int:
    return mask_of(bm_rules.parse_cards(text))


BM_ROUGE = 0  # dominant R; clockwise: seats 0, 1, 2, 3
ROUGE, BLEUE = int(SUIT_MASK[0]), int(SUIT_MASK[1])


def test_bm8_not_overtrumping_reveals_no_higher_dominant():
    """Blue led; seat 1 plays the dominant 3R; seat 2, void in blue, plays the lower 6R: no
    blue, and no 1R or 2R (it would have to overtrump); seat 3 discards: no blue, no red."""
    seen = _one_trick(BIANCO_MANO, BM_ROUGE, "2B 3R 6R 5J")
    assert seen[1] == BLEUE
    assert seen[2] == BLEUE | _bm("1R 2R")
    assert seen[3] == BLEUE | ROUGE


def test_bm8_following_low_reveals_nothing():
    """No duty to beat a non-dominant card (BM-8 (1))."""
    assert _one_trick(BIANCO_MANO, BM_ROUGE, "2B 8B").tolist()[1] == 0


def test_bm8_dominant_lead_must_be_overtrumped():
    """A dominant lead, followed low: no stronger dominant in hand (BM-8 (3))."""
    assert _one_trick(BIANCO_MANO, BM_ROUGE, "4R 7R", n=3).tolist()[1] == _bm("1R 2R 3R")


# ================================================================ the players in engine deals

ENGINE_DEALS = 8
WORLDS = 2


@dataclass
class Spied:
    """What a spied ``_worlds`` saw and returned."""

    seat: int
    hand: int
    played: int
    cannot_hold: list[int]
    hands: np.ndarray
    espion: np.ndarray | None = None
    taker: int = -1
    turned: int = -1
    called: int = -1
    own_espion: int = 0


def _ma_spy(calls):
    original = ma_pimc.PimcPolicy._worlds

    def spy(self, gen, hand, played, seat, others, sizes, cannot_hold):
        out = original(self, gen, hand, played, seat, others, sizes, cannot_hold)
        calls.append(Spied(int(seat), int(hand), int(played), [int(x) for x in cannot_hold],
                           out.copy()))
        return out
    return spy


def _bm_spy(calls):
    original = bm_pimc.PimcPolicy._worlds

    def spy(self, obs, i, gen, seen, hand, played, own_espion):
        hands, espion = original(self, obs, i, gen, seen, hand, played, own_espion)
        calls.append(Spied(int(obs.seat[i]), int(hand), int(played),
                           [int(x) for x in seen.cannot_hold], hands.copy(), espion.copy(),
                           int(obs.taker[i]), int(obs.turned[i]), int(obs.called[i]),
                           int(own_espion)))
        return hands, espion
    return spy


# the table, and the PIMC player's switches: the default table with PIMC naming the trump
# and saying contre too (both off by default), sans atout must beat with the defaults
MA_CONFIGS = {
    "default-pimc-choose-contre": (ma_rules.ManilleConfig(),
                                   {"pimc_choose": True, "pimc_contre": True}),
    "sans-atout-must-beat": (ma_rules.ManilleConfig(sans_atout_must_beat=True), {}),
}


def _ma_policies(switches: dict):
    strong = MA_GAME.make_policy("pimc", worlds=WORLDS, seed=3, **switches)
    plain = MA_GAME.make_policy("heuristic")
    return [strong, strong, plain, plain]  # one PIMC player in each team


@functools.cache
def _ma_batch(config_name: str, first: int = 0, count: int = ENGINE_DEALS):
    """An engine batch with PIMC at seats 0 and 1, and every _worlds call it made."""
    calls: list[Spied] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ma_pimc.PimcPolicy, "_worlds", _ma_spy(calls))
        config, switches = MA_CONFIGS[config_name]
        batch = ma_engine.simulate_deals(config, _ma_policies(switches), count, seed=5,
                                         first_deal=first)
    return batch, calls


@functools.cache
def _bm_batch(n: int, first: int = 0, count: int = ENGINE_DEALS):
    """An engine batch with PIMC at every seat but one, and every _worlds call it made."""
    strong = BM_GAME.make_policy("pimc", worlds=WORLDS, seed=3)
    policies = [strong] * (n - 1) + [BM_GAME.make_policy("heuristic")]
    calls: list[Spied] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bm_pimc.PimcPolicy, "_worlds", _bm_spy(calls))
        batch = bm_engine.simulate_deals(bm_rules.BiancoManoConfig(n_players=n), policies,
                                         count, seed=5, first_deal=first)
    return batch, calls


def _ma_played(batch) -> list[Played]:
    """The batch's deals as Played records (seats from the leaders, MA-5 order)."""
    a, out = batch.arrays, []
    for i in range(len(batch.deal_ids)):
        trump = int(a.trump[i])
        leaders = [(int(a.dealer[i]) - 1) % 4] + [int(w) for w in a.trick_winners[i][:-1]]
        order = tuple(((leaders[t] - k) % 4, int(a.plays[i, t, k]))
                      for t in range(8) for k in range(4))
        out.append(Played(MANILLE, tuple(int(h) for h in a.hands[i]), trump,
                          batch.config.sans_atout_must_beat, order, tuple(leaders)))
    return out


def _bm_played(batch) -> list[Played]:
    a, n, out = batch.arrays, batch.config.n_players, []
    for i in range(len(batch.deal_ids)):
        if a.taker[i] < 0:
            continue  # all passed: no play
        tricks = bm_rules.HAND_SIZE[n]
        leaders = [int(a.taker[i])] + [int(w) for w in a.trick_winners[i][:tricks - 1]]
        order = tuple(((leaders[t] + k) % n, int(a.plays[i, t, k]))
                      for t in range(tricks) for k in range(n))
        hands = [0] * n
        for seat, c in order:
            hands[seat] |= 1 << c
        out.append(Played(BIANCO_MANO, tuple(hands), int(a.dominant[i]), False, order,
                          tuple(leaders), int(a.taker[i]), int(a.espion[i]),
                          int(a.turned_card[i]), int(a.called[i])))
    return out


def _locate(deals: list[Played], call: Spied):
    """The deal and the point of it (cards played) a spied call was made at."""
    m = _popcount(call.played)
    found = []
    for deal in deals:
        if mask_of(c for _, c in deal.order[:m]) != call.played:
            continue
        if deal.prefix(m)[2][call.seat] == call.hand:
            found.append(deal)
    assert len(found) == 1, f"{len(found)} deals match a _worlds call at seat {call.seat}"
    return found[0], m


def _world_failures(deal: Played, m: int, call: Spied, worlds: int) -> list[str]:
    n = deal.n
    hands = deal.prefix(m)[2]
    truth_read = _read(deal, m).cannot_hold.tolist()
    got = call.hands.astype(np.int64)
    espion = (np.zeros(worlds, np.int64) if call.espion is None
              else call.espion.astype(np.int64))
    out = []
    if got.shape != (worlds, n):
        return [f"worlds shape {got.shape}"]
    if call.cannot_hold != truth_read:
        out.append(f"cannot_hold used {call.cannot_hold}, the record reads {truth_read}")
    if (got[:, call.seat] != call.hand).any():
        out.append("the player's own hand differs")
    union = np.bitwise_or.reduce(got, axis=1) | espion
    total = sum(np.vectorize(_popcount)(got[:, s]) for s in range(n)) + \
        np.vectorize(_popcount)(espion)
    if ((union & call.played) != 0).any():
        out.append("a played card is in a world")
    if ((union | call.played) != ALL).any() or (total + _popcount(call.played) != 32).any():
        out.append("the worlds do not deal every unplayed card exactly once")
    for s in range(n):
        if (np.vectorize(_popcount)(got[:, s]) != _popcount(hands[s])).any():
            out.append(f"seat {s}: hand size {_popcount(hands[s])} not kept")
        if ((got[:, s] & truth_read[s]) != 0).any():
            out.append(f"seat {s} given a card it cannot hold")
        if hands[s] & truth_read[s]:
            out.append(f"the truth is excluded at seat {s}")
    if deal.game == BIANCO_MANO:
        spy = bm_rules.ESPION_SIZE[n]
        if (np.vectorize(_popcount)(espion) != spy).any():
            out.append(f"espion of {spy} cards not kept")
        if call.seat == deal.taker and (espion != deal.espion).any():
            out.append("the taker's own espion changed")
        with_taker = got[:, deal.taker] | espion
        if not call.played >> deal.turned & 1 and ((with_taker >> deal.turned & 1) == 0).any():
            out.append("the turned card is neither the taker's nor in the espion (BM-4..6)")
        if deal.called >= 0 and not call.played >> deal.called & 1 and \
                ((with_taker >> deal.called & 1) != 0).any():
            out.append("the called card is the taker's or in the espion (BM-6)")
    return [f"{msg} (seat {call.seat}, {m} cards played): {deal}" for msg in out]


@pytest.mark.parametrize("config", list(MA_CONFIGS))
def test_manille_pimc_deals_replay_under_the_referee(config):
    batch, _ = _ma_batch(config)
    assert ma_crosscheck.check_deals(batch) == ENGINE_DEALS


@pytest.mark.parametrize("config", list(MA_CONFIGS))
def test_manille_worlds_are_consistent(config):
    batch, calls = _ma_batch(config)
    deals = _ma_played(batch)
    dealt = 0  # worlds at the deal's start: trump choice, contre (and a first lead)
    failures = []
    for call in calls:
        deal, m = _locate(deals, call)
        dealt += m == 0
        failures += _world_failures(deal, m, call, WORLDS)
    assert len(calls) > dealt > (0 if MA_CONFIGS[config][1] else -1)
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:3])


@pytest.mark.parametrize("n", bm_rules.PLAYER_COUNTS)
def test_bianco_mano_pimc_deals_replay_under_the_referee(n):
    batch, _ = _bm_batch(n)
    assert bm_crosscheck.check_deals(batch) == ENGINE_DEALS
    assert (batch.arrays.taker >= 0).sum() >= 2  # some deals were played


@pytest.mark.parametrize("n", bm_rules.PLAYER_COUNTS)
def test_bianco_mano_worlds_are_consistent(n):
    batch, calls = _bm_batch(n)
    deals = _bm_played(batch)
    assert calls
    failures = []
    for call in calls:
        deal, m = _locate(deals, call)
        failures += _world_failures(deal, m, call, WORLDS)
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:3])


def _same_batches(whole, halves) -> None:
    a = whole.arrays
    for field in a._fields:
        value = getattr(a, field)
        if value is None:
            continue
        joined = np.concatenate([getattr(h.arrays, field) for h in halves])
        assert np.array_equal(value, joined), field
    assert pl.concat([h.table for h in halves]).equals(whole.table)


def test_manille_pimc_same_deals_whatever_the_batch_split():
    half = ENGINE_DEALS // 2
    name = "default-pimc-choose-contre"
    _same_batches(_ma_batch(name)[0], [_ma_batch(name, 0, half)[0], _ma_batch(name, half, half)[0]])


@pytest.mark.parametrize("n", bm_rules.PLAYER_COUNTS)
def test_bianco_mano_pimc_same_deals_whatever_the_batch_split(n):
    half = ENGINE_DEALS // 2
    _same_batches(_bm_batch(n)[0], [_bm_batch(n, 0, half)[0], _bm_batch(n, half, half)[0]])


# ---------------------------------------------------------------- one true world: optimal play


def _decision_points(deal: Played, rng, count: int):
    """Random points of the deal where the player to move has two legal cards or more."""
    points = []
    for m in rng.permutation(len(deal.order)).tolist():
        _, _, hands, leader, trick = deal.prefix(m)
        shell = deal.shell(hands, leader, trick)
        legal = shell.legal([cards_of(h) for h in hands], leader, trick)
        if len(legal) > 1:
            points.append((m, legal))
        if len(points) == count:
            break
    return points


def _true_values(deal: Played, m: int, team) -> np.ndarray:
    """Double-dummy values (side 0's points from here on) of each card in the true position."""
    _, _, hands, leader, trick = deal.prefix(m)
    return dd.card_values(solver_position([deal.shell(hands, leader, trick, team)]))[0]


OPTIMAL_DEALS = 10  # every trump (k % 5) twice


def test_manille_pimc_with_the_true_world_plays_double_dummy_optimal(monkeypatch):
    rng = np.random.default_rng(8)
    truth: dict = {}
    monkeypatch.setattr(ma_pimc.PimcPolicy, "_worlds",
                        lambda self, gen, hand, played, seat, others, sizes, cannot_hold:
                        truth["hands"][None])
    policy = ma_pimc.PimcPolicy(worlds=1)
    checked = 0
    for k in range(OPTIMAL_DEALS):
        trump = k % 5
        deal = random_manille(rng, trump, must_beat=trump == 4 and k % 2 == 1)
        for m, legal in _decision_points(deal, rng, 3):
            plays, leaders, hands, _, trick = deal.prefix(m)
            seat = deal.order[m][0]
            truth["hands"] = np.array(hands, np.uint32)
            obs = _ma_play_obs(deal, m, plays, leaders, hands, seat, legal, trick)
            card = int(policy.play(obs)[0])
            team = tuple(int(s % 2 != seat % 2) for s in range(4))  # his team is side 0
            values = _true_values(deal, m, team)
            assert card in legal
            assert values[card] == max(values[c] for c in legal), \
                f"played {card} worth {values[card]}, best {max(values[c] for c in legal)}"
            checked += 1
    assert checked >= 2 * OPTIMAL_DEALS


def _ma_play_obs(deal, m, plays, leaders, hands, seat, legal, trick):
    played = mask_of(c for _, c in deal.order[:m])
    return ma_obs.PlayObs(
        hand=np.array([hands[seat]], np.uint32), legal=np.array([mask_of(legal)], np.uint32),
        seat=np.array([seat], np.int8), position=len(trick), trick=m // 4,
        trump=np.array([deal.trump], np.int8),
        trump_mask=np.array([SUIT_MASK[deal.trump]], np.uint32),
        led_suit=np.array([trick[0] % 4 if trick else -1], np.int8),
        led_mask=np.array([SUIT_MASK[trick[0] % 4] if trick else 0], np.uint32),
        winning_card=np.full(1, -1, np.int8), partner_holds=np.zeros(1, bool),
        table=np.array([mask_of(trick)], np.uint32), played=np.array([played], np.uint32),
        taking=np.zeros(1, bool), contre_level=np.zeros(1, np.int8),
        noise=np.full(1, 0.5, np.float32),
        plays=plays[None], leaders=leaders[None], sans_atout_must_beat=deal.must_beat)


def test_bianco_mano_pimc_with_the_true_world_plays_double_dummy_optimal(monkeypatch):
    rng = np.random.default_rng(9)
    truth: dict = {}
    monkeypatch.setattr(bm_pimc.PimcPolicy, "_worlds",
                        lambda self, obs, i, gen, seen, hand, played, own_espion:
                        (truth["hands"][None], np.array([truth["espion"]], np.uint32)))
    policy = bm_pimc.PimcPolicy(worlds=1)
    checked = 0
    for k in range(OPTIMAL_DEALS):
        n = bm_rules.PLAYER_COUNTS[k % 3]
        deal = random_bianco_mano(rng, n)
        side = deal.side()
        for m, legal in _decision_points(deal, rng, 3):
            plays, leaders, hands, _, trick = deal.prefix(m)
            seat = deal.order[m][0]
            truth["hands"], truth["espion"] = np.array(hands, np.uint32), deal.espion
            obs = _bm_play_obs(deal, m, plays, leaders, hands, seat, legal, trick,
                               bonus=bool(rng.integers(2)))
            card = int(policy.play(obs)[0])
            team = tuple(int(side[s] != side[seat]) for s in range(n))  # his side is side 0
            values = _true_values(deal, m, team)
            assert card in legal
            assert values[card] == max(values[c] for c in legal), \
                f"played {card} worth {values[card]}, best {max(values[c] for c in legal)}"
            checked += 1
    assert checked >= 2 * OPTIMAL_DEALS


def _bm_play_obs(deal, m, plays, leaders, hands, seat, legal, trick, bonus):
    n, dominant = deal.n, deal.trump
    played = mask_of(c for _, c in deal.order[:m])
    return bm_obs.PlayObs(
        hand=np.array([hands[seat]], np.uint32), legal=np.array([mask_of(legal)], np.uint32),
        seat=np.array([seat], np.int8), position=len(trick), trick=m // n,
        dominant=np.array([dominant], np.int8),
        dominant_mask=np.array([SUIT_MASK[dominant]], np.uint32),
        led_family=np.array([trick[0] % 4 if trick else -1], np.int8),
        led_mask=np.array([SUIT_MASK[trick[0] % 4] if trick else 0], np.uint32),
        winning_card=np.full(1, -1, np.int8), winner_is_ally=np.zeros(1, bool),
        table=np.array([mask_of(trick)], np.uint32), played=np.array([played], np.uint32),
        taker=np.array([deal.taker], np.int8),
        on_taker_side=np.array([deal.side()[seat] == 1]), n_players=n,
        noise=np.full(1, 0.5, np.float32), plays=plays[None], leaders=leaders[None],
        turned=np.array([deal.turned], np.int8), called=np.array([deal.called], np.int8),
        bonus=np.array([bonus]),
        own_espion=np.array([deal.espion if seat == deal.taker else 0], np.uint32))


def test_manille_pimc_trump_choice_uses_the_tables_sans_atout_duties(monkeypatch):
    """At a sans_atout_must_beat table, the trump choice and contre solve sans atout under
    that option's MA-5 duties (found by this file: they used the plain ones before d82d21e)."""
    solved = []
    original = dd.position

    def spy(hands, leader, trump_mask, obligations, **kwargs):
        solved.append(obligations)
        return original(hands, leader, trump_mask, obligations, **kwargs)

    monkeypatch.setattr(dd, "position", spy)
    policy = ma_pimc.PimcPolicy(worlds=1, pimc_choose=True, pimc_contre=True)
    ma_engine.simulate_deals(ma_rules.ManilleConfig(sans_atout_must_beat=True), policy, 1,
                             seed=0)
    # the choice and contre solve (suit, sans atout) tables; card play one table
    tables = [o for o in solved if not isinstance(o, type(ma_rules.MA5_DUTIES))]
    assert tables
    assert all(o[1] == ma_rules.MA5_SANS_ATOUT_MUST_BEAT_DUTIES for o in tables), \
        f"sans atout solved with {tables[0][1]}"


@pytest.mark.parametrize("game", [MA_GAME, BM_GAME], ids=["manille", "bianco_mano"])
def test_pimc_parameters_are_validated(game):
    with pytest.raises(ValueError, match="worlds"):
        game.make_policy("pimc", worlds=0)
    with pytest.raises(ValueError, match="seed"):
        game.make_policy("pimc", seed=-1)
    policy = game.make_policy("pimc", worlds=3, seed=4)
    assert (policy.worlds, policy.seed) == (3, 4)


# ================================================================ odds --play

ODDS = ["odds", "manille", "--hand", "10P AP RP 9P 10C 7C AK 8T", "--deals", "6"]


def test_odds_play_rows_and_paired_rows(capsys):
    code = cli.main(ODDS + ["--play", "heuristic,pimc,double-dummy", "--worlds", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = {(r["decision"], r["metric"]): r for r in out["rows"]}
    ways = ["heuristic", "pimc", "double-dummy"]
    paired = ["pimc - heuristic", "double-dummy - heuristic"]
    assert {d for d, _ in rows} == set(ways + paired)
    metrics = {m for _, m in rows}
    assert metrics and all((d, m) in rows for d in ways + paired for m in metrics)
    assert all(r["n"] == 6 for r in out["rows"])
    for way, pair in zip(ways[1:], paired, strict=True):
        for metric in metrics:  # paired rows: the mean of the differences, same deals
            diff = rows[(way, metric)]["value"] - rows[("heuristic", metric)]["value"]
            assert rows[(pair, metric)]["value"] == pytest.approx(diff)
    assert out["experiment"]["question"]["worlds"] == 2


@pytest.mark.parametrize("plays", ["heuristic,bogus", "pimc,pimc", "", "heuristic,,PIMC,pimc"])
def test_odds_bad_play_is_one_line_and_exit_2(capsys, plays):
    code = cli.main(ODDS + ["--play", plays])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "play" in err, err


def _bianco_mano_worlds(hand_texts: list[str]) -> dd.Position:
    """3-player positions, one per world: dominant R, seat 2 (the taker, side 0) led 3R, seat 0
    followed 4R, seat 1 to play 6R or 8R (BM-8: he must follow)."""
    from simulators.bianco_mano import solver as bm_solver

    dominant = bm_rules.parse_family("R")
    hands = [[mask_of(bm_rules.parse_cards(h)) for h in text.split(";")] for text in hand_texts]
    trick = bm_rules.parse_cards("3R 4R") + [-1]
    return dd.position(np.array(hands, np.uint32), 2, np.uint32(SUIT_MASK[dominant]),
                       bm_engine.DUTIES, card_points=bm_solver.card_points(dominant),
                       team=[1, 1, 0], direction=dd.CLOCKWISE, trick=[trick] * len(hand_texts))


def test_only_move_is_judged_in_every_world_not_the_first():
    """6R and 8R are equivalent where 7R is out of play, not where the unseen espion's 7R is
    in the taker's hand (issue 34: a defender of 3 cannot see the espion, BM-4)."""
    equal = "2B 6V; 6R 8R 3V; 5R 4B"  # 6R and 8R both give the taker 15
    apart = "4B 6V; 6R 8R 3V; 7R 2B"  # 19 after 6R, 13 after 8R
    six, eight = bm_rules.parse_card("6R"), bm_rules.parse_card("8R")
    assert pimc.only_move(_bianco_mano_worlds([equal])) in (six, eight)
    assert pimc.only_move(_bianco_mano_worlds([apart])) == -1
    assert pimc.only_move(_bianco_mano_worlds([equal, apart])) == -1
    assert pimc.only_move(_bianco_mano_worlds([equal, equal])) >= 0


def test_forced_card_case_is_decided_by_the_worlds_mean():
    """With both worlds the defender's card comes from the mean over them: 6R gives the taker
    (15 + 19) / 2 = 17, 8R (15 + 13) / 2 = 14, so the defender plays 8R."""
    pos = _bianco_mano_worlds(["2B 6V; 6R 8R 3V; 5R 4B", "4B 6V; 6R 8R 3V; 7R 2B"])
    values = dd.card_values(pos).astype(np.float64)
    six, eight = bm_rules.parse_card("6R"), bm_rules.parse_card("8R")
    assert values[:, six].tolist() == [15, 19] and values[:, eight].tolist() == [15, 13]
    assert pimc.only_move(pos) == -1
    mean = values.mean(axis=0)
    assert min((six, eight), key=lambda c: mean[c]) == eight


@pytest.mark.parametrize(("play", "worlds", "chunk"), [
    (None, 8, 10_000), ("heuristic", 8, 10_000), ("heuristic,double-dummy", 8, 200),
    ("heuristic,pimc,double-dummy", 8, 8), ("pimc", 2, 32), ("pimc", 100, 1)])
def test_odds_under_strong_play_runs_in_small_chunks(play, worlds, chunk):
    """An odds question played by PIMC (about a deal a second) or double-dummy is cut into
    chunks of seconds, so its progress bar moves (issue 34); the policies alone keep the
    study's default (a fifth of the unit's 50,000)."""
    from analysis.experiment import Experiment
    from analysis.odds import OddsStudy

    for game in (MA_GAME, BM_GAME):
        hand = {"hand": "10P AP RP 9P 10C 7C AK 8T"} if game is MA_GAME else {
            "hand": "1R 2R 3B 8V 2J", "turned": "4R"}
        question = game.odds.question(**hand, play=play, worlds=worlds)
        study = OddsStudy(Experiment.create(game, size=400), question)
        assert study.default_chunk == chunk
