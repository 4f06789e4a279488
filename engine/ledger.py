"""The ledger: one row per session per coup played, for every configuration.

The replay keeps each configuration's bets as (sessions x steps) grids; this module turns
those grids into ledger rows (ordered by session, then coup) and session rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .coups import OUTCOME_LABELS, Coups
from .jit import njit
from .metrics import grid_sums, session_metrics
from .replay import ConfigLedger, SessionGrid

_OUTCOMES = pa.array(OUTCOME_LABELS, type=pa.string())


def ledger_table(grid: SessionGrid, coups: Coups, ledger: ConfigLedger, config: int,
                 kinds: list[str]) -> pa.Table:
    """The ledger rows of one configuration over one chunk of sessions."""
    played = ledger.played
    n = int(np.count_nonzero(played))
    session = np.empty(n, dtype=grid.session_ids.dtype)
    shoe = np.empty(n, dtype=coups.shoe.dtype)
    coup = np.empty(n, dtype=np.int16)
    session_coup = np.empty(n, dtype=np.int32)
    outcome = np.empty(n, dtype=coups.outcome.dtype)
    _row_keys(played, grid.rows, grid.session_ids, coups.shoe, coups.coup, coups.outcome,
              session, shoe, coup, session_coup, outcome)
    columns: dict[str, pa.Array] = {
        "config": pa.array(np.full(n, config, dtype=np.int32)),
        # int32 indices: a run's parts are read as one table, whose dictionary holds every
        # configuration's name (a grid of composed systems has hundreds).
        "strategy": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, dtype=np.int32)), pa.array([ledger.strategy.name])),
        "session": pa.array(session),
        "shoe": pa.array(shoe),
        "coup": pa.array(coup),
        "session_coup": pa.array(session_coup),
        "outcome": pa.DictionaryArray.from_arrays(pa.array(outcome), _OUTCOMES),
    }
    expected = (ledger.exact_expected[played] if ledger.exact_expected is not None
                else np.zeros(n))
    unstaked = np.zeros(n)  # one column of zeros for every kind never staked (read-only)
    for kind in kinds:
        stake = ledger.stakes.get(kind)
        placed = stake[played] if stake is not None else unstaked
        if stake is not None and ledger.exact_expected is None:
            expected += placed * ledger.shoe_ev[kind]  # the rows' stakes, priced by the shoe
        columns[kind] = pa.array(placed)
    columns["net"] = pa.array(ledger.net[played])
    columns["expected_net"] = pa.array(expected)
    columns["bankroll"] = pa.array(ledger.bankroll[played])
    return pa.table(columns)


@njit(cache=True)
def _row_keys(played, grid_rows, session_ids, shoe, coup, outcome, out_session, out_shoe,
              out_coup, out_session_coup, out_outcome):  # pragma: no cover - compiled
    """The keys of the ledger rows, in (session, coup) order: one per cell of ``played``
    (sessions, steps), with its session id, its coup's shoe, number and outcome, and its
    place in the session (from 1)."""
    k = 0
    for s in range(played.shape[0]):
        for t in range(played.shape[1]):
            if played[s, t]:
                row = grid_rows[s, t]
                out_session[k] = session_ids[s]
                out_shoe[k] = shoe[row]
                out_coup[k] = coup[row]
                out_session_coup[k] = t + 1
                out_outcome[k] = outcome[row]
                k += 1


def sessions_table(grid: SessionGrid, ledger: ConfigLedger, config: int,
                   kinds: list[str]) -> pa.Table:
    """One row per session of one configuration, with every per-session metric."""
    n = grid.session_ids.size
    wagered = {}
    for kind in kinds:
        stake = ledger.stakes.get(kind)
        wagered[kind] = grid_sums(stake) if stake is not None else np.zeros(n)
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
