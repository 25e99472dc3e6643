"""Truc: constants, card notation, rule options and deal records (RULINGS TR-1..TR-6).

Card encoding (shared with the trick-taking kernel, see DESIGN.md)
------------------------------------------------------------------
A card is an integer ``c = 4 * rank + suit`` in 0..31, rank-major, rank 0
the strongest (TR-1):

====  =======  ========  =========================
rank  card     notation  English aliases accepted
====  =======  ========  =========================
0     Sept     ``7``
1     Huit     ``8``
2     As       ``A``
3     Roi      ``R``     ``K``
4     Dame     ``D``     ``Q``
5     Valet    ``V``     ``J``
6     Dix      ``10``    ``T``
7     Neuf     ``9``
====  =======  ========  =========================

Suits (0 pique ``P``, 1 cœur ``C``, 2 carreau ``K``, 3 trèfle ``T``) only
tell the 32 cards apart for dealing: they never matter in play (TR-1). A card
is written rank then suit, ``7P`` (sept de pique), ``10K`` (dix de carreau);
:func:`parse_hand` also accepts bare ranks (``"7 7 A"``) and gives them the
first free suits. A hand is a uint32 bitmask (bit ``c`` = card ``c``); the
lowest set bit is the strongest card.

Seats are 0 and 1; a deal's *non-dealer* is ``1 - dealer``. Card *slots*
number the at most six cards of a deal in play order: slot ``2 * t + k`` is
the ``k``-th card (0 lead, 1 reply) of trick ``t``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulators.core import cards32
from simulators.core.options import RuleOptions, check_bool, check_int

N_SUITS = 4
N_RANKS = 8
N_CARDS = 32
N_SEATS = 2
HAND_SIZE = 3  # TR-2: three cards each
N_TRICKS = 3  # TR-3
N_SLOTS = 2 * N_TRICKS  # card slots of a deal
DEAL_SIZE = 2 * HAND_SIZE  # cards taken from the stock by one (re)deal
MAX_HANDS = N_CARDS // DEAL_SIZE  # TR-2: 5 hands can be dealt from one shuffle, not a 6th
RANK_CODES = ("7", "8", "A", "R", "D", "V", "10", "9")
RANK_NAMES = ("Sept", "Huit", "As", "Roi", "Dame", "Valet", "Dix", "Neuf")
RANK_ALIASES = {"K": "R", "Q": "D", "J": "V", "T": "10"}
SUIT_CODES, SUIT_NAMES, SUIT_SYMBOLS = cards32.FRENCH_SUITS  # P C K T, ♠ ♥ ♦ ♣

START_STAKE = 1  # TR-4
TARGET = 12  # TR-5, TR-6: a manche is won at 12 points
MANCHES_TO_WIN = 2  # TR-6

# Answers to a proposal (TR-4, TR-5)
REFUSE, ACCEPT, COUNTER = 0, 1, 2
ANSWER_NAMES = ("refuse", "accept", "counter")

# Result of one trick from a player's point of view (observations and tables)
UNPLAYED, WON, LOST, POURRI = 0, 1, 2, 3
TRICK_RESULT_NAMES = ("unplayed", "won", "lost", "pourri")

# How a deal ended
PLAYED, REFUSED, NULL, ABANDONED = 0, 1, 2, 3
OUTCOME_NAMES = ("played", "refused", "null", "abandoned")

# Decision slots per deal (the policy-noise layout): two calls per hand dealt,
# then per card slot: propose, answer, reply to a counter-banco, play.
CALL_SLOTS = 2 * MAX_HANDS
DECISIONS_PER_CARD = 4
N_DECISIONS = CALL_SLOTS + DECISIONS_PER_CARD * N_SLOTS


# TR-1: rank 0 = Sept (strongest) … 7 = Neuf; the suit (0..3) only deals
card, rank_of, suit_of = cards32.card, cards32.rank_of, cards32.suit_of


RANK_MASK, ALL_CARDS = cards32.RANK_MASK, cards32.ALL_CARDS


# (rank, suit or None) of one card token: a bare rank has no suit (parse_hand gives it one).
_parse_token = cards32.token_reader(
    RANK_CODES, SUIT_CODES, "a rank 7 8 A R D V 10 9 (or K Q J T) followed by a suit P C K T, "
    "e.g. '7P' or '10K'", aliases=RANK_ALIASES, symbols=SUIT_SYMBOLS, suit_optional=True)

NOTATION = cards32.Notation(RANK_CODES, SUIT_CODES, RANK_NAMES, SUIT_NAMES, joiner=" de ")
format_card = NOTATION.format_card  # Notation of one card, e.g. ``7P`` for the sept de pique.
format_cards = NOTATION.format_cards  # Notation of a sequence of cards, space-separated.
card_name = NOTATION.card_name  # Long French name, e.g. 'Sept de pique'.


def parse_card(text: str) -> int:
    """Card index from its notation (``7P`` … ``9T``; case-insensitive)."""
    rank, suit = _parse_token(text)
    if suit is None:
        raise ValueError(f"card {text!r} needs a suit letter P, C, K or T (e.g. '{text}P')")
    return card(rank, suit)


def parse_cards(text: str) -> list[int]:
    """Cards from space- or comma-separated notation, rejecting duplicates."""
    return cards32.parse_cards(text, parse_card, format_card)


def parse_hand(text: str, size: int | None = HAND_SIZE) -> list[int]:
    """Cards of a hand; bare ranks (``"7 7 A"``) get the lowest suit not yet used.

    Suits never matter in play (TR-1), so ``"7 7 A"`` is as good as
    ``"7P 7C AP"``. Raises ``ValueError`` naming the problem (malformed
    card, duplicate, five of a rank, wrong count; ``size=None`` takes any).
    """
    tokens = [tok for tok in re.split(r"[\s,]+", str(text).strip()) if tok]
    if size is not None and len(tokens) != size:
        raise ValueError(f"a Truc hand has {size} cards, got {len(tokens)} in {text!r}")
    parsed = [_parse_token(tok) for tok in tokens]
    used = {card(r, s) for r, s in parsed if s is not None}
    if len(used) != sum(s is not None for _, s in parsed):
        raise ValueError(f"a card appears twice in {text!r}")
    out = []
    for rank, suit in parsed:
        if suit is None:
            free = [s for s in range(N_SUITS) if card(rank, s) not in used]
            if not free:
                raise ValueError(f"there are only four cards of rank {RANK_CODES[rank]}")
            suit = free[0]
            used.add(card(rank, suit))
        out.append(card(rank, suit))
    return out


@dataclass(frozen=True)
class TrucConfig(RuleOptions):
    """Rule options of a Truc table (RULINGS TR-1..TR-6).

    Parameters
    ----------
    target : points that win a manche (TR-5, TR-6: 12); banco caps at it.
    manches_to_win : manches that win a match (TR-6: 2).
    card_call : play the card call and redeals (TR-2); ``False`` plays the
        first hands dealt (a variant for studies).
    counter_banco : allow the counter-banco answer (TR-5); ``False`` leaves
        accept or refuse only (a variant for studies).
    """

    target: int = TARGET
    manches_to_win: int = MANCHES_TO_WIN
    card_call: bool = True
    counter_banco: bool = True

    def __post_init__(self) -> None:
        check_int("target", self.target, 2, 100)
        check_int("manches_to_win", self.manches_to_win, 1, 10)
        for name in ("card_call", "counter_banco"):
            check_bool(name, getattr(self, name))


@dataclass(frozen=True)
class Proposal:
    """One proposal of a deal: made before the card of ``slot`` by that card's player.

    ``answer`` is ``REFUSE``, ``ACCEPT`` or ``COUNTER`` (TR-4, TR-5); after a
    counter-banco, ``reply`` is the proposer's ``REFUSE`` or ``ACCEPT``
    (else -1). Stakes are not recorded: the referee derives them.
    """

    slot: int
    answer: int
    reply: int = -1


@dataclass(frozen=True)
class DealRecord:
    """Everything needed to replay one deal: the deck, the scores and every decision.

    Attributes
    ----------
    dealer : dealer seat (0 or 1).
    deck : the 32 cards top first; hand ``k`` gives ``deck[6k:6k+3]`` to the
        non-dealer and ``deck[6k+3:6k+6]`` to the dealer (TR-2).
    scores : both seats' manche scores before the deal (banco, TR-5).
    calls : the card-call answers in order, ``True`` = ask for new cards:
        non-dealer, then dealer if the non-dealer asked, hand after hand (TR-2).
    plays : cards in the order played (TR-3).
    proposals : the proposals in order (TR-4, TR-5).
    """

    dealer: int
    deck: tuple[int, ...]
    scores: tuple[int, int] = (0, 0)
    calls: tuple[bool, ...] = ()
    plays: tuple[int, ...] = ()
    proposals: tuple[Proposal, ...] = ()
