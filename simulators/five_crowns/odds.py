"""Five Crowns "what are my odds with this hand?": take the discard or draw blind.

The situation is my turn in round ``round_no`` before I draw: my hand (the
round's ``cards_dealt`` cards), the top of the discard pile, and the other
cards out of the stock that I have seen (buried in the pile). I am seat 0
and play first; the other hands, the stock and (when not given) the top are
dealt uniformly from the unseen cards, the same for every decision (deal
``i`` is unit ``i`` of the odds stream: chunks add up). My first draw is
forced to ``take`` (the discard) or ``draw`` (the stock); everything after it
is played by the policies (FC-3..FC-6). Per deal: did I go out this turn,
did I go out before every opponent, my penalty when the round ends.

The chance of going out this turn is also computed exactly
(:func:`exact_out_chance`): taking the discard is a certainty either way; a
blind draw is uniform over the unseen cards, each checked with the exact
meld solver after the best discard.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simulators.core import rng
from simulators.core.dispatch import forwards
from simulators.core.game import Metric, mean, rate
from simulators.core.params import check_count
from simulators.five_crowns import melds
from simulators.five_crowns import rules as R

STREAM_ODDS = 9  # apart from the engine's streams (0, 2, 4)
EXACT_LABEL = "P(out this turn), exact with the best discard"
PENALTY_LABEL = "my penalty at the round's end"
KIND_COPIES = np.array([2] * R.JOKER + [6], dtype=np.int64)  # FC-1: two sets, 3 jokers each


@dataclass(frozen=True)
class OddsQuestion:
    """My turn before I draw: the round, my hand, the discard pile's top, what I have seen."""

    round: int = field(metadata={"doc": "the round, 1..11 (round R deals R + 2 cards, R + 2 "
                                        "wild)"})
    hand: str = field(metadata={"doc": 'my cards before I draw, e.g. "JH JD 8C 9C KS 4H 3C"'})
    discard: str | None = field(default=None, metadata={
        "doc": "the top of the discard pile, e.g. 10C (default: unknown, dealt at random)"})
    seen: str = field(default="", metadata={
        "doc": "other cards out of the stock that I have seen (buried in the discard pile)"})


@dataclass(frozen=True)
class Situation:
    """A question read and checked: kinds, the round's wild rank, the unseen cards."""

    round_no: int
    hand: tuple[int, ...]
    top: int | None
    seen: tuple[int, ...]

    @property
    def wild(self) -> int:
        return R.wild_rank(self.round_no)

    def unseen(self) -> np.ndarray:
        """(56,) counts of the cards I have not seen: the stock, the other hands (and the
        top when it is not given)."""
        counts = KIND_COPIES.copy()
        known = list(self.hand) + list(self.seen) + ([] if self.top is None else [self.top])
        np.subtract.at(counts, np.asarray(known, dtype=np.int64), 1)
        return counts


def read_question(question: OddsQuestion, n_players: int) -> Situation:
    """The situation of a question; ``ValueError`` naming what is wrong (before any work)."""
    round_no = question.round
    if isinstance(round_no, bool) or not isinstance(round_no, int) or not 1 <= round_no <= 11:
        raise ValueError(f"round must be 1..11, got {round_no!r}")
    hand = R.parse_cards(question.hand)
    if len(hand) != R.cards_dealt(round_no):
        raise ValueError(f"hand: round {round_no} deals {R.cards_dealt(round_no)} cards, got "
                         f"{len(hand)} ({R.format_cards(hand) or 'none'})")
    top = None if question.discard in (None, "") else R.parse_cards(question.discard)
    if top is not None and len(top) != 1:
        raise ValueError(f"discard: one card, the top of the pile, got {question.discard!r}")
    seen = R.parse_cards(question.seen)
    known = hand + seen + (top or [])
    counts = np.bincount(np.asarray(known, dtype=np.int64), minlength=R.N_KINDS)
    over = np.flatnonzero(counts > KIND_COPIES)
    if over.size:
        k = int(over[0])
        raise ValueError(f"{R.format_card(k)} is given {counts[k]} times (hand, discard and "
                         f"seen); the deck has {KIND_COPIES[k]}")
    dealt = n_players * R.cards_dealt(round_no) + 1
    if R.N_CARDS - len(seen) - dealt < 1:
        raise ValueError(f"seen: {len(seen)} cards leave no stock for {n_players} players in "
                         f"round {round_no}")
    return Situation(round_no, tuple(hand), None if top is None else top[0], tuple(seen))


def _with(hand: tuple[int, ...], extra: int | None = None) -> np.ndarray:
    counts = np.bincount(np.asarray(hand, dtype=np.int64), minlength=R.N_KINDS)
    if extra is not None:
        counts[extra] += 1
    return counts.astype(np.uint8)


