"""Interval estimates for simulated rates and means (thin wrappers over scipy)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

METHODS = {"wilson": "wilson", "clopper-pearson": "exact"}


class Estimate(NamedTuple):
    """A point estimate with its confidence interval and sample size."""

    value: float
    low: float
    high: float
    n: int

    def format(self, percent: bool = True) -> str:
        """'48.2% [47.9, 48.5] (n=100000)' style text."""
        if percent:
            return (f"{100 * self.value:5.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}] "
                    f"(n={self.n})")
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}] (n={self.n})"


def proportion(successes: int, trials: int, confidence: float = 0.95,
               method: str = "wilson") -> Estimate:
    """Rate with a Wilson (default) or Clopper-Pearson interval."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    successes, trials = int(successes), int(trials)
    if trials == 0:
        return Estimate(float("nan"), 0.0, 1.0, 0)
    ci = stats.binomtest(successes, trials).proportion_ci(confidence, METHODS[method])
    return Estimate(successes / trials, float(ci.low), float(ci.high), trials)


def wilson(rate: float, n_effective: float, confidence: float = 0.95, n: int | None = None
           ) -> Estimate:
    """Wilson interval of a rate from a (possibly fractional) effective sample size.

    With ``n_effective`` = n / design effect this is the interval for rows
    that come in correlated clusters (Kish's effective sample size); ``n`` is
    reported as the row count.
    """
    z = stats.norm.ppf(0.5 + confidence / 2)
    m = float(n_effective)
    centre = (rate + z * z / (2 * m)) / (1 + z * z / m)
    half = z / (1 + z * z / m) * np.sqrt(rate * (1 - rate) / m + z * z / (4 * m * m))
    return Estimate(float(rate), float(max(0.0, centre - half)), float(min(1.0, centre + half)),
                    int(round(m)) if n is None else int(n))


def mean_with_se(value: float, se: float, dof: float, confidence: float = 0.95, n: int = 0
                 ) -> Estimate:
    """Student-t interval from a point value, its standard error and degrees of freedom."""
    half = stats.t.ppf(0.5 + confidence / 2, dof) * se
    return Estimate(float(value), float(value - half), float(value + half), int(n))


def mean(values, confidence: float = 0.95) -> Estimate:
    """Sample mean with a Student-t interval."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return Estimate(float(x.mean()) if x.size else float("nan"), float("-inf"),
                        float("inf"), int(x.size))
    half = stats.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)
    return Estimate(float(x.mean()), float(x.mean() - half), float(x.mean() + half), int(x.size))


def mean_from_moments(mean_value: float | None, std: float | None, n: int,
                      confidence: float = 0.95) -> Estimate:
    """Student-t interval from a sample's mean, standard deviation (ddof=1) and size.

    The same interval as :func:`mean`, for aggregates computed elsewhere (a
    lazy polars query over a whole run).
    """
    if n < 2 or std is None or mean_value is None:
        value = float("nan") if mean_value is None or n == 0 else float(mean_value)
        return Estimate(value, float("-inf"), float("inf"), int(n))
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * std / np.sqrt(n)
    return Estimate(float(mean_value), float(mean_value - half), float(mean_value + half), int(n))


def paired_difference(a, b, confidence: float = 0.95) -> Estimate:
    """Mean of ``a - b`` over paired observations (the same deals), Student-t interval.

    With common random numbers the pairs share their deal, so the variance of
    the difference excludes the deal-to-deal luck both sides share.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples must have the same shape, got {a.shape} and {b.shape}")
    return mean(a - b, confidence)


def unpaired_difference(a, b, confidence: float = 0.95) -> Estimate:
    """Mean of ``a`` minus mean of ``b`` for independent samples, Welch interval."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = np.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se > 0 else 1.0
    half = stats.t.ppf(0.5 + confidence / 2, dof) * se
    diff = a.mean() - b.mean()
    return Estimate(float(diff), float(diff - half), float(diff + half), int(min(a.size, b.size)))


def difference_pvalue(a, b, paired: bool = True) -> float:
    """Two-sided p-value of 'no difference in means' (paired or Welch t-test)."""
    if paired:
        return float(stats.ttest_rel(a, b).pvalue)
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    """Multiple-comparison adjusted p-values: ``holm`` or ``fdr_bh`` (Benjamini-Hochberg)."""
    from statsmodels.stats.multitest import multipletests

    if method not in ("holm", "fdr_bh"):
        raise ValueError(f"method must be 'holm' or 'fdr_bh', got {method!r}")
    return multipletests(np.asarray(pvalues, dtype=float), method=method)[1]
