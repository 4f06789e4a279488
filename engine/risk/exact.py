"""The exact figures of a session: its final net's distribution and what follows from it.

:func:`exact_risk` plays one configuration's chain (:mod:`baccarat.risk.chain`) and returns
an :class:`ExactRisk`: the probability of every final net by stop reason, the expected
coups played and amounts staked, and the figures a backtest's summary reports (mean,
standard deviation and quantiles of net, P(ahead), risk of ruin, bust rate, P(win goal),
P(stop loss), the expected edge), here exact for the model of independent coups.
:func:`session_distribution` is the notebook's door: a SPEC in, a frame out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..replay import SessionPolicy, full_shoe_ev
from ..rules import TableRules
from ..session_play import STOP_REASONS
from .chain import (
    DEFAULT_CELL_LIMIT,
    DEFAULT_STATE_LIMIT,
    DEFAULT_TIME_LIMIT,
    ChainResult,
    SessionChain,
)
from .machine import RiskError
from .offgrid import OFF_GRID_LIMIT

if TYPE_CHECKING:
    import pandas as pd

#: The quantiles of net reported, as the backtest summary's.
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: A cumulative probability within this of a quantile's level counts as reaching it (the
#: sums carry float64 rounding; an atom at exactly 5% must be the 5% quantile).
QUANTILE_SLACK = 1e-12


@dataclass
class ExactRisk:
    """One configuration's exact session distribution and its figures.

    ``net`` holds every final net a session can end with (ascending), ``by_reason`` the
    probability of ending with it for each stop reason of ``baccarat.session_play.STOP_REASONS``
    (rows) and ``probability`` their sum.
    """

    spec: str
    rules: TableRules
    policy: SessionPolicy
    coups: int | None
    unit: Fraction
    net: np.ndarray
    by_reason: np.ndarray
    expected_coups: float
    wagered: dict[str, float]
    limit_hits: float
    states: int
    cells: int
    shoes_followed: str
    figures: dict[str, float] = field(default_factory=dict)

    @property
    def probability(self) -> np.ndarray:
        """P(the session ends with each net of ``net``)."""
        return self.by_reason.sum(axis=0)

    def reason(self, name: str) -> float:
        """P(the session ends for reason ``name``: ruin, busted, win_goal, ...)."""
        return math.fsum(self.by_reason[STOP_REASONS.index(name)])

    def quantile(self, q: float) -> float:
        """The smallest net whose cumulative probability reaches ``q``."""
        cdf = np.cumsum(self.probability)
        at = int(np.searchsorted(cdf, q - QUANTILE_SLACK, side="left"))
        return float(self.net[min(at, self.net.size - 1)])

    def frame(self) -> pd.DataFrame:
        """The distribution as a frame: ``net``, ``probability``, ``cdf`` and one
        ``p_<reason>`` column per stop reason; the figures in ``frame.attrs``."""
        import pandas as pd

        columns: dict[str, Any] = {"net": self.net, "probability": self.probability,
                                   "cdf": np.cumsum(self.probability)}
        for k, name in enumerate(STOP_REASONS):
            columns[f"p_{name}"] = self.by_reason[k]
        frame = pd.DataFrame(columns)
        frame.attrs.update({"spec": self.spec, "rules": self.rules.label(),
                            "unit": str(self.unit), **self.figures})
        return frame


def _figures(risk: ExactRisk) -> dict[str, float]:
    p = risk.probability
    net = risk.net
    mean = math.fsum(p * net)
    variance = math.fsum(p * (net - mean) ** 2)
    ev = full_shoe_ev(risk.rules)
    wagered = math.fsum(risk.wagered.values())
    expected_net = math.fsum(ev[kind] * amount for kind, amount in risk.wagered.items())
    figures = {
        "mean_net": mean,
        "std_net": math.sqrt(max(variance, 0.0)),
        **{f"q{round(q * 100):02d}_net": risk.quantile(q) for q in QUANTILES},
        "p_ahead": math.fsum(p[net > 0]),
        "risk_of_ruin": risk.reason("ruin"),
        "bust_rate": risk.reason("busted"),
        # every other stop reason: p_win_goal, p_stop_loss, p_max_coups, p_end, ...
        **{f"p_{name}": risk.reason(name) for name in STOP_REASONS
           if name not in ("ruin", "busted")},
        "expected_coups": risk.expected_coups,
        "expected_wagered": wagered,
        "expected_limit_hits": risk.limit_hits,
        "expected_edge": expected_net / wagered if wagered > 0 else float("nan"),
        "expected_net_of_bets": expected_net,
        "total_probability": math.fsum(p),
    }
    return figures


def from_chain(spec: str, rules: TableRules, policy: SessionPolicy, coups: int | None,
               result: ChainResult) -> ExactRisk:
    """An :class:`ExactRisk` from a played chain (start: the policy's bankroll)."""
    start = Fraction(repr(float(policy.bankroll)))
    if result.off_grid:  # bankrolls off the money grid too: every amount, exactly
        amount, by_reason, scale = result.amounts()
        # (amount * unit / scale - start) as a float, from exact integers
        unit = result.unit / scale
        top = (amount * unit.numerator * start.denominator
               - start.numerator * unit.denominator)
        net = np.array([x / (unit.denominator * start.denominator) for x in top.tolist()])
    else:
        held = np.flatnonzero(result.final.any(axis=0))
        net = np.array([float(i * result.unit - start) for i in held.tolist()])
        by_reason = result.final[:, held]
    risk = ExactRisk(spec, rules, policy, coups, result.unit, net, by_reason,
                     result.coups, result.wagered, result.limit_hits, result.states,
                     result.cells, result.shoes_followed)
    risk.figures = _figures(risk)
    return risk


def exact_risk(strategy: Any, rules: TableRules | None = None,
               policy: SessionPolicy | None = None, coups: int | None = None, *,
               state_limit: int = DEFAULT_STATE_LIMIT,
               cell_limit: int = DEFAULT_CELL_LIMIT,
               off_grid_limit: int = OFF_GRID_LIMIT,
               time_limit: float | None = DEFAULT_TIME_LIMIT) -> ExactRisk:
    """The exact session distribution of one configuration (a Strategy or a SPEC naming
    one configuration) under ``rules`` and ``policy``; ``coups``: sessions of that many
    coups instead of ``policy.session_shoes`` shoes. Past a limit (the system's states,
    the chain's cells, the sessions off the money grid, the projected seconds) it raises
    ``TooManyStates``."""
    rules = rules or TableRules()
    policy = policy or SessionPolicy()
    strategy = _one_configuration(strategy)
    chain = SessionChain(strategy, rules, policy, coups, state_limit, cell_limit,
                         off_grid_limit, time_limit)
    return from_chain(strategy.spec(), rules, policy, coups, chain.run())


def _one_configuration(strategy: Any) -> Any:
    if isinstance(strategy, str):
        from ..strategies.registry import expand_spec

        configs = expand_spec(strategy)
        if len(configs) != 1:
            raise RiskError(f"{strategy!r} stands for {len(configs)} configurations; "
                            f"give one (or use baccarat risk, which plays a grid)")
        return configs[0]
    return strategy


def session_distribution(spec: Any, rules: TableRules | None = None,
                         policy: SessionPolicy | None = None,
                         coups: int | None = None,
                         time_limit: float | None = DEFAULT_TIME_LIMIT) -> pd.DataFrame:
    """The exact distribution of a session's final net, as a frame.

    One row per final net a session can end with: ``net``, ``probability``, ``cdf`` and
    ``p_<reason>`` (ending with that net for that stop reason: ruin, busted, win_goal,
    ...). ``frame.attrs`` holds the figures (``mean_net``, ``risk_of_ruin``,
    ``expected_edge``, ...). The model: coups independent, each with a full shoe's exact
    probabilities, shoes of the rules' length distribution (see ``baccarat.risk``).
    ``time_limit``: the most seconds the chain may take (None: no limit).
    """
    return exact_risk(spec, rules, policy, coups, time_limit=time_limit).frame()


__all__ = ["ExactRisk", "QUANTILES", "exact_risk", "from_chain", "session_distribution"]
