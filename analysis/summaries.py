"""A game's declared metrics evaluated over a table, as tidy rows with intervals.

Games declare their headline figures as polars expressions
(:class:`simulators.core.game.Metric`); this module evaluates any list of
them over a DataFrame or LazyFrame in one lazy query (only counts, sums and
sums of squares leave it, so a 10^7-row run stays small in memory) and
attaches a Wilson interval to rates and a Student-t interval to means.

When rows are not independent — the deals of one whole game share its
players' scores and its deck, so ``Unit.cluster = "game_id"`` — the
intervals are cluster-robust (:func:`analysis.stats.clustered`): the
variance of the ratio estimator is taken from the clusters' totals (the
"sandwich" variance with the G/(G-1) correction), a rate's Wilson interval
uses the effective sample size n / design effect, and a mean's t interval
has G - 1 degrees of freedom.

``by=`` groups the rows (a report's "take rate by position"): one query,
one row per group and metric, group columns first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from analysis import stats
from simulators.core.game import Metric

COLUMNS = ("metric", "label", "kind", "value", "low", "high", "n")


def _terms(metric: Metric) -> tuple[pl.Expr, pl.Expr]:
    """(rows counted, what is summed over them): a rate's event as a boolean where counted,
    a mean's value on the counted rows."""
    event = metric.value.fill_null(False) if metric.kind == "rate" else metric.value
    if metric.where is None:
        return pl.len(), event
    where = metric.where.fill_null(False)
    return where.sum(), (where & event) if metric.kind == "rate" else event.filter(where)


def _aggregations(metric: Metric, i: int) -> list[pl.Expr]:
    total, event = _terms(metric)
    if metric.kind == "rate":
        return [total.alias(f"n{i}"), event.sum().alias(f"k{i}")]
    value = event.cast(pl.Float64)
    return [value.count().alias(f"n{i}"), value.mean().alias(f"m{i}"),
            value.std(ddof=1).alias(f"s{i}")]


def _empty(by: Sequence[str], frame) -> pl.DataFrame:
    schema = frame.lazy().collect_schema() if by else {}
    return pl.DataFrame(schema={c: schema[c] for c in by}
                        | {c: pl.String for c in COLUMNS[:3]}
                        | {"value": pl.Float64, "low": pl.Float64, "high": pl.Float64,
                           "n": pl.Int64})


def evaluate(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame,
             confidence: float = 0.95, cluster: str | None = None,
             by: str | Sequence[str] = ()) -> pl.DataFrame:
    """One row per metric (and group): ``*by, metric, label, kind, value, low, high, n``.

    ``n`` is the denominator: the rows counted by the metric's ``where``.
    ``cluster`` names a column grouping dependent rows (``Unit.cluster``):
    the intervals are then cluster-robust (see the module docstring).
    ``by`` names columns to group by (``"position"``, ``["n_players",
    "round_no"]``): one lazy query, one row per group and metric, the groups
    sorted, each group's rows evaluated as if they were the whole frame.
    """
    by = [by] if isinstance(by, str) else list(by)
    if not metrics:
        return _empty(by, frame)
    if cluster is not None:
        return _evaluate_clustered(metrics, frame, cluster, confidence, by)
    aggs = [a for i, m in enumerate(metrics) for a in _aggregations(m, i)]
    lazy = frame.lazy()
    query = lazy.group_by(by).agg(aggs).sort(by, nulls_last=True) if by else lazy.select(aggs)
    rows = []
    for row in query.collect(engine="streaming").iter_rows(named=True):
        keys = {c: row[c] for c in by}
        for i, m in enumerate(metrics):
            if m.kind == "rate":
                e = stats.proportion(int(row[f"k{i}"]), int(row[f"n{i}"]), confidence)
            else:
                e = stats.mean_from_moments(row[f"m{i}"], row[f"s{i}"], int(row[f"n{i}"]),
                                            confidence)
            rows.append(keys | _row(m, e))
    return _frame(rows, by, frame)


def _row(metric: Metric, e: stats.Estimate) -> dict:
    return {"metric": metric.name, "label": metric.label, "kind": metric.kind,
            "value": e.value, "low": e.low, "high": e.high, "n": e.n}


def _frame(rows: list[dict], by: list[str], frame) -> pl.DataFrame:
    if not rows:
        return _empty(by, frame)
    schema = frame.lazy().collect_schema() if by else {}
    return pl.DataFrame(rows, schema_overrides={c: schema[c] for c in by} | {"n": pl.Int64})


