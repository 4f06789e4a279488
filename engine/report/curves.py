"""Bankroll by coup and ruin by coup, from a stored run's ledger and sessions.

The fan chart's percentiles are taken across sessions at each session coup. A session
that has stopped (ruined, stop rule, end of its shoes) keeps its final bankroll for the
later coups, so every percentile is over the same set of sessions at every coup. Only
the four ledger columns needed are read, batch by batch; when a run is so large that
the (sessions x coups) grid would not fit the cell budget, an evenly spaced subset of the
sessions is used and the report says how many.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from .runs import Run

FAN_QUANTILES = (0.05, 0.25, 0.50, 0.75, 0.95)
LEDGER_COLUMNS = ["config", "session", "session_coup", "bankroll"]
#: Largest (sessions x coups) grid held at once (one configuration at a time): 32 MB.
DEFAULT_CELL_BUDGET = 4_000_000


@dataclass
class BankrollFan:
    """Bankroll percentiles by session coup (coup 0 = the start) for one configuration."""

    coups: np.ndarray                      # (T+1,) 0..T
    quantiles: dict[float, np.ndarray]     # q -> (T+1,)
    samples: dict[int, np.ndarray] = field(default_factory=dict)  # session -> path
    sessions_used: int = 0
    sessions_total: int = 0
    mean: np.ndarray = field(default_factory=lambda: np.empty(0))  # (T+1,) mean bankroll

    @property
    def median(self) -> np.ndarray:
        """The median bankroll by coup."""
        return self.quantiles[0.5]


def ruin_curve(ruined: np.ndarray, ruin_coup: np.ndarray, horizon: int) -> np.ndarray:
    """Share of sessions ruined by each coup 0..horizon (from the session rows)."""
    n = ruined.size
    out = np.zeros(horizon + 1)
    if n == 0:
        return out
    coups = np.asarray(ruin_coup)[np.asarray(ruined, dtype=bool)]
    coups = np.clip(coups, 0, horizon)
    counts = np.bincount(coups.astype(np.int64), minlength=horizon + 1)
    return np.cumsum(counts) / n


def chosen_sessions(session_ids: np.ndarray, budget_rows: int) -> np.ndarray:
    """All sessions, or an evenly spaced subset of at most ``budget_rows`` of them."""
    ids = np.sort(np.asarray(session_ids))
    if ids.size <= budget_rows:
        return ids
    stride = -(-ids.size // max(budget_rows, 1))
    return ids[::stride]


def sample_sessions(ids: np.ndarray, k: int) -> np.ndarray:
    """``k`` session ids spread evenly over ``ids`` (the same for every configuration)."""
    ids = np.sort(np.asarray(ids))
    if ids.size <= k:
        return ids
    return ids[np.linspace(0, ids.size - 1, k).round().astype(np.int64)]


def _batches(run: Run, configs: list[int],
             sessions: np.ndarray | None) -> Iterator[pa.RecordBatch]:
    """Record batches of the ledger's four needed columns, filtered on config/session."""
    table = run.ledger_table()
    if table is not None:
        dataset: ds.Dataset = ds.dataset(table.select(LEDGER_COLUMNS))
    else:
        path = run.ledger_path
        assert path is not None
        dataset = ds.dataset(path, format="parquet")
    condition = ds.field("config").isin(configs)
    if sessions is not None:
        condition = condition & ds.field("session").isin(sessions)
    # little read-ahead: memory stays near one row group of the four columns
    yield from dataset.to_batches(columns=LEDGER_COLUMNS, filter=condition,
                                  batch_readahead=1, fragment_readahead=1)


def _fan(run: Run, config: int, part: pd.DataFrame, samples: int,
         cell_budget: int) -> BankrollFan:
    """One configuration's fan: a (sessions x coups) grid of bankrolls, carried forward."""
    horizon = int(part["coups"].max())
    all_ids = np.sort(part.index.to_numpy())
    ids = chosen_sessions(all_ids, max(1, cell_budget // (horizon + 1)))
    grid = np.full((ids.size, horizon + 1), np.nan)
    grid[:, 0] = part["start_bankroll"].reindex(ids).to_numpy(dtype=np.float64)
    for batch in _batches(run, [config], ids if ids.size < all_ids.size else None):
        rows = np.searchsorted(ids, batch.column("session").to_numpy(zero_copy_only=False))
        grid[rows, batch.column("session_coup").to_numpy(zero_copy_only=False)] = \
            batch.column("bankroll").to_numpy(zero_copy_only=False)
    for t in range(1, horizon + 1):  # a stopped session keeps its last bankroll
        column = grid[:, t]
        gap = np.isnan(column)
        column[gap] = grid[gap, t - 1]
    percentiles = np.percentile(grid, [q * 100 for q in FAN_QUANTILES], axis=0)
    played = part["coups"]
    paths = {int(s): grid[int(np.searchsorted(ids, s)), : int(played.get(s, 0)) + 1].copy()
             for s in sample_sessions(ids, samples)}
    return BankrollFan(coups=np.arange(horizon + 1),
                       quantiles=dict(zip(FAN_QUANTILES, percentiles, strict=True)),
                       samples=paths, sessions_used=int(ids.size),
                       sessions_total=int(all_ids.size), mean=grid.mean(axis=0))


def bankroll_fans(run: Run, sessions: pd.DataFrame, *, samples: int = 5,
                  cell_budget: int = DEFAULT_CELL_BUDGET) -> dict[int, BankrollFan]:
    """The bankroll fan of every configuration of ``run``, by config number.

    ``sessions`` needs the columns config, session, start_bankroll, coups. Returns an
    empty dict when the run has no ledger.
    """
    if not run.has_ledger or sessions.empty:
        return {}
    fans: dict[int, BankrollFan] = {}
    for config in sorted(int(c) for c in sessions["config"].unique()):
        part = sessions[sessions["config"] == config].set_index("session")
        fans[config] = _fan(run, config, part, samples, cell_budget)
    return fans
