"""Bianco Mano: constants, card notation, rule options and deal records.

Card encoding (shared by the engine, the referee and the policies)
-----------------------------------------------------------------
A card is an integer ``c = 4 * rank + family`` in 0..31:

====  ==============================  ======  ====================
rank  character (BM-1)                points  notation digit
====  ==============================  ======  ====================
0     Mamma                           5       1
1     Parrain                         4       2
2     Avocat                          3       3
3     Évêque                          2       4
4     Banquier                        1       5
5     Commissaire (Policier)          0       6
6     Garde du Corps                  0       7
7     Chauffeur                       0       8
====  ==============================  ======  ====================

Families: 0 rouge ``R``, 1 bleue ``B``, 2 jaune ``J``, 3 verte ``V``. A lower
rank is a stronger card. A hand is a bitmask with bit ``c`` set for card ``c``;
rank-major order means the lowest set bit of a hand is its strongest card and
the highest set bit its weakest. Text notation is the rule text's own
numbering of the characters followed by the family letter: ``1R`` is the
Mamma rouge, ``8V`` the Chauffeur verte (:func:`parse_card`,
:func:`format_card`). Sequences of cards (decks, piles) are listed top first.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulators.core import cards32
from simulators.core.options import RuleOptions, check_bool, check_int, cut_weights

N_FAMILIES = 4
N_RANKS = 8
N_CARDS = 32
FAMILY_CODES = "RBJV"
FAMILY_NAMES = ("rouge", "bleue", "jaune", "verte")
RANK_NAMES = (
    "Mamma", "Parrain", "Avocat", "Évêque", "Banquier",
    "Commissaire", "Garde du Corps", "Chauffeur",
)
BASE_POINTS = (5, 4, 3, 2, 1, 0, 0, 0)  # BM-1
DOMINANT_FACTOR = 2  # BM-1: dominant cards count double
TOTAL_POINTS = 75  # BM-1
CONTRACT_POINTS = 45  # BM-10
BONUS_POINTS = 5  # BM-11
GARDE_DU_CORPS = 6  # rank of the BM-11 bonus cards
CHAUFFEUR = 7

# BM-4..BM-6, per player count
HAND_SIZE = {3: 10, 4: 8, 5: 6}  # cards in hand when play starts = number of tricks
FIRST_DISTRIBUTION = {3: 7, 4: 5, 5: 4}
FIRST_PACKET_CHOICES = {3: (3, 4), 4: (2, 3), 5: (2,)}
SECOND_PACKET = {3: 3, 4: 3, 5: 2}  # each player's packet after bidding
ESPION_SIZE = {3: 2, 4: 0, 5: 2}
PLAYER_COUNTS = (3, 4, 5)

PASS = 4  # bid action; 0..3 mean "take, naming that family" (BM-7)

# BM-10 score changes: (taker, each partner, each opponent)
FAILED, MADE, CAPO, ALL_PASS = 0, 1, 2, 3
OUTCOME_NAMES = ("failed", "made", "capo", "all_pass")
SCORE_CHANGES = {FAILED: (-2, -1, 1), MADE: (2, 1, -1), CAPO: (2, 1, -2)}

GATHER_OPTIONS = ("team_piles", "trick_order")


# BM-1: rank 0 = Mamma (strongest) … 7 = Chauffeur; families 0..3 R B J V
card, rank_of, family_of = cards32.card, cards32.rank_of, cards32.suit_of


def card_points(c: int, dominant: int) -> int:
    """Points of one card when ``dominant`` is the dominant family (BM-1)."""
    points = BASE_POINTS[rank_of(c)]
    return points * DOMINANT_FACTOR if family_of(c) == dominant else points


FAMILY_MASK, RANK_MASK, ALL_CARDS = cards32.SUIT_MASK, cards32.RANK_MASK, cards32.ALL_CARDS

_RANK_DIGITS = "12345678"  # BM-1: 1 Mamma … 8 Chauffeur


NOTATION = cards32.Notation(_RANK_DIGITS, FAMILY_CODES, RANK_NAMES, FAMILY_NAMES, joiner=" ")
format_card = NOTATION.format_card  # Notation of one card, e.g. ``1R`` for the Mamma rouge.
format_cards = NOTATION.format_cards  # Notation of a sequence of cards, space-separated.
card_name = NOTATION.card_name  # Long French name, e.g. 'Mamma rouge'.
# Card index from its notation (``1R`` … ``8V``; case-insensitive).
parse_card = cards32.card_parser(
    _RANK_DIGITS, FAMILY_CODES, "a character digit 1-8 (1 Mamma … 8 Chauffeur) followed by a "
    "family letter R, B, J or V, e.g. '1R'")


def parse_cards(text: str) -> list[int]:
    """Cards from space- or comma-separated notation, rejecting duplicates."""
    return cards32.parse_cards(text, parse_card, format_card)


def parse_family(text: str) -> int:
    """Family index from its letter or French name."""
    t = str(text).strip().lower()
    for f in range(N_FAMILIES):
        if t in (FAMILY_CODES[f].lower(), FAMILY_NAMES[f]):
            return f
    raise ValueError(f"unknown family {text!r}: expected R, B, J, V or rouge, bleue, jaune, verte")


@dataclass(frozen=True)
class BiancoManoConfig(RuleOptions):
    """Rule options of a Bianco Mano table (RULINGS BM-1..BM-12).

    Parameters
    ----------
    n_players : 3, 4 or 5 (BM-4..BM-6).
    bianco_mano : the optional +5 bonus (BM-11), fixed for a game.
    shuffle_every_deal : shuffle before every deal instead of only the first (BM-3).
    gather : how played cards are stacked for the next deal (BM-3):
        ``"team_piles"`` (the ruling's default) or ``"trick_order"`` (every
        trick in the order played, espion on top).
    deals_per_game : played deals in a game (BM-12); all-pass deals do not count.
    cut_weights : relative weights of cut points 1..31 (31 numbers); ``None``
        is uniform (BM-3).
    """

    n_players: int = 4
    bianco_mano: bool = False
    shuffle_every_deal: bool = False
    gather: str = "team_piles"
    deals_per_game: int = 10
    cut_weights: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.n_players, bool) or self.n_players not in PLAYER_COUNTS:
            raise ValueError(f"n_players must be 3, 4 or 5 for Bianco Mano, got {self.n_players!r}")
        for name in ("bianco_mano", "shuffle_every_deal"):
            check_bool(name, getattr(self, name))
        if self.gather not in GATHER_OPTIONS:
            raise ValueError(f"gather must be one of {GATHER_OPTIONS}, got {self.gather!r}")
        if self.shuffle_every_deal and self.gather != "team_piles":
            raise ValueError(
                "gather has no effect with shuffle_every_deal=true: drop one of the two options"
            )
        check_int("deals_per_game", self.deals_per_game, 1, 1000)
        object.__setattr__(self, "cut_weights", cut_weights(self.cut_weights, N_CARDS))

    @property
    def hand_size(self) -> int:
        """Cards in hand when play starts, and number of tricks."""
        return HAND_SIZE[self.n_players]


@dataclass(frozen=True)
class DealRecord:
    """Everything needed to replay one deal: the deck and every decision.

    Attributes
    ----------
    n_players : player count.
    dealer : dealer seat.
    deck : the 32 cards top first, *before* the cut.
    cut : cut point 1..31: that many cards go from the top to the bottom (BM-3).
    first_packet : size of each player's first packet (BM-4..BM-6).
    bids : bidding actions in order from the dealer's left, round 1 then
        round 2, ending at the first take: ``PASS`` (4) or the family named
        (0..3; in round 1 it must be the turned card's family) (BM-7).
    espion : the two cards the taker set aside, ascending (3 and 5 players).
    called : the card called by the taker (5 players), else -1 (BM-6).
    bonus : whether the taker announced Bianco Mano (BM-11).
    plays : cards in the order played, trick after trick.
    """

    n_players: int
    dealer: int
    deck: tuple[int, ...]
    cut: int
    first_packet: int
    bids: tuple[int, ...]
    espion: tuple[int, ...] = ()
    called: int = -1
    bonus: bool = False
    plays: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameRecord:
    """A whole game: the first-dealer draw (BM-2) and every deal in order.

    ``dealer_draw`` is the shuffled deck (top first) from which one card is
    turned to each seat, seat 0 first, tied players drawing again in seat
    order. ``deals`` includes all-pass deals.
    """

    config: BiancoManoConfig
    dealer_draw: tuple[int, ...]
    deals: tuple[DealRecord, ...]
