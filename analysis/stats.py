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
    # The Wilson interval always holds the rate; the clip keeps rounding (2.8e-17 above a
    # rate of 0) from putting it outside.
    return Estimate(float(rate), float(min(rate, max(0.0, centre - half))),
                    float(max(rate, min(1.0, centre + half))),
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


# ------------------------------------------------------------------ clustered ratios


class ClusterTotals(NamedTuple):
    """Sufficient statistics of a ratio estimator over clusters.

    With ``n_g`` the rows counted and ``y_g`` the sum of the value in
    cluster ``g`` (rows of one game, say): ``g`` = clusters with ``n_g > 0``,
    ``n`` = sum n_g, ``y`` = sum y_g, ``yy`` = sum y_g^2, ``ny`` = sum n_g y_g,
    ``nn`` = sum n_g^2. Sums over clusters add, so a lazy query (or a chunked
    run) can produce them without ever holding the rows.
    """

    g: int
    n: float
    y: float
    yy: float
    ny: float
    nn: float

    @classmethod
    def of(cls, y, n) -> ClusterTotals:
        """The totals of per-cluster sums ``y`` and row counts ``n`` (arrays)."""
        y, n = np.asarray(y, dtype=float), np.asarray(n, dtype=float)
        if y.shape != n.shape:
            raise ValueError(f"y and n must have the same shape, got {y.shape} and {n.shape}")
        return cls(int(np.count_nonzero(n > 0)), float(n.sum()), float(y.sum()),
                   float(y @ y), float(n @ y), float(n @ n))


def clustered_variance(totals: ClusterTotals) -> tuple[float, float]:
    """The ratio ``y / n`` and its cluster-robust ("sandwich") variance.

    ``var = G / (G - 1) * sum_g (y_g - r n_g)^2 / n^2``: the linearised
    (delta-method) variance of the ratio estimator with the small-sample
    correction G/(G-1). With one row per cluster and 0/1 values it is
    ``r (1 - r) / (n - 1)``.
    """
    g, n, y = totals.g, totals.n, totals.y
    r = y / n
    residual = totals.yy - 2 * r * totals.ny + r * r * totals.nn
    return r, g / (g - 1) * max(residual, 0.0) / (n * n)


def clustered(totals: ClusterTotals, kind: str = "mean", confidence: float = 0.95) -> Estimate:
    """Cluster-robust interval of the ratio ``y / n`` (the one clustered estimator).

    ``kind="rate"``: a Wilson interval with Kish's effective sample size
    n / design effect, the design effect being the sandwich variance over
    the binomial one; ``kind="mean"``: a Student-t interval with G - 1
    degrees of freedom. ``n`` of the result is the row count. Fewer than two
    clusters give an infinite interval.
    """
    if kind not in ("rate", "mean"):
        raise ValueError(f"kind must be 'rate' or 'mean', got {kind!r}")
    g, n = int(totals.g), totals.n
    if g < 2 or n == 0:
        return Estimate(totals.y / n if n else float("nan"), float("-inf"), float("inf"), int(n))
    r, var = clustered_variance(totals)
    if kind == "rate":
        simple = r * (1 - r) / n
        deff = var / simple if simple > 0 else 1.0
        return wilson(r, n / max(deff, 1e-9), confidence, n=int(n))
    return mean_with_se(r, var ** 0.5, g - 1, confidence, n=int(n))


def clustered_difference(a: ClusterTotals, b: ClusterTotals, confidence: float = 0.95
                         ) -> Estimate:
    """Ratio of ``a`` minus ratio of ``b``, independent samples: Welch-t interval.

    Each variance is :func:`clustered_variance`; the degrees of freedom are
    Welch-Satterthwaite's with G - 1 per sample. ``n`` is the smaller row count.
    """
    n = int(min(a.n, b.n))
    if min(a.g, b.g) < 2 or a.n == 0 or b.n == 0:
        diff = a.y / a.n - b.y / b.n if a.n and b.n else float("nan")
        return Estimate(diff, float("-inf"), float("inf"), n)
    (ra, va), (rb, vb) = clustered_variance(a), clustered_variance(b)
    se = np.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va**2 / (a.g - 1) + vb**2 / (b.g - 1)) if se > 0 else 1.0
    return mean_with_se(ra - rb, se, dof, confidence, n=n)


