"""Chunk tasks run in this process, on a local process pool, or on a Dask cluster.

A long job (``generate``, ``backtest``) is cut into chunks of whole shoes. A chunk task is
a pure function of a small picklable description (the job, the chunk's shoe range) that
writes its own Parquet parts and returns small per-chunk figures, so nothing big travels
between processes and every backend writes the same files. A ``Backend`` runs the tasks:

- in this process (``workers=1``, or a single chunk);
- on a ``concurrent.futures`` process pool (``workers=N``), each worker holding its next
  chunk as it plays one. A worker process that dies (killed, out of memory) breaks the
  pool: the pool is recreated and the chunks that were in flight are run again, one at a
  time, so a chunk that kills its worker twice is known;
- on a Dask distributed cluster (``scheduler=ADDRESS``), with ``retries=1``; Dask itself
  reschedules the tasks of a worker it loses.

A chunk that fails twice stops the run with a ``ChunkFailed`` naming its shoes and the
cause. Bad input (a ``BaccaratError``, e.g. a strategy's impossible stake) is not retried:
it would fail the same way again. Parts already written stay; the output's owner says
whether ``--resume`` can finish (``baccarat.io.parquet.owned_output``).

Workers die with their run. A pool worker ends when the main process ends in any way
(kill -9 included): the kernel signals it when its parent (the fork server) dies, and a
watchdog thread ends it when the main process is gone. An interrupted run (SIGINT,
SIGTERM) kills its workers at once. A worker's parts carry the run's id in their staged
name, and only the main process of that run renames them into place, so nothing a worker
of another (dead) run writes is ever taken as a part.

This module also holds the chunked ``generate`` job (``generate_dataset``).
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import pyarrow.parquet as pq

from . import __version__
from .children import describe, die_with, stray_threads
from .errors import BaccaratError, ChunkFailed
from .fork_server import SMALL_JOB_SHOES, default_workers, held_back, start_fork_server
from .rules import TableRules
from .task_progress import (
    dask_listener,
    in_pool_worker,
    pool_channel,
    received,
    reporting,
    run_in_pool,
    run_on_dask,
)

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
        raise BaccaratError(f"--chunk must be at least 1, got {shoes_per_chunk}")
    return [Chunk(i, start, min(shoes_per_chunk, n_shoes - start))
            for i, start in enumerate(range(0, n_shoes, shoes_per_chunk))]


def resolve_workers(workers: int | None, shoes: int, scheduler: str | None = None) -> int:
    """``workers``, or for None all cores (one process for a job under SMALL_JOB_SHOES).

    Local workers are capped at the cores (``cap_workers``); with a Dask ``scheduler`` the
    cluster's workers run the chunks and ``workers`` is kept as given.
    """
    if workers is None:
        return default_workers() if shoes >= SMALL_JOB_SHOES else 1
    if workers < 1:
        raise BaccaratError(f"--workers must be at least 1, got {workers}")
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


def _init_worker(main_pid: int, channel: Any = None) -> None:
    """Make a pool worker die with its run (``baccarat.children.die_with``), leave Ctrl-C
    to the main process, and report its tasks' progress on ``channel``."""
    global IN_POOL_WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with(main_pid)
    in_pool_worker(channel)
    IN_POOL_WORKER = True


#: Whether this process is a worker of a local pool (set by its initializer).
IN_POOL_WORKER = False


def worker_stray_threads() -> list[str]:
    """In a pool's worker, the threads a task left running that would keep the worker
    alive (named for the command's warning); [] anywhere else."""
    if not IN_POOL_WORKER:
        return []
    return sorted(set(describe(thread) for thread in stray_threads()))


