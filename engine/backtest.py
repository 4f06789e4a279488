"""``backtest``: strategies over a dataset, chunk by chunk, into a run folder of Parquet parts.

The same function serves the CLI and Python. The dataset (a coups Parquet file or folder,
a ``Coups`` table, or shoes generated from a seed) is cut into chunks of whole sessions; a
chunk task plays every configuration over its sessions and writes its own parts, in this
process, on a process pool or on a Dask cluster (``baccarat.parallel``). Memory depends on
the chunk size, not on the number of shoes. The run folder:

- ``ledger.parquet/``: one part per chunk (absent with ``ledger=False``);
- ``sessions.parquet/``: one part per chunk, every configuration's sessions;
- ``summary.parquet``: one row per configuration, computed from the session parts;
- ``run.json``: written last; a folder without it is an unfinished run (its ``_plan.json``
  tells ``resume=True`` what is left to do).

``ledger.parquet`` and ``sessions.parquet`` are always folders of parts
(``part-NNNNN.parquet``), one per chunk, whatever the number of chunks: pandas, pyarrow and
DuckDB (``read_parquet('run/sessions.parquet/*.parquet')``) read each as one table. Inside
a part the rows are grouped by configuration (one row group or more each), then ordered by
session (and coup), so reading one configuration skips the others' row groups;
``read_run_table`` returns a table ordered by (config, session, coup), the same whatever
the chunking. A session is ``shoe index // session_shoes``, so its number never depends
on the chunking either: runs with any chunk size, any number of workers, on any backend
hold the same rows.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import difflib
import hashlib
import importlib.util
import io
import json
import math
import pickle
import shutil
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__
from .bets import BET_KINDS
from .coups import CARD_COLUMNS, Coups
from .deal import generate_coups
from .errors import BaccaratError, ChunkFailed, StrategyFault
from .fused import FusedChunk, fused_plan, run_coups, run_generated
from .io.datasets import DatasetChanged, PartPrint, dataset_prints
from .io.inputs import import_in_memory, is_coups_parquet
from .io.owner import claim_output, pinned
from .io.parquet import (
    METADATA_KEY,
    IncompleteOutputError,
    Output,
    RowGroup,
    accept_part,
    check_complete,
    finish_output,
    owned_output,
    parquet_files,
    part_name,
    part_record,
    read_metadata,
    read_part_info,
    read_plan,
    row_groups,
    shoe_chunk_rows,
    verified_parts,
    write_part,
    write_table_atomic,
)
from .job import BacktestJob
from .ledger import ledger_table, sessions_table
from .metrics import SUMMARY_METRICS, summarize_stats, weighted_house_edge
from .notebook import ResultViews
from .parallel import (
    Backend,
    Chunk,
    InProcess,
    fault_spec,
    inject_fault,
    open_backend,
    plan_chunks,
    resolve_workers,
    worker_stray_threads,
)
from .replay import (
    EXPECTED_MODES,
    ConfigLedger,
    SessionGrid,
    SessionPolicy,
    config_policy,
    replay,
)
from .rules import TableRules
from .session_stats import INPUTS, batches_of, session_stats
from .strategies.base import Strategy
from .strategies.registry import expand_spec
from .task_progress import Steps, task_progress

if TYPE_CHECKING:
    import pyarrow.dataset as ds

LEDGER_FILE = "ledger.parquet"
SESSIONS_FILE = "sessions.parquet"
SUMMARY_FILE = "summary.parquet"
RUN_FILE = "run.json"

#: Shoes per chunk by default, and the most (configurations x shoes) one chunk holds: the
#: replay keeps per-configuration (sessions x coups) grids, ~3 kB per configuration-shoe.
DEFAULT_CHUNK_SHOES = 20_000
CHUNK_CONFIG_SHOES = 150_000

#: Every stake kind has its column in every part, so all parts of a run share one schema.
KINDS = list(BET_KINDS)

_COUPS_COLUMNS = ("shoe", "coup", *CARD_COLUMNS, "player_total", "banker_total", "outcome")


@dataclass
class Dataset:
    """Where the coups come from: a table in memory, a Parquet file or folder, or a seed."""

    coups: Coups | None = None
    path: Path | None = None
    seed: int | None = None
    shoes: int | None = None
    fingerprint: str = ""
    description: str = ""
    groups: list[RowGroup] | None = None
    prints: list[PartPrint] = field(default_factory=list)  # its files, as planned
    origin: str | None = None  # the user's dataset a temporary copy was made from

    def plan(self, shoes_per_chunk: int) -> tuple[list[Chunk], list[tuple[int, int] | None]]:
        """The chunks of ``shoes_per_chunk`` whole shoes, with their row ranges (not for
        generated shoes). Counts the shoes of a file by reading only its shoe column."""
        if self.path is not None:
            bounds, self.shoes = shoe_chunk_rows(self.path, shoes_per_chunk, self.groups)
        elif self.coups is not None:
            shoe = self.coups.shoe
            starts = np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]]) if len(shoe) else \
                np.empty(0, np.int64)
            self.shoes = int(starts.size)
            bounds = np.r_[starts[::shoes_per_chunk], len(shoe)]
        else:
            return plan_chunks(self.n_shoes, shoes_per_chunk), [None] * math.ceil(
                self.n_shoes / shoes_per_chunk)
        chunks = plan_chunks(self.n_shoes, shoes_per_chunk)
        return chunks, [(int(bounds[c.index]), int(bounds[c.index + 1])) for c in chunks]

    @property
    def n_shoes(self) -> int:
        """The number of shoes (known for files once ``plan`` has scanned them)."""
        return int(self.shoes or 0)


def dataset_from(coups: Coups | str | Path | None, shoes: int | None, seed: int | None,
                 rules: TableRules,
                 reading: contextlib.ExitStack | None = None) -> Dataset:
    """Resolve the dataset arguments of ``backtest`` into a ``Dataset`` (nothing loaded).

    A stored dataset is pinned (a shared lock, ``baccarat.io.owner.pinned``) for as long as
    ``reading`` lasts, then each of its files is recorded (``PartPrint``): what the run's
    chunks check before they read it.
    """
    if coups is not None and shoes is not None:
        raise BaccaratError("give either a coups dataset or shoes and seed, not both",
                            params=("shoes", "seed"))
    if isinstance(coups, Coups):
        return Dataset(coups=coups, fingerprint=_fingerprint_coups(coups),
                       description="in-memory coups")
    if coups is not None:
        path = Path(coups)
        if not path.exists():
            raise FileNotFoundError(f"no coups file at {path}")
        if not is_coups_parquet(path):  # anything `baccarat import` reads, in memory
            table = import_in_memory(path, rules)
            return Dataset(coups=table, fingerprint=_fingerprint_coups(table),
                           description=f"{path} (imported in memory)")
        if reading is not None:
            reading.enter_context(pinned(path))
        check_complete(path)
        files = _check_coups_schema(path)
        prints, fingerprint = dataset_prints(files)
        origin = read_metadata(path).get("copy_of")
        description = str(path) if origin is None else \
            f"{origin} (without its shoes holding flagged coups)"
        return Dataset(path=path, fingerprint=fingerprint, description=description,
                       groups=row_groups(path), prints=prints, origin=origin)
    if shoes is None:
        raise BaccaratError("nothing to play: give dataset, or shoes N (and seed S)",
                            params=("dataset", "shoes", "seed"))
    if shoes < 1:
        raise BaccaratError(f"shoes must be at least 1, got {shoes}", params=("shoes",))
    seed = 0 if seed is None else seed
    key = json.dumps({"seed": seed, "shoes": shoes, "rules": rules.model_dump()},
                     sort_keys=True)
    return Dataset(seed=seed, shoes=shoes, fingerprint="gen-" + _sha(key.encode()),
                   description=f"{shoes} generated shoes, seed {seed}")


def _check_coups_schema(path: Path) -> list[Path]:
    """The Parquet files of the dataset at ``path``, each checked to hold a coups table."""
    files = parquet_files(path)
    if not files:
        raise BaccaratError(f"{path} holds no Parquet files; expected a coups table")
    for file in files:
        try:
            names = set(pq.read_schema(file).names)
        except (OSError, pa.ArrowInvalid) as exc:
            raise BaccaratError(f"{file}: not a readable Parquet file ({exc})") from None
        missing = [c for c in _COUPS_COLUMNS if c not in names]
        if missing:
            raise BaccaratError(f"{file}: not a coups table: no column {', '.join(missing)}; "
                                f"expected what `baccarat generate` or `baccarat import` "
                                f"writes")
    return files


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _fingerprint_coups(coups: Coups) -> str:
    digest = hashlib.sha256()
    for column in (coups.shoe, coups.outcome, coups.cards):
        digest.update(np.ascontiguousarray(column).tobytes())
    return digest.hexdigest()[:16]


def resolve_strategies(specs: Sequence[str | Strategy]) -> list[Strategy]:
    """Configurations from SPEC strings (grids expanded) and ready-made instances."""
    configs: list[Strategy] = []
    for spec in specs:
        configs.extend([spec] if isinstance(spec, Strategy) else expand_spec(spec))
    if not configs:
        raise BaccaratError("no strategy given: strategies needs at least one SPEC",
                            params=("strategies",))
    return configs


# --- Reading a run ---------------------------------------------------------------------------


def read_run_table(run: str | Path, table: str = "sessions", *, config: int | None = None,
                   columns: Sequence[str] | None = None) -> pa.Table:
    """One table of a run folder (``"sessions"`` or ``"ledger"``) ordered by configuration,
    then session (and coup): one configuration's rows with ``config`` (the others' row
    groups are skipped), only ``columns`` when given.

    The parts are read in order and the rows stably sorted by configuration, so the order
    is the same whatever the chunking.
    """
    path = Path(run) / {"sessions": SESSIONS_FILE, "ledger": LEDGER_FILE}.get(table, table)
    parts = _parts(path)
    wanted = None if columns is None else list(columns)
    if config is not None:
        return parts.to_table(columns=wanted, filter=_config_is(config))
    read = None if wanted is None else list(dict.fromkeys([*wanted, "config"]))
    whole = parts.to_table(columns=read)
    whole = whole.take(np.argsort(whole.column("config").to_numpy(), kind="stable"))
    return whole if wanted is None else whole.select(wanted)


def _parts(path: Path) -> ds.Dataset:
    """The parts of a folder as one dataset that reads them in order (a dataset built on a
    list of files keeps its order; one that discovers them gives no such promise)."""
    import pyarrow.dataset as ds  # a quarter of a second: only where a run is read back

    return ds.dataset([str(f) for f in _part_files(path)], format="parquet")


def _part_files(path: Path) -> list[Path]:
    """The parts of a run's folder, in order; an error when there are none."""
    files = parquet_files(path)
    if not files or not files[0].exists():
        raise BaccaratError(f"{path} holds no parts: is it a run folder written by backtest?")
    return files


