"""Workers die with their run, and a run stops at once when asked to.

Real processes, real signals: ``baccarat backtest`` runs in a child process with a pool of
workers playing a deliberately slow strategy; the test signals the main process only (as
``kill PID`` does, not the whole group) and then looks at every process the run started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from baccarat.backtest import RUN_FILE, SESSIONS_FILE, BacktestResult
from baccarat.cli import app
from baccarat.io.parquet import LOCK_FILE, PLAN_FILE
from holders import gone_within, live_processes, session_members
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]


def ctrl_c_reaches_it() -> None:
    """In the child before it starts: Ctrl-C (SIGINT) as at a terminal, even when these tests
    run in the background (where a shell starts commands with SIGINT ignored, and children
    inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

#: Set in the child's environment only: the run the test signals is slow, and the run that
#: resumes it in the test's own process plays the same strategy at full speed.
DELAY_ENV = "SLOW_STRATEGY_SECONDS_PER_COUP"

SLOW = f'''
import os
import time
import numpy as np
from baccarat.strategies.base import Strategy, Table, Wager


class Slow(Strategy):
    """Flat on Banker, 20 ms per coup where {DELAY_ENV} says so: a chunk of two shoes
    then takes over a second."""

    name = "slow"

    def wager(self, table: Table) -> Wager:
        time.sleep(float(os.environ.get("{DELAY_ENV}", "0")))
        return Wager.on(banker=np.full(table.n, 10.0))
'''


#: Shoes of every run here: 32 chunks of two, some 25 s at 20 ms a coup on two workers,
#: so a run is still going when its test (run after the others here) signals it.
SHOES = 64


def start_run(folder: Path, workers: int = 2,
              shoes: int = SHOES) -> tuple[subprocess.Popen[str], Path]:
    """A slow backtest in a child process (its own session), and its run folder."""
    plugin = folder / "slow_strategy.py"
    plugin.write_text(SLOW)
    out = folder / "run"
    code = "from baccarat.cli import app; app(prog_name='baccarat')"
    args = ["backtest", "-s", f"{plugin}:Slow", "--shoes", str(shoes), "--chunk", "2",
            "--workers", str(workers), "--out", str(out), "-q", "--unchecked"]
    child = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT), DELAY_ENV: "0.02"},
                             start_new_session=True, preexec_fn=ctrl_c_reaches_it,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    return child, out


#: The runs the tests signal, by the signal each is sent.
SIGNALS = (signal.SIGKILL, signal.SIGINT, signal.SIGTERM)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[dict[int, tuple[subprocess.Popen[str], Path]]]:
    """Every test's run, all started at once when the first test starts: each test spends
    most of its time waiting on its run (its interpreter starting, its slow chunks), and
    waits side by side overlap. Whatever a test left running is killed at the end."""
    started = {signum: start_run(tmp_path_factory.mktemp(f"signal{signum}"))
               for signum in SIGNALS}
    yield started
    for child, _ in started.values():
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        child.communicate()


def descendants(pid: int) -> set[int]:
    """Every live process whose ancestry leads to ``pid`` (read from /proc)."""
    parents = {child: int(fields[1]) for child, fields in live_processes().items()}
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def wait_for_workers(child: subprocess.Popen[str], count: int) -> set[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert child.poll() is None, child.communicate()
        found = descendants(child.pid)
        if len(found) >= count + 2:  # fork server, resource tracker, workers
            time.sleep(0.5)          # the workers are inside their first chunk
            return found
        time.sleep(0.05)
    raise AssertionError(f"no pool appeared: {descendants(child.pid)}")


def snapshot(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*")
            if p.is_file() and p.name != LOCK_FILE}


def test_killing_the_main_process_ends_every_worker_and_nothing_is_written_after(
        runs: dict[int, tuple[subprocess.Popen[str], Path]]):
    child, out = runs[signal.SIGKILL]
    workers = wait_for_workers(child, 2)
    os.kill(child.pid, signal.SIGKILL)  # the main process only, not its group
    child.wait()
    before = snapshot(out)
    survivors = gone_within(workers | session_members(child.pid), 5)
    assert not survivors, f"processes of the killed run still alive: {survivors}"
    time.sleep(2.5)  # a chunk takes ~1.6 s: an orphan would have written its part by now
    assert snapshot(out) == before
    assert (out / PLAN_FILE).exists() and not (out / RUN_FILE).exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_stop_a_slow_run_at_once_and_it_resumes(
        runs: dict[int, tuple[subprocess.Popen[str], Path]], signum: int):
    child, out = runs[signum]
    deadline = time.monotonic() + 60
    while not list((out / SESSIONS_FILE).glob("part-*.parquet")):  # a chunk is done
        assert time.monotonic() < deadline and child.poll() is None, child.communicate()
        time.sleep(0.02)
    workers = descendants(child.pid)
    sent = time.monotonic()
    os.kill(child.pid, signum)  # the main process only: the workers are its to stop
    try:
        code = child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.kill()
        raise AssertionError("the run was still running 2 s after the signal") from None
    assert time.monotonic() - sent < 2
    _, err = child.communicate()
    assert code == 130, err
    assert "Traceback" not in err
    assert "interrupted" in err and "--resume" in err.replace("\n", "")
    assert not gone_within(workers | session_members(child.pid), 3)
    assert (out / PLAN_FILE).exists() and not (out / RUN_FILE).exists()

    resumed = CliRunner().invoke(app, ["backtest", "-s", f"{out.parent / 'slow_strategy.py'}:Slow",
                                       "--shoes", str(SHOES), "--chunk", "2", "--workers", "1",
                                       "--out", str(out), "--resume", "-q",
                                       "--unchecked"])
    assert resumed.exit_code == 0, resumed.output
    info = BacktestResult.load(out).info
    assert info["chunks"]["resumed"] >= 1 and info["counts"]["sessions"] == SHOES