class Backend:
    """Where tasks run: this process, a local process pool, or a Dask cluster.

    Used as a context, it keeps its pool (or its Dask client) for every ``run`` inside, so
    the phases of a job (the chunks, then the summary) share workers started once. The
    context may be entered again inside the first (around the work on an output it
    owns), so that the workers are stopped before the claim on the output ends.
    """

    def __init__(self, workers: int = 1, scheduler: str | None = None, *,
                 connect_timeout: float = CONNECT_TIMEOUT,
                 no_workers_timeout: float = NO_WORKERS_TIMEOUT) -> None:
        self.workers = workers
        self.scheduler = scheduler
        self.connect_timeout = connect_timeout
        self.no_workers_timeout = no_workers_timeout
        self._pool: ProcessPoolExecutor | None = None
        self._channel: Any = None  # the pool's workers' progress reports
        self._client: Any = None

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        # After an error, start no more tasks; let the running ones finish (their parts are
        # valid) unless the user interrupted the run: then the workers are killed now.
        interrupted = exc_type is not None and issubclass(exc_type, KeyboardInterrupt)
        self._close_pool(wait=not interrupted, kill=interrupted)
        if self._client is not None:
            client, self._client = self._client, None
            if interrupted:
                try:
                    client.cancel(list(client.futures.values()), force=True)
                except Exception:  # pragma: no cover - the cluster is going away anyway
                    pass
            try:
                client.close(timeout=2)
            except Exception:  # pragma: no cover - a scheduler gone: nothing to close
                pass

    def connect(self) -> None:
        """Connect to the Dask scheduler now (nothing for local backends), so that a run
        which cannot reach it stops before it writes anything. Gives up after
        ``connect_timeout`` seconds with one clear line."""
        if not self.scheduler or self._client is not None:
            return
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - dask is in the dev install
            raise BaccaratError("--scheduler needs Dask: pip install "
                                "'baccarat-backtest[dask]'") from None
        problem = _probe_scheduler(self.scheduler, self.connect_timeout)
        if problem is None:
            try:
                self._client = Client(self.scheduler, timeout=self.connect_timeout,
                                      set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                problem = str(exc) or type(exc).__name__
        if problem is not None:
            raise BaccaratError(f"cannot reach the Dask scheduler at {self.scheduler!r}: "
                                f"{problem} (--scheduler-timeout sets how long to wait; "
                                f"now {self.connect_timeout:g} s)")

    def release(self) -> None:
        """Stop the local workers now (their memory with them); a later ``run`` starts new
        ones. A Dask cluster's workers are not ours to stop."""
        self._close_pool(wait=True)

    @property
    def parallel(self) -> bool:
        """Whether tasks run in other processes (and so must be picklable)."""
        return bool(self.scheduler) or self.workers > 1

    def run(self, func: Callable[[T], R], tasks: Sequence[T],
            on_done: Callable[[T, R], None] | None = None,
            on_progress: Progress[T] | None = None) -> None:
        """Run ``func`` over ``tasks``; ``on_done(task, result)`` as each one finishes.

        ``func`` must be a module-level function and the tasks picklable for the pool and
        Dask. Results arrive in completion order (tasks write their own files, so the
        order does not change the output). ``on_progress(task, counts)``: what a running
        task reports (``baccarat.task_progress``), in this thread, wherever the task runs,
        before its result; nothing of a task whose result has arrived.
        """
        callback = on_done or (lambda task, result: None)
        if not tasks:
            return
        if self.scheduler:
            self._run_dask(func, tasks, callback, on_progress)
        elif self.workers > 1 and len(tasks) > 1:
            self._run_pool(func, tasks, callback, on_progress)
        else:
            _run_here(func, tasks, callback, on_progress)

    def _new_pool(self) -> ProcessPoolExecutor:
        context = start_fork_server()
        # A pool of its own each time: a worker killed while writing a report could leave
        # the channel's lock taken, and a broken pool is never used again.
        self._channel = pool_channel(context)
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                   initializer=_init_worker,
                                   initargs=(os.getpid(), self._channel))

    def _close_pool(self, wait: bool, kill: bool = False) -> None:
        if self._pool is None:
            return
        # The pool keeps its processes and its manager thread private: no public way.
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        manager = getattr(self._pool, "_executor_manager_thread", None)
        if kill:
            for process in processes:
                process.kill()
            for process in processes:  # gone before anything they wrote is cleared
                process.join()
        elif wait:
            # A worker ends once its tasks are done, unless a strategy left a thread
            # running in it (not a daemon): Python then waits for that thread for ever,
            # and so would the pool. So the tasks running are waited for, then each
            # worker has a grace period to end before it is stopped.
            self._pool.shutdown(wait=False, cancel_futures=True)
            pending = getattr(self._pool, "_pending_work_items", None) or {}
            while pending and any(process.is_alive() for process in processes):
                time.sleep(0.01)
            deadline = time.monotonic() + WORKER_EXIT_SECONDS
            for process in processes:
                process.join(max(0.0, deadline - time.monotonic()))
            for process in processes:
                if process.is_alive():
                    process.kill()
        # Killed workers end at once, so wait for the pool's manager thread then too:
        # left running, it can meet interpreter exit with its wake-up pipe closed and
        # print a traceback (a race in Python's concurrent.futures before 3.12).
        self._pool.shutdown(wait=wait or kill, cancel_futures=True)
        if manager is not None and (wait or kill):  # the first shutdown let go of it
            manager.join()
        self._pool = None

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
        if self._pool is None:
            self._pool = self._new_pool()
        while pending or suspects or running:
            limit = 1 if suspects or any(failures[i] for i in running.values()) \
                else QUEUED_PER_WORKER * self.workers
            while len(running) < limit and (suspects or pending):
                queue = suspects if suspects else pending
                i = queue.popleft()
                try:
                    # Not interrupted half way: a worker started but not yet registered
                    # would outlive the pool (and find its semaphores gone).
                    with held_back(signal.SIGINT, signal.SIGTERM):
                        future = self._pool.submit(func, tasks[i]) if on_progress is None \
                            else self._pool.submit(run_in_pool, func, tasks[i], (stamp, i))
                    running[future] = i
                except BrokenProcessPool:  # a worker died since the last wait: not task i
                    queue.appendleft(i)
                    if not running:  # nothing of ours went down with it: a new pool
                        self._close_pool(wait=True)
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
                self._close_pool(wait=True)
                for i in broken:
                    failures[i] += 1
                    if failures[i] >= 2:
                        raise _failed(tasks[i], _DIED)
                suspects.extend(sorted(broken))
                self._pool = self._new_pool()

    def _run_dask(self, func: Callable[[T], R], tasks: Sequence[T],
                  on_done: Callable[[T, R], None], on_progress: Progress[T] | None) -> None:
        self.connect()
        client = self._client
        stamp = f"{os.getpid()}-{time.monotonic_ns()}"
        topic = f"baccarat-progress-{stamp}"
        events: queue.SimpleQueue[Any] = queue.SimpleQueue()
        if on_progress is not None:  # subscribed before any task is sent
            client.subscribe_topic(topic, dask_listener(events))
        # Dask retries a task on any exception; bad input (a strategy's error above all)
        # fails the same way every time, so it comes back as a value, never retried.
        futures = {client.submit(_bad_input_returned, func, task,
                                 topic if on_progress is not None else None, i,
                                 retries=1, pure=False, key=f"baccarat-{i}-{stamp}"): task
                   for i, task in enumerate(tasks)}
        pending = list(futures)
        index = {future: i for i, future in enumerate(futures)}
        alone_since: float | None = None
        try:
            while pending:
                # Polled, not awaited: Ctrl-C is seen at once, and so is a cluster left
                # without workers.
                finished = [future for future in pending if future.done()]
                if on_progress is not None:  # what they sent before they finished too
                    running = {index[future] for future in pending}
                    for i, counts in received(events):
                        if i in running:
                            on_progress(tasks[i], counts)
                if not finished:
                    alone_since = self._check_workers(alone_since)
                    time.sleep(0.1)
                    continue
                alone_since = None
                pending = [future for future in pending if not future.done()
                           or future not in finished]
                for future in finished:
                    task = futures[future]
                    try:
                        result = future.result()
                    except BaccaratError:
                        raise
                    except Exception as exc:
                        raise _failed(task, _cause(exc)) from exc
                    if isinstance(result, _BadInput):
                        raise result.error
                    on_done(task, result)
        except BaseException:
            client.cancel(list(futures))
            raise
        finally:
            if on_progress is not None:
                try:
                    client.unsubscribe_topic(topic)
                except Exception:  # pragma: no cover - a cluster gone: nothing to undo
                    pass

    def _check_workers(self, alone_since: float | None) -> float | None:
        """When the cluster has had no worker for ``no_workers_timeout`` seconds, stop."""
        if self._client.scheduler_info().get("workers"):
            return None
        now = time.monotonic()
        if alone_since is None:
            return now
        if now - alone_since >= self.no_workers_timeout:
            raise ChunkFailed(
                f"the Dask cluster at {self.scheduler} has had no workers for "
                f"{self.no_workers_timeout:g} s; the run stops")
        return alone_since


