"""A configuration's sessions reduced to what its summary needs, exactly, in memory flat in
the number of sessions.

The summary of a configuration (``baccarat.metrics.SUMMARY_METRICS``) needs sums, counts, a
maximum, sample standard deviations, five quantiles of the net result and the mean of its
worst 5% (CVaR). ``session_stats`` computes all of them from the configuration's sessions
read in batches, a few passes over them, holding one batch at a time:

- **Sums are exact** (``ExactSum``), those of products too (``SCORE_SUMS``, each
  product rounded once): each float is split into its exponent and integer
  mantissa, the mantissas summed per exponent as integers, and the total rounded once. A
  sum is then the same whatever the batches, so a run's summary does not depend on its
  chunking, and a mean is the correctly rounded mean of the values.
- **Spreads in two passes**: the mean first, then the exact sum of squared deviations.
- **Quantiles exactly, by selection**: the order statistics the quantiles (numpy's
  ``linear`` method) and the tail mean need are found by counting the values in 65,536
  bins between the bounds known so far, pass after pass, each keeping only the bin that
  holds the rank sought; once a bin holds few values they are collected and sorted (or
  its bounds meet: the values in it are equal). Two or three passes over the net column
  in practice; memory holds a batch, the bins, and at most ``COLLECT`` values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .session_play import SHOE_STOP_COLUMNS

#: The columns of the sessions table the summary reads.
INPUTS = ("net", "start_bankroll", "wagered", "ruined", "max_drawdown", "coups",
          "limit_hits", "expected_net", "busted", *SHOE_STOP_COLUMNS)

Batches = Callable[[list[str]], Iterable[dict[str, np.ndarray]]]

#: Bins a selection pass counts the values of an interval into.
BINS = 1 << 16
#: An interval holding at most this many values is settled by collecting and sorting them.
COLLECT = 1 << 18
#: The sums of products the realized edge's score interval needs (``baccarat.metrics``):
#: of net squared, of net x wagered and of wagered squared, over the sessions.
SCORE_SUMS = ("net_squared", "net_wagered", "wagered_squared")
#: The quantiles of the net result the summary reports, and the tail of the CVaR.
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
TAIL = 0.05

_EMIN = -1126  # the lowest power of two of a float64 mantissa bit (the subnormals' last)
_SPAN = 2100


class ExactSum:
    """The exact sum of float64 values added in any order, in any batches."""

    def __init__(self) -> None:
        self._parts: dict[int, int] = {}
        self._nan = False
        self._inf = 0.0

    def add(self, values: np.ndarray) -> None:
        """Add ``values`` (any float or integer array)."""
        values = np.asarray(values, dtype=np.float64).ravel()
        finite = np.isfinite(values)
        if not finite.all():
            self._nonfinite(values[~finite])
            values = values[finite]
        values = values[values != 0]
        if not values.size:
            return
        mantissa, exponent = np.frexp(values)
        whole = np.ldexp(mantissa, 53).astype(np.int64)  # exactly: |whole| < 2**53
        high = whole >> 26
        low = whole - (high << 26)  # 0 <= low < 2**26
        index = (exponent - 53 - _EMIN).astype(np.int64)
        for start in range(0, values.size, 1 << 24):  # float sums of < 2**51: exact
            part = slice(start, start + (1 << 24))
            at = index[part]
            highs = np.bincount(at, weights=high[part], minlength=_SPAN)
            lows = np.bincount(at, weights=low[part], minlength=_SPAN)
            for k in np.flatnonzero((highs != 0) | (lows != 0)):
                self._parts[int(k)] = self._parts.get(int(k), 0) + \
                    (int(highs[k]) << 26) + int(lows[k])

    def _nonfinite(self, values: np.ndarray) -> None:
        if np.isnan(values).any():
            self._nan = True
        for value in values[~np.isnan(values)]:
            self._inf += float(value)  # +inf + -inf gives nan, as a float sum would

    def fraction(self) -> Fraction:
        """The exact sum (finite values only)."""
        if not self._parts:
            return Fraction(0)
        low = min(self._parts)
        total = sum(v << (k - low) for k, v in self._parts.items())
        return Fraction(total) * Fraction(2) ** (low + _EMIN)

    def value(self) -> float:
        """The sum, rounded once to the nearest float."""
        if self._nan or math.isnan(self._inf):
            return math.nan
        if self._inf:
            return self._inf
        return float(self.fraction())

    def mean(self, n: int) -> float:
        """The sum divided by ``n``, rounded once."""
        if n == 0:
            return math.nan
        if self._nan or self._inf:
            return self.value() / n
        return float(self.fraction() / n)


@dataclass
class SessionStats:
    """What the summary metrics read of one configuration's sessions."""

    n: int = 0
    sums: dict[str, float] = field(default_factory=dict)        # exact, then rounded
    means: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)        # true values of booleans
    maxima: dict[str, float] = field(default_factory=dict)
    stds: dict[str, float] = field(default_factory=dict)        # sample (n - 1)
    quantiles: dict[float, float] = field(default_factory=dict)  # of net, numpy's linear
    median: float = math.nan                                     # of net, as numpy's median
    tail_mean: float = math.nan                                  # of net, the lowest 5%
    positive: int = 0                                            # sessions with net > 0
    residual_squares: float = math.nan  # sum of (net - edge * wagered)**2, edge = the ratio
    wagered_by: dict[str, float] = field(default_factory=dict)  # amount wagered per kind

    def ratio(self, numerator: str, denominator: str) -> float:
        """``sum(numerator) / sum(denominator)`` (NaN when the denominator is not > 0)."""
        total = self.sums.get(denominator, 0.0)
        return self.sums.get(numerator, math.nan) / total if total > 0 else math.nan