class PairedRatioSums(NamedTuple):
    """Sufficient statistics of two ratios measured on the same units (the same deals).

    Per unit ``u``: ``y_a``, ``n_a`` (value summed and rows counted under
    setting A) and ``y_b``, ``n_b`` (under B). ``g`` units; the sums of the
    four and of their products. Sums add, so a chunked run keeps these, not
    the units.
    """

    g: float
    ya: float
    na: float
    yb: float
    nb: float
    ya_ya: float
    na_na: float
    ya_na: float
    yb_yb: float
    nb_nb: float
    yb_nb: float
    ya_yb: float
    ya_nb: float
    na_yb: float
    na_nb: float

    @classmethod
    def of(cls, y_a, n_a, y_b, n_b) -> PairedRatioSums:
        """The sums of per-unit arrays of one shape."""
        arrays = [np.asarray(x, dtype=float) for x in (y_a, n_a, y_b, n_b)]
        if len({x.shape for x in arrays}) != 1:
            raise ValueError("paired ratios need arrays of one shape, got "
                             f"{[x.shape for x in arrays]}")
        ya, na, yb, nb = arrays
        return cls(float(ya.size), *(float(x.sum()) for x in arrays),
                   *(float(x @ y) for x, y in ((ya, ya), (na, na), (ya, na), (yb, yb), (nb, nb),
                                               (yb, nb), (ya, yb), (ya, nb), (na, yb), (na, nb))))


def paired_ratio_difference(y_a, n_a=None, y_b=None, n_b=None, confidence: float = 0.95
                            ) -> Estimate:
    """``sum(y_a)/sum(n_a) - sum(y_b)/sum(n_b)`` over the same units, t interval.

    For ratios measured twice on the same units (the same deals under two
    settings) whose denominators differ: the linearised residuals
    ``(y - r n) / sum(n)`` of both ratios are differenced unit by unit, and
    the variance is :func:`clustered_variance`'s formula on those
    differences (G - 1 degrees of freedom, G = number of units). Takes the
    four per-unit arrays, or one :class:`PairedRatioSums`.
    """
    s = y_a if isinstance(y_a, PairedRatioSums) else PairedRatioSums.of(y_a, n_a, y_b, n_b)
    g = int(s.g)
    if s.na == 0 or s.nb == 0:
        return Estimate(float("nan"), float("-inf"), float("inf"), g)
    r_a, r_b = s.ya / s.na, s.yb / s.nb
    if g < 2:
        return Estimate(float(r_a - r_b), float("-inf"), float("inf"), g)
    # sum over units of d^2, d = (y_a - r_a n_a) / N_a - (y_b - r_b n_b) / N_b, from the sums
    aa = s.ya_ya - 2 * r_a * s.ya_na + r_a * r_a * s.na_na
    bb = s.yb_yb - 2 * r_b * s.yb_nb + r_b * r_b * s.nb_nb
    ab = s.ya_yb - r_b * s.ya_nb - r_a * s.na_yb + r_a * r_b * s.na_nb
    dd = max(0.0, aa / s.na**2 + bb / s.nb**2 - 2 * ab / (s.na * s.nb))
    return mean_with_se(r_a - r_b, np.sqrt(g / (g - 1) * dd), g - 1, confidence, n=g)


# ------------------------------------------------------------------ paired samples


class PairedSums(NamedTuple):
    """Sufficient statistics of two samples measured on the same units (the same deals).

    ``n`` units, ``a``/``b`` the sums, ``aa``/``bb`` the sums of squares and
    ``ab`` the sum of products. Sums add, so a chunked run keeps these few
    numbers per chunk, never the samples; integer-valued samples (every
    game's scores) give sums that are exact whatever the chunking.
    """

    n: float
    a: float
    b: float
    aa: float
    bb: float
    ab: float

    @classmethod
    def of(cls, a, b) -> PairedSums:
        """The sums of two paired samples (arrays of one shape)."""
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            raise ValueError(f"paired samples must have the same shape, got {a.shape} and "
                             f"{b.shape}")
        return cls(float(a.size), float(a.sum()), float(b.sum()), float(a @ a), float(b @ b),
                   float(a @ b))

    def merge(self, other: PairedSums) -> PairedSums:
        """The sums of both sets of units."""
        return PairedSums(*(x + y for x, y in zip(self, other, strict=True)))

    def moments(self, which: str) -> tuple[float, float]:
        """Mean and variance (ddof=1) of ``"a"``, ``"b"`` or the difference ``"d"`` = a - b."""
        n = self.n
        if which == "a":
            total, squares = self.a, self.aa
        elif which == "b":
            total, squares = self.b, self.bb
        elif which == "d":
            total, squares = self.a - self.b, self.aa - 2 * self.ab + self.bb
        else:
            raise ValueError(f"which must be 'a', 'b' or 'd', got {which!r}")
        m = total / n if n else float("nan")
        var = max(0.0, (squares - total * m) / (n - 1)) if n > 1 else float("nan")
        return m, var