def _config_is(*configs: int) -> ds.Expression:
    """The filter of the rows of these configurations."""
    import pyarrow.dataset as ds

    field = ds.field("config")
    return field == configs[0] if len(configs) == 1 else field.isin(list(configs))


class BacktestResult(ResultViews):
    """A finished run: its summary and what produced it, with the sessions and the ledger
    read from its folder on first use. In a notebook it shows its verdict table and a
    bankroll figure; ``plot()`` and ``bankroll_curve()`` (``baccarat.notebook``) draw and
    give the bankroll by coup and the share of sessions ruined and busted.

    ``path`` is the run folder (None for a run made without ``out`` and not saved: its
    files then live in a temporary folder, removed with the result).
    """

    def __init__(self, summary: pd.DataFrame, info: dict[str, Any], path: Path | None = None,
                 *, folder: Path | None = None,
                 temp: tempfile.TemporaryDirectory[str] | None = None) -> None:
        self.summary = summary
        self.info = info
        self.path = path
        self._folder = folder if folder is not None else path
        self._temp = temp
        self._sessions: pd.DataFrame | None = None
        self._ledger: pa.Table | None = None
        self._ledger_df: pd.DataFrame | None = None

    @classmethod
    def load(cls, path: str | Path) -> BacktestResult:
        """Open a complete run folder written by ``backtest``."""
        folder = Path(path)
        if not (folder / RUN_FILE).is_file():
            if read_plan(folder) is not None:
                raise IncompleteOutputError(
                    f"{folder} is an unfinished run (no {RUN_FILE}); finish it with the same "
                    f"command and resume=True", params=("resume",))
            raise BaccaratError(f"{folder} is not a run folder (no {RUN_FILE})")
        info = json.loads((folder / RUN_FILE).read_text())
        check_run_parts(folder, info)
        return cls(pd.read_parquet(folder / SUMMARY_FILE), info, folder)

    @property
    def folder(self) -> Path | None:
        """Where the run's files are (the run folder, or the temporary one)."""
        return self._folder

    @property
    def sessions(self) -> pd.DataFrame:
        """One row per configuration per session, ordered by (config, session)."""
        if self._sessions is None:
            assert self._folder is not None
            self._sessions = read_run_table(self._folder, "sessions").to_pandas()
        return self._sessions

    @property
    def ledger_table(self) -> pa.Table | None:
        """The ledger as an Arrow table ordered by (config, session, coup); None without."""
        if self._ledger is None and self._folder is not None \
                and (self._folder / LEDGER_FILE).is_dir():
            self._ledger = read_run_table(self._folder, "ledger")
        return self._ledger

    @property
    def ledger(self) -> pd.DataFrame:
        """Every bet, one row per session per coup (empty when run with ledger=False)."""
        if self._ledger_df is None:
            table = self.ledger_table
            self._ledger_df = table.to_pandas() if table is not None else pd.DataFrame()
        return self._ledger_df

    def save(self, path: str | Path, force: bool = False) -> Path:
        """Copy the run folder to ``path`` (atomically; an existing one only with force)."""
        target = Path(path)
        assert self._folder is not None
        if target.exists() and target.resolve() == self._folder.resolve():
            return target
        with claim_output(target, force=force, folder=True, what="run folder") as claim:
            shutil.copytree(self._folder, claim.temp, dirs_exist_ok=True)
        self.path = target
        if self._temp is not None:
            self._folder = target
            self._temp.cleanup()
            self._temp = None
        return target

    def __repr__(self) -> str:
        # the spec, not the strategy's name: a grid's configurations share the name, and a
        # composed system's spec is written as the command line takes it
        cols = ["config", "spec", "sessions", "mean_net", "risk_of_ruin", "realized_edge"]
        return f"BacktestResult({len(self.summary)} configurations)\n" + self.summary[
            cols].to_string(index=False)


