"""The double-dummy solver's yardstick: a plain minimax on each game's referee, and random
late positions to compare them on (a helper for ``tests/core/test_double_dummy.py`` and
``bench/double_dummy.py``, not a test file).

The minimax is written apart from :mod:`simulators.core.double_dummy`: plain Python recursion
over every legal card, legality and the trick winner taken from the games' referees
(:func:`simulators.manille.referee.legal_plays` / ``trick_winner`` for MA-5, and
:func:`simulators.bianco_mano.referee.legal_plays` / ``trick_winner`` for BM-8 / BM-9),
points from the rules (MA-1 and MA-6: a trick is worth 1 plus its cards; BM-1: dominant
cards count double, no trick points). No pruning, no table, no card merging.

Conventions are the solver's: a position (:class:`Spot`) is the cards left in each hand (uint32
masks by seat, card ``c = 4 * rank + suit``, rank 0 strongest), the seat that led the trick
in progress (or leads the next one), the cards on the table in play order, the trump, and
each seat's side label 0 or 1; its value is the points side 0 wins from there on, the trick
in progress included, side 0 maximising and side 1 minimising.

:func:`random_spots` deals random decks (a seeded numpy Generator), plays random legal cards
per the referee from the first trick until at most ``max_tricks_left`` tricks remain, and
stops at a random point of a trick (0..n-1 cards on the table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simulators.bianco_mano import engine as bm_engine
from simulators.bianco_mano import referee as bm_referee
from simulators.bianco_mano import rules as bm_rules
from simulators.core import double_dummy as dd
from simulators.core.tricks import SUIT_MASK
from simulators.manille import referee as ma_referee
from simulators.manille import rules as ma_rules

MANILLE, BIANCO_MANO = "manille", "bianco_mano"
GAMES = (MANILLE, BIANCO_MANO)
MANILLE_DUTY_TABLES = (ma_rules.MA5_DUTIES, ma_rules.MA5_SANS_ATOUT_DUTIES,
                       ma_rules.MA5_SANS_ATOUT_MUST_BEAT_DUTIES)


def cards_of(mask: int) -> list[int]:
    """The cards of a hand mask, ascending."""
    return [c for c in range(32) if (int(mask) >> c) & 1]


def mask_of(cards) -> int:
    """The hand mask of some cards."""
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


@dataclass(frozen=True)
class Spot:
    """One position of a game, as plain Python values.

    ``trump``: Manille 0..3 or ``SANS_ATOUT`` (4); Bianco Mano the dominant family 0..3.
    ``must_beat``: Manille's ``sans_atout_must_beat`` option (MA-5).
    """

    game: str
    hands: tuple[int, ...]
    leader: int
    trick: tuple[int, ...]
    trump: int
    team: tuple[int, ...]
    must_beat: bool = False

    @property
    def n(self) -> int:
        return len(self.hands)

    @property
    def direction(self) -> int:
        return dd.COUNTER_CLOCKWISE if self.game == MANILLE else dd.CLOCKWISE

    def seat_at(self, leader: int, k: int) -> int:
        """The seat playing the k-th card (0: the leader) of a trick led by ``leader``."""
        return (leader + self.direction * k) % self.n

    def to_move(self) -> int:
        return self.seat_at(self.leader, len(self.trick))

    def points(self, c: int) -> int:
        if self.game == MANILLE:
            return ma_rules.card_points(c)  # MA-1
        return bm_rules.card_points(c, self.trump)  # BM-1: dominant cards count double

    @property
    def trick_points(self) -> int:
        return ma_rules.TRICK_POINT if self.game == MANILLE else 0  # MA-6; BM: cards only

    def legal(self, hands: Sequence[Sequence[int]], leader: int, trick: Sequence[int]) -> list[int]:
        """The referee's legal cards for the seat to play into ``trick``."""
        seat = self.seat_at(leader, len(trick))
        if self.game == MANILLE:
            pairs = [(self.seat_at(leader, j), c) for j, c in enumerate(trick)]
            return ma_referee.legal_plays(hands[seat], pairs, seat, self.trump, self.must_beat)
        return bm_referee.legal_plays(hands[seat], list(trick), self.trump)

    def winner(self, leader: int, trick: Sequence[int]) -> int:
        """The referee's winning seat of a complete trick."""
        if self.game == MANILLE:
            pairs = [(self.seat_at(leader, j), c) for j, c in enumerate(trick)]
            return ma_referee.trick_winner(pairs, self.trump)
        return self.seat_at(leader, bm_referee.trick_winner(list(trick), self.trump))

    def hand_lists(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(cards_of(h)) for h in self.hands)

    def legal_now(self) -> list[int]:
        return self.legal(self.hand_lists(), self.leader, self.trick)

    def live(self) -> int:
        """Every card still in play: in a hand or on the table."""
        return mask_of(self.trick) | mask_of(c for h in self.hand_lists() for c in h)

    # ---- the solver's arguments
    def trump_mask(self) -> int:
        return int(SUIT_MASK[self.trump])  # SUIT_MASK[4] (sans atout) is 0

    def duties(self):
        if self.game == MANILLE:
            return ma_rules.duties(self.trump, self.must_beat)
        return bm_engine.DUTIES

    def card_points(self) -> np.ndarray:
        return np.array([self.points(c) for c in range(32)], dtype=np.int64)

    def describe(self) -> str:
        """Every array of the position, ready to paste into a test."""
        fmt = ma_rules.format_cards if self.game == MANILLE else bm_rules.format_cards
        return (f"{self.game} n={self.n} hands={[hex(h) for h in self.hands]} "
                f"({' | '.join(fmt(h) for h in self.hand_lists())}) leader={self.leader} "
                f"trick={list(self.trick)} ({fmt(self.trick)}) trump={self.trump} "
                f"trump_mask={hex(self.trump_mask())} must_beat={self.must_beat} "
                f"duties={self.duties()} team={list(self.team)} "
                f"card_points={self.card_points().tolist()} trick_points={self.trick_points} "
                f"direction={self.direction}")