def _cluster_totals(metric: Metric, i: int, cluster: str) -> list[pl.Expr]:
    """Per cluster: rows counted (n) and the sum of the value (y) of one metric."""
    every = pl.col(cluster).is_not_null()  # a column, so that sums count rows
    where = every if metric.where is None else metric.where.fill_null(False)
    if metric.kind == "rate":
        value = (where & metric.value.fill_null(False)).cast(pl.Float64)
        counted = where.cast(pl.Float64)
    else:
        numeric = metric.value.cast(pl.Float64)
        counted = (where & numeric.is_not_null()).cast(pl.Float64)
        value = pl.when(counted > 0).then(numeric).otherwise(0.0)
    return [counted.sum().alias(f"n{i}"), value.sum().alias(f"y{i}")]


def cluster_totals(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame,
                   cluster: str, by: str | Sequence[str] = ()
                   ) -> list[tuple[dict, list[stats.ClusterTotals]]]:
    """Per group: its ``by`` values and each metric's :class:`~analysis.stats.ClusterTotals`.

    What :func:`evaluate` turns into cluster-robust intervals, for a caller
    that needs the totals themselves (``stats.clustered_difference`` of two
    independent runs).
    """
    by = [by] if isinstance(by, str) else list(by)
    per = [a for i, m in enumerate(metrics) for a in _cluster_totals(m, i, cluster)]
    totals = frame.lazy().group_by([*by, cluster]).agg(per)
    moments = []
    for i in range(len(metrics)):
        n, y = pl.col(f"n{i}"), pl.col(f"y{i}")
        moments += [(n > 0).sum().alias(f"g{i}"), n.sum().alias(f"N{i}"), y.sum().alias(f"Y{i}"),
                    (y * y).sum().alias(f"yy{i}"), (n * y).sum().alias(f"ny{i}"),
                    (n * n).sum().alias(f"nn{i}")]
    query = (totals.group_by(by).agg(moments).sort(by, nulls_last=True) if by
             else totals.select(moments))
    return [({c: row[c] for c in by},
             [stats.ClusterTotals(int(row[f"g{i}"]), row[f"N{i}"], row[f"Y{i}"], row[f"yy{i}"],
                                  row[f"ny{i}"], row[f"nn{i}"]) for i in range(len(metrics))])
            for row in query.collect(engine="streaming").iter_rows(named=True)]


def _evaluate_clustered(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame,
                        cluster: str, confidence: float, by: list[str]) -> pl.DataFrame:
    rows = [keys | _row(m, stats.clustered(t, m.kind, confidence))
            for keys, group in cluster_totals(metrics, frame, cluster, by)
            for m, t in zip(metrics, group, strict=True)]
    return _frame(rows, by, frame)


def estimate(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame, name: str,
             confidence: float = 0.95, cluster: str | None = None) -> stats.Estimate:
    """One metric, by name, as an Estimate (cluster-robust with ``cluster``)."""
    chosen = [m for m in metrics if m.name == name]
    if not chosen:
        raise ValueError(f"metric must be one of {', '.join(m.name for m in metrics)}, "
                         f"got {name!r}")
    r = evaluate(chosen, frame, confidence, cluster).row(0, named=True)
    return stats.Estimate(r["value"], r["low"], r["high"], r["n"])


# ------------------------------------------------------------------ additive sums (chunked runs)


def sums(metrics: Sequence[Metric], frame: pl.DataFrame | pl.LazyFrame,
         cluster: str | None = None) -> dict[str, float]:
    """What :func:`evaluate` needs of ``frame``, as sums that add across disjoint row sets.

    A worker of a chunked study keeps these few numbers of a chunk, never its
    rows; :func:`from_sums` turns the sums of every chunk into the intervals
    ``evaluate`` would give on all the rows (the same formulas: a rate's count
    and trials, a mean's sum and sum of squares, the cluster totals of
    :class:`~analysis.stats.ClusterTotals` — chunks never split a cluster).
    Keys are ``"<metric>:<statistic>"``.
    """
    if cluster is not None:
        (_, group), = cluster_totals(metrics, frame, cluster)  # no group-by: one row
        return {f"{m.name}:{k}": float(v) for m, t in zip(metrics, group, strict=True)
                for k, v in t._asdict().items()}
    aggs = []
    for m in metrics:
        counted, event = _terms(m)
        if m.kind == "rate":
            aggs += [counted.cast(pl.Float64).alias(f"{m.name}:n"),
                     event.sum().cast(pl.Float64).alias(f"{m.name}:k")]
        else:
            value = event.cast(pl.Float64)
            aggs += [value.count().cast(pl.Float64).alias(f"{m.name}:n"),
                     value.sum().alias(f"{m.name}:s"), (value * value).sum().alias(f"{m.name}:ss")]
    if not aggs:
        return {}
    row = frame.lazy().select(aggs).collect().row(0, named=True)
    return {k: float(v or 0.0) for k, v in row.items()}


def part_of(totals: dict[str, float], prefix: str) -> dict[str, float]:
    """The sums a study stored under ``prefix`` (one arm's, one decision's), prefix removed."""
    return {k.removeprefix(prefix): v for k, v in totals.items() if k.startswith(prefix)}


