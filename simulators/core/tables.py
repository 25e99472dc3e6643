"""Building a unit's tables from engine arrays: the column helpers every room uses."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl


def enum_column(name: str, codes: np.ndarray, categories: Sequence[str],
                missing: int | None = None) -> pl.Series:
    """An Enum column from category codes (``codes[i]`` indexes ``categories``).

    A gather: ``Series.replace_strict`` plans a query on every call (about
    6 ms, the largest fixed cost of a 50,000-deal chunk of Bianco Mano), a
    gather costs microseconds plus the rows. ``missing``: the code that stands
    for no value (a null in the column).
    """
    dtype = pl.Enum(list(categories))
    codes = np.asarray(codes)
    present = None if missing is None else codes != missing
    index = (codes if present is None else np.where(present, codes, 0)).astype(np.uint32)
    column = pl.Series(name, list(categories), dtype=dtype).gather(index)
    if present is not None and not present.all():
        column = column.set(pl.Series(~present), None)
    return column
