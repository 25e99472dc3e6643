"""Five Crowns referee: a plain, one-round-at-a-time replay of recorded games.

This module is written from ``RULINGS.md`` (FC-1..FC-8) and the French rule
text only. It is deliberately simple (lists and tuples of card kinds, no
bitmasks, no numpy) so that it can cross-check the vectorized engine and the
fast meld solver: replay a :class:`~simulators.five_crowns.rules.RoundRecord`
and compare the result, or catch the first move that breaks a ruling
(:class:`RuleViolation`).

Conventions: seats 0..n-1 clockwise, "left of X" is ``(X + 1) % n``; decks,
stocks and reshuffled piles are listed top first; a card is a canonical kind
0..55 (``11 * suit + rank - 3``, 55 the joker), see
:mod:`simulators.five_crowns.rules`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from numbers import Integral

from simulators.core.rulings import RuleViolation
from simulators.five_crowns.rules import (
    JOKER,
    MIN_MELD,
    N_KINDS,
    N_RANKS,
    N_ROUNDS,
    N_SUITED,
    PLAYER_COUNTS,
    SOLITAIRE_HANDS,
    FiveCrownsConfig,
    RoundRecord,
    SolitaireRecord,
    cards_dealt,
    format_card,
    format_cards,
    is_wild,
    penalty,
    rank_of,
    suit_of,
    suited,
    wild_rank,
)

# ---------------------------------------------------------------------------
# The deck (FC-1)
# ---------------------------------------------------------------------------


def full_deck() -> list[int]:
    """The 116 cards as canonical kinds, sorted: 2 of each suited kind, 6 jokers (FC-1)."""
    return sorted([k for k in range(N_SUITED) for _ in range(2)] + [JOKER] * 6)


_FULL_DECK = Counter(full_deck())


def _is_kind(k) -> bool:
    """Whether ``k`` is a canonical kind 0..55 (numpy integers accepted, bools not)."""
    return isinstance(k, Integral) and not isinstance(k, bool) and 0 <= k < N_KINDS


def _check_deck(deck: Sequence[int]) -> None:
    """Raise unless ``deck`` is the 116-card multiset of canonical kinds (FC-1)."""
    for k in deck:
        if not _is_kind(k):
            raise RuleViolation("FC-1", f"deck holds {k!r}, not a canonical kind 0..55")
    counts = Counter(int(k) for k in deck)
    if counts != _FULL_DECK:
        wrong = sorted((counts - _FULL_DECK) + (_FULL_DECK - counts))
        raise RuleViolation("FC-1", f"deck has {len(deck)} cards and is not 2 of each suited "
                                    f"kind + 6 jokers (wrong counts: {format_cards(wrong)})")


# ---------------------------------------------------------------------------
# Melds (FC-4)
# ---------------------------------------------------------------------------


def is_book(kinds: Sequence[int], wild: int) -> bool:
    """3+ cards of one rank, twins allowed, wilds standing for any card (FC-4)."""
    if len(kinds) < MIN_MELD:
        return False
    ranks = {rank_of(k) for k in kinds if not is_wild(k, wild)}
    return len(ranks) <= 1  # all wilds is a meld too (FC-4)


def is_run(kinds: Sequence[int], wild: int) -> bool:
    """3+ consecutive ranks of one suit, 3..K, no wrap, one card per rank (FC-4)."""
    if not MIN_MELD <= len(kinds) <= N_RANKS:
        return False
    naturals = [k for k in kinds if not is_wild(k, wild)]
    if not naturals:
        return True  # a meld of wilds alone (FC-4)
    if len({suit_of(k) for k in naturals}) != 1:
        return False
    ranks = [rank_of(k) for k in naturals]
    if len(set(ranks)) != len(ranks):
        return False  # never two cards standing for the same rank
    # The wilds fill the gaps and extend the ends; the whole run of len(kinds)
    # consecutive ranks must fit in 3..K (no wrap), so the naturals' span must
    # not exceed the run's length (len <= 11 was checked above).
    return max(ranks) - min(ranks) + 1 <= len(kinds)


def is_meld(kinds: Sequence[int], wild: int) -> bool:
    """A book or a run (FC-4)."""
    return is_book(kinds, wild) or is_run(kinds, wild)


def _without(cards: tuple[int, ...], removed: Sequence[int]) -> tuple[int, ...]:
    """``cards`` (sorted) minus one copy of each card in ``removed``."""
    rest = list(cards)
    for k in removed:
        rest.remove(k)
    return tuple(rest)


def _book_options(first: int, related: tuple[int, ...]) -> set[tuple[tuple[int, ...], int]]:
    """``(other naturals, wilds)`` making a book with natural ``first`` (FC-4).

    Any sub-multiset of the other naturals of its rank (twins allowed), and
    just enough wilds to reach 3 cards.
    """
    same_rank = [k for k in related if rank_of(k) == rank_of(first)]
    options = set()
    for use in product((True, False), repeat=len(same_rank)):
        others = tuple(k for k, u in zip(same_rank, use, strict=True) if u)
        options.add((others, max(0, MIN_MELD - 1 - len(others))))
    return options


def _run_options(first: int, related: tuple[int, ...]) -> set[tuple[tuple[int, ...], int]]:
    """``(other naturals, wilds)`` making a run with ``first``, the lowest of its suit (FC-4).

    The run's naturals are ``first`` and at most one card of each higher rank
    of its suit; the wilds fill the gaps and pad the run to 3 cards. A natural
    inside the span may be left out for a wild (it may serve in a book).
    """
    rank, suit = rank_of(first), suit_of(first)
    higher = sorted({rank_of(k) for k in related if suit_of(k) == suit and rank_of(k) > rank})
    options = {((), MIN_MELD - 1)}  # `first` and two wilds
    for i, top in enumerate(higher):
        # `top` is the run's highest natural; choose which of the ranks in between join.
        between = higher[:i]
        span = top - rank + 1
        for use in product((True, False), repeat=len(between)):
            ranks = [r for r, u in zip(between, use, strict=True) if u] + [top]
            wilds = max(span, MIN_MELD) - 1 - len(ranks)
            options.add((tuple(suited(r, suit) for r in ranks), wilds))
    return options


@lru_cache(maxsize=65536)
def _meld_options(first: int, related: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
    """Every ``(other naturals, wilds)`` completing a meld around natural ``first``.

    ``related`` are the other naturals of its rank or suit (no other card can
    share a meld with it), ``first`` being the lowest of its suit. The melds
    with most naturals come first, to find zero-penalty hands sooner.
    """
    options = _run_options(first, related) | _book_options(first, related)
    return sorted(options, key=lambda o: (-len(o[0]), o[1], o[0]))


def _leftover_wilds_cost(n_left: int, wild_costs: tuple[int, ...], melded: bool) -> int:
    """Penalty of the ``n_left`` cheapest wilds that no meld took.

    Three or more form a meld of wilds alone (FC-4). One or two join any
    existing meld: a book takes any number of wilds, a run of 10 or fewer
    cards grows at an end, and a longer run splits in two runs of 3+ cards
    (e.g. 3..7 and 8..K) one of which then grows.
    """
    if n_left >= MIN_MELD or melded:
        return 0
    return sum(wild_costs[:n_left])


@lru_cache(maxsize=4096)
def _solve(naturals: tuple[int, ...], wild_costs: tuple[int, ...], wild: int):
    """Exact least penalty and its plan for sorted ``naturals`` plus wilds (FC-4, FC-5).

    ``wild_costs`` are the wilds' penalties, cheapest first. Returns
    ``(penalty, plan)`` where ``plan`` is a tuple of ``(naturals, n_wilds)``
    melds. Any arrangement can be rewritten, at no extra penalty, so that each
    meld holding naturals uses only the wilds it needs (gaps, 3-card minimum)
    and the other wilds are pooled (:func:`_leftover_wilds_cost`). The wilds
    are interchangeable in melds, so the cheapest ones stay in hand.
    """
    memo: dict[tuple[tuple[int, ...], int, bool], tuple[int, tuple]] = {}

    def best(cards: tuple[int, ...], n_wilds: int, melded: bool) -> tuple[int, tuple]:
        """Least penalty of ``cards`` (naturals) with ``n_wilds`` wilds still free."""
        if not cards:
            return _leftover_wilds_cost(n_wilds, wild_costs, melded), ()
        key = (cards, n_wilds, melded)
        if key in memo:
            return memo[key]
        first, rest = cards[0], cards[1:]
        # Either `first` stays in hand...
        cost, plan = best(rest, n_wilds, melded)
        result = (cost + penalty(first, wild), plan)
        # ...or it sits in a meld with some of the other naturals and wilds.
        related = tuple(k for k in rest
                        if rank_of(k) == rank_of(first) or suit_of(k) == suit_of(first))
        for others, wilds in _meld_options(first, related):
            if result[0] == 0:
                break  # nothing beats zero
            if wilds > n_wilds:
                continue
            cost, plan = best(_without(rest, others), n_wilds - wilds, True)
            if cost < result[0]:
                result = (cost, (((first, *others), wilds), *plan))
        memo[key] = result
        return result

    return best(naturals, len(wild_costs), False)


def _split(kinds: Sequence[int], wild: int) -> tuple[tuple[int, ...], list[int]]:
    """Sorted naturals, and the wilds cheapest first (FC-4)."""
    for k in kinds:
        if not _is_kind(k):
            raise ValueError(f"{k!r} is not a canonical kind 0..55 (use rules.kind_of on ids)")
    naturals = tuple(sorted(int(k) for k in kinds if not is_wild(k, wild)))
    wilds = sorted((int(k) for k in kinds if is_wild(k, wild)),
                   key=lambda k: (penalty(k, wild), k))
    return naturals, wilds


def min_penalty(kinds: Sequence[int], wild: int) -> int:
    """Least total penalty of the unmelded cards over every arrangement (FC-4, FC-5)."""
    naturals, wilds = _split(kinds, wild)
    return _solve(naturals, tuple(penalty(k, wild) for k in wilds), wild)[0]


def best_arrangement(kinds: Sequence[int], wild: int) -> tuple[list[list[int]], list[int]]:
    """An arrangement reaching :func:`min_penalty`: ``(melds, unmelded)`` (FC-4, FC-5)."""
    naturals, wilds = _split(kinds, wild)
    _, plan = _solve(naturals, tuple(penalty(k, wild) for k in wilds), wild)
    free_wilds = list(reversed(wilds))  # most expensive first: they go into melds
    melds, used, unmelded_wilds = [], [], []
    for meld_naturals, n_wilds in plan:
        melds.append(list(meld_naturals) + free_wilds[:n_wilds])
        del free_wilds[:n_wilds]
        used.extend(meld_naturals)
    if len(free_wilds) >= MIN_MELD:
        melds.append(free_wilds)  # FC-4: a meld of wilds alone
    elif free_wilds and melds:
        _absorb(melds, free_wilds, wild)  # one or two wilds join the melds
    else:
        unmelded_wilds = free_wilds
    unmelded = sorted(list(_without(naturals, used)) + unmelded_wilds)
    return melds, unmelded


def _absorb(melds: list[list[int]], wilds: list[int], wild: int) -> None:
    """Put one or two spare wilds into existing melds (see :func:`_leftover_wilds_cost`)."""
    for w in wilds:
        for i, meld in enumerate(melds):
            if is_meld(meld + [w], wild):
                melds[i] = meld + [w]
                break
        else:
            # Every meld is an 11-card run: split one into 3..7 and 8..K,
            # then the wild extends 3..7 as the 8.
            run = sorted(melds.pop(), key=lambda k: (is_wild(k, wild), k))
            naturals = [k for k in run if not is_wild(k, wild)]
            low = [k for k in naturals if rank_of(k) <= 7]
            high = [k for k in naturals if rank_of(k) > 7]
            spare = run[len(naturals):]
            n_low = 5 - len(low)
            melds.extend([low + spare[:n_low] + [w], high + spare[n_low:]])


def melds_fully(kinds: Sequence[int], wild: int) -> bool:
    """Whether all of ``kinds`` can be laid in melds (FC-3: may go out)."""
    return min_penalty(kinds, wild) == 0


# ---------------------------------------------------------------------------
# Dealing (FC-2)
# ---------------------------------------------------------------------------


def deal_round(deck: Sequence[int], n_players: int, round_no: int, dealer: int
               ) -> tuple[list[list[int]], int, list[int]]:
    """``(hands, first discard, stock top first)`` dealt from ``deck`` (FC-2).

    One card at a time clockwise from the dealer's left, ``cards_dealt``
    rounds; the next card starts the discard pile; the rest is the stock.
    """
    size = cards_dealt(round_no)
    hands: list[list[int]] = [[] for _ in range(n_players)]
    for i in range(n_players * size):
        hands[(dealer + 1 + i) % n_players].append(int(deck[i]))
    first_discard = int(deck[n_players * size])
    stock = [int(k) for k in deck[n_players * size + 1:]]
    return hands, first_discard, stock


# ---------------------------------------------------------------------------
# One round (FC-2..FC-6)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundResult:
    """Outcome of a replayed round.

    ``hands`` are the final hands (sorted kinds) per seat; ``went_out`` the
    seat that went out first (-1 if the round ended by ``max_turns``);
    ``penalties`` the round's score per seat (FC-5); ``reshuffles`` how many
    times the discard pile became the stock (FC-6).
    """

    dealer: int
    round_no: int
    wild: int
    hands: tuple[tuple[int, ...], ...]
    went_out: int
    turns_taken: tuple[int, ...]
    penalties: tuple[int, ...]
    reshuffles: int


def _check_round_header(record: RoundRecord, config: FiveCrownsConfig | None) -> None:
    """Raise unless the record's table, round and dealer make sense (FC-2, FC-7)."""
    if record.n_players not in PLAYER_COUNTS:
        raise RuleViolation("FC-2", f"{record.n_players!r} players; Five Crowns takes 2..7")
    if config is not None and config.n_players != record.n_players:
        raise RuleViolation("FC-2", f"record has {record.n_players} players, the table "
                                    f"{config.n_players}")
    if not (isinstance(record.round_no, Integral) and 1 <= record.round_no <= N_ROUNDS):
        raise RuleViolation("FC-2", f"round {record.round_no!r} is not 1..11")
    if not (isinstance(record.dealer, Integral) and 0 <= record.dealer < record.n_players):
        raise RuleViolation("FC-2", f"dealer {record.dealer!r} is not a seat")


