"""Summary metrics worked by hand: expected shortfall with ties, ruin and bust rates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from engine.metrics import SUMMARY_METRICS, edge_verdict, summarize, tail_mean, wilson_interval


def sessions(nets: list[float], ruined=None, busted=None) -> pd.DataFrame:
    n = len(nets)
    return pd.DataFrame({
        "net": np.asarray(nets, dtype=float), "start_bankroll": 1000.0,
        "wagered": 100.0, "expected_net": -1.0, "max_drawdown": 0.0, "coups": 10,
        "limit_hits": 0, "ruined": ruined if ruined is not None else [False] * n,
        "busted": busted if busted is not None else [False] * n,
    })


def test_cvar_takes_exactly_five_percent_of_sessions_when_nets_tie():
    # 40 sessions, the worst 5% is 2 sessions: -100 and one of the three -10s -> 55.
    # (Averaging everything at or below the 5% quantile, -10, would take four: 32.5.)
    nets = [-100, -10, -10, -10] + [0] * 36
    row = summarize(sessions(nets), 0.01)
    assert row["cvar_95"] == pytest.approx(55.0)


def test_cvar_weights_the_boundary_session_fractionally():
    # 30 sessions: 5% is 1.5 sessions: all of -100 and half of -40 -> (100 + 20) / 1.5 = 80
    nets = [-100, -40, -40] + [5] * 27
    row = summarize(sessions(nets), 0.01)
    assert row["cvar_95"] == pytest.approx(80.0)
    assert tail_mean(np.array([3.0, 1.0, 2.0]), 0.5) == pytest.approx((1 + 0.5 * 2) / 1.5)
    assert math.isnan(tail_mean(np.array([]), 0.05))


def test_ruin_and_bust_rates_with_wilson_intervals():
    ruined = [True, False, False, False, False, False, False, False, False, False]
    busted = [False, True, True, False, False, False, False, False, False, False]
    row = summarize(sessions([0.0] * 10, ruined, busted), 0.01)
    assert row["risk_of_ruin"] == pytest.approx(0.1)
    assert row["bust_rate"] == pytest.approx(0.2)
    assert (row["risk_of_ruin_low"], row["risk_of_ruin_high"]) == pytest.approx(
        wilson_interval(1, 10))
    assert (row["bust_rate_low"], row["bust_rate_high"]) == pytest.approx(wilson_interval(2, 10))
    # Wilson for 2 of 10 at 95%, by hand: centre (0.2 + 1.92/10) / 1.384, half-width
    # 1.96 sqrt(0.016 + 0.0096) / 1.384 -> [0.0567, 0.5098]
    assert wilson_interval(2, 10) == pytest.approx((0.0567, 0.5098), abs=5e-4)


def test_expected_edge_and_verdict():
    row = summarize(sessions([-2.0, 1.0, -1.0, 0.0]), 0.0106)
    assert row["expected_net"] == -1.0
    assert row["expected_edge"] == pytest.approx(-0.01)  # -4 / 400
    assert row["edge_gain"] == pytest.approx(-0.01 + 0.0106)
    assert row["edge_verdict"] == edge_verdict(row["realized_edge_low"],
                                               row["realized_edge_high"], -0.01)
    assert edge_verdict(-0.02, 0.0, -0.01) == "inside"
    assert edge_verdict(-0.02, -0.015, -0.01) == "outside"
    assert edge_verdict(math.nan, 0.0, -0.01) == ""
    assert list(row) == [m.name for m in SUMMARY_METRICS]