def session_stats(batches: Batches, n: int, amounts: Iterable[str] = ()) -> SessionStats:
    """The stats of ``n`` sessions given by ``batches(columns)``, which yields dicts of
    numpy arrays of those columns, the sessions in order, every time it is called (each
    pass calls it again). ``amounts`` names the ``wagered_<kind>`` columns to total."""
    stats = SessionStats(n=n)
    amounts = list(amounts)
    if n == 0:
        return stats
    # Pass 1: sums, counts, maxima, the bounds of net.
    sums = {name: ExactSum() for name in ("net", "wagered", "expected_net", "max_drawdown",
                                          "coups", "limit_hits", "return", *SCORE_SUMS,
                                          *SHOE_STOP_COLUMNS, *amounts)}
    counts = {"ruined": 0, "busted": 0}
    worst = -math.inf
    low, high, positive, seen = math.inf, -math.inf, 0, 0
    nan_net = False
    for batch in batches(list(INPUTS) + amounts):
        net = np.asarray(batch["net"], dtype=np.float64)
        seen += net.size
        for name in ("net", "wagered", "expected_net", "max_drawdown", "coups", "limit_hits",
                     *SHOE_STOP_COLUMNS, *amounts):
            sums[name].add(batch[name])
        sums["return"].add(net / np.asarray(batch["start_bankroll"], dtype=np.float64))
        wagered = np.asarray(batch["wagered"], dtype=np.float64)
        for name, product in zip(SCORE_SUMS, (net * net, net * wagered, wagered * wagered),
                                 strict=True):
            sums[name].add(product)
        for name in counts:
            counts[name] += int(np.count_nonzero(batch[name]))
        if net.size:
            if np.isnan(net).any():
                nan_net = True
            finite = net[np.isfinite(net)]
            if finite.size:
                low, high = min(low, float(finite.min())), max(high, float(finite.max()))
            positive += int(np.count_nonzero(net > 0))
            drawdown = np.asarray(batch["max_drawdown"], dtype=np.float64)
            worst = max(worst, float(np.max(drawdown)))
    if seen != n:
        raise ValueError(f"{seen} sessions read, {n} expected")
    stats.sums = {name: total.value() for name, total in sums.items()}
    stats.means = {name: total.mean(n) for name, total in sums.items()}
    stats.counts, stats.positive = counts, positive
    stats.maxima = {"max_drawdown": worst}
    stats.wagered_by = {name[len("wagered_"):]: stats.sums[name] for name in amounts}
    # Pass 2: the squared deviations, with the first round of the selection of the ranks
    # the quantiles and the tail need; then its further rounds, and the tail's sum.
    edge = stats.ratio("net", "wagered")
    squares = {name: ExactSum() for name in ("net", "return", "residual")}
    quantiles, middle, size = _ranks(n)
    whole = int(math.floor(size))
    ranks = {r for before, after, _ in quantiles.values() for r in (before, after)}
    ranks |= set(middle) | {r for r in (whole - 1, whole) if 0 <= r < n}
    selection = _Selection(ranks, low, high, n)
    for batch in batches(["net", "start_bankroll", "wagered"]):
        net = np.asarray(batch["net"], dtype=np.float64)
        returns = net / np.asarray(batch["start_bankroll"], dtype=np.float64)
        squares["net"].add((net - stats.means["net"]) ** 2)
        squares["return"].add((returns - stats.means["return"]) ** 2)
        if not math.isnan(edge):
            squares["residual"].add((net - edge * np.asarray(batch["wagered"],
                                                             dtype=np.float64)) ** 2)
        if not nan_net:
            selection.count(net)
    for name in ("net", "return"):
        stats.stds[name] = math.sqrt(squares[name].value() / (n - 1)) if n > 1 else math.nan
    stats.residual_squares = squares["residual"].value() if not math.isnan(edge) else math.nan
    if nan_net:  # as numpy's quantiles of values holding a NaN
        stats.quantiles = dict.fromkeys(QUANTILES, math.nan)
        return stats
    selection.settle()
    while not selection.done:
        for batch in batches(["net"]):
            selection.count(np.asarray(batch["net"], dtype=np.float64))
        selection.settle()
    value = selection.values
    for q, (before, after, weight) in quantiles.items():
        stats.quantiles[q] = _lerp(value[before], value[after], weight)
    left, right = middle
    stats.median = value[left] if left == right else float(
        np.mean(np.array([value[left], value[right]])))
    if size > 0:
        total = Fraction(0)
        if whole:  # the whole sessions of the tail: those below the last one, and its ties
            last = value[whole - 1]
            below, count = ExactSum(), 0
            for batch in batches(["net"]):
                net = np.asarray(batch["net"], dtype=np.float64)
                lower = net[net < last]
                below.add(lower)
                count += lower.size
            total = below.fraction() + (whole - count) * Fraction(last)
        if whole < n and size > whole:
            total += Fraction(size - whole) * Fraction(value[whole])
        stats.tail_mean = float(total / Fraction(size))
    return stats


