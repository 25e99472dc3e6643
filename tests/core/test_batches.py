"""Looking up one unit of an engine batch."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.batches import unit_index, unit_rows


def test_unit_index_finds_an_id_or_names_the_missing_one():
    ids = np.array([3, 4, 7])
    assert unit_index(ids, 7, "game") == 2
    for missing in (0, 5, 8):
        with pytest.raises(ValueError, match=f"game {missing} is not in this batch"):
            unit_index(ids, missing, "game")


def test_unit_rows_are_the_units_deals_in_play_order():
    row_unit = np.array([3, 4, 3, 3, 4])
    row_no = np.array([2, 0, 0, 1, 1])
    assert unit_rows(row_unit, row_no, 3).tolist() == [2, 3, 0]
    assert unit_rows(row_unit, row_no, 4).tolist() == [1, 4]
