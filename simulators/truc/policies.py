"""Truc policies: a random-legal baseline and a parameterized heuristic family.

All are plain numpy over whole batches (``observations.py`` lists the four
decision methods and what each observation holds) and pure functions of the
observation and its noise. To write your own, copy one, keep the method
signatures and declare parameters with :func:`~simulators.core.params.param`::

    @dataclass(frozen=True)
    class NeverDouble(HeuristicPolicy):
        def propose(self, obs):
            return np.zeros(len(obs.hand), dtype=bool)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core import bits
from simulators.core.params import Policy, param, policy_from_registry
from simulators.truc import rules as R

U32 = np.uint32
I8 = np.int8


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """Uniformly random card play; each other decision is a coin of set probability."""

    uses_noise = True

    ask_probability: float = param(0.5, low=0.0, high=1.0,
                                   doc="probability of asking for new cards (TR-2)")
    propose_probability: float = param(0.25, low=0.0, high=1.0,
                                       doc="probability of proposing before a card (TR-4)")
    accept_probability: float = param(0.5, low=0.0, high=1.0,
                                      doc="probability of accepting a proposal (TR-4)")
    counter_probability: float = param(0.5, low=0.0, high=1.0,
                                       doc="share of acceptances turned into a counter-banco "
                                           "where one is allowed (TR-5)")

    def call(self, obs):
        """Ask for new cards with ``ask_probability``."""
        return obs.noise < self.ask_probability

    def propose(self, obs):
        """Propose with ``propose_probability``."""
        return obs.noise < self.propose_probability

    def answer(self, obs):
        """Accept with ``accept_probability``; counter part of those where allowed."""
        accept = obs.noise < self.accept_probability
        scaled = obs.noise / max(self.accept_probability, 1e-30)
        counter = accept & (obs.counter > 0) & (scaled < self.counter_probability)
        return np.where(counter, I8(R.COUNTER), accept.astype(I8))

    def play(self, obs):
        """A card of the hand at random."""
        return bits.random_bit(obs.hand, obs.noise)


POLICIES: dict[str, type[Policy]] = {"random": RandomPolicy}


def make_policy(name: str, **params) -> Policy:
    """A policy by registry name with validated keyword parameters."""
    return policy_from_registry(POLICIES, "Truc", name, **params)
