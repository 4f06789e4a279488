"""The ledger: one row per session per coup played, for every configuration.

The replay keeps each configuration's bets as (sessions x steps) grids; this module turns
those grids into ledger rows (ordered by session, then coup) and session rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .coups import OUTCOME_LABELS, Coups
from .metrics import session_metrics
from .replay import ConfigLedger, SessionGrid

_OUTCOMES = pa.array(OUTCOME_LABELS, type=pa.string())


def ledger_table(grid: SessionGrid, coups: Coups, ledger: ConfigLedger, config: int,
                 kinds: list[str]) -> pa.Table:
    """The ledger rows of one configuration over one chunk of sessions."""
    played = ledger.played
    session_index, step = np.nonzero(played)
    rows = grid.rows[session_index, step]
    n = rows.size
    columns: dict[str, pa.Array] = {
        "config": pa.array(np.full(n, config, dtype=np.int32)),
        "strategy": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, dtype=np.int8)), pa.array([ledger.strategy.name])),
        "session": pa.array(grid.session_ids[session_index]),
        "shoe": pa.array(coups.shoe[rows]),
        "coup": pa.array(coups.coup[rows].astype(np.int16)),
        "session_coup": pa.array((step + 1).astype(np.int32)),
        "outcome": pa.DictionaryArray.from_arrays(pa.array(coups.outcome[rows]), _OUTCOMES),
    }
    expected = (ledger.exact_expected[played] if ledger.exact_expected is not None
                else np.zeros(n))
    for kind in kinds:
        stake = ledger.stakes.get(kind)
        placed = stake[played] if stake is not None else np.zeros(n)
        if stake is not None and ledger.exact_expected is None:
            expected += placed * ledger.shoe_ev[kind]  # the rows' stakes, priced by the shoe
        columns[kind] = pa.array(placed)
    columns["net"] = pa.array(ledger.net[played])
    columns["expected_net"] = pa.array(expected)
    columns["bankroll"] = pa.array(ledger.bankroll[played])
    return pa.table(columns)


def sessions_table(grid: SessionGrid, ledger: ConfigLedger, config: int,
                   kinds: list[str]) -> pa.Table:
    """One row per session of one configuration, with every per-session metric."""
    n = grid.session_ids.size
    wagered = {}
    for kind in kinds:
        stake = ledger.stakes.get(kind)
        wagered[kind] = stake.sum(axis=1) if stake is not None else np.zeros(n)
    return session_rows(config, ledger.strategy.name, grid.session_ids, grid.first_shoe,
                        session_metrics(ledger), wagered)


def session_rows(config: int, name: str, session_ids: np.ndarray, first_shoe: np.ndarray,
                 metrics: dict[str, np.ndarray], wagered: dict[str, np.ndarray]) -> pa.Table:
    """The sessions table of one configuration from its metric columns and its amounts
    wagered per bet kind (``wagered_KIND`` columns, in the order given)."""
    n = session_ids.size
    columns: dict[str, object] = {
        "config": np.full(n, config, dtype=np.int32),
        "strategy": pa.repeat(name, n),  # a string column, without a list of n strings
        "session": session_ids,
        "first_shoe": first_shoe,
    }
    columns.update(metrics)
    for kind, amounts in wagered.items():
        columns[f"wagered_{kind}"] = amounts
    return pa.table(columns)
