"""The whole pipeline on defaults: generated shoes, five systems, comparison and report.

``run_demo`` needs no input: it deals a few thousand 8-deck shoes from a fixed seed,
backtests flat Banker, Martingale, Fibonacci, Paroli and a pattern follower from the same
bankroll, and writes the run folder, ``comparison.parquet`` and ``report.html`` into one
folder, built under a temporary name and renamed into place when complete.
"""

from __future__ import annotations

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


def is_demo_folder(folder: Path) -> bool:
    """Whether ``folder`` is a demo's output (its run folder, comparison and report, all
    ours), and so may be replaced by a demo."""
    from ..io.parquet import is_output_file, is_output_folder

    expected = {RUN_FOLDER: is_output_folder, COMPARISON_FILE: is_output_file,
                REPORT_FILE: is_output_file}
    entries = list(folder.iterdir())
    return bool(entries) and all(
        not entry.is_symlink() and entry.name in expected and expected[entry.name](entry)
        for entry in entries)


def run_demo(out: str | Path = "demo", *, shoes: int = DEMO_SHOES, seed: int = DEMO_SEED,
             force: bool = False, command: str | None = None,
             backtest_progress: Callable[[int, int], None] | None = None,
             report_progress: Callable[[int, int], None] | None = None) -> DemoResult:
    """Run the demo into ``out``: a folder built under a temporary name and renamed into
    place when complete (``baccarat.io.owner.claim_output``). An existing folder is
    replaced only if it holds a demo's output (then without ``force`` too: a demo run
    again writes its own folder again); an empty one is used. A failed or interrupted
    demo leaves nothing."""
    from ..errors import DiskFullError, Interrupted
    from ..io.owner import claim_output

    target = Path(out)
    again = target.is_dir() and not target.is_symlink() and is_demo_folder(target)
    with claim_output(target, force=force or again, folder=True, ours=is_demo_folder,
                      what="demo") as claim:
        try:
            comparison = _run_into(claim.temp, target, shoes, seed, command,
                                   backtest_progress, report_progress)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted: the demo wrote nothing ({target} is as it "
                              f"was)") from None
        except DiskFullError:
            raise DiskFullError(f"no space left on device writing {target}; nothing was "
                                f"written") from None
    from ..backtest import BacktestResult

    return DemoResult(folder=target, run=target / RUN_FOLDER,
                      comparison_path=target / COMPARISON_FILE, report=target / REPORT_FILE,
                      comparison=comparison, result=BacktestResult.load(target / RUN_FOLDER))


def _run_into(temp: Path, target: Path, shoes: int, seed: int, command: str | None,
              backtest_progress: Callable[[int, int], None] | None,
              report_progress: Callable[[int, int], None] | None) -> pd.DataFrame:
    """The demo's run, comparison and report, written into the folder ``temp`` that will
    become ``target``; returns the comparison."""
    from ..backtest import play
    from ..job import BacktestJob, Run
    from ..replay import SessionPolicy
    from .compare import compare, write_comparison_file
    from .html import render_report
    from .runs import load_run

    how = Run(out=temp / RUN_FOLDER, progress=backtest_progress or False,
              chunk_shoes=max(1, min(1000, shoes)))  # a progress bar that moves
    play(BacktestJob(None, list(DEMO_STRATEGIES), shoes=shoes, seed=seed,
                     session=SessionPolicy(bankroll=DEMO_BANKROLL), run=how,
                     command=command or f"baccarat demo --shoes {shoes} --seed {seed}"))
    run = load_run(temp / RUN_FOLDER)
    run.shown = str(target / RUN_FOLDER)  # where it will be once renamed into place
    comparison = compare([run])
    write_comparison_file(comparison, temp / COMPARISON_FILE)
    text = render_report([run], progress=report_progress)
    (temp / REPORT_FILE).write_text(text, encoding="utf-8")
    return comparison
