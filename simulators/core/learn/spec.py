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
    action indices (B,) back to what the engine takes. Labels keep the observation, not
    its features, so the encoder may change without labelling again:
    ``snapshot(obs, rows)`` is those rows' observation as plain arrays (one per field, a
    row each), ``restore(columns)`` an observation ``features`` and ``legal`` read.
    """

    name: str
    n_features: int
    n_actions: int
    features: Callable[[Any], np.ndarray]
    legal: Callable[[Any], np.ndarray]
    teacher_values: Callable[[Any, Any, int], np.ndarray | None]
    action: Callable[[Any, np.ndarray], np.ndarray]
    snapshot: Callable[[Any, np.ndarray], dict[str, np.ndarray]]
    restore: Callable[[dict[str, np.ndarray]], Any]
    teacher_rows: Callable[[Any, Any, np.ndarray], np.ndarray] | None = None
    """Optional: ``teacher_rows(teacher, obs, rows)`` (len(rows), ``n_actions``) the values of
    many rows at once (a teacher that batches its work, e.g. rollouts), used instead of
    ``teacher_values``; a row of NaN teaches nothing (it is not kept)."""
    values_in_net_order: Callable[[Any, np.ndarray], np.ndarray] | None = None
    """Optional: ``values_in_net_order(obs, values)``, the labels' values (kept in an order
    the encoder does not choose, e.g. the table's kinds) in the net's action order; None:
    the teacher gives them in the net's order (e.g. one fixed by the rules, as the trump
    suit first)."""


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
    regrets: Callable[..., np.ndarray] | None = None
    """``regrets(config, policies, seed, first, count)``: units ``first .. first + count - 1``
    of ``seed`` played by ``policies``, and each card play's double-dummy regret in the true
    deal (units, plays), NaN for forced plays; None if the game has no such measure."""
    behaviour_params: dict[str, Any] = field(default_factory=dict)
    """The ``net`` policy's parameters when it is a DAgger round's behaviour (e.g. a gate
    turned off, so that the labelled states are those the student's own choices reach and a
    change of the player's defaults does not change the recipe)."""

    def load(self, game: str, decision: str, path: str | Path | None = None) -> mlp.Mlp:
        """The net of one decision: ``path``, or the shipped file."""
        d = self.decisions[decision]
        path = self.shipped.get(decision) if path in (None, "") else path
        if path is None:
            raise ValueError(f"no shipped weights for {game}'s {decision} decision")
        return mlp.load(path, game=game, decision=decision, n_features=d.n_features,
                        n_actions=d.n_actions)


def play_chosen(decision: Decision, net, obs) -> np.ndarray:
    """The net's best legal action in each row of a batch (:func:`play_gated` with no margin)."""
    return play_gated(decision, net, obs, None, 0.0)


def play_gated(decision: Decision, net, obs, own_index, margin: float) -> np.ndarray:
    """The net's best legal action, save where it scores less than ``margin`` above the base
    policy's own answer, which is kept (a search's significance gate, as a margin).

    ``own_index(rows)`` gives that answer for those rows of ``obs`` as the net's action
    indices (-1: none of the net's). It is asked only where it can matter: the rows whose
    best two legal actions score less than ``margin`` apart (elsewhere the best is played
    whatever the answer), so never with ``margin`` 0. Rows with one legal action take it
    without asking the net (about a third of a trick game's card plays)."""
    from simulators.core.dispatch import _rows_of

    legal = decision.legal(obs)
    index = legal.argmax(axis=1)
    rows = np.flatnonzero(legal.sum(axis=1) > 1)
    if len(rows):
        sub = obs if len(rows) == len(legal) else _rows_of(obs, rows, len(legal))
        ok = legal[rows]
        scores = np.where(ok, net.scores(decision.features(sub)), -np.inf)
        best = scores.argmax(axis=1)
        close = np.flatnonzero(scores.max(axis=1) - np.partition(scores, -2, axis=1)[:, -2]
                               < margin)
        if len(close):
            own = np.asarray(own_index(rows[close]), np.int64)
            at = np.maximum(own, 0)
            keep = ((own >= 0) & ok[close, at]
                    & (scores[close, best[close]] - scores[close, at] < margin))
            best[close] = np.where(keep, own, best[close])
        index[rows] = best
    return decision.action(obs, index)


RESERVED_COLUMNS = frozenset({"first_unit", "round", "values"})
"""Columns of every labels table (the chunk's first unit, the labels directory, the
teacher's values): a decision's snapshot may not use these names."""


class Recorder:
    """Collects labelled rows while a batch is played (one chunk, in one worker).

    At each decision the recording policy calls :meth:`see`: every row with more than one
    legal action is labelled by the teacher (its value of every legal action) and kept
    with its observation (``Decision.snapshot``); :meth:`columns` gives the chunk's rows.
    """

    def __init__(self, spec: LearnSpec, decisions: tuple[str, ...], teacher: Any):
        self.spec, self.decisions, self.teacher = spec, decisions, teacher
        self.kept: dict[str, list[tuple[dict[str, np.ndarray], np.ndarray]]] = {
            d: [] for d in decisions}

    def _keep(self, name: str, snapshot: dict[str, np.ndarray], values: np.ndarray) -> None:
        clash = RESERVED_COLUMNS & set(snapshot)
        if clash:  # the labels' own columns would overwrite the field when read back
            raise ValueError(f"the {name} decision's snapshot names a field "
                             f"{sorted(clash)[0]!r}, a column the labels keep for themselves "
                             f"({', '.join(sorted(RESERVED_COLUMNS))}): rename it")
        self.kept[name].append((snapshot, values))

    def see(self, name: str, obs) -> None:
        if name not in self.kept:
            return
        d = self.spec.decisions[name]
        legal = d.legal(obs)
        if d.teacher_rows is not None:
            rows = np.flatnonzero(legal.sum(axis=1) > 1)
            if len(rows):
                values = d.teacher_rows(self.teacher, obs, rows).astype(np.float32)
                teaches = ~np.isnan(values).all(axis=1)  # a row of NaN teaches nothing
                if teaches.any():
                    self._keep(name, d.snapshot(obs, rows[teaches]), values[teaches])
            return
        rows, values = [], []
        for i in np.flatnonzero(legal.sum(axis=1) > 1):
            v = d.teacher_values(self.teacher, obs, int(i))
            if v is not None:
                rows.append(i)
                values.append(v.astype(np.float32))
        if rows:
            self._keep(name, d.snapshot(obs, np.array(rows)), np.stack(values))

    def columns(self, name: str) -> dict[str, np.ndarray]:
        """One decision's rows: the observation's fields and ``values`` (n, A)."""
        kept = self.kept[name]
        if not kept:
            return {}
        fields = {k: np.concatenate([snap[k] for snap, _ in kept]) for k in kept[0][0]}
        return {**fields, "values": np.concatenate([v for _, v in kept])}
