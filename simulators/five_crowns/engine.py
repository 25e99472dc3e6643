"""Five Crowns vectorized batch engine (RULINGS FC-1..FC-7).

A batch of N rounds advances in lockstep, one player-turn per step: every
active row draws, discards and perhaps goes out at once. Hands are (N, n, 56)
count vectors over canonical kinds; the exact meld solver
(:mod:`simulators.five_crowns.melds`, a compiled kernel over the whole
batch) scores hands. Entry points:

* :func:`simulate_rounds` — independent rounds of one round number,
  round ``i`` dealt by seat ``i % n``.
* :func:`simulate_games` — whole games, rounds ``first_round..11`` (FC-7),
  the deal passing left each round, game ``g`` first dealt by seat ``g % n``.

Randomness follows :mod:`simulators.core.rng`: a round's deck, reshuffles
and policy noise depend only on (seed, unit, round number, turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import polars as pl

from simulators.core import rng
from simulators.core.batches import unit_index
from simulators.core.dispatch import IllegalAction as IllegalAction  # re-exported
from simulators.core.dispatch import SeatDispatch, reject
from simulators.core.params import check_count
from simulators.five_crowns import melds
from simulators.five_crowns import rules as R
from simulators.five_crowns.observations import POLICY_METHODS, DiscardObs, DrawObs, GoOutObs

I8 = np.int8
KIND_OF_ID = np.array([R.kind_of(c) for c in range(R.N_CARDS)], dtype=I8)
STREAM_SHUFFLE, STREAM_NOISE, STREAM_RESHUFFLE = 0, 2, 4


class Dispatch(SeatDispatch):
    """Routes each Five Crowns decision to the policy of the acting seat."""

    def __init__(self, policies, n_players: int):
        super().__init__(policies, n_players, POLICY_METHODS, "Five Crowns")


def shuffled_decks(gen: np.random.Generator, size: int) -> np.ndarray:
    """(size, 116) kinds: uniform shuffles of the two 58-card sets (FC-1)."""
    return KIND_OF_ID[rng.permutations(gen, size, R.N_CARDS)]


def deal(decks: np.ndarray, n_players: int, round_no: int, dealer: np.ndarray) -> np.ndarray:
    """(N, n, 56) hands: one card at a time clockwise from the dealer's left (FC-2)."""
    n_rows = len(decks)
    k = R.cards_dealt(round_no)
    position = np.arange(n_players * k)
    seat = (dealer[:, None] + 1 + position[None, :] % n_players) % n_players
    flat = ((np.arange(n_rows)[:, None] * n_players + seat) * R.N_KINDS
            + decks[:, : n_players * k].astype(np.int64))
    counts = np.bincount(flat.ravel(), minlength=n_rows * n_players * R.N_KINDS)
    return counts.reshape(n_rows, n_players, R.N_KINDS).astype(np.uint8)


class RoundArrays(NamedTuple):
    """Per-round results and records of one batch, one row per round.

    ``turn_seat``/``turn_took``/``turn_discard``/``turn_out`` are (N, T)
    with T the longest round's turn count, -1 / False past a round's end.
    ``reshuffle_turn`` and ``reshuffle_pile`` list reshuffles (row, turn, pile).
    """

    dealer: np.ndarray
    deck: np.ndarray
    went_out: np.ndarray  # seat, -1 if none (capped)
    out_turn: np.ndarray  # global turn index of going out, -1
    turns: np.ndarray  # turns played in the round
    capped: np.ndarray
    penalties: np.ndarray  # (N, n)
    final_hands: np.ndarray  # (N, n, 56)
    turn_seat: np.ndarray
    turn_took: np.ndarray
    turn_discard: np.ndarray
    turn_out: np.ndarray
    reshuffles: list[tuple[int, int, tuple[int, ...]]]


