"""From an observed value and its reference sample to p-values, adjusted for the family.

The reference sample (one value per fair dataset) gives the mean, spread and 2.5/97.5%
points. The p-value is two-sided and normal, from the reference mean and standard
deviation: every statistic is an average over many shoes, and a p-value read off the
sample's ranks alone could never go below 2 / (N + 1), too coarse for a family of thirty
tests. The rank-based p-value is kept beside it for comparison.
"""

from __future__ import annotations

import math

import numpy as np


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal deviate."""
    return math.erfc(abs(z) / math.sqrt(2.0)) if math.isfinite(z) else 0.0


def z_score(observed: float, reference: np.ndarray) -> float:
    """How many reference standard deviations ``observed`` lies from the reference mean."""
    sample = reference[np.isfinite(reference)]
    mean = float(sample.mean())
    sd = float(sample.std(ddof=1)) if sample.size > 1 else 0.0
    if sd > 0:
        return (observed - mean) / sd
    return 0.0 if math.isclose(observed, mean, rel_tol=1e-12, abs_tol=1e-12) else math.inf


def empirical_p(observed: float, reference: np.ndarray) -> float:
    """Two-sided p-value from the ranks of the reference sample (never below 2/(N+1))."""
    sample = reference[np.isfinite(reference)]
    n = sample.size
    above = (int((sample >= observed).sum()) + 1) / (n + 1)
    below = (int((sample <= observed).sum()) + 1) / (n + 1)
    return min(1.0, 2 * min(above, below))


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment: reject where the adjusted p is below the family's level.

    Controls the family-wise error rate whatever the dependence between the tests.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted
