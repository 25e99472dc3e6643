"""Finding one unit in an engine's batch: its position among the ids, its deals in order.

An engine batch holds units (games, matches) in id order and their deals as
rows of per-deal arrays, each row tagged with its unit's id and its deal
number within the unit; ``record(unit_id)`` needs both lookups, the same in
every room.
"""

from __future__ import annotations

import numpy as np


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
