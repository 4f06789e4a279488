"""Drawing a report's figures on every core while the page is put together.

matplotlib draws one figure at a time, in Python, a tenth to a quarter of a second each,
and a report of five configurations holds some twenty of them: most of the report's time,
with the second core idle. A :class:`FigureDrawer` hands each figure to worker processes
as the page asks for it and leaves a placeholder in the page; :meth:`FigureDrawer.fill`
puts the SVG text in at the end. A figure is a function of its arguments alone (its ids
are prefixed, the SVG hash salt is fixed), so the page comes out byte for byte the same as
when every figure is drawn in the process itself, which is what happens with one core, or
``workers=0``, or when the environment variable ``BACCARAT_REPORT_WORKERS`` says 0.

The workers die with the command that started them, however it ends
(``baccarat.children.die_with``). They are forked from this process once it has loaded
matplotlib, so they start with it loaded (a worker that imported it afresh would spend
longer starting than drawing on a machine of two cores, as measured: see
``benchmarks/README.md``). A process with
other Python threads running (a notebook's kernel, a Dask client) is not forked, since a
lock one of them holds would stay held in the copy: such a process draws its figures
itself, as does a platform without ``fork``.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from types import TracebackType
from typing import Any

#: Environment variable: how many worker processes draw a report's figures (0: none).
WORKERS_VARIABLE = "BACCARAT_REPORT_WORKERS"
_PLACEHOLDER = re.compile(r"<!--figure (\d+)-->")


def default_workers() -> int:
    """Worker processes for a report: ``BACCARAT_REPORT_WORKERS`` if set, else one per core
    this process may use (two at most), or none on a single core."""
    given = os.environ.get(WORKERS_VARIABLE, "").strip()
    if given:
        try:
            return max(0, int(given))
        except ValueError:
            raise ValueError(f"{WORKERS_VARIABLE} must be a whole number of worker "
                             f"processes, not {given!r}") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(2, cores or 1) if (cores or 1) > 1 else 0


def can_fork() -> bool:
    """Whether worker processes may be forked from this one: the platform has ``fork`` and
    no other Python thread is running."""
    return ("fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1)


def _ready() -> None:
    """What a worker loads once, before its first figure."""
    from . import figures  # noqa: F401


def _start_worker(main_pid: int) -> None:
    """A figure worker dies with the command that started it, whatever ends the command
    (``kill -9`` included), and leaves Ctrl-C to it."""
    import signal

    from ..children import die_with

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with(main_pid)


class FigureDrawer:
    """Draws figures in worker processes (or here, with no workers) and fills them in.

    :meth:`draw` returns the figure's SVG text when drawing here, or a placeholder that
    :meth:`fill` replaces with it. Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = default_workers() if workers is None else max(0, workers)
        self._pool: ProcessPoolExecutor | None = None
        self._drawn: list[Future[str]] = []
        if self.workers and not can_fork():
            self.workers = 0
        if self.workers:
            _ready()  # the forked workers start with matplotlib loaded
            try:
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("fork"),
                    initializer=_start_worker, initargs=(os.getpid(),))
                for _ in range(self.workers):  # start every worker now, not at the first figure
                    self._pool.submit(_ready)
            except OSError:  # no processes to be had here (a sandbox): draw in this one
                self.close()
                self.workers = 0

    @property
    def submitted(self) -> int:
        """How many figures were handed to the workers so far."""
        return len(self._drawn)

    def draw(self, function: Callable[..., str], *args: Any, **kwargs: Any) -> str:
        """``function(*args, **kwargs)``'s SVG text, or the placeholder of the figure."""
        if self._pool is None:
            return function(*args, **kwargs)
        self._drawn.append(self._pool.submit(function, *args, **kwargs))
        return f"<!--figure {len(self._drawn) - 1}-->"

    def wait(self, count: int) -> None:
        """Wait until the first ``count`` figures handed out are drawn (errors raise here)."""
        for future in self._drawn[:count]:
            future.result()

    def fill(self, text: str) -> str:
        """``text`` with every placeholder replaced by its figure's SVG text."""
        if not self._drawn:
            return text
        return _PLACEHOLDER.sub(lambda m: self._drawn[int(m.group(1))].result(), text)

    def close(self) -> None:
        """Stop the workers (figures not yet drawn are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> FigureDrawer:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