def check_run_parts(folder: str | Path, info: dict[str, Any]) -> None:
    """Refuse a run folder that holds a part of another run: every part must carry the
    run's own metadata (configurations, dataset, rules, policy: footers only)."""
    folder = Path(folder)
    expected = json.loads(json.dumps(_file_metadata(info), sort_keys=True, default=str))
    for name in (SESSIONS_FILE, LEDGER_FILE):
        if not (folder / name).is_dir():
            continue
        files = parquet_files(folder / name)
        for file in files:
            try:
                raw = (pq.read_schema(file).metadata or {}).get(METADATA_KEY, b"{}")
                stored = json.loads(raw)
            except (OSError, ValueError, pa.ArrowInvalid) as exc:
                raise BaccaratError(f"{file}: not a readable part ({exc})") from None
            stored.pop("kind", None)
            if stored != expected:
                raise BaccaratError(
                    f"{file}: a part of another run (its configurations, dataset, rules or "
                    f"policy are not those of {folder / RUN_FILE}); the folder mixes runs: "
                    f"run it again into a new folder")


def _file_metadata(info: dict[str, Any]) -> dict[str, Any]:
    return {k: info[k] for k in ("version", "rules", "configs", "dataset", "policy",
                                 "expected") if k in info}


# --- The chunk task --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    """What every chunk of a run shares (small: it travels with each task)."""

    folder: str
    rules: TableRules
    policy: SessionPolicy
    ledger: bool
    metadata: dict[str, Any]
    seed: int | None = None
    path: str | None = None
    configs: tuple[Strategy, ...] | None = None       # in this process: the instances
    configs_blob: bytes | None = None                 # elsewhere: pickled
    plugins: tuple[tuple[str, str], ...] = ()         # plugin modules loaded from files
    fault: str | None = None                          # the resilience tests' hook
    expected: str = "auto"                            # how coups' expected net is priced
    config_rules: tuple[TableRules, ...] | None = None  # rules per configuration, if several
    run_id: str = ""                                  # the run that planned the chunks
    keep_summary: bool = False                        # return the summary's columns too
    engine: str = "auto"                              # "replay": the fused path plays none


@dataclass(frozen=True)
class _Task:
    """One chunk of a run: its shoes, and its rows or coups for a stored dataset."""

    job: _Job
    chunk: Chunk
    rows: tuple[int, int] | None = None
    groups: tuple[RowGroup, ...] = ()
    coups: Coups | None = None
    prints: tuple[PartPrint, ...] = ()   # the files it reads, as the run planned them

    def describe(self) -> str:
        """The chunk, for messages."""
        return self.chunk.describe()


def _run_chunk(task: _Task) -> dict[str, Any]:
    """Play every configuration over the chunk's sessions and write its parts.

    The ledger part is written first, the sessions part last: a chunk whose sessions part
    exists is complete. The parts are staged under the run's id; the run renames them into
    place (in that order) when the task returns. Returns the chunk's figures (also stored
    in the sessions part) and, under "parts", the staged parts.
    """
    job, chunk = task.job, task.chunk
    inject_fault(chunk.index, job.fault)
    configs = _configs(job)
    policy = job.policy
    first_session = chunk.first_shoe // policy.session_shoes
    folder = Path(job.folder)
    run_id = job.run_id or None
    parts = []
    fused = _run_fused(task, configs, first_session)
    replayed = [k for k in range(len(configs)) if fused is None or k not in fused.configs]
    by_config: dict[int, pa.Table] = {}
    ledger_of: dict[int, tuple[SessionGrid, ConfigLedger]] = {}
    staked_kinds: set[str] = set()
    coups = fused.coups if fused is not None else None
    if fused is not None:
        by_config.update(zip(fused.configs, fused.tables, strict=True))
        staked_kinds.update(fused.staked)
        n_sessions, n_coups = fused.sessions, fused.n_coups
        if fused.ledgers is not None:
            assert fused.grid is not None
            ledger_of.update((k, (fused.grid, config_ledger))
                             for k, config_ledger in zip(fused.configs, fused.ledgers,
                                                         strict=True))
    report = task_progress()
    if fused is not None and not replayed and report is not None:
        report(fused.n_coups, fused.sessions)  # played; the ledger is still to write
    if replayed:  # every configuration without a compiled form (all of them: no fused path)
        if coups is None:
            coups = _chunk_coups(task)
        config_rules = None if job.config_rules is None else \
            [job.config_rules[k] for k in replayed]
        grid, ledgers = replay(coups, [configs[k] for k in replayed], job.rules, policy,
                               first_session=first_session, config_rules=config_rules,
                               expected=job.expected,  # type: ignore[arg-type]
                               seed=job.seed or 0, on_step=_step_progress(task, coups))
        staked_kinds.update(kind for config_ledger in ledgers
                            for kind, stake in config_ledger.stakes.items() if stake.any())
        n_sessions, n_coups = int(grid.session_ids.size), len(coups)
        ledger_of.update((k, (grid, config_ledger))
                         for k, config_ledger in zip(replayed, ledgers, strict=True))
        by_config.update((k, sessions_table(grid, config_ledger, k, KINDS))
                         for k, config_ledger in zip(replayed, ledgers, strict=True))
    if job.ledger:
        assert coups is not None
        parts.append(write_part((ledger_table(*ledger_of[k][:1], coups, ledger_of[k][1], k,
                                              KINDS) for k in range(len(configs))),
                                folder / LEDGER_FILE, chunk.index,
                                {**job.metadata, "kind": "ledger"}, run_id=run_id))
    tables = [by_config[k] for k in range(len(configs))]
    staked = sorted(staked_kinds, key=KINDS.index)
    sessions = max(n_sessions, 1)
    stats: dict[str, Any] = {"chunk": chunk.index, "first_shoe": chunk.first_shoe,
                             "shoes": chunk.shoes, "coups": n_coups,
                             "sessions": n_sessions, "staked": staked}
    per_group = max(1, -(-SESSION_GROUP_ROWS // sessions))
    groups = [pa.concat_tables(tables[i:i + per_group])
              for i in range(0, len(tables), per_group)]
    parts.append(write_part(groups, folder / SESSIONS_FILE, chunk.index,
                            {**job.metadata, "kind": "sessions"}, part_info=stats,
                            row_group_rows=per_group * sessions, run_id=run_id))
    inject_fault(chunk.index, job.fault, written=True)
    result = {**stats, "parts": [(str(p), part_record(p)) for p in parts]}
    threads = worker_stray_threads()
    if threads:  # a strategy's threads that would keep this worker alive
        result["threads"] = threads
    if job.keep_summary:
        result[_SUMMARY_COLUMNS] = [_summary_columns(table, staked) for table in tables]
    return result


#: Where a chunk run in the run's own process returns the columns the summary reads.
_SUMMARY_COLUMNS = "summary_columns"

def _step_progress(task: _Task, coups: Coups) -> Callable[[int, int], None] | None:
    """The replay's ``on_step`` for a chunk: the share of the chunk's coups and sessions its
    steps have played, reported to the run (``baccarat.task_progress``) wherever the chunk
    runs, about every sixteenth of its steps and at least every tenth of a second."""
    report = task_progress()
    if report is None:
        return None
    sessions = -(-task.chunk.shoes // max(task.job.policy.session_shoes, 1))
    total = len(coups)
    steps: list[Steps] = []

    def on_step(done: int, width: int) -> None:
        if not steps:
            steps.append(Steps(width))
        if done < width and steps[0].due(done):
            report(total * done // width, sessions * done // width)

    return on_step


def _summary_columns(table: pa.Table, staked: Sequence[str]) -> dict[str, np.ndarray]:
    """The columns of one configuration's sessions table that the summary reads (the
    amounts of the bet kinds staked, the others being zeros), as the numpy arrays it
    reads back from the part."""
    names = [*(c for c in INPUTS if c in table.column_names),
             *(f"wagered_{kind}" for kind in staked)]
    return {name: table.column(name).to_numpy() for name in names}


#: A sessions part holds whole configurations in row groups of about this many rows or
#: more: a reader of one configuration skips the others' groups, yet a chunk of few
#: sessions and many configurations does not pay for hundreds of tiny row groups.
SESSION_GROUP_ROWS = 16_384


def _run_fused(task: _Task, configs: list[Strategy], first_session: int) -> FusedChunk | None:
    """The chunk played by the fused path (``engine/fused.py``) for the configurations it
    can play (``FusedChunk.configs``; the caller replays the others), or None when it
    plays none (or refuses a stake: the replay then plays the chunk and says where)."""
    job, chunk = task.job, task.chunk
    if job.engine == "replay":
        return None
    plan = fused_plan(configs, job.rules, job.config_rules, ledger=job.ledger,
                      expected=job.expected, policy=job.policy)
    if plan is None:
        return None
    names = [config.name for config in configs]
    everything = len(plan.configs) == len(configs)
    if everything and not (plan.needs_pairs or plan.needs_cards or plan.ledger) \
            and task.coups is None and job.path is None:
        assert job.seed is not None
        shoe_ids = np.arange(chunk.first_shoe, chunk.first_shoe + chunk.shoes, dtype=np.int64)
        return run_generated(plan, names, job.rules, job.seed, shoe_ids, job.policy,
                             first_session)
    # A coups file, or configurations the replay plays too: the coups table, read or dealt
    # once for both.
    coups = _chunk_coups(task)
    if not len(coups):
        return None
    return run_coups(plan, names, coups, job.policy, first_session)


#: The paths that may play a run's systems (``Run.engine``).
ENGINES = ("auto", "compiled", "replay")


def engine_paths(configs: Sequence[Strategy], rules: TableRules,
                 config_rules: Sequence[TableRules] | None, policy: SessionPolicy,
                 engine: str, expected: str) -> list[str]:
    """The path that plays each configuration ("compiled" or "replay") under ``engine``;
    with engine "compiled", a configuration the compiled kernel cannot play is refused,
    named."""
    if engine not in ENGINES:
        raise BaccaratError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}",
                            params=("engine",))
    plan = None if engine == "replay" else fused_plan(
        configs, rules, config_rules, ledger=True, expected=expected, policy=policy)
    compiled = set(plan.configs) if plan is not None else set()
    paths = ["compiled" if k in compiled else "replay" for k in range(len(configs))]
    if engine == "compiled" and "replay" in paths:
        names = ", ".join(dict.fromkeys(configs[k].spec() for k, path in enumerate(paths)
                                        if path == "replay"))
        why = ("exact pricing of each coup is the replay's" if expected != "auto" else
               "the kernel plays the built-in parts and the published counts; a plugin's "
               "parts and the other counts are the replay's")
        raise BaccaratError(f"engine compiled: the compiled kernel cannot play {names} "
                            f"({why}); use engine auto or replay", params=("engine",))
    return paths


def _chunk_coups(task: _Task) -> Coups:
    job, chunk = task.job, task.chunk
    if task.coups is not None:
        return _first_shoes(task.coups, chunk.shoes)
    if job.path is not None:
        from .io.parquet import read_coups_rows

        assert task.rows is not None
        coups = read_coups_rows(job.path, task.rows[0], task.rows[1], list(task.groups),
                                task.prints)
    else:
        assert job.seed is not None
        coups = generate_coups(job.rules, job.seed, np.arange(
            chunk.first_shoe, chunk.first_shoe + chunk.shoes, dtype=np.int64))
    coups.decks = job.rules.decks
    return _first_shoes(coups, chunk.shoes)


def _first_shoes(coups: Coups, shoes: int) -> Coups:
    """The coups of the first ``shoes`` shoes (all of them, unless the chunk was cut short
    to leave a short last session out)."""
    shoe = coups.shoe
    if not len(shoe):
        return coups
    starts = np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]])
    if starts.size <= shoes:
        return coups
    decks = coups.decks
    kept = coups.take(slice(0, int(starts[shoes])))
    kept.decks = decks
    return kept


