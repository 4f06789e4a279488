"""Intervals for the difference in mean net between two configurations.

Paired (the same shoes, session by session) and unpaired (Welch) 95% intervals built on
Student's t. The t quantile is computed here from the regularised incomplete beta function
so that the package needs no SciPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` (not necessarily whole) degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if not df > 0:
        return math.nan
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Difference:
    """A difference in means with its 95% interval: ``estimate`` in [low, high]."""

    estimate: float
    low: float
    high: float
    n: int
    paired: bool
    se: float = math.nan
    df: float = math.nan

    @property
    def significant(self) -> bool:
        """Whether the 95% interval excludes zero."""
        return bool(self.low > 0 or self.high < 0)

    @property
    def p_value(self) -> float:
        """Two-sided p-value of "the difference is 0" by the same t as the interval (below
        5% exactly where it is significant); NaN when unknown."""
        if math.isnan(self.se) or math.isnan(self.df) or math.isnan(self.estimate):
            return math.nan
        if self.se == 0:
            return 1.0 if self.estimate == 0 else 0.0
        return 2.0 * (1.0 - t_cdf(abs(self.estimate) / self.se, self.df))


def paired_difference(a: np.ndarray, b: np.ndarray) -> Difference:
    """Mean of a_i - b_i with a t interval (se = sd / sqrt(n)): the same sessions in both."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in size: {a.size} and {b.size}")
    diff = a - b
    n = int(diff.size)
    if n == 0:
        return Difference(math.nan, math.nan, math.nan, 0, True)
    mean = float(diff.mean())
    if n < 2:
        return Difference(mean, math.nan, math.nan, n, True)
    se = float(diff.std(ddof=1)) / math.sqrt(n)
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * se
    return Difference(mean, mean - half, mean + half, n, True, se, n - 1)


def welch_difference(a: np.ndarray, b: np.ndarray) -> Difference:
    """mean(a) - mean(b) with Welch's t interval: independent samples, unequal variances."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na, nb = int(a.size), int(b.size)
    if na == 0 or nb == 0:
        return Difference(math.nan, math.nan, math.nan, min(na, nb), False)
    mean = float(a.mean() - b.mean())
    if na < 2 or nb < 2:
        return Difference(mean, math.nan, math.nan, min(na, nb), False)
    va, vb = float(a.var(ddof=1)) / na, float(b.var(ddof=1)) / nb
    se = math.sqrt(va + vb)
    if se == 0:
        return Difference(mean, mean, mean, min(na, nb), False, 0.0, math.inf)
    df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    half = t_quantile(0.5 + CONFIDENCE / 2, df) * se
    return Difference(mean, mean - half, mean + half, min(na, nb), False, se, df)
