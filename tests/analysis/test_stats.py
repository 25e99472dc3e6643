"""Statistics: interval coverage on known probabilities, paired vs unpaired, corrections."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from analysis import stats
from analysis.compare import (
    Comparison,
    compare,
    comparison,
    comparison_table,
    parameter_grid,
    reading,
    verdict,
)
from analysis.experiment import Experiment
from simulators.bianco_mano import BiancoManoConfig, HeuristicPolicy, simulate_deals
from simulators.bianco_mano.engine import FAMILY_MASK
from simulators.core import bits


def _turned_family_counts(n_deals: int) -> np.ndarray:
    """Cards of the turned family in the first bidder's 5-card first distribution."""
    always = HeuristicPolicy(take_threshold=0.0)
    a = simulate_deals(BiancoManoConfig(n_players=4), always, n_deals, seed=21).arrays
    return bits.popcount(a.taker_bid_hand & FAMILY_MASK[a.turned_card & 3]).astype(int) - 1


@pytest.mark.parametrize("method, low, high", [("wilson", 0.93, 0.97),
                                               ("clopper-pearson", 0.94, 0.99)])
def test_rate_interval_coverage_on_a_known_probability(method, low, high):
    """P(exactly one card of the turned family) is hypergeometric: 5 of 31 with 7 good.
    1,000 replicates of 400 simulated deals: the 95% intervals cover it ~95% of the time."""
    truth = sps.hypergeom(31, 7, 5).pmf(1)
    hits = (_turned_family_counts(400_000) == 1).reshape(1_000, 400).sum(axis=1)
    covered = [stats.proportion(k, 400, method=method) for k in hits]
    coverage = np.mean([e.low <= truth <= e.high for e in covered])
    assert low <= coverage <= high, coverage


def test_mean_interval_coverage_on_a_known_mean():
    truth = 5 * 7 / 31  # hypergeometric mean
    counts = _turned_family_counts(200_000).reshape(1_000, 200)
    coverage = np.mean([(lambda e: e.low <= truth <= e.high)(stats.mean(row)) for row in counts])
    assert 0.93 <= coverage <= 0.97, coverage


def test_paired_interval_is_narrower_than_unpaired_on_common_deals():
    """Same deals for both policies: the paired interval is far narrower (CRN)."""
    base = Experiment("bianco-mano", {"n_players": 4}, size=20_000, seed=31)
    table = compare(base, {"name": "heuristic", "params": {"take_threshold": 3.5}}, "heuristic",
                    seats=(0, 2), progress=False)
    paired, unpaired = table.row(2, named=True), table.row(3, named=True)
    assert paired["mean"] == pytest.approx(unpaired["mean"])
    assert (paired["high"] - paired["low"]) < 0.6 * (unpaired["high"] - unpaired["low"])
    a, b = table.row(0, named=True), table.row(1, named=True)
    assert paired["mean"] == pytest.approx(a["mean"] - b["mean"])


def test_comparison_fields_are_its_table_rows():
    """The typed result of a comparison reads what its table's rows say, and ``compare``
    returns that table."""
    base = Experiment("bianco-mano", {"n_players": 4}, size=2_000, seed=31)
    a = {"name": "heuristic", "params": {"take_threshold": 3.5}}
    found = comparison(base, a, "heuristic", seats=(0, 2), precision=0.5, progress=False)
    assert found.table.equals(compare(base, a, "heuristic", seats=(0, 2), precision=0.5,
                                      progress=False))
    rows = found.table.rows(named=True)
    for est, row in zip((found.a, found.b, found.difference, found.unpaired), rows,
                        strict=True):
        assert (est.value, est.low, est.high, est.n) == (row["mean"], row["low"],
                                                         row["high"], row["n"])
    assert (found.p_value, found.unpaired_p_value) == (rows[2]["p_value"], rows[3]["p_value"])
    assert found.target_reached is rows[2]["target_reached"] is True
    assert found.variance_reduction is None and found.n == 2_000
    assert Comparison.of_table(found.table) == found and reading(found) == reading(found.table)


def test_paired_difference_by_hand():
    e = stats.paired_difference([3, 4, 5, 6], [1, 2, 3, 5])
    assert e.value == pytest.approx(1.75)
    half = sps.t.ppf(0.975, 3) * np.std([2, 2, 2, 1], ddof=1) / 2
    assert (e.low, e.high) == pytest.approx((1.75 - half, 1.75 + half))
    with pytest.raises(ValueError, match="same shape"):
        stats.paired_difference([1, 2], [1])


