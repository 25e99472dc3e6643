"""The ``net`` policy of any game: each decision a game has learned played by its net.

A game's ``NetPolicy`` puts :class:`NetDecisions` first in its bases, before the policy
that plays everything the nets do not (``NetPolicy(NetDecisions, HeuristicPolicy)``), and
names its ``LEARN`` spec, its ``GAME`` and its ``PRIMARY`` decision: the one whose weights
file the parameter ``weights`` names. The other decisions' nets are read from the shipped
files, or beside ``weights`` (``weights-<decision>.npz`` next to
``weights-<PRIMARY>.npz``, as ``tapisvert learn GAME train`` writes them); a decision with
no net stays the base policy's. Every net is read when the policy is made, so a bad file is
refused (one line) before any work.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import ClassVar

from simulators.core.learn.spec import LearnSpec, play_gated
from simulators.core.params import Policy, param


@cache
def primary_net(spec: LearnSpec, game: str, decision: str, path: str):
    """The net of the policy's primary decision: ``path``, or the shipped file."""
    return spec.load(game, decision, path or None)


@cache
def sibling_net(spec: LearnSpec, game: str, primary: str, primary_path: str, decision: str):
    """Another decision's net: shipped with the primary one (``primary_path`` empty), or the
    file ``weights-<decision>.npz`` beside a primary net ``weights-<primary>.npz`` (a
    ``learn`` out-dir); None when there is none (that decision stays the base policy's)."""
    if not primary_path:
        path = spec.shipped.get(decision)
    else:
        given = Path(primary_path)
        path = given.with_name(f"weights-{decision}.npz") \
            if given.name == f"weights-{primary}.npz" else None
    if path is None or not Path(path).is_file():
        return None
    return spec.load(game, decision, path)


@dataclass(frozen=True)
class NetDecisions(Policy):
    """The nets of ``LEARN`` (class attributes ``LEARN``, ``GAME``, ``PRIMARY``) from the
    shipped weights or ``weights`` (module docstring)."""

    LEARN: ClassVar[LearnSpec]
    GAME: ClassVar[str]
    PRIMARY: ClassVar[str]

    weights: str = param("", doc="the weights file (.npz) made by 'tapisvert learn GAME "
                                 "train' (its other nets beside it); empty: the nets shipped "
                                 "with the package")

    def __post_init__(self) -> None:
        super().__post_init__()
        try:  # every net it will play is read now: a bad file is refused before any work
            self.decision_net(self.PRIMARY)
            for decision in self.LEARN.decisions:
                if decision != self.PRIMARY:
                    self.decision_net(decision)
        except ValueError as error:
            raise ValueError(f"{type(self).__name__}.weights: {error}") from None

    def plays_by_net(self, decision: str) -> bool:
        """Whether ``decision`` is the net's when it has one (a game's switch, e.g. the
        trick games' ``auction``); the primary decision always is."""
        return True

    def decision_net(self, decision: str):
        """The net playing ``decision``, or None (the base policy's)."""
        if decision == self.PRIMARY:
            return primary_net(self.LEARN, self.GAME, decision, self.weights)
        if not self.plays_by_net(decision):
            return None
        return sibling_net(self.LEARN, self.GAME, self.PRIMARY, self.weights, decision)

    def net_decides(self, decision: str, obs, otherwise=None, *, margin: float = 0.0,
                    own_index=None):
        """``decision`` by its net when there is one, else by ``otherwise(obs)``; with a
        ``margin``, the base policy's own answer (``own_index(rows)``, as the net's action
        indices) kept unless the net scores another at least that much higher
        (:func:`~simulators.core.learn.spec.play_gated`)."""
        net = self.decision_net(decision)
        if net is None:
            return otherwise(obs)
        return play_gated(self.LEARN.decisions[decision], net, obs, own_index, margin)


def margin_param(default: float):
    """The ``margin`` parameter of a game's ``net`` whose nets keep the base policy's answer
    on a close call (the game's default: its doc says where it was chosen)."""
    return param(default, low=0.0, high=50.0,
                 doc="points: a gated decision leaves the heuristic's own answer only for "
                     "an action the net scores at least this much higher; 0: the net's best")
