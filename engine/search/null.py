"""The best of N by chance: the same search over fair datasets of the observed shape.

Fair dataset ``b`` is ``analyze``'s reference dataset ``b`` (``baccarat.analysis.reference``):
one fairly shuffled shoe per observed shoe, under the same rules, dealt to the cut card
where the observed shoe was, cut to its coups where it was stopped early. All N datasets
play in one backtest, end to end (dataset b's shoes are b * shoes + 0 ... b * shoes +
shoes - 1), and the sessions are tagged by dataset afterwards: no run per dataset. When
every observed shoe is complete, the backtest deals the fair shoes itself from the seed
(the same shoes, by the same generator, with no table in memory); otherwise the reference
generator's table is played.

Each dataset's "best" is the configuration whose studentized statistic z (its departure
from its expected edge in units of its own standard error) is largest over all its
sessions, exactly as the observed search's family-wise best is picked; the distribution
of those N bests is what chance alone gives a search of this size. Whatever the metric
chosen by, the null ranks by z: a configuration that bets rarely would otherwise take
the best slot on every fair dataset by the wide swings of its raw edge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.reference import BATCH_SHOES, reference_coups
from ..coups import Coups
from ..errors import BaccaratError
from ..job import BacktestJob, Run
from ..replay import SessionPolicy
from ..rules import TableRules
from .adjust import studentized
from .metric import BASE_COLUMNS
from .sessions import read_sessions

#: The most session rows (configurations x sessions x datasets) one null holds in memory.
MAX_NULL_ROWS = 60_000_000


@dataclass(frozen=True)
class NullResult:
    """The best configuration's z in each fair dataset, and which one it was."""

    best: np.ndarray          # (datasets,)
    best_config: np.ndarray   # (datasets,)
    seed: int
    complete: bool            # fair shoes dealt to the cut card (else cut to lengths)

    @property
    def datasets(self) -> int:
        """N, the number of fair datasets."""
        return int(self.best.size)

    def as_good(self, observed: float) -> int:
        """How many fair datasets' best z is at least ``observed``."""
        values = self.best[np.isfinite(self.best)]
        if np.isnan(observed):
            return int(values.size)
        return int((values >= observed).sum())

    def p_value(self, observed: float) -> float:
        """The share of fair datasets whose best is at least as far out as ``observed``,
        counting the observed search among them: (count + 1) / (N + 1)."""
        if np.isnan(observed):
            return 1.0
        values = self.best[np.isfinite(self.best)]
        return (self.as_good(observed) + 1) / (values.size + 1)

    def summary(self, observed: float) -> dict[str, Any]:
        """The figures the sentences and the report read: N, the seed, the median best z,
        the best z reached one time in 20, the observed best, its p-value and how many
        fair datasets did as well."""
        return {"datasets": self.datasets, "seed": self.seed,
                "cut_to_lengths": not self.complete,
                "median": self.quantile(0.5), "one_in_20": self.quantile(0.05),
                "observed": observed, "p": self.p_value(observed),
                "as_good": self.as_good(observed)}

    def table(self, specs: list[str], shoes: int) -> pd.DataFrame:
        """``null.parquet``: each fair dataset, its first shoe, its best configuration and
        that configuration's z."""
        datasets = np.arange(self.datasets, dtype=np.int64)
        return pd.DataFrame({
            "dataset": datasets, "first_shoe": datasets * shoes,
            "best_config": self.best_config.astype(np.int64),
            "best_spec": np.array([specs[c] for c in self.best_config], dtype=object),
            "best_z": self.best})

    def quantile(self, q: float) -> float:
        """The z the best reaches (or passes) in a share ``q`` of fair datasets."""
        values = self.best[np.isfinite(self.best)]
        if not values.size:
            return float("nan")
        return float(np.quantile(values, 1 - q))


