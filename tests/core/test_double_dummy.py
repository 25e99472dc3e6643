"""The double-dummy solver (simulators.core.double_dummy) against a plain minimax on the
games' referees (tests/core/double_dummy_reference.py), on random late positions of Manille
(MA-5 duties, MA-1/MA-6 points) and Bianco Mano in 3, 4 and 5 players (BM-8 duties, BM-9
trick winner, BM-1 points); hand-worked positions; bad input.

The default run checks 1,000 positions per game; ``pytest -m slow`` checks 10,000 per game
(Bianco Mano: a third each in 3, 4 and 5 players).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from simulators.bianco_mano import engine as bm_engine
from simulators.bianco_mano import rules as bm_rules
from simulators.core import double_dummy as dd
from simulators.core.tricks import SUIT_MASK, Duty, Obligations
from simulators.manille import rules as ma_rules
from tests.core.double_dummy_reference import (
    BIANCO_MANO,
    MANILLE,
    Spot,
    by_shape,
    card_minimax,
    cards_of,
    mask_of,
    minimax,
    random_spots,
    solver_kwargs,
    solver_position,
)

CI_SPOTS = 1_000
SLOW_SPOTS = 10_000
CI_CARD_SPOTS = CI_SPOTS  # card_values: a minimax per legal card
SHOWN = 3  # failing positions printed in full
GAME_IDS = {MANILLE: "manille-MA5-MA6", BIANCO_MANO: "bianco_mano-BM1-BM8-BM9"}
GAME_PARAMS = [pytest.param(g, id=i) for g, i in GAME_IDS.items()]


@functools.cache
def _spots(game: str, count: int, seed: int) -> tuple[Spot, ...]:
    """Random late positions; Bianco Mano split evenly over 3, 4 and 5 players."""
    if game == MANILLE:
        return tuple(random_spots(MANILLE, count, seed))
    per = -(-count // 3)
    return tuple(s for p in bm_rules.PLAYER_COUNTS
                 for s in random_spots(BIANCO_MANO, per, seed * 10 + p, players=p))


@functools.cache
def _minimax_values(game: str, count: int, seed: int) -> np.ndarray:
    return np.array([minimax(s) for s in _spots(game, count, seed)], dtype=np.int64)


def _batched(spots, call, **kwargs) -> list:
    """``call(position, **kwargs)`` over one batch per (game, player count), rows in order;
    per-row keyword arrays are split alongside."""
    out: list = [None] * len(spots)
    for idx in by_shape(spots).values():
        sub = {k: np.asarray(v)[idx] for k, v in kwargs.items()}
        got = call(solver_position([spots[i] for i in idx]), **sub)
        for j, i in enumerate(idx):
            out[i] = got[j]
    return out


def _report(failures: list[str], total: int, what: str) -> str:
    return (f"{len(failures)} of {total} positions: {what}\n" + "\n".join(failures[:SHOWN]))


# ---------------------------------------------------------------- the checks


def _value_failures(spots, ref) -> list[str]:
    got = np.array(_batched(spots, dd.solve), dtype=np.int64)
    return [f"solver {got[i]} minimax {ref[i]}: {spots[i].describe()}"
            for i in np.flatnonzero(got != ref)]


def _target_failures(spots, ref, seed: int) -> list[str]:
    """solve(..., target=t) == (minimax >= t) for t = value - 1, value, value + 1 and a
    random target up to every point still in play + 1."""
    rng = np.random.default_rng(seed)
    left = np.array([_points_in_play(s) for s in spots])
    failures = []
    for targets in (np.maximum(ref - 1, 0), ref, ref + 1, rng.integers(0, left + 2)):
        got = np.array(_batched(spots, dd.solve, target=targets), dtype=bool)
        for i in np.flatnonzero(got != (ref >= targets)):
            failures.append(f"target {targets[i]}: solver {got[i]}, minimax value {ref[i]}: "
                            f"{spots[i].describe()}")
    return failures


def _tricks_left(spot: Spot) -> int:
    return -(-len(cards_of(spot.live())) // spot.n)


def _points_in_play(spot: Spot) -> int:
    """Every point still to be won: the live cards and the tricks."""
    return sum(spot.points(c) for c in cards_of(spot.live())) + spot.trick_points * \
        _tricks_left(spot)


def _card_failures(spots) -> list[str]:
    """card_values: the minimax after each referee-legal card, -1 for the others; with
    ``target`` = the position's value, whether each card keeps it."""
    per_card = [card_minimax(s) for s in spots]
    expected = np.full((len(spots), 32), -1, np.int64)
    for i, values in enumerate(per_card):
        for c, v in values.items():
            expected[i, c] = v
    root = np.array([max(v.values()) if s.team[s.to_move()] == 0 else min(v.values())
                     for s, v in zip(spots, per_card, strict=True)])
    failures = []
    got = np.array(_batched(spots, dd.card_values), dtype=np.int64)
    for i in np.flatnonzero((got != expected).any(axis=1)):
        failures.append(f"card_values {_cards_dict(got[i])} minimax {per_card[i]}: "
                        f"{spots[i].describe()}")
    made = np.where(expected >= 0, (expected >= root[:, None]).astype(np.int64), -1)
    got = np.array(_batched(spots, dd.card_values, target=root), dtype=np.int64)
    for i in np.flatnonzero((got != made).any(axis=1)):
        failures.append(f"card_values target={root[i]} {_cards_dict(got[i])} expected "
                        f"{_cards_dict(made[i])}: {spots[i].describe()}")
    return failures