def _check_turn_shape(t: int, turn) -> tuple[int, bool, int, bool]:
    """The turn tuple with plain types, or raise (FC-3)."""
    try:
        seat, took_discard, discard, went_out = turn
    except (TypeError, ValueError):
        raise RuleViolation("FC-3", f"turn {t}: {turn!r} is not (seat, took_discard, "
                                    "discard_kind, went_out)") from None
    if not isinstance(seat, Integral) or isinstance(seat, bool):
        raise RuleViolation("FC-3", f"turn {t}: seat {seat!r} is not a seat number")
    if not _is_kind(discard):
        raise RuleViolation("FC-3", f"turn {t}: discard {discard!r} is not a kind 0..55")
    return int(seat), bool(took_discard), int(discard), bool(went_out)


def replay_round(record: RoundRecord, config: FiveCrownsConfig | None = None) -> RoundResult:
    """Replay one round, checking every turn, and score it (FC-2..FC-6).

    With ``config``, a round where nobody goes out must last exactly
    ``config.max_turns`` turns per player, and nobody may go out after that.
    """
    _check_round_header(record, config)
    _check_deck(record.deck)
    n, dealer, round_no = record.n_players, record.dealer, record.round_no
    wild = wild_rank(round_no)  # FC-2
    hands, first_discard, stock = deal_round(record.deck, n, round_no, dealer)
    stock.reverse()  # the top of the stock is now stock[-1]
    pile = [first_discard]  # the discard pile, top last
    reshuffles = list(record.reshuffles)
    n_reshuffles = 0
    turns_taken = [0] * n
    limit = None if config is None else config.max_turns * n
    out_seat, out_turn = -1, -1
    expected = (dealer + 1) % n  # FC-2: the player left of the dealer starts

    for t, raw in enumerate(record.turns):
        seat, took_discard, discard, went_out = _check_turn_shape(t, raw)
        if out_seat >= 0 and t >= out_turn + n:
            raise RuleViolation("FC-5", f"turn {t}: extra turn by seat {seat}; after seat "
                                        f"{out_seat} went out each other player has one turn")
        if seat != expected:
            # FC-2: the dealer's left starts; then play goes clockwise (FC-3).
            raise RuleViolation("FC-2" if t == 0 else "FC-3",
                                f"turn {t}: seat {seat} plays, expected seat {expected}")
        if not stock:
            # FC-6: the whole discard pile, shuffled, becomes the stock.
            if n_reshuffles >= len(reshuffles):
                raise RuleViolation("FC-6", f"turn {t}: the stock is empty and the record has "
                                            "no reshuffle left")
            new_stock = reshuffles[n_reshuffles]
            if (not all(_is_kind(k) for k in new_stock)
                    or Counter(int(k) for k in new_stock) != Counter(pile)):
                raise RuleViolation("FC-6", f"turn {t}: reshuffle {n_reshuffles} "
                                            f"({format_cards(new_stock)}) is not the discard "
                                            f"pile ({format_cards(pile)})")
            n_reshuffles += 1
            stock = [int(k) for k in reversed(new_stock)]
            pile = [stock.pop()]  # its top card starts the new discard pile
        hand = hands[seat]
        # FC-3: take the top stock card or the top discard card...
        if took_discard:
            hand.append(pile.pop())
        elif stock:
            hand.append(stock.pop())
        else:
            raise RuleViolation("FC-6", f"turn {t}: seat {seat} draws from an empty stock")
        # ...then discard one card.
        if discard not in hand:
            raise RuleViolation("FC-3", f"turn {t}, seat {seat} discarded "
                                        f"{format_card(discard)} not in hand "
                                        f"({format_cards(sorted(hand))})")
        hand.remove(discard)
        pile.append(discard)
        turns_taken[seat] += 1
        if out_seat < 0:
            if limit is not None and t >= limit:
                raise RuleViolation("FC-5", f"turn {t}: the round should have ended after "
                                            f"{limit} turns (max_turns)")
            if went_out:
                # FC-3: going out needs every remaining card in melds.
                if not melds_fully(hand, wild):
                    raise RuleViolation("FC-3", f"turn {t}: seat {seat} goes out but "
                                                f"{format_cards(sorted(hand))} does not meld "
                                                f"(penalty {min_penalty(hand, wild)})")
                out_seat, out_turn = seat, t
        elif went_out != melds_fully(hand, wild):
            # FC-5: in the last turns, went_out tells whether the hand melds entirely.
            raise RuleViolation("FC-5", f"turn {t}: seat {seat} records went_out={went_out} "
                                        f"but {format_cards(sorted(hand))} "
                                        f"{'melds' if not went_out else 'does not meld'}")
        expected = (seat + 1) % n

    n_turns = len(record.turns)
    if out_seat >= 0 and n_turns < out_turn + n:
        missing = [(out_seat + i) % n for i in range(n_turns - out_turn, n)]
        raise RuleViolation("FC-5", f"seat {out_seat} went out at turn {out_turn} but seats "
                                    f"{missing} have not had their last turn")
    if out_seat < 0 and limit is not None and n_turns != limit:
        raise RuleViolation("FC-5", f"the round ends after {n_turns} turns with nobody out; "
                                    f"only max_turns ({limit} turns) may end it so")
    if n_reshuffles != len(reshuffles):
        raise RuleViolation("FC-6", f"the record has {len(reshuffles)} reshuffles but the "
                                    f"stock ran out {n_reshuffles} times")
    # FC-5: the player who went out scores 0, everyone else his least penalty.
    penalties = tuple(0 if s == out_seat else min_penalty(hands[s], wild) for s in range(n))
    return RoundResult(
        dealer=dealer,
        round_no=round_no,
        wild=wild,
        hands=tuple(tuple(sorted(h)) for h in hands),
        went_out=out_seat,
        turns_taken=tuple(turns_taken),
        penalties=penalties,
        reshuffles=n_reshuffles,
    )


