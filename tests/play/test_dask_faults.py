"""Dask faults: a scheduler out of reach, a port that is not Dask, a cluster that loses all
its workers, Ctrl-C while connecting. Each ends in one clear line, quickly, with nothing
left behind (or a resumable run), on a real LocalCluster and real sockets."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from baccarat import Run
from baccarat.backtest import RUN_FILE, SESSIONS_FILE, BacktestResult, play
from baccarat.cli import app
from baccarat.errors import ChunkFailed
from baccarat.io.parquet import PLAN_FILE
from baccarat.job import BacktestJob
from baccarat.strategies.base import Strategy, Table, Wager
from cli_text import words as flat
from typer.testing import CliRunner

distributed = pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parents[2]


def ctrl_c_reaches_it() -> None:
    """In the child before it starts: Ctrl-C (SIGINT) as at a terminal, even when these tests
    run in the background (where a shell starts commands with SIGINT ignored, and children
    inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(params=["silent", "banner"])
def not_dask(request: pytest.FixtureRequest) -> Iterator[tuple[str, threading.Event]]:
    """A TCP server on localhost that is not Dask: it accepts and says nothing, or sends
    an SSH banner. Yields its address and an event set once a client connected."""
    yield from serve_not_dask(request.param)


@pytest.fixture
def silent() -> Iterator[tuple[str, threading.Event]]:
    """A TCP server that accepts and never answers (a client waits on it)."""
    yield from serve_not_dask("silent")


def serve_not_dask(kind: str) -> Iterator[tuple[str, threading.Event]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    connected = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            connected.set()
            if kind == "banner":
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n" * 50)

    threading.Thread(target=serve, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}", connected
    server.close()
    for conn in held:
        conn.close()


def test_a_port_with_nothing_listening_is_one_line_at_the_timeout(tmp_path: Path):
    out = tmp_path / "coups"
    started = time.monotonic()
    result = CliRunner().invoke(app, ["generate", "--shoes", "10", "--out", str(out),
                                      "--scheduler", f"tcp://127.0.0.1:{free_port()}",
                                      "--scheduler-timeout", "1", "-q"])
    assert time.monotonic() - started < 5
    assert result.exit_code == 2, result.output
    assert flat(result.output).startswith("error: cannot reach the Dask scheduler")
    assert "--scheduler-timeout" in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_a_port_that_is_not_dask_is_one_line_at_the_timeout(tmp_path: Path, not_dask):
    address, _ = not_dask
    out = tmp_path / "run"
    started = time.monotonic()
    result = CliRunner().invoke(app, ["backtest", "-s", "flat", "--shoes", "10", "--out",
                                      str(out), "--scheduler", address,
                                      "--scheduler-timeout", "1", "-q"])
    assert time.monotonic() - started < 5
    assert result.exit_code == 2, result.output
    assert flat(result.output).startswith(f"error: cannot reach the Dask scheduler at "
                                          f"'{address}'")
    assert "Traceback" not in result.output
    assert not out.exists()


def test_ctrl_c_while_connecting_stops_at_once(tmp_path: Path, silent):
    address, connected = silent
    code = "from baccarat.cli import app; app(prog_name='baccarat')"
    child = subprocess.Popen(
        [sys.executable, "-c", code, "generate", "--shoes", "10", "--out",
         str(tmp_path / "coups"), "--scheduler", address, "--scheduler-timeout", "60", "-q"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=ctrl_c_reaches_it, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert connected.wait(60), "the command never connected"
        time.sleep(0.3)
        os.kill(child.pid, signal.SIGINT)
        code_ = child.wait(timeout=3)
    finally:
        child.kill()
    _, err = child.communicate()
    assert code_ == 130 and "interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "coups").exists()


class Slowish(Strategy):
    """Flat on Banker, ``delay`` seconds per coup: at 5 ms a chunk of one shoe takes about
    half a second. (A class attribute, not a parameter: a run resumed at another speed is
    the same configuration.)"""

    name = "slowish"
    delay: ClassVar[float] = 0.005

    def wager(self, table: Table) -> Wager:
        time.sleep(self.delay)
        return Wager.on(banker=np.full(table.n, 10.0))


def test_a_cluster_left_without_workers_stops_the_run_resumable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    out = tmp_path / "run"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        def lose_the_workers() -> None:
            deadline = time.monotonic() + 60
            while not list((out / SESSIONS_FILE).glob("part-*.parquet")):
                if time.monotonic() > deadline:
                    return
                time.sleep(0.02)
            cluster.scale(0)

        threading.Thread(target=lose_the_workers, daemon=True).start()
        started = time.monotonic()
        with pytest.raises(ChunkFailed, match=r"no workers for 1 s.*resume=True"):
            play(BacktestJob(None, [Slowish()], shoes=12,
                             run=Run(chunk_shoes=1, out=out, scheduler=cluster.scheduler_address),
                             unchecked=True, backend_options={"no_workers_timeout": 1.0}))
        assert time.monotonic() - started < 30
        assert (out / PLAN_FILE).exists() and not (out / RUN_FILE).exists()
        done = len(list((out / SESSIONS_FILE).glob("part-*.parquet")))
        assert 1 <= done < 12

        cluster.scale(1)
        monkeypatch.setattr(Slowish, "delay", 0.0)  # the rest at full speed
        result = play(BacktestJob(None, [Slowish()], shoes=12,
                                  run=Run(chunk_shoes=1, out=out, resume=True,
                                          scheduler=cluster.scheduler_address),
                                  unchecked=True))
    assert result.info["chunks"]["resumed"] == done
    assert BacktestResult.load(out).info["counts"]["sessions"] == 12


SLOW_PLUGIN = '''
import time
import numpy as np
from baccarat.strategies.base import Strategy, Table, Wager


class Slow(Strategy):
    name = "slow"

    def wager(self, table: Table) -> Wager:
        time.sleep(0.01)
        return Wager.on(banker=np.full(table.n, 10.0))
'''


def test_ctrl_c_during_a_dask_run_stops_it_at_once_resumable(tmp_path: Path):
    plugin = tmp_path / "slow_plugin.py"
    plugin.write_text(SLOW_PLUGIN)
    out = tmp_path / "run"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp://", dashboard_address=None) as cluster:
        code = "from baccarat.cli import app; app(prog_name='baccarat')"
        child = subprocess.Popen(
            [sys.executable, "-c", code, "backtest", "-s", f"{plugin}:Slow", "--shoes", "30",
             "--chunk", "1", "--out", str(out), "--scheduler", cluster.scheduler_address,
             "-q", "--no-table", "--unchecked"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            preexec_fn=ctrl_c_reaches_it, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            while not list((out / SESSIONS_FILE).glob("part-*.parquet")):
                assert time.monotonic() < deadline and child.poll() is None
                time.sleep(0.02)
            os.kill(child.pid, signal.SIGINT)
            sent = time.monotonic()
            code_ = child.wait(timeout=3)
            assert time.monotonic() - sent < 2.5
            time.sleep(2)  # the chunk a worker was playing has ended meanwhile
        finally:
            child.kill()
        _, err = child.communicate()
    assert not list(out.rglob("*.tmp"))  # that worker's part was never staged, or cleared
    assert code_ == 130, err
    assert "interrupted" in err and "--resume" in " ".join(err.split())
    assert "Traceback" not in err
    assert (out / PLAN_FILE).exists() and not (out / RUN_FILE).exists()
