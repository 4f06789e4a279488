"""Stored runs as the reports see them: a run folder (or a result in memory), read lazily.

Reports read what ``backtest`` wrote and never re-run anything. ``ledger.parquet`` and
``sessions.parquet`` may be single files or folders of Parquet parts; both are read through
pandas/pyarrow, which handle either, and only the columns a figure needs are loaded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..backtest import (
    LEDGER_FILE,
    RUN_FILE,
    SESSIONS_FILE,
    SUMMARY_FILE,
    BacktestResult,
    check_run_parts,
)
from ..errors import BaccaratError

#: Rules that decide which cards are dealt (the rest only change payouts and limits).
DEAL_RULES = ("decks", "burn", "burn_count", "cut_card", "extra_coup_after_cut")


class RunFolderError(BaccaratError):
    """A path given as a run folder that is missing or is not one."""


@dataclass
class Run:
    """One stored run: its summary, run.json, and lazy access to sessions and ledger.

    Build one with ``load_run(path)`` or ``Run.from_result(result)``.
    """

    label: str
    summary: pd.DataFrame
    info: dict[str, Any]
    path: Path | None = None
    shown: str = ""  # how reports name the run (its folder, unless told otherwise)
    _sessions: pd.DataFrame | None = field(default=None, repr=False)
    _ledger: Any = field(default=None, repr=False)     # in memory: an Arrow table
    _keepalive: Any = field(default=None, repr=False)  # a result owning a temporary folder

    @classmethod
    def from_result(cls, result: BacktestResult, label: str = "") -> Run:
        """A run from a ``BacktestResult``: read from its folder (the run folder, or the
        temporary one of a result not saved), else from what it holds in memory."""
        folder = getattr(result, "folder", None) or result.path
        if folder is not None:
            run = load_run(folder, label)
            run._keepalive = result
            if result.path is None:
                run.shown = run.label
            return run
        return cls(label=label or "run", summary=result.summary, info=result.info,
                   _sessions=result.sessions, _ledger=result.ledger_table)

    @property
    def has_ledger(self) -> bool:
        """Whether the run kept its ledger (runs made with ``--ledger none`` did not)."""
        if self.path is None:
            return self._ledger is not None
        return (self.path / LEDGER_FILE).exists()

    @property
    def ledger_path(self) -> Path | None:
        """The ledger file or folder of parts, when the run has one on disk."""
        if self.path is not None and (self.path / LEDGER_FILE).exists():
            return self.path / LEDGER_FILE
        return None

    def sessions(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The session rows, only ``columns`` of them when given (read from disk each time)."""
        if self._sessions is not None:
            frame = self._sessions
            return frame[list(columns)] if columns is not None else frame
        assert self.path is not None
        path = self.path / SESSIONS_FILE
        try:
            return pd.read_parquet(path, columns=list(columns) if columns else None)
        except (OSError, ValueError, KeyError) as exc:
            raise RunFolderError(f"{path}: cannot read the session rows: {exc}") from exc

    def ledger_table(self) -> Any:
        """The in-memory ledger (an Arrow table) of an unsaved result, else None."""
        return self._ledger

    @property
    def fingerprint(self) -> str:
        """The dataset fingerprint recorded in run.json."""
        return str((self.info.get("dataset") or {}).get("fingerprint", ""))

    def shoes_key(self) -> tuple[Any, ...]:
        """What identifies the shoes this run played; equal keys mean the same shoes.

        Generated shoes are a function of the seed and the dealing rules only, so two runs
        from one seed under different payouts (commission, EZ...) still played the same
        shoes; recorded datasets are identified by their content fingerprint.
        """
        dataset = self.info.get("dataset") or {}
        rules = self.info.get("rules") or {}
        if dataset.get("seed") is not None and not dataset.get("path"):
            return ("generated", dataset["seed"], *(rules.get(k) for k in DEAL_RULES))
        return ("dataset", self.fingerprint)

    @property
    def session_shoes(self) -> int:
        """Shoes per session in this run."""
        return int((self.info.get("policy") or {}).get("session_shoes", 1))


def load_run(path: str | Path, label: str = "") -> Run:
    """Open a run folder written by ``baccarat backtest``; a clear error if it is not one."""
    folder = Path(path)
    if not folder.exists():
        raise RunFolderError(f"run folder {folder} does not exist")
    if not folder.is_dir():
        raise RunFolderError(f"{folder} is not a run folder (a run folder holds "
                             f"{SUMMARY_FILE}, {SESSIONS_FILE} and {RUN_FILE})")
    missing = [name for name in (SUMMARY_FILE, SESSIONS_FILE, RUN_FILE)
               if not (folder / name).exists()]
    if missing:
        raise RunFolderError(f"{folder} is not a run folder: {', '.join(missing)} missing "
                             f"(a run folder is what `baccarat backtest --out` writes)")
    try:
        info = json.loads((folder / RUN_FILE).read_text())
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{folder / RUN_FILE}: not readable JSON: {exc}") from exc
    if not isinstance(info, dict):
        raise RunFolderError(f"{folder / RUN_FILE}: expected a JSON object")
    try:
        check_run_parts(folder, info)
    except BaccaratError as exc:
        raise RunFolderError(str(exc)) from None
    try:
        summary = pd.read_parquet(folder / SUMMARY_FILE)
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{folder / SUMMARY_FILE}: not a readable Parquet file: "
                             f"{exc}") from exc
    for column in ("config", "spec"):
        if column not in summary:
            raise RunFolderError(f"{folder / SUMMARY_FILE}: no {column!r} column; "
                                 f"expected the summary written by `baccarat backtest`")
    return Run(label=label or folder.resolve().name, summary=summary, info=info, path=folder,
               shown=str(folder))


RunLike = str | Path | BacktestResult | Run


Runs = Sequence[RunLike] | Mapping[str, RunLike] | RunLike


def load_runs(runs: Runs) -> list[Run]:
    """Open every run (folders, results or runs) and give each a distinct label.

    A mapping names its runs by its keys ({"flat": result, "mine": "runs/mine"}); else a
    folder is named by its folder name and a result not saved by its position (run1...).
    """
    named: list[tuple[str, RunLike]]
    if isinstance(runs, str | Path | BacktestResult | Run):
        named = [("", runs)]
    elif isinstance(runs, Mapping):
        named = [(str(k), v) for k, v in runs.items()]
    else:
        named = [("", item) for item in runs]
    opened: list[Run] = []
    for i, (label, item) in enumerate(named):
        if isinstance(item, Run):
            if label:
                item.label = label
            opened.append(item)
        elif isinstance(item, BacktestResult):
            opened.append(Run.from_result(item, label=label or (
                "" if item.path else f"run{i + 1}")))
        else:
            opened.append(load_run(item, label))
    if not opened:
        raise RunFolderError("no run given: pass at least one run folder")
    _distinct_labels(opened)
    return opened


def _distinct_labels(runs: list[Run]) -> None:
    """Make run labels unique: the folder name, then more of the path, then a number."""
    seen: dict[str, int] = {}
    for run in runs:
        if run.label in seen and run.path is not None:
            parts = run.path.resolve().parts
            run.label = "/".join(parts[-2:]) if len(parts) >= 2 else run.label
        if run.label in seen:
            seen[run.label] += 1
            run.label = f"{run.label}#{seen[run.label]}"
        seen[run.label] = 1
