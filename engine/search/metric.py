"""What "best" means in a search: a metric of the summary table and its direction.

The default is the realized edge minus the expected edge (total net minus total exact
expected net, over total wagered): the only part of a result that skill could change,
zero in expectation for every system on fair shoes. Any summary metric with a value per
configuration may be chosen instead; the direction is known for those where it is
obvious (risk of ruin: lower is better) and must be said for the others
(``std_net:lower``).

The default metric is shown as it is but ranked studentized: a configuration is chosen
by its departure from its expected edge in units of its own standard error (``z``,
``baccarat.search.adjust.studentized``), as every family-wise test ranks it, so a
configuration that bets rarely and swings widely does not take the best slot by luck.
Any other metric ranks by its own value.

A metric here is computed over a subset of sessions for many rows at once: every input
is a (rows x sessions) matrix, one row per configuration (or per configuration and fair
dataset, for the null), so a search never calls pandas per configuration for the common
metrics. Each gives what ``baccarat.metrics.summarize`` gives over the same sessions (the
tests compare them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import BaccaratError
from ..metrics import SUMMARY_METRICS, ratio_interval, tail_mean, wilson_interval
from ..session_play import SHOE_STOP_COLUMNS

Columns = dict[str, np.ndarray]

#: The default metric, as the user may write it, and its column name.
DEFAULT_METRIC = "realized_edge - expected_edge"
EDGE_OVER_EXPECTED = "edge_over_expected"

#: The session columns every search reads (the p-values need them whatever the metric).
BASE_COLUMNS = ("net", "wagered", "expected_net")


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)


def _std(x: np.ndarray) -> np.ndarray:
    if x.shape[1] < 2:
        return np.full(x.shape[0], np.nan)
    return np.asarray(x.std(axis=1, ddof=1))


def _over_std(mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.nan)


def _sharpe(c: Columns) -> np.ndarray:
    returns = c["net"] / c["start_bankroll"]
    return _over_std(returns.mean(axis=1), _std(returns))


def _sqn(c: Columns) -> np.ndarray:
    n = c["net"].shape[1]
    return math.sqrt(min(n, 100)) * _over_std(c["net"].mean(axis=1), _std(c["net"]))


def _rows(function: Callable[..., float], *names: str) -> Callable[[Columns], np.ndarray]:
    """A metric computed row by row with the summary's own function (intervals, tails)."""
    def compute(c: Columns) -> np.ndarray:
        return np.array([function(*(c[name][r] for name in names))
                         for r in range(c[names[0]].shape[0])], dtype=np.float64)
    return compute


def _wilson(column: str, part: int) -> Callable[[Columns], np.ndarray]:
    def one(flags: np.ndarray) -> float:
        return wilson_interval(int(flags.sum()), flags.size)[part]
    return _rows(one, column)


def _edge_bound(part: int) -> Callable[[Columns], np.ndarray]:
    return _rows(lambda net, wagered: ratio_interval(net, wagered)[part], "net", "wagered")


@dataclass(frozen=True)
class SearchMetric:
    """A metric a search ranks by: its name, title, format, direction and computation."""

    name: str
    title: str
    fmt: str
    higher: bool
    columns: tuple[str, ...]
    compute: Callable[[Columns], np.ndarray]
    studentize: bool = False

    def keys(self, columns: Columns) -> np.ndarray:
        """What a choice ranks by over these sessions: the studentized statistic for
        the default metric (higher is better), else the metric's values."""
        if not self.studentize:
            return self.values(columns)
        from .adjust import studentized

        return studentized(columns["net"], columns["wagered"], columns["expected_net"])

    def values(self, columns: Columns) -> np.ndarray:
        """The metric of each row of the (rows x sessions) matrices (NaN where undefined:
        no session, or nothing wagered for an edge)."""
        if columns[self.columns[0]].shape[1] == 0:
            return np.full(columns[self.columns[0]].shape[0], np.nan)
        return np.asarray(self.compute(columns), dtype=np.float64)

    def best(self, values: np.ndarray) -> int:
        """The row with the best value (the first of equals; NaN is never best unless
        every value is NaN)."""
        key = np.where(np.isnan(values), -np.inf, values if self.higher else -values)
        return int(np.argmax(key))

    def ranks(self, values: np.ndarray) -> np.ndarray:
        """1 for the best value, 2 for the next, ... (ties by order; NaN last)."""
        key = np.where(np.isnan(values), np.inf, -values if self.higher else values)
        order = np.argsort(key, kind="stable")
        ranks = np.empty(values.size, dtype=np.int64)
        ranks[order] = np.arange(1, values.size + 1)
        return ranks

    def format(self, value: float) -> str:
        """The value as the tables print it ("-" when undefined)."""
        return "-" if value is None or math.isnan(value) else self.fmt.format(value)

    @property
    def label(self) -> str:
        """The name with its direction, as the outputs state it."""
        return f"{self.name} ({'higher' if self.higher else 'lower'} is better)"


def _q(q: float) -> Callable[[Columns], np.ndarray]:
    return lambda c: np.quantile(c["net"], q, axis=1)


def _total(column: str) -> Callable[[Columns], np.ndarray]:
    return lambda c: c[column].sum(axis=1).astype(float)


