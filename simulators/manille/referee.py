"""Manille coincée referee: a plain, one-deal-at-a-time replay of recorded games.

Written from ``RULINGS.md`` (MA-1..MA-6) and the French rule text only, not
from the engine or the shared trick kernel: lists of card integers, no
bitmasks, no numpy. It replays a :class:`~simulators.manille.rules.DealRecord`
and returns what happened, or raises :class:`RuleViolation` naming the first
move that breaks a ruling.

Conventions: seats 0..3 clockwise, partners face to face (0 & 2, 1 & 3);
Manille turns counter-clockwise, so the seat after ``s`` is ``(s - 1) % 4``;
a card is ``4 * rank + suit`` with rank 0 (the 10) strongest; a trick is a
list of ``(seat, card)`` pairs in the order played.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from simulators.core import rulings
from simulators.core.rulings import RuleViolation
from simulators.manille.rules import (
    CONTRE,
    CONTRE_FACTOR,
    N_CARDS,
    N_SEATS,
    N_SUITS,
    N_TRICKS,
    NO_CONTRE,
    PASS_TO_PARTNER,
    SANS_ATOUT,
    SANS_ATOUT_FACTOR,
    SUIT_CODES,
    SURCONTRE,
    THRESHOLD,
    TRICK_POINT,
    DealRecord,
    GameRecord,
    ManilleConfig,
    format_card,
    format_cards,
    rank_of,
    suit_of,
)
from simulators.manille.rules import card_points as _one_card_points


def team_of(seat: int) -> int:
    """Team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def _right_of(seat: int) -> int:
    """The seat on the right: the next one counter-clockwise (MA-2, MA-5)."""
    return (seat - 1) % N_SEATS


# ---------------------------------------------------------------------------
# Cards, tricks and points (MA-1, MA-5, MA-6)
# ---------------------------------------------------------------------------


def card_points(cards: Iterable[int]) -> int:
    """Sum of the card points of ``cards`` (MA-1)."""
    return sum(_one_card_points(c) for c in cards)


def _winning_position(cards: Sequence[int], trump: int) -> int:
    """Position of the winning card among cards in play order (MA-5)."""
    trumps = [i for i, c in enumerate(cards) if trump != SANS_ATOUT and suit_of(c) == trump]
    if trumps:
        return min(trumps, key=lambda i: rank_of(cards[i]))  # the strongest trump
    led = suit_of(cards[0])
    followers = [i for i, c in enumerate(cards) if suit_of(c) == led]
    return min(followers, key=lambda i: rank_of(cards[i]))  # else the strongest of the led suit


def trick_winner(trick: Sequence[tuple[int, int]], trump: int) -> int:
    """Seat that holds the trick: the strongest trump, else the strongest card of the led suit."""
    return trick[_winning_position([c for _, c in trick], trump)][0]


def legal_plays(hand: Iterable[int], trick: Sequence[tuple[int, int]], seat: int, trump: int,
                sans_atout_must_beat: bool = False) -> list[int]:
    """Cards of ``hand`` that ``seat`` may play into ``trick`` (MA-5), ascending."""
    hand = sorted(hand)
    if not trick:
        return hand  # the leader plays anything
    led = suit_of(trick[0][1])
    master_seat, master = trick[_winning_position([c for _, c in trick], trump)]
    opponent_holds = team_of(master_seat) != team_of(seat)  # who holds it now, not who led
    followers = [c for c in hand if suit_of(c) == led]
    if trump == SANS_ATOUT:
        # MA-5 sans atout: follow suit or discard; the option keeps the duty to beat.
        if followers and opponent_holds and sans_atout_must_beat:
            beating = [c for c in followers if rank_of(c) < rank_of(master)]
            if beating:
                return beating
        return followers or hand
    if followers:
        # MA-5: follow suit; beat an opponent who holds the trick with a led-suit card.
        if opponent_holds and suit_of(master) == led:
            beating = [c for c in followers if rank_of(c) < rank_of(master)]
            if beating:
                return beating
        return followers
    if not opponent_holds:
        return hand  # MA-5: the partner holds the trick, a void player plays anything
    trumps = [c for c in hand if suit_of(c) == trump]
    if suit_of(master) == trump:
        # MA-5: an opponent has trumped: overtrump if you can, else discard
        # anything (no under-trumping duty).
        over = [c for c in trumps if rank_of(c) < rank_of(master)]
        return over or hand
    return trumps or hand  # MA-5: an opponent holds with the led suit: trump if you can