# ---------------------------------------------------------------- the plain minimax


def _without(hands: tuple, seat: int, c: int) -> tuple:
    return hands[:seat] + (tuple(x for x in hands[seat] if x != c),) + hands[seat + 1:]


def _after(spot: Spot, hands: tuple, leader: int, trick: tuple, c: int) -> int:
    """Side 0's points from the moment ``c`` is played by the seat to move on."""
    seat = spot.seat_at(leader, len(trick))
    hands = _without(hands, seat, c)
    trick = trick + (c,)
    if len(trick) < spot.n:
        return _value(spot, hands, leader, trick)
    winner = spot.winner(leader, trick)
    won = sum(spot.points(x) for x in trick) + spot.trick_points
    return (won if spot.team[winner] == 0 else 0) + _value(spot, hands, winner, ())


def _value(spot: Spot, hands: tuple, leader: int, trick: tuple) -> int:
    if not trick and not any(hands):
        return 0
    values = [_after(spot, hands, leader, trick, c) for c in spot.legal(hands, leader, trick)]
    seat = spot.seat_at(leader, len(trick))
    return max(values) if spot.team[seat] == 0 else min(values)


def minimax(spot: Spot) -> int:
    """Side 0's points from ``spot`` on under perfect play (plain minimax on the referee)."""
    return _value(spot, spot.hand_lists(), spot.leader, tuple(spot.trick))


def card_minimax(spot: Spot) -> dict[int, int]:
    """Side 0's points after each legal card of the player to move."""
    hands = spot.hand_lists()
    return {c: _after(spot, hands, spot.leader, tuple(spot.trick), c)
            for c in spot.legal(hands, spot.leader, spot.trick)}


# ---------------------------------------------------------------- random positions


def _play(spot_like: Spot, hands: list[list[int]], leader: int, cards: int,
          rng: np.random.Generator) -> tuple[int, list[int]]:
    """Play ``cards`` random legal cards from a trick boundary; (leader, trick on the table)."""
    trick: list[int] = []
    for _ in range(cards):
        seat = spot_like.seat_at(leader, len(trick))
        legal = spot_like.legal(hands, leader, trick)
        c = legal[int(rng.integers(len(legal)))]
        hands[seat].remove(c)
        trick.append(c)
        if len(trick) == spot_like.n:
            leader, trick = spot_like.winner(leader, trick), []
    return leader, trick


def _late(game: str, hands: list[list[int]], leader: int, trump: int, team: tuple[int, ...],
          must_beat: bool, max_tricks_left: int, rng: np.random.Generator,
          exact: tuple[int, int] | None = None) -> Spot:
    """Play random legal cards from the first trick to a random late point (``exact``:
    that many tricks left and cards on the table)."""
    n = len(hands)
    n_tricks = len(hands[0])
    tricks_left = int(rng.integers(1, min(max_tricks_left, n_tricks) + 1))
    on_table = int(rng.integers(n))
    if exact is not None:
        tricks_left, on_table = exact
    shell = Spot(game, (0,) * n, leader, (), trump, team, must_beat)  # the rules, no cards
    leader, trick = _play(shell, hands, leader, (n_tricks - tricks_left) * n + on_table, rng)
    return Spot(game, tuple(mask_of(h) for h in hands), int(leader), tuple(trick), trump, team,
                must_beat)


