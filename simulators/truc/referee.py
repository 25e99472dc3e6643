"""Truc referee: a plain, one-deal-at-a-time replay of recorded deals and matches.

Written from ``RULINGS.md`` (TR-1..TR-6) and the French rule text only, with
plain lists and integers (no bitmasks, no numpy), so that it can cross-check
the vectorized engine: replay a :class:`~simulators.truc.rules.DealRecord`
and compare every result, or stop at the first move that breaks a ruling
(:class:`RuleViolation`). It shares nothing with the engine but the card
encoding and the record types.

Conventions: seats 0 and 1; the non-dealer is ``1 - dealer``; a card is
``4 * rank + suit`` with rank 0 (Sept) the strongest; suits never matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from simulators.core.rulings import RuleViolation
from simulators.truc.rules import (
    ABANDONED,
    ACCEPT,
    ANSWER_NAMES,
    COUNTER,
    DEAL_SIZE,
    HAND_SIZE,
    MAX_HANDS,
    N_CARDS,
    N_TRICKS,
    NULL,
    PLAYED,
    REFUSE,
    REFUSED,
    START_STAKE,
    DealRecord,
    Proposal,
    TrucConfig,
    format_card,
    format_cards,
    rank_of,
)

# ---------------------------------------------------------------------------
# Tricks and deal resolution (TR-1, TR-3)
# ---------------------------------------------------------------------------


def trick_result(card_a: int, card_b: int) -> int | None:
    """0 if ``card_a`` wins, 1 if ``card_b`` wins, None if the ranks are equal (pourri)."""
    # TR-1: the order is by rank only, 7 8 A K Q J 10 9; TR-3: no duty to follow a suit
    if rank_of(card_a) < rank_of(card_b):
        return 0
    if rank_of(card_b) < rank_of(card_a):
        return 1
    return None  # TR-3: equal cards make a pourri trick


def resolve_deal(trick_winners: Sequence[int | None]) -> tuple[bool, int | None]:
    """(over, winner) after the tricks played so far; winner None while open or for a null deal.

    ``trick_winners`` holds each trick's winning seat in order, None for a
    pourri trick (TR-3).
    """
    w = list(trick_winners)
    if len(w) < 2:
        return False, None  # nobody can hold two tricks yet
    first, second = w[0], w[1]
    if first is not None and second is not None and first == second:
        return True, first  # two tricks won
    if (first is None) != (second is None):
        # one pourri trick goes to the winner of the other one: he holds two (TR-3)
        return True, first if first is not None else second
    if len(w) < 3:
        return False, None  # one trick each, or two pourri: the third decides
    third = w[2]
    if first is None:
        return True, third  # TR-3: two pourri go to the third's winner; three pourri: null deal
    if third is None:
        return True, first  # TR-3: a pourri (third) trick goes to the first trick's winner
    return True, third  # one trick each before: the third trick's winner holds two


# ---------------------------------------------------------------------------
# Stakes (TR-4, TR-5)
# ---------------------------------------------------------------------------


def proposal_stake(stake: int, proposer_score: int, target: int = 12) -> int:
    """The stake a proposal names: double, or what the proposer lacks to reach the target (TR-5)."""
    return min(2 * stake, target - proposer_score)


def can_propose(stake: int, proposer_score: int, target: int = 12) -> bool:
    """Whether a proposal would raise the stake (TR-5)."""
    return proposal_stake(stake, proposer_score, target) > stake


def is_banco(stake: int, proposed: int) -> bool:
    """A proposal of less than double the stake is a banco (TR-5)."""
    return proposed < 2 * stake


def counter_stake(stake: int, proposed: int, answerer_score: int, target: int = 12) -> int | None:
    """The counter-banco the answerer may name, or None where none is allowed (TR-5)."""
    lacks = target - answerer_score
    if is_banco(stake, proposed) and lacks > proposed:
        return lacks
    return None


def refusal_points(stake_before: int) -> int:
    """Points the proposer scores when his proposal is refused: the stake before it (TR-4)."""
    return stake_before


# ---------------------------------------------------------------------------
# Card call (TR-2)
# ---------------------------------------------------------------------------


def deal_hands(deck: Sequence[int], hand_no: int) -> tuple[list[int], list[int]]:
    """(non-dealer's, dealer's) cards of the ``hand_no``-th hand dealt from ``deck``."""
    start = DEAL_SIZE * hand_no
    return list(deck[start:start + HAND_SIZE]), list(deck[start + HAND_SIZE:start + DEAL_SIZE])


def card_call(calls: Sequence[bool], card_call_played: bool = True) -> tuple[int | None, int]:
    """(hand number played, or None if abandoned; number of call answers read) (TR-2)."""
    if not card_call_played:
        return 0, 0
    read = 0
    for hand_no in range(MAX_HANDS):
        if read >= len(calls):
            raise RuleViolation("TR-2", f"the card call of hand {hand_no} is missing")
        if not calls[read]:  # the non-dealer plays
            return hand_no, read + 1
        read += 1
        if read >= len(calls):
            raise RuleViolation("TR-2", f"the dealer's card call of hand {hand_no} is missing")
        if not calls[read]:  # the dealer plays
            return hand_no, read + 1
        read += 1
        # both ask: new hands if the stock can deal six more cards
        if DEAL_SIZE * (hand_no + 2) > N_CARDS:
            return None, read  # TR-2: abandoned, reshuffled, the other player deals
    raise AssertionError("unreachable: the stock runs short within MAX_HANDS")


# ---------------------------------------------------------------------------
# Replaying a deal
# ---------------------------------------------------------------------------


@dataclass
class ProposalResult:
    """One proposal as the referee understood it."""

    slot: int
    proposer: int
    stake_before: int
    proposed: int
    banco: bool
    answer: int
    counter: int = 0  # the counter-banco stake, 0 if none
    reply: int = -1


@dataclass
class DealResult:
    """Everything the referee derives from one deal record."""

    dealer: int
    hand_no: int | None = None  # hand played (0 = first dealt); None if abandoned
    hands: tuple[list[int], list[int]] | None = None  # (non-dealer, dealer) hands played
    tricks: list[tuple[int, int, int]] = field(default_factory=list)  # (leader, lead, reply)
    trick_winners: list[int | None] = field(default_factory=list)
    stakes: list[int] = field(default_factory=list)  # stake in force at each card played
    proposals: list[ProposalResult] = field(default_factory=list)
    stake: int = START_STAKE
    outcome: int = PLAYED
    winner: int | None = None
    points: int = 0
    deltas: tuple[int, int] = (0, 0)


def _answer_proposal(p: Proposal, proposer: int, stake: int, scores, config: TrucConfig,
                     result: DealResult) -> tuple[int, bool]:
    """Apply one proposal; returns (new stake, deal ended by a refusal)."""
    target = config.target
    if not can_propose(stake, scores[proposer], target):
        raise RuleViolation("TR-5", f"seat {proposer} at {scores[proposer]} cannot raise stake "
                            f"{stake}: the current stake already takes him to {target}")
    proposed = proposal_stake(stake, scores[proposer], target)
    answerer = 1 - proposer
    entry = ProposalResult(p.slot, proposer, stake, proposed, is_banco(stake, proposed), p.answer)
    result.proposals.append(entry)
    if p.answer == REFUSE:
        _end(result, REFUSED, proposer, refusal_points(stake))  # TR-4
        return stake, True
    if p.answer == ACCEPT:
        if p.reply != -1:
            raise RuleViolation("TR-5", "a reply is recorded but no counter-banco was made")
        return proposed, False  # TR-4: accepted, the stake is raised
    if p.answer != COUNTER:
        raise RuleViolation("TR-4", f"unknown answer {p.answer!r}")
    counter = counter_stake(stake, proposed, scores[answerer], target)
    if counter is None or not config.counter_banco:
        raise RuleViolation("TR-5", f"seat {answerer} at {scores[answerer]} may not counter a "
                            f"proposal of {proposed} from stake {stake}")
    entry.counter, entry.reply = counter, p.reply
    if p.reply == REFUSE:  # TR-5: the banco stake goes to the counter-proposer
        _end(result, REFUSED, answerer, proposed)
        return proposed, True
    if p.reply != ACCEPT:
        raise RuleViolation("TR-5", f"a counter-banco needs an accept or refuse reply, "
                            f"got {p.reply!r}")
    return counter, False


def _end(result: DealResult, outcome: int, winner: int | None, points: int) -> None:
    """Record how the deal ended and who scores what."""
    result.outcome, result.winner, result.points = outcome, winner, points
    if winner is not None:
        result.deltas = (points, 0) if winner == 0 else (0, points)


def replay_deal(record: DealRecord, config: TrucConfig | None = None) -> DealResult:
    """Replay one deal, checking every decision (TR-1..TR-5); raises RuleViolation."""
    config = config or TrucConfig()
    deck = list(record.deck)
    if sorted(deck) != list(range(N_CARDS)):
        raise RuleViolation("TR-1", "the deck is not the 32 cards once each")
    dealer = record.dealer
    if dealer not in (0, 1):
        raise RuleViolation("TR-6", f"dealer must be seat 0 or 1, got {dealer!r}")
    result = DealResult(dealer=dealer)
    hand_no, read = card_call(record.calls, config.card_call)  # TR-2
    if read != len(record.calls):
        raise RuleViolation("TR-2", f"{len(record.calls) - read} card-call answer(s) too many")
    if hand_no is None:
        if record.plays or record.proposals:
            raise RuleViolation("TR-2", "an abandoned deal has no play")
        _end(result, ABANDONED, None, 0)
        return result
    result.hand_no = hand_no
    non_dealer_cards, dealer_cards = deal_hands(deck, hand_no)
    result.hands = (list(non_dealer_cards), list(dealer_cards))
    hands = {1 - dealer: list(non_dealer_cards), dealer: list(dealer_cards)}
    scores = record.scores
    proposals = {p.slot: p for p in record.proposals}
    if len(proposals) != len(record.proposals):
        raise RuleViolation("TR-4", "two proposals before the same card")
    if [p.slot for p in record.proposals] != sorted(proposals):
        raise RuleViolation("TR-4", "proposals are not in play order")

    stake, leader, plays, slot = START_STAKE, 1 - dealer, list(record.plays), 0
    for _ in range(N_TRICKS):
        cards = []
        for position in range(2):
            player = leader if position == 0 else 1 - leader
            if slot in proposals:  # TR-4: before his card, the player may propose
                stake, ended = _answer_proposal(proposals.pop(slot), player, stake, scores,
                                                config, result)
                if ended:
                    _check_finished(plays, proposals, slot)
                    result.stake = stake
                    return result
            if not plays:
                raise RuleViolation("TR-3", f"the deal is not over but seat {player} plays no card")
            c = plays.pop(0)
            if c not in hands[player]:
                raise RuleViolation("TR-3", f"seat {player} plays {format_card(c)} not in hand "
                                    f"{format_cards(hands[player])}")
            hands[player].remove(c)  # TR-3: any card, no duty to follow
            cards.append(c)
            result.stakes.append(stake)
            slot += 1
        result.tricks.append((leader, cards[0], cards[1]))
        who = trick_result(cards[0], cards[1])
        winner = None if who is None else (leader if who == 0 else 1 - leader)
        result.trick_winners.append(winner)
        if winner is not None:
            leader = winner  # TR-3: the winner leads; after a pourri the same leader
        over, deal_winner = resolve_deal(result.trick_winners)
        if over:
            _check_finished(plays, proposals, slot)
            result.stake = stake
            if deal_winner is None:
                _end(result, NULL, None, 0)  # TR-3: three pourri tricks, no score
            else:
                _end(result, PLAYED, deal_winner, stake)
            return result
    raise AssertionError("unreachable: three tricks always end the deal")


def _check_finished(plays, proposals, slot) -> None:
    """The record holds nothing after the deal ended (TR-3, TR-4)."""
    if plays or proposals:
        raise RuleViolation("TR-3", f"the deal ended before card slot {slot} but the record "
                            f"goes on ({len(plays)} card(s), {len(proposals)} proposal(s))")


def describe(result: DealResult) -> str:
    """One-line account of a replayed deal (for messages)."""
    parts = [f"dealer {result.dealer}"]
    for (leader, a, b), w in zip(result.tricks, result.trick_winners, strict=True):
        parts.append(f"{leader}:{format_card(a)}-{format_card(b)}->{'P' if w is None else w}")
    for p in result.proposals:
        parts.append(f"s{p.slot} {p.proposer}:{p.stake_before}->{p.proposed} "
                     f"{ANSWER_NAMES[p.answer]}")
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# Manches and matches (TR-6)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchRecord:
    """A whole match: the first dealer and every deal in order (scores included)."""

    config: TrucConfig
    first_dealer: int
    deals: tuple[DealRecord, ...]


@dataclass
class MatchResult:
    """The referee's account of a match."""

    deals: list[DealResult]
    manche_winners: list[int]
    manche_scores: list[tuple[int, int]]
    winner: int


