"""Chunk tasks run in this process, on a local process pool, or on a Dask cluster.

A long job (``generate``, ``backtest``) is cut into chunks of whole shoes. A chunk task is
a pure function of a small picklable description (the job, the chunk's shoe range) that
writes its own Parquet parts and returns small per-chunk figures, so nothing big travels
between processes and every backend writes the same files. A :class:`Backend` runs the
tasks; :func:`open_backend` picks one of three:

- :class:`InProcess`: in this process (``workers=1``);
- :class:`LocalPool`: the standard library's ``ProcessPoolExecutor`` (``workers=N``) on a
  ``forkserver`` context, its initializer importing the play modules; each worker holds
  its next chunk as it plays one. A worker process that dies (killed, out of memory)
  breaks the pool: the pool is recreated and the chunks that were in flight are run
  again, one at a time, so a chunk that kills its worker twice is known;
- ``DaskBackend`` (``baccarat.dask_backend``, the ``[dask]`` extra) on a Dask distributed
  cluster (``scheduler=ADDRESS``), with ``retries=1``; Dask itself reschedules the tasks
  of a worker it loses.

A chunk that fails twice stops the run with a ``ChunkFailed`` naming its shoes and the
cause. Bad input (a ``BaccaratError``, e.g. a strategy's impossible stake) is not retried:
it would fail the same way again. Parts already written stay; the output's owner says
whether ``--resume`` can finish (``baccarat.io.parquet.owned_output``).

Workers die with their run. A pool worker ends when the main process ends in any way
(kill -9 included): the kernel signals it when its parent (the fork server) dies, and a
watchdog thread ends it when the main process is gone (``baccarat.children.die_with``).
An interrupted run (SIGINT, SIGTERM) kills its workers at once. A worker's parts carry
the run's id in their staged name, and only the main process of that run renames them
into place, so nothing a worker of another (dead) run writes is ever taken as a part.

This module also holds the chunked ``generate`` job (``generate_dataset``).
"""

from __future__ import annotations

import errno
import importlib
import json
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import forkserver, resource_tracker
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import pyarrow.parquet as pq

from . import __version__
from .children import describe, die_with, signals_deferred, stray_threads
from .errors import BaccaratError, ChunkFailed
from .extras import require
from .rules import TableRules
from .task_progress import in_pool_worker, pool_channel, received, reporting, run_in_pool

#: Environment variable of the fault-injection hook the resilience tests use (see
#: ``inject_fault``); unset in normal use.
FAULT_ENV = "BACCARAT_TEST_FAULT"


@dataclass(frozen=True)
class Chunk:
    """A chunk of a job: its index and its range of shoes (ordinal positions, from 0)."""

    index: int
    first_shoe: int
    shoes: int

    def describe(self) -> str:
        """'chunk 3 (shoes 600-799)', for messages."""
        return (f"chunk {self.index} (shoes {self.first_shoe}-"
                f"{self.first_shoe + self.shoes - 1})")


def plan_chunks(n_shoes: int, shoes_per_chunk: int) -> list[Chunk]:
    """Cut ``n_shoes`` shoes into chunks of ``shoes_per_chunk`` (the last one shorter)."""
    if shoes_per_chunk < 1:
        raise BaccaratError(f"chunk_shoes must be at least 1, got {shoes_per_chunk}",
                            params=("chunk_shoes",))
    return [Chunk(i, start, min(shoes_per_chunk, n_shoes - start))
            for i, start in enumerate(range(0, n_shoes, shoes_per_chunk))]