def _probe_scheduler(address: str, timeout: float) -> str | None:
    """Why ``address`` is not a Dask scheduler answering within ``timeout`` s (None if it
    is). A distributed ``Client`` may wait far past its timeout on a port that accepts
    and says nothing (or speaks another protocol), so this asks it once, with a deadline,
    in a thread of its own (the caller may be running an event loop)."""
    from distributed.comm import connect

    async def identity() -> Any:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            await comm.close()

    outcome: list[Any] = []

    def ask() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(identity(), timeout)))
        except BaseException as exc:  # noqa: BLE001 - whatever it was, it is not a scheduler
            outcome.append(exc)

    thread = threading.Thread(target=ask, name="baccarat-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1)
    if not outcome:
        return f"no answer within {timeout:g} s"
    answer = outcome[0]
    if isinstance(answer, asyncio.TimeoutError | TimeoutError) or (
            isinstance(answer, OSError) and str(answer).startswith("Timed out")):
        return f"no answer within {timeout:g} s"  # distributed's own timeout is an OSError
    if isinstance(answer, BaseException):
        return f"{type(answer).__name__}: {answer}".rstrip(": ")[:300]
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        return "it answers, but it is not a Dask scheduler"
    return None


@dataclass(frozen=True)
class _BadInput:
    """A task's bad-input error, carried back as its result."""

    error: BaccaratError


def _bad_input_returned(func: Callable[[T], R], task: T, topic: str | None = None,
                        index: int = 0) -> R | _BadInput:
    try:
        if topic is None:
            return func(task)
        return run_on_dask(func, task, topic, index)  # type: ignore[no-any-return]
    except BaccaratError as exc:
        return _BadInput(exc)


def run_tasks(func: Callable[[T], R], tasks: Sequence[T], *, workers: int = 1,
              scheduler: str | None = None,
              on_done: Callable[[T, R], None] | None = None) -> None:
    """Run ``func`` over ``tasks`` on a ``Backend`` of its own (see ``Backend.run``)."""
    with Backend(workers, scheduler) as backend:
        backend.run(func, tasks, on_done)


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
    ``backend_options`` go to the ``Backend`` (Dask timeouts). Returns the
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
        raise BaccaratError(f"--shoes must be at least 1, got {shoes}")
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
    with Backend(workers, scheduler, **(backend_options or {})) as backend:
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


__all__ = ["Backend", "CONNECT_TIMEOUT", "Chunk", "FAULT_ENV", "GenerateTask",
           "NO_WORKERS_TIMEOUT", "SMALL_JOB_SHOES", "cap_workers", "default_workers",
           "fault_spec", "generate_chunk", "generate_dataset", "inject_fault", "plan_chunks",
           "resolve_workers", "run_tasks"]