def _cards_dict(row) -> dict[int, int]:
    return {c: int(v) for c, v in enumerate(row) if v >= 0}


def _runs(spot: Spot, legal: list[int]) -> list[list[int]]:
    """The legal cards of the player to move in runs of equivalent cards: one hand, one
    suit, the same points, no live card (in any hand or on the table) between two of them."""
    live = cards_of(spot.live())
    legal_set = set(legal)
    runs: list[list[int]] = []
    for suit in range(4):
        run: list[int] = []
        for c in (x for x in live if x % 4 == suit):  # strongest first
            if c in legal_set and run and spot.points(c) == spot.points(run[-1]):
                run.append(c)
                continue
            if run:
                runs.append(run)
            run = [c] if c in legal_set else []
        if run:
            runs.append(run)
    return runs


def _move_failures(spots) -> list[str]:
    """searched_moves: only referee-legal cards, one in every run of equivalent legal
    cards; player_to_move the referee's seat."""
    rows = _batched(spots, dd.searched_moves)
    failures = []
    for i, s in enumerate(spots):
        legal = s.legal_now()
        searched = cards_of(rows[i])
        problems = []
        if set(searched) - set(legal):
            problems.append(f"searched {sorted(set(searched) - set(legal))} not legal")
        for run in _runs(s, legal):
            hit = [c for c in run if c in searched]
            if len(hit) != 1:
                problems.append(f"run {run} searched {hit}")
        if problems:
            failures.append(f"{'; '.join(problems)} (legal {legal}, searched {searched}): "
                            f"{s.describe()}")
    for idx in by_shape(spots).values():
        seats = dd.player_to_move(solver_position([spots[i] for i in idx]))
        for j, i in enumerate(idx):
            if seats[j] != spots[i].to_move():
                failures.append(f"player_to_move {seats[j]}, referee seat {spots[i].to_move()}: "
                                f"{spots[i].describe()}")
    return failures


def _every_check(game: str, count: int, seed: int, card_count: int) -> None:
    spots = _spots(game, count, seed)
    ref = _minimax_values(game, count, seed)
    failures = _value_failures(spots, ref)
    assert not failures, _report(failures, len(spots), "solve() differs from the minimax")
    failures = _target_failures(spots, ref, seed)
    assert not failures, _report(failures, len(spots), "solve(target=) differs")
    failures = _card_failures(spots[:card_count])
    assert not failures, _report(failures, card_count, "card_values differs")
    failures = _move_failures(spots)
    assert not failures, _report(failures, len(spots), "searched_moves")


# ---------------------------------------------------------------- random positions


@pytest.mark.parametrize("game", GAME_PARAMS)
def test_values_equal_referee_minimax(game):
    spots, ref = _spots(game, CI_SPOTS, 1), _minimax_values(game, CI_SPOTS, 1)
    assert len(spots) >= CI_SPOTS
    failures = _value_failures(spots, ref)
    assert not failures, _report(failures, len(spots), "solve() differs from the minimax")


@pytest.mark.parametrize("game", GAME_PARAMS)
def test_target_answers_equal_referee_minimax(game):
    spots, ref = _spots(game, CI_SPOTS, 1), _minimax_values(game, CI_SPOTS, 1)
    failures = _target_failures(spots, ref, seed=5)
    assert not failures, _report(failures, len(spots), "solve(target=) differs")


@pytest.mark.parametrize("game", GAME_PARAMS)
def test_card_values_equal_referee_minimax_after_each_legal_card(game):
    spots = _spots(game, CI_SPOTS, 1)[:CI_CARD_SPOTS]
    failures = _card_failures(spots)
    assert not failures, _report(failures, len(spots), "card_values differs")


