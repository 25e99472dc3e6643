"""What a game declares to have learned players: its decisions and its recording policy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simulators.core.learn import mlp


@dataclass(frozen=True, eq=False)
class Decision:
    """One kind of decision a net makes, over a batch observation of that decision.

    ``features(obs)`` (B, ``n_features``) float32 and ``legal(obs)`` (B, ``n_actions``)
    bool encode a batch; ``teacher_values(teacher, obs, i)`` is the teacher's value of
    each action in row ``i`` (``n_actions``,), NaN where illegal, or None when the row
    teaches nothing (a single sensible action); ``action(obs, index)`` maps the net's
    action indices (B,) back to what the engine takes.
    """

    name: str
    n_features: int
    n_actions: int
    features: Callable[[Any], np.ndarray]
    legal: Callable[[Any], np.ndarray]
    teacher_values: Callable[[Any, Any, int], np.ndarray | None]
    action: Callable[[Any, np.ndarray], np.ndarray]


@dataclass(frozen=True, eq=False)
class LearnSpec:
    """A game's learned players.

    ``decisions`` by name; ``teacher(**settings)`` builds the teacher (e.g. PIMC with its
    ``worlds`` and ``seed``); ``recording(behaviour, recorder)`` wraps the behaviour policy
    so that each decision the nets make is shown to the recorder before the behaviour
    plays it; ``shipped`` the weights file of each decision in the package; ``teacher_doc``
    says what the teacher is, in words.
    """

    decisions: dict[str, Decision]
    teacher: Callable[..., Any]
    recording: Callable[[Any, Recorder], Any]
    shipped: dict[str, Path] = field(default_factory=dict)
    teacher_doc: str = ""

    def load(self, game: str, decision: str, path: str | Path | None = None) -> mlp.Mlp:
        """The net of one decision: ``path``, or the shipped file."""
        d = self.decisions[decision]
        path = self.shipped.get(decision) if path in (None, "") else path
        if path is None:
            raise ValueError(f"no shipped weights for {game}'s {decision} decision")
        return mlp.load(path, game=game, decision=decision, n_features=d.n_features,
                        n_actions=d.n_actions)


class Recorder:
    """Collects labelled rows while a batch is played (one chunk, in one worker).

    At each decision the recording policy calls :meth:`see`: every row with more than one
    legal action is labelled by the teacher (its value of every legal action) and kept
    with its features and legal mask; :meth:`columns` gives the chunk's rows.
    """

    def __init__(self, spec: LearnSpec, decisions: tuple[str, ...], teacher: Any):
        self.spec, self.decisions, self.teacher = spec, decisions, teacher
        self.rows: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {
            d: [] for d in decisions}

    def see(self, name: str, obs) -> None:
        if name not in self.rows:
            return
        d = self.spec.decisions[name]
        legal = d.legal(obs)
        rows = np.flatnonzero(legal.sum(axis=1) > 1)
        if not len(rows):
            return
        features = d.features(obs)
        for i in rows:
            values = d.teacher_values(self.teacher, obs, int(i))
            if values is not None:
                self.rows[name].append((features[i], legal[i], values.astype(np.float32)))

    def columns(self, name: str) -> dict[str, np.ndarray]:
        """``features`` (n, F), ``legal`` (n, A) and ``values`` (n, A) of one decision."""
        d = self.spec.decisions[name]
        kept = self.rows[name]
        if not kept:
            return {"features": np.zeros((0, d.n_features), np.float32),
                    "legal": np.zeros((0, d.n_actions), bool),
                    "values": np.zeros((0, d.n_actions), np.float32)}
        features, legal, values = (np.stack(c) for c in zip(*kept, strict=True))
        return {"features": features.astype(np.float32), "legal": legal.astype(bool),
                "values": values}
