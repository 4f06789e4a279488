"""Risk metrics, declared once: per session and per strategy configuration.

``SESSION_METRICS`` and ``SUMMARY_METRICS`` are the single source of the metric names,
titles and units: the Parquet columns, the CLI tables and the HTML report all list them
in this order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .jit import njit
from .replay import ConfigLedger
from .session_play import (
    BUSTED,
    N_PATH,
    SHOE_STOP_COLUMNS,
    SHOE_STOP_REASONS,
    STOP_REASONS,
    drawdown_step,
    streak_step,
)
from .session_stats import INPUTS, SessionStats, batches_of, session_stats

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Metric:
    """One metric: its column name, a human title, its unit, and how to print it."""

    name: str
    title: str
    unit: str = ""
    fmt: str = "{:,.2f}"
    description: str = ""


def format_metric(metric: Metric, value: object) -> str:
    """A metric value as the tables print it ("-" when missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    try:
        return metric.fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


SESSION_METRICS: tuple[Metric, ...] = (
    Metric("start_bankroll", "Start bankroll", "units"),
    Metric("final_bankroll", "Final bankroll", "units"),
    Metric("net", "Net result", "units"),
    Metric("wagered", "Amount wagered", "units"),
    Metric("bets", "Bets", "count", "{:,.0f}"),
    Metric("wins", "Wins", "count", "{:,.0f}"),
    Metric("losses", "Losses", "count", "{:,.0f}"),
    Metric("pushes", "Pushes", "count", "{:,.0f}"),
    Metric("realized_edge", "Realized edge", "fraction", "{:+.4%}",
           "net / wagered (the player's return per unit staked)"),
    Metric("expected_net", "Expected net", "units", "{:,.4f}",
           "the exact expected net of the stakes placed, coup by coup"),
    Metric("expected_edge", "Expected edge", "fraction", "{:+.4%}",
           "expected net / wagered: what realized_edge estimates"),
    Metric("peak_bankroll", "Peak bankroll", "units"),
    Metric("trough_bankroll", "Trough bankroll", "units"),
    Metric("max_drawdown", "Max drawdown", "units"),
    Metric("max_drawdown_pct", "Max drawdown % of peak", "fraction", "{:.2%}"),
    Metric("longest_winning_streak", "Longest winning streak", "bets", "{:,.0f}"),
    Metric("longest_losing_streak", "Longest losing streak", "bets", "{:,.0f}"),
    Metric("max_stake", "Largest stake", "units"),
    Metric("limit_hits", "Table-limit hits", "count", "{:,.0f}"),
    Metric("ruined", "Ruined", "bool", "{}"),
    Metric("ruin_coup", "Coup of ruin", "coup", "{:,.0f}", "-1 when not ruined"),
    Metric("busted", "Busted", "bool", "{}",
           "the bankroll could not pay the stake asked for (stop_reason busted)"),
    Metric("coups", "Coups played", "count", "{:,.0f}"),
    Metric("stop_reason", "Stop reason", "", "{}",
           "why the session ended (a per-shoe rule that cut its last shoe short gives "
           "that rule's name; shoe_stops_* count every shoe a rule cut short)"),
    *(Metric(column, f"Shoes stopped by {reason}", "count", "{:,.0f}",
             f"shoes of the session that the per-shoe {reason} rule cut short")
      for column, reason in zip(SHOE_STOP_COLUMNS, SHOE_STOP_REASONS, strict=True)),
)


@njit(cache=True)
def _path_metrics(start, net, bankroll, played, total_stake):  # pragma: no cover - compiled
    """Each session's path metrics (``baccarat.session_play.PATH_METRICS``) from its
    grids, coup by coup as the fused path's kernel moves them."""
    n, width = net.shape
    out = np.zeros((n, N_PATH))
    for i in range(n):
        peak = trough = start
        max_dd = max_dd_pct = 0.0
        win_run = lose_run = best_win = best_lose = wins = losses = pushes = 0
        for t in range(width):
            if not played[i, t]:
                continue
            peak, trough, max_dd, max_dd_pct = drawdown_step(bankroll[i, t], peak, trough,
                                                             max_dd, max_dd_pct)
            bet = np.int64(total_stake[i, t] > 0)
            won = bet * np.int64(net[i, t] > 0)
            lost = bet * np.int64(net[i, t] < 0)
            win_run, lose_run, best_win, best_lose, wins, losses, pushes = streak_step(
                bet, won, lost, win_run, lose_run, best_win, best_lose, wins, losses, pushes)
        out[i, 0] = peak
        out[i, 1] = trough
        out[i, 2] = max_dd
        out[i, 3] = max_dd_pct
        out[i, 4] = best_win
        out[i, 5] = best_lose
        out[i, 6] = wins
        out[i, 7] = losses
        out[i, 8] = pushes
    return out


def grid_sums(grid: np.ndarray) -> np.ndarray:
    """Each session's sum of a (sessions x steps) grid of amounts (its nets, its stakes,
    its stakes on one bet kind): numpy's sum along the row. The replay's session sums and
    the fused path's are both this, over the same grids, so they are the same bit for
    bit."""
    return grid.sum(axis=1)


def session_metrics(ledger: ConfigLedger) -> dict[str, np.ndarray]:
    """Every per-session metric of one configuration's ledger grids, by metric name."""
    total_stake = np.zeros_like(ledger.net)
    max_stake = np.zeros(ledger.net.shape[0])
    for stake in ledger.stakes.values():
        total_stake += stake
        max_stake = np.maximum(max_stake, stake.max(axis=1) if stake.size else 0.0)
    start = ledger.start_bankroll
    path = _path_metrics(float(start), ledger.net, ledger.bankroll, ledger.played, total_stake)
    return session_columns(
        start=float(start), net=grid_sums(ledger.net), wagered=grid_sums(total_stake),
        expected=ledger.session_expected_net(), path=path,
        bets=(total_stake > 0).sum(axis=1), max_stake=max_stake,
        limit_hits=ledger.limit_hits, ruined=ledger.ruined, ruin_coup=ledger.ruin_coup,
        stop_reason=ledger.stop_reason, coups=ledger.played.sum(axis=1),
        shoe_stops=ledger.shoe_stops)


def session_columns(*, start: float, net: np.ndarray, wagered: np.ndarray,
                    expected: np.ndarray, path: np.ndarray, bets: np.ndarray,
                    max_stake: np.ndarray, limit_hits: np.ndarray, ruined: np.ndarray,
                    ruin_coup: np.ndarray, stop_reason: np.ndarray,
                    coups: np.ndarray, shoe_stops: np.ndarray) -> dict[str, np.ndarray]:
    """The per-session metric columns, in ``SESSION_METRICS`` order, from per-session sums.

    ``path`` holds, per session, what ``_path_metrics`` computes (peak, trough, max
    drawdown and its share of the peak, the longest streaks, wins, losses, pushes);
    ``stop_reason`` indexes ``STOP_REASONS``; ``shoe_stops`` (sessions x
    ``N_SHOE_STOPS``) counts the shoes each per-shoe rule cut short. The replay's grids
    and the fused path both end here, so the two give the same columns.
    """
    some = wagered > 0
    per_unit = np.where(some, wagered, 1.0)
    edge = np.where(some, net / per_unit, np.nan)
    expected_edge = np.where(some, expected / per_unit, np.nan)
    columns = {
        "start_bankroll": np.full(net.shape, float(start)),
        "final_bankroll": start + net,
        "net": net,
        "wagered": wagered,
        "bets": bets,
        "wins": path[:, 6].astype(np.int64),
        "losses": path[:, 7].astype(np.int64),
        "pushes": path[:, 8].astype(np.int64),
        "realized_edge": edge,
        "expected_net": expected,
        "expected_edge": expected_edge,
        "peak_bankroll": path[:, 0],
        "trough_bankroll": path[:, 1],
        "max_drawdown": path[:, 2],
        "max_drawdown_pct": path[:, 3],
        "longest_winning_streak": path[:, 4].astype(np.int64),
        "longest_losing_streak": path[:, 5].astype(np.int64),
        "max_stake": max_stake,
        "limit_hits": limit_hits,
        "ruined": ruined,
        "ruin_coup": ruin_coup,
        "busted": stop_reason == BUSTED,
        "coups": coups,
        "stop_reason": np.array(STOP_REASONS, dtype=object)[stop_reason],
        **{column: np.ascontiguousarray(shoe_stops[:, j])
           for j, column in enumerate(SHOE_STOP_COLUMNS)},
    }
    assert list(columns) == [m.name for m in SESSION_METRICS]
    return columns


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class SummaryMetric(Metric):
    """An aggregate over a configuration's sessions, computed from their ``SessionStats``
    (``engine/session_stats.py``: exact sums, spreads, quantiles and tail, read in passes
    so that memory does not grow with the sessions). A new metric that needs something
    the stats do not hold adds it there."""

    compute: Callable[[SessionStats], Any] | None = None


def tail_mean(values: np.ndarray, fraction: float) -> float:
    """The mean of the lowest ``fraction`` of ``values``, the boundary value weighted in part.

    With n values the tail holds ``fraction * n`` of them: the lowest whole ones and, when
    that is not a whole number, the share of the next one that completes it. Ties are
    counted as many times as they occur, so a tail never takes more sessions than its share
    (an average of everything at or below the quantile would, when values tie there).
    (The summary's CVaR is this with ``fraction`` 0.05, computed exactly by
    ``session_stats`` without holding the values.)
    """
    x = np.sort(np.asarray(values, dtype=np.float64))
    size = fraction * x.size
    if size <= 0:
        return math.nan
    whole = int(math.floor(size))
    total = float(x[:whole].sum())
    if whole < x.size and size > whole:
        total += (size - whole) * float(x[whole])
    return total / size


def _rate(column: str, part: int) -> Callable[[SessionStats], float]:
    """The share of sessions with ``column`` true (part 0), or its Wilson bounds (1, 2)."""
    def compute(s: SessionStats) -> float:
        count = s.counts[column]
        if part == 0:
            return count / s.n
        return wilson_interval(count, s.n)[part - 1]
    return compute


def ratio_interval(net: np.ndarray, wagered: np.ndarray,
                   z: float = Z95) -> tuple[float, float, float]:
    """Total net / total wagered with its 95% score interval, sessions as independent
    units (``score_interval``)."""
    return score_interval(edge_sums(net, wagered), z)


def edge_sums(net: np.ndarray, wagered: np.ndarray) -> EdgeSums:
    """The ``EdgeSums`` of sessions given as arrays of their net and wagered."""
    net = np.asarray(net, dtype=np.float64)
    wagered = np.asarray(wagered, dtype=np.float64)
    total_net, total = float(net.sum()), float(wagered.sum())
    ratio = total_net / total if total > 0 else math.nan
    residual = float(((net - ratio * wagered) ** 2).sum()) if total > 0 else math.nan
    return EdgeSums(net.size, total_net, total, residual, float((net * wagered).sum()),
                    float((wagered * wagered).sum()))


def edge_interval(s: SessionStats, z: float = Z95) -> tuple[float, float, float]:
    """``ratio_interval`` of a configuration's sessions, from their stats."""
    return score_interval(_edge_sums(s), z)


@dataclass(frozen=True)
class EdgeSums:
    """What the realized edge's interval and test read of a configuration's sessions:
    their number, the totals of net and wagered, the sum of squared residuals around the
    realized edge (net - edge x wagered), and the sums of net x wagered and of wagered
    squared."""

    n: int
    net: float
    wagered: float
    residual_squares: float
    net_wagered: float
    wagered_squares: float

    @property
    def cross(self) -> float:
        """The sum over sessions of (net - realized edge x wagered) x wagered."""
        return self.net_wagered - self.net / self.wagered * self.wagered_squares

    def spread(self, edge: float) -> float:
        """The sum over sessions of (net - edge x wagered) squared: the variance of the
        total's departure from ``edge`` x wagered when ``edge`` is the true edge."""
        gap = self.net / self.wagered - edge
        return max(self.residual_squares + 2 * gap * self.cross
                   + gap * gap * self.wagered_squares, 0.0)


def _edge_sums(s: SessionStats) -> EdgeSums:
    return EdgeSums(s.n, s.sums["net"], s.sums["wagered"], s.residual_squares,
                    s.sums["net_wagered"], s.sums["wagered_squared"])


def score_interval(sums: EdgeSums, z: float = Z95) -> tuple[float, float, float]:
    """The realized edge (total net / total wagered) and the edges its score test does not
    reject at ``z``: every edge e with (total net - e x total wagered)^2 at most z^2 x the
    sum of (net - e x wagered)^2, each session's departure from e measured as if e were
    true (the score test's acceptance region, as Wilson's interval is for a proportion).

    Measured around the realized edge instead (the delta method, Wald's interval), a
    system that bet a few times is judged far too surely: 4 wins in 21 even-money Player
    bets put the house edge 3.45 standard errors away (p = 0.0006), the score test 2.80
    (p = 0.005), an exact binomial test at p = 0.007; and over fair shoes a rarely betting
    system's 95% interval held its true edge 92% of the time, the score interval 95%.
    Bounds are NaN when the sessions cannot bound it: too few sessions with bets (the
    stakes of fewer than about z^2 sessions carry the total)."""
    if sums.wagered <= 0:
        return (math.nan, math.nan, math.nan)
    ratio = sums.net / sums.wagered
    z2 = z * z
    lead = sums.wagered ** 2 - z2 * sums.wagered_squares
    if sums.n < 2 or lead <= 0:
        return (ratio, math.nan, math.nan)
    # The edges e with lead e^2 - 2 middle e + last <= 0, written around the realized
    # edge (e = ratio + x) so that nothing large cancels.
    middle = z2 * sums.cross  # lead x^2 + 2 middle x - z2 residual_squares <= 0
    root = math.sqrt(max(middle * middle + lead * z2 * sums.residual_squares, 0.0))
    return (ratio, ratio + (-middle - root) / lead, ratio + (-middle + root) / lead)


def edge_p_value(sums: EdgeSums, expected: float) -> float:
    """Two-sided p-value of the score test that the realized edge's true value is
    ``expected``: below 5% exactly where the 95% ``score_interval`` leaves it out (NaN
    where the interval is unknown)."""
    _, low, high = score_interval(sums)
    if math.isnan(low) or math.isnan(expected):
        return math.nan
    gap = sums.net - expected * sums.wagered
    spread = sums.spread(expected)
    if spread <= 0:
        return 1.0 if gap == 0 else 0.0
    return math.erfc(abs(gap) / math.sqrt(spread) / math.sqrt(2.0))


def _edge(part: int) -> Callable[[SessionStats], float]:
    return lambda s: edge_interval(s)[part]


def _expected_edge(s: SessionStats) -> float:
    return s.ratio("expected_net", "wagered")


#: The verdict's words: the realized edge's 95% interval holds the expected edge, or not.
INSIDE, OUTSIDE = "inside", "outside"


def edge_verdict(low: float, high: float, expected: float) -> str:
    """``inside`` when [low, high] holds ``expected``, ``outside`` when not, "" unknown."""
    if any(math.isnan(v) for v in (low, high, expected)):
        return ""
    return INSIDE if low <= expected <= high else OUTSIDE


def _verdict(s: SessionStats) -> str:
    _, low, high = edge_interval(s)
    return edge_verdict(low, high, _expected_edge(s))


def _over_spread(numerator: float, spread: float) -> float:
    return numerator / spread if spread and spread > 0 else math.nan


def _total(column: str) -> Callable[[SessionStats], float]:
    """A column's total over every session."""
    return lambda s: float(s.sums[column])


SUMMARY_METRICS: tuple[SummaryMetric, ...] = (
    SummaryMetric("sessions", "Sessions", "count", "{:,.0f}", compute=lambda s: s.n),
    SummaryMetric("mean_net", "Mean net", "units", compute=lambda s: s.means["net"]),
    SummaryMetric("expected_net", "Expected net", "units", "{:,.2f}",
                  "mean over sessions of the exact expected net of the stakes placed",
                  compute=lambda s: s.means["expected_net"]),
    SummaryMetric("median_net", "Median net", "units", compute=lambda s: s.median),
    SummaryMetric("std_net", "Std dev of net", "units", compute=lambda s: s.stds["net"]),
    SummaryMetric("p05_net", "5% net", "units", compute=lambda s: s.quantiles[0.05]),
    SummaryMetric("p25_net", "25% net", "units", compute=lambda s: s.quantiles[0.25]),
    SummaryMetric("p75_net", "75% net", "units", compute=lambda s: s.quantiles[0.75]),
    SummaryMetric("p95_net", "95% net", "units", compute=lambda s: s.quantiles[0.95]),
    SummaryMetric("prob_profit", "P(ahead)", "fraction", "{:.2%}",
                  compute=lambda s: s.positive / s.n),
    SummaryMetric("risk_of_ruin", "Risk of ruin", "fraction", "{:.2%}",
                  "share of sessions whose bankroll fell below the table minimum",
                  compute=_rate("ruined", 0)),
    SummaryMetric("risk_of_ruin_low", "Ruin 95% low", "fraction", "{:.2%}",
                  compute=_rate("ruined", 1)),
    SummaryMetric("risk_of_ruin_high", "Ruin 95% high", "fraction", "{:.2%}",
                  compute=_rate("ruined", 2)),
    SummaryMetric("bust_rate", "Busted", "fraction", "{:.2%}",
                  "share of sessions stopped because the bankroll could not pay the stake "
                  "asked for", compute=_rate("busted", 0)),
    SummaryMetric("bust_rate_low", "Busted 95% low", "fraction", "{:.2%}",
                  compute=_rate("busted", 1)),
    SummaryMetric("bust_rate_high", "Busted 95% high", "fraction", "{:.2%}",
                  compute=_rate("busted", 2)),
    SummaryMetric("realized_edge", "Realized edge", "fraction", "{:+.3%}",
                  "total net / total wagered", compute=_edge(0)),
    SummaryMetric("realized_edge_low", "Edge 95% low", "fraction", "{:+.3%}",
                  compute=_edge(1)),
    SummaryMetric("realized_edge_high", "Edge 95% high", "fraction", "{:+.3%}",
                  compute=_edge(2)),
    SummaryMetric("expected_edge", "Expected edge", "fraction", "{:+.3%}",
                  "total exact expected net / total wagered: what the realized edge "
                  "estimates", compute=_expected_edge),
    SummaryMetric("edge_verdict", "Expected in 95%?", "", "{}",
                  "inside: the realized edge's 95% interval holds the expected edge",
                  compute=_verdict),
    SummaryMetric("edge_p", "p (realized vs expected edge)", "fraction", "{:.3g}",
                  "two-sided p-value of the score test that the realized edge's true value "
                  "is the expected edge: below 5% exactly where the verdict is outside",
                  compute=lambda s: edge_p_value(_edge_sums(s), _expected_edge(s))),
    SummaryMetric("house_edge", "Full-shoe house edge", "fraction", "{:.3%}",
                  "exact on a full shoe, for the bets made, weighted by amount wagered"),
    SummaryMetric("edge_gain", "Gain over full shoe", "fraction", "{:+.3%}",
                  "expected edge + full-shoe house edge: what choosing when to bet gains "
                  "(0 for a strategy that ignores the cards)"),
    SummaryMetric("mean_wagered", "Mean wagered", "units",
                  compute=lambda s: s.means["wagered"]),
    SummaryMetric("mean_max_drawdown", "Mean max drawdown", "units",
                  compute=lambda s: s.means["max_drawdown"]),
    SummaryMetric("worst_max_drawdown", "Worst drawdown", "units",
                  compute=lambda s: s.maxima["max_drawdown"]),
    SummaryMetric("var_95", "VaR 95%", "units", compute=lambda s: -s.quantiles[0.05]),
    SummaryMetric("cvar_95", "Expected shortfall 95%", "units",
                  compute=lambda s: -s.tail_mean),
    SummaryMetric("sharpe", "Sharpe (mean/std return)", "", "{:+.3f}",
                  compute=lambda s: _over_spread(s.means["return"], s.stds["return"])),
    SummaryMetric("sqn", "SQN", "", "{:+.2f}",
                  compute=lambda s: _over_spread(math.sqrt(min(s.n, 100)) * s.means["net"],
                                                 s.stds["net"])),
    SummaryMetric("mean_coups", "Mean coups played", "coups", "{:,.1f}",
                  compute=lambda s: s.means["coups"]),
    SummaryMetric("limit_hits", "Limit hits", "count", "{:,.0f}",
                  compute=lambda s: float(s.sums["limit_hits"])),
    *(SummaryMetric(column, f"Shoes stopped by {reason}", "count", "{:,.0f}",
                    f"shoes the per-shoe {reason} rule cut short, over every session",
                    compute=_total(column))
      for column, reason in zip(SHOE_STOP_COLUMNS, SHOE_STOP_REASONS, strict=True)),
)


def summarize(sessions: pd.DataFrame, house_edge: float) -> dict[str, Any]:
    """Every summary metric of one configuration's sessions (a frame of the columns
    ``baccarat.session_stats.INPUTS``)."""
    columns = {name: sessions[name].to_numpy() for name in INPUTS}
    return summarize_stats(session_stats(batches_of(columns), len(sessions)), house_edge)


def summarize_stats(stats: SessionStats, house_edge: float) -> dict[str, Any]:
    """Every summary metric of one configuration, from its sessions' ``SessionStats``."""
    values: dict[str, Any] = {}
    for metric in SUMMARY_METRICS:
        if metric.name == "house_edge":
            values[metric.name] = house_edge
        elif metric.name == "edge_gain":
            gain = values["expected_edge"] + house_edge
            # Priced by the full shoe, the two agree up to rounding in the sums: that is 0.
            values[metric.name] = 0.0 if abs(gain) < 1e-12 else gain
        elif metric.name == "edge_verdict" and stats.n == 0:
            values[metric.name] = ""
        elif stats.n == 0:
            values[metric.name] = 0.0 if metric.name == "sessions" else math.nan
        else:
            assert metric.compute is not None
            values[metric.name] = metric.compute(stats)
    return values


def weighted_house_edge(wagered_by_kind: dict[str, float], edges: dict[str, float]) -> float:
    """The exact house edge of the bets made, weighted by the amount wagered on each kind."""
    total = sum(wagered_by_kind.values())
    if total <= 0:
        return math.nan
    return sum(w * edges.get(kind, math.nan) for kind, w in wagered_by_kind.items()) / total