def exact_out_chance(situation: Situation) -> dict[str, float | None]:
    """P(I go out this turn) for each decision, going out whenever the hand allows after the
    best discard (FC-3): ``take`` is 0 or 1 (None when the top is unknown); ``draw`` weighs
    every unseen kind by its copies left (the stock card is uniform over the unseen cards)."""
    unseen = situation.unseen()
    kinds = np.flatnonzero(unseen > 0)
    hands = np.stack([_with(situation.hand, int(k)) for k in kinds])
    penalty, _ = melds.best_discard(hands, situation.wild)
    draw = float(unseen[kinds][penalty == 0].sum() / unseen.sum())
    take = None
    if situation.top is not None:
        after, _ = melds.best_discard(_with(situation.hand, situation.top), situation.wild)
        take = float(after == 0)
    return {"take": take, "draw": draw}


def throw_choices(situation: Situation, most: int = 3) -> list[int]:
    """After taking the discard, the throws that matter: the ``most`` kinds whose removal
    leaves the least exact penalty (FC-5), best first (ties: the higher own penalty)."""
    if situation.top is None:
        return []
    held = _with(situation.hand, situation.top)
    kinds = np.flatnonzero(held)
    hands = np.repeat(held[None, :], len(kinds), axis=0)
    hands[np.arange(len(kinds)), kinds] -= 1
    left = melds.min_penalty(hands, situation.wild)
    own = [50 if k == R.JOKER else 20 if R.is_wild(int(k), situation.wild)
           else int(R.rank_of(int(k))) for k in kinds]
    order = sorted(range(len(kinds)), key=lambda i: (int(left[i]), -own[i], -int(kinds[i])))
    return [int(kinds[i]) for i in order[:most]]


@forwards("inner", "go_out", "costly", "wants_world")
class _ForcedFirstTurn:
    """My policy, but my first draw (turn 0) is forced — take the discard or draw blind —
    and, with ``throw``, the card I then discard. Only the planning wrapper below answers
    ``draw_with_plan``: this one is for a policy the dispatcher asks ``draw``."""

    def __init__(self, inner, take: bool, throw: int | None = None):
        self.inner, self.take, self.throw = inner, take, throw
        self.uses_noise = getattr(inner, "uses_noise", False)

    def draw(self, obs):
        choice = np.asarray(self.inner.draw(obs), dtype=bool)
        return np.full(len(choice), self.take) if obs.turn == 0 else choice

    def discard(self, obs):
        if obs.turn == 0 and self.throw is not None:
            return np.full(len(obs.hand), self.throw, dtype=np.int8)
        return self.inner.discard(obs)


class _ForcedFirstTurnPlanning(_ForcedFirstTurn):
    """The same for a policy that plans its discard when it draws (``draw_with_plan``)."""

    def draw_with_plan(self, obs):
        took, plan = self.inner.draw_with_plan(obs)
        if obs.turn != 0:
            return took, plan
        took = np.asarray(took, dtype=bool)
        forced = np.full(len(took), self.take)
        if self.throw is not None:
            return forced, np.full(len(took), self.throw, dtype=np.int8)
        return forced, np.where(forced == took, plan, -1)  # -1: the discard decides


def decisions(situation: Situation) -> list[tuple[str, bool, int | None]]:
    """(name, take, throw) of every decision: take (then my policy's discard), draw, and
    take then each throw that matters."""
    return ([("take", True, None), ("draw", False, None)]
            + [(f"take, throw {R.format_card(k)}", True, k) for k in throw_choices(situation)])


def situation_decks(situation: Situation, n_players: int, entropy: int,
                    units: np.ndarray) -> tuple[np.ndarray, int]:
    """(N, 116) decks in kinds dealing my hand to seat 0 (dealer n - 1, FC-2) with the top
    turned after the deal and the seen cards at the end, and how many are seen (they start
    the discard pile under the top, see ``engine.play_rounds``)."""
    k = R.cards_dealt(situation.round_no)
    unseen = situation.unseen()
    pool = np.repeat(np.arange(R.N_KINDS), unseen).astype(np.int8)
    order = rng.draw_per_unit(entropy, units, STREAM_ODDS,
                              lambda g, size: rng.permutations(g, size, len(pool)))
    shuffled = pool[order]
    mine = np.arange(k) * n_players  # dealt one at a time from seat 0 (the dealer's left)
    top_at = n_players * k
    free = np.setdiff1d(np.arange(R.N_CARDS - len(situation.seen)), mine)
    if situation.top is not None:
        free = free[free != top_at]
    decks = np.empty((len(units), R.N_CARDS), dtype=np.int8)
    decks[:, mine] = np.asarray(situation.hand, dtype=np.int8)
    if situation.top is not None:
        decks[:, top_at] = situation.top
    decks[:, free] = shuffled
    if situation.seen:
        decks[:, R.N_CARDS - len(situation.seen):] = np.asarray(situation.seen, dtype=np.int8)
    return decks, len(situation.seen)