# ---------------------------------------------------------------------------
# A game (FC-7)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    """Outcome of a replayed game: every round, totals per seat, winners (FC-7)."""

    rounds: tuple[RoundResult, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]


def game_winners(totals: Sequence[int]) -> tuple[int, ...]:
    """Seats with the lowest total; a tie shares the win (FC-7)."""
    best = min(totals)
    return tuple(s for s, t in enumerate(totals) if t == best)


def replay_game(config: FiveCrownsConfig, rounds: Sequence[RoundRecord],
                first_dealer: int) -> GameResult:
    """Replay rounds ``config.first_round``..11 in order and total them (FC-2, FC-7)."""
    n = config.n_players
    if not (isinstance(first_dealer, Integral) and 0 <= first_dealer < n):
        raise RuleViolation("FC-2", f"first dealer {first_dealer!r} is not a seat")
    expected_rounds = list(range(config.first_round, N_ROUNDS + 1))  # FC-7
    if len(rounds) != len(expected_rounds):
        raise RuleViolation("FC-7", f"{len(rounds)} rounds recorded, the game plays rounds "
                                    f"{config.first_round}..{N_ROUNDS}")
    results = []
    for i, (round_no, record) in enumerate(zip(expected_rounds, rounds, strict=True)):
        if record.round_no != round_no:
            raise RuleViolation("FC-7", f"record {i} is round {record.round_no}, expected "
                                        f"round {round_no}")
        dealer = (first_dealer + i) % n  # FC-2: the deal passes left
        if record.dealer != dealer:
            raise RuleViolation("FC-2", f"round {round_no} dealt by seat {record.dealer}, "
                                        f"expected seat {dealer}")
        results.append(replay_round(record, config))
    totals = tuple(sum(r.penalties[s] for r in results) for s in range(n))
    return GameResult(rounds=tuple(results), totals=totals, winners=game_winners(totals))


