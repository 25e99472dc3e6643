"""Rollouts for any game: one step of policy iteration on determinized continuations.

At each decision of the kinds it rolls out, the player

1. lists the candidate actions, the base policy's own answer first;
2. deals ``k`` worlds consistent with what he knows (the game's
   determinization: his hand and everything face up are kept, the hidden
   cards dealt again uniformly);
3. plays every candidate in every world, every seat then played by the base
   policy, until the horizon (the end of this turn, of the round or of the
   game), and scores his own seat;
4. keeps the candidate with the best mean score among those whose paired
   gain over the base's answer is significant (:func:`choose`).

The same ``k`` worlds and the same engine random numbers serve every candidate
(common random numbers), so the candidates are compared on paired
continuations, and a tie keeps the base's answer. Rolling out is one step of
policy iteration (Bertsekas, *Rollout algorithms*): in expectation it is never
worse than the base, which is why a fast simulator makes a strong player.

The game supplies the world. An engine whose table holds a policy with
``wants_world = True`` puts a ``world`` object in each observation; the world
knows the engine state behind the decision and answers:

``candidates(method, base_answer, width) -> (actions (R, C), valid (R, C) bool)``
    the actions worth trying at this decision, the base's answer in column 0,
    at most ``width`` of them (0: all) ordered best first by a quick estimate;
``scores(actions, valid, base, k, horizon, seed) -> (R, C, k) float``
    the deciding seat's score in each of ``k`` worlds per row for each
    candidate, the same worlds for every candidate;
``select(rows) -> world``
    the same world for some rows (the dispatcher asks a costly policy about
    its own rows only).

A game registers a subclass of :class:`RolloutPolicy` that names its base
policies (``registry``), its decision methods, the kinds it can roll out and
its horizons (the last is the default).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from simulators.core.params import Policy, param

HORIZONS = ("turn", "round", "game")
K_DOC = "worlds (continuations) per candidate action"
BASE_DOC = "the policy every seat plays in the continuations (and this one where it does not "\
           "roll out)"


@dataclass(frozen=True)
class RolloutPolicy(Policy):
    """Base of every game's ``rollout`` policy (see the module's docstring)."""

    costly = True
    wants_world = True
    units_per_chunk = 100

    # set by each game's subclass
    registry: ClassVar[Callable[[], Mapping[str, type[Policy]]]]
    methods: ClassVar[tuple[str, ...]] = ()
    decision_kinds: ClassVar[tuple[str, ...]] = ()
    horizons: ClassVar[tuple[str, ...]] = ()

    base: str = param("heuristic", doc=BASE_DOC)
    k: int = param(16, low=1, high=4096, doc=K_DOC)
    kinds: str = param("", doc="decision kinds rolled out, comma-separated (empty: all the "
                               "game's kinds)")
    width: int = param(0, low=0, high=64, doc="candidates tried per decision, the base's "
                                               "answer and the best by the game's quick "
                                               "estimate (0: every legal action)")
    confidence: float = param(1.0, low=0.0, high=10.0,
                              doc="standard errors by which a candidate's paired gain must "
                                  "beat the base's answer to be played (0: the best mean)")
    horizon: str = param("", doc="where a continuation stops: turn, round or game (empty: "
                                 "the game's last)")
    seed: int = param(0, low=0, high=2**31 - 1, doc="seed of the worlds (with the deal's own "
                                                   "ids: a decision deals the same worlds "
                                                   "whatever the batch)")

    def __post_init__(self) -> None:
        super().__post_init__()
        name = type(self).__name__
        known = self.registry()
        bases = sorted(p for p, c in known.items() if not issubclass(c, RolloutPolicy)
                       and all(callable(getattr(c, m, None)) for m in self.methods))
        if self.base not in bases:
            raise ValueError(f"{name}.base must be one of {', '.join(bases)}, got "
                             f"{self.base!r}")
        kinds = tuple(k.strip() for k in self.kinds.split(",") if k.strip()) \
            or self.decision_kinds
        unknown = [k for k in kinds if k not in self.decision_kinds]
        if unknown:
            raise ValueError(f"{name}.kinds: {', '.join(unknown)} cannot be rolled out (kinds: "
                             f"{', '.join(self.decision_kinds)})")
        horizon = self.horizon or self.horizons[-1]
        if horizon not in self.horizons:
            raise ValueError(f"{name}.horizon must be one of {', '.join(self.horizons)}, got "
                             f"{self.horizon!r}")
        object.__setattr__(self, "_base", known[self.base]())
        object.__setattr__(self, "_kinds", frozenset(kinds))
        object.__setattr__(self, "_horizon", horizon)

    @property
    def uses_noise(self) -> bool:
        """The base's noise serves the decisions this policy leaves to it."""
        return getattr(self._base, "uses_noise", False)

    def __getattr__(self, name: str) -> Any:
        if name in type(self).methods:
            return partial(self._decide, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def _decide(self, method: str, obs):
        """The base's answer, or the best candidate where this kind is rolled out."""
        answer = getattr(self._base, method)(obs)
        world = getattr(obs, "world", None)
        if method not in self._kinds or world is None:
            return answer
        answer = np.asarray(answer)
        if not len(answer):
            return answer
        actions, valid = world.candidates(method, answer, self.width)
        if actions.shape[1] < 2:
            return answer
        scores = world.scores(actions, valid, self._base, self.k, self._horizon, self.seed)
        best = choose(scores, valid, self.confidence)
        return actions[np.arange(len(actions)), best].astype(answer.dtype)


def choose(scores: np.ndarray, valid: np.ndarray, confidence: float) -> np.ndarray:
    """Per row, the candidate to play from its (R, C, k) scores on common worlds: the best
    mean among the candidates whose paired gain over the base's answer (column 0) exceeds
    ``confidence`` standard errors, else the base's answer.

    A paired test on the same worlds: with few worlds, the plain best mean among many
    candidates is often a lucky one (the winner's curse), and a rollout that leaves its
    base on noise alone can do worse than the base.
    """
    k = scores.shape[2]
    gain = scores - scores[:, :1, :]
    mean = gain.mean(axis=2)
    if k > 1 and confidence > 0:
        error = gain.std(axis=2, ddof=1) / np.sqrt(k)
        eligible = valid & (mean > confidence * error) & (mean > 0)
    else:
        eligible = valid & (mean > 0)
    eligible[:, 0] = True
    return np.argmax(np.where(eligible, mean, -np.inf), axis=1)  # ties: the first, the base


def narrow(actions: np.ndarray, valid: np.ndarray, width: int):
    """At most ``width`` candidates (0: all), the first ones (the base's answer first)."""
    if width and actions.shape[1] > width:
        return actions[:, :width], valid[:, :width]
    return actions, valid


def common_worlds(entropy: int, units: np.ndarray, stream: int, key: tuple[int, ...],
                  k: int, size: int) -> np.ndarray:
    """(R, k, size) float64 uniforms for the worlds of each row: a pure function of
    (entropy, the row's unit, stream, key), so the same decision deals the same worlds in any
    batch, chunk or process."""
    out = np.empty((len(units), k, size))
    for i, unit in enumerate(np.asarray(units, dtype=np.int64).tolist()):
        seq = np.random.SeedSequence(entropy, spawn_key=(stream, unit, *key))
        out[i] = np.random.Generator(np.random.PCG64(seq)).random((k, size))
    return out


def deal_hidden(hidden: np.ndarray, slots: np.ndarray, rest: np.ndarray | int,
                uniforms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deal the cards a player cannot see, uniformly among the places they may be.

    ``hidden`` (W, K) counts the hidden cards of each world by kind; ``slots`` (W, m) the
    unknown cards of each other player; ``rest`` (W,) how many hidden cards lie elsewhere
    (a stock, in order). ``uniforms`` (W, >= total) drive one uniform shuffle of the hidden
    cards, dealt in order: the others' slots in seat order, then the rest. Returns the
    others' dealt cards (W, m, K) counts and the rest (W, width) kinds in order, -1 past its
    end. Every arrangement of the hidden cards into the slots and the rest's order is
    equally likely (``tests/core/test_rollout.py`` checks it by enumeration).
    """
    hidden = np.asarray(hidden, dtype=np.int64)
    slots = np.asarray(slots, dtype=np.int64)
    w, n_kinds = hidden.shape
    m = slots.shape[1]
    total = hidden.sum(axis=1)
    rest = np.broadcast_to(np.asarray(rest, dtype=np.int64), (w,))
    if (hidden < 0).any() or (slots < 0).any():
        raise ValueError("deal_hidden: negative hidden cards or slots (the seen cards exceed "
                         "the deck)")
    if (total != slots.sum(axis=1) + rest).any():
        raise ValueError("deal_hidden: the hidden cards do not fill the slots and the rest")
    width = int(total.max()) if w else 0
    start = np.cumsum(total) - total
    kinds = np.repeat(np.tile(np.arange(n_kinds), w), hidden.ravel())
    row = np.repeat(np.arange(w), total)
    pool = np.full((w, width), -1, dtype=np.int64)
    pool[row, np.arange(len(kinds)) - np.repeat(start, total)] = kinds
    keys = np.where(pool >= 0, uniforms[:, :width], np.inf)
    shuffled = np.take_along_axis(pool, np.argsort(keys, axis=1, kind="stable"), axis=1)
    bounds = np.cumsum(slots, axis=1)
    position = np.arange(width)[None, :]
    owner = (position[:, :, None] >= bounds[:, None, :]).sum(axis=2)  # m: the rest
    present = shuffled >= 0
    dealt = np.zeros((w, m, n_kinds), dtype=np.int64)
    to_slot = present & (owner < m)
    np.add.at(dealt, (np.nonzero(to_slot)[0], owner[to_slot], shuffled[to_slot]), 1)
    in_rest = present & (owner == m)
    ordered = np.full((w, width), -1, dtype=np.int64)
    ordered[np.nonzero(in_rest)[0], (position - bounds[:, -1:])[in_rest]] = shuffled[in_rest]
    return dealt, ordered
