"""Run many ``baccarat`` command lines as real processes, cheaply: one interpreter imports
the command line and its heavy libraries once, then forks a child per command line (its
own session and folder, stdout and stderr to a file), a few at a time, and interrupts a
child with SIGINT (as Ctrl-C does, to its whole process group) when the job says so.

    python tests/cli_walk.py JOBS.json RESULTS.json

JOBS.json: a list of {"args": [...], "cwd": "...", "log": "...", "interrupt": seconds or
null, "env": {...}}; RESULTS.json gets each job's exit status (-9 when it had to be
killed after the time limit). Used by tests/cli/test_no_traceback.py.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

PRELOAD = ("numpy", "pandas", "pyarrow.parquet", "baccarat.cli", "baccarat.cli.common",
           "baccarat.backtest", "baccarat.io.importers", "baccarat.strategies.presets",
           "rich.table")
LIMIT = 60.0


def child(job: dict[str, Any]) -> None:
    """The forked child: become the command line the job names, and exit with its status."""
    code = 1
    try:
        os.setsid()
        os.chdir(job["cwd"])
        fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.environ.update(job.get("env") or {})
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sys.argv = ["baccarat", *job["args"]]
        from baccarat.cli import app

        try:
            app()
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None
                                                                    else 1)
    except BaseException:  # noqa: BLE001 - printed as Python would, then the status
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main(jobs_file: str, results_file: str, parallel: int = 2) -> None:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    with open(jobs_file) as handle:
        jobs: list[dict[str, Any]] = json.load(handle)
    results: list[int | None] = [None] * len(jobs)
    waiting = list(range(len(jobs)))
    running: dict[int, tuple[int, float]] = {}  # pid -> (job, started)
    interrupted: set[int] = set()
    while waiting or running:
        while waiting and len(running) < parallel:
            index = waiting.pop(0)
            pid = os.fork()
            if pid == 0:
                child(jobs[index])
            running[pid] = (index, time.monotonic())
        for pid, (index, started) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                results[index] = os.waitstatus_to_exitcode(status)
                del running[pid]
                continue
            elapsed = time.monotonic() - started
            when = jobs[index].get("interrupt")
            if when is not None and pid not in interrupted and elapsed >= when:
                interrupted.add(pid)
                _signal(pid, signal.SIGINT)
            if elapsed > LIMIT:
                _signal(pid, signal.SIGKILL)
        time.sleep(0.01)
    with open(results_file, "w") as handle:
        json.dump(results, handle)


def _signal(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