#: name -> (columns read, computation, higher is better (None: the user must say)).
_DEFINITIONS: dict[str, tuple[tuple[str, ...], Callable[[Columns], np.ndarray], bool | None]] = {
    EDGE_OVER_EXPECTED: (BASE_COLUMNS, lambda c: _ratio(
        c["net"].sum(axis=1) - c["expected_net"].sum(axis=1), c["wagered"].sum(axis=1)), True),
    "mean_net": (("net",), lambda c: c["net"].mean(axis=1), True),
    "expected_net": (("expected_net",), lambda c: c["expected_net"].mean(axis=1), True),
    "median_net": (("net",), lambda c: np.median(c["net"], axis=1), True),
    "std_net": (("net",), lambda c: _std(c["net"]), None),
    "p05_net": (("net",), _q(0.05), True),
    "p25_net": (("net",), _q(0.25), True),
    "p75_net": (("net",), _q(0.75), True),
    "p95_net": (("net",), _q(0.95), True),
    "prob_profit": (("net",), lambda c: (c["net"] > 0).mean(axis=1), True),
    "risk_of_ruin": (("ruined",), lambda c: c["ruined"].mean(axis=1), False),
    "risk_of_ruin_low": (("ruined",), _wilson("ruined", 0), False),
    "risk_of_ruin_high": (("ruined",), _wilson("ruined", 1), False),
    "bust_rate": (("busted",), lambda c: c["busted"].mean(axis=1), False),
    "bust_rate_low": (("busted",), _wilson("busted", 0), False),
    "bust_rate_high": (("busted",), _wilson("busted", 1), False),
    "realized_edge": (("net", "wagered"), lambda c: _ratio(c["net"].sum(axis=1),
                                                           c["wagered"].sum(axis=1)), True),
    "realized_edge_low": (("net", "wagered"), _edge_bound(1), True),
    "realized_edge_high": (("net", "wagered"), _edge_bound(2), True),
    "expected_edge": (("expected_net", "wagered"), lambda c: _ratio(
        c["expected_net"].sum(axis=1), c["wagered"].sum(axis=1)), True),
    "mean_wagered": (("wagered",), lambda c: c["wagered"].mean(axis=1), None),
    "mean_max_drawdown": (("max_drawdown",), lambda c: c["max_drawdown"].mean(axis=1), False),
    "worst_max_drawdown": (("max_drawdown",), lambda c: c["max_drawdown"].max(axis=1), False),
    "var_95": (("net",), lambda c: -np.quantile(c["net"], 0.05, axis=1), False),
    "cvar_95": (("net",), _rows(lambda net: -tail_mean(net, 0.05), "net"), False),
    "sharpe": (("net", "start_bankroll"), _sharpe, True),
    "sqn": (("net",), _sqn, True),
    "mean_coups": (("coups",), lambda c: c["coups"].mean(axis=1), None),
    "limit_hits": (("limit_hits",), lambda c: c["limit_hits"].sum(axis=1).astype(float), None),
    **{column: ((column,), _total(column), None) for column in SHOE_STOP_COLUMNS},
}

_TITLES = {m.name: (m.title, m.fmt) for m in SUMMARY_METRICS}
_TITLES[EDGE_OVER_EXPECTED] = ("Realized - expected edge", "{:+.3%}")


def search_metrics() -> list[str]:
    """The metric names a search accepts."""
    return list(_DEFINITIONS)


def parse_metric(text: str | None) -> SearchMetric:
    """The metric named by ``--metric``: ``NAME`` or ``NAME:higher`` / ``NAME:lower``.

    ``realized_edge - expected_edge`` (spaces optional) is the default. A metric whose
    better direction is not obvious (``std_net``, ``mean_wagered``, ``mean_coups``,
    ``limit_hits``) needs ``:higher`` or ``:lower``.
    """
    raw = (text or DEFAULT_METRIC).strip()
    name, _, direction = raw.partition(":")
    name = name.strip()
    if name.replace(" ", "") == DEFAULT_METRIC.replace(" ", ""):
        name = EDGE_OVER_EXPECTED
    if name not in _DEFINITIONS:
        others = {m.name for m in SUMMARY_METRICS} - set(_DEFINITIONS)
        why = (" is a p-value, what the search works out for every configuration (its "
               "p column), not a figure to choose by" if name == "edge_p" else
               " is the same for every part of the shoes or not a number" if name in others
               else "")
        raise BaccaratError(f"metric {raw!r}: {name!r}{why or ' is not known'}; expected "
                            f"{DEFAULT_METRIC!r} or one of {', '.join(_DEFINITIONS)}, "
                            f"optionally with :higher or :lower", params=("metric",))
    columns, compute, higher = _DEFINITIONS[name]
    direction = direction.strip().lower()
    if direction:
        if direction not in ("higher", "lower"):
            raise BaccaratError(f"metric {raw!r}: the direction {direction!r} is not "
                                f"higher or lower", params=("metric",))
        higher = direction == "higher"
    if higher is None:
        raise BaccaratError(f"metric {raw!r}: say which way is better: {name}:higher or "
                            f"{name}:lower", params=("metric",))
    title, fmt = _TITLES[name]
    return SearchMetric(name, title, fmt, higher, columns, compute,
                        studentize=name == EDGE_OVER_EXPECTED)


__all__ = ["BASE_COLUMNS", "DEFAULT_METRIC", "EDGE_OVER_EXPECTED", "SearchMetric",
           "parse_metric", "search_metrics"]
