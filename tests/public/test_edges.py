"""Flat bets over many generated shoes realise the exact house edges (published figures)."""

from __future__ import annotations

import pytest
from baccarat import Run, Session, backtest

# Published exact 8-deck house edges, as fractions of the stake per hand.
PUBLISHED = {"banker": 0.0106, "player": 0.0124, "tie": 0.1436}


@pytest.fixture(scope="module")
def flat_runs():
    specs = ["flat:side=banker", "flat:side=player", "flat:side=tie"]
    return backtest(None, specs, shoes=15_000, seed=2026, session=Session(bankroll=1e9),
                    run=Run(ledger=False)).summary.set_index("spec")


@pytest.mark.parametrize("side", ["banker", "player", "tie"])
def test_flat_realized_edge_within_interval_of_exact_house_edge(flat_runs, side):
    row = flat_runs.loc["flat" if side == "banker" else f"flat:side={side}"]
    assert row.house_edge == pytest.approx(PUBLISHED[side], abs=5e-5)
    # realized edge is the player's return per unit staked: its expectation is -house edge
    assert row.realized_edge_low <= -row.house_edge <= row.realized_edge_high
    assert row.realized_edge_high - row.realized_edge_low < (0.01 if side != "tie" else 0.06)
