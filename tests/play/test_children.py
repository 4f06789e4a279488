"""Every child dies with its command, and a command returns when its work is done.

Real processes, real signals: ``baccarat report`` and ``baccarat demo`` in child processes
of their own session, killed with ``kill -9`` while their figure workers draw; a plugin
that starts a thread it never ends, with one worker and with two, finished and
interrupted with Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from baccarat import Run, backtest
from holders import ROOT, finish, gone_within, session_members, spawn, wait_until

LEAKY = '''
import threading
import time

import numpy as np

from baccarat.strategies.base import Strategy, Table, Wager


def poll() -> None:
    while True:
        time.sleep(0.05)


class Leaky(Strategy):
    """Flat on Banker, with a thread it starts and never ends (not a daemon)."""

    name = "leaky"

    def start(self, table: Table) -> None:
        threading.Thread(target=poll, name="leaky-poller").start()

    def wager(self, table: Table) -> Wager:
        return Wager.on(banker=np.full(table.n, 10.0))
'''


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of five configurations: some twenty figures to draw."""
    out = tmp_path_factory.mktemp("five") / "run"
    backtest(None, ["flat", "martingale", "fibonacci", "paroli", "follow"], shoes=300, seed=4,
             run=Run(out=out, ledger=False))
    return out


@pytest.mark.parametrize("command", ["report", "demo"])
def test_kill_9_of_a_command_drawing_figures_leaves_no_worker(five: Path, tmp_path: Path,
                                                              command: str):
    args = (["report", str(five), "--out", str(tmp_path / "r.html"), "-q"]
            if command == "report" else
            ["demo", "--shoes", "300", "--out", str(tmp_path / "demo"), "-q", "--no-table"])
    child = spawn(*args, env={"BACCARAT_REPORT_WORKERS": "2"})
    # Its figure workers: two processes of its session besides itself, forked from it.
    wait_until(lambda: len(session_members(child.pid) - {child.pid}) >= 2 and any(
        int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) == child.pid
        for pid in session_members(child.pid) - {child.pid}), "figure workers", child=child,
        timeout=120)
    members = session_members(child.pid) - {child.pid}
    os.kill(child.pid, signal.SIGKILL)  # the command only, not its group
    child.communicate()
    assert not gone_within(members | session_members(child.pid), 5), \
        "processes of the killed command are still running"


def test_a_plugins_stray_thread_does_not_keep_the_command_running(tmp_path: Path):
    plugin = tmp_path / "leaky_strategy.py"
    plugin.write_text(LEAKY)
    for workers in ("1", "2"):
        child = spawn("backtest", "-s", f"{plugin}:Leaky", "--shoes", "20", "--chunk", "10",
                      "--workers", workers, "--out", str(tmp_path / f"run{workers}"), "-q",
                      "--no-table")
        code, text = finish(child, timeout=90)
        assert code == 0, (workers, text)
        assert "leaky-poller" in text and "warning:" in text, (workers, text)
        assert "Traceback" not in text
        assert not gone_within(session_members(child.pid), 5), workers


def test_ctrl_c_stops_a_run_whose_plugin_left_threads_with_two_workers(tmp_path: Path):
    plugin = tmp_path / "leaky_slow.py"
    plugin.write_text(LEAKY.replace(
        "        return Wager.on(banker=np.full(table.n, 10.0))",
        "        time.sleep(0.01)\n        return Wager.on(banker=np.full(table.n, 10.0))"))
    out = tmp_path / "run"
    code = "from baccarat.cli import app; app(prog_name='baccarat')"
    child = subprocess.Popen(
        [sys.executable, "-c", code, "backtest", "-s", f"{plugin}:Leaky", "--shoes", "60",
         "--chunk", "2", "--workers", "2", "--out", str(out), "-q", "--no-table"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: list((out / "sessions.parquet").glob("part-*.parquet")),
               "a chunk done", child=child, timeout=120)
    os.kill(child.pid, signal.SIGINT)
    status, text = finish(child, timeout=10)
    assert status == 130, text
    assert "interrupted" in text and "Traceback" not in text
    assert not gone_within(session_members(child.pid), 5)


def test_ctrl_c_at_a_terminal_while_a_pool_starts_is_one_line_and_leaves_nothing_stuck(
        tmp_path: Path):
    """Ctrl-C at a terminal reaches the whole process group (the command, its fork server,
    its workers) while the pool starts: one line, no traceback from any of them, and what
    is left is nothing or a resumable run: the same command runs again (with --resume if
    it says so)."""
    out = tmp_path / "run"
    args = ["backtest", "-s", "flat", "--shoes", "12000", "--chunk", "1000", "--workers", "2",
            "--out", str(out), "-q", "--no-table"]
    code = "from baccarat.cli import app; app(prog_name='baccarat')"
    child = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)},
                             start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: len(session_members(child.pid)) >= 3, "the pool starting",
               child=child, timeout=120)  # the command, its resource tracker, fork server
    os.killpg(child.pid, signal.SIGINT)
    status, text = finish(child, timeout=30)
    assert "Traceback" not in text, text
    assert status in (0, 130), text
    assert not gone_within(session_members(child.pid), 5)
    again = "--resume" if "--resume" in text else "--force" if status == 0 else None
    rerun = subprocess.run([sys.executable, "-c", code, *args, *([again] if again else [])],
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=180)
    assert rerun.returncode == 0, rerun.stderr


STOPPABLE = LEAKY.replace('''def poll() -> None:
    while True:
        time.sleep(0.05)''', '''STOP = threading.Event()


def poll() -> None:
    while not STOP.wait(0.05):
        pass''')


def test_inside_another_program_the_command_names_the_thread_and_returns(tmp_path: Path):
    """Run in-process (its output captured, as by a test runner or a notebook), the command
    warns about the thread and returns, leaving the host to decide when it ends."""
    from baccarat.cli import app
    from typer.testing import CliRunner

    plugin = tmp_path / "stoppable_strategy.py"
    plugin.write_text(STOPPABLE)
    result = CliRunner().invoke(app, ["backtest", "-s", f"{plugin}:Leaky", "--shoes", "10",
                                      "--workers", "1", "--out", str(tmp_path / "run"), "-q",
                                      "--no-table"])
    stops = [module.STOP for module in list(sys.modules.values())
             if getattr(module, "__file__", None) == str(plugin)]
    for stop in stops:  # the host's own business: here, stop the thread
        stop.set()
    assert result.exit_code == 0, result.output
    assert "leaky-poller" in result.output and "stoppable_strategy.py" in result.output
    assert stops
