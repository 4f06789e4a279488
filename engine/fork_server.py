"""The fork server a local pool's workers are forked from, started as early as a command
knows it will want workers.

A pool's worker is forked from a server process that has imported the engine and numba
once (``PRELOAD``): half a second to a second of a core. A command that starts the
server as its first step (``warm_workers``, from ``baccarat.cli``) has it ready about
when its chunks are planned, so its workers start playing at once instead of that much
later. The module imports nothing heavy, so that starting the server waits for nothing.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.context import BaseContext

#: What the server imports once, before it forks any worker.
PRELOAD = ["baccarat.backtest", "baccarat.parallel", "baccarat.strategies.presets", "numba"]


def default_workers() -> int:
    """The cores this process may run on (the default ``--workers``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: Below this many shoes a process pool costs more to start than it saves: the default
#: (``workers=None``) then runs the chunks in this process.
SMALL_JOB_SHOES = 10_000


def start_fork_server() -> BaseContext:
    """Start this process's fork server (and multiprocessing's resource tracker) unless
    they run already; returns the context a pool forks its workers from. Cheap once
    started: the server is shared by every pool of the process; a worker imports anything
    else it needs itself."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    # The fork server (and so every worker forked from it) starts with Ctrl-C held
    # back: Ctrl-C at a terminal reaches the whole process group, and is the main
    # process's to handle (a server or worker hit while starting printed a traceback).
    with held_back(signal.SIGINT), _ignored_by_children(signal.SIGINT):
        from multiprocessing import forkserver, resource_tracker

        resource_tracker.ensure_running()
        forkserver.ensure_running()
    return context


def likely_pool(workers: int | None, *, scheduler: str | None = None,
                shoes: int | None = None, dataset_bytes: int = 0) -> bool:
    """Whether a job will most likely run on a local pool: ``workers`` above 1, or left
    to the default (None) with a big job (``shoes`` generated, or a stored dataset of
    ``dataset_bytes``); never with a Dask ``scheduler``, nor on one core."""
    if scheduler or default_workers() < 2 or (workers is not None and workers < 2):
        return False
    return workers is not None or (shoes or 0) >= SMALL_JOB_SHOES or \
        dataset_bytes >= SMALL_JOB_BYTES


def warm_workers(workers: int | None, *, scheduler: str | None = None,
                 shoes: int | None = None, dataset_bytes: int = 0) -> None:
    """Start the fork server now if the job will most likely run a local pool
    (``likely_pool``)."""
    if likely_pool(workers, scheduler=scheduler, shoes=shoes, dataset_bytes=dataset_bytes):
        start_fork_server()


#: A stored dataset at least this big (about 10,000 shoes of coups) most likely makes a
#: job the default runs on a pool.
SMALL_JOB_BYTES = 4 << 20


@contextmanager
def held_back(*signals: signal.Signals) -> Iterator[None]:
    """Hold ``signals`` back in this thread for the block: one that arrives meanwhile is
    delivered (its handler run) when the block ends. Processes started in the block start
    with them held back too."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(signals))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextmanager
def _ignored_by_children(signum: signal.Signals) -> Iterator[None]:
    """Processes started in the block (with ``exec``) ignore ``signum`` from their first
    instruction (an ignored signal stays ignored across ``exec``; Python then installs no
    handler of its own). Used with ``held_back``, so that this process loses none."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signum, previous)


__all__ = ["PRELOAD", "SMALL_JOB_SHOES", "default_workers", "held_back", "likely_pool",
           "start_fork_server", "warm_workers"]