def from_sums(metrics: Sequence[Metric], totals: dict[str, float], confidence: float = 0.95,
              cluster: str | None = None) -> pl.DataFrame:
    """The rows :func:`evaluate` gives, from the :func:`sums` of every chunk added up."""
    rows = []
    for m in metrics:
        def get(stat: str, name: str = m.name) -> float:
            return totals.get(f"{name}:{stat}", 0.0)

        if cluster is not None:
            t = stats.ClusterTotals(int(get("g")), get("n"), get("y"), get("yy"), get("ny"),
                                    get("nn"))
            e = stats.clustered(t, m.kind, confidence)
        elif m.kind == "rate":
            e = stats.proportion(int(get("k")), int(get("n")), confidence)
        else:
            n, s, ss = get("n"), get("s"), get("ss")
            mean = s / n if n else None
            std = max(0.0, (ss - s * s / n) / (n - 1)) ** 0.5 if n > 1 else None
            e = stats.mean_from_moments(mean, std, int(n), confidence)
        rows.append(_row(m, e))
    if not rows:
        return _empty([], pl.DataFrame())
    return pl.DataFrame(rows, schema_overrides={"n": pl.Int64})


# ------------------------------------------------------------------ two policies, the same units


def _unit_terms(metric: Metric, i: int) -> list[pl.Expr]:
    """Per row: ``y{i}`` (the event, or the value, where counted; else 0) and ``n{i}``
    (1 where the metric counts the row): a ratio of sums is the metric's value."""
    where = pl.lit(True) if metric.where is None else metric.where.fill_null(False)
    if metric.kind == "rate":
        counted, y = where, (where & metric.value.fill_null(False)).cast(pl.Float64)
    else:
        counted = where & metric.value.is_not_null()
        y = pl.when(counted).then(metric.value.cast(pl.Float64)).otherwise(0.0)
    return [y.alias(f"y{i}"), counted.cast(pl.Float64).alias(f"n{i}")]


def paired(metrics: Sequence[Metric], a: pl.DataFrame | pl.LazyFrame,
           b: pl.DataFrame | pl.LazyFrame, *, key: str, by: str | Sequence[str] = (),
           confidence: float = 0.95) -> pl.DataFrame:
    """Each metric under setting A and under B on the same units, and the paired difference.

    ``a`` and ``b`` hold the same units (rows matched by ``key``, e.g. ``deal_id``: the
    same deals played by two policies). Rows: ``*by, metric, label, kind, arm, value, low,
    high, n`` with ``arm`` "a", "b" (:func:`evaluate`'s estimates within the group) and
    "difference" (A - B, :func:`analysis.stats.paired_ratio_difference` over every unit:
    a unit whose group differs between A and B counts in each group under its own
    setting, so the difference stays paired; ``n`` is then the number of units).
    """
    by = [by] if isinstance(by, str) else list(by)
    terms = [t for i, m in enumerate(metrics) for t in _unit_terms(m, i)]
    fa, fb = (frame.lazy().select(pl.col(key), *[pl.col(c) for c in by], *terms)
              .collect().sort(key) for frame in (a, b))
    if fa.height != fb.height or not fa[key].equals(fb[key]):
        raise ValueError(f"paired metrics need the same units under both settings: {key} "
                         f"differs ({fa.height:,} and {fb.height:,} rows)")
    est = {arm: evaluate(metrics, frame, confidence, by=by) for arm, frame in (("a", a),
                                                                               ("b", b))}
    groups = sorted({tuple(r) for f in (fa, fb) for r in f.select(by).iter_rows()}) if by \
        else [()]
    rows = []
    for group in groups:
        inside = [np.ones(fa.height, bool) if not by else
                  np.all([f[c].to_numpy() == v for c, v in zip(by, group, strict=True)], axis=0)
                  for f in (fa, fb)]
        keys = dict(zip(by, group, strict=True))
        for i, m in enumerate(metrics):
            for arm in ("a", "b"):
                found = est[arm]  # per group, the metrics in order (names may repeat)
                for c, v in keys.items():
                    found = found.filter(pl.col(c) == v)
                e = (stats.Estimate(*found.select("value", "low", "high", "n").row(i))
                     if found.height else stats.Estimate(float("nan"), float("-inf"),
                                                         float("inf"), 0))
                rows.append(keys | _row(m, e) | {"arm": arm})
            y_a, n_a = (fa[f"{t}{i}"].to_numpy() * inside[0] for t in ("y", "n"))
            y_b, n_b = (fb[f"{t}{i}"].to_numpy() * inside[1] for t in ("y", "n"))
            d = stats.paired_ratio_difference(y_a, n_a, y_b, n_b, confidence)
            rows.append(keys | _row(m, d) | {"arm": "difference"})
    order = [*by, "metric", "label", "kind", "arm", "value", "low", "high", "n"]
    return _frame(rows, by, fa).select(order)