def random_manille(rng: np.random.Generator, max_tricks_left: int = 3,
                   exact: tuple[int, int] | None = None) -> Spot:
    """A Manille position: random deal, trump (4 suits or sans atout, with or without the
    sans_atout_must_beat option), first leader and side labelling (0 & 2 vs 1 & 3)."""
    deck = [int(c) for c in rng.permutation(32)]
    hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
    trump = int(rng.integers(5))
    must_beat = trump == ma_rules.SANS_ATOUT and bool(rng.integers(2))
    team = (0, 1, 0, 1) if rng.integers(2) else (1, 0, 1, 0)
    return _late(MANILLE, hands, int(rng.integers(4)), trump, team, must_beat,
                 max_tricks_left, rng, exact)


def random_bianco_mano(rng: np.random.Generator, players: int | None = None,
                       max_tricks_left: int = 3, exact: tuple[int, int] | None = None) -> Spot:
    """A Bianco Mano position: 3, 4 or 5 players (random unless given), random deal (3 and 5
    players: two cards set aside, the espion), dominant family, taker (who leads the first
    trick) and, in 5 players, partner; the taker's side labelled 0 or 1 at random."""
    n = int(rng.choice(bm_rules.PLAYER_COUNTS)) if players is None else int(players)
    size = bm_rules.HAND_SIZE[n]
    deck = [int(c) for c in rng.permutation(32)]
    hands = [sorted(deck[size * s:size * s + size]) for s in range(n)]
    dominant = int(rng.integers(4))
    taker = int(rng.integers(n))
    side = {taker}
    if n == 4:
        side.add((taker + 2) % 4)  # BM-5: 0 & 2 against 1 & 3
    elif n == 5:
        side.add(int(rng.choice([s for s in range(5) if s != taker])))  # BM-6: the called card
    label = int(rng.integers(2))
    team = tuple(label if s in side else 1 - label for s in range(n))
    return _late(BIANCO_MANO, hands, taker, dominant, team, False, max_tricks_left, rng, exact)


def random_spots(game: str, count: int, seed: int, *, max_tricks_left: int = 3,
                 players: int | None = None, exact: tuple[int, int] | None = None) -> list[Spot]:
    """``count`` random late positions of ``game`` (Bianco Mano: 3/4/5 players mixed unless
    ``players`` is given): at most ``max_tricks_left`` tricks left (the trick in progress
    counts) and 0..n-1 cards on the table, or ``exact = (tricks left, cards on the table)``."""
    rng = np.random.default_rng(seed)
    if game == MANILLE:
        return [random_manille(rng, max_tricks_left, exact) for _ in range(count)]
    if game == BIANCO_MANO:
        return [random_bianco_mano(rng, players, max_tricks_left, exact) for _ in range(count)]
    raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")


# ---------------------------------------------------------------- the solver's view


def solver_kwargs(spots: Sequence[Spot]) -> dict:
    """:func:`simulators.core.double_dummy.position`'s arguments for a batch of positions of
    one game and one player count."""
    first = spots[0]
    if any(s.game != first.game or s.n != first.n for s in spots):
        raise ValueError("one game and one player count per batch")
    tables = MANILLE_DUTY_TABLES if first.game == MANILLE else (bm_engine.DUTIES,)
    trick = np.full((len(spots), first.n), -1, np.int8)
    for i, s in enumerate(spots):
        trick[i, :len(s.trick)] = s.trick
    return dict(
        hands=np.array([s.hands for s in spots], dtype=np.uint32),
        leader=np.array([s.leader for s in spots], dtype=np.int64),
        trump_mask=np.array([s.trump_mask() for s in spots], dtype=np.uint32),
        obligations=tables,
        table=np.array([tables.index(s.duties()) for s in spots], dtype=np.int64),
        card_points=np.array([s.card_points() for s in spots]),
        team=np.array([s.team for s in spots], dtype=np.int64),
        trick_points=first.trick_points,
        direction=first.direction,
        trick=trick,
    )


def solver_position(spots: Sequence[Spot]) -> dd.Position:
    """The solver's checked batch for positions of one game and one player count."""
    return dd.position(**solver_kwargs(spots))


def by_shape(spots: Sequence[Spot]) -> dict[tuple[str, int], list[int]]:
    """Indices of ``spots`` grouped by (game, player count): the solver's batches."""
    groups: dict[tuple[str, int], list[int]] = {}
    for i, s in enumerate(spots):
        groups.setdefault((s.game, s.n), []).append(i)
    return groups
