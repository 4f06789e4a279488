"""Progress from inside a task, wherever it runs: this process, a pool's worker, a Dask worker.

A chunk of a long job (a backtest's chunk of 20,000 shoes) can take seconds; a progress
bar that moves only when chunks end sits at 0 for all that time. So a task tells its run
how far it has come: ``report = task_progress()`` (None when nobody listens), then
``report(*counts)`` with the task's counts so far (a backtest chunk: its coups and its
sessions played). The ``baccarat.parallel.Backend`` running the task carries the counts to
the main process and hands them to its ``on_progress(task, counts)`` there, in the main
thread, before the task's own result:

- in this process, directly;
- from a pool's worker, over a pipe the pool's workers share (``pool_channel``; each
  report written whole before the task returns, so it is read before the result);
- from a Dask worker, as an event of a topic of the run's own (``Worker.log_event``),
  which the scheduler forwards to the client in the order it was sent.

``Steps`` says which steps of a task are worth a report: about every sixteenth of its
steps, and at least every tenth of a second.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Report = Callable[..., None]

_local = threading.local()


def task_progress() -> Report | None:
    """In a task a Backend runs: ``report(*counts)`` telling the run how far the task has
    come (its counts so far); None when nothing listens."""
    return getattr(_local, "report", None)


@contextmanager
def reporting(report: Report | None) -> Iterator[None]:
    """Tasks run in the block (in this thread) report to ``report``."""
    previous = getattr(_local, "report", None)
    _local.report = report
    try:
        yield
    finally:
        _local.report = previous


class Steps:
    """Which of a task's ``total`` steps to report: one that completes another sixteenth
    of them, or the first one a tenth of a second after the last report (a slow plugin's
    chunk moves the bar as it goes; a fast one sends at most sixteen reports)."""

    SHARES = 16
    SECONDS = 0.1

    def __init__(self, total: int) -> None:
        self.every = max(total // self.SHARES, 1)
        self.last_step = 0
        self.last_time = time.perf_counter()

    def due(self, step: int) -> bool:
        now = time.perf_counter()
        if step - self.last_step < self.every and now - self.last_time < self.SECONDS:
            return False
        self.last_step, self.last_time = step, now
        return True


# -- a pool's workers: one pipe they all write to ----------------------------------------------

_pool_queue: Any = None


def pool_channel(context: Any) -> Any:
    """The channel a pool's workers report on (give it to ``in_pool_worker``)."""
    return context.SimpleQueue()


def in_pool_worker(channel: Any) -> None:
    """In a pool's worker (its initializer): report on ``channel``."""
    global _pool_queue
    _pool_queue = channel


def run_in_pool(func: Callable[[Any], Any], task: Any, key: tuple[str, int]) -> Any:
    """Run ``func(task)`` in a pool's worker, its reports sent as ``(key, counts)``."""
    channel = _pool_queue
    if channel is None:  # pragma: no cover - a pool made without a channel
        return func(task)
    with reporting(lambda *counts: channel.put((key, counts))):
        return func(task)


def received(channel: Any) -> Iterator[tuple[Any, tuple[int, ...]]]:
    """The reports waiting on ``channel`` (a pool's, or a ``queue.SimpleQueue`` the Dask
    events are put on), without waiting for more."""
    while True:
        if isinstance(channel, queue.SimpleQueue):
            try:
                key, counts = channel.get_nowait()
            except queue.Empty:
                return
        elif channel.empty():
            return
        else:
            key, counts = channel.get()
        yield key, tuple(counts)


# -- a Dask worker: events of the run's topic --------------------------------------------------

def run_on_dask(func: Callable[[Any], Any], task: Any, topic: str, index: int) -> Any:
    """Run ``func(task)`` on a Dask worker, its reports logged as events of ``topic``."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):  # pragma: no cover - not on a worker after all
        return func(task)
    with reporting(lambda *counts: worker.log_event(topic, (index, list(counts)))):
        return func(task)


def dask_listener(events: queue.SimpleQueue[Any]) -> Callable[[Any], None]:
    """The client's handler of the topic's events: each ``(index, counts)`` put on
    ``events`` (it runs on the client's event loop; the main thread reads them)."""

    def handle(event: Any) -> None:
        _, message = event
        index, counts = message
        events.put((int(index), tuple(int(c) for c in counts)))

    return handle
