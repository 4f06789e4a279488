"""The summary's figures from sessions read in batches: exact, the same whatever the
batches, and in memory that does not grow with the sessions.

Each figure is checked against an independent computation over the whole column: numpy's
``quantile`` and pandas' ``median`` bit for bit, sums and the tail mean against exact
rational arithmetic (``fractions.Fraction``).
"""

from __future__ import annotations

import math
import tracemalloc
from fractions import Fraction
from pathlib import Path

import baccarat.session_stats as stats_module
import numpy as np
import pandas as pd
import pytest
from baccarat.backtest import SESSIONS_FILE, resolve_strategies, summarize_run
from baccarat.io.parquet import write_part
from baccarat.metrics import summarize, tail_mean
from baccarat.rules import TableRules
from baccarat.session_play import SHOE_STOP_COLUMNS
from baccarat.session_stats import QUANTILES, ExactSum, session_stats
from hypothesis import given, settings
from hypothesis import strategies as st


def columns_of(net: np.ndarray) -> dict[str, np.ndarray]:
    n = net.size
    return {"net": net, "start_bankroll": np.full(n, 1000.0),
            "wagered": np.abs(net) + 10.0, "ruined": net < -900, "busted": net < -500,
            "max_drawdown": np.abs(net), "coups": np.full(n, 80, dtype=np.int64),
            "limit_hits": (net > 100).astype(np.int64), "expected_net": -0.01 * (np.abs(net) + 10),
            **{column: (net < -k).astype(np.int64) for k, column in enumerate(SHOE_STOP_COLUMNS)}}


def in_batches(columns: dict[str, np.ndarray], cuts: list[int]):
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(columns["net"])}), len(columns["net"])]

    def batches(names: list[str]):
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            yield {name: columns[name][lo:hi] for name in names}
    return batches


def exact(values: np.ndarray) -> Fraction:
    return sum((Fraction(float(v)) for v in values), Fraction(0))


nets = st.one_of(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=400),
    st.lists(st.sampled_from([-1000.0, -10.5, 0.0, 5.0, 19.0, 1e-300, 2.5e6]), min_size=1,
             max_size=400),  # heavy ties
    st.lists(st.integers(-600, 600).map(lambda k: k * 0.5), min_size=1, max_size=400))


@settings(max_examples=120, deadline=None)
@given(values=nets, cuts=st.lists(st.integers(0, 400), max_size=8),
       collect=st.integers(1, 64), bins=st.sampled_from([2, 3, 16, 1 << 16]))
def test_the_figures_are_exact_whatever_the_batches(values, cuts, collect, bins):
    with pytest.MonkeyPatch.context() as patch:  # select by bins, as for millions
        patch.setattr(stats_module, "COLLECT", collect)
        patch.setattr(stats_module, "BINS", bins)
        check_figures(np.asarray(values, dtype=np.float64), cuts)


def check_figures(net: np.ndarray, cuts: list[int]) -> None:
    n = net.size
    columns = columns_of(net)
    got = session_stats(in_batches(columns, cuts), n)
    for q in QUANTILES:
        assert got.quantiles[q] == np.quantile(net, q), q
    assert got.median == pd.Series(net).median()
    size, ordered = 0.05 * n, np.sort(net)
    whole = math.floor(size)
    tail = exact(ordered[:whole]) + (Fraction(size - whole) * Fraction(float(ordered[whole]))
                                     if whole < n and size > whole else 0)
    assert got.tail_mean == float(tail / Fraction(size))
    assert got.tail_mean == pytest.approx(tail_mean(net, 0.05), rel=1e-12, abs=1e-300)
    assert got.sums["net"] == float(exact(net)) and got.means["net"] == float(exact(net) / n)
    assert got.counts == {"ruined": int((net < -900).sum()), "busted": int((net < -500).sum())}
    for k, column in enumerate(SHOE_STOP_COLUMNS):  # the shoes each per-shoe rule stopped
        assert got.sums[column] == int((net < -k).sum())
    assert got.positive == int((net > 0).sum())
    assert got.maxima["max_drawdown"] == float(np.abs(net).max())
    if n > 1:
        assert got.stds["net"] == pytest.approx(float(np.std(net, ddof=1)), rel=1e-9, abs=1e-9)
    again = session_stats(in_batches(columns, [n // 2]), n)  # other batches: the same bits
    assert (again.quantiles, again.median, again.tail_mean, again.sums, again.stds) == \
        (got.quantiles, got.median, got.tail_mean, got.sums, got.stds)


def test_an_exact_sum_is_the_rational_sum_rounded_once():
    values = np.array([1e308, 1.0, -1e308, 1e-320, -2.5, 3.0 * 2 ** -60, 0.1, 0.2, 0.3])
    total = ExactSum()
    for piece in np.array_split(values, 4):
        total.add(piece)
    assert total.value() == float(exact(values)) == math.fsum(values)
    assert np.sum(values) != total.value()  # a float sum loses the 1.0 next to 1e308
    nan, inf = ExactSum(), ExactSum()
    nan.add(np.array([1.0, np.nan]))
    inf.add(np.array([1.0, np.inf]))
    assert math.isnan(nan.value()) and inf.value() == math.inf


def test_the_summary_matches_numpy_and_pandas_on_a_frame():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(columns_of(np.round(rng.normal(-5, 120, 5001)) * 0.5))
    row = summarize(frame, 0.0106)
    net = frame["net"]
    assert row["p05_net"] == np.quantile(net, 0.05) and row["median_net"] == net.median()
    assert row["var_95"] == -np.quantile(net, 0.05)
    assert row["mean_net"] == pytest.approx(net.mean(), rel=1e-13)
    assert row["std_net"] == pytest.approx(net.std(), rel=1e-12)
    assert row["sharpe"] == pytest.approx((net / 1000).mean() / (net / 1000).std(), rel=1e-12)


def test_the_summary_of_a_big_configuration_holds_one_batch_not_its_sessions(tmp_path: Path):
    """A million sessions of one configuration in four parts: the summary streams them.
    Holding the configuration's columns would take 80 MB; it takes a few."""
    rng = np.random.default_rng(11)
    folder = tmp_path / "run" / SESSIONS_FILE
    folder.mkdir(parents=True)
    import pyarrow as pa

    n, parts = 1_000_000, 4
    whole = []
    for index in range(parts):
        net = np.round(rng.normal(-5, 200, n // parts)) * 0.5
        whole.append(net)
        columns = {"config": np.zeros(net.size, dtype=np.int64),
                   "session": np.arange(index * net.size, (index + 1) * net.size),
                   **columns_of(net), "wagered_banker": np.abs(net) + 10.0}
        write_part([pa.table(columns)], folder, index, {"kind": "sessions"})
    configs = resolve_strategies(["flat"])
    tracemalloc.start()
    try:
        summary = summarize_run(tmp_path / "run", configs, TableRules(), sessions=n,
                                staked={"banker"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    net = np.concatenate(whole)
    assert summary["p05_net"].iloc[0] == np.quantile(net, 0.05)
    assert summary["median_net"].iloc[0] == np.median(net)
    assert summary["sessions"].iloc[0] == n
    assert peak < 20e6, f"{peak / 1e6:.1f} MB"
