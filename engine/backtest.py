"""``backtest``: strategies over a dataset, chunk by chunk, into a ledger and metrics.

The same function serves the CLI and Python. It reads coups from a Parquet file, a
``Coups`` table, or generates them from a seed, plays every configuration over the
same sessions, and returns a ``BacktestResult``; ``save`` (or ``out=``) writes the run
folder atomically.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from strategies.base import Strategy
from strategies.registry import expand_spec

from . import __version__
from .coups import Coups
from .deal import generate_coups
from .errors import BaccaratError
from .io.parquet import COMPRESSION, OutputExistsError, read_coups, with_metadata
from .ledger import ledger_kinds, ledger_table, sessions_table
from .metrics import SUMMARY_METRICS, summarize, weighted_house_edge
from .replay import SessionPolicy, replay
from .rules import TableRules

LEDGER_FILE = "ledger.parquet"
SESSIONS_FILE = "sessions.parquet"
SUMMARY_FILE = "summary.parquet"
RUN_FILE = "run.json"


@dataclass
class Dataset:
    """Where the coups come from: a table in memory, a file, or a seed."""

    coups: Coups | None = None
    path: Path | None = None
    seed: int | None = None
    shoes: int | None = None
    fingerprint: str = ""
    description: str = ""

    def chunks(self, rules: TableRules, shoes_per_chunk: int) -> Iterator[Coups]:
        """The coups, in chunks of whole shoes."""
        if self.coups is None:
            assert self.seed is not None and self.shoes is not None
            for start in range(0, self.shoes, shoes_per_chunk):
                ids = np.arange(start, min(start + shoes_per_chunk, self.shoes))
                part = generate_coups(rules, self.seed, ids)
                part.decks = rules.decks
                yield part
            return
        coups = self.coups
        shoe_start = np.flatnonzero(np.r_[True, coups.shoe[1:] != coups.shoe[:-1]])
        bounds = np.r_[shoe_start[::shoes_per_chunk], len(coups)]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            yield coups.take(slice(int(lo), int(hi)))

    @property
    def n_shoes(self) -> int:
        if self.coups is not None:
            return int(self.coups.shoe_ids().size)
        return int(self.shoes or 0)


def dataset_from(coups: Coups | str | Path | None, shoes: int | None, seed: int | None,
                 rules: TableRules) -> Dataset:
    """Resolve the dataset arguments of ``backtest`` into a ``Dataset``."""
    if coups is not None and shoes is not None:
        raise BaccaratError("give either a coups dataset or --shoes/--seed, not both")
    if isinstance(coups, Coups):
        return Dataset(coups=coups, fingerprint=_fingerprint_coups(coups),
                       description="in-memory coups")
    if coups is not None:
        path = Path(coups)
        table, metadata = read_coups(path)
        return Dataset(coups=table, path=path, fingerprint=_fingerprint_file(path),
                       description=str(path))
    if shoes is None:
        raise BaccaratError("no dataset: give --coups FILE, or --shoes N (and --seed S)")
    seed = 0 if seed is None else seed
    key = json.dumps({"seed": seed, "shoes": shoes, "rules": rules.model_dump()},
                     sort_keys=True)
    return Dataset(seed=seed, shoes=shoes, fingerprint="gen-" + _sha(key.encode()),
                   description=f"{shoes} generated shoes, seed {seed}")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _fingerprint_coups(coups: Coups) -> str:
    digest = hashlib.sha256()
    for column in (coups.shoe, coups.outcome, coups.cards):
        digest.update(np.ascontiguousarray(column).tobytes())
    return digest.hexdigest()[:16]


def _fingerprint_file(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
    for file in files:
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def resolve_strategies(specs: Sequence[str | Strategy]) -> list[Strategy]:
    """Configurations from SPEC strings (grids expanded) and ready-made instances."""
    configs: list[Strategy] = []
    for spec in specs:
        configs.extend([spec] if isinstance(spec, Strategy) else expand_spec(spec))
    if not configs:
        raise BaccaratError("no strategy given: pass at least one --strategy SPEC")
    return configs


@dataclass
class BacktestResult:
    """A finished run: the summary, the sessions and the ledger, and what produced them."""

    summary: pd.DataFrame
    sessions: pd.DataFrame
    ledger_table: pa.Table | None
    info: dict[str, Any]
    path: Path | None = None
    _ledger_df: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def ledger(self) -> pd.DataFrame:
        """Every bet, one row per session per coup (empty when run with ledger='none')."""
        if self._ledger_df is None:
            if self.ledger_table is not None:
                self._ledger_df = self.ledger_table.to_pandas()
            elif self.path is not None and (self.path / LEDGER_FILE).exists():
                self._ledger_df = pd.read_parquet(self.path / LEDGER_FILE)
            else:
                self._ledger_df = pd.DataFrame()
        return self._ledger_df

    def save(self, path: str | Path, force: bool = False) -> Path:
        """Write the run folder (ledger, sessions, summary, run.json) atomically."""
        target = Path(path)
        with _run_folder(target, force) as temp:
            if self.ledger_table is not None:
                _write(self.ledger_table, temp / LEDGER_FILE, self.info, "ledger")
            _write_frames(temp, self.sessions, self.summary, self.info)
        self.path = target
        return target

    def __repr__(self) -> str:
        cols = ["config", "strategy", "sessions", "mean_net", "risk_of_ruin", "realized_edge"]
        return f"BacktestResult({len(self.summary)} configurations)\n" + self.summary[
            cols].to_string(index=False)


def _write(table: pa.Table, path: Path, info: dict[str, Any], kind: str) -> None:
    pq.write_table(with_metadata(table, {**_file_metadata(info), "kind": kind}), path,
                   compression=COMPRESSION)


def _file_metadata(info: dict[str, Any]) -> dict[str, Any]:
    return {k: info[k] for k in ("version", "rules", "configs", "dataset", "policy")
            if k in info}


def _write_frames(folder: Path, sessions: pd.DataFrame, summary: pd.DataFrame,
                  info: dict[str, Any]) -> None:
    _write(pa.Table.from_pandas(sessions, preserve_index=False), folder / SESSIONS_FILE, info,
           "sessions")
    _write(pa.Table.from_pandas(summary, preserve_index=False), folder / SUMMARY_FILE, info,
           "summary")
    (folder / RUN_FILE).write_text(json.dumps(info, indent=2, default=str) + "\n")


class _run_folder:
    """A context that builds a run folder under a temporary name and renames it into place."""

    def __init__(self, target: Path, force: bool) -> None:
        self.target = target
        self.force = force
        self.temp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")

    def __enter__(self) -> Path:
        if self.target.exists() and not self.force:
            raise OutputExistsError(f"{self.target} already exists; pass --force to overwrite it")
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.temp.mkdir()
        return self.temp

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            shutil.rmtree(self.temp, ignore_errors=True)
            return
        if self.target.exists():
            trash = self.target.with_name(f".{self.target.name}.{uuid.uuid4().hex[:8]}.old")
            os.replace(self.target, trash)
            os.replace(self.temp, self.target)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(self.temp, self.target)


def backtest(
    coups: Coups | str | Path | None = None,
    strategies: Sequence[str | Strategy] = ("flat",),
    *,
    shoes: int | None = None,
    seed: int | None = None,
    rules: TableRules | None = None,
    bankroll: float = 1000.0,
    session_shoes: int = 1,
    when_short: str = "stop",
    stop_loss: float | None = None,
    win_goal: float | None = None,
    max_coups: int | None = None,
    ledger: bool = True,
    out: str | Path | None = None,
    force: bool = False,
    chunk_shoes: int = 20_000,
    command: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BacktestResult:
    """Play ``strategies`` (SPEC strings or instances) over a dataset; see the README.

    The dataset is ``coups`` (a table or a coups Parquet path), or ``shoes`` generated
    from ``seed`` under ``rules``. With ``out`` the run folder is written as it goes
    (the ledger streamed to disk) and renamed into place when complete.
    """
    rules = rules or TableRules()
    configs = resolve_strategies(strategies)
    dataset = dataset_from(coups, shoes, seed, rules)
    if dataset.coups is not None and dataset.path is not None:
        rules = _dataset_rules(dataset.path, rules)
    policy = SessionPolicy(bankroll=bankroll, when_short=when_short,  # type: ignore[arg-type]
                           stop_loss=stop_loss, win_goal=win_goal, max_coups=max_coups,
                           session_shoes=session_shoes)
    _check_policy(policy)
    per_chunk = max(session_shoes, chunk_shoes // session_shoes * session_shoes)
    started = time.perf_counter()
    info = _run_info(configs, rules, dataset, policy, command)
    target = Path(out) if out is not None else None
    if target is not None and target.exists() and not force:
        raise OutputExistsError(f"{target} already exists; pass --force to overwrite it")

    session_parts: list[pa.Table] = []
    ledger_parts: list[pa.Table] = []
    kinds: list[str] | None = None
    writer: pq.ParquetWriter | None = None
    folder = _run_folder(target, force) if target is not None else None
    temp = folder.__enter__() if folder is not None else None
    coups_done = 0
    try:
        first_session = 0
        for chunk in dataset.chunks(rules, per_chunk):
            grid, ledgers = replay(chunk, configs, rules, policy, first_session)
            kinds = kinds or ledger_kinds(ledgers)
            for config, config_ledger in enumerate(ledgers):
                session_parts.append(sessions_table(grid, config_ledger, config, kinds))
                if not ledger:
                    continue
                table = ledger_table(grid, chunk, config_ledger, config, kinds)
                if temp is None:
                    ledger_parts.append(table)
                    continue
                table = with_metadata(table, {**_file_metadata(info), "kind": "ledger"})
                if writer is None:
                    writer = pq.ParquetWriter(temp / LEDGER_FILE, table.schema,
                                              compression=COMPRESSION)
                writer.write_table(table.cast(writer.schema))
            first_session += grid.session_ids.size
            coups_done += len(chunk)
            if progress is not None:
                progress(len(chunk), int(grid.session_ids.size))
        if writer is not None:
            writer.close()
            writer = None
        sessions = _sorted_sessions(session_parts)
        summary = _summary(sessions, configs, rules, kinds or [])
        elapsed = time.perf_counter() - started
        info["counts"] = {"configs": len(configs), "sessions": first_session,
                          "shoes": dataset.n_shoes, "coups": coups_done}
        info["timings"] = {"seconds": round(elapsed, 3),
                           "coups_per_second": round(coups_done * len(configs) / elapsed)
                           if elapsed > 0 else None}
        if temp is not None:
            _write_frames(temp, sessions, summary, info)
    except BaseException:
        if writer is not None:
            writer.close()
        if folder is not None:
            folder.__exit__(*sys.exc_info())
        raise
    if folder is not None:
        folder.__exit__(None, None, None)
    ledger_table_ = (pa.concat_tables(ledger_parts, promote_options="default")
                     if ledger_parts and target is None else None)
    return BacktestResult(summary=summary, sessions=sessions, ledger_table=ledger_table_,
                          info=info, path=target)


def _dataset_rules(path: Path, rules: TableRules) -> TableRules:
    """The rules of a dataset's deal (decks) with the run's payouts and limits."""
    from .io.parquet import read_metadata

    stored = read_metadata(path).get("rules") or {}
    if "decks" in stored and stored["decks"] != rules.decks:
        return rules.model_copy(update={"decks": stored["decks"]})
    return rules


def _check_policy(policy: SessionPolicy) -> None:
    if not (policy.bankroll > 0 and math.isfinite(policy.bankroll)):
        raise BaccaratError(f"bankroll must be a positive number, got {policy.bankroll}")
    if policy.when_short not in ("stop", "reduce"):
        raise BaccaratError(f"--when-short must be stop or reduce, got {policy.when_short!r}")
    if policy.session_shoes < 1:
        raise BaccaratError("--session-shoes must be at least 1")


def _sorted_sessions(parts: list[pa.Table]) -> pd.DataFrame:
    if not parts:
        return pd.DataFrame()
    frame = pa.concat_tables(parts).to_pandas()
    return frame.sort_values(["config", "session"], kind="stable").reset_index(drop=True)


def _summary(sessions: pd.DataFrame, configs: list[Strategy], rules: TableRules,
             kinds: list[str]) -> pd.DataFrame:
    from .odds import house_edges

    edges = house_edges(rules)
    rows = []
    for config, strategy in enumerate(configs):
        part = sessions[sessions["config"] == config] if len(sessions) else sessions
        wagered = {k: float(part[f"wagered_{k}"].sum()) for k in kinds
                   if f"wagered_{k}" in part}
        row: dict[str, Any] = {
            "config": config,
            "strategy": strategy.name,
            "spec": strategy.spec(),
            "params": json.dumps(strategy.params(), sort_keys=True),
            "rules": rules.label(),
        }
        row.update(summarize(part, weighted_house_edge(wagered, edges)))
        rows.append(row)
    frame = pd.DataFrame(rows)
    ordered = ["config", "strategy", "spec", "params", "rules"] + [m.name for m in
                                                                   SUMMARY_METRICS]
    return frame[ordered]


def _run_info(configs: list[Strategy], rules: TableRules, dataset: Dataset,
              policy: SessionPolicy, command: str | None) -> dict[str, Any]:
    return {
        "version": __version__,
        "command": command or " ".join(sys.argv),
        "rules": rules.model_dump(),
        "configs": [{"config": i, "strategy": s.name, "spec": s.spec(), "params": s.params()}
                    for i, s in enumerate(configs)],
        "dataset": {"path": str(dataset.path) if dataset.path else None,
                    "fingerprint": dataset.fingerprint, "description": dataset.description,
                    "seed": dataset.seed, "shoes": dataset.n_shoes},
        "policy": {"bankroll": policy.bankroll, "when_short": policy.when_short,
                   "stop_loss": policy.stop_loss, "win_goal": policy.win_goal,
                   "max_coups": policy.max_coups, "session_shoes": policy.session_shoes},
    }
