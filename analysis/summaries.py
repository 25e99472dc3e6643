"""A game's declared metrics evaluated over a table, as tidy rows with intervals.

Games declare their headline figures as polars expressions
(:class:`simulators.core.game.Metric`); this module evaluates any list of
them over a DataFrame or LazyFrame in one lazy query (only counts, sums and
sums of squares leave it, so a 10^7-row run stays small in memory) and
attaches a Wilson interval to rates and a Student-t interval to means.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from analysis import stats
from simulators.core.game import Metric

COLUMNS = ("metric", "label", "kind", "value", "low", "high", "n")


def _aggregations(metric: Metric, i: int) -> list[pl.Expr]:
    event = metric.value.fill_null(False) if metric.kind == "rate" else metric.value
    if metric.where is None:
        total = pl.len()
    else:
        where = metric.where.fill_null(False)
        total = where.sum()
        event = (where & event) if metric.kind == "rate" else event.filter(where)
    if metric.kind == "rate":
        return [total.alias(f"n{i}"), event.sum().alias(f"k{i}")]
    value = event.cast(pl.Float64)
    return [value.count().alias(f"n{i}"), value.mean().alias(f"m{i}"),
            value.std(ddof=1).alias(f"s{i}")]


def evaluate(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame,
             confidence: float = 0.95) -> pl.DataFrame:
    """One row per metric: ``metric, label, kind, value, low, high, n``.

    ``n`` is the denominator: the rows counted by the metric's ``where``.
    """
    if not metrics:
        return pl.DataFrame(schema={c: pl.String for c in COLUMNS[:3]}
                            | {"value": pl.Float64, "low": pl.Float64, "high": pl.Float64,
                               "n": pl.Int64})
    aggs = [a for i, m in enumerate(metrics) for a in _aggregations(m, i)]
    row = frame.lazy().select(aggs).collect(engine="streaming").row(0, named=True)
    rows = []
    for i, m in enumerate(metrics):
        if m.kind == "rate":
            e = stats.proportion(int(row[f"k{i}"]), int(row[f"n{i}"]), confidence)
        else:
            e = stats.mean_from_moments(row[f"m{i}"], row[f"s{i}"], int(row[f"n{i}"]),
                                        confidence)
        rows.append({"metric": m.name, "label": m.label, "kind": m.kind, "value": e.value,
                     "low": e.low, "high": e.high, "n": e.n})
    return pl.DataFrame(rows, schema_overrides={"n": pl.Int64})


def estimate(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame, name: str,
             confidence: float = 0.95) -> stats.Estimate:
    """One metric, by name, as an Estimate."""
    chosen = [m for m in metrics if m.name == name]
    if not chosen:
        raise ValueError(f"metric must be one of {', '.join(m.name for m in metrics)}, "
                         f"got {name!r}")
    r = evaluate(chosen, frame, confidence).row(0, named=True)
    return stats.Estimate(r["value"], r["low"], r["high"], r["n"])