@dataclass
class _Round:
    """The state of a batch of rounds in play, one row per round (updated in place)."""

    hands: np.ndarray  # (N, n, 56)
    stock: np.ndarray  # (N, 116) kinds; next card at stock_top
    stock_top: np.ndarray
    stock_end: np.ndarray
    pile: np.ndarray  # (N, 116) discard pile, top at pile_len - 1
    pile_len: np.ndarray
    penalty: np.ndarray  # (N, n) each hand's least penalty
    went_out: np.ndarray
    out_turn: np.ndarray
    last_turns: np.ndarray  # FC-5: turns left once someone is out
    turns: np.ndarray
    capped: np.ndarray
    pile_counts: np.ndarray  # (N, 56) int16: the discard pile's cards, face up
    known: np.ndarray  # (N, n, 56) int16: cards taken from the pile, not since discarded
    known_total: np.ndarray  # (N, 56) int16: ``known`` summed over the seats

    def seen_by(self, active: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """(k, 56) cards each deciding seat has seen outside his hand and the stock: the
        discard pile and what the others took from it (and may still hold)."""
        return self.pile_counts[active] + self.known_total[active] - self.known[active, seat]

    def rows(self, index: np.ndarray) -> _Round:
        """A copy holding only the given rows (repeated rows allowed)."""
        return _Round(**{name: value[index] for name, value in vars(self).items()})


def _new_round(decks: np.ndarray, n: int, round_no: int, dealer: np.ndarray,
               buried: int = 0) -> _Round:
    """Hands dealt, the next card turned to start the discard pile (FC-2).

    ``buried``: the deck's last cards lie face down under the turned card, out
    of the stock (a what-if's cards already discarded; 0 in real rounds).
    """
    n_rows, k = len(decks), R.cards_dealt(round_no)
    hands = deal(decks, n, round_no, dealer)
    pile = np.zeros((n_rows, R.N_CARDS), dtype=I8)
    pile[:, :buried] = decks[:, R.N_CARDS - buried:]
    pile[:, buried] = decks[:, n * k]  # the top stock card starts the discard pile
    penalty = melds.min_penalty(hands.reshape(-1, R.N_KINDS), R.wild_rank(round_no))
    pile_counts = np.zeros((n_rows, R.N_KINDS), dtype=np.int16)
    np.add.at(pile_counts, (np.repeat(np.arange(n_rows), buried + 1),
                            pile[:, :buried + 1].ravel().astype(np.int64)), 1)
    return _Round(
        hands=hands, stock=decks.copy(), stock_top=np.full(n_rows, n * k + 1),
        stock_end=np.full(n_rows, R.N_CARDS - buried), pile=pile,
        pile_len=np.full(n_rows, buried + 1, dtype=np.int64), penalty=penalty.reshape(n_rows, n),
        went_out=np.full(n_rows, -1, dtype=I8), out_turn=np.full(n_rows, -1, dtype=np.int32),
        last_turns=np.zeros(n_rows, dtype=np.int32), turns=np.zeros(n_rows, dtype=np.int32),
        capped=np.zeros(n_rows, dtype=bool), pile_counts=pile_counts,
        known=np.zeros((n_rows, n, R.N_KINDS), dtype=np.int16),
        known_total=np.zeros((n_rows, R.N_KINDS), dtype=np.int16))


@dataclass(frozen=True)
class Resume:
    """Where a continuation starts (rollouts): turn ``t``, the deciding seat's, at ``phase``
    0 (draw), 1 (discard) or 2 (go out), whose decision is ``forced`` per row; ``took`` and
    ``drawn`` (phase 1 and 2) and ``discard`` (phase 2) are what he did before it. With
    ``turns`` the rows stop after that many turns, else at the round's end."""

    t: int
    phase: int
    forced: np.ndarray
    took: np.ndarray | None = None
    drawn: np.ndarray | None = None
    discard: np.ndarray | None = None
    turns: int | None = None


def _draw(rd: _Round, dispatch: Dispatch, planning: bool, active, seat, obs: DrawObs,
          forced=None):
    """The draw of each active row (FC-3): the discard pile's top or the stock's."""
    plan = None
    if forced is not None:
        took = forced.astype(bool)
    elif planning:
        took, plan = dispatch.pair("draw_with_plan", obs, seat, (bool, I8))
        plan = np.where(took, plan, I8(-1))
    else:
        took = dispatch("draw", obs, seat, bool)
    stock_card = rd.stock[active, np.minimum(rd.stock_top[active], R.N_CARDS - 1)]
    drawn = np.where(took, obs.top, stock_card).astype(I8)
    rd.pile_len[active] -= took
    rd.stock_top[active] += ~took
    taker, kind = active[took], obs.top[took].astype(np.int64)
    rd.pile_counts[taker, kind] -= 1
    rd.known[taker, seat[took], kind] += 1  # FC-3: everyone saw him take it
    rd.known_total[taker, kind] += 1
    obs.hand[np.arange(active.size), drawn] += 1  # the observation holds the hand itself
    return took, drawn, plan


def _discard(rd: _Round, dispatch: Dispatch, active, seat, t: int, units_now,
             obs: DiscardObs, forced=None) -> np.ndarray:
    """The discard of each active row onto the pile, checked (FC-3)."""
    hand = obs.hand
    discard = dispatch("discard", obs, seat, I8) if forced is None else forced.astype(I8)
    held = hand[np.arange(active.size), np.clip(discard, 0, R.N_KINDS - 1)]
    reject((discard < 0) | (discard >= R.N_KINDS) | (held == 0), units_now, "discard",
           lambda i, d=discard, s=seat, t=t: f"of {d[i]} not in the hand of seat {s[i]} at "
                                              f"turn {t} (FC-3)")
    hand[np.arange(active.size), discard] -= 1
    rd.pile[active, rd.pile_len[active]] = discard
    rd.pile_len[active] += 1
    kind = discard.astype(np.int64)
    rd.pile_counts[active, kind] += 1
    was_known = rd.known[active, seat, kind] > 0  # the card he took may be the one he throws
    rd.known[active[was_known], seat[was_known], kind[was_known]] -= 1
    rd.known_total[active[was_known], kind[was_known]] -= 1
    return discard


def _go_out(rd: _Round, active, seat, t: int, n: int, out, final) -> np.ndarray:
    """Going out (FC-5): everyone else has one more turn; the rows whose round ended."""
    rd.turns[active] += 1
    first_out = active[out]
    rd.went_out[first_out] = seat[out]
    rd.out_turn[first_out] = t
    rd.last_turns[first_out] = n - 1
    rd.last_turns[active[final]] -= 1
    return (rd.went_out[active] >= 0) & (rd.last_turns[active] == 0)


def play_rounds(config: R.FiveCrownsConfig, dispatch: Dispatch, decks: np.ndarray,
                round_no: int, dealer: np.ndarray, units: np.ndarray, entropy: int,
                key: int, buried: int = 0) -> RoundArrays:
    """Play one round per row from shuffled decks (kinds); pure given its inputs.

    ``key`` separates this round's random streams (reshuffles, noise) from
    other rounds of the same units (the round number in games); ``buried``
    deck-end cards start the discard pile under the turned card (what-ifs).
    """
    n, n_rows = config.n_players, len(decks)
    rd = _new_round(decks, n, round_no, dealer, buried)
    log, reshuffles = play_on(config, dispatch, rd, round_no, dealer, units, entropy, key)
    penalties = final_penalties(rd, round_no)
    return RoundArrays(dealer.astype(I8), decks, rd.went_out, rd.out_turn, rd.turns, rd.capped,
                       penalties, rd.hands, *_turn_log(n_rows, log), reshuffles)


def final_penalties(rd: _Round, round_no: int) -> np.ndarray:
    """(N, n) int32 penalties when the round ends: every hand's least, the goer's 0 (FC-5)."""
    n_rows, n = rd.went_out.shape[0], rd.hands.shape[1]
    penalties = melds.min_penalty(rd.hands.reshape(-1, R.N_KINDS),
                                  R.wild_rank(round_no)).reshape(n_rows, n)
    has_out = rd.went_out >= 0
    penalties[np.flatnonzero(has_out), rd.went_out[has_out]] = 0
    return penalties.astype(np.int32)


def play_on(config: R.FiveCrownsConfig, dispatch: Dispatch, rd: _Round, round_no: int,
            dealer: np.ndarray, units: np.ndarray, entropy: int, key: int,
            resume: Resume | None = None) -> tuple[list, list]:
    """Play the rounds of ``rd`` turn by turn until each ends (or ``resume.turns`` pass).

    From the deal, or from ``resume`` (a rollout's continuation). Returns the
    turn log, (rows, seat, took, discard, out) per turn, and the reshuffles.
    """
    n = config.n_players
    active = np.arange(len(rd.went_out))
    log: list[tuple] = []
    reshuffles: list[tuple[int, int, tuple[int, ...]]] = []
    planning = dispatch.has("draw_with_plan", standing_for=("draw",))
    worlds = _WorldFactory(config, rd, round_no, dealer, units, entropy, key) \
        if getattr(dispatch, "wants_world", False) else None
    t = 0 if resume is None else resume.t
    while active.size:
        if resume is not None and resume.turns is not None and t >= resume.t + resume.turns:
            break
        if t >= config.max_turns * n:  # nobody out in time: hands scored as they are
            stuck = rd.went_out[active] < 0
            rd.capped[active[stuck]] = True
            active = active[~stuck]
            if not active.size:
                break
        phase = resume.phase if resume is not None and t == resume.t else 0
        active = _turn(config, dispatch, rd, active, t, phase, resume, planning, worlds,
                       round_no, dealer, units, entropy, key, log, reshuffles)
        t += 1
    return log, reshuffles


def _turn(config, dispatch, rd, active, t, phase, resume, planning, worlds, round_no, dealer,
          units, entropy, key, log, reshuffles) -> np.ndarray:
    """One player-turn of the active rows from ``phase``; the rows whose round goes on."""
    n, wild = config.n_players, R.wild_rank(round_no)
    first = resume is not None and t == resume.t
    forced = resume.forced[active] if first else None
    seat = ((dealer[active].astype(np.int64) + 1 + t) % n).astype(I8)
    units_now = units[active]
    noise = [None] * 3
    if dispatch.uses_noise:
        noise = rng.draw_per_unit(entropy, units_now, STREAM_NOISE,
                                  lambda g, size: rng.uniforms(g, size, 3), key, t).T
    if phase == 0:
        empty = rd.stock_top[active] >= rd.stock_end[active]
        if empty.any():  # FC-6: the whole discard pile becomes a new shuffled stock
            _reshuffle(active[empty], t, rd, entropy, units, key, reshuffles)
    hand, final = rd.hands[active, seat], rd.went_out[active] >= 0
    seen = rd.seen_by(active, seat)
    world = worlds.at(active, seat, t, hand) if worlds is not None else None
    if phase == 0:
        top = rd.pile[active, rd.pile_len[active] - 1]
        took, drawn, plan = _draw(rd, dispatch, planning and forced is None, active, seat,
                                  DrawObs(hand, rd.penalty[active, seat], top, wild, round_no,
                                          seat, t, final,
                                          rd.stock_end[active] - rd.stock_top[active], n,
                                          noise[0], seen, world and world.phase(0)), forced)
    else:
        took, drawn, plan = resume.took[active], resume.drawn[active], None
    if phase <= 1:
        world = world and world.phase(1, took=took, drawn=drawn)
        discard = _discard(rd, dispatch, active, seat, t, units_now, DiscardObs(
            hand, drawn, took, plan, wild, round_no, seat, t, final, n, noise[1],
            rd.seen_by(active, seat), world), forced if phase == 1 else None)
    else:
        discard = resume.discard[active]
    kept = melds.min_penalty(hand, wild)
    can = kept == 0
    if phase == 2:
        out = forced.astype(bool) & ~final
    else:
        world = world and world.phase(2, took=took, drawn=drawn, discard=discard)
        out = dispatch("go_out", GoOutObs(hand, can, wild, round_no, seat, t // n + 1, n,
                                          noise[2], world), seat, bool) & ~final
    reject(out & ~can, units_now, "going out",
           lambda i, s=seat, t=t: f"of seat {s[i]} at turn {t} whose hand does not meld "
                                  "(FC-3)")
    rd.hands[active, seat] = hand
    rd.penalty[active, seat] = kept
    log.append((active, seat, took, discard, np.where(final, can, out)))
    return active[~_go_out(rd, active, seat, t, n, out, final)]


class _WorldFactory:
    """Builds the rollout worlds of each decision (only for tables that ask for them)."""

    def __init__(self, config, rd, round_no, dealer, units, entropy, key):
        from simulators.five_crowns.rollout import RoundWorld

        self.make = RoundWorld
        self.context = (config, rd, round_no, dealer, units, entropy, key)

    def at(self, active, seat, t, hand):
        return self.make(*self.context, active=active, seat=seat, t=t, hand=hand)


def _reshuffle(rows, t, rd: _Round, entropy, units, key, reshuffles):
    """FC-6 for the given rows: shuffle the discard pile into the stock, turn its top."""
    keys = rng.draw_per_unit(entropy, units[rows], STREAM_RESHUFFLE,
                             lambda g, size: g.random((size, R.N_CARDS)), key, t)
    keys[np.arange(R.N_CARDS)[None, :] >= rd.pile_len[rows][:, None]] = np.inf
    order = np.argsort(keys, axis=1, kind="stable")
    shuffled = np.take_along_axis(rd.pile[rows], order, 1)
    for row, seq, length in zip(rows, shuffled, rd.pile_len[rows], strict=True):
        reshuffles.append((int(row), t, tuple(int(c) for c in seq[:length])))
    rd.stock[rows] = shuffled
    rd.stock_end[rows] = rd.pile_len[rows]
    rd.stock_top[rows] = 1
    rd.pile[rows, 0] = shuffled[:, 0]
    rd.pile_len[rows] = 1
    rd.pile_counts[rows] = 0  # players do not count through a reshuffle (docs/strong_players.md)
    rd.pile_counts[rows, shuffled[:, 0].astype(np.int64)] = 1


def _turn_log(n_rows, log):
    """(N, T) arrays of each round's turns in order, from (rows, seat, took, discard, out)."""
    width = len(log)
    seat = np.full((n_rows, width), -1, dtype=I8)
    took = np.zeros((n_rows, width), dtype=bool)
    discard = np.full((n_rows, width), -1, dtype=I8)
    out = np.zeros((n_rows, width), dtype=bool)
    for t, (rows, turn_seat, turn_took, turn_discard, turn_out) in enumerate(log):
        seat[rows, t] = turn_seat
        took[rows, t] = turn_took
        discard[rows, t] = turn_discard
        out[rows, t] = turn_out
    return seat, took, discard, out


def _decks(entropy, units, round_no):
    return rng.draw_per_unit(entropy, units, STREAM_SHUFFLE, shuffled_decks, round_no)


def _round_table(config, seed, round_no, a: RoundArrays, extra) -> pl.DataFrame:
    """Tidy per-round table."""
    n = config.n_players
    rows = len(a.dealer)
    columns = {
        **extra,
        "seed": np.full(rows, seed, dtype=np.int64),
        "n_players": np.full(rows, n, dtype=I8),
        "round_no": np.full(rows, round_no, dtype=I8),
        "wild": np.full(rows, R.wild_rank(round_no), dtype=I8),
        "dealer": a.dealer,
        "went_out": a.went_out,
        "out_turn": a.out_turn,
        "out_player_turn": np.where(a.out_turn >= 0, a.out_turn // n + 1, -1).astype(np.int32),
        "turns": a.turns,
        "reshuffles": np.bincount([r for r, _, _ in a.reshuffles], minlength=rows).astype(I8),
        "capped": a.capped,
    }
    for s in range(n):
        columns[f"penalty_{s}"] = a.penalties[:, s]
    return pl.DataFrame(columns)


def _record(config, round_no, a: RoundArrays, i: int) -> R.RoundRecord:
    turns = tuple(
        (int(s), bool(tk), int(d), bool(o))
        for s, tk, d, o in zip(a.turn_seat[i], a.turn_took[i], a.turn_discard[i], a.turn_out[i],
                               strict=True) if s >= 0)
    return R.RoundRecord(
        n_players=config.n_players, round_no=round_no, dealer=int(a.dealer[i]),
        deck=tuple(int(c) for c in a.deck[i]), turns=turns,
        reshuffles=tuple(p for r, _, p in sorted(a.reshuffles, key=lambda x: x[1]) if r == i))


@dataclass(frozen=True)
class RoundBatch:
    """Independent rounds: ``table`` (one row per round) and the raw ``arrays``."""

    config: R.FiveCrownsConfig
    seed: int
    round_no: int
    round_ids: np.ndarray
    arrays: RoundArrays
    table: pl.DataFrame

    def record(self, i: int) -> R.RoundRecord:
        """The replayable record of the batch's i-th round."""
        return _record(self.config, self.round_no, self.arrays, i)


def simulate_rounds(config: R.FiveCrownsConfig, policies, n_rounds: int, seed: int = 0, *,
                    first_round_id: int = 0) -> RoundBatch:
    """Play independent rounds ``first_round_id ..`` of round ``config.round_no`` (FC-2..FC-6).

    Round ``i`` is dealt by seat ``i % n`` from a fresh shuffle.
    """
    n_rounds = check_count("n_rounds", n_rounds)
    first_round_id = check_count("first_round_id", first_round_id, low=0)
    round_no = config.round_no
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies, config.n_players)
    ids = np.arange(first_round_id, first_round_id + n_rounds, dtype=np.int64)
    dealer = (ids % config.n_players).astype(I8)
    arrays = play_rounds(config, dispatch, _decks(entropy, ids, round_no), round_no, dealer, ids,
                         entropy, round_no)
    table = _round_table(config, entropy, round_no, arrays, {"round_id": ids})
    return RoundBatch(config, entropy, round_no, ids, arrays, table)


@dataclass(frozen=True)
class GameBatch:
    """Whole games: ``rounds`` (one row per game and round), ``games`` (per game and seat)."""

    config: R.FiveCrownsConfig
    seed: int
    game_ids: np.ndarray
    round_arrays: dict[int, RoundArrays]
    rounds: pl.DataFrame
    games: pl.DataFrame

    def records(self, game_id: int) -> list[R.RoundRecord]:
        """The replayable records of one game's rounds, in order."""
        g = unit_index(self.game_ids, game_id, "game")
        return [_record(self.config, r, a, g) for r, a in sorted(self.round_arrays.items())]


def simulate_games(config: R.FiveCrownsConfig, policies, n_games: int, seed: int = 0, *,
                   first_game: int = 0) -> GameBatch:
    """Play whole games: rounds ``config.first_round..11``, lowest total wins (FC-7)."""
    n_games = check_count("n_games", n_games)
    first_game = check_count("first_game", first_game, low=0)
    entropy = rng.root_entropy(seed)
    n = config.n_players
    dispatch = Dispatch(policies, n)
    ids = np.arange(first_game, first_game + n_games, dtype=np.int64)
    first_dealer = (ids % n).astype(I8)
    totals = np.zeros((n_games, n), dtype=np.int32)
    tables, round_arrays = [], {}
    for round_no in range(config.first_round, R.N_ROUNDS + 1):
        dealer = ((first_dealer + round_no - config.first_round) % n).astype(I8)
        arrays = play_rounds(config, dispatch, _decks(entropy, ids, round_no), round_no, dealer,
                             ids, entropy, round_no)
        totals += arrays.penalties
        round_arrays[round_no] = arrays
        tables.append(_round_table(config, entropy, round_no, arrays, {"game_id": ids}))
    winner = totals == totals.min(axis=1, keepdims=True)
    games = pl.DataFrame({
        "game_id": np.repeat(ids, n),
        "seat": np.tile(np.arange(n, dtype=I8), n_games),
        "first_dealer": np.repeat(first_dealer, n),
        "first_round": np.full(n_games * n, config.first_round, dtype=I8),
        "total": totals.ravel(),
        "is_winner": winner.ravel(),
        "n_winners": np.repeat(winner.sum(axis=1), n).astype(I8),
    })
    rounds = pl.concat(tables).sort(["game_id", "round_no"])
    return GameBatch(config, entropy, ids, round_arrays, rounds, games)