@pytest.mark.parametrize("game", GAME_PARAMS)
def test_searched_moves_referee_legal_one_per_equivalent_run(game):
    spots = _spots(game, CI_SPOTS, 1)
    failures = _move_failures(spots)
    assert not failures, _report(failures, len(spots), "searched_moves")


def test_random_positions_cover_every_case():
    """The generator reaches what the checks are meant to cover: every trick count left
    (1..3), every number of cards on the table, every trump of Manille with and without the
    sans atout option, 3/4/5 Bianco Mano players, both side labellings."""
    ma, bm = _spots(MANILLE, CI_SPOTS, 1), _spots(BIANCO_MANO, CI_SPOTS, 1)
    for spots in (ma, bm):
        assert {_tricks_left(s) for s in spots} == {1, 2, 3}
        assert {(s.n, len(s.trick)) for s in spots} == {(s.n, k) for s in spots
                                                         for k in range(s.n)}
        assert {s.team[s.leader] for s in spots} == {0, 1}
    assert {(s.trump, s.must_beat) for s in ma} == {(t, False) for t in range(5)} | {(4, True)}
    assert {s.n for s in bm} == {3, 4, 5}
    assert {s.trump for s in bm} == {0, 1, 2, 3}


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_PARAMS)
def test_ten_thousand_positions_every_check(game):
    _every_check(game, SLOW_SPOTS, 2, SLOW_SPOTS)


# ---------------------------------------------------------------- hand-worked positions

P, C, K, T = range(4)  # Manille suits: pique, cœur, carreau, trèfle
ma = ma_rules.parse_card
bm = bm_rules.parse_card


def _manille(hands_by_seat, leader, trick, trump, *, team=(0, 1, 0, 1), must_beat=False):
    return Spot(MANILLE, tuple(mask_of(ma(x) for x in h.split()) for h in hands_by_seat),
                leader, tuple(ma(x) for x in trick.split()), trump, team, must_beat)


def _bianco(hands_by_seat, leader, trick, dominant, team):
    return Spot(BIANCO_MANO, tuple(mask_of(bm(x) for x in h.split()) for h in hands_by_seat),
                leader, tuple(bm(x) for x in trick.split()), dominant, team)


def _solve_one(spot, **kwargs):
    return int(dd.solve(solver_position([spot]), **kwargs)[0])


def _card_values_one(spot) -> dict[int, int]:
    return _cards_dict(dd.card_values(solver_position([spot]))[0])