def _ranks(n: int) -> tuple[dict[float, tuple[int, int, float]], tuple[int, int], float]:
    """The order statistics (ranks from 0) of each quantile (numpy's linear method: the
    two neighbours and the weight), of the median, and the size of the tail."""
    quantiles = {}
    for q in QUANTILES:
        virtual = (n - 1) * np.float64(q)
        before = int(np.floor(virtual))
        after = min(before + 1, n - 1)
        quantiles[q] = (before, after, float(virtual - before))
    return quantiles, ((n - 1) // 2, n // 2), TAIL * n


@dataclass
class _Interval:
    """Where a rank is known to be: its value lies in [low, high], which holds ``count``
    values, and ``below`` values are lower than ``low``."""

    low: float
    high: float
    below: int
    count: int
    stuck: bool = False  # counting it into bins made no progress: collect it instead


class _Selection:
    """The exact values of some ranks of a column read in passes: each pass counts the
    values of each open interval into ``BINS`` equal bins (with each bin's lowest and
    highest value), and the rank's next interval is its bin's values, exactly (the bin
    of a value is monotone in it, so lower bins hold only lower values); an interval of at
    most ``COLLECT`` values is collected and sorted instead, and one whose lowest and
    highest values are equal is settled."""

    def __init__(self, ranks: set[int], low: float, high: float, n: int) -> None:
        self.open = {rank: _Interval(low, high, 0, n) for rank in ranks}
        self.values: dict[int, float] = {}
        if low == high:  # every value is the same
            self.values = dict.fromkeys(ranks, low)
            self.open.clear()
        self._start()

    @property
    def done(self) -> bool:
        return not self.open

    def _start(self) -> None:
        self._bins: dict[tuple[float, float], tuple[np.ndarray, ...]] = {}
        self._kept: dict[tuple[float, float], list[np.ndarray]] = {}
        for interval in self.open.values():
            key = (interval.low, interval.high)
            if interval.count <= COLLECT or _span(*key) <= 0 or interval.stuck:
                self._kept.setdefault(key, [])
            elif key not in self._bins:
                self._bins[key] = (np.zeros(BINS, dtype=np.int64),
                                   np.full(BINS, math.inf), np.full(BINS, -math.inf))

    def count(self, values: np.ndarray) -> None:
        """One batch of a pass."""
        for (low, high), (counts, lows, highs) in self._bins.items():
            inside = values[(values >= low) & (values <= high)]
            if inside.size:
                scaled = (inside * 0.5 - low * 0.5) / _span(low, high) * BINS
                at = np.minimum(scaled.astype(np.int64), BINS - 1)
                counts += np.bincount(at, minlength=BINS)
                np.minimum.at(lows, at, inside)
                np.maximum.at(highs, at, inside)
        for (low, high), kept in self._kept.items():
            inside = values[(values >= low) & (values <= high)]
            if inside.size:
                kept.append(inside)

    def settle(self) -> None:
        """After a pass: each rank's value, or its next, narrower interval."""
        for rank, interval in list(self.open.items()):
            key = (interval.low, interval.high)
            if key in self._kept:
                kept = np.sort(np.concatenate(self._kept[key]))
                self.values[rank] = float(kept[rank - interval.below])
                del self.open[rank]
                continue
            counts, lows, highs = self._bins[key]
            cumulative = np.cumsum(counts)
            at = int(np.searchsorted(cumulative, rank - interval.below, side="right"))
            before = int(cumulative[at - 1]) if at else 0
            low, high = float(lows[at]), float(highs[at])
            if low == high:
                self.values[rank] = low
                del self.open[rank]
            else:  # a bin as wide as its interval (values a halving cannot tell apart)
                stuck = (low, high) == (interval.low, interval.high)
                self.open[rank] = _Interval(low, high, interval.below + before,
                                            int(counts[at]), stuck)
        self._start()


def _span(low: float, high: float) -> float:
    """The width of [low, high], halved (so that it stays finite for any floats)."""
    return high * 0.5 - low * 0.5


def _lerp(a: float, b: float, t: float) -> float:
    """numpy's interpolation between neighbours (``np.quantile``, method ``linear``)."""
    a64, b64, t64 = np.float64(a), np.float64(b), np.float64(t)
    diff = b64 - a64
    if t64 >= 0.5:
        return float(b64 - diff * (1 - t64))
    return float(a64 + diff * t64)


def batches_of(columns: dict[str, np.ndarray]) -> Batches:
    """``batches`` over columns held in memory: one batch, every pass."""
    def batches(names: list[str]) -> Iterator[dict[str, np.ndarray]]:
        yield {name: columns[name] for name in names if name in columns}
    return batches


__all__ = ["BINS", "COLLECT", "ExactSum", "INPUTS", "QUANTILES", "SCORE_SUMS", "SessionStats",
           "TAIL", "batches_of", "session_stats"]