def _configs(job: _Job) -> list[Strategy]:
    """Fresh instances for one chunk: no state left over from another chunk, exactly as
    in a worker process that unpickles its own copy."""
    if job.configs is not None:
        return [_fresh(config) for config in job.configs]
    for name, file in job.plugins:
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, file)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    assert job.configs_blob is not None
    return list(pickle.loads(job.configs_blob))


def _fresh(config: Strategy) -> Strategy:
    try:
        return copy.deepcopy(config)
    except Exception:  # a strategy holding something that cannot be copied: reuse it
        return config


def _shippable(job: _Job, configs: list[Strategy]) -> _Job:
    """``job`` with its configurations pickled, for tasks run in other processes, and the
    file of every plugin module the pickle names (a plugin composed with session rules or
    parts included), so that a worker loads each one first, as this process did."""
    found = io.BytesIO()
    pickler = _PluginsNamed(found)
    try:
        pickler.dump(configs)
    except Exception as exc:
        raise BaccaratError(
            f"the strategies cannot be sent to worker processes ({exc}); define their "
            f"classes at module level, or run with workers=1") from None
    plugins = {name: str(sys.modules[name].__file__) for name in pickler.plugins
               if getattr(sys.modules.get(name), "__file__", None)}
    return replace(job, configs=None, configs_blob=found.getvalue(),
                   plugins=tuple(sorted(plugins.items())))