def replay_match(record: MatchRecord) -> MatchResult:
    """Replay a match deal by deal, checking scores, dealers and manche ends (TR-6)."""
    config = record.config
    scores = [0, 0]
    dealer = record.first_dealer
    wins = [0, 0]
    out = MatchResult([], [], [], -1)
    for i, deal in enumerate(record.deals):
        if max(wins) >= config.manches_to_win:
            raise RuleViolation("TR-6", f"deal {i} is played after the match was won")
        if deal.dealer != dealer:
            raise RuleViolation("TR-6", f"deal {i}: seat {deal.dealer} deals, expected {dealer}")
        if tuple(deal.scores) != tuple(scores):
            raise RuleViolation("TR-6", f"deal {i}: scores {deal.scores}, expected {scores}")
        result = replay_deal(deal, config)
        out.deals.append(result)
        scores = [scores[0] + result.deltas[0], scores[1] + result.deltas[1]]
        dealer = 1 - dealer  # TR-6 (and TR-2: after an abandoned deal the other player deals)
        if max(scores) >= config.target:
            winner = 0 if scores[0] >= config.target else 1  # one deal scores one player only
            wins[winner] += 1
            out.manche_winners.append(winner)
            out.manche_scores.append((scores[0], scores[1]))
            scores = [0, 0]
    if max(wins) < config.manches_to_win:
        raise RuleViolation("TR-6", f"the match stops at manches {wins}, nobody has "
                            f"{config.manches_to_win}")
    out.winner = wins.index(max(wins))
    return out
