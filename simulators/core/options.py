"""Checks of rule options, for the config dataclasses' ``__post_init__``: one wording in every room.

A game's config is a frozen dataclass deriving from :class:`RuleOptions`
(its ``replace``); it validates each option once, with a ``ValueError``
naming it (the command line shows that message as it is)::

    check_int("deals_per_game", self.deals_per_game, 1, 1000)
    check_bool("bianco_mano", self.bianco_mano)
    object.__setattr__(self, "cut_weights", cut_weights(self.cut_weights))

What an option means, and its range, stay in the game's ``rules.py`` beside
its ruling; only the checks and their messages live here.
"""

from __future__ import annotations

import dataclasses
from numbers import Integral
from typing import Any, Self


class RuleOptions:
    """Base of every game's rule config (a frozen dataclass): options changed by copy."""

    def replace(self, **changes: Any) -> Self:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)


def check_int(name: str, value: Any, low: int, high: int) -> None:
    """Raise ``ValueError`` unless ``value`` is an integer in ``[low, high]`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, Integral) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")


def check_bool(name: str, value: Any) -> None:
    """Raise ``ValueError`` unless ``value`` is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")


def cut_weights(weights: Any, n_cards: int = 32) -> tuple[float, ...] | None:
    """Relative weights of the cut points ``1 .. n_cards - 1`` as floats; ``None`` (uniform) kept.

    Raises ``ValueError`` unless there are ``n_cards - 1`` non-negative weights
    with a positive sum (the cut of BM-3 and MA-2).
    """
    if weights is None:
        return None
    weights = tuple(float(w) for w in weights)
    if len(weights) != n_cards - 1 or min(weights) < 0 or sum(weights) <= 0:
        raise ValueError(f"cut_weights must be {n_cards - 1} non-negative numbers (cut points "
                         f"1..{n_cards - 1}) with a positive sum")
    return weights
