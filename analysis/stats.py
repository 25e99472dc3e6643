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


def mean(values, confidence: float = 0.95) -> Estimate:
    """Sample mean with a Student-t interval."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return Estimate(float(x.mean()) if x.size else float("nan"), float("-inf"),
                        float("inf"), int(x.size))
    half = stats.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)
    return Estimate(float(x.mean()), float(x.mean() - half), float(x.mean() + half), int(x.size))
