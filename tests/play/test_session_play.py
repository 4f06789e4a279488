"""The table and session rules as played (``baccarat.session_play``), one rule at a time,
with values worked out by hand. The replay and the fused kernel both call these
functions; ``tests/play/test_fused.py`` and the fingerprints hold the two paths to each
other."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from baccarat import Session, TableRules
from baccarat.session_play import (
    LOSSES_IN_ROW,
    MAX_COUPS,
    RAISE,
    RUIN,
    SKIP,
    STOP_BELOW,
    STOP_LOSS,
    TRAILING_STOP,
    WIN_GOAL,
    policy_row,
    reduced_stake,
    stop_after_coup,
    table_stake,
    unit_thresholds,
)

RULES = TableRules(table_min=10, table_max=500)


@pytest.mark.parametrize(("asked", "chip", "below", "placed"), [
    (37.0, 5.0, RAISE, (35.0, 0, False)),     # to the nearest chip
    (38.0, 5.0, RAISE, (40.0, 0, False)),
    (2.0, 5.0, RAISE, (0.0, 0, False)),       # rounded to no chip: no bet
    (7.0, 0.0, RAISE, (10.0, 0, False)),      # below the minimum: raised to it
    (7.0, 0.0, SKIP, (0.0, 0, False)),        # ... or not placed
    (7.0, 0.0, STOP_BELOW, (7.0, 0, True)),   # ... or the session ends
    (640.0, 0.0, RAISE, (500.0, 1, False)),   # capped at the maximum, counted
])
def test_a_stake_goes_through_the_chip_the_maximum_and_the_minimum(asked, chip, below,
                                                                   placed):
    assert table_stake(asked, chip, 10.0, 500.0, below) == placed


def test_a_reduced_stake_is_what_the_bankroll_holds_in_whole_chips():
    # 80 asked of a bankroll of 55: scaled by 55/80 to 55, in chips of 10 -> 50
    assert reduced_stake(80.0, 55.0 / 80.0, 10.0, 10.0) == (50.0, False)
    # 32 asked of 8: 8 is below the table minimum of 10, the session is busted
    assert reduced_stake(32.0, 8.0 / 32.0, 0.0, 10.0) == (8.0, True)


def stop(policy: Session, bankroll: float, coup: int = 1, won: int = 0, lost: int = 0,
         peak: float | None = None, losses: int = 0, shoe_start: float | None = None,
         shoe_coups: int = 0) -> tuple[int, bool]:
    row = policy_row(policy, RULES)
    start = float(policy.bankroll)
    peak = max(start, bankroll) if peak is None else peak
    shoe_start = start if shoe_start is None else shoe_start
    reason, per_shoe, *_ = stop_after_coup(row, bankroll, coup, won, lost, peak, losses,
                                           shoe_start, max(peak, shoe_start), 0, shoe_coups)
    return reason, per_shoe


def test_the_stop_rules_in_their_order():
    policy = Session(bankroll=100, stop_loss=50, win_goal=30, max_coups=20)
    assert stop(policy, 9.5, lost=1) == (RUIN, False)  # below the table minimum of 10
    assert stop(policy, 50.0, lost=1) == (STOP_LOSS, False)  # 50 behind, the limit
    assert stop(policy, 50.01, lost=1) == (-1, False)
    assert stop(policy, 130.0, won=1) == (WIN_GOAL, False)
    assert stop(policy, 100.0, coup=20) == (MAX_COUPS, False)
    # the win goal comes before the most coups when both are met
    assert stop(policy, 130.0, coup=20, won=1) == (WIN_GOAL, False)
    # 0.1 + 0.2 ahead of a goal of 0.3 has reached it (the slack)
    assert stop(Session(bankroll=100, win_goal=0.3), 100 + (0.1 + 0.2) - 1e-12,
                won=1) == (WIN_GOAL, False)


def test_the_trailing_stop_and_losses_in_a_row_then_the_rules_per_shoe():
    policy = Session(bankroll=100, trailing_stop=40, losses_in_row=3,
                     shoe_stop_loss=20, shoe_max_coups=5)
    assert stop(policy, 110.0, peak=150.0, lost=1) == (TRAILING_STOP, False)
    assert stop(policy, 111.0, peak=150.0, lost=1) == (-1, False)
    assert stop(policy, 95.0, lost=1, losses=2) == (LOSSES_IN_ROW, False)
    assert stop(policy, 95.0, won=1, losses=2) == (-1, False)  # a win breaks the run
    assert stop(policy, 95.0, losses=2) == (-1, False)  # a push neither counts nor breaks
    # per shoe: 20 behind the shoe's first bankroll sits the session out
    assert stop(policy, 100.0, shoe_start=120.0, peak=120.0) == (STOP_LOSS, True)
    assert stop(policy, 100.0, shoe_coups=4) == (MAX_COUPS, True)  # its fifth coup


def test_exact_risk_reads_the_same_thresholds_in_its_units():
    policy = Session(bankroll=100, stop_loss=25, win_goal=12.5)
    unit = Fraction(1, 2)
    # 200 half-units; 25 behind is 150, 12.5 ahead is 225
    assert unit_thresholds(policy, 200, unit) == (150, 225)
    # a stop loss of 0.3 in units of 0.5: at or below 200 - 0.6 -> 199
    assert unit_thresholds(Session(stop_loss=0.3), 200, unit) == (math.floor(200 - 0.6),
                                                                   None)
    assert unit_thresholds(Session(), 200, unit, scale=3) == (None, None)


@pytest.mark.parametrize("engine", ["compiled", "replay"])
def test_each_shoe_a_per_shoe_rule_cut_short_is_counted_by_rule(engine: str):
    """Flat Banker 10 over two shoes, one session, a shoe win goal of 15 and a shoe stop
    loss of 15. Shoe 1, BBPPB: +9.5, +9.5 = 19 reaches the goal after two coups (the
    rest sat out). Shoe 2, PPBBB: -10, -10 = -20 reaches the loss after two coups. One
    shoe each; the session ends on its last shoe's rule; net 19 - 20 = -1 over 4 coups."""
    from baccarat import Run, backtest
    from baccarat.testing import to_coups

    result = backtest(to_coups(["BBPPB", "PPBBB"]), ["flat"],
                      session=Session(session_shoes=2, shoe_win_goal=15, shoe_stop_loss=15),
                      run=Run(engine=engine))
    row = result.summary.iloc[0]
    assert (row["shoe_stops_win_goal"], row["shoe_stops_stop_loss"]) == (1, 1)
    assert row["shoe_stops_max_coups"] == row["shoe_stops_trailing_stop"] == \
        row["shoe_stops_losses_in_row"] == 0
    assert result.info["configs"][0]["engine"] == engine
    only = result.sessions.iloc[0]
    assert (only["shoe_stops_win_goal"], only["shoe_stops_stop_loss"]) == (1, 1)
    assert only["stop_reason"] == "stop_loss" and only["coups"] == 4
    assert math.isclose(only["net"], -1.0)
