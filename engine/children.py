"""Every child dies with its command, and a command ends when its work is done.

A process a command starts (a pool's worker, a report's figure worker) calls
``die_with(main_pid)`` first: the kernel kills it when its parent dies
(``PR_SET_PDEATHSIG``), and a watchdog thread kills it when the command's main process is
gone (a worker's parent may be a fork server that outlives the command). So a ``kill -9``
of the command leaves nothing running.

A strategy is code we run but did not write: a thread it starts and never ends (not a
daemon) would keep its process alive after the work is done, the command never returning
and a pool never closing. ``stray_threads`` finds such threads, ``describe`` names them
for the warning the command prints before it leaves without waiting for them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1


def die_with(main_pid: int) -> None:
    """Make this process (a child of a command) die when its parent or the command's main
    process ``main_pid`` ends, however it ends (``kill -9`` included)."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch, args=(main_pid,), name="baccarat-watchdog",
                     daemon=True).start()


def _watch(pid: int) -> None:
    """Kill this process as soon as process ``pid`` ends."""
    try:
        handle = os.pidfd_open(pid)
    except (OSError, AttributeError):  # gone already, or no pidfd (old kernel): poll
        handle = None
    if handle is not None:
        select.select([handle], [], [])  # readable when the process has ended
    else:
        while _alive(pid):
            time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def signals_deferred(*signums: signal.Signals) -> Iterator[None]:
    """Hold ``signums`` back for the block and deliver them after (their handlers run
    then): a signal that arrives meanwhile is only noted. Python runs signal handlers in
    the main thread whichever thread the kernel gave the signal to, so this holds where
    blocking the signal in this thread would not (another thread may receive it, and the
    main thread then raises at once). Nothing to do outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = {}
    try:
        for signum in signums:
            previous[signum] = signal.signal(signum, lambda number, frame: noted.append(number))
    except ValueError:  # pragma: no cover - a main thread that may not set handlers
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        yield
        return
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for number in dict.fromkeys(noted):
            handler = previous[signal.Signals(number)]
            if callable(handler):
                handler(number, None)  # Python's own SIGINT handler raises KeyboardInterrupt
            elif handler == signal.SIG_DFL:
                signal.raise_signal(number)


def stray_threads() -> list[threading.Thread]:
    """The threads of this process that would keep it alive after its work: alive, not
    daemons, not the main thread."""
    main = threading.main_thread()
    return [thread for thread in threading.enumerate()
            if thread is not main and thread.is_alive() and not thread.daemon]


def describe(thread: threading.Thread) -> str:
    """A thread as a warning names it: its name, the function it runs and where that is
    (a plugin's file and line)."""
    target = getattr(thread, "_target", None)
    code = getattr(target, "__code__", None)
    if code is None:
        return f"'{thread.name}'"
    from .errors import shown_path

    name = getattr(target, "__qualname__", None) or code.co_name
    return f"'{thread.name}' ({name}, {shown_path(code.co_filename)}:{code.co_firstlineno})"


def describe_all(threads: list[threading.Thread]) -> str:
    """Threads as a warning lists them, alike ones counted once."""
    counts = Counter(describe(thread) for thread in threads)
    return ", ".join(f"{text} x{count}" if count > 1 else text
                     for text, count in counts.items())


__all__ = ["describe", "describe_all", "die_with", "stray_threads"]