def mean_of(sums: PairedSums, which: str = "a", confidence: float = 0.95) -> Estimate:
    """Student-t interval of the mean of ``a``, ``b`` or the paired difference ``d`` = a - b."""
    m, var = sums.moments(which)
    return mean_from_moments(m if sums.n else None, var ** 0.5 if sums.n > 1 else None,
                             int(sums.n), confidence)


def paired_difference(a, b=None, confidence: float = 0.95) -> Estimate:
    """Mean of ``a - b`` over paired observations (the same deals), Student-t interval.

    With common random numbers the pairs share their deal, so the variance of
    the difference excludes the deal-to-deal luck both sides share. ``a`` and
    ``b`` are arrays of one shape, or one :class:`PairedSums`.
    """
    sums = a if isinstance(a, PairedSums) else PairedSums.of(a, b)
    return mean_of(sums, "d", confidence)


def confidence_sequence(sums: PairedSums, confidence: float = 0.95,
                        planned: float = 10_000) -> Estimate:
    """Anytime-valid interval of the paired difference ``d`` = a - b: an asymptotic
    confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, *Time-uniform
    central limit theory and asymptotic confidence sequences*, 2021, eq. for the Gaussian
    mixture boundary).

    Unlike the t interval, it covers the mean at *every* sample size at once, so it stays
    valid when the sampling stops because of what it shows (no optional-stopping bias):
    a study may look after every chunk and stop when it is narrow enough, or when it
    excludes 0. ``planned`` is the sample size the boundary is tightest at (its width
    there is about 1.4 times the fixed-n interval's)::

        mean +- sd * sqrt(2 (n r^2 + 1) / (n^2 r^2) * log(sqrt(n r^2 + 1) / alpha)),
        r = sqrt((-2 log alpha + log(-2 log alpha + 1)) / planned)
    """
    n = sums.n
    m, var = sums.moments("d")
    if n < 2:
        return Estimate(float(m) if n else float("nan"), float("-inf"), float("inf"), int(n))
    alpha = 1.0 - confidence
    rho2 = (-2 * np.log(alpha) + np.log(-2 * np.log(alpha) + 1)) / planned
    half = np.sqrt(var) * np.sqrt(2 * (n * rho2 + 1) / (n * n * rho2)
                                  * np.log(np.sqrt(n * rho2 + 1) / alpha))
    return Estimate(float(m), float(m - half), float(m + half), int(n))


def unpaired_difference(a, b=None, confidence: float = 0.95) -> Estimate:
    """Mean of ``a`` minus mean of ``b`` as if independent samples, Welch interval.

    ``a`` and ``b`` are arrays, or ``a`` is a :class:`PairedSums` (``b`` unused).
    """
    sums = a if isinstance(a, PairedSums) else PairedSums.of(a, b)
    (ma, var_a), (mb, var_b) = sums.moments("a"), sums.moments("b")
    va, vb = var_a / sums.n, var_b / sums.n
    se = np.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va**2 / (sums.n - 1) + vb**2 / (sums.n - 1)) if se > 0 else 1.0
    half = stats.t.ppf(0.5 + confidence / 2, dof) * se
    diff = ma - mb
    return Estimate(float(diff), float(diff - half), float(diff + half), int(sums.n))


def difference_pvalue(a, b=None, paired: bool = True) -> float:
    """Two-sided p-value of 'no difference in means' (paired or Welch t-test).

    ``a`` and ``b`` are arrays, or ``a`` is a :class:`PairedSums`. Two
    identical samples give 1; a constant nonzero difference gives 0.
    """
    sums = a if isinstance(a, PairedSums) else PairedSums.of(a, b)
    n = sums.n
    if n < 2:
        return 1.0
    if paired:
        m, var = sums.moments("d")
        if var == 0:
            return 1.0 if m == 0 else 0.0
        t = m / np.sqrt(var / n)
        return float(2 * stats.t.sf(abs(t), n - 1))
    (ma, var_a), (mb, var_b) = sums.moments("a"), sums.moments("b")
    if var_a + var_b == 0:
        return 1.0 if ma == mb else 0.0
    return float(stats.ttest_ind_from_stats(ma, var_a ** 0.5, int(n), mb, var_b ** 0.5, int(n),
                                            equal_var=False).pvalue)


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    """Multiple-comparison adjusted p-values: ``holm`` or ``fdr_bh`` (Benjamini-Hochberg)."""
    from statsmodels.stats.multitest import multipletests

    if method not in ("holm", "fdr_bh"):
        raise ValueError(f"method must be 'holm' or 'fdr_bh', got {method!r}")
    return multipletests(np.asarray(pvalues, dtype=float), method=method)[1]