def why_illegal(hand: Iterable[int], trick: Sequence[tuple[int, int]], seat: int, trump: int,
                c: int, sans_atout_must_beat: bool = False) -> str:
    """Human-readable reason why ``c`` is not a legal play for ``seat`` (MA-5)."""
    hand = sorted(hand)
    if c not in hand:
        return "does not hold that card"
    legal = legal_plays(hand, trick, seat, trump, sans_atout_must_beat)
    led = suit_of(trick[0][1])
    master_seat, master = trick[_winning_position([x for _, x in trick], trump)]
    holder = f"seat {master_seat} holds the trick with {format_card(master)}"
    legal_suit = suit_of(legal[0])
    if legal_suit == led and suit_of(c) == led:
        reason = f"must beat {format_card(master)} ({holder}, an opponent)"
    elif legal_suit == led:
        reason = f"must follow {SUIT_CODES[led]}"
    elif suit_of(master) == trump:
        reason = f"cannot follow {SUIT_CODES[led]} and must overtrump ({holder}, an opponent)"
    else:
        reason = (f"cannot follow {SUIT_CODES[led]} and must trump {SUIT_CODES[trump]} "
                  f"({holder}, an opponent)")
    return f"{reason} (legal: {format_cards(legal)})"


def team_points(tricks: Sequence[Sequence[int]], winners: Sequence[int]) -> tuple[int, int]:
    """Each team's points: 1 per trick won plus the cards in it (MA-6)."""
    points = [0, 0]
    for cards, seat in zip(tricks, winners, strict=True):
        points[team_of(seat)] += TRICK_POINT + card_points(cards)
    return points[0], points[1]


def deal_score(points: Sequence[int], trump: int, contre_level: int) -> tuple[int, int]:
    """Score of each team for a deal (MA-6).

    The team above 34 scores its total minus 34 (34-34: nothing), doubled in
    sans atout, and doubled by a contre or quadrupled by a surcontre whichever
    team wins; the multipliers multiply.
    """
    factor = CONTRE_FACTOR[contre_level] * (SANS_ATOUT_FACTOR if trump == SANS_ATOUT else 1)
    return tuple(max(p - THRESHOLD, 0) * factor for p in points)


# ---------------------------------------------------------------------------
# Dealing, trump and contre (MA-2, MA-3, MA-4)
# ---------------------------------------------------------------------------


def _is_card(c) -> bool:
    """Whether ``c`` is a card index 0..31 (numpy integers accepted)."""
    return rulings.is_index(c, N_CARDS)


def first_dealer(dealer_draw: Sequence[int]) -> int:
    """Seat of the first dealer: each draws a card, the strongest rank deals (MA-2).

    The 10 is the strongest, suit ignored; tied players draw again in seat
    order; an exhausted pile leaves the lowest tied seat.
    """
    return rulings.first_dealer(dealer_draw, N_SEATS, rank_of, "MA-2")


def receivers(dealer: int) -> list[int]:
    """Seats in dealing order: counter-clockwise from the dealer's right, the dealer last."""
    return rulings.seat_order(dealer - 1, N_SEATS, direction=-1)


def deal_hands(dealer: int, deck_after_cut: Sequence[int],
               packets: Sequence[int] = (4, 4)) -> list[list[int]]:
    """Each seat's 8 cards in the order received (MA-2)."""
    hands: list[list[int]] = [[] for _ in range(N_SEATS)]
    pos = 0
    for size in packets:  # every player receives a packet, then every player the next
        for seat in receivers(dealer):
            hands[seat].extend(deck_after_cut[pos:pos + size])
            pos += size
    return hands


@dataclass(frozen=True)
class Bidding:
    """Who chose what, and the contre level (MA-3, MA-4)."""

    chooser: int
    trump: int
    contre_level: int
    contre_by: int  # seat that said contre, else -1
    surcontre_by: int  # seat that said surcontre, else -1


