"""Card play stated as two numpy rules, lead and follow, with a compiled twin (names no game).

A trick game's heuristic says how to lead and how to follow in numpy over a
batch of rows; its card play then runs as a numba pass over the rows with
identical cards, because the numpy temporaries were the engines' largest
cost. :class:`TrickPlayPolicy` is the choice between the two, once: a
subclass that rewrites a rule gets numpy play built on its rewrite.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from simulators.core.params import Policy


class TrickPlayPolicy(Policy):
    """A policy whose ``play`` is ``_lead`` / ``_follow``, or their compiled twin.

    A subclass states, per row of the observation, ``_lead(obs)`` and
    ``_follow(obs)``: each a pool of cards and whether to play its strongest
    member (else its weakest); ``_card_of(pool, take_strongest)``: the card
    that is; ``_compiled_cards(obs, out)``: the same cards written into ``out``
    by one compiled pass. The twin runs when ``compiled`` is set and neither
    rule is overridden below the class that defines ``_compiled_cards``.
    """

    compiled: ClassVar[bool] = True

    def play(self, obs):
        """Lead or follow by the rules of thumb in the class docstring."""
        if self._compiled_play():
            out = np.empty(len(obs.hand), dtype=np.int8)
            self._compiled_cards(obs, out)
            return out
        if obs.position == 0:
            pool, take_strongest = self._lead(obs)
        else:
            pool, take_strongest = self._follow(obs)
        return self._card_of(pool, take_strongest)

    def _compiled_play(self) -> bool:
        """Whether play() runs the compiled twin of ``_lead`` / ``_follow`` (not overridden)."""
        cls = type(self)
        twin_of = next(c for c in cls.__mro__ if "_compiled_cards" in vars(c))
        return self.compiled and cls._lead is twin_of._lead and cls._follow is twin_of._follow

    def _lead(self, obs) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _follow(self, obs) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _card_of(self, pool: np.ndarray, take_strongest: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _compiled_cards(self, obs, out: np.ndarray) -> None:
        raise NotImplementedError
