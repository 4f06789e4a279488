"""Imported by a worker pool's fork server (``baccarat.parallel``) only: a worker whose run
ended while the worker was starting exits without a traceback.

A run stopped by Ctrl-C shuts its pool down while workers may still be reading their
start-up data from it (the pipe and the semaphores the run owns). Such a worker fails in
multiprocessing's start-up code with ``FileNotFoundError``, ``EOFError`` or a broken pipe,
and the fork server prints it through ``sys.excepthook``: twenty lines under the
command's one line saying what it kept. Those errors mean the run is gone, so the worker
ends quietly; any other error is printed as before.
"""

from __future__ import annotations

import sys
import traceback
from types import TracebackType

#: What a worker meets when the run that started it has gone away.
RUN_GONE = (FileNotFoundError, EOFError, BrokenPipeError, ConnectionResetError)


def _starting(tb: TracebackType | None) -> bool:
    """Whether the traceback ends in multiprocessing's own start-up of a worker."""
    frames = traceback.extract_tb(tb)
    return any(frame.filename.endswith(("multiprocessing/spawn.py",
                                        "multiprocessing/synchronize.py",
                                        "multiprocessing/connection.py"))
               for frame in frames)


def _quiet_if_run_gone(kind: type[BaseException], error: BaseException,
                       tb: TracebackType | None) -> None:
    if issubclass(kind, RUN_GONE) and _starting(tb):
        return
    sys.__excepthook__(kind, error, tb)


sys.excepthook = _quiet_if_run_gone
