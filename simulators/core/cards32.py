"""The 32-card notation of Bianco Mano, Manille and Truc: one home for the shared fact.

A card is ``4 * rank + suit`` (0..31), rank 0 the strongest of its game
(the same encoding as :mod:`simulators.core.tricks`, there for arrays;
here plain integers, for rules and referees). A game writes a card as its
rank code then its suit letter (``10P``, ``1R``); what differs per game is
only those codes and what its ``parse_card`` accepts, so each game's
``rules.py`` keeps its codes and its parser and delegates the rest here,
as it takes the plain-int masks of a suit, a rank and the whole deck.
The "odds with this hand" situations of the three games (``dealing.py``)
read their fixed hand with :func:`situation_hand` and refuse what cannot be
dealt with the one :class:`DealConstraintError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

N_CARDS = 32
N_RANKS, N_SUITS = 8, 4
# plain-int masks: SUIT_MASK[s] the 8 cards of suit s, RANK_MASK[r] the 4 cards of rank r
SUIT_MASK = tuple(sum(1 << (4 * r + s) for r in range(N_RANKS)) for s in range(N_SUITS))
RANK_MASK = tuple(0xF << (4 * r) for r in range(N_RANKS))
ALL_CARDS = (1 << N_CARDS) - 1
# the French suits, as Manille and Truc write them: letters, names and symbols, suit 0..3
FRENCH_SUITS = ("PCKT", ("pique", "cœur", "carreau", "trèfle"), "♠♥♦♣")


def card(rank: int, suit: int) -> int:
    """Card index of a (rank, suit) pair; rank 0 is the strongest."""
    return 4 * rank + suit


def rank_of(c: int) -> int:
    """Rank of a card (0 = the strongest)."""
    return c >> 2


def suit_of(c: int) -> int:
    """Suit (family) of a card, 0..3."""
    return c & 3


def format_card(c: int, rank_codes: Sequence[str], suit_codes: Sequence[str]) -> str:
    """Notation of one card: its rank code then its suit code (``ValueError`` if not 0..31)."""
    if isinstance(c, bool) or not 0 <= int(c) < N_CARDS:
        raise ValueError(f"card index must be in 0..31, got {c!r}")
    return f"{rank_codes[rank_of(int(c))]}{suit_codes[suit_of(int(c))]}"


def token_reader(rank_codes: Sequence[str], suit_codes: Sequence[str], expected: str, *,
                 aliases: Mapping[str, str] | None = None, symbols: Sequence[str] = "",
                 suit_optional: bool = False) -> Callable[[str], tuple[int, int | None]]:
    """A game's reader of one card token, case-insensitive: ``(rank, suit)`` from a rank code
    (or an alias of one) then a suit code (or its symbol, ``symbols`` in suit order).

    A malformed token raises ``ValueError("malformed card 'x': expected " + expected)``;
    with ``suit_optional`` a bare rank reads as ``(rank, None)``.
    """
    aliases = dict(aliases or {})
    ranks = sorted([*rank_codes, *aliases], key=len, reverse=True)  # "10" before "1"
    suits = [*suit_codes, *symbols]
    pattern = re.compile(f"^({'|'.join(map(re.escape, ranks))})"
                         f"({'|'.join(map(re.escape, suits))}){'?' if suit_optional else ''}$")

    def read(text: str) -> tuple[int, int | None]:
        match = pattern.match(str(text).strip().upper())
        if not match:
            raise ValueError(f"malformed card {text!r}: expected {expected}")
        rank, suit = aliases.get(match.group(1), match.group(1)), match.group(2)
        return (list(rank_codes).index(rank),
                None if suit is None else suits.index(suit) % len(suit_codes))

    return read


def card_parser(rank_codes: Sequence[str], suit_codes: Sequence[str], expected: str, *,
                aliases: Mapping[str, str] | None = None,
                symbols: Sequence[str] = "") -> Callable[[str], int]:
    """A game's ``parse_card``: the card index of one token read by :func:`token_reader`
    (a suit required)."""
    read = token_reader(rank_codes, suit_codes, expected, aliases=aliases, symbols=symbols)

    def parse_card(text: str) -> int:
        rank, suit = read(text)
        return card(rank, suit)

    return parse_card


def parse_cards(text: str, parse_card: Callable[[str], int],
                format_card: Callable[[int], str]) -> list[int]:
    """Cards from space- or comma-separated notation, in order, rejecting duplicates."""
    cards = [parse_card(tok) for tok in re.split(r"[\s,]+", str(text).strip()) if tok]
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"card {format_card(c)} appears twice in {text!r}")
        seen.add(c)
    return cards


def format_cards(cards: Iterable[int], format_card: Callable[[int], str]) -> str:
    """Notation of a sequence of cards, space-separated."""
    return " ".join(format_card(c) for c in cards)


def read_hand(hand, size: int, parse_hand: Callable[[str], Sequence[int]]) -> tuple[int, ...]:
    """A hand given as notation or card indices: ``size`` distinct cards 0..31, sorted.

    ``ValueError`` naming the problem (a malformed or repeated card, the
    wrong count, an index out of range).
    """
    cards = tuple(parse_hand(hand)) if isinstance(hand, str) else tuple(hand)
    if len(cards) != size or len(set(cards)) != size or not all(
            isinstance(c, int | np.integer) and not isinstance(c, bool) and 0 <= c < N_CARDS
            for c in cards):
        raise ValueError(f"a hand is {size} distinct cards 0..31, got {hand!r}")
    return tuple(sorted(int(c) for c in cards))


class DealConstraintError(ValueError):
    """A situation cannot be dealt as asked (its fixed cards, seat or scores), or too rarely."""


def situation_hand(hand, size: int, parse_hand: Callable[[str], Sequence[int]],
                   what: str) -> tuple[int, ...]:
    """:func:`read_hand` for a situation: a bad hand raises :class:`DealConstraintError`
    naming ``what`` (``"the dealer's hand: a hand is 8 distinct cards…"``)."""
    try:
        return read_hand(hand, size, parse_hand)
    except ValueError as error:
        raise DealConstraintError(f"{what}: {error}") from None


@dataclass(frozen=True)
class Notation:
    """A game's card notation: rank and suit codes, and long names for ``card_name``.

    ``joiner`` goes between the rank and suit names (``" de "``: *Dix de pique*).
    """

    rank_codes: Sequence[str]
    suit_codes: Sequence[str]
    rank_names: Sequence[str]
    suit_names: Sequence[str]
    joiner: str = " "

    def format_card(self, c: int) -> str:
        """Notation of one card (``ValueError`` if not a card index 0..31)."""
        return format_card(c, self.rank_codes, self.suit_codes)

    def format_cards(self, cards: Iterable[int]) -> str:
        """Notation of a sequence of cards, space-separated."""
        return format_cards(cards, self.format_card)

    def card_name(self, c: int) -> str:
        """Long name of one card, e.g. *Dix de pique*."""
        return f"{self.rank_names[rank_of(c)]}{self.joiner}{self.suit_names[suit_of(c)]}"