def _whole_deals(game: str, count: int, seed: int) -> dd.Position:
    """Whole deals from the first card, seat 0 leading, seats 0 and 2 against 1 and 3:
    Manille (a trump over the 4 suits or sans atout; MA-3, MA-5, MA-6 points), Bianco Mano
    with 4 players (a random dominant; BM-1, BM-8)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        deck = rng.permutation(32)
        hands = [mask_of(deck[8 * s:8 * s + 8]) for s in range(4)]
        if game == MANILLE:
            trump = int(rng.integers(5))
            points = [ma_rules.card_points(c) for c in range(32)]
            rows.append(dd.position([hands], 0, SUIT_MASK[trump], ma_rules.duties(trump),
                                    card_points=points, team=(0, 1, 0, 1),
                                    trick_points=ma_rules.TRICK_POINT,
                                    direction=dd.COUNTER_CLOCKWISE))
        else:
            dominant = int(rng.integers(4))
            points = [bm_rules.card_points(c, dominant) for c in range(32)]
            rows.append(dd.position([hands], 0, SUIT_MASK[dominant], bm_engine.DUTIES,
                                    card_points=points, team=(0, 1, 0, 1)))
    return rows


@pytest.mark.parametrize("game", GAME_PARAMS)
def test_whole_deals_values_targets_and_card_values_agree(game):
    """Three searches of a whole deal that share no result (the exact value on the whole
    table, the contract question on its cache-sized part, each first card's value) agree:
    side 0 reaches its value v and not v + 1, and v is the best first card's value."""
    for pos in _whole_deals(game, 12, 2026):
        value = int(dd.solve(pos)[0])
        assert dd.solve(pos, target=value)[0] and not dd.solve(pos, target=value + 1)[0]
        per_card = dd.card_values(pos)[0]
        legal = per_card[per_card >= 0]
        best = legal.max() if pos.team[0, int(pos.leader[0])] == 0 else legal.min()
        assert best == value


def test_two_threads_solving_at_once_give_the_values_of_one():
    """The kernels release the GIL: each thread searches with a table of its own, so two
    threads solving the same whole deals at the same moment (each its own order, so their
    probes interleave) find exactly the single-threaded values (issue 35)."""
    import threading

    deals = _whole_deals(MANILLE, 8, 7)
    alone = [int(dd.solve(pos)[0]) for pos in deals]
    found: dict[int, list[int]] = {}
    start = threading.Barrier(2)

    def solve_all(k: int) -> None:
        start.wait()
        order = deals if k == 0 else deals[::-1]
        values = [int(dd.solve(pos)[0]) for pos in order]
        found[k] = values if k == 0 else values[::-1]

    threads = [threading.Thread(target=solve_all, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == {0: alone, 1: alone}


def test_ma5_partner_holds_any_card_of_suit_value():
    """MA-5: while his partner holds the trick a follower only follows suit; he need not
    beat. Trump pique; seat 0 led AC, seat 3 followed 7C, seat 2 (seat 0's partner) holds
    10C 9C; play turns counter-clockwise (0, 3, 2, 1). Two tricks left, 13 card points +
    2 trick points = 19 in play.

    * 9C (allowed: the partner's AC holds): AC wins the trick (seat 1 cannot beat it),
      seat 0 leads 10K and wins the last trick too: side 0 takes all 19.
    * 10C: seat 2 wins 4 + 5 + 1 = 10 while seat 1 keeps RC (playing 8C), then must lead
      9C into it: seat 1 beats with RC and takes 10K: 9 for side 1; side 0 has 10 (had
      seat 1 played RC at once, 19).
    Value 19 (9C), 10 after 10C; were the duty to beat unconditional, 10."""
    spot = _manille(["10K", "RC 8C", "10C 9C", "7T"], 0, "AC 7C", P)
    assert minimax(spot) == 19
    assert _solve_one(spot) == 19
    assert _card_values_one(spot) == {ma("10C"): 10, ma("9C"): 19}
    assert dd.searched_moves(solver_position([spot]))[0] == mask_of([ma("10C"), ma("9C")])
    always = Obligations(follow=True, beat=Duty.ALWAYS, trump=Duty.ALWAYS,
                         overtrump=Duty.ALWAYS, undertrump=False)
    kwargs = solver_kwargs([spot]) | {"obligations": always, "table": None}
    assert dd.solve(**kwargs)[0] == 10


def test_ma5_sans_atout_beat_only_with_must_beat_option_value():
    """MA-5 sans atout: follow suit or discard, no duty to beat, unless the option
    sans_atout_must_beat keeps it. Seat 3 (side 1) led DC and keeps AC; seat 2 holds 10C
    9C; seats 1 and 0 hold no cœur and no points. 11 card points + 2 tricks = 13.

    * 9C: DC wins (2 + 1 to side 1); seat 3 must lead AC and seat 2's 10C takes it:
      4 + 5 + 1 = 10 for side 0.
    * 10C: side 0 wins DC + 10C + 1 = 8, then seat 2 leads 9C into AC: 5 for side 1.
    Without the option 9C is allowed: value 10. With it seat 2 must beat DC: value 8."""
    off = _manille(["8T 7T", "8K 7K", "10C 9C", "AC"], 3, "DC", ma_rules.SANS_ATOUT)
    on = _manille(["8T 7T", "8K 7K", "10C 9C", "AC"], 3, "DC", ma_rules.SANS_ATOUT,
                  must_beat=True)
    assert (minimax(off), minimax(on)) == (10, 8)
    assert (_solve_one(off), _solve_one(on)) == (10, 8)
    assert _card_values_one(off) == {ma("10C"): 8, ma("9C"): 10}
    assert _card_values_one(on) == {ma("10C"): 8}
    assert (_solve_one(off, target=10), _solve_one(on, target=10)) == (True, False)


def test_ma5_ma6_forced_overtrump_takes_last_trick_cards_plus_one():
    """MA-5: an opponent has trumped, the void follower must overtrump. MA-6: a trick is
    worth 1 plus its cards. Trump cœur, last trick, seat 0 leads 10P, seat 3 follows AP,
    seat 2 (void) trumps 7C, seat 1 must overtrump with RC: side 1 (labelled 0 here) takes
    10P 5 + AP 4 + 7C 0 + RC 3 + 1 = 13."""
    spot = _manille(["10P", "RC", "7C", "AP"], 0, "", C, team=(1, 0, 1, 0))
    assert minimax(spot) == 13
    assert _solve_one(spot) == 13
    assert (_solve_one(spot, target=13), _solve_one(spot, target=14)) == (True, False)


def test_bm8_overtrump_own_partner_value():
    """BM-8 (3): playing a dominant into a trick that holds one, beat the strongest
    dominant on the table if you can, even when your partner holds it. 4 players, clockwise
    (seats 0 & 2 against 1 & 3), dominant rouge (its cards count double, BM-1). Seat 0 led
    5R (2 points), seat 1 discarded 8B; seat 2 holds 2R (8) and 8R; seat 3 holds 1R (10)
    and 7R; seat 0 keeps 1B (5), seat 1 7B. 25 points in play.

    Seat 2 must play 2R over his partner's 5R; seat 3 must beat it with 1R and takes
    2 + 0 + 8 + 10 = 20; he leads 7R, which 8R cannot beat, and takes 1B: side 0 gets 0.
    With a partner exception (8R allowed) seat 3 would still have to overtrump 5R with 1R
    (12 to side 1) and seat 2's 2R would then take 7R and 1B: 13."""
    spot = _bianco(["1B", "7B", "2R 8R", "1R 7R"], 0, "5R 8B", bm_rules.FAMILY_CODES.index("R"),
                   team=(0, 1, 0, 1))
    assert minimax(spot) == 0
    assert _solve_one(spot) == 0
    assert _card_values_one(spot) == {bm("2R"): 0}
    assert dd.searched_moves(solver_position([spot]))[0] == mask_of([bm("2R")])
    partner_exception = Obligations(follow=True, beat=Duty.NEVER, trump=Duty.ALWAYS,
                                    overtrump=Duty.OPPONENT_HOLDS, undertrump=True)
    kwargs = solver_kwargs([spot]) | {"obligations": partner_exception, "table": None}
    assert dd.solve(**kwargs)[0] == 13
    assert bm_engine.DUTIES.overtrump == Duty.ALWAYS


def test_bm1_bm9_dominant_wins_and_counts_double_no_trick_points():
    """BM-9: the strongest dominant wins; BM-1: dominant cards count double, a trick is worth
    its cards only. 3 players, clockwise, dominant jaune, the last trick: the taker (seat 2,
    labelled 1) led 1B (5), seat 0 trumped 8J (0); seat 1 beats it with 5J (1 x 2 = 2):
    seats 0 and 1 (side 0) take 5 + 0 + 2 = 7."""
    spot = _bianco(["", "5J", ""], 2, "1B 8J", bm_rules.FAMILY_CODES.index("J"),
                   team=(0, 0, 1))
    assert minimax(spot) == 7
    assert _solve_one(spot) == 7
    assert _card_values_one(spot) == {bm("5J"): 7}


# ---------------------------------------------------------------- bad input


def _args(**overrides):
    kwargs = dict(hands=np.array([[0x1, 0x2, 0x4, 0x8]], dtype=np.uint32), leader=0,
                  trump_mask=SUIT_MASK[P], obligations=ma_rules.MA5_DUTIES,
                  card_points=np.ones(32, np.int64), team=(0, 1, 0, 1), trick_points=1,
                  direction=dd.COUNTER_CLOCKWISE)
    kwargs.update(overrides)
    return kwargs


def test_position_accepts_the_base_case():
    """10P 10C 10K 10T, trump pique, seat 0 leads 10P and wins: 4 cards at 1 point + 1."""
    assert dd.solve(**_args())[0] == 5


@pytest.mark.parametrize(("overrides", "message"), [
    pytest.param({"hands": [[0x1, 0x1, 0x4, 0x8]]}, "seat 1 holds a card another seat holds",
                 id="duplicate-card-between-hands"),
    pytest.param({"hands": [[0x1, 0x2, 0x4, 0x8]], "trick": [[3, -1, -1, -1]]},
                 "a card on the table is also in a hand", id="card-on-table-and-in-hand"),
    pytest.param({"hands": [[0x3, 0x4, 0x8, 0x10]]}, "cards by seat", id="hand-sizes"),
    pytest.param({"hands": [[0x1, 0x2, 0x4, 0x8]], "trick": [[4, -1, -1, -1]]},
                 "cards by seat", id="hand-sizes-with-a-card-on-the-table"),
    pytest.param({"leader": 4}, "leader must be a seat", id="leader-too-large"),
    pytest.param({"leader": -1}, "leader must be a seat", id="leader-negative"),
    pytest.param({"team": (0, 2, 0, 1)}, "team labels must be 0 or 1", id="team-label-2"),
    pytest.param({"team": (0, -1, 0, 1)}, "team labels must be 0 or 1", id="team-label-neg"),
])
def test_position_rejects_bad_input(overrides, message):
    with pytest.raises(ValueError, match=message):
        dd.position(**_args(**overrides))
    with pytest.raises(ValueError, match=message):
        dd.solve(**_args(**overrides))