def default_workers() -> int:
    """The cores this process may run on (the default ``--workers``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: Below this many shoes a process pool costs more to start than it saves: the default
#: (``workers=None``) then runs the chunks in this process.
SMALL_JOB_SHOES = 10_000


def resolve_workers(workers: int | None, shoes: int, scheduler: str | None = None) -> int:
    """``workers``, or for None all cores (one process for a job under SMALL_JOB_SHOES).

    Local workers are capped at the cores (``cap_workers``); with a Dask ``scheduler`` the
    cluster's workers run the chunks and ``workers`` is kept as given.
    """
    if workers is None:
        return default_workers() if shoes >= SMALL_JOB_SHOES else 1
    if workers < 1:
        raise BaccaratError(f"workers must be at least 1, got {workers}", params=("workers",))
    return workers if scheduler else cap_workers(workers)[0]


def cap_workers(workers: int) -> tuple[int, str | None]:
    """``workers`` capped at the cores this process may use, and a note when it was: more
    processes than cores only share them (and each costs its memory)."""
    cores = default_workers()
    if workers <= cores:
        return workers, None
    return cores, (f"--workers {workers} is more than the {cores} cores here: using {cores} "
                   f"(--scheduler runs chunks on a Dask cluster's workers instead)")


#: Seconds a pool's worker has to end once its tasks are done before it is stopped (one
#: that a strategy's stray thread keeps alive).
WORKER_EXIT_SECONDS = 2.0

#: Seconds to wait for a Dask scheduler to answer, and for a cluster without workers to get
#: one back, before the run stops.
CONNECT_TIMEOUT = 5.0
NO_WORKERS_TIMEOUT = 60.0


class Task(Protocol):
    """What a backend needs of a task besides being picklable: a name for messages."""

    def describe(self) -> str: ...


T = TypeVar("T", bound=Task)
R = TypeVar("R")
#: ``on_progress(task, counts)``: what a running task reported (``baccarat.task_progress``).
Progress = Callable[[T, tuple[int, ...]], None]
#: Tasks a local pool's worker holds at a time: the one it runs and the next.
QUEUED_PER_WORKER = 2
#: How often a pool's run reads its workers' progress reports.
PROGRESS_SECONDS = 0.1


def fault_spec() -> str | None:
    """The driver's ``$BACCARAT_TEST_FAULT``, read when a job starts and shipped with its
    tasks (worker processes do not share the driver's environment)."""
    return os.environ.get(FAULT_ENV) or None


def inject_fault(index: int, spec: str | None, *, written: bool = False) -> None:
    """Test hook: make chunk ``index`` fail as ``spec`` (from ``fault_spec``) says.

    The value is ``CHUNK:ACTION`` or ``CHUNK:ACTION:MARKER``. ACTION ``exit`` ends the
    process at once (as a kill would: no cleanup), ``raise`` raises "no space left on
    device" (as a full disk would); both when the chunk starts. ``hang`` happens once the
    chunk's parts are staged (``written``): the worker then waits until it is stopped, as
    one still writing when its run is interrupted would. With MARKER (a file path) the
    fault happens only while that file does not exist, and creates it: the chunk fails
    once, then succeeds.
    """
    if not spec:
        return
    chunk, action, *marker = spec.split(":", 2)
    if int(chunk) != index or (action == "hang") != written:
        return
    if marker:
        try:
            with open(marker[0], "x"):
                pass
        except FileExistsError:
            return
    if action == "exit":
        os._exit(70)
    if action == "raise":
        raise OSError(errno.ENOSPC, f"No space left on device (injected in chunk {index})")
    if action == "hang":
        time.sleep(3600)
        return
    raise ValueError(f"{FAULT_ENV}: unknown action {action!r}")


#: What a pool's worker imports as it starts, before its first task: the play modules.
PLAY_MODULES = ("baccarat.backtest", "baccarat.strategies.presets", "numba")


def _init_worker(main_pid: int, channel: Any = None) -> None:
    """A pool worker's start: die with the run (``baccarat.children.die_with``), leave
    Ctrl-C to the main process, report its tasks' progress on ``channel``, and import the
    play modules."""
    global IN_POOL_WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with(main_pid)
    in_pool_worker(channel)
    IN_POOL_WORKER = True
    for module in PLAY_MODULES:
        importlib.import_module(module)


#: Whether this process is a worker of a local pool (set by its initializer).
IN_POOL_WORKER = False


def worker_stray_threads() -> list[str]:
    """In a pool's worker, the threads a task left running that would keep the worker
    alive (named for the command's warning); [] anywhere else."""
    if not IN_POOL_WORKER:
        return []
    return sorted(set(describe(thread) for thread in stray_threads()))


class Backend(Protocol):
    """Where tasks run. Used as a context, it keeps its workers (or its Dask client) for
    every ``run`` inside, so the phases of a job (the chunks, then the summary) share
    workers started once. The context may be entered again inside the first (around the
    work on an output it owns), so that the workers are stopped before the claim on the
    output ends. ``workers`` and ``scheduler`` are what the run records of it."""

    workers: int
    scheduler: str | None

    def elsewhere(self, tasks: int) -> bool:
        """Whether ``tasks`` tasks would run in other processes (and so must be
        picklable)."""
        ...

    def connect(self) -> None:
        """Reach the cluster now, if there is one, so a run that cannot stops before it
        writes anything."""
        ...

    def release(self) -> None:
        """Stop the local workers now (their memory with them); a later ``run`` starts
        new ones."""
        ...

    def run(self, func: Callable[[T], R], tasks: Sequence[T],
            on_done: Callable[[T, R], None] | None = None,
            on_progress: Progress[T] | None = None) -> None:
        """Run ``func`` over ``tasks``; ``on_done(task, result)`` as each one finishes.

        ``func`` must be a module-level function and the tasks picklable for the pool and
        Dask. Results arrive in completion order (tasks write their own files, so the
        order does not change the output). ``on_progress(task, counts)``: what a running
        task reports (``baccarat.task_progress``), in this thread, wherever the task runs,
        before its result; nothing of a task whose result has arrived."""
        ...

    def __enter__(self) -> Backend: ...

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None: ...


class InProcess:
    """Tasks run one after the other in this process."""

    workers: int = 1
    scheduler: str | None = None

    def elsewhere(self, tasks: int) -> bool:
        return False

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        pass

    def connect(self) -> None:
        pass

    def release(self) -> None:
        pass

    def run(self, func: Callable[[T], R], tasks: Sequence[T],
            on_done: Callable[[T, R], None] | None = None,
            on_progress: Progress[T] | None = None) -> None:
        _run_here(func, tasks, on_done or (lambda task, result: None), on_progress)


class LocalPool:
    """Tasks run on ``workers`` processes of the standard library's process pool, forked
    from a fork server (``multiprocessing``'s ``forkserver`` context)."""

    scheduler: str | None = None

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._processes: list[Any] = []  # the pool's worker processes, as they start
        self._channel: Any = None  # the pool's workers' progress reports
        self._running: dict[Future[Any], int] = {}  # the tasks in flight

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        # After an error, start no more tasks; let the running ones finish (their parts are
        # valid) unless the user interrupted the run: then the workers are killed now.
        interrupted = exc_type is not None and issubclass(exc_type, KeyboardInterrupt)
        self._close_pool(kill=interrupted)

    def elsewhere(self, tasks: int) -> bool:
        return tasks > 1  # a single task runs here

    def connect(self) -> None:
        pass

    def release(self) -> None:
        self._close_pool(kill=False)

    def run(self, func: Callable[[T], R], tasks: Sequence[T],
            on_done: Callable[[T, R], None] | None = None,
            on_progress: Progress[T] | None = None) -> None:
        callback = on_done or (lambda task, result: None)
        if len(tasks) > 1:
            self._run_pool(func, tasks, callback, on_progress)
        else:
            _run_here(func, tasks, callback, on_progress)

    def _new_pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        # The fork server (and so every worker forked from it) starts with Ctrl-C blocked
        # (a signal mask is inherited across fork and exec): Ctrl-C at a terminal reaches
        # the whole process group, and is the main process's to handle (a server hit while
        # starting printed a traceback). Blocked, not ignored: ignoring it here as well
        # lost a Ctrl-C that came meanwhile, and the run went on. The resource tracker
        # first, on its own: starting it unblocks SIGINT in this thread once it runs.
        with held_back(signal.SIGINT):
            resource_tracker.ensure_running()
        # The server imports the play modules once; each worker forked from it starts
        # with them (multiprocessing's own preload, before the server's first fork).
        context.set_forkserver_preload(list(PLAY_MODULES))
        with held_back(signal.SIGINT):
            forkserver.ensure_running()
        # A pool of its own each time: a worker killed while writing a report could leave
        # the channel's lock taken, and a broken pool is never used again.
        self._channel = pool_channel(context)
        self._processes = []
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                   initializer=_init_worker,
                                   initargs=(os.getpid(), self._channel))

    def _submit(self, *args: Any) -> Future[Any]:
        """Submit a task; the worker processes it starts are noted (not interrupted half
        way: a worker started but not yet noted would outlive the pool, and find the
        pool's semaphores gone)."""
        assert self._pool is not None
        with signals_deferred(signal.SIGINT, signal.SIGTERM):
            before = set(multiprocessing.active_children())
            future = self._pool.submit(*args)
            self._processes += [p for p in multiprocessing.active_children()
                                if p not in before]
        return future

    def _close_pool(self, kill: bool) -> None:
        """Stop the pool: its workers killed now (``kill``), or once the tasks running are
        done, each with ``WORKER_EXIT_SECONDS`` to end before it is stopped (a worker a
        strategy's stray thread keeps alive would keep the pool waiting for ever)."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        if kill:
            for process in self._processes:
                process.kill()
        # shutdown(wait=True) returns once the pool's manager thread has seen every worker
        # end: run it beside, and stop the workers that do not end in time.
        closing = threading.Thread(target=pool.shutdown,
                                   kwargs={"wait": True, "cancel_futures": True},
                                   name="baccarat-pool-shutdown", daemon=True)
        closing.start()
        if not kill:
            running = [future for future in self._running if not future.done()]
            while running and any(p.is_alive() for p in self._processes):
                wait(running, timeout=0.05)
                running = [future for future in running if not future.done()]
            deadline = time.monotonic() + WORKER_EXIT_SECONDS
            for process in self._processes:
                process.join(max(0.0, deadline - time.monotonic()))
        for process in self._processes:
            if process.is_alive():
                process.kill()
            process.join()
        closing.join()

    def _run_pool(self, func: Callable[[T], R], tasks: Sequence[T],
                  on_done: Callable[[T, R], None], on_progress: Progress[T] | None) -> None:
        """At most two tasks per worker in flight: each worker has its next task queued
        as it finishes one (no wait for this process to hear of it and send another),
        and a broken pool is blamed only on the tasks in flight; those are rerun one at
        a time in a new pool."""
        stamp = f"{os.getpid()}-{time.monotonic_ns()}"

        def progressed() -> None:  # the reports of the tasks still running, in order
            if on_progress is None or self._channel is None:
                return
            for (run, i), counts in received(self._channel):
                if run == stamp and i in running.values():
                    on_progress(tasks[i], counts)

        pending: deque[int] = deque(range(len(tasks)))
        suspects: deque[int] = deque()
        failures = [0] * len(tasks)
        running: dict[Future[R], int] = {}
        self._running = running  # what closing the pool waits for
        if self._pool is None:
            self._pool = self._new_pool()
        while pending or suspects or running:
            limit = 1 if suspects or any(failures[i] for i in running.values()) \
                else QUEUED_PER_WORKER * self.workers
            while len(running) < limit and (suspects or pending):
                queue = suspects if suspects else pending
                i = queue.popleft()
                try:
                    future = self._submit(func, tasks[i]) if on_progress is None \
                        else self._submit(run_in_pool, func, tasks[i], (stamp, i))
                    running[future] = i
                except BrokenProcessPool:  # a worker died since the last wait: not task i
                    queue.appendleft(i)
                    if not running:  # nothing of ours went down with it: a new pool
                        self._close_pool(kill=False)
                        self._pool = self._new_pool()
                    break  # else the running tasks' futures report the broken pool
            done, _ = wait(list(running), return_when=FIRST_COMPLETED,
                           timeout=None if on_progress is None else PROGRESS_SECONDS)
            progressed()
            broken: list[int] = []
            for future in done:
                i = running.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken.append(i)
                    continue
                except BaccaratError:
                    raise
                except Exception as exc:
                    failures[i] += 1
                    if failures[i] >= 2:
                        raise _failed(tasks[i], _cause(exc)) from exc
                    suspects.append(i)
                    continue
                on_done(tasks[i], result)
            if broken:
                broken.extend(running.values())  # the whole pool went down with it
                running.clear()
                self._close_pool(kill=False)
                for i in broken:
                    failures[i] += 1
                    if failures[i] >= 2:
                        raise _failed(tasks[i], _DIED)
                suspects.extend(sorted(broken))
                self._pool = self._new_pool()



def open_backend(workers: int = 1, scheduler: str | None = None, *,
                 connect_timeout: float = CONNECT_TIMEOUT,
                 no_workers_timeout: float = NO_WORKERS_TIMEOUT) -> Backend:
    """The backend for ``workers`` local processes, or the Dask cluster at ``scheduler``
    (which waits ``connect_timeout`` s for the scheduler and ``no_workers_timeout`` s for
    a worker; see ``baccarat.dask_backend``)."""
    if scheduler:
        require("distributed", "scheduler")
        from .dask_backend import DaskBackend

        return DaskBackend(scheduler, workers, connect_timeout=connect_timeout,
                           no_workers_timeout=no_workers_timeout)
    return LocalPool(workers) if workers > 1 else InProcess()


def run_tasks(func: Callable[[T], R], tasks: Sequence[T], *, workers: int = 1,
              scheduler: str | None = None,
              on_done: Callable[[T, R], None] | None = None) -> None:
    """Run ``func`` over ``tasks`` on a backend of its own (see ``Backend.run``)."""
    with open_backend(workers, scheduler) as backend:
        backend.run(func, tasks, on_done)


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


def _failed(task: Task, cause: str) -> ChunkFailed:
    return ChunkFailed(f"{task.describe()} failed twice; the run stops. Cause: {cause}")


def _cause(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


_DIED = "its worker process died (killed, or out of memory) while running it"


def _run_here(func: Callable[[T], R], tasks: Sequence[T],
              on_done: Callable[[T, R], None], on_progress: Progress[T] | None = None) -> None:
    for task in tasks:
        for attempt in (1, 2):
            try:
                report = None if on_progress is None else \
                    (lambda *counts, task=task: on_progress(task, counts))  # type: ignore[misc]
                with reporting(report):
                    result = func(task)
                break
            except BaccaratError:
                raise
            except Exception as exc:
                if attempt == 2:
                    raise _failed(task, _cause(exc)) from exc
        on_done(task, result)


# --- The chunked generate job ---------------------------------------------------------------


@dataclass(frozen=True)
class GenerateTask:
    """One chunk of ``generate_dataset``: shoes to shuffle and deal, and where to write."""

    chunk: Chunk
    folder: str
    rules: TableRules
    seed: int
    metadata: dict[str, Any]
    fault: str | None = None
    shuffle: Any = None  # an baccarat.shuffles.ShuffleModel; None: uniform
    run_id: str = ""      # the run that planned the chunk: its part is staged under this id

    def describe(self) -> str:
        """The chunk, for messages."""
        return self.chunk.describe()


def generate_chunk(task: GenerateTask) -> tuple[int, str, dict[str, Any]]:
    """Shuffle and deal the chunk's shoes, write them as its (staged) part; returns the
    coups, the staged part, which the run renames into place, and the part's record
    (rows, bytes, checksum)."""
    from .deal import generate_coups
    from .io.parquet import part_record, write_part

    chunk = task.chunk
    inject_fault(chunk.index, task.fault)
    ids = np.arange(chunk.first_shoe, chunk.first_shoe + chunk.shoes, dtype=np.int64)
    if task.shuffle is None:
        coups = generate_coups(task.rules, task.seed, ids)
    else:
        from .shuffles import generate_model_coups
        coups = generate_model_coups(task.rules, task.seed, ids, task.shuffle)
    staged = write_part([coups.to_arrow()], task.folder, chunk.index, task.metadata,
                        run_id=task.run_id or None)
    inject_fault(chunk.index, task.fault, written=True)
    return len(coups), str(staged), part_record(staged)


DEFAULT_GENERATE_CHUNK = 50_000


def generate_dataset(
    out: str | Path,
    *,
    shoes: int,
    seed: int = 0,
    rules: TableRules | None = None,
    chunk_shoes: int | None = None,
    workers: int | None = 1,
    scheduler: str | None = None,
    force: bool = False,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    shuffle: Any = None,
    backend_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Generate ``shoes`` shoes from ``seed`` into the coups folder ``out``, chunk by chunk.

    ``out`` becomes a folder of parts (``part-NNNNN.parquet``, ``chunk_shoes`` shoes each)
    that pandas, pyarrow, DuckDB and ``read_coups`` read as one table; ``_dataset.json``
    is written last and describes it. An existing ``out`` is replaced only with ``force``;
    ``resume`` finishes an interrupted run (same arguments; the chunk size defaults to the
    one it started with). ``workers`` processes run the chunks (None: all cores for a big
    job), or the Dask cluster at ``scheduler``. ``progress(coups, shoes)`` is called as
    chunks finish. ``shuffle`` (an :class:`baccarat.shuffles.ShuffleModel`) deals the shoes
    from a real shuffle's model; None or uniform: the uniform shoes, unchanged.
    ``backend_options`` go to ``open_backend`` (Dask timeouts). Returns the
    ``_dataset.json`` document.
    """
    from .io.parquet import (
        DATASET_FILE,
        accept_part,
        coups_metadata,
        finish_output,
        owned_output,
        part_name,
        read_plan,
        verified_parts,
    )

    rules = rules or TableRules()
    if shoes < 1:
        raise BaccaratError(f"shoes must be at least 1, got {shoes}", params=("shoes",))
    workers = resolve_workers(workers, shoes, scheduler)
    folder = Path(out)
    if chunk_shoes is None:
        stored = read_plan(folder) if resume and folder.is_dir() else None
        chunk_shoes = int((stored or {}).get("chunk_shoes") or DEFAULT_GENERATE_CHUNK)
    chunks = plan_chunks(shoes, chunk_shoes)
    if shuffle is not None and shuffle.kind == "uniform":
        shuffle = None
    model = {} if shuffle is None else {"shuffle": shuffle.to_dict(),
                                        "table_shoes": shuffle.table_shoes
                                        if shuffle.kind == "riffle" else None}
    metadata = coups_metadata(rules, source="generated", seed=seed, shoes=shoes, **model)
    plan = {"job": "generate", "version": __version__, "kind": "coups",
            "rules": rules.model_dump(), "seed": seed, "shoes": shoes,
            "chunk_shoes": chunk_shoes, "chunks": len(chunks), **model}
    with open_backend(workers, scheduler, **(backend_options or {})) as backend:
        backend.connect()  # a scheduler out of reach stops the run before anything is made
        # The workers stop before the folder's claim ends (see baccarat.backtest.backtest).
        with owned_output(folder, plan, force=force, resume=resume,
                          complete=DATASET_FILE) as output, backend:
            if output.state == "complete":
                return dict(json.loads((folder / DATASET_FILE).read_text()))
            started = time.perf_counter()
            done = verified_parts(output) if output.state == "resume" else set()
            coups_by_chunk: dict[int, int] = {}
            for chunk in chunks:
                if chunk.index in done:
                    coups_by_chunk[chunk.index] = pq.ParquetFile(
                        folder / part_name(chunk.index)).metadata.num_rows
                    if progress is not None:
                        progress(coups_by_chunk[chunk.index], chunk.shoes)
            fault = fault_spec()
            tasks = [GenerateTask(c, str(folder.absolute()), rules, seed, metadata, fault,
                                  shuffle, output.run_id)
                     for c in chunks if c.index not in done]

            def record(task: GenerateTask, result: tuple[int, str, dict[str, Any]]) -> None:
                coups, staged, written = result
                accept_part(staged, output.run_id, written, output.log)
                coups_by_chunk[task.chunk.index] = coups
                if progress is not None:
                    progress(coups, task.chunk.shoes)

            backend.run(generate_chunk, tasks, record)
            document = {**plan, **metadata, "coups": int(sum(coups_by_chunk.values())),
                        "resumed_chunks": len(done),
                        "seconds": round(time.perf_counter() - started, 3)}
            finish_output(folder, DATASET_FILE, document)
    return document


__all__ = ["Backend", "CONNECT_TIMEOUT", "Chunk", "FAULT_ENV", "GenerateTask", "InProcess",
           "LocalPool", "NO_WORKERS_TIMEOUT", "SMALL_JOB_SHOES", "cap_workers",
           "default_workers", "fault_spec", "generate_chunk", "generate_dataset",
           "inject_fault", "open_backend", "plan_chunks", "resolve_workers", "run_tasks"]
