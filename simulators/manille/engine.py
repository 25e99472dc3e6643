"""Manille coincée vectorized batch engine (RULINGS MA-1..MA-6).

A batch of N deals advances in lockstep: dealing, the trump choice and
contre are a handful of numpy operations over all N rows, with hands as
uint32 bitmasks (``rules.py`` gives the encoding); the tricks run on the
shared kernel :mod:`simulators.core.tricks` (one compiled step per card)
with Manille's MA-5 duty table, and the policies answer for the whole batch
at each card. There is no Python loop over deals. Two entry points:

* :func:`simulate_deals` — independent deals, each from a fresh shuffle;
  deal ``i`` is dealt by seat ``i % 4``.
* :func:`simulate_games` — whole games to the target (MA-6): the first
  dealer is drawn, every deal is shuffled and cut (MA-2), the deal passes
  counter-clockwise.

Inside a deal the engine works in *turn order*: position ``r`` (0..3) is the
seat ``(dealer - 1 - r) % 4``, so position 0 is the dealer's right (the first
to receive cards and the first leader), play goes ``r -> r + 1``, the
dealer is position 3 and his partner position 1 (the taking team is the odd
positions), and partners are two positions apart.

Every random number comes from :mod:`simulators.core.rng`: deal (or game)
``i`` gets the same deck, cut and policy noise whatever the batch it is
simulated in; decks, cuts and noise are separate streams, so two policies
compared on the same seed play the same deals (common random numbers).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import polars as pl

from simulators.core import batches, bits, rng, tricks
from simulators.core.dispatch import IllegalAction as IllegalAction  # re-exported
from simulators.core.dispatch import SeatDispatch, reject
from simulators.core.params import check_count
from simulators.core.tables import enum_column
from simulators.manille import rules as R
from simulators.manille.observations import POLICY_METHODS, ChoiceObs, ContreObs, PlayObs

U32 = np.uint32
I8 = np.int8
ONE = U32(1)
ZERO = U32(0)

STREAM_SHUFFLE, STREAM_CUT, STREAM_NOISE, STREAM_DEALER_DRAW = 0, 1, 2, 3
# noise slots of a deal: dealer's choice, partner's choice, two contre and two
# surcontre answers, then the 32 cards
SLOT_CHOICE, SLOT_CONTRE, SLOT_PLAY = 0, 2, 6
N_DECISIONS = SLOT_PLAY + R.N_SEATS * R.N_TRICKS
SUIT_MASK5 = tricks.SUIT_MASK  # index 4 (sans atout, the kernel's NO_TRUMP): no trump card
MANILLES = U32(R.RANK_MASK[R.MANILLE])
MANILLONS = U32(R.RANK_MASK[R.MANILLON])
ALL_CHOICES = np.uint8(0b111111)
PARTNER_CHOICES = {True: np.uint8(0b11111), False: np.uint8(0b1111)}  # partner_may_sans_atout
CONTRE_FACTOR = np.array(R.CONTRE_FACTOR, dtype=np.int16)
TEAM_OF_SEAT = np.array([0, 1, 0, 1], dtype=I8)  # partners face to face
# Four seats: ``x & SEAT_MOD`` is ``x % 4`` for every integer (negatives too, in two's
# complement) at a fraction of the cost (numpy's % on int8 rows is ~50x a bitwise and).
SEAT_MOD = R.N_SEATS - 1


def mask_points(mask: np.ndarray) -> np.ndarray:
    """Card points held in each mask (MA-1)."""
    return tricks.mask_points(mask, R.POINTS)


def deal_scores(taking_points, trump, contre_level) -> tuple[np.ndarray, np.ndarray]:
    """(taking team, defence) score of each deal (MA-6)."""
    factor = CONTRE_FACTOR[contre_level] * np.where(trump == R.SANS_ATOUT, 2, 1).astype(np.int16)
    taking_points = taking_points.astype(np.int16)
    taking = np.maximum(taking_points - R.THRESHOLD, 0) * factor
    defence = np.maximum(R.DEAL_POINTS - taking_points - R.THRESHOLD, 0) * factor
    return taking.astype(np.int16), defence.astype(np.int16)


def turn_order_positions(packets: tuple[int, ...]) -> np.ndarray:
    """(4, 8) post-cut deck positions of the cards each turn-order position receives (MA-2)."""
    out: list[list[int]] = [[] for _ in range(R.N_SEATS)]
    pos = 0
    for size in packets:
        for r in range(R.N_SEATS):
            out[r] += range(pos, pos + size)
            pos += size
    return np.array(out, dtype=np.intp)


def seat_of(dealer: np.ndarray, position) -> np.ndarray:
    """Seat of turn-order ``position`` (0 = the dealer's right) for each dealer."""
    return ((dealer - 1 - np.asarray(position)) & SEAT_MOD).astype(I8)


class Dispatch(SeatDispatch):
    """Routes each Manille decision to the policy of the acting seat."""

    def __init__(self, policies):
        super().__init__(policies, R.N_SEATS, POLICY_METHODS, "Manille")


class DealArrays(NamedTuple):
    """Per-deal results and records of one batch, one row per deal (seats, not positions).

    Absent values are -1 (no partner choice, nobody contred...).
    """

    dealer: np.ndarray
    deck: np.ndarray  # (N, 32) pre-cut deck, top first
    cut: np.ndarray
    hands: np.ndarray  # (N, 4) uint32, per seat, as dealt
    choice: np.ndarray  # (N, 2) dealer's action, partner's or -1 (MA-3)
    chooser: np.ndarray
    trump: np.ndarray  # 0..3, 4 sans atout
    contre: np.ndarray  # (N, 2) answers in the order asked: 1 yes, 0 no, -1 not asked (MA-4)
    surcontre: np.ndarray  # (N, 2)
    contre_level: np.ndarray
    contre_by: np.ndarray
    surcontre_by: np.ndarray
    plays: np.ndarray  # (N, 8, 4) cards in play order
    trick_winners: np.ndarray  # (N, 8) seats
    taking_tricks: np.ndarray
    taking_card_points: np.ndarray
    taking_score: np.ndarray
    defence_score: np.ndarray


def _deal_hands(config: R.ManilleConfig, deck: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """(N, 4) hands by turn-order position from pre-cut decks (MA-2): packets counter-clockwise
    from the dealer's right."""
    return tricks.deal_packets(tricks.cut_decks(deck, cut), R.N_SEATS, config.packets)


def _choose_trump(config, dispatch, units, hands, dealer, noise_at):
    """The dealer's choice, the partner's after a pass (MA-3): choice, trump, chooser position."""
    n_rows = len(dealer)
    choice = np.full((n_rows, 2), -1, dtype=I8)
    legal = np.full(n_rows, ALL_CHOICES)
    first = dispatch("choose", ChoiceObs(hands[:, 3], dealer, dealer, False, legal,
                                         noise_at(SLOT_CHOICE), config.sans_atout_must_beat),
                     dealer, I8)
    reject((first < 0) | (first > R.PASS_TO_PARTNER), units, "choice",
           lambda i: f"{int(first[i])} by the dealer; expected 0..5 (MA-3)")
    choice[:, 0] = first
    trump = first.copy()
    chooser_pos = np.full(n_rows, 3, dtype=I8)
    passed = np.flatnonzero(first == R.PASS_TO_PARTNER)
    if passed.size:
        allowed = PARTNER_CHOICES[config.partner_may_sans_atout]
        partner = seat_of(dealer[passed], 1)
        noise = noise_at(SLOT_CHOICE + 1)
        second = dispatch("choose", ChoiceObs(hands[passed, 1], partner, dealer[passed], True,
                                              np.full(passed.size, allowed),
                                              None if noise is None else noise[passed],
                                              config.sans_atout_must_beat),
                          partner, I8)
        bad = (second < 0) | (second > 4) | ((allowed >> np.clip(second, 0, 7).astype(np.uint8))
                                             & 1 == 0)
        reject(bad, units[passed], "choice",
               lambda i: f"{int(second[i])} by the dealer's partner; he must name a suit "
                         f"{'or sans atout ' if config.partner_may_sans_atout else ''}(MA-3)")
        choice[passed, 1] = second
        trump[passed] = second
        chooser_pos[passed] = 1
    return choice, trump, chooser_pos


def _ask_contre(dispatch, units, hands, dealer, chooser_pos, trump, noise_at, must_beat=False,
                forced=None):
    """Contre by the opponents, then surcontre by the taking team (MA-4). ``forced`` maps
    ``(stage, order)`` to (N,) int8 answers (1 yes, 0 no, -1 the policy's) given instead of
    the policy's (a teacher's rollouts)."""
    n_rows = len(dealer)
    chooser = seat_of(dealer, chooser_pos)
    answers = {}
    level = np.zeros(n_rows, dtype=I8)
    by = {}
    for stage, positions in ((R.CONTRE, (np.zeros(n_rows, I8), np.full(n_rows, 2, I8))),
                             (R.SURCONTRE, (chooser_pos, (chooser_pos + 2) & SEAT_MOD))):
        said = np.zeros(n_rows, dtype=bool)
        out = np.full((n_rows, 2), -1, dtype=I8)
        by_seat = np.full(n_rows, -1, dtype=I8)
        eligible = level == stage - 1  # surcontre only after a contre
        for order, pos in enumerate(positions):
            ask = np.flatnonzero(eligible & ~said)
            if not ask.size:
                break
            seat = seat_of(dealer[ask], pos[ask])
            noise = noise_at(SLOT_CONTRE + 2 * (stage - 1) + order)
            obs = ContreObs(hands[ask, pos[ask]], seat, dealer[ask], chooser[ask], trump[ask],
                            stage, order, None if noise is None else noise[ask], must_beat)
            yes = dispatch("contre", obs, seat, bool)
            if forced is not None and (stage, order) in forced:
                given = np.asarray(forced[(stage, order)], np.int8)[ask]
                yes = np.where(given >= 0, given == 1, yes)
            out[ask, order] = yes
            said[ask[yes]] = True
            by_seat[ask[yes]] = seat[yes]
        level = np.where(said, I8(stage), level)
        answers[stage] = out
        by[stage] = by_seat
    return answers[R.CONTRE], answers[R.SURCONTRE], level, by[R.CONTRE], by[R.SURCONTRE]


def play_batch(config: R.ManilleConfig, dispatch: Dispatch, deck: np.ndarray, cut: np.ndarray,
               dealer: np.ndarray, noise: np.ndarray | None, units: np.ndarray) -> DealArrays:
    """Play one deal per row from pre-cut decks; pure given its inputs.

    ``noise`` is (N_DECISIONS, N) uniforms or None; ``units`` are the row ids
    used in error messages.
    """
    dealer = dealer.astype(I8)

    def noise_at(slot):
        return None if noise is None else noise[slot]

    hands = _deal_hands(config, deck, cut)
    choice, trump, chooser_pos = _choose_trump(config, dispatch, units, hands, dealer, noise_at)
    contre, surcontre, level, contre_by, surcontre_by = _ask_contre(
        dispatch, units, hands, dealer, chooser_pos, trump, noise_at, config.sans_atout_must_beat)
    plays, winner_pos, taking_won, taking_tricks = _play_tricks(
        config, dispatch, units, hands, dealer, trump, level, noise_at)
    taking_card_points = mask_points(taking_won)
    taking_score, defence_score = deal_scores(taking_card_points + taking_tricks, trump, level)
    position_of_seat = _position_of_seat(dealer)
    return DealArrays(
        dealer=dealer, deck=deck, cut=cut.astype(I8),
        hands=np.take_along_axis(hands, position_of_seat, 1),
        choice=choice, chooser=seat_of(dealer, chooser_pos), trump=trump.astype(I8),
        contre=contre, surcontre=surcontre, contre_level=level,
        contre_by=contre_by, surcontre_by=surcontre_by, plays=plays,
        trick_winners=seat_of(dealer[:, None], winner_pos),
        taking_tricks=taking_tricks, taking_card_points=taking_card_points,
        taking_score=taking_score, defence_score=defence_score,
    )


def play_from_choice(config: R.ManilleConfig, dispatch: Dispatch, hands: np.ndarray,
                     dealer: np.ndarray, trump: np.ndarray, chooser_pos: np.ndarray,
                     units: np.ndarray, forced=None) -> tuple[np.ndarray, np.ndarray]:
    """Deals whose trump is named: the contre answers (``forced`` as :func:`_ask_contre`'s),
    the tricks and the MA-6 scores; pure given its inputs, no noise. ``hands`` (N, 4) by
    turn-order position, ``chooser_pos`` 3 (the dealer) or 1 (his partner). Returns the
    taking team's and the defence's scores (a teacher's rollouts of an auction option)."""
    dealer, trump = dealer.astype(I8), trump.astype(I8)
    _, _, level, _, _ = _ask_contre(dispatch, units, hands, dealer, chooser_pos.astype(I8),
                                    trump, lambda slot: None, config.sans_atout_must_beat,
                                    forced)
    _, _, taking_won, taking_tricks = _play_tricks(config, dispatch, units, hands, dealer,
                                                   trump, level, lambda slot: None)
    return deal_scores(mask_points(taking_won) + taking_tricks, trump, level)


def _play_tricks(config, dispatch, units, hands, dealer, trump, level, noise_at):
    """The eight tricks on the shared kernel (MA-5). Returns plays (cards in play order),
    the winner's turn-order position per trick, the taking team's won cards and its tricks.

    One kernel call with two duty tables: sans-atout deals use the table without
    the beating duty unless ``sans_atout_must_beat`` keeps it (a sans-atout
    deal has no trump card, so the trump table's other duties cannot bind).
    """
    n_rows = len(dealer)
    seat_hands = np.take_along_axis(hands, _position_of_seat(dealer), 1)
    table = ((trump == R.SANS_ATOUT) & (not config.sans_atout_must_beat)).astype(np.int8)
    record = _play_group(dispatch, units, seat_hands, dealer, trump, level,
                         (R.MA5_DUTIES, R.MA5_SANS_ATOUT_DUTIES), table, noise_at,
                         config.sans_atout_must_beat)
    plays, winners, won, tricks_won = record.plays, record.winners, record.won, record.tricks_won
    taking_seat = dealer.astype(np.intp)  # the dealer and his partner (MA-3)
    partner = (taking_seat + 2) & SEAT_MOD
    rows = np.arange(n_rows)
    taking_won = won[rows, taking_seat] | won[rows, partner]
    taking_tricks = (tricks_won[rows, taking_seat] + tricks_won[rows, partner]).astype(np.int16)
    winner_pos = ((dealer[:, None] - 1 - winners) & SEAT_MOD).astype(I8)
    return plays, winner_pos, taking_won, taking_tricks


# POSITION_OF_SEAT[dealer, seat]: the seat's turn-order position (0 = the dealer's right)
POSITION_OF_SEAT = ((np.arange(R.N_SEATS)[:, None] - 1 - np.arange(R.N_SEATS)[None, :])
                    & SEAT_MOD).astype(np.intp)


def _position_of_seat(dealer: np.ndarray) -> np.ndarray:
    """(N, 4) turn-order position of each seat (one lookup: cheaper than the arithmetic)."""
    return POSITION_OF_SEAT[dealer]


def _play_group(dispatch, units, hands, dealer, trump, level, duties, table, noise_at,
                sans_atout_must_beat=False):
    """Play the tricks (``table``: each row's index into ``duties``); the policies see a
    PlayObs per card."""
    trump_mask = SUIT_MASK5[trump]
    taking_team = dealer & 1
    history: list[tricks.TrickRecord] = []

    def keep_record(view: tricks.CardView, record: tricks.TrickRecord) -> None:
        if not history:
            history.append(record)  # the kernel's live record: the play so far, no copy

    def choose(view: tricks.CardView) -> np.ndarray:
        sub = slice(None) if view.rows is None else view.rows
        noise = noise_at(SLOT_PLAY + R.N_SEATS * view.trick + view.position)
        if noise is not None:
            noise = noise[sub]
        plays, leaders = history[0].plays, history[0].leaders
        if view.rows is not None:
            plays, leaders = plays[view.rows], leaders[view.rows]
        obs = PlayObs(view.hand, view.legal, view.seat, view.position, view.trick, trump[sub],
                      trump_mask[sub], view.led_suit, view.led_mask, view.winning_card,
                      ~view.opponent_holds, view.table, view.played,
                      (view.seat & 1) == taking_team[sub], level[sub], noise, plays, leaders,
                      sans_atout_must_beat, hands[sub] if dispatch.wants_world else None)
        return dispatch("play", obs, view.seat, I8)

    def describe(j: int, card: int, view: tricks.CardView) -> str:
        shown = R.format_card(card) if 0 <= card < R.N_CARDS else str(card)
        return (f"{shown} by seat {int(view.seat[j])} in trick {view.trick + 1}; legal: "
                f"{R.format_cards(bits.cards_of(int(view.legal[j])))} (MA-5)")

    leader = (dealer.astype(np.int64) - 1) & SEAT_MOD  # MA-5: the dealer's right leads
    return tricks.play_tricks(hands, leader, R.N_TRICKS, trump_mask, duties, table=table,
                              choose=choose, before_card=keep_record, team=TEAM_OF_SEAT,
                              direction=tricks.COUNTER_CLOCKWISE,
                              units=units, describe=describe)


# ---------------------------------------------------------------- randomness


def decision_noise(entropy, units, step: int = 0):
    """(N_DECISIONS, units) uniforms of the policies' noise stream (deal ``i``'s whatever the
    batch)."""
    draws = rng.draw_per_unit(entropy, units, STREAM_NOISE,
                              lambda gen, size: rng.uniforms(gen, size, N_DECISIONS), step)
    return np.ascontiguousarray(draws.T)


# ---------------------------------------------------------------- public API


class DealBatch(batches.DealBatch[R.ManilleConfig, DealArrays]):
    """Independent deals: ``table`` (one row per deal) and the raw ``arrays``."""

    def record(self, i: int) -> R.DealRecord:
        """The replayable record of the batch's i-th deal."""
        return deal_record(self.arrays, i)


class GameBatch(batches.GameBatch[R.ManilleConfig, DealArrays]):
    """Whole games: ``deals`` (one row per deal), ``games`` (one row per game), raw ``arrays``."""

    def record(self, game_id: int) -> R.GameRecord:
        """The replayable record of one game."""
        g, rows = self.game_rows(game_id)
        return R.GameRecord(config=self.config,
                            dealer_draw=tuple(int(c) for c in self.dealer_draw[g]),
                            deals=tuple(deal_record(self.arrays, int(i)) for i in rows))


def deal_record(a: DealArrays, i: int) -> R.DealRecord:
    """Plain-Python record of row i (see rules.DealRecord)."""
    return R.DealRecord(
        dealer=int(a.dealer[i]), deck=tuple(int(c) for c in a.deck[i]), cut=int(a.cut[i]),
        choice=tuple(int(c) for c in a.choice[i] if c >= 0),
        contre=tuple(bool(x) for x in a.contre[i] if x >= 0),
        surcontre=tuple(bool(x) for x in a.surcontre[i] if x >= 0),
        plays=tuple(int(c) for c in a.plays[i].ravel()),
    )


TRUMP_ENUM = pl.Enum(list(R.TRUMP_CODES))
CONTRE_ENUM = pl.Enum(list(R.CONTRE_NAMES))
RESULT_NAMES = ("taking", "defence", "draw")
RESULT_ENUM = pl.Enum(list(RESULT_NAMES))


def hand_features(hand: np.ndarray, trump: np.ndarray, prefix: str) -> dict[str, np.ndarray]:
    """Per-suit counts, manilles, manillons, card points and trump count of hands."""
    out = {f"{prefix}_n_{code}": bits.popcount(hand & U32(R.SUIT_MASK[s])).astype(I8)
           for s, code in enumerate(R.SUIT_CODES)}
    out[f"{prefix}_manilles"] = bits.popcount(hand & MANILLES).astype(I8)
    out[f"{prefix}_manillons"] = bits.popcount(hand & MANILLONS).astype(I8)
    out[f"{prefix}_points"] = mask_points(hand)
    # -1 under sans atout: the count is cast to int8 before -1 meets it (no uint8 wrap)
    out[f"{prefix}_trumps"] = np.where(trump == R.SANS_ATOUT, I8(-1),
                                       bits.popcount(hand & SUIT_MASK5[trump]).astype(I8))
    return out


def deal_table(seed: int, a: DealArrays, extra: dict[str, np.ndarray]) -> pl.DataFrame:
    """Tidy per-deal table (one row per deal); teams are 0 (seats 0 & 2) and 1 (seats 1 & 3)."""
    n = len(a.dealer)
    rows = np.arange(n)
    taking_team = (a.dealer & 1).astype(I8)
    taking_points = a.taking_card_points + a.taking_tricks
    team0 = taking_team == 0

    def per_team(taking_value, defence_value):
        return (np.where(team0, taking_value, defence_value),
                np.where(team0, defence_value, taking_value))

    card0, card1 = per_team(a.taking_card_points, R.CARD_POINTS_TOTAL - a.taking_card_points)
    tricks0, tricks1 = per_team(a.taking_tricks, R.N_TRICKS - a.taking_tricks)
    score0, score1 = per_team(a.taking_score, a.defence_score)
    result = np.where(taking_points > R.THRESHOLD, 0,
                      np.where(taking_points < R.THRESHOLD, 1, 2))
    columns = {
        **extra,
        "seed": np.full(n, seed, dtype=np.int64),
        "dealer": a.dealer, "chooser": a.chooser,
        "dealer_passed": a.choice[:, 0] == R.PASS_TO_PARTNER,
        "taking_team": taking_team,
        "trump": enum_column("trump", a.trump, TRUMP_ENUM.categories),
        "sans_atout": a.trump == R.SANS_ATOUT,
        "contre": enum_column("contre", a.contre_level, CONTRE_ENUM.categories),
        "contre_level": a.contre_level, "contre_by": a.contre_by,
        "surcontre_by": a.surcontre_by,
        "team0_card_points": card0.astype(np.int16), "team1_card_points": card1.astype(np.int16),
        "team0_tricks": tricks0.astype(I8), "team1_tricks": tricks1.astype(I8),
        "team0_points": (card0 + tricks0).astype(np.int16),
        "team1_points": (card1 + tricks1).astype(np.int16),
        "taking_points": taking_points.astype(np.int16),
        "result": enum_column("result", result, RESULT_ENUM.categories),
        "score_team0": score0, "score_team1": score1,
        "taking_score": a.taking_score, "defence_score": a.defence_score,
        "taking_margin": (a.taking_score - a.defence_score).astype(np.int16),
        **hand_features(a.hands[rows, a.chooser], a.trump, "chooser"),
    }
    return pl.DataFrame(columns)


def simulate_deals(config: R.ManilleConfig, policies, n_deals: int, seed: int = 0, *,
                   first_deal: int = 0) -> DealBatch:
    """Play deals ``first_deal .. first_deal + n_deals - 1`` of ``seed``.

    Each deal is dealt from a fresh uniform shuffle by seat ``deal_id % 4``;
    ``policies`` is one policy for every seat or a sequence of four.
    """
    n_deals = check_count("n_deals", n_deals)
    first_deal = check_count("first_deal", first_deal, low=0)
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies)
    ids = np.arange(first_deal, first_deal + n_deals, dtype=np.int64)
    deck = rng.draw_per_unit(entropy, ids, STREAM_SHUFFLE, tricks.shuffled_decks, 0)
    cut = rng.draw_per_unit(entropy, ids, STREAM_CUT, tricks.cut_drawer(config.cut_weights), 0)
    noise = decision_noise(entropy, ids) if dispatch.uses_noise else None
    dealer = (ids & SEAT_MOD).astype(I8)
    arrays = play_batch(config, dispatch, deck, cut, dealer, noise, ids)
    table = deal_table(entropy, arrays, {"deal_id": ids})
    return DealBatch(config, entropy, ids, arrays, table)


def simulate_games(config: R.ManilleConfig, policies, n_games: int, seed: int = 0, *,
                   first_game: int = 0) -> GameBatch:
    """Play whole games ``first_game .. first_game + n_games - 1`` of ``seed`` (MA-6).

    A game ends when a team reaches ``config.target``; every deal is freshly
    shuffled and cut (MA-2) and the deal passes counter-clockwise. A game
    still unfinished after ``config.max_deals`` deals raises ``RuntimeError``.
    """
    n_games = check_count("n_games", n_games)
    first_game = check_count("first_game", first_game, low=0)
    entropy = rng.root_entropy(seed)
    dispatch = Dispatch(policies)
    ids = np.arange(first_game, first_game + n_games, dtype=np.int64)
    dealer_draw = rng.draw_per_unit(entropy, ids, STREAM_DEALER_DRAW, tricks.shuffled_decks)
    first_dealer = tricks.first_dealers(dealer_draw, R.N_SEATS)  # MA-2
    dealer = first_dealer.copy()
    totals = np.zeros((n_games, 2), dtype=np.int32)
    active = np.arange(n_games)
    deals_played: batches.DealsPlayed[DealArrays] = batches.DealsPlayed()
    step = 0
    draw_cuts = tricks.cut_drawer(config.cut_weights)
    while active.size:
        if step >= config.max_deals:
            raise RuntimeError(f"{active.size} game(s) unfinished after {config.max_deals} "
                               "deals (max_deals): the policies hardly ever score (MA-6)")
        units = ids[active]
        deck = rng.draw_per_unit(entropy, units, STREAM_SHUFFLE, tricks.shuffled_decks, step)
        cut = rng.draw_per_unit(entropy, units, STREAM_CUT, draw_cuts, step)
        noise = decision_noise(entropy, units, step) if dispatch.uses_noise else None
        arrays = play_batch(config, dispatch, deck, cut, dealer[active], noise, units)
        deals_played.add(arrays, units, step)
        team0 = (arrays.dealer & 1) == 0
        totals[active, 0] += np.where(team0, arrays.taking_score, arrays.defence_score)
        totals[active, 1] += np.where(team0, arrays.defence_score, arrays.taking_score)
        dealer[active] = (dealer[active] - 1) & SEAT_MOD  # MA-2: counter-clockwise
        active = active[totals[active].max(axis=1) < config.target]
        step += 1

    arrays = DealArrays(*(np.concatenate(field)
                          for field in zip(*deals_played.parts, strict=True)))
    deal_game, deal_no = deals_played.rows()
    order = np.lexsort((deal_no, deal_game))
    arrays = DealArrays(*(field[order] for field in arrays))
    deal_game, deal_no = deal_game[order], deal_no[order]
    deals = deal_table(entropy, arrays, {"game_id": deal_game, "deal_no": deal_no})
    games = game_table(config, ids, first_dealer, totals, deal_game)
    return GameBatch(config, entropy, ids, arrays, deal_game, deal_no, dealer_draw, first_dealer,
                     deals, games)


def game_table(config, ids, first_dealer, totals, deal_game) -> pl.DataFrame:
    """One row per game: first dealer, length, final scores, winning team (MA-6)."""
    n_deals = np.bincount(np.searchsorted(ids, deal_game), minlength=len(ids))
    winner = np.where(totals[:, 0] >= config.target, 0, 1).astype(I8)
    first_team = (first_dealer & 1).astype(I8)
    return pl.DataFrame({
        "game_id": ids, "first_dealer": first_dealer, "first_dealer_team": first_team,
        "n_deals": n_deals.astype(np.int32), "score_team0": totals[:, 0],
        "score_team1": totals[:, 1], "winner": winner,
        "first_dealer_team_wins": winner == first_team,
    })
