"""Five Crowns: constants, card notation, rule options and round records (FC-1..FC-8).

Card encoding (shared by the solver, the engine, the referee and the policies)
------------------------------------------------------------------------------
The deck has two identical sets of 58 cards (FC-1): 116 *physical* cards,
ids 0..115. A card's *kind* is what the rules see: ``kind = id % 58``, where
kinds 0..54 are suited, ``kind = 11 * suit + (rank - 3)`` with ranks 3..13
(11 = Jack, 12 = Queen, 13 = King) and suits 0 hearts ``H``, 1 diamonds ``D``,
2 clubs ``C``, 3 spades ``S``, 4 stars ``*``; kinds 55, 56, 57 are the set's
three jokers. ``JOKER = 55`` is the canonical joker kind: use
:func:`kind_of` to fold every joker onto it.

A hand, for meld solving, is a count vector over the 56 canonical kinds
(0..54 suited, 55 joker): at most 2 of a suited kind, at most 6 jokers.

Notation: rank (``3``..``10``, ``J``, ``Q``, ``K``) then suit letter, e.g.
``10H``, ``Q*``; ``JK`` is a joker. :func:`parse_card` returns a canonical
kind; decks and records use physical ids (:func:`format_card` accepts both).

Round ``k`` (1..11) deals ``k + 2`` cards and its wild rank is ``k + 2``
(3s wild in round 1 … Kings in round 11; FC-2). Jokers are always wild.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulators.core.options import RuleOptions, check_int

N_SUITS = 5
N_RANKS = 11  # 3..13
LOW_RANK, HIGH_RANK = 3, 13
N_SUITED = N_SUITS * N_RANKS  # 55
JOKER = 55
N_KINDS = 56  # canonical kinds: 55 suited + joker
SET_SIZE = 58
N_CARDS = 2 * SET_SIZE  # 116 (FC-1)
SUIT_CODES = "HDCS*"
SUIT_NAMES = ("hearts", "diamonds", "clubs", "spades", "stars")
RANK_CODES = {3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K"}
N_ROUNDS = 11  # FC-2
PLAYER_COUNTS = tuple(range(2, 8))  # 2..7

# FC-5 penalties
WILD_PENALTY = 20
JOKER_PENALTY = 50
MIN_MELD = 3  # FC-4: books and runs have 3 cards or more

SOLITAIRE_HANDS = 11  # FC-8: hands of 3..13 cards
SOLITAIRE_STOCK = N_CARDS - sum(range(3, 14))  # 28


def kind_of(card_id: int) -> int:
    """Canonical kind (0..55) of a physical card id (0..115)."""
    k = int(card_id) % SET_SIZE
    return JOKER if k >= N_SUITED else k


def suit_of(kind: int) -> int:
    """Suit 0..4 of a suited kind."""
    return kind // N_RANKS


def rank_of(kind: int) -> int:
    """Rank 3..13 of a suited kind."""
    return kind % N_RANKS + LOW_RANK


def suited(rank: int, suit: int) -> int:
    """Kind of a suited card."""
    return N_RANKS * suit + (rank - LOW_RANK)


def cards_dealt(round_no: int) -> int:
    """Cards dealt in round 1..11 (FC-2): 3..13."""
    return round_no + 2


def wild_rank(round_no: int) -> int:
    """The round's wild rank (FC-2): the number of cards dealt."""
    return round_no + 2


def is_wild(kind: int, wild: int) -> bool:
    """Jokers and cards of the wild rank are wild (FC-2, FC-4)."""
    return kind == JOKER or rank_of(kind) == wild


def penalty(kind: int, wild: int) -> int:
    """Penalty of one unmelded card (FC-5)."""
    if kind == JOKER:
        return JOKER_PENALTY
    if rank_of(kind) == wild:
        return WILD_PENALTY
    return rank_of(kind)


_CARD_RE = re.compile(r"^(10|[3-9JQK])([HDCS*])$")


def format_card(card: int) -> str:
    """Notation of a kind or physical id, e.g. ``10H``, ``Q*``, ``JK``."""
    if not 0 <= int(card) < N_CARDS:
        raise ValueError(f"card must be a kind 0..55 or an id 0..115, got {card!r}")
    kind = kind_of(card)
    if kind == JOKER:
        return "JK"
    return f"{RANK_CODES[rank_of(kind)]}{SUIT_CODES[suit_of(kind)]}"