def play_odds(config: R.FiveCrownsConfig, policies, question: OddsQuestion, count: int,
              seed: int, first: int = 0) -> pl.DataFrame:
    """Deals ``first .. first + count - 1`` of the situation, played with my first draw
    forced to each decision; one row per deal and decision."""
    from simulators.five_crowns.engine import Dispatch, play_rounds

    count = check_count("count", count)
    first = check_count("first", first, low=0)
    n = config.n_players
    situation = read_question(question, n)
    per_seat = list(policies) if isinstance(policies, list | tuple) else [policies] * n
    if len(per_seat) != n:
        raise ValueError(f"policies: give one policy or {n} (one per seat), got "
                         f"{len(per_seat)}")
    Dispatch(per_seat, n)  # validates the policies once, before any work
    entropy = rng.root_entropy(seed)
    units = np.arange(first, first + count, dtype=np.int64)
    decks, buried = situation_decks(situation, n, entropy, units)
    dealer = np.full(count, n - 1, dtype=np.int8)
    frames = []
    for decision, take, throw in decisions(situation):
        mine = per_seat[0]
        # the dispatcher's rule: a subclass that redefines draw is asked draw, not the plan
        planning = Dispatch([mine] * n, n).has("draw_with_plan", standing_for=("draw",))
        forced = (_ForcedFirstTurnPlanning if planning else _ForcedFirstTurn)(mine, take, throw)
        dispatch = Dispatch([forced, *per_seat[1:]], n)
        a = play_rounds(config, dispatch, decks.copy(), situation.round_no, dealer, units,
                        entropy, STREAM_ODDS, buried=buried)
        frames.append(pl.DataFrame({
            "decision": decision, "deal_id": units,
            "out_this_turn": (a.went_out == 0) & (a.out_turn == 0),
            "out_first": a.went_out == 0,
            "penalty": a.penalties[:, 0].astype(np.int32),
            "capped": a.capped,
        }))
    return pl.concat(frames)


def describe_odds(config: R.FiveCrownsConfig, question: OddsQuestion) -> str:
    """The heading line, with the exact chances of going out this turn."""
    s = read_question(question, config.n_players)
    exact = exact_out_chance(s)
    top = "unknown" if s.top is None else R.format_card(s.top)
    take = "" if exact["take"] is None else f"take {exact['take']:.4f}, "
    seen = f", seen {R.format_cards(s.seen)}" if s.seen else ""
    chance = (f"exact P(out this turn, best discard): {take}draw {exact['draw']:.4f}"
              if can_go_out(s) else "I cannot go out this turn whatever I draw (exact)")
    return (f"{config.n_players} players, round {s.round_no} ({R.RANK_CODES[s.wild]}s "
            f"wild), hand {R.format_cards(s.hand)}, discard {top}{seen}; {chance}; taking the "
            "discard or drawing from the stock on the same deals:")


def can_go_out(situation: Situation) -> bool:
    """Whether some draw lets me go out this turn (else every 'out this turn' figure is 0)."""
    return any(exact_out_chance(situation).values())


def exact_rows(config: R.FiveCrownsConfig, question: OddsQuestion) -> list[dict]:
    """The exact chances as rows of the odds table (an interval of zero width, n = the
    unseen cards they weigh)."""
    s = read_question(question, config.n_players)
    if not can_go_out(s):
        return []  # rows of zeros: the heading says it
    exact = exact_out_chance(s)
    n_unseen = int(s.unseen().sum())
    return [{"decision": d, "metric": EXACT_LABEL, "value": p, "low": p,
             "high": p, "n": 1 if d == "take" else n_unseen}
            for d, p in exact.items() if p is not None]


def odds_metrics(config: R.FiveCrownsConfig, question: OddsQuestion
                 ) -> tuple[tuple[str, Metric], ...]:
    """(decision, metric) pairs of ``tapisvert odds five-crowns``, each on that decision's
    rows: the decisions of :func:`decisions` for this question; P(out this turn) only when
    some draw makes it possible."""
    situation = read_question(question, config.n_players)
    metrics = [rate("p_out_first", "P(out before every opponent)", pl.col("out_first")),
               mean("penalty", PENALTY_LABEL, pl.col("penalty"))]
    if can_go_out(situation):
        metrics.insert(0, rate("p_out_now", "P(out this turn)", pl.col("out_this_turn")))
    return tuple((decision, m) for decision, _, _ in decisions(situation) for m in metrics)


def odds_verdict(config: R.FiveCrownsConfig, question: OddsQuestion, table: pl.DataFrame
                 ) -> str:
    """One line: the decision with the least mean penalty, against drawing (paired)."""
    penalty = table.filter(pl.col("metric") == PENALTY_LABEL)
    alone = penalty.filter(~pl.col("decision").str.contains(" - ", literal=True))
    best = alone.sort("value", pl.col("decision") == "take").row(0, named=True)  # name the throw
    if best["decision"] == "draw":
        return (f"Verdict: draw from the stock (my penalty at the round's end "
                f"{best['value']:.2f} on average, less than after any take).")
    paired = penalty.filter(pl.col("decision") == f"{best['decision']} - draw").row(0, named=True)
    sure = "" if paired["high"] < 0 else " (the interval covers 0: not significant)"
    return (f"Verdict: {best['decision']} (my penalty at the round's end {best['value']:.2f} "
            f"on average, {paired['value']:+.2f} [{paired['low']:+.2f}, {paired['high']:+.2f}] "
            f"against drawing on the same deals{sure}).")
