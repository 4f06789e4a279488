"""A run's sessions as (configurations x sessions) matrices: what every search step reads.

A search plays all its configurations over the same shoes in one ``backtest`` (the fused
path where it applies, else the replay; no process per configuration), then works on a few
session columns laid out as one matrix per column, a row per configuration and a column
per session in the dataset's order. Every part of a run holds the chunk's sessions of
each configuration one after the other, in session order, so a part's column is the
chunk's block of the matrix, reshaped, with no sort.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from ..backtest import SESSIONS_FILE
from ..errors import BaccaratError
from ..io.parquet import parquet_files


@dataclass
class SessionMatrix:
    """Session columns of a run: ``columns[name]`` is (configurations x sessions)."""

    session: np.ndarray
    first_shoe: np.ndarray
    columns: dict[str, np.ndarray]

    @property
    def configs(self) -> int:
        """The number of configurations (rows)."""
        return int(next(iter(self.columns.values())).shape[0])

    @property
    def sessions(self) -> int:
        """The number of sessions (columns)."""
        return int(self.session.size)

    def take(self, positions: np.ndarray) -> dict[str, np.ndarray]:
        """The columns of the sessions at ``positions`` (in that order)."""
        return {name: values[:, positions] for name, values in self.columns.items()}


def read_sessions(run: str | Path, configs: int, columns: tuple[str, ...]) -> SessionMatrix:
    """The ``columns`` of every session of a run of ``configs`` configurations, part by
    part, as matrices ordered by session."""
    files = parquet_files(Path(run) / SESSIONS_FILE)
    if not files:
        raise BaccaratError(f"{run}: no sessions parts; is it a run folder?")
    wanted = list(dict.fromkeys(["config", "session", "first_shoe", *columns]))
    blocks: dict[str, list[np.ndarray]] = {name: [] for name in wanted}
    for file in files:
        table = pq.read_table(file, columns=wanted)
        config = table.column("config").to_numpy()
        rows = config.size
        if rows % configs:
            raise BaccaratError(f"{file}: {rows} session rows, not a whole number for "
                                f"{configs} configurations")
        per = rows // configs
        order = None
        session = table.column("session").to_numpy().reshape(configs, per)
        if not (np.array_equal(config, np.repeat(np.arange(configs), per))
                and (per < 2 or bool(np.all(session[:, 1:] > session[:, :-1])))):
            order = np.lexsort((table.column("session").to_numpy(), config))
        for name in wanted:
            values = table.column(name).to_numpy(zero_copy_only=False)
            if order is not None:
                values = values[order]
            blocks[name].append(values.reshape(configs, per))
    matrices = {name: np.concatenate(parts, axis=1) for name, parts in blocks.items()}
    session = matrices.pop("session")[0]
    first_shoe = matrices.pop("first_shoe")[0]
    matrices.pop("config")
    order = np.argsort(session, kind="stable")
    if not np.array_equal(order, np.arange(order.size)):
        session, first_shoe = session[order], first_shoe[order]
        matrices = {name: values[:, order] for name, values in matrices.items()}
    return SessionMatrix(session, first_shoe, matrices)


__all__ = ["SessionMatrix", "read_sessions"]