class _PluginsNamed(pickle.Pickler):
    """A pickler noting the plugin modules (loaded from files, ``baccarat_plugin_...``)
    whose classes or functions the pickle names."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file)
        self.plugins: set[str] = set()

    def reducer_override(self, obj: Any) -> Any:
        named = obj if isinstance(obj, type | types.FunctionType) else type(obj)
        module = getattr(named, "__module__", None) or ""
        if module.startswith("baccarat_plugin_"):
            self.plugins.add(module)
        return NotImplemented


# --- The run ---------------------------------------------------------------------------------


def chunk_size(chunk_shoes: int | None, configs: int, session_shoes: int) -> int:
    """Shoes per chunk: ``chunk_shoes`` or the default for this many configurations, rounded
    down to whole sessions (at least one session)."""
    if chunk_shoes is None:
        chunk_shoes = max(1, min(DEFAULT_CHUNK_SHOES, CHUNK_CONFIG_SHOES // max(configs, 1)))
    if chunk_shoes < 1:
        raise BaccaratError(f"chunk_shoes must be at least 1, got {chunk_shoes}",
                            params=("chunk_shoes",))
    return max(session_shoes, chunk_shoes // session_shoes * session_shoes)


def play(job: BacktestJob) -> BacktestResult:
    """Play ``job`` (see :class:`~baccarat.job.BacktestJob`) and return its result.

    The run is cut into chunks of ``run.chunk_shoes`` shoes (default: 20,000, fewer for
    many configurations), run in this process (``workers=1``), on a process pool of
    ``workers`` processes (None: all cores for a big run), or on the Dask cluster at
    ``scheduler``; the results are the same. With ``run.out`` the run folder is written
    there (an existing one only with ``force``; ``resume`` finishes an interrupted run of
    the same command), else in a temporary folder (``BacktestResult.save`` keeps it).
    ``run.progress(coups, sessions)`` is called as chunks finish. ``expected`` prices each
    coup's stakes for ``expected_net``: ``"auto"`` from the cards left in the shoe for
    strategies that see the cards and from the full shoe for the others, ``"exact"`` from
    the cards left for every strategy (card-level datasets; each coup bet on is then
    enumerated, which is slower).

    A plugin strategy (or part) not seen checked before is first played twice over a few
    shoes, in one chunk and in chunks of one session, and refused if the two ledgers
    differ (``unchecked=True`` skips it; see ``baccarat.strategy_check.quick_check``).

    The run folder belongs to this run while it runs (an OS lock: another run, force or
    resume on it is refused); workers die with the run, and an interrupted run (Ctrl-C,
    SIGTERM) stops them and says it is resumable.
    """
    how = job.run
    coups, strategies, shoes, seed, rules = (job.dataset, job.strategies, job.shoes,
                                             job.seed, job.rules)
    rule_sets, policy, command = job.rule_sets, job.session, job.command
    ledger, out, force, resume = how.ledger, how.out, how.force, how.resume
    chunk_shoes, workers, scheduler, expected = (how.chunk_shoes, how.workers,
                                                 how.scheduler, how.expected)
    progress = how.progress if callable(how.progress) else None
    configs = resolve_strategies(strategies)
    config_rules: tuple[TableRules, ...] | None = None
    if rule_sets:
        rules = _dealing_rules(rule_sets)
        config_rules = tuple(r for r in rule_sets for _ in configs)
        configs = [_fresh(c) for _ in rule_sets for c in configs]
    rules = rules or TableRules()
    with contextlib.ExitStack() as reading:  # the dataset pinned for the run's life
        dataset = dataset_from(coups, shoes, seed, rules, reading)
        stored = _stored_rules(dataset)
        if stored:
            rules = _dataset_rules(stored, rules, dataset.description)
            if config_rules is not None:
                config_rules = tuple(_dataset_rules(stored, r, dataset.description)
                                     for r in config_rules)
        session_shoes = policy.session_shoes
        check_policy(policy, config_rules or (rules,))
        for config in configs:  # each configuration's own session rules, on the run's
            check_policy(config_policy(config, policy), config_rules or (rules,))
        if workers is not None and workers < 1:
            raise BaccaratError(f"workers must be at least 1, got {workers}", params=("workers",))
        if resume and out is None:
            raise BaccaratError("resume needs the run folder (out=...) of the run to finish")
        if chunk_shoes is None and resume and out is not None:
            interrupted = read_plan(out) if Path(out).is_dir() else None
            chunk_shoes = (interrupted or {}).get("chunk_shoes")
        per_chunk = chunk_size(chunk_shoes, len(configs), session_shoes)
        chunks, rows = dataset.plan(per_chunk)
        if not chunks:
            raise BaccaratError(f"{dataset.description}: the dataset holds no coups")
        if session_shoes > dataset.n_shoes:
            raise BaccaratError(f"session_shoes {session_shoes}: the dataset holds "
                                f"{dataset.n_shoes:,} shoes; expected 1 to "
                                f"{dataset.n_shoes:,}", params=("session_shoes",))
        short = dataset.n_shoes % session_shoes
        if short and policy.last_session == "drop":  # the short last session is left out
            chunks = plan_chunks(dataset.n_shoes - short, per_chunk)
            rows = rows[:len(chunks)]
        if not job.unchecked:
            from .strategy_check import check_plugins

            check_plugins(configs, rules)
        workers = resolve_workers(workers, dataset.n_shoes, scheduler)
        if expected not in EXPECTED_MODES:
            raise BaccaratError(f"expected must be auto or exact, got {expected!r}",
                                params=("expected",))
        played = engine_paths(configs, rules, config_rules, policy, how.engine, expected)
        info = _run_info(configs, rules, dataset, policy, command, config_rules)
        for record, path in zip(info["configs"], played, strict=True):
            record["engine"] = path
        info["expected"] = expected
        info["short_last_session"] = {"shoes": short, "of": session_shoes,
                                      "kept": policy.last_session == "keep"} if short else None
        plan = {**_file_metadata(info), "job": "backtest", "ledger": bool(ledger),
                "chunk_shoes": per_chunk, "chunks": len(chunks),
                **({"dataset_parts": [p.record(dataset.path) for p in dataset.prints]}
                   if dataset.path is not None else {})}

        temp = tempfile.TemporaryDirectory(prefix="baccarat-run-") if out is None else None
        folder = Path(temp.name) / "run" if temp is not None \
            else Path(out)  # type: ignore[arg-type]
        with open_backend(workers, scheduler, **(job.backend_options or {})) as backend:
            backend.connect()  # a scheduler out of reach stops it before anything is made
            # The workers stop (on Ctrl-C: are killed) before the folder's claim ends, so
            # none stages a part after its temporaries are cleared and its lock released.
            with owned_output(folder, plan, force=force, resume=resume, complete=RUN_FILE,
                              resumable=temp is None) as output, backend:
                if output.state == "complete":
                    return BacktestResult.load(folder)
                summary = _play(output, backend, info, dataset, configs, rules, policy,
                                chunks, rows, per_chunk, progress, job.on_start,
                                fault=fault_spec(), config_rules=config_rules,
                                ledger=bool(ledger), expected=expected,
                                engine=how.engine, saved=out is not None)
        return BacktestResult(summary, info, Path(out) if out is not None else None,
                              folder=folder, temp=temp)


def _play(output: Output, backend: Backend, info: dict[str, Any], dataset: Dataset,
          configs: list[Strategy], rules: TableRules, policy: SessionPolicy,
          chunks: list[Chunk],
          rows: list[tuple[int, int] | None], per_chunk: int,
          progress: Callable[[int, int], None] | None,
          on_start: Callable[[int], None] | None, *, fault: str | None,
          config_rules: tuple[TableRules, ...] | None, ledger: bool, expected: str,
          engine: str, saved: bool) -> pd.DataFrame:
    """Run the chunks not done yet into the run folder ``output`` owns, then its summary and
    ``run.json`` (``info``, completed); returns the summary."""
    folder, state = output.folder, output.state
    if on_start is not None:
        on_start(dataset.n_shoes)
    started = time.perf_counter()
    pristine = tuple(_fresh(config) for config in configs)  # before any chunk starts them
    # Absolute paths: workers (a Dask cluster's above all) may not share our directory.
    job = _Job(str(folder.absolute()), rules, policy, ledger, _file_metadata(info),
               dataset.seed,
               str(dataset.path.absolute()) if dataset.path is not None else None, pristine,
               fault=fault, config_rules=config_rules, expected=expected,
               run_id=output.run_id, engine=engine)
    done = _verified_chunks(output, ledger) if state == "resume" else set()
    for name in (SESSIONS_FILE, LEDGER_FILE) if ledger else (SESSIONS_FILE,):
        (folder / name).mkdir(exist_ok=True)  # workers write into it, never make it
    stats: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        if chunk.index in done:
            stats[chunk.index] = read_part_info(folder / SESSIONS_FILE / part_name(chunk.index))
            if progress is not None:
                progress(stats[chunk.index]["coups"], stats[chunk.index]["sessions"])
    remote = backend.elsewhere(len(chunks) - len(done))
    # A run whose chunks all run here keeps the columns the summary reads (a few per
    # session, while they are few enough), rather than read them back from the parts.
    keep = not remote and not done and \
        len(configs) * (dataset.n_shoes // policy.session_shoes + 1) <= MEMORY_SUMMARY_ROWS
    shipped = _shippable(job, configs) if remote else replace(job, keep_summary=keep)
    columns: dict[int, list[dict[str, np.ndarray]]] = {}
    tasks = [_task(shipped, chunk, span, dataset) for chunk, span in zip(chunks, rows, strict=True)
             if chunk.index not in done]

    reported: dict[int, tuple[int, int]] = {}  # (coups, sessions) a chunk has reported

    def moved(task: _Task, counts: tuple[int, ...]) -> None:
        """A running chunk's report: what it has played since its last one."""
        assert progress is not None
        coups_before, sessions_before = reported.get(task.chunk.index, (0, 0))
        coups_now, sessions_now = max(counts[0], coups_before), max(counts[1], sessions_before)
        if coups_now > coups_before or sessions_now > sessions_before:
            reported[task.chunk.index] = (coups_now, sessions_now)
            progress(coups_now - coups_before, sessions_now - sessions_before)

    def record(task: _Task, chunk_stats: dict[str, Any]) -> None:
        for staged, written in chunk_stats.pop("parts"):  # the ledger part first
            accept_part(staged, output.run_id, written, output.log)
        if _SUMMARY_COLUMNS in chunk_stats:
            columns[task.chunk.index] = chunk_stats.pop(_SUMMARY_COLUMNS)
        stats[task.chunk.index] = chunk_stats
        if progress is not None:
            coups_before, sessions_before = reported.pop(task.chunk.index, (0, 0))
            coups_left = max(chunk_stats["coups"] - coups_before, 0)
            sessions_left = max(chunk_stats["sessions"] - sessions_before, 0)
            if coups_left or sessions_left:
                progress(coups_left, sessions_left)

    try:
        backend.run(_run_chunk, tasks, record, None if progress is None else moved)
    except ChunkFailed:
        raise
    except DatasetChanged as exc:
        finished = len(stats)
        kept = (f"{folder} keeps its {finished} finished chunk{'s' * (finished != 1)}: put "
                f"the dataset back as it was and run the same command with --resume (or "
                f"start over with --force)" if finished and saved else "nothing was kept")
        raise DatasetChanged(f"{exc}; {kept}") from None
    except BaccaratError as exc:
        if state == "new":  # bad input: leave nothing behind
            shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, StrategyFault) and saved:
            kept = (f"nothing was left at {folder}" if state == "new" else
                    f"{folder} keeps its finished chunks: fix the strategy and finish "
                    f"the run with --resume")
            raise StrategyFault(f"{exc}; {kept}", exc.detail) from None
        raise
    staked = {kind for s in stats.values() for kind in s.get("staked", KINDS)}
    threads = sorted({name for s in stats.values() for name in s.pop("threads", ())})
    if threads:  # the workers were stopped all the same; the command says so
        info["stray_threads"] = threads
    sessions = sum(s["sessions"] for s in stats.values())
    in_memory = _kept_columns(columns, len(configs)) if keep and len(columns) == len(chunks) \
        else None
    if in_memory is not None:  # from the columns kept: the workers are not needed
        backend.release()
        summarizer = None
    else:
        summarizer = backend
    summary = summarize_run(folder, configs, rules, summarizer, sessions=sessions,
                            staked=staked, config_rules=config_rules, columns=in_memory)
    elapsed = time.perf_counter() - started
    coups_run = sum(s["coups"] for i, s in stats.items() if i not in done)
    info["counts"] = {"configs": len(configs),
                      "sessions": int(sum(s["sessions"] for s in stats.values())),
                      "shoes": dataset.n_shoes,
                      "coups": int(sum(s["coups"] for s in stats.values()))}
    info["chunks"] = {"shoes_per_chunk": per_chunk, "chunks": len(chunks),
                      "resumed": len(done), "workers": backend.workers,
                      "scheduler": backend.scheduler}
    info["timings"] = {"seconds": round(elapsed, 3),
                       "coups_per_second": round(coups_run * len(configs) / elapsed)
                       if elapsed > 0 else None}
    write_table_atomic(pa.Table.from_pandas(summary, preserve_index=False),
                       folder / SUMMARY_FILE, {**_file_metadata(info), "kind": "summary"})
    finish_output(folder, RUN_FILE, info)
    return summary


