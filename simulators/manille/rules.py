"""Manille coincée: constants, card notation, rule options and deal records (MA-1..MA-6).

Card encoding (the shared 32-card trick-taking encoding, see DESIGN.md)
----------------------------------------------------------------------
A card is an integer ``c = 4 * rank + suit`` in 0..31, rank-major, rank 0
the strongest (MA-1):

====  ==========  ======  ========  =========================
rank  card        points  notation  English aliases accepted
====  ==========  ======  ========  =========================
0     Dix         5       ``10``    ``T``
1     As          4       ``A``
2     Roi         3       ``R``     ``K``
3     Dame        2       ``D``     ``Q``
4     Valet       1       ``V``     ``J``
5     Neuf        0       ``9``
6     Huit        0       ``8``
7     Sept        0       ``7``
====  ==========  ======  ========  =========================

Suits: 0 pique ``P``, 1 cœur ``C``, 2 carreau ``K``, 3 trèfle ``T`` (the
symbols ♠♥♦♣ are accepted too). A card is written rank then suit: ``10P``
(the manille de pique), ``AC`` (the manillon de cœur), ``7T``. A hand is a
uint32 bitmask (bit ``c`` = card ``c``): within a suit the lowest set bit is
the strongest card. Sequences of cards (decks) are listed top first.

Seats are 0..3 numbered clockwise; partners sit face to face (0 & 2 against
1 & 3). Manille turns counter-clockwise (MA-2, MA-5): the *next* seat after
``s`` is ``(s - 1) % 4``, the seat on ``s``'s right.

The trump of a deal is a suit 0..3 or :data:`SANS_ATOUT` (4). The choice
actions of MA-3 are a suit 0..3, ``SANS_ATOUT`` (4) or
:data:`PASS_TO_PARTNER` (5, the dealer only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulators.core import cards32
from simulators.core.options import RuleOptions, check_bool, check_int, cut_weights
from simulators.core.tricks import Duty, Obligations

N_SUITS = 4
N_RANKS = 8
N_CARDS = 32
N_SEATS = 4
HAND_SIZE = 8  # MA-2: eight cards each
N_TRICKS = 8
RANK_CODES = ("10", "A", "R", "D", "V", "9", "8", "7")
RANK_NAMES = ("Dix", "As", "Roi", "Dame", "Valet", "Neuf", "Huit", "Sept")
RANK_ALIASES = {"T": "10", "K": "R", "Q": "D", "J": "V"}
SUIT_CODES, SUIT_NAMES, SUIT_SYMBOLS = cards32.FRENCH_SUITS  # P C K T, ♠ ♥ ♦ ♣

POINTS = (5, 4, 3, 2, 1, 0, 0, 0)  # MA-1, per rank
MANILLE, MANILLON = 0, 1  # MA-1: ranks of the 10 and the ace
CARD_POINTS_TOTAL = 60  # MA-1
TRICK_POINT = 1  # MA-6: each trick is worth 1 plus its cards
DEAL_POINTS = CARD_POINTS_TOTAL + N_TRICKS * TRICK_POINT  # MA-6: 68
THRESHOLD = 34  # MA-6: the team above 34 scores its total minus 34

SANS_ATOUT = 4  # MA-3: a trump value meaning "no trump suit"
PASS_TO_PARTNER = 5  # MA-3: the dealer's third choice
TRUMP_CODES = ("P", "C", "K", "T", "SA")
TRUMP_NAMES = ("pique", "cœur", "carreau", "trèfle", "sans atout")
CHOICE_NAMES = TRUMP_NAMES + ("passe",)
DECISIONS = ("P", "C", "K", "T", "SA", "pass")  # MA-3: the dealer's six choices, as named in tables

NO_CONTRE, CONTRE, SURCONTRE = 0, 1, 2  # MA-4 levels
CONTRE_NAMES = ("none", "contre", "surcontre")
CONTRE_FACTOR = (1, 2, 4)  # MA-6: contre x2, surcontre x4 instead
SANS_ATOUT_FACTOR = 2  # MA-6: sans atout doubles; multipliers multiply
TARGETS = (50, 100, 150)  # MA-6

# MA-5, the duty table (simulators.core.tricks reads it): follow suit; while an
# opponent holds the trick, beat his led-suit card, trump when void, overtrump
# his trump; unable to overtrump, discard anything (no under-trumping duty);
# while the partner holds it, only follow suit.
MA5_DUTIES = Obligations(follow=True, beat=Duty.OPPONENT_HOLDS, trump=Duty.OPPONENT_HOLDS,
                         overtrump=Duty.OPPONENT_HOLDS, undertrump=False)
# MA-5 sans atout: follow suit or discard, no duty to beat...
MA5_SANS_ATOUT_DUTIES = Obligations(follow=True, beat=Duty.NEVER, trump=Duty.NEVER,
                                    overtrump=Duty.NEVER, undertrump=False)
# ... unless the option sans_atout_must_beat keeps it (no trump: the trump duties are moot)
MA5_SANS_ATOUT_MUST_BEAT_DUTIES = Obligations(follow=True, beat=Duty.OPPONENT_HOLDS,
                                              trump=Duty.NEVER, overtrump=Duty.NEVER,
                                              undertrump=False)


# MA-1: rank 0 = Dix (the manille, strongest) … 7 = Sept; suits 0..3 P C K T
card, rank_of, suit_of = cards32.card, cards32.rank_of, cards32.suit_of


def card_points(c: int) -> int:
    """Points of one card (MA-1): 10 five, A four, R three, D two, V one."""
    return POINTS[rank_of(c)]


SUIT_MASK, RANK_MASK, ALL_CARDS = cards32.SUIT_MASK, cards32.RANK_MASK, cards32.ALL_CARDS


# Card index from its notation (``10P`` … ``7T``; case-insensitive).
parse_card = cards32.card_parser(
    RANK_CODES, SUIT_CODES, "a rank 10 A R D V 9 8 7 (or T K Q J) followed by a suit P C K T, "
    "e.g. '10P' or 'AC'", aliases=RANK_ALIASES, symbols=SUIT_SYMBOLS)

NOTATION = cards32.Notation(RANK_CODES, SUIT_CODES, RANK_NAMES, SUIT_NAMES, joiner=" de ")
format_card = NOTATION.format_card  # Notation of one card, e.g. ``10P`` for the manille de pique.
format_cards = NOTATION.format_cards  # Notation of a sequence of cards, space-separated.
card_name = NOTATION.card_name  # Long French name, e.g. 'Dix de pique'.


def parse_cards(text: str) -> list[int]:
    """Cards from space- or comma-separated notation, in order, rejecting duplicates."""
    return cards32.parse_cards(text, parse_card, format_card)


def parse_hand(text: str) -> tuple[int, ...]:
    """A full 8-card hand from notation, sorted ascending (strongest first in each suit)."""
    cards = parse_cards(text)
    if len(cards) != HAND_SIZE:
        raise ValueError(f"a Manille hand has {HAND_SIZE} cards, got {len(cards)} in {text!r}")
    return tuple(sorted(cards))


def parse_trump(text: str) -> int:
    """Trump value from a suit letter or name, or ``SA`` / ``sans atout`` (4)."""
    t = str(text).strip().lower().replace("-", " ").replace("_", " ")
    for value in range(N_SUITS + 1):
        if t in (TRUMP_CODES[value].lower(), TRUMP_NAMES[value]):
            return value
    if t in ("coeur", "trefle", "sa", "sans atout", "no trump", "nt"):
        return {"coeur": 1, "trefle": 3}.get(t, SANS_ATOUT)
    if len(t) == 1 and t.upper() in SUIT_SYMBOLS:
        return SUIT_SYMBOLS.index(t.upper())
    raise ValueError(f"unknown trump {text!r}: expected P, C, K, T (or pique, cœur, carreau, "
                     "trèfle) or SA (sans atout)")


def format_trump(trump: int) -> str:
    """Notation of a trump value: ``P`` … ``T`` or ``SA``."""
    if isinstance(trump, bool) or not 0 <= int(trump) <= SANS_ATOUT:
        raise ValueError(f"trump must be 0..3 (a suit) or {SANS_ATOUT} (sans atout), got {trump!r}")
    return TRUMP_CODES[int(trump)]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def duties(trump: int, sans_atout_must_beat: bool = False) -> Obligations:
    """The MA-5 duty table of a deal with this trump (a suit or ``SANS_ATOUT``)."""
    if trump != SANS_ATOUT:
        return MA5_DUTIES
    return MA5_SANS_ATOUT_MUST_BEAT_DUTIES if sans_atout_must_beat else MA5_SANS_ATOUT_DUTIES


@dataclass(frozen=True)
class ManilleConfig(RuleOptions):
    """Rule options of a Manille coincée table (RULINGS MA-1..MA-6).

    Parameters
    ----------
    target : game score that wins (MA-6): 50, 100 or 150.
    sans_atout_must_beat : in sans atout, keep the duty to beat an opponent
        who holds the trick when following (MA-5 option, default false).
    packets : how the 8 cards reach each player (MA-2 leaves it open): each
        player in turn counter-clockwise from the dealer's right receives the
        first packet, then each the second, ...; default ``(4, 4)``. The deck
        is shuffled every deal, so this only fixes how a recorded deck is read.
    partner_may_sans_atout : the partner to whom the dealer passes may name
        sans atout as well as a suit (MA-3 "must name one"; default true).
    cut_weights : relative weights of cut points 1..31 (31 numbers); ``None``
        is uniform (MA-2).
    max_deals : a game still unfinished after this many deals raises (a guard
        against policies that never score; MA-6 games end at the target).
    """

    target: int = 50
    sans_atout_must_beat: bool = False
    packets: tuple[int, ...] = (4, 4)
    partner_may_sans_atout: bool = True
    cut_weights: tuple[float, ...] | None = None
    max_deals: int = 500

    def __post_init__(self) -> None:
        if not _is_int(self.target) or self.target not in TARGETS:
            raise ValueError(f"target must be one of 50, 100, 150 (MA-6), got {self.target!r}")
        for name in ("sans_atout_must_beat", "partner_may_sans_atout"):
            check_bool(name, getattr(self, name))
        packets = self.packets
        if isinstance(packets, str):
            packets = tuple(p for p in re.split(r"[\s,+]+", packets.strip()) if p)
        try:
            packets = tuple(int(p) for p in packets)
        except (TypeError, ValueError):
            raise ValueError(f"packets must be positive integers summing to 8, got "
                             f"{self.packets!r}") from None
        if not packets or min(packets) < 1 or sum(packets) != HAND_SIZE:
            raise ValueError(f"packets must be positive integers summing to 8, got "
                             f"{self.packets!r}")
        object.__setattr__(self, "packets", packets)
        object.__setattr__(self, "cut_weights", cut_weights(self.cut_weights, N_CARDS))
        check_int("max_deals", self.max_deals, 1, 100_000)


@dataclass(frozen=True)
class DealRecord:
    """Everything needed to replay one deal: the deck and every decision.

    Attributes
    ----------
    dealer : dealer seat.
    deck : the 32 cards top first, *before* the cut.
    cut : cut point 1..31: that many cards go from the top to the bottom (MA-2).
    choice : the dealer's action (a suit 0..3, ``SANS_ATOUT`` or
        ``PASS_TO_PARTNER``), followed by the partner's (a suit or
        ``SANS_ATOUT``) when the dealer passed (MA-3).
    contre : the opponents' answers in the order asked (the dealer's right
        first, then the dealer's left), ending at the first ``True`` (MA-4).
    surcontre : after a contre, the taking team's answers in the order
        asked (the chooser first, then his partner), ending at the first
        ``True``; empty without a contre (MA-4).
    plays : the 32 cards in the order played, trick after trick.
    """

    dealer: int
    deck: tuple[int, ...]
    cut: int
    choice: tuple[int, ...]
    contre: tuple[bool, ...] = ()
    surcontre: tuple[bool, ...] = ()
    plays: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameRecord:
    """A whole game: the first-dealer draw and every deal in order.

    ``dealer_draw`` is the shuffled deck (top first) from which one card is
    turned to each seat, seat 0 first; the strongest card by rank deals
    (suit ignored), tied players drawing again in seat order (MA-2, the rule
    text's "chaque joueur tire une carte").
    """

    config: ManilleConfig
    dealer_draw: tuple[int, ...]
    deals: tuple[DealRecord, ...]