# ---------------------------------------------------------------------------
# Solitaire (FC-8)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SolitaireResult:
    """Outcome of a replayed solitaire: which hands closed and when (FC-8).

    ``closed_at_move[k]`` is 0 for a hand closed at the deal, ``m`` for one
    closed by the m-th move (1-based), -1 for one never closed.
    """

    closed: tuple[bool, ...]
    won: bool
    moves_used: int
    closed_at_move: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]


def solitaire_wild(hand: int) -> int:
    """Wild rank of solitaire hand 0..10: its size, 3..13 (FC-8)."""
    return wild_rank(hand + 1)


def deal_solitaire(deck: Sequence[int]) -> tuple[list[list[int]], list[int]]:
    """``(hands, stock top first)``: hand k takes the next k + 3 cards (FC-8)."""
    hands, pos = [], 0
    for k in range(SOLITAIRE_HANDS):
        size = cards_dealt(k + 1)
        hands.append([int(c) for c in deck[pos:pos + size]])
        pos += size
    return hands, [int(c) for c in deck[pos:]]


def replay_solitaire(record: SolitaireRecord) -> SolitaireResult:
    """Replay a solitaire game, checking every move (FC-8).

    A complete record either closes all 11 hands or uses the whole stock;
    stopping earlier with hands still open is a violation.
    """
    _check_deck(record.deck)
    hands, stock = deal_solitaire(record.deck)
    closed_at = [0 if melds_fully(h, solitaire_wild(k)) else -1 for k, h in enumerate(hands)]
    for m, move in enumerate(record.moves, start=1):
        try:
            k, discard = move
        except (TypeError, ValueError):
            raise RuleViolation("FC-8", f"move {m}: {move!r} is not (hand, discard_kind)"
                                ) from None
        if all(c >= 0 for c in closed_at):
            raise RuleViolation("FC-8", f"move {m}: every hand is already closed")
        if m > len(stock):
            raise RuleViolation("FC-8", f"move {m}: the stock ({len(stock)} cards) is exhausted")
        if not (isinstance(k, Integral) and 0 <= k < SOLITAIRE_HANDS):
            raise RuleViolation("FC-8", f"move {m}: hand {k!r} is not 0..10")
        if closed_at[k] >= 0:
            raise RuleViolation("FC-8", f"move {m}: hand {k} is closed")
        hand = hands[k]
        hand.append(stock[m - 1])
        if not _is_kind(discard) or discard not in hand:
            shown = format_card(discard) if _is_kind(discard) else repr(discard)
            raise RuleViolation("FC-8", f"move {m}: discard {shown} is not in hand {k} "
                                        f"({format_cards(sorted(hand))})")
        hand.remove(discard)  # dead for the rest of the game
        if melds_fully(hand, solitaire_wild(k)):
            closed_at[k] = m
    won = all(c >= 0 for c in closed_at)
    if not won and len(record.moves) < len(stock):
        raise RuleViolation("FC-8", f"the record stops after {len(record.moves)} moves with "
                                    f"{len(stock) - len(record.moves)} stock cards left and "
                                    "hands still open")
    return SolitaireResult(
        closed=tuple(c >= 0 for c in closed_at),
        won=won,
        moves_used=len(record.moves),
        closed_at_move=tuple(closed_at),
        hands=tuple(tuple(sorted(h)) for h in hands),
    )
