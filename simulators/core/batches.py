"""An engine's batch: its fields and finding one unit in it.

An engine batch holds units (games, matches) in id order and their deals as
rows of per-deal arrays, each row tagged with its unit's id and its deal
number within the unit; ``record(unit_id)`` needs both lookups, the same in
every room. The trick games' batches share their fields: :class:`DealBatch`
and :class:`GameBatch`, which a room subclasses with its config and arrays
types and its ``record``; :class:`DealsPlayed` collects a batch of games'
deals, step by step, while an engine plays them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import polars as pl

ConfigT = TypeVar("ConfigT")
ArraysT = TypeVar("ArraysT")


@dataclass(frozen=True)
class DealBatch(Generic[ConfigT, ArraysT]):
    """Independent deals: ``table`` (one row per deal) and the raw ``arrays``."""

    config: ConfigT
    seed: int
    deal_ids: np.ndarray
    arrays: ArraysT
    table: pl.DataFrame


@dataclass(frozen=True)
class GameBatch(Generic[ConfigT, ArraysT]):
    """Whole games with a drawn first dealer: ``deals`` (one row per deal), ``games`` (one row
    per game, or per game and seat) and the raw per-deal ``arrays``."""

    config: ConfigT
    seed: int
    game_ids: np.ndarray
    arrays: ArraysT
    deal_game: np.ndarray  # game id of each row of arrays
    deal_no: np.ndarray  # deal number within its game
    dealer_draw: np.ndarray  # (games, 32)
    first_dealer: np.ndarray
    deals: pl.DataFrame
    games: pl.DataFrame

    def game_rows(self, game_id: int) -> tuple[int, np.ndarray]:
        """The game's position in the batch and its rows of ``arrays`` in play order."""
        return (unit_index(self.game_ids, game_id, "game"),
                unit_rows(self.deal_game, self.deal_no, game_id))


class DealsPlayed(Generic[ArraysT]):
    """The deals of a batch of whole games as an engine plays them, one step (the next deal
    of every unfinished game) at a time: each step's per-deal arrays in ``parts``, and each
    row's game id and deal number within its game."""

    def __init__(self) -> None:
        self.parts: list[ArraysT] = []
        self._game_ids: list[np.ndarray] = []
        self._deal_nos: list[np.ndarray] = []

    def add(self, arrays: ArraysT, game_ids: np.ndarray, step: int) -> None:
        """Step ``step``'s deals: one row of ``arrays`` per game of ``game_ids``."""
        self.parts.append(arrays)
        self._game_ids.append(game_ids)
        self._deal_nos.append(np.full(len(game_ids), step, dtype=np.int16))

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's game id and deal number, the rows of ``parts`` end to end."""
        return np.concatenate(self._game_ids), np.concatenate(self._deal_nos)


def unit_index(unit_ids: np.ndarray, unit_id: int, singular: str) -> int:
    """Position of ``unit_id`` in the batch's sorted ``unit_ids``; ``ValueError`` if absent."""
    g = int(np.searchsorted(unit_ids, unit_id))
    if g >= len(unit_ids) or unit_ids[g] != unit_id:
        raise ValueError(f"{singular} {unit_id} is not in this batch")
    return g


def unit_rows(row_unit: np.ndarray, row_no: np.ndarray, unit_id: int) -> np.ndarray:
    """Rows of one unit's deals in play order (``row_unit``: each row's unit id, ``row_no``:
    its deal number within the unit)."""
    rows = np.flatnonzero(row_unit == unit_id)
    return rows[np.argsort(row_no[rows])]
