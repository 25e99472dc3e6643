"""Bango: constants, card encoding, notation, rule options and game records (BG-1..BG-8).

Card encoding (shared by the laying solver, the engine, the referee and the policies)
-------------------------------------------------------------------------------------
A card's *kind* is what the rules see (BG-1)::

    kind = 11 * colour + (value - 1)        value 1..11, colour 0..4

=======  ========  ======  ==========  =====================================
colour   name      letter  kinds       copies of each kind in the 99 cards
=======  ========  ======  ==========  =====================================
0        blue      ``B``   0..10       2
1        violet    ``V``   11..21      2
2        yellow    ``Y``   22..32      2
3        red       ``R``   33..43      2
4        black     ``K``   44..54      1 (black cards never enter a sequence)
=======  ========  ======  ==========  =====================================

So ``N_KINDS = 55`` and ``N_CARDS = 99``. The two copies of a coloured card
are interchangeable for every rule, so hands, decks and records hold kinds; a
hand is a count vector over the 55 kinds (0..2 coloured, 0..1 black).
``KIND_VALUE[k]`` (1..11) and ``KIND_COLOUR[k]`` (0..4) are lookup arrays.

A player's *board* (his sequences, BG-6) is three slots, opened in order:
``lo[s]``, ``hi[s]`` the lowest and highest value of slot ``s`` (0 and 0 while
the slot is not opened) and ``colours[s]``, its count of cards of each of the
four colours (BG-8). A sequence holds every value ``lo..hi`` exactly once.
A *lay* is recorded as a ``(3, 11)`` table ``placed[s, v - 1]``: the kind laid
at value ``v`` of slot ``s`` in this lay, or -1; every hand card not placed
goes to the personal discard.

Notation: value then colour letter, ``5B``, ``11R``, ``4K`` (black); on input
the French letters ``J`` (jaune) and ``N`` (noir) are accepted too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from simulators.core.options import RuleOptions, check_bool, check_int

N_COLOURS = 4  # coloured families (BG-1)
BLACK = 4  # the colour index of black cards
N_VALUES = 11  # values 1..11
N_KINDS = 55  # 44 coloured kinds + 11 black
N_COLOURED_KINDS = N_COLOURS * N_VALUES  # 44
COLOURED_COPIES = 2  # BG-1: 88 coloured cards
N_CARDS = COLOURED_COPIES * N_COLOURED_KINDS + N_VALUES  # 99
COLOUR_CODES = "BVYRK"
COLOUR_NAMES = ("blue", "violet", "yellow", "red", "black")
PLAYER_COUNTS = (2, 3, 4, 5)
REMOVED = {2: 25, 3: 15, 4: 10, 5: 0}  # BG-2: cards removed unseen
HAND_LIMIT = 5  # BG-6: more than 5 cards at the end of one's turn forces a lay
MAX_SEQUENCES = 3  # BG-6: at most 3 sequences opened in a whole game
MIN_OPEN = 2  # BG-6: a new sequence needs at least two consecutive values

KIND_VALUE = (np.arange(N_KINDS) % N_VALUES + 1).astype(np.int8)
KIND_COLOUR = (np.arange(N_KINDS) // N_VALUES).astype(np.int8)
KIND_COPIES = np.where(KIND_COLOUR == BLACK, 1, COLOURED_COPIES).astype(np.int8)


def kind(value: int, colour: int) -> int:
    """The kind of a card of ``value`` (1..11) and ``colour`` (0..3, 4 black)."""
    if not 1 <= value <= N_VALUES or not 0 <= colour <= BLACK:
        raise ValueError(f"no card of value {value!r} and colour {colour!r}")
    return N_VALUES * colour + value - 1


def value_of(k: int) -> int:
    """Value 1..11 of a kind."""
    return int(k) % N_VALUES + 1


def colour_of(k: int) -> int:
    """Colour 0..3 of a kind, 4 for black."""
    return int(k) // N_VALUES


def is_black(k: int) -> bool:
    """Black cards count for explosions and bangos but never enter a sequence (BG-1, BG-6)."""
    return int(k) >= N_COLOURED_KINDS


def full_deck() -> list[int]:
    """The 99 cards as kinds, sorted (BG-1)."""
    return sorted([k for k in range(N_COLOURED_KINDS) for _ in range(COLOURED_COPIES)]
                  + list(range(N_COLOURED_KINDS, N_KINDS)))


_CARD_RE = re.compile(r"^(1[01]|[1-9])([BVYRKJN])$")


def format_card(k: int) -> str:
    """Notation of a kind, e.g. ``5B``, ``11R``, ``4K``."""
    if isinstance(k, bool) or not 0 <= int(k) < N_KINDS:
        raise ValueError(f"card must be a kind 0..54, got {k!r}")
    return f"{value_of(k)}{COLOUR_CODES[colour_of(k)]}"


def parse_card(text: str) -> int:
    """Kind from notation (case-insensitive): value 1..11 then B, V, Y (or J), R, K (or N)."""
    match = _CARD_RE.match(str(text).strip().upper())
    if not match:
        raise ValueError(f"malformed card {text!r}: expected a value 1-11 followed by a colour "
                         "B (blue), V (violet), Y (yellow), R (red) or K (black), e.g. '7Y'")
    letter = {"J": "Y", "N": "K"}.get(match.group(2), match.group(2))
    return kind(int(match.group(1)), COLOUR_CODES.index(letter))


def parse_cards(text: str) -> list[int]:
    """Kinds from space- or comma-separated notation, rejecting more copies than the deck has."""
    kinds = [parse_card(tok) for tok in re.split(r"[\s,]+", str(text).strip()) if tok]
    for k in set(kinds):
        if kinds.count(k) > KIND_COPIES[k]:
            raise ValueError(f"{format_card(k)} appears {kinds.count(k)} times in {text!r}; "
                             f"the deck has {int(KIND_COPIES[k])}")
    return kinds


def format_cards(cards) -> str:
    """Notation of a sequence of kinds, space-separated."""
    return " ".join(format_card(c) for c in cards)


def parse_sequence(text: str) -> list[int]:
    """One laid sequence from notation, checked against BG-6: at least two cards, no black
    card, distinct consecutive values (in any order); sorted by value."""
    kinds = parse_cards(text)
    shown = format_cards(kinds) or repr(text)
    if len(kinds) < 2:
        raise ValueError(f"sequence {shown!r} has {len(kinds)} card(s): a sequence holds at "
                         "least two consecutive values (BG-6)")
    if any(colour_of(k) == BLACK for k in kinds):
        raise ValueError(f"sequence {shown!r} holds a black card: black cards never enter a "
                         "sequence (BG-6)")
    values = sorted(value_of(k) for k in kinds)
    if len(set(values)) != len(values) or values[-1] - values[0] != len(values) - 1:
        raise ValueError(f"sequence {shown!r} is not consecutive distinct values (BG-6); "
                         "separate two sequences with ';'")
    return sorted(kinds, key=value_of)


def format_sequences(sequences) -> str:
    """Notation of laid sequences: each space-separated, ``"; "`` between them."""
    return "; ".join(format_cards(s) for s in sequences)


def parse_sequences(text: str) -> list[list[int]]:
    """Laid sequences separated by ``;``, each checked by :func:`parse_sequence`."""
    return [parse_sequence(p) for p in str(text).split(";") if p.strip()]


def hand_counts(cards) -> np.ndarray:
    """(55,) uint8 count vector of an iterable of kinds."""
    return np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=N_KINDS).astype(np.uint8)


@dataclass(frozen=True)
class BangoConfig(RuleOptions):
    """Rule options of a Bango table (RULINGS BG-1..BG-8).

    Parameters
    ----------
    n_players : 2..5.
    removed : cards removed unseen at setup (BG-2 option); ``None`` takes the
        rule's 25 / 15 / 10 / 0 for 2 / 3 / 4 / 5 players. At most
        ``99 - n_players - 11`` so the deal can always find coloured cards.
    free_discard : lift BG-6's compulsory placement (any hand card may go to
        the personal discard when laying).
    hand_limit : a player holding more than this many cards at the end of
        his turn must lay (BG-6: 5); a variant knob for designers.
    """

    n_players: int = 4
    removed: int | None = None
    free_discard: bool = False
    hand_limit: int = HAND_LIMIT

    def __post_init__(self) -> None:
        if isinstance(self.n_players, bool) or self.n_players not in PLAYER_COUNTS:
            raise ValueError(f"n_players must be 2..5 for Bango, got {self.n_players!r}")
        if self.removed is not None:
            check_int("removed", self.removed, 0, N_CARDS - self.n_players - N_VALUES)
        check_bool("free_discard", self.free_discard)
        check_int("hand_limit", self.hand_limit, 1, 30)

    @property
    def n_removed(self) -> int:
        """Cards removed at setup: the option, or the rule's count for this table (BG-2)."""
        return REMOVED[self.n_players] if self.removed is None else int(self.removed)


