"""Headline rates of simulated Bianco Mano deals, as tidy tables with intervals.

Every function takes a polars DataFrame or LazyFrame of the per-deal table
and aggregates lazily (only counts leave the query), so summaries of a
10^7-deal run stay small in memory.
"""

from __future__ import annotations

import polars as pl

from analysis import stats

RATE_METRICS = ("take_rate", "round2_share", "contract_success", "capo_rate", "bonus_rate")


def _counts(deals: pl.DataFrame | pl.LazyFrame) -> dict[str, int]:
    taken = pl.col("outcome") != "all_pass"
    counts = deals.lazy().select(
        deals=pl.len(),
        taken=taken.sum(),
        round2=(taken & (pl.col("bid_round") == 2)).sum(),
        made=pl.col("outcome").is_in(["made", "capo"]).sum(),
        capo=(pl.col("outcome") == "capo").sum(),
        bonus=pl.col("bonus_announced").sum(),
    ).collect(engine="streaming")
    return {k: int(v) for k, v in counts.row(0, named=True).items()}


def bianco_mano_rates(deals: pl.DataFrame | pl.LazyFrame, confidence: float = 0.95
                      ) -> pl.DataFrame:
    """Take rate, round-2 share, contract success, capo and bonus rates with intervals.

    One row per metric: ``metric, label, value, low, high, n`` (n = the
    denominator: all deals for the take rate, taken deals for the others).
    """
    c = _counts(deals)
    rows = [
        ("take_rate", "take rate", c["taken"], c["deals"]),
        ("round2_share", "taken in round 2", c["round2"], c["taken"]),
        ("contract_success", "contract success", c["made"], c["taken"]),
        ("capo_rate", "capo", c["capo"], c["taken"]),
        ("bonus_rate", "bonus announced", c["bonus"], c["taken"]),
    ]
    out = []
    for metric, label, k, n in rows:
        e = stats.proportion(k, n, confidence)
        out.append({"metric": metric, "label": label, "value": e.value, "low": e.low,
                    "high": e.high, "n": e.n})
    return pl.DataFrame(out)


def bianco_mano_rate(deals: pl.DataFrame | pl.LazyFrame, metric: str,
                     confidence: float = 0.95) -> stats.Estimate:
    """One of :data:`RATE_METRICS` as an Estimate."""
    if metric not in RATE_METRICS:
        raise ValueError(f"metric must be one of {RATE_METRICS}, got {metric!r}")
    row = bianco_mano_rates(deals, confidence).filter(pl.col("metric") == metric).row(
        0, named=True)
    return stats.Estimate(row["value"], row["low"], row["high"], row["n"])
