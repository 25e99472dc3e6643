"""Plain-Python helpers every referee uses: the violation, card checks, the cut, seat order.

A referee replays one recorded unit at a time from the rule text, with lists
and integers. What is the same fact in every room lives here once:

* :class:`RuleViolation`, the one exception a referee raises for a record
  that breaks a ruling (a caller catches this one type for every game);
* :func:`is_index` and :func:`check_cards`, the shape checks of a record's
  cards (integers in range, none twice);
* :func:`cut`, the cut of a deck (its top cards go to the bottom);
* :func:`seat_order`, seats in turn from one seat, either direction;
* :func:`draw_for_dealer`, the draw for the first dealer (BM-2, MA-2), and
  :func:`first_dealer`, the same on a recorded pile, checked.

Nothing here knows a game's duties (who must follow, trump…): each referee
keeps its own ``legal_plays`` and ``trick_winner`` written from its ruling,
so the engine–referee cross-check tests them against the engines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Integral


class RuleViolation(Exception):
    """Raised when a record breaks a ruling; ``str`` starts with the ruling id.

    Parameters
    ----------
    ruling : the ruling id of ``RULINGS.md`` (``"BM-8"``).
    message : what breaks it, in words.
    """

    def __init__(self, ruling: str, message: str):
        super().__init__(f"{ruling}: {message}")
        self.ruling = ruling
        self.message = message

    def __reduce__(self):
        # picklable, so a violation found in a worker process reaches the parent intact
        return type(self), (self.ruling, self.message)


def is_index(value, size: int) -> bool:
    """Whether ``value`` is an integer in ``0 .. size - 1`` (numpy integers accepted, bools not)."""
    return isinstance(value, Integral) and not isinstance(value, bool) and 0 <= value < size


def check_cards(cards: Sequence[int], ruling: str, what: str, n_cards: int = 32) -> None:
    """Raise :class:`RuleViolation` unless ``cards`` are distinct indices ``0 .. n_cards - 1``."""
    for c in cards:
        if not is_index(c, n_cards):
            raise RuleViolation(ruling, f"{what} holds {c!r}, not a card index 0..{n_cards - 1}")
    if len(set(cards)) != len(cards):
        raise RuleViolation(ruling, f"{what} holds a card twice")


def cut(deck: Sequence[int], n_top: int) -> list[int]:
    """The deck after the cut: its top ``n_top`` cards go to the bottom."""
    return list(deck[n_top:]) + list(deck[:n_top])


def seat_order(first: int, n_players: int, direction: int = 1) -> list[int]:
    """The ``n_players`` seats in turn from ``first``; ``direction`` -1 goes ``s``, ``s - 1``…"""
    return [(first + direction * i) % n_players for i in range(n_players)]


def draw_for_dealer(pile: Sequence[int], n_players: int,
                    rank_of: Callable[[int], int]) -> int | None:
    """Seat of the first dealer drawn from ``pile`` (top first); ``None`` if it is too short.

    One card to each seat from the top, seat 0 first; the strongest rank
    (lowest ``rank_of``; suit ignored) deals; tied players draw again in seat
    order; when the pile cannot give every tied player a card, the lowest
    tied seat deals (BM-2, MA-2).
    """
    pile = list(pile)
    if len(pile) < n_players:
        return None
    tied = list(range(n_players))
    while True:
        drawn = {seat: pile.pop(0) for seat in tied}  # one card each, in seat order
        best = min(rank_of(c) for c in drawn.values())
        tied = [seat for seat in tied if rank_of(drawn[seat]) == best]
        if len(tied) == 1 or len(pile) < len(tied):
            return tied[0]


def first_dealer(dealer_draw: Sequence[int], n_players: int, rank_of: Callable[[int], int],
                 ruling: str) -> int:
    """Seat of the first dealer drawn from a record's ``dealer_draw`` pile
    (:func:`draw_for_dealer`); :class:`RuleViolation` of ``ruling`` for a pile that is not
    distinct cards or is shorter than the players."""
    check_cards(list(dealer_draw), ruling, "dealer_draw")
    dealer = draw_for_dealer(dealer_draw, n_players, rank_of)
    if dealer is None:
        raise RuleViolation(ruling, f"dealer_draw has {len(dealer_draw)} cards, fewer than the "
                                    "players")
    return dealer