def null_coups(lengths: np.ndarray, rules: TableRules, datasets: int,
              seed: int) -> Coups | None:
    """The fair datasets end to end as the reference generator cuts them, or None when
    every observed shoe counts as dealt to the cut card (decided on the generator's first
    batch, as ``analyze`` decides it): the fair datasets are then the generator's shoes as
    ``generate`` deals them, and the backtest deals them itself from the seed."""
    complete: np.ndarray | None = None
    shoes = int(lengths.size)
    per_batch = max(1, BATCH_SHOES // max(shoes, 1))
    parts = []
    for first in range(0, datasets, per_batch):
        count = min(per_batch, datasets - first)
        coups, _, complete = reference_coups(rules, lengths, first, count, seed, complete)
        if bool(complete.all()):
            return None
        parts.append(coups)
    joined = Coups.concat(parts)
    joined.decks = rules.decks
    return joined


def check_null_shape(shoes: int, session_shoes: int, configs: int, datasets: int) -> None:
    """Refuse a null of more session rows than memory holds."""
    rows = configs * -(-shoes // session_shoes) * datasets
    if rows > MAX_NULL_ROWS:
        raise BaccaratError(
            f"--null {datasets}: {configs:,} configurations x "
            f"{shoes // session_shoes:,} sessions x {datasets} datasets is {rows:,} "
            f"session rows, more than {MAX_NULL_ROWS:,}; use fewer fair datasets or a "
            f"--sample of the configurations")


def play_null(configs: list[Any], lengths: np.ndarray, rules: TableRules, datasets: int,
              seed: int, out: Path, policy: SessionPolicy, how: Run,
              progress: Callable[[int, int], None] | None = None) -> NullResult:
    """Play ``configs`` over ``datasets`` fair datasets shaped like ``lengths`` in one
    backtest into the run folder ``out`` (the session rules ``policy``, run as ``how``
    says), and take each dataset's best z."""
    from ..backtest import play

    shoes = int(lengths.size)
    session_shoes = policy.session_shoes
    check_null_shape(shoes, session_shoes, len(configs), datasets)
    if shoes % session_shoes:
        return play_each(configs, lengths, rules, datasets, seed, out, policy, how,
                         progress)
    per_dataset = shoes // session_shoes
    fair = null_coups(lengths, rules, datasets, seed)
    how = replace(how, out=out, ledger=False, force=True, progress=progress or False)
    if fair is None:
        play(BacktestJob(None, configs, shoes=shoes * datasets, seed=seed, rules=rules,
                         session=policy, run=how))
    else:
        play(BacktestJob(fair, configs, rules=rules, session=policy, run=how))
    matrix = read_sessions(out, len(configs), BASE_COLUMNS)
    k = len(configs)
    per_row = {name: values.reshape(k * datasets, per_dataset)
               for name, values in matrix.columns.items()}
    return _bests(_z(per_row).reshape(k, datasets), seed, fair is None)


def play_each(configs: list[Any], lengths: np.ndarray, rules: TableRules, datasets: int,
              seed: int, out: Path, policy: SessionPolicy, how: Run,
              progress: Callable[[int, int], None] | None = None) -> NullResult:
    """The null when the shoes do not make whole sessions (the observed dataset ends on a
    short session, and so must each fair one): one backtest per fair dataset, each into
    ``out/dataset-NNNN``, since datasets played end to end would share a session. Slower
    than one backtest; the same fair datasets."""
    from ..backtest import play

    shoes = int(lengths.size)
    first = max(1, min(datasets, BATCH_SHOES // max(shoes, 1)))
    _, _, complete = reference_coups(rules, lengths, 0, first, seed)  # analyze's decision
    out.mkdir(parents=True, exist_ok=True)
    values = np.empty((len(configs), datasets))
    for b in range(datasets):
        fair, _, _ = reference_coups(rules, lengths, b, 1, seed, complete)
        folder = out / f"dataset-{b:04d}"
        play(BacktestJob(fair, configs, rules=rules, session=policy,
                         run=replace(how, out=folder, ledger=False, force=True,
                                     progress=progress or False)))
        values[:, b] = _z(read_sessions(folder, len(configs), BASE_COLUMNS).columns)
    return _bests(values, seed, bool(complete.all()))


def _z(columns: dict[str, np.ndarray]) -> np.ndarray:
    return studentized(columns["net"], columns["wagered"], columns["expected_net"])


def _bests(values: np.ndarray, seed: int, complete: bool) -> NullResult:
    """Each fair dataset's best configuration from the (configurations x datasets)
    z values."""
    datasets = values.shape[1]
    best_config = np.argmax(np.where(np.isnan(values), -np.inf, values), axis=0)
    return NullResult(values[best_config, np.arange(datasets)], best_config, seed, complete)


__all__ = ["MAX_NULL_ROWS", "NullResult", "check_null_shape", "null_coups", "play_each",
           "play_null"]
