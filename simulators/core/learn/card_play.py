"""What the trick games' learned card players share (a card is ``4 * rank + suit``).

Each game keeps its features, its snapshot fields and its teacher; the rest is here: a
field per row (:func:`per_row`), a snapshot of rows (:func:`snapshot`), the teacher's
values of the legal cards in canonical order (:func:`teacher_values`), the net's index
back to a card (:func:`card_of`), a snapshot read back (:func:`restore`), the recording
wrapper's card play (:class:`RecordingCardPlay`) and the ``net`` policy's parameter and
play (:class:`NetCardPlay`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from simulators.core.dispatch import _rows_of
from simulators.core.learn import cards as C
from simulators.core.learn.policy import NetDecisions, margin_param


def per_row(obs, name: str, default: int = -1) -> np.ndarray:
    """A field as one int64 value per row: the engine gives some once for the batch
    (the position in the trick, the trick number) or not at all (``default``)."""
    value = getattr(obs, name, None)
    return np.broadcast_to(np.asarray(default if value is None else value, np.int64),
                           (len(obs.hand),))


def snapshot(fields: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """``rows`` of an observation's fields (each with a value per row), as labels keep them:
    one column per field, any trailing axes flattened (the play so far)."""
    out = {}
    for name, value in fields.items():
        value = np.asarray(value)[rows]
        out[name] = value.reshape(len(rows), -1) if value.ndim > 2 else value
    return out


def snapshot_fields(obs, rows: np.ndarray, fields, rename: dict[str, str] | None = None
                    ) -> dict[str, np.ndarray]:
    """``rows`` of an observation's ``fields`` as labels keep them, a value (or an array) per
    row (a field the engine gives once for the batch is repeated); ``rename`` keeps a field
    under another column name (one the labels keep for themselves, e.g. ``round``)."""
    n, rename = len(obs.hand), rename or {}
    out = {}
    for f in fields:
        value = np.asarray(getattr(obs, f))
        out[rename.get(f, f)] = np.broadcast_to(value, value.shape if value.ndim else (n,)
                                                )[rows].copy()
    return out


def teacher_values(values: np.ndarray, legal: int, trump: int) -> np.ndarray | None:
    """A teacher's (32,) card values (or a 0-d array: the one card worth playing) as a
    label: canonical order under ``trump``, NaN where illegal; None for the 0-d case."""
    if values.shape == ():
        return None
    is_legal = C.mask_bits(np.array([legal], np.uint32))[0] > 0
    return np.where(is_legal, values, np.nan)[C.CANONICAL[int(trump)]]


def card_of(index: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """The net's canonical card indices back to the table's cards (int8)."""
    return C.from_canonical(index, trump).astype(np.int8)


def restore(columns: dict[str, np.ndarray]):
    """An observation read back from a snapshot's columns (attributes, as the engine's)."""
    return SimpleNamespace(**{k: np.asarray(v) for k, v in columns.items()})


def recorded(decision: str):
    """A recording wrapper's method for ``decision``: the batch shown to the recorder, then
    played by the behaviour policy (``bid = recorded("bid")``)."""
    def method(self, obs):
        self.recorder.see(decision, obs)
        return getattr(self.behaviour, decision)(obs)
    method.__name__ = decision
    method.__doc__ = f"``{decision}``: shown to the recorder, then the behaviour's."
    return method


@dataclass(frozen=True)
class CardAndAuctionTeacher:
    """A trick game's teacher in two parts: ``card`` values each card play (PIMC, or the
    deal actually dealt solved double-dummy), and ``auction`` the other decisions, read by
    their ``teacher_rows`` (rollouts)."""

    card: Any
    auction: Any

    def card_values(self, obs, i: int) -> np.ndarray:
        return self.card.card_values(obs, i)

    @property
    def wants_world(self) -> bool:
        """Whether the card part reads the deal actually dealt (the engine's ``world``)."""
        return bool(getattr(self.card, "wants_world", False))


def card_teacher_rows(teacher_values):
    """A card decision's ``teacher_rows`` from its ``teacher_values(teacher, obs, i)``: the
    teacher's card part answers a batch at once where it can (``card_rows(obs, rows)``: the
    deal actually dealt, solved for every row in one call), else row by row (PIMC), a row
    of NaN where the teacher says it teaches nothing."""
    def rows_of(teacher, obs, rows: np.ndarray) -> np.ndarray:
        batch = getattr(getattr(teacher, "card", None), "card_rows", None)
        if batch is not None:
            return batch(obs, rows)
        out = np.full((len(rows), C.N_CARDS), np.nan, np.float32)
        for k, i in enumerate(rows):
            values = teacher_values(teacher, obs, int(i))
            if values is not None:
                out[k] = values
        return out
    return rows_of


@dataclass(frozen=True, eq=False)
class RecordingCardPlay:
    """A recording wrapper's card play: each batch shown to the recorder, then played by the
    behaviour policy. A game subclasses it with ``@forwards("behaviour", ...)`` for its
    other decision methods (explicit: no ``__getattr__``)."""

    behaviour: Any
    recorder: Any
    uses_noise: ClassVar[bool] = True  # the teacher's worlds are seeded by the row's noise
    # asked about its own seats' rows only: it records what it is asked, and a whole-batch
    # ask (SeatDispatch's way with cheap policies) would record the other seats' rows again
    costly: ClassVar[bool] = True

    @property
    def wants_world(self) -> bool:
        """Whether the recorder's teacher reads the deal actually dealt: then the engine
        puts it in each card play's observation (the behaviour never reads it)."""
        return bool(getattr(getattr(self.recorder, "teacher", None), "wants_world", False))

    def play(self, obs):
        self.recorder.see("card", obs)
        return self.behaviour.play(obs)


@dataclass(frozen=True)
class NetCardPlay(NetDecisions):
    """The ``net`` policy of a trick game: the card play by the net of ``LEARN`` (from the
    shipped weights or ``weights``), the auction's decisions by theirs while ``auction`` (a
    parameter of the game's ``NetPolicy``) is on; put it first in the bases
    (``NetPolicy(NetCardPlay, HeuristicPolicy)``), so the rest is the heuristic's."""

    PRIMARY: ClassVar[str] = "card"
    TRUMP: ClassVar[str] = "trump"
    """The observation's field the canonical card order turns on (Bianco Mano: ``dominant``)."""

    margin: float = margin_param(0.0)

    def play(self, obs):
        def own_index(rows):
            sub = _rows_of(obs, rows, len(obs.hand))
            own = np.asarray(super(NetCardPlay, self).play(sub), np.int64)  # the heuristic's
            return C.CANONICAL[per_row(sub, self.TRUMP, 0), own]

        return self.net_decides("card", obs, margin=self.margin, own_index=own_index)

    def plays_by_net(self, decision: str) -> bool:
        return getattr(self, "auction", True)
