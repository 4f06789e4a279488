"""The whole pipeline on defaults: generated shoes, five systems, comparison and report.

``run_demo`` needs no input: it deals a few thousand 8-deck shoes from a fixed seed,
backtests flat Banker, Martingale, Fibonacci, Paroli and a pattern follower from the same
bankroll, and writes the run folder, ``comparison.parquet`` and ``report.html`` into one
folder, built under a temporary name and renamed into place when complete.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pipeline is imported when the demo runs: the CLI reads the defaults
    import pandas as pd

    from ..backtest import BacktestResult

DEMO_STRATEGIES = ("flat", "martingale", "fibonacci", "paroli", "follow")
DEMO_SHOES = 5000
DEMO_SEED = 2024
DEMO_BANKROLL = 1000.0
RUN_FOLDER = "run"
COMPARISON_FILE = "comparison.parquet"
REPORT_FILE = "report.html"


@dataclass
class DemoResult:
    """Where the demo wrote its outputs, and the comparison it printed."""

    folder: Path
    run: Path
    comparison_path: Path
    report: Path
    comparison: pd.DataFrame
    result: BacktestResult


def _check_free(folder: Path, force: bool) -> None:
    from ..io.parquet import OutputExistsError

    if folder.exists() and not folder.is_dir():
        raise OutputExistsError(f"{folder} exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise OutputExistsError(f"{folder} already exists and is not empty; pass --force to "
                                f"overwrite it")


def run_demo(out: str | Path = "demo", *, shoes: int = DEMO_SHOES, seed: int = DEMO_SEED,
             force: bool = False, command: str | None = None,
             backtest_progress: Callable[[int, int], None] | None = None,
             report_progress: Callable[[int, int], None] | None = None) -> DemoResult:
    """Run the demo into ``out`` (refused when it exists and is not empty, unless ``force``)."""
    from .. import warm
    from ..backtest import BacktestResult, backtest
    from .compare import compare, write_comparison
    from .html import write_report
    from .runs import load_run

    target = Path(out)
    _check_free(target, force)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    temp.mkdir()
    helper = warm.start(DEMO_STRATEGIES)  # a fresh install: compile on the second core too
    try:
        try:
            backtest(strategies=list(DEMO_STRATEGIES), shoes=shoes, seed=seed,
                     bankroll=DEMO_BANKROLL, out=temp / RUN_FOLDER,
                     chunk_shoes=max(1, min(1000, shoes)),  # a progress bar that moves
                     command=command or f"baccarat demo --shoes {shoes} --seed {seed}",
                     progress=backtest_progress)
        except BaseException:
            warm.finish(helper, failed=True)
            raise
        warm.finish(helper)
        run = load_run(temp / RUN_FOLDER)
        run.shown = str(target / RUN_FOLDER)  # where it will be once renamed into place
        comparison = compare([run])
        write_comparison(comparison, temp / COMPARISON_FILE)
        write_report([run], temp / REPORT_FILE, progress=report_progress)
        if target.exists():
            trash = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.old")
            os.replace(target, trash)
            os.replace(temp, target)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(temp, target)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return DemoResult(folder=target, run=target / RUN_FOLDER,
                      comparison_path=target / COMPARISON_FILE, report=target / REPORT_FILE,
                      comparison=comparison, result=BacktestResult.load(target / RUN_FOLDER))
