"""Counting the tries: p-values of "its realized edge beats its expected edge", adjusted.

For each configuration the statistic is ``m = (total net - total expected net) / total
wagered``, the realized edge minus the exact expected edge of the bets it made. Its
expectation is 0 for any system on fair shoes (a stake is set before the coup it is
settled on, and the expected net prices exactly that coup), so "beats" is the one-sided
test of m > 0. Its raw p-value is the score test's: each session's departure d = net -
expected net has mean 0 when the system has no edge, so the total's spread is measured
by the sum of d squared (not around the realized m, which makes a system that bet a few
times and won most of them look far surer than it is); the step-down studentizes by the
delta-method standard error, which its bootstrap calibrates.

Sessions are the resampled units. Each configuration's sessions are turned into their
influence values ``x = m + (d - m w) / mean(w)`` (d: net minus expected net, w: wagered),
whose mean is m and whose spread gives m's standard error; a bootstrap draws whole
sessions, the same draws for every configuration, so the strong correlation between
configurations that play the same shoes is kept. On these:

- Holm's step-down over the normal p-values (any dependence);
- Romano and Wolf's step-down (2005; adjusted p-values as in their 2016 paper): the
  maximum over the configurations not yet rejected of the bootstrap's studentized
  statistics, which is less conservative than Holm when configurations move together;
- White's Reality Check and Hansen's SPA for the best one: is the largest studentized
  statistic larger than the largest a fair search gives? As the ``arch`` package computes
  them (``SPA``'s ``upper`` and ``consistent`` p-values) on each configuration's influence
  values divided by its score standard error, which the tests compare with ``arch`` on the
  same draws.

Every family-wise procedure ranks by the studentized statistic ``z`` (m over its score
standard error), never by the raw m: a configuration that bets rarely has a raw m that
swings widely, and ranked raw it would take the "best" slot on fair shoes every time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..analysis.significance import holm

#: Bootstrap draws of the step-down and the SPA by default.
DEFAULT_REPS = 1000

#: The family-wise level of the verdicts.
LEVEL = 0.05


@dataclass(frozen=True)
class EdgeTests:
    """Per configuration: the statistic, its delta-method standard error (the
    step-down's), the score standard error (spread around 0), the studentized statistic
    z = statistic / score standard error and its raw one-sided p."""

    statistic: np.ndarray
    se: np.ndarray
    score_se: np.ndarray
    z: np.ndarray
    p: np.ndarray
    influence: np.ndarray   # (configurations x sessions): mean is the statistic


def edge_tests(net: np.ndarray, wagered: np.ndarray, expected: np.ndarray) -> EdgeTests:
    """The one-sided test of "realized edge > expected edge" for each row of the
    (configurations x sessions) matrices. A configuration that never bet gets p = 1."""
    n = net.shape[1]
    total = wagered.sum(axis=1)
    some = total > 0
    d = net - expected
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(some, d.sum(axis=1) / np.where(some, total, 1.0), 0.0)
        mean_w = np.where(some, total / max(n, 1), 1.0)
        influence = m[:, None] + (d - m[:, None] * wagered) / mean_w[:, None]
        residual = d - m[:, None] * wagered
        se = np.sqrt((residual**2).sum(axis=1) * n / max(n - 1, 1)) / np.where(some, total,
                                                                                 1.0)
        spread = np.sqrt((d**2).sum(axis=1))  # the score test's: around 0, not m
        z = np.where(spread > 0, d.sum(axis=1) / np.where(spread > 0, spread, 1.0),
                     np.where(m > 0, np.inf, np.where(m < 0, -np.inf, 0.0)))
    z = np.where(some, z, -np.inf)
    p = np.array([0.5 * math.erfc(v / math.sqrt(2.0)) if math.isfinite(v) else
                  (0.0 if v > 0 else 1.0) for v in z])
    influence[~some] = 0.0
    score_se = np.where(some, spread / np.where(some, total, 1.0), np.nan)
    return EdgeTests(np.where(some, m, np.nan), se, score_se, z, p, influence)


def studentized(net: np.ndarray, wagered: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Each row's studentized statistic z, what every family-wise procedure ranks by:
    its departure from its expected edge in units of its own (score) standard error;
    -inf where it never bet."""
    return edge_tests(net, wagered, expected).z


def bootstrap_counts(sessions: int, reps: int, seed: int) -> np.ndarray:
    """How often each session is drawn in each of ``reps`` iid bootstrap samples
    (reps x sessions), from ``seed``: the draws every configuration shares."""
    rng = np.random.default_rng(seed)
    counts = np.empty((reps, sessions), dtype=np.float64)
    for b in range(reps):
        counts[b] = np.bincount(rng.integers(0, sessions, sessions), minlength=sessions)
    return counts


def counts_of(indices: np.ndarray, sessions: int) -> np.ndarray:
    """Bootstrap counts (reps x sessions) from drawn indices (reps x sessions drawn)."""
    return np.stack([np.bincount(row, minlength=sessions) for row in indices]).astype(
        np.float64)


def bootstrap_means(influence: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each configuration's mean influence in each bootstrap sample (configurations x
    reps): one matrix product over all configurations and samples."""
    return np.asarray((counts @ influence.T).T / influence.shape[1])


def bootstrap_se(influence: np.ndarray, counts: np.ndarray, means: np.ndarray) -> np.ndarray:
    """The standard error of each configuration's mean in each bootstrap sample
    (configurations x reps), as ``edge_tests`` computes it on the sessions drawn: one
    more matrix product, of the squares."""
    n = influence.shape[1]
    squares = np.asarray((counts @ (influence**2).T).T / n)
    variance = np.maximum(squares - means**2, 0.0) * n / max(n - 1, 1)
    return np.sqrt(variance / n)


def romano_wolf(statistic: np.ndarray, se: np.ndarray, means: np.ndarray,
                studentize: bool = True, boot_se: np.ndarray | None = None) -> np.ndarray:
    """Romano-Wolf step-down adjusted p-values of "statistic > 0" for each configuration.

    ``means`` are the bootstrap means (configurations x reps) of the statistics; the
    bootstrap distribution of each is recentred on the observed value, so it stands for
    the null. Studentized, each is divided by its standard error: the observed one's
    (``se``), and in each sample that sample's own (``boot_se``, configurations x reps)
    where given, the bootstrap-t, which also corrects for skewed sessions (a
    Martingale's: many small wins, a rare large loss). Configurations are taken from the
    largest statistic down; the p-value of the j-th is the share of samples whose largest
    recentred statistic among the j-th and those below it reaches the j-th's,
    (count + 1) / (reps + 1), never below the previous one. A configuration with no
    statistic (it never bet) gets 1.
    """
    valid = np.isfinite(statistic)
    k = statistic.size
    scale = np.where(valid & (se > 0), se, 1.0) if studentize else np.ones(k)
    observed = np.where(valid, statistic / scale, -np.inf)
    spread = scale[:, None]
    if studentize and boot_se is not None:
        spread = np.where(boot_se > 0, boot_se, scale[:, None])
    simulated = np.where(valid[:, None], (means - np.where(valid, statistic, 0.0)[:, None])
                         / spread, -np.inf)
    order = np.argsort(-observed, kind="stable")
    reps = means.shape[1]
    # running maximum from the smallest statistic up: max over the j-th and those below
    tail_max = np.maximum.accumulate(simulated[order[::-1]], axis=0)[::-1]
    adjusted = np.ones(k)
    running = 0.0
    for j, config in enumerate(order):
        if not valid[config]:
            break
        p = (int((tail_max[j] >= observed[config]).sum()) + 1) / (reps + 1)
        running = max(running, p)
        adjusted[config] = running
    return adjusted


def spa_pvalues(influence: np.ndarray, means: np.ndarray,
                scale: np.ndarray | None = None) -> dict[str, float]:
    """White's Reality Check and Hansen's SPA p-values of "the best statistic > 0", as
    ``arch.bootstrap.SPA`` computes them from the same bootstrap means, on iid sessions
    (block size 1): ``upper`` recentres every configuration (White), ``consistent`` only
    those not far below 0 (Hansen), ``lower`` only those above 0. With ``scale`` (one
    standard error per configuration) each configuration's values are divided by it
    first: the studentized tests, whose "best" is the largest z, not the largest m."""
    if scale is not None:
        factor = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)[:, None]
        influence, means = influence / factor, means / factor
    n = influence.shape[1]
    mean = influence.mean(axis=1)
    variance = ((influence - mean[:, None]) ** 2).sum(axis=1) / n
    threshold = -np.sqrt(variance / n * 2 * np.log(np.log(n))) if n > 2 else \
        np.full(mean.shape, -np.inf)
    consistent = np.where(mean >= threshold, mean, 0.0)
    lower = np.where(mean < 0, 0.0, mean)
    best = float(mean.max())
    out = {}
    for name, centre in (("lower", lower), ("consistent", consistent), ("upper", mean)):
        simulated = (means - centre[:, None]).max(axis=0)
        out[name] = float((simulated > best).mean())
    return out


@dataclass(frozen=True)
class FamilyTests:
    """Every configuration's raw and adjusted p-values, and the best one's data-snooping
    p-values."""

    tests: EdgeTests
    holm: np.ndarray
    stepdown: np.ndarray
    reality_check: float
    spa: float
    reps: int


def family_tests(net: np.ndarray, wagered: np.ndarray, expected: np.ndarray, *,
                 reps: int = DEFAULT_REPS, seed: int = 0) -> FamilyTests:
    """Raw, Holm and Romano-Wolf p-values for every configuration, and the Reality Check
    and SPA p-values of the best, from ``reps`` bootstrap samples of the sessions."""
    tests = edge_tests(net, wagered, expected)
    counts = bootstrap_counts(net.shape[1], reps, seed)
    means = bootstrap_means(tests.influence, counts)
    stepdown = romano_wolf(tests.statistic, tests.se, means,
                           boot_se=bootstrap_se(tests.influence, counts, means))
    spa = spa_pvalues(tests.influence, means, tests.score_se)
    return FamilyTests(tests, holm(tests.p), stepdown, spa["upper"], spa["consistent"], reps)


__all__ = ["DEFAULT_REPS", "LEVEL", "EdgeTests", "FamilyTests", "bootstrap_counts",
           "bootstrap_means", "bootstrap_se", "counts_of", "edge_tests", "family_tests", "holm",
           "romano_wolf", "spa_pvalues", "studentized"]