def read_bidding(record: DealRecord, config: ManilleConfig) -> Bidding:
    """The chooser, trump and contre level of a record, checked (MA-3, MA-4)."""
    dealer, partner = record.dealer, (record.dealer + 2) % N_SEATS
    choice = list(record.choice)
    if not choice:
        raise RuleViolation("MA-3", "no trump choice recorded")
    first = choice[0]
    if isinstance(first, bool) or first not in range(PASS_TO_PARTNER + 1):
        raise RuleViolation("MA-3", f"dealer's choice {first!r} is not a suit 0..3, sans atout "
                                    f"({SANS_ATOUT}) or pass ({PASS_TO_PARTNER})")
    if first != PASS_TO_PARTNER:
        if len(choice) != 1:
            raise RuleViolation("MA-3", "the dealer named the trump, yet his partner chose too")
        chooser, trump = dealer, first
    else:
        if len(choice) != 2:
            raise RuleViolation("MA-3", "the dealer passed: his partner must name one choice")
        trump = choice[1]
        allowed = range(N_SUITS + (1 if config.partner_may_sans_atout else 0))
        if isinstance(trump, bool) or trump not in allowed:
            raise RuleViolation("MA-3", f"the partner named {trump!r}; he must name a suit 0..3"
                                        + (" or sans atout (4)" if config.partner_may_sans_atout
                                           else " (partner_may_sans_atout is off)"))
        chooser = partner

    # MA-4: the opponents may contre, the dealer's right first; then the taking
    # team may surcontre, the chooser first.
    level, contre_by, surcontre_by = NO_CONTRE, -1, -1
    contre_by = _first_yes(record.contre, [_right_of(dealer), (dealer + 1) % N_SEATS], "contre")
    if contre_by >= 0:
        level = CONTRE
        surcontre_by = _first_yes(record.surcontre, [chooser, (chooser + 2) % N_SEATS],
                                  "surcontre")
        if surcontre_by >= 0:
            level = SURCONTRE
    elif record.surcontre:
        raise RuleViolation("MA-4", "surcontre answers recorded without a contre")
    return Bidding(chooser, trump, level, contre_by, surcontre_by)


def _first_yes(answers: Sequence[bool], asked: list[int], what: str) -> int:
    """Seat of the first ``True`` among answers of the seats ``asked`` in order, else -1."""
    answers = list(answers)
    for i, seat in enumerate(asked):
        if i >= len(answers):
            raise RuleViolation("MA-4", f"{what}: seat {seat} was not asked")
        if not isinstance(answers[i], bool):
            raise RuleViolation("MA-4", f"{what}: answer {answers[i]!r} is not true or false")
        if answers[i]:
            if i + 1 != len(answers):
                raise RuleViolation("MA-4", f"{what}: answers recorded after seat {seat} said it")
            return seat
    if len(answers) != len(asked):
        raise RuleViolation("MA-4", f"{what}: {len(answers)} answers for {len(asked)} players")
    return -1


# ---------------------------------------------------------------------------
# Replaying deals and games
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DealResult:
    """Everything a replayed deal produces."""

    dealer: int
    chooser: int
    trump: int  # 0..3 or SANS_ATOUT
    contre_level: int
    contre_by: int
    surcontre_by: int
    hands: tuple[tuple[int, ...], ...]  # each seat's 8 cards, sorted
    trick_winners: tuple[int, ...]  # seat winning each trick
    team_tricks: tuple[int, int]
    team_card_points: tuple[int, int]
    team_points: tuple[int, int]  # tricks + card points (MA-6)
    scores: tuple[int, int]  # MA-6


def _check_shape(record: DealRecord) -> None:
    """Raise on a malformed dealer, deck or cut."""
    if isinstance(record.dealer, bool) or record.dealer not in range(N_SEATS):
        raise RuleViolation("MA-2", f"dealer seat {record.dealer!r} is not in 0..3")
    rulings.check_cards(list(record.deck), "MA-1", "deck")
    if len(record.deck) != N_CARDS:
        raise RuleViolation("MA-1", f"deck has {len(record.deck)} cards, not {N_CARDS}")
    if isinstance(record.cut, bool) or record.cut not in range(1, N_CARDS):
        raise RuleViolation("MA-2", f"cut {record.cut!r} is not in 1..31")


def play_tricks(hands: Sequence[Iterable[int]], dealer: int, trump: int, plays: Sequence[int],
                sans_atout_must_beat: bool = False) -> tuple[list[list[int]], list[int]]:
    """Check every card played (MA-5); the tricks' cards in play order and their winners."""
    if len(plays) != N_SEATS * N_TRICKS:
        raise RuleViolation("MA-5", f"{len(plays)} cards played; {N_SEATS * N_TRICKS} expected")
    held = [set(h) for h in hands]
    leader = _right_of(dealer)  # MA-5: the player right of the dealer leads
    tricks: list[list[int]] = []
    winners: list[int] = []
    pos = 0
    for t in range(N_TRICKS):
        trick: list[tuple[int, int]] = []
        seat = leader
        for _ in range(N_SEATS):
            c = plays[pos]
            pos += 1
            if c not in held[seat] or c not in legal_plays(held[seat], trick, seat, trump,
                                                            sans_atout_must_beat):
                shown = format_card(c) if _is_card(c) else repr(c)
                raise RuleViolation("MA-5", f"trick {t + 1}, seat {seat} played {shown} but "
                                            + why_illegal(held[seat], trick, seat, trump, c,
                                                          sans_atout_must_beat))
            held[seat].remove(c)
            trick.append((seat, c))
            seat = _right_of(seat)  # MA-5: counter-clockwise
        leader = trick_winner(trick, trump)  # the winner leads the next trick
        tricks.append([c for _, c in trick])
        winners.append(leader)
    return tricks, winners


def replay_deal(record: DealRecord, config: ManilleConfig) -> DealResult:
    """Replay one recorded deal, raising RuleViolation at the first broken ruling."""
    _check_shape(record)
    deck = rulings.cut(record.deck, record.cut)  # MA-2
    hands = deal_hands(record.dealer, deck, config.packets)
    bidding = read_bidding(record, config)
    tricks, winners = play_tricks(hands, record.dealer, bidding.trump, list(record.plays),
                                  config.sans_atout_must_beat)
    tricks_won = [0, 0]
    cards_won = [0, 0]
    for cards, seat in zip(tricks, winners, strict=True):
        tricks_won[team_of(seat)] += 1
        cards_won[team_of(seat)] += card_points(cards)
    points = team_points(tricks, winners)
    return DealResult(
        dealer=record.dealer, chooser=bidding.chooser, trump=bidding.trump,
        contre_level=bidding.contre_level, contre_by=bidding.contre_by,
        surcontre_by=bidding.surcontre_by, hands=tuple(tuple(sorted(h)) for h in hands),
        trick_winners=tuple(winners), team_tricks=(tricks_won[0], tricks_won[1]),
        team_card_points=(cards_won[0], cards_won[1]), team_points=points,
        scores=deal_score(points, bidding.trump, bidding.contre_level),
    )


@dataclass(frozen=True)
class GameResult:
    """Everything a replayed game produces."""

    first_dealer: int
    deals: tuple[DealResult, ...]
    totals: tuple[int, int]
    winner: int  # team 0 or 1


def replay_game(record: GameRecord) -> GameResult:
    """Replay a whole game: first dealer, dealer rotation, target (MA-2, MA-6)."""
    config = record.config
    dealer = first_dealer(record.dealer_draw)
    first = dealer
    totals = [0, 0]
    results: list[DealResult] = []
    for i, deal in enumerate(record.deals):
        if max(totals) >= config.target:
            raise RuleViolation("MA-6", f"deal {i + 1} recorded after a team reached "
                                        f"{config.target}")
        if deal.dealer != dealer:
            raise RuleViolation("MA-2", f"deal {i + 1} dealt by seat {deal.dealer!r}, expected "
                                        f"seat {dealer} (the deal passes counter-clockwise)")
        result = replay_deal(deal, config)
        results.append(result)
        totals[0] += result.scores[0]
        totals[1] += result.scores[1]
        dealer = _right_of(dealer)
    if max(totals) < config.target:
        raise RuleViolation("MA-6", f"game ends at {totals[0]}-{totals[1]}, before the target "
                                    f"{config.target}")
    return GameResult(first_dealer=first, deals=tuple(results), totals=(totals[0], totals[1]),
                      winner=0 if totals[0] >= config.target else 1)