#: The most session rows (configurations x sessions) whose summary columns a run keeps in
#: memory (about 80 bytes each: 20 MB at most) to compute the summary without reading the
#: parts back; a bigger run reads them back, in batches.
MEMORY_SUMMARY_ROWS = 250_000


def _kept_columns(kept: dict[int, list[dict[str, np.ndarray]]],
                  n_configs: int) -> dict[int, dict[str, np.ndarray]]:
    """Each configuration's summary columns over the whole run, chunk after chunk (so in
    session order, as the parts are read); an amount a chunk did not stake is zeros."""
    order = sorted(kept)
    out = {}
    for k in range(n_configs):
        pieces = [kept[i][k] for i in order]
        names = dict.fromkeys(name for piece in pieces for name in piece)
        out[k] = {name: np.concatenate([piece[name] if name in piece else
                                        np.zeros(len(piece["net"])) for piece in pieces])
                  for name in names}
    return out


def _task(job: _Job, chunk: Chunk, rows: tuple[int, int] | None, dataset: Dataset) -> _Task:
    if rows is None:
        return _Task(job, chunk)
    if dataset.coups is not None:
        return _Task(job, chunk, rows, coups=dataset.coups.take(slice(*rows)))
    groups = tuple(replace(g, file=str(Path(g.file).absolute())) for g in dataset.groups or ()
                   if g.start < rows[1] and g.start + g.rows > rows[0])
    files = {g.file for g in groups}
    return _Task(job, chunk, rows, groups, prints=tuple(p for p in dataset.prints
                                                        if p.file in files))


def _verified_chunks(output: Output, ledger: bool) -> set[int]:
    """The chunks of an interrupted run whose parts are all there and pass their check
    (rows, size and checksum as logged when written); any other chunk is played again."""
    done = verified_parts(output, output.folder / SESSIONS_FILE)
    if ledger:
        done &= verified_parts(output, output.folder / LEDGER_FILE)
    return done


#: The rules that decide how shoes are dealt: several rule sets in one run must agree on them.
DEALING_RULES = ("decks", "burn", "burn_count", "cut_card", "extra_coup_after_cut")


def _dealing_rules(rule_sets: Sequence[TableRules]) -> TableRules:
    """The rule set the shoes are dealt by; refuses rule sets that deal differently."""
    first = rule_sets[0]
    for other in rule_sets[1:]:
        differ = [f for f in DEALING_RULES if getattr(other, f) != getattr(first, f)]
        if differ:
            raise BaccaratError(
                "rule sets compared in one run must deal the same shoes; "
                + ", ".join(f"{f} {getattr(first, f)} vs {getattr(other, f)}" for f in differ)
                + ": run them separately and compare the runs")
    return first


