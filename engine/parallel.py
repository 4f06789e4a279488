"""Chunk tasks run in this process, on a local process pool, or on a Dask cluster.

A long job (``generate``, ``backtest``) is cut into chunks of whole shoes. A chunk task is
a pure function of a small picklable description (the job, the chunk's shoe range) that
writes its own Parquet parts and returns small per-chunk figures, so nothing big travels
between processes and every backend writes the same files. A ``Backend`` runs the tasks:

- in this process (``workers=1``, or a single chunk);
- on a ``concurrent.futures`` process pool (``workers=N``). A worker process that dies
  (killed, out of memory) breaks the pool: the pool is recreated and the chunks that were
  running are run again, one at a time, so a chunk that kills its worker twice is known;
- on a Dask distributed cluster (``scheduler=ADDRESS``), with ``retries=1``; Dask itself
  reschedules the tasks of a worker it loses.

A chunk that fails twice stops the run with a ``ChunkFailed`` naming its shoes and the
cause. Bad input (a ``BaccaratError``, e.g. a strategy's impossible stake) is not retried:
it would fail the same way again. Parts already written stay, so ``--resume`` can finish.

This module also holds the chunked ``generate`` job (``generate_dataset``).
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
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
from .errors import BaccaratError
from .rules import TableRules

#: Environment variable of the fault-injection hook the resilience tests use (see
#: ``inject_fault``); unset in normal use.
FAULT_ENV = "BACCARAT_TEST_FAULT"


class ChunkFailed(BaccaratError):
    """A chunk that failed twice: which shoes it held and why it failed."""


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


def default_workers() -> int:
    """The cores this process may run on (the default ``--workers``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: Below this many shoes a process pool costs more to start than it saves: the default
#: (``workers=None``) then runs the chunks in this process.
SMALL_JOB_SHOES = 10_000


def resolve_workers(workers: int | None, shoes: int) -> int:
    """``workers``, or for None all cores (one process for a job under SMALL_JOB_SHOES)."""
    if workers is None:
        return default_workers() if shoes >= SMALL_JOB_SHOES else 1
    if workers < 1:
        raise BaccaratError(f"--workers must be at least 1, got {workers}")
    return workers


class Task(Protocol):
    """What a backend needs of a task besides being picklable: a name for messages."""

    def describe(self) -> str: ...


T = TypeVar("T", bound=Task)
R = TypeVar("R")


def fault_spec() -> str | None:
    """The driver's ``$BACCARAT_TEST_FAULT``, read when a job starts and shipped with its
    tasks (worker processes do not share the driver's environment)."""
    return os.environ.get(FAULT_ENV) or None


def inject_fault(index: int, spec: str | None) -> None:
    """Test hook: make chunk ``index`` fail as ``spec`` (from ``fault_spec``) says.

    The value is ``CHUNK:ACTION`` or ``CHUNK:ACTION:MARKER``. ACTION ``exit`` ends the
    process at once (as a kill would: no cleanup), ``raise`` raises "no space left on
    device" (as a full disk would). With MARKER (a file path) the fault happens only while
    that file does not exist, and creates it: the chunk fails once, then succeeds.
    """
    if not spec:
        return
    chunk, action, *marker = spec.split(":", 2)
    if int(chunk) != index:
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
    raise ValueError(f"{FAULT_ENV}: unknown action {action!r}")


class Backend:
    """Where tasks run: this process, a local process pool, or a Dask cluster.

    Used as a context, it keeps its pool (or its Dask client) for every ``run`` inside, so
    the phases of a job (the chunks, then the summary) share workers started once.
    """

    def __init__(self, workers: int = 1, scheduler: str | None = None) -> None:
        self.workers = workers
        self.scheduler = scheduler
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        # After an error, start no more tasks; let the running ones finish (their parts are
        # valid) unless the user interrupted the run.
        self._close_pool(wait=exc_type is not KeyboardInterrupt)
        if self._client is not None:
            self._client.close()
            self._client = None

    def release(self) -> None:
        """Stop the local workers now (their memory with them); a later ``run`` starts new
        ones. A Dask cluster's workers are not ours to stop."""
        self._close_pool(wait=True)

    @property
    def parallel(self) -> bool:
        """Whether tasks run in other processes (and so must be picklable)."""
        return bool(self.scheduler) or self.workers > 1

    def run(self, func: Callable[[T], R], tasks: Sequence[T],
            on_done: Callable[[T, R], None] | None = None) -> None:
        """Run ``func`` over ``tasks``; ``on_done(task, result)`` as each one finishes.

        ``func`` must be a module-level function and the tasks picklable for the pool and
        Dask. Results arrive in completion order (tasks write their own files, so the
        order does not change the output).
        """
        callback = on_done or (lambda task, result: None)
        if not tasks:
            return
        if self.scheduler:
            self._run_dask(func, tasks, callback)
        elif self.workers > 1 and len(tasks) > 1:
            self._run_pool(func, tasks, callback)
        else:
            _run_here(func, tasks, callback)

    def _new_pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([
            "engine.backtest", "engine.parallel", "strategies.builtins"])  # imported once
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context)

    def _close_pool(self, wait: bool) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None

    def _run_pool(self, func: Callable[[T], R], tasks: Sequence[T],
                  on_done: Callable[[T, R], None]) -> None:
        """At most ``workers`` tasks in flight, so a broken pool is blamed only on the tasks
        that were running; those are rerun one at a time in a new pool."""
        pending: deque[int] = deque(range(len(tasks)))
        suspects: deque[int] = deque()
        failures = [0] * len(tasks)
        running: dict[Future[R], int] = {}
        if self._pool is None:
            self._pool = self._new_pool()
        while pending or suspects or running:
            limit = 1 if suspects or any(failures[i] for i in running.values()) \
                else self.workers
            while len(running) < limit and (suspects or pending):
                i = suspects.popleft() if suspects else pending.popleft()
                running[self._pool.submit(func, tasks[i])] = i
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
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
                  on_done: Callable[[T, R], None]) -> None:
        try:
            from distributed import Client, as_completed
        except ImportError:  # pragma: no cover - dask is in the dev install
            raise BaccaratError("--scheduler needs Dask: pip install "
                                "'baccarat-backtest[dask]'") from None
        if self._client is None:
            try:
                self._client = Client(self.scheduler, timeout="20s", set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise BaccaratError(f"cannot reach the Dask scheduler at "
                                    f"{self.scheduler!r}: {exc}") from None
        client = self._client
        stamp = f"{os.getpid()}-{time.monotonic_ns()}"
        # Dask retries a task on any exception; bad input (a strategy's error above all)
        # fails the same way every time, so it comes back as a value, never retried.
        futures = {client.submit(_bad_input_returned, func, task, retries=1, pure=False,
                                 key=f"baccarat-{i}-{stamp}"): task
                   for i, task in enumerate(tasks)}
        try:
            for future in as_completed(list(futures), loop=client.loop):
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


@dataclass(frozen=True)
class _BadInput:
    """A task's bad-input error, carried back as its result."""

    error: BaccaratError


def _bad_input_returned(func: Callable[[T], R], task: T) -> R | _BadInput:
    try:
        return func(task)
    except BaccaratError as exc:
        return _BadInput(exc)


def run_tasks(func: Callable[[T], R], tasks: Sequence[T], *, workers: int = 1,
              scheduler: str | None = None,
              on_done: Callable[[T, R], None] | None = None) -> None:
    """Run ``func`` over ``tasks`` on a ``Backend`` of its own (see ``Backend.run``)."""
    with Backend(workers, scheduler) as backend:
        backend.run(func, tasks, on_done)


def _failed(task: Task, cause: str) -> ChunkFailed:
    return ChunkFailed(f"{task.describe()} failed twice; the run stops (the parts "
                       f"already written are kept: --resume finishes the run). Cause: "
                       f"{cause}")


def _cause(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


_DIED = "its worker process died (killed, or out of memory) while running it"


def _run_here(func: Callable[[T], R], tasks: Sequence[T],
              on_done: Callable[[T, R], None]) -> None:
    for task in tasks:
        for attempt in (1, 2):
            try:
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
    shuffle: Any = None  # an engine.shuffles.ShuffleModel; None: uniform

    def describe(self) -> str:
        """The chunk, for messages."""
        return self.chunk.describe()


def generate_chunk(task: GenerateTask) -> int:
    """Shuffle and deal the chunk's shoes, write them as its part; returns the coups."""
    from .deal import generate_coups
    from .io.parquet import write_part

    chunk = task.chunk
    inject_fault(chunk.index, task.fault)
    ids = np.arange(chunk.first_shoe, chunk.first_shoe + chunk.shoes, dtype=np.int64)
    if task.shuffle is None:
        coups = generate_coups(task.rules, task.seed, ids)
    else:
        from .shuffles import generate_model_coups
        coups = generate_model_coups(task.rules, task.seed, ids, task.shuffle)
    write_part([coups.to_arrow()], task.folder, chunk.index, task.metadata)
    return len(coups)


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
) -> dict[str, Any]:
    """Generate ``shoes`` shoes from ``seed`` into the coups folder ``out``, chunk by chunk.

    ``out`` becomes a folder of parts (``part-NNNNN.parquet``, ``chunk_shoes`` shoes each)
    that pandas, pyarrow, DuckDB and ``read_coups`` read as one table; ``_dataset.json``
    is written last and describes it. An existing ``out`` is replaced only with ``force``;
    ``resume`` finishes an interrupted run (same arguments; the chunk size defaults to the
    one it started with). ``workers`` processes run the chunks (None: all cores for a big
    job), or the Dask cluster at ``scheduler``. ``progress(coups, shoes)`` is called as
    chunks finish. ``shuffle`` (an :class:`engine.shuffles.ShuffleModel`) deals the shoes
    from a real shuffle's model; None or uniform: the uniform shoes, unchanged. Returns the
    ``_dataset.json`` document.
    """
    from .io.parquet import (
        DATASET_FILE,
        coups_metadata,
        finish_output,
        finished_parts,
        open_output,
        part_name,
        read_plan,
    )

    rules = rules or TableRules()
    if shoes < 1:
        raise BaccaratError(f"--shoes must be at least 1, got {shoes}")
    workers = resolve_workers(workers, shoes)
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
    state = open_output(folder, plan, force=force, resume=resume, complete=DATASET_FILE)
    if state == "complete":
        return dict(json.loads((folder / DATASET_FILE).read_text()))
    started = time.perf_counter()
    done = finished_parts(folder) if state == "resume" else set()
    coups_by_chunk: dict[int, int] = {}
    for chunk in chunks:
        if chunk.index in done:
            coups_by_chunk[chunk.index] = pq.ParquetFile(
                folder / part_name(chunk.index)).metadata.num_rows
            if progress is not None:
                progress(coups_by_chunk[chunk.index], chunk.shoes)
    fault = fault_spec()
    tasks = [GenerateTask(c, str(folder.absolute()), rules, seed, metadata, fault, shuffle)
             for c in chunks if c.index not in done]

    def record(task: GenerateTask, coups: int) -> None:
        coups_by_chunk[task.chunk.index] = coups
        if progress is not None:
            progress(coups, task.chunk.shoes)

    run_tasks(generate_chunk, tasks, workers=workers, scheduler=scheduler, on_done=record)
    document = {**plan, **metadata, "coups": int(sum(coups_by_chunk.values())),
                "resumed_chunks": len(done),
                "seconds": round(time.perf_counter() - started, 3)}
    finish_output(folder, DATASET_FILE, document)
    return document


__all__ = ["Backend", "Chunk", "ChunkFailed", "FAULT_ENV", "GenerateTask", "SMALL_JOB_SHOES",
           "default_workers", "fault_spec", "generate_chunk", "generate_dataset", "inject_fault",
           "plan_chunks", "resolve_workers", "run_tasks"]