Lay = tuple[tuple[int, int], ...]
"""A lay as ``(kind, slot)`` pairs, one per card placed in a sequence
(slot 0..2 in the order sequences were opened); hand cards not listed go to
the personal discard. ``None`` where a player does not lay."""


@dataclass(frozen=True)
class TurnRecord:
    """One player-turn, every decision in order (BG-3..BG-6).

    Attributes
    ----------
    seat : the active player.
    reveals : one ``(bango, go_on)`` per card revealed, in order. ``bango`` is
        the hand kind played to destroy the card just revealed (BG-5), or -1;
        ``go_on`` says whether he reveals another card (False on the last one).
    take : on a stop, the centre kinds taken into hand (at least one unless the
        centre is empty, BG-3); empty after an explosion.
    spoils : after an explosion (BG-4), one ``(seat, centre_kind, hand_kind)``
        per opponent served, clockwise from the active player's left:
        ``hand_kind == -1`` takes ``centre_kind``, otherwise destroys it (BG-5).
    destroys : after an explosion, ``(centre_kind, hand_kind)`` for each
        remaining centre card the active player destroys; he takes the rest.
    lay : the lay at the end of the turn, or ``None`` (BG-6).
    """

    seat: int
    reveals: tuple[tuple[int, bool], ...]
    take: tuple[int, ...] = ()
    spoils: tuple[tuple[int, int, int], ...] = ()
    destroys: tuple[tuple[int, int], ...] = ()
    lay: Lay | None = None


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to replay one game: the deck and every decision.

    Attributes
    ----------
    n_players, removed, free_discard, hand_limit : the table's options.
    deck : the 99 kinds top first, as shuffled (BG-2). The top ``removed``
        cards leave the game unseen; then each seat 0..n-1 in turn is dealt
        the top card, and a black card dealt is put back into the deck at
        position ``reinsert[j]`` (0 = top) of what remains, the j-th time this
        happens, and the seat is dealt the new top card. The rest is the
        stock, top first.
    reinsert : positions of the black cards put back during the deal.
    first_player : the seat that plays first (BG-2).
    turns : every player-turn in order (clockwise from ``first_player``).
    final_lays : one lay or ``None`` per seat 0..n-1 after the last turn (BG-7).
    """

    n_players: int
    removed: int
    free_discard: bool
    hand_limit: int
    deck: tuple[int, ...]
    reinsert: tuple[int, ...]
    first_player: int
    turns: tuple[TurnRecord, ...]
    final_lays: tuple[Lay | None, ...]