def _dataset_rules(stored: dict[str, Any], rules: TableRules, source: str) -> TableRules:
    """``rules`` with the shoe rules (``DEALING_RULES``) the dataset was dealt by.

    The shoe rules of a stored dataset are the dataset's: a rule given explicitly (a flag,
    a rules file, a ``TableRules`` field set by hand) that contradicts them is an error
    naming both values. Payouts and limits come from ``rules`` whatever the dataset.
    """
    given = rules.model_fields_set
    update: dict[str, Any] = {}
    for name in DEALING_RULES:
        if name not in stored or stored[name] is None:
            continue
        if name in given and getattr(rules, name) != stored[name]:
            raise BaccaratError(
                f"{source} was dealt with {name} = {stored[name]!r}, but the rules given "
                f"say {name} = {getattr(rules, name)!r}; the shoe rules of a dataset are "
                f"its own: drop that flag or rules-file entry (payout rules apply to any "
                f"dataset)")
        update[name] = stored[name]
    return rules.model_copy(update=update) if update else rules


def _dataset_shuffle(dataset: Dataset) -> dict[str, Any] | None:
    """The shuffle model a dataset's shoes were dealt from (``generate --shuffle``).

    Shoes generated by the run itself are uniform; a file says so in its metadata (files
    from before the shuffle models, and recorded shoes, say nothing: None).
    """
    if dataset.path is not None:
        stored = read_metadata(dataset.path)
        if stored.get("shuffle"):
            return dict(stored["shuffle"])
        return {"model": "uniform"} if stored.get("source") == "generated" else None
    return {"model": "uniform"} if dataset.seed is not None and dataset.coups is None else None


def _stored_rules(dataset: Dataset) -> dict[str, Any]:
    """The shoe rules a stored dataset records (its metadata; a table its deck count)."""
    if dataset.path is not None:
        return dict(read_metadata(dataset.path).get("rules") or {})
    if dataset.coups is not None and dataset.coups.decks:
        return {"decks": int(dataset.coups.decks)}
    return {}


def _check_number(value: float | None, name: str, what: str) -> None:
    """A stop amount: None (no such stop) or a positive finite number."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or value <= 0:
        raise BaccaratError(f"{name} {value!r}: {what}; expected a positive amount "
                            f"(greater than 0)", params=(name,))


def check_policy(policy: SessionPolicy, rule_sets: Sequence[TableRules]) -> None:
    """Every session parameter, before anything runs: one line naming value and range."""
    bankroll = policy.bankroll
    if isinstance(bankroll, bool) or not isinstance(bankroll, int | float) \
            or not math.isfinite(bankroll) or bankroll <= 0:
        raise BaccaratError(f"bankroll {bankroll!r}: expected a positive amount",
                            params=("bankroll",))
    minimum = max(r.table_min for r in rule_sets)
    if bankroll < minimum:
        raise BaccaratError(f"bankroll must be at least the table minimum {minimum:g}, got "
                            f"{bankroll:g}: no bet could be placed", params=("bankroll",))
    if policy.when_short not in ("stop", "reduce"):
        raise BaccaratError(f"when_short {policy.when_short!r}: expected stop or reduce",
                            params=("when_short",))
    _check_number(policy.stop_loss, "stop_loss", "the loss at which a session stops")
    _check_number(policy.win_goal, "win_goal", "the gain at which a session stops")
    max_coups = policy.max_coups
    if max_coups is not None and (isinstance(max_coups, bool) or not isinstance(
            max_coups, int | np.integer) or max_coups < 1):
        raise BaccaratError(f"max_coups {max_coups!r}: expected a whole number of coups, "
                            f"at least 1", params=("max_coups",))
    shoes = policy.session_shoes
    if isinstance(shoes, bool) or not isinstance(shoes, int | np.integer) or shoes < 1:
        raise BaccaratError(f"session_shoes {shoes!r}: expected a whole number of shoes, "
                            f"at least 1", params=("session_shoes",))
    for name, what in (("trailing_stop", "the fall from the session's highest bankroll at "
                        "which it stops"), ("shoe_stop_loss", "the loss in a shoe at which "
                        "play in it stops"), ("shoe_win_goal", "the gain in a shoe at which "
                        "play in it stops"), ("shoe_trailing_stop", "the fall from the shoe's "
                        "highest bankroll at which play in it stops"),
                       ("chip", "the chip size stakes are rounded to")):
        _check_number(getattr(policy, name), name, what)
    for name in ("losses_in_row", "shoe_losses_in_row", "shoe_max_coups"):
        count = getattr(policy, name)
        if count is not None and (isinstance(count, bool) or not isinstance(
                count, int | np.integer) or count < 1):
            raise BaccaratError(f"{name} {count!r}: expected a whole number, at least 1",
                                params=(name,))
    for name, choices in (("below_min", ("raise", "skip", "stop")),
                          ("last_session", ("keep", "drop"))):
        if getattr(policy, name) not in choices:
            given = getattr(policy, name)
            close = difflib.get_close_matches(str(given).lower(), choices, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise BaccaratError(f"{name} {given!r}: expected {' or '.join(choices)}{hint}",
                                params=(name,))


# --- The summary, from the session parts ------------------------------------------------------


def summarize_run(folder: str | Path, configs: Sequence[Strategy], rules: TableRules,
                  backend: Backend | None = None, *, sessions: int | None = None,
                  staked: set[str] | None = None,
                  config_rules: Sequence[TableRules] | None = None,
                  columns: dict[int, dict[str, np.ndarray]] | None = None) -> pd.DataFrame:
    """One row per configuration with every summary metric, from the session parts.

    Only the columns the metrics read, for a group of configurations at a time (at most
    ``SUMMARY_BATCH_ROWS`` session rows); a bigger configuration alone, its sessions
    streamed from the parts batch by batch, a few passes (``baccarat.session_stats``): memory
    does not grow with the sessions, and never holds the ledger. The groups run on
    ``backend`` (in this process by default). Every figure is exact (sums included), so
    it is the same whatever the chunking and the batches.
    ``sessions`` (per configuration) and ``staked`` (the bet kinds any session staked on)
    spare reading them from the parts when the caller knows them. ``config_rules`` gives
    each configuration's rules when they differ (house edges and labels follow them).
    With several configurations, the Holm-adjusted p of each edge verdict over all of
    them (``edge_p_holm``) and the verdict it gives (``edge_verdict_family``) follow.
    ``columns`` holds each configuration's session columns when the run kept them
    (``_kept_columns``): the figures are those the parts give, without reading them.
    """
    path = Path(folder) / SESSIONS_FILE
    files = _part_files(path)
    # Every part has the same columns; a run that knows its sessions and what they staked
    # (its own, just played) is summarized without opening the parts as a dataset.
    names = set(pq.read_schema(files[0]).names)
    dataset = _parts(path) if staked is None or sessions is None else None
    inputs = tuple(c for c in INPUTS if c in names)
    if staked is None:
        assert dataset is not None
        unused = _never_staked(dataset, [f"wagered_{kind}" for kind in BET_KINDS])
        staked = {kind for kind in BET_KINDS if f"wagered_{kind}" not in unused}
    amounts = tuple((kind, f"wagered_{kind}") for kind in BET_KINDS
                    if f"wagered_{kind}" in names and kind in staked)
    if sessions is None:
        assert dataset is not None
        sessions = dataset.count_rows(filter=_config_is(0))
    per_config = sessions
    group = max(1, SUMMARY_BATCH_ROWS // max(per_config, 1))
    labels = [(c.name, c.spec(), json.dumps(c.params(), sort_keys=True)) for c in configs]
    from .odds import house_edges

    each_rules = list(config_rules) if config_rules is not None else [rules] * len(configs)
    edges_of = {r: tuple(house_edges(r).items()) for r in set(each_rules)}
    tasks = [_SummaryTask(str(path.absolute()), tuple(range(first, end)),
                          tuple(labels[first:end]), tuple(each_rules[first:end]),
                          tuple(edges_of[r] for r in each_rules[first:end]), inputs, amounts,
                          per_config,
                          {k: columns[k] for k in range(first, end)} if columns else None)
             for first in range(0, len(configs), group)
             for end in [min(first + group, len(configs))]]
    by_config: dict[int, dict[str, Any]] = {}

    def collect(task: _SummaryTask, result: list[dict[str, Any]]) -> None:
        by_config.update((int(row["config"]), row) for row in result)

    (backend or InProcess()).run(_summarize_configs, tasks, collect)
    frame = pd.DataFrame([by_config[k] for k in sorted(by_config)])
    ordered = ["config", "strategy", "spec", "params", "rules"] + [m.name for m in
                                                                   SUMMARY_METRICS]
    frame = frame[ordered]
    if len(frame) > 1:  # the edge verdict counting every configuration of the run
        from .search.family import family_edge_verdicts

        _, adjusted, verdict = family_edge_verdicts(frame)
        frame = frame.assign(edge_p_holm=adjusted, edge_verdict_family=verdict)
    return frame


#: The most session rows the summary reads in one scan (several configurations at a time).
SUMMARY_BATCH_ROWS = 200_000

def _never_staked(dataset: ds.Dataset, columns: list[str]) -> set[str]:
    """The ``columns`` whose row-group statistics show 0 in every session (footers only)."""
    zero = set(columns)
    for fragment in dataset.get_fragments():
        fragment.ensure_complete_metadata()
        for group in fragment.row_groups:
            statistics = group.statistics or {}
            for column in list(zero):
                stats = statistics.get(column)
                if not stats or stats.get("max") != 0 or stats.get("min") != 0:
                    zero.discard(column)
        if not zero:
            break
    return zero


@dataclass(frozen=True)
class _SummaryTask:
    """The summary of some configurations: their sessions' folder, and what to read."""

    folder: str
    configs: tuple[int, ...]
    labels: tuple[tuple[str, str, str], ...]  # (strategy, spec, params) of each
    rules: tuple[TableRules, ...]             # the rules of each
    edges: tuple[tuple[tuple[str, float], ...], ...]  # exact house edge of each bet kind
    inputs: tuple[str, ...]                   # the columns the metrics read
    amounts: tuple[tuple[str, str], ...]      # (bet kind, wagered column) staked at all
    sessions: int = 0                         # sessions of each configuration
    columns: dict[int, dict[str, np.ndarray]] | None = None  # kept in memory, if they were

    def describe(self) -> str:
        """Which configurations, for messages."""
        return f"the summary of configurations {self.configs[0]}-{self.configs[-1]}"


