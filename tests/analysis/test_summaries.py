"""Declared metrics evaluated by group, and the one clustered-interval estimator."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from analysis import stats, summaries
from simulators.core.game import mean, rate

METRICS = (rate("hit", "hit", pl.col("x") > 0.5),
           rate("hit_if_big", "hit if big", pl.col("x") > 0.7, where=pl.col("y") > 1),
           mean("y_mean", "mean y", pl.col("y")),
           mean("x_if_hit", "mean x if hit", pl.col("x"), where=pl.col("x") > 0.5))


def _frame(n: int = 3000, seed: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({"g": rng.integers(0, 4, n), "h": rng.choice(["a", "b"], n),
                         "c": rng.integers(0, 150, n), "x": rng.random(n),
                         "y": rng.integers(0, 4, n)})


def _estimates(frame: pl.DataFrame, keys: tuple[str, ...]) -> dict:
    return {tuple(r[k] for k in (*keys, "metric")): (r["value"], r["low"], r["high"], r["n"])
            for r in frame.iter_rows(named=True)}


@pytest.mark.parametrize("cluster", [None, "c"])
@pytest.mark.parametrize("by", [["g"], ["g", "h"]])
def test_by_equals_each_group_evaluated_alone(by, cluster):
    frame = _frame()
    grouped = summaries.evaluate(METRICS, frame.lazy(), cluster=cluster, by=by)
    assert grouped.columns[:len(by)] == by
    assert grouped.height == frame.select(by).n_unique() * len(METRICS)
    assert grouped.select(by).rows() == sorted(grouped.select(by).rows())
    expected = {}
    for keys, part in frame.group_by(by):
        alone = summaries.evaluate(METRICS, part, cluster=cluster)
        expected |= {(*keys, k[0]): v for k, v in _estimates(alone, ()).items()}
    got = _estimates(grouped, tuple(by))
    assert got.keys() == expected.keys()
    for key, values in expected.items():
        assert got[key] == pytest.approx(values, rel=1e-12), key


def test_by_a_single_name_and_an_empty_frame():
    frame = _frame(50)
    assert summaries.evaluate(METRICS, frame, by="g").columns[:2] == ["g", "metric"]
    empty = summaries.evaluate(METRICS, frame.head(0), by="g")
    assert empty.height == 0 and empty.columns[0] == "g"


def test_unclustered_rate_and_mean_by_hand():
    frame = pl.DataFrame({"x": [0.9, 0.2, 0.6, 0.1], "y": [1, 2, 3, 6]})
    rows = {r["metric"]: r for r in summaries.evaluate(METRICS, frame).iter_rows(named=True)}
    assert rows["hit"]["value"] == 0.5 and rows["hit"]["n"] == 4
    assert rows["hit_if_big"]["n"] == 3 and rows["hit_if_big"]["value"] == 0.0
    half = sps.t.ppf(0.975, 3) * np.std([1, 2, 3, 6], ddof=1) / 2
    assert (rows["y_mean"]["low"], rows["y_mean"]["high"]) == pytest.approx((3 - half, 3 + half))


def test_clustered_variance_by_hand():
    # clusters (y, n) = (1, 2), (2, 2), (0, 1): r = 3/5
    totals = stats.ClusterTotals.of([1, 2, 0], [2, 2, 1])
    assert totals == (3, 5.0, 3.0, 5.0, 6.0, 9.0)
    r, var = stats.clustered_variance(totals)
    residuals = np.array([1 - 0.6 * 2, 2 - 0.6 * 2, 0 - 0.6 * 1])
    assert r == pytest.approx(0.6)
    assert var == pytest.approx(3 / 2 * (residuals @ residuals) / 25)
    e = stats.clustered(totals, "mean")
    half = sps.t.ppf(0.975, 2) * np.sqrt(var)
    assert (e.value, e.low, e.high, e.n) == pytest.approx((0.6, 0.6 - half, 0.6 + half, 5))


def test_one_row_per_cluster_is_the_binomial_variance():
    k, n = 30, 100
    totals = stats.ClusterTotals.of([1] * k + [0] * (n - k), [1] * n)
    assert stats.clustered_variance(totals)[1] == pytest.approx(0.3 * 0.7 / (n - 1))
    # a design effect of n/(n-1): the Wilson interval of n - 1 rows
    assert stats.clustered(totals, "rate")[1:3] == pytest.approx(
        stats.wilson(0.3, n - 1)[1:3])


def test_clustered_summary_matches_the_estimator_on_cluster_totals():
    frame = _frame()
    per = frame.group_by("c").agg((pl.col("x") > 0.5).sum().alias("y"), pl.len().alias("n"))
    want = stats.clustered(stats.ClusterTotals.of(per["y"], per["n"]), "rate")
    got = summaries.estimate(METRICS, frame, "hit", cluster="c")
    assert got == pytest.approx(want, rel=1e-12)


def test_fewer_than_two_clusters_give_an_unbounded_interval():
    e = stats.clustered(stats.ClusterTotals.of([3], [4]), "rate")
    assert e.value == 0.75 and e.low == -np.inf and e.high == np.inf and e.n == 4


def test_clustered_rate_interval_covers_the_true_rate():
    """Rows come in clusters sharing a random rate: plain Wilson intervals undercover,
    the clustered ones cover the known mean rate about 95% of the time."""
    rng = np.random.default_rng(12)
    truth, clusters, size = 0.3, 60, 20
    plain, robust = [], []
    for _ in range(400):
        p = rng.beta(3, 7, clusters)  # mean 0.3
        hits = rng.binomial(size, p)
        frame = pl.DataFrame({"c": np.repeat(np.arange(clusters), size),
                              "x": np.concatenate([np.r_[np.ones(h), np.zeros(size - h)]
                                                   for h in hits])})
        for out, cluster in ((plain, None), (robust, "c")):
            e = summaries.estimate(METRICS, frame, "hit", cluster=cluster)
            out.append(e.low <= truth <= e.high)
    assert np.mean(plain) < 0.85
    assert 0.92 <= np.mean(robust) <= 0.98, np.mean(robust)


def test_clustered_difference_and_paired_ratio_difference():
    a = stats.ClusterTotals.of([1, 2, 0, 3], [2, 2, 1, 3])
    b = stats.ClusterTotals.of([0, 1, 1], [2, 1, 2])
    e = stats.clustered_difference(a, b)
    (ra, va), (rb, vb) = stats.clustered_variance(a), stats.clustered_variance(b)
    dof = (va + vb) ** 2 / (va**2 / 3 + vb**2 / 2)
    half = sps.t.ppf(0.975, dof) * np.sqrt(va + vb)
    assert (e.value, e.low, e.high) == pytest.approx((ra - rb, ra - rb - half, ra - rb + half))
    # paired ratios with one unit per cluster and fixed denominators: a paired t interval
    x, y = np.array([3.0, 4, 5, 6]), np.array([1.0, 2, 3, 5])
    ones = np.ones(4)
    assert stats.paired_ratio_difference(x, ones, y, ones) == pytest.approx(
        stats.paired_difference(x, y))
    with pytest.raises(ValueError, match="one shape"):
        stats.paired_ratio_difference(x, ones, y[:3], ones[:3])


# ---------------------------------------------------------------- two policies, the same deals


def test_paired_metrics_are_the_hand_counted_figures_and_a_paired_t_interval():
    """Six deals under A and B (B given in another row order): the rate is 3/6 under both,
    the per-deal differences are 0, -1, +1, 0, 0, 0, so the paired t interval is
    0 +/- t(0.975, 5) * sd/sqrt(6) with sd = sqrt(2/5)."""
    a = pl.DataFrame({"deal_id": range(6), "hit": [1, 0, 1, 1, 0, 0], "pts": [10, 0, 4, 6, 2, 8],
                      "g": [0, 0, 0, 1, 1, 1]})
    b = pl.DataFrame({"deal_id": [5, 4, 3, 2, 1, 0], "hit": [0, 0, 1, 0, 1, 1],
                      "pts": [8, 2, 6, 4, 3, 10], "g": [1, 1, 1, 0, 0, 0]})
    metrics = [rate("hit", "hit", pl.col("hit") == 1),
               mean("pts", "points if hit", pl.col("pts"), where=pl.col("hit") == 1),
               rate("hit", "hit in group 1", pl.col("hit") == 1, where=pl.col("g") == 1)]
    found = summaries.paired(metrics, a, b, key="deal_id")
    rows = {(r["label"], r["arm"]): r for r in found.iter_rows(named=True)}
    assert rows[("hit", "a")]["value"] == rows[("hit", "b")]["value"] == 0.5
    d = rows[("hit", "difference")]
    half = sps.t.ppf(0.975, 5) * np.sqrt(2 / 5) / np.sqrt(6)
    assert d["value"] == 0 and d["n"] == 6
    assert d["high"] == pytest.approx(half) and d["low"] == pytest.approx(-half)
    # a mean over the deals each setting counts: A (10+4+6)/3, B (6+3+10)/3
    assert rows[("points if hit", "a")]["value"] == pytest.approx(20 / 3)
    assert rows[("points if hit", "b")]["value"] == pytest.approx(19 / 3)
    assert rows[("points if hit", "difference")]["value"] == pytest.approx(1 / 3)
    # two metrics may share a name: each keeps its own estimate (group 1: A 1/3, B 1/3)
    assert rows[("hit in group 1", "a")]["value"] == pytest.approx(1 / 3)
    assert rows[("hit in group 1", "a")]["n"] == 3
    by = summaries.paired(metrics[:1], a, b, key="deal_id", by="g")
    cell = {(r["g"], r["arm"]): r["value"] for r in by.iter_rows(named=True)}
    assert cell[(0, "a")] == pytest.approx(2 / 3) and cell[(0, "b")] == pytest.approx(2 / 3)
    assert cell[(1, "a")] == pytest.approx(1 / 3) and cell[(1, "difference")] == 0


def test_paired_metrics_refuse_different_deals():
    a = pl.DataFrame({"deal_id": [0, 1, 2], "hit": [1, 0, 1]})
    with pytest.raises(ValueError, match="same units"):
        summaries.paired([rate("hit", "hit", pl.col("hit") == 1)], a,
                         a.with_columns(deal_id=pl.Series([0, 1, 3])), key="deal_id")
