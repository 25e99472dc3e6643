"""Headline rates of a simulated batch, as a tidy table with intervals."""

from __future__ import annotations

import polars as pl

from analysis import stats


def bianco_mano_rates(deals: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Take rate, contract success, capo and bonus rates of a Bianco Mano deal table.

    One row per metric: ``metric, value, low, high, n`` (n = the denominator).
    """
    total = deals.height
    taken = deals.filter(pl.col("outcome") != "all_pass")
    n_taken = taken.height
    made = taken.filter(pl.col("outcome").is_in(["made", "capo"])).height
    rows = [
        ("take rate", stats.proportion(n_taken, total, confidence)),
        ("taken in round 2", stats.proportion(
            taken.filter(pl.col("bid_round") == 2).height, n_taken, confidence)),
        ("contract success", stats.proportion(made, n_taken, confidence)),
        ("capo", stats.proportion(taken.filter(pl.col("outcome") == "capo").height, n_taken,
                                  confidence)),
        ("bonus announced", stats.proportion(taken["bonus_announced"].sum(), n_taken,
                                             confidence)),
    ]
    return pl.DataFrame(
        [{"metric": name, "value": e.value, "low": e.low, "high": e.high, "n": e.n}
         for name, e in rows]
    )