def test_proportion_matches_textbook_values():
    wilson = stats.proportion(5, 20)
    z = sps.norm.ppf(0.975)
    centre = (5 + z * z / 2) / (20 + z * z)
    half = z * np.sqrt(5 * 15 / 20 + z * z / 4) / (20 + z * z)
    assert (wilson.low, wilson.high) == pytest.approx((centre - half, centre + half))
    exact = stats.proportion(0, 10, method="clopper-pearson")
    assert exact.low == 0 and exact.high == pytest.approx(1 - 0.025 ** (1 / 10))
    with pytest.raises(ValueError, match="method must be one of"):
        stats.proportion(1, 2, method="wald")


def test_multiple_comparison_corrections():
    p = [0.01, 0.04, 0.03]
    assert stats.adjust_pvalues(p, "holm") == pytest.approx([0.03, 0.06, 0.06])
    assert stats.adjust_pvalues(p, "fdr_bh") == pytest.approx([0.03, 0.04, 0.04])
    with pytest.raises(ValueError, match="holm"):
        stats.adjust_pvalues(p, "bonferroni")


def test_parameter_grid_order_is_deterministic():
    grid = parameter_grid({"b": [1, 2], "a": [True, False]})
    assert grid == [{"a": True, "b": 1}, {"a": True, "b": 2},
                    {"a": False, "b": 1}, {"a": False, "b": 2}]
    with pytest.raises(ValueError, match="non-empty list"):
        parameter_grid({"a": []})


def test_verdict_and_reading_follow_the_paired_interval():
    b = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    better = comparison_table(b + np.array([1.0, 1.1, 0.9, 1.0, 1.2, 0.8]), b, "a", "b")
    assert verdict(better) == "A is better"
    assert verdict(comparison_table(b, b + 1.0 + 0.1 * np.arange(6) % 2, "a", "b")) == \
        "B is better"
    mixed = comparison_table(b + np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]), b, "a", "b")
    assert verdict(mixed).startswith("no significant difference")
    # paired: mean 1.0, sd 0.1414, t(0.975, 5) = 2.5706 gives 1.0 +- 0.148; unpaired:
    # Welch's interval, as scipy.stats.ttest_ind(equal_var=False) gives it
    assert reading(better, "game") == ("A - B = +1.000 per game, paired interval [+0.852, "
                                       "+1.148] (unpaired: [-1.389, +3.389]) -> A is better")


@pytest.mark.parametrize(("runs", "every", "ceiling"), [
    (300, 100, 0.08), pytest.param(1_000, 50, 0.065, marks=pytest.mark.slow)])
def test_confidence_sequence_stays_valid_when_the_run_stops_on_what_it_sees(runs, every,
                                                                            ceiling):
    """Runs of a zero-mean difference, looked at every ``every`` units up to 5,000: the t
    interval, checked at every look, excludes 0 at some look in far more than 5% of the
    runs (optional stopping); the confidence sequence in about 5% at most (1,000 runs and
    100 looks under -m slow)."""
    rng = np.random.default_rng(2026)
    x = rng.standard_normal((runs, 5_000)) * 3.0
    looks = np.arange(every, 5_001, every)
    total, square = np.cumsum(x, axis=1)[:, looks - 1], np.cumsum(x * x, axis=1)[:, looks - 1]
    t_ever = np.zeros(len(x), bool)
    cs_ever = np.zeros(len(x), bool)
    for j, n in enumerate(looks):
        for i in range(len(x)):
            sums = stats.PairedSums(float(n), total[i, j], 0.0, square[i, j], 0.0, 0.0)
            t, cs = stats.paired_difference(sums), stats.confidence_sequence(sums,
                                                                             planned=5_000)
            t_ever[i] |= not t.low <= 0 <= t.high
            cs_ever[i] |= not cs.low <= 0 <= cs.high
    assert t_ever.mean() > 0.15
    assert cs_ever.mean() <= ceiling


@pytest.mark.parametrize("n", [7, 40, 1697])
def test_wilson_holds_a_rate_of_zero_or_one_exactly(n):
    """Rounding put the low end at 2.8e-17 above a rate of 0 (n = 7): a negative error bar."""
    zero, one = stats.wilson(0.0, n), stats.wilson(1.0, n)
    assert zero.low == 0.0 and zero.high > 0.0
    assert one.high == 1.0 and one.low < 1.0
