"""The same figures from a simulation over real shoes, with their intervals.

Exact risk's model deals every coup from a full shoe. A real shoe is dealt down: the
cards gone change the odds of the next coup, and a shoe's length is tied to its coups.
:func:`simulate` plays the configuration with the backtest engine (``baccarat.backtest``)
over generated shoes of the rules' real size, sessions as a backtest plays them, and
gives each figure of :mod:`baccarat.risk.exact` with an interval, so the difference the
finite shoe makes is measured rather than assumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from ..metrics import ratio_interval, wilson_interval
from ..replay import SessionPolicy
from ..rules import TableRules
from ..session_play import STOP_REASONS
from .exact import QUANTILES
from .shoes import fewest_coups

#: Sessions the check plays unless told otherwise.
DEFAULT_CHECK = 10_000


@dataclass(frozen=True)
class Estimate:
    """A simulated figure with its interval (``low``/``high`` NaN when it has none)."""

    value: float
    low: float = math.nan
    high: float = math.nan

    def holds(self, exact: float, slack: float = 1e-9) -> bool | None:
        """Whether the interval holds ``exact`` (None without an interval)."""
        if math.isnan(self.low) or math.isnan(self.high):
            return None
        return self.low - slack <= exact <= self.high + slack


@dataclass
class SimulatedRisk:
    """A configuration's figures over ``sessions`` simulated sessions of real shoes."""

    sessions: int
    shoes: int
    seed: int
    level: float
    estimates: dict[str, Estimate] = field(default_factory=dict)
    net: np.ndarray = field(default_factory=lambda: np.zeros(0))


def check_layout(rules: TableRules, policy: SessionPolicy,
                 coups: int | None) -> tuple[int, int | None]:
    """(shoes per session, most coups) that play sessions of ``coups`` coups in a backtest,
    or the policy's sessions."""
    if coups is None:
        return policy.session_shoes, policy.max_coups
    return math.ceil(coups / fewest_coups(rules)), coups


def simulate(strategy: Any, rules: TableRules, policy: SessionPolicy, coups: int | None,
             sessions: int = DEFAULT_CHECK, seed: int = 0, level: float = 0.95,
             workers: int | None = 1) -> SimulatedRisk:
    """Play ``sessions`` sessions of ``strategy`` over generated shoes (seed ``seed``) and
    estimate every figure with an interval at ``level``."""
    from ..backtest import play
    from ..job import BacktestJob, Run

    shoes_per, max_coups = check_layout(rules, policy, coups)
    session = SessionPolicy(**{**policy.__dict__, "session_shoes": shoes_per,
                               "max_coups": max_coups})
    result = play(BacktestJob(None, [strategy], shoes=sessions * shoes_per, seed=seed,
                              rules=rules, session=session,
                              run=Run(ledger=False, workers=workers)))
    frame = result.sessions
    return estimates(frame, sessions * shoes_per, seed, level)


def estimates(frame: Any, shoes: int, seed: int, level: float) -> SimulatedRisk:
    """The figures of a sessions table (one configuration) with intervals at ``level``."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    net = frame["net"].to_numpy(dtype=np.float64)
    wagered = frame["wagered"].to_numpy(dtype=np.float64)
    reason = frame["stop_reason"].astype(str).to_numpy()
    n = net.size
    out: dict[str, Estimate] = {}
    out["mean_net"] = _mean(net, z)
    out["std_net"] = Estimate(float(net.std(ddof=1)) if n > 1 else math.nan)
    ordered = np.sort(net)
    for q in QUANTILES:
        out[f"q{round(q * 100):02d}_net"] = _quantile(ordered, q, z)
    out["p_ahead"] = _share(int((net > 0).sum()), n, z)
    for name in STOP_REASONS:
        key = {"ruin": "risk_of_ruin", "busted": "bust_rate"}.get(name, f"p_{name}")
        out[key] = _share(int((reason == name).sum()), n, z)
    out["expected_coups"] = _mean(frame["coups"].to_numpy(dtype=np.float64), z)
    out["expected_wagered"] = _mean(wagered, z)
    out["expected_limit_hits"] = _mean(frame["limit_hits"].to_numpy(dtype=np.float64), z)
    out["expected_edge"] = Estimate(*ratio_interval(net, wagered, z))
    return SimulatedRisk(n, shoes, seed, level, out, net)


def _mean(values: np.ndarray, z: float) -> Estimate:
    n = values.size
    mean = float(values.mean()) if n else math.nan
    if n < 2:
        return Estimate(mean)
    half = z * float(values.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half)


def _share(k: int, n: int, z: float) -> Estimate:
    low, high = wilson_interval(k, n, z)
    # Wilson's ends are 0 and 1 exactly with none or all of the sessions (the formula
    # leaves a rounding residue there)
    return Estimate(k / n if n else math.nan, 0.0 if k == 0 else low, 1.0 if k == n else high)


def _quantile(ordered: np.ndarray, q: float, z: float) -> Estimate:
    """The sample quantile (the order statistic the exact quantile's definition matches:
    the smallest value with at least a share q at or below it) and the distribution-free
    interval between two order statistics (normal approximation to the binomial)."""
    n = ordered.size
    if n == 0:
        return Estimate(math.nan)
    at = min(max(math.ceil(n * q) - 1, 0), n - 1)
    spread = z * math.sqrt(n * q * (1 - q))
    low = max(math.floor(n * q - spread) - 1, 0)
    high = min(math.ceil(n * q + spread), n - 1)
    return Estimate(float(ordered[at]), float(ordered[low]), float(ordered[high]))


__all__ = ["DEFAULT_CHECK", "Estimate", "SimulatedRisk", "check_layout", "estimates",
           "simulate"]
