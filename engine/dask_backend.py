"""Chunk tasks on a Dask distributed cluster: the ``[dask]`` extra's backend.

``DaskBackend`` is one of the three backends of ``baccarat.parallel`` (``--scheduler
ADDRESS``). It probes the scheduler with a deadline before the run makes anything, submits
every task with ``retries=1`` (Dask itself reschedules the tasks of a worker it loses),
carries a task's bad input (a ``BaccaratError``) back as a value so Dask never retries it,
polls its futures so Ctrl-C and a cluster left without workers are seen at once, and
carries the tasks' progress on a pub/sub topic of the run's own.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from distributed import Client

from .errors import BaccaratError, ChunkFailed
from .parallel import CONNECT_TIMEOUT, NO_WORKERS_TIMEOUT, Progress, R, T, _cause, _failed
from .task_progress import dask_listener, received, run_on_dask


class DaskBackend:
    """Tasks run on the Dask cluster whose scheduler is at ``scheduler`` (``workers``: as
    the run was asked for, recorded; the cluster's workers run the tasks)."""

    def __init__(self, scheduler: str, workers: int = 1, *,
                 connect_timeout: float = CONNECT_TIMEOUT,
                 no_workers_timeout: float = NO_WORKERS_TIMEOUT) -> None:
        self.address = scheduler
        self.scheduler: str | None = scheduler
        self.workers = workers
        self.connect_timeout = connect_timeout
        self.no_workers_timeout = no_workers_timeout
        self._client: Any = None

    def __enter__(self) -> DaskBackend:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._client is None:
            return
        client, self._client = self._client, None
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
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
        if self._client is not None:
            return
        problem = _probe_scheduler(self.address, self.connect_timeout)
        if problem is None:
            try:
                self._client = Client(self.address, timeout=self.connect_timeout,
                                      set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                problem = str(exc) or type(exc).__name__
        if problem is not None:
            raise BaccaratError(f"cannot reach the Dask scheduler at {self.address!r}: "
                                f"{problem} (scheduler_timeout sets how long to wait; "
                                f"now {self.connect_timeout:g} s)",
                                params=("scheduler_timeout",))

    def elsewhere(self, tasks: int) -> bool:
        return True

    def release(self) -> None:
        """A Dask cluster's workers are not ours to stop."""

    def run(self, func: Callable[[T], R], tasks: Sequence[T],
            on_done: Callable[[T, R], None] | None = None,
            on_progress: Progress[T] | None = None) -> None:
        """Run ``func`` over ``tasks`` on the cluster (see ``baccarat.parallel.Backend``)."""
        if not tasks:
            return
        on_done = on_done or (lambda task, result: None)
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
                f"the Dask cluster at {self.address} has had no workers for "
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