def parse_card(text: str) -> int:
    """Canonical kind from notation (case-insensitive; stars also as ``E``)."""
    t = str(text).strip().upper().replace("E", "*") if str(text).strip().upper() != "JK" else "JK"
    if t == "JK":
        return JOKER
    match = _CARD_RE.match(t)
    if not match:
        raise ValueError(f"malformed card {text!r}: expected a rank 3-10, J, Q or K followed by "
                         "a suit H, D, C, S or * (stars), e.g. '10H', or JK for a joker")
    rank = {"J": 11, "Q": 12, "K": 13}.get(match.group(1)) or int(match.group(1))
    return suited(rank, SUIT_CODES.index(match.group(2)))


def parse_cards(text: str) -> list[int]:
    """Kinds from space- or comma-separated notation, rejecting impossible counts."""
    kinds = [parse_card(tok) for tok in re.split(r"[\s,]+", str(text).strip()) if tok]
    for k in set(kinds):
        limit = 6 if k == JOKER else 2
        if kinds.count(k) > limit:
            raise ValueError(f"{format_card(k)} appears {kinds.count(k)} times in {text!r}; "
                             f"the deck has {limit}")
    return kinds


def format_cards(cards) -> str:
    """Notation of a sequence of kinds or ids, space-separated."""
    return " ".join(format_card(c) for c in cards)


@dataclass(frozen=True)
class FiveCrownsConfig(RuleOptions):
    """Rule options of a Five Crowns table (RULINGS FC-1..FC-8).

    Parameters
    ----------
    n_players : 2..7.
    first_round : the round a game starts at (FC-7 option; 1 is the full game,
        6 the express variant: 8 cards, 8s wild).
    max_turns : safety bound on turns per player in one round; a round that
        reaches it ends with every hand scored, and is flagged ``capped``
        (policies that never go out).
    round_no : the round played by independent-round simulations (1..11;
        ``simulate_rounds``); whole games ignore it.
    """

    n_players: int = 4
    first_round: int = 1
    max_turns: int = 200
    round_no: int = 11

    def __post_init__(self) -> None:
        if isinstance(self.n_players, bool) or self.n_players not in PLAYER_COUNTS:
            raise ValueError(f"n_players must be 2..7 for Five Crowns, got {self.n_players!r}")
        check_int("first_round", self.first_round, 1, N_ROUNDS)
        check_int("round_no", self.round_no, 1, N_ROUNDS)
        check_int("max_turns", self.max_turns, 10, 10_000)


@dataclass(frozen=True)
class RoundRecord:
    """Everything needed to replay one round: the deck and every decision.

    Cards are canonical kinds (0..55): the two copies of a card are
    interchangeable for every rule, so records do not tell them apart.

    Attributes
    ----------
    n_players, round_no, dealer : who plays which round (FC-2).
    deck : the 116 kinds top first, as shuffled for this round. Dealing is
        one card at a time clockwise from the dealer's left, ``round_no + 2``
        times round; the next card starts the discard pile; the rest is the
        stock, top first (FC-2).
    turns : one ``(seat, took_discard, discard_kind, went_out)`` per turn in
        order, from the dealer's left (FC-3). After a player goes out, each
        other player's one last turn follows (FC-5), with ``went_out`` True
        when his whole hand melds after it.
    reshuffles : each time a player must draw and the stock is empty
        (FC-6), the whole discard pile is shuffled into a new stock whose top
        card is turned to start a new discard pile; this is that shuffled
        pile, top first, one tuple per reshuffle in order. The reshuffle
        happens at the start of the turn, before the draw choice.
    """

    n_players: int
    round_no: int
    dealer: int
    deck: tuple[int, ...]
    turns: tuple[tuple[int, bool, int, bool], ...]
    reshuffles: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class SolitaireRecord:
    """A solitaire game (FC-8): the deck and every move.

    ``deck`` (116 kinds, top first) deals hand 1 (3 cards, 3s wild) first,
    then hand 2 (4 cards) … hand 11 (13 cards, Kings wild); the last 28 are
    the stock. ``moves`` has one ``(hand, discard_kind)`` per stock card
    drawn, in order: the drawn card joins hand ``hand`` (0..10, not closed)
    and ``discard_kind`` leaves it for good. A hand closes as soon as all its
    cards meld, including at the deal.
    """

    deck: tuple[int, ...]
    moves: tuple[tuple[int, int], ...]