def _read_sessions(task: _SummaryTask, columns: list[str] | None) -> pa.Table:
    """Columns of the task's configurations, part after part (so in session order)."""
    return _parts(Path(task.folder)).to_table(columns=columns,
                                              filter=_config_is(*task.configs))


def _read_config(task: _SummaryTask, columns: list[str]) -> Iterator[dict[str, np.ndarray]]:
    """Batches of ``columns`` of the task's one configuration, part after part, reading
    only the row groups that hold it: memory holds one batch."""
    config = task.configs[0]
    for file in _part_files(Path(task.folder)):
        handle = pq.ParquetFile(file)
        position = handle.schema_arrow.get_field_index("config")
        groups = [i for i in range(handle.metadata.num_row_groups)
                  if _may_hold(handle.metadata.row_group(i).column(position), config)]
        if not groups:
            continue
        for batch in handle.iter_batches(batch_size=1 << 16, row_groups=groups,
                                         columns=[*columns, "config"], use_threads=False):
            mine = batch.column("config").to_numpy() == config
            if mine.any():
                yield {name: batch.column(name).to_numpy(zero_copy_only=False)[mine]
                       for name in columns}


def _may_hold(column: pq.ColumnChunkMetaData, config: int) -> bool:
    """Whether a row group's ``config`` column may hold ``config`` (its statistics)."""
    stats = column.statistics
    if stats is None or not stats.has_min_max:
        return True
    return bool(stats.min <= config <= stats.max)


def _summarize_configs(task: _SummaryTask) -> list[dict[str, Any]]:
    """The summary rows of the task's configurations."""
    amounts = [column for _, column in task.amounts]
    sources: dict[int, Callable[[list[str]], Iterable[dict[str, np.ndarray]]]]
    if task.columns is not None:
        sources = {k: batches_of(task.columns[k]) for k in task.configs}
    elif len(task.configs) > 1:
        table = _read_sessions(task, ["config", *task.inputs, *amounts])
        config_column = table.column("config").to_numpy()
        sources = {}
        for k in task.configs:
            mine = table.filter(pa.array(config_column == k))
            sources[k] = batches_of({name: mine.column(name).to_numpy(zero_copy_only=False)
                                     for name in (*task.inputs, *amounts)})
        del table
    else:
        sources = {task.configs[0]: lambda names: _read_config(task, names)}
    rows = []
    for k, (name, spec, params), rules, edges in zip(task.configs, task.labels, task.rules,
                                                     task.edges, strict=True):
        stats = session_stats(sources.pop(k), task.sessions, amounts)
        wagered = {kind: total for kind, total in stats.wagered_by.items() if total > 0}
        edge = weighted_house_edge(wagered, dict(edges))
        rows.append({"config": k, "strategy": name, "spec": spec, "params": params,
                     "rules": rules.label(), **summarize_stats(stats, edge)})
    return rows


def _run_info(configs: list[Strategy], rules: TableRules, dataset: Dataset,
              policy: SessionPolicy, command: str | None,
              config_rules: Sequence[TableRules] | None = None) -> dict[str, Any]:
    each = list(config_rules) if config_rules is not None else [rules] * len(configs)
    return {
        "version": __version__,
        "command": command or " ".join(sys.argv),
        "rules": rules.model_dump(),
        "configs": [{"config": i, "strategy": s.name, "spec": s.spec(), "params": s.params(),
                     "rules": r.label(),
                     **({"table_rules": r.model_dump()} if config_rules is not None else {})}
                    for i, (s, r) in enumerate(zip(configs, each, strict=True))],
        "dataset": {"path": dataset.origin or (str(dataset.path) if dataset.path else None),
                    "fingerprint": dataset.fingerprint, "description": dataset.description,
                    "seed": dataset.seed, "shoes": dataset.n_shoes,
                    "shuffle": _dataset_shuffle(dataset)},
        "policy": dataclasses.asdict(policy),
    }


__all__ = ["BacktestResult", "Dataset", "LEDGER_FILE", "RUN_FILE", "SESSIONS_FILE",
           "SUMMARY_FILE", "check_policy", "check_run_parts", "chunk_size", "dataset_from", "play",
           "read_run_table", "resolve_strategies", "summarize_run"]
