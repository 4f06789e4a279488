"""The base of every error a user can cause with bad input, so the CLI reports them alike."""

from __future__ import annotations

import errno
import os
import traceback
from pathlib import Path
from types import TracebackType


class BaccaratError(ValueError):
    """Bad input: the message names where (file, row, shoe, coup) and what was expected.

    A message about a setting names it as the Python parameter (``bankroll``,
    ``force=True``) and lists those names in ``params``; the command line shows the same
    message with its flags (``baccarat.cli.common.FLAGS``), so each error is written once, in
    the words of whoever called.
    """

    def __init__(self, *args: object, params: tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        self.params = params

    def __reduce__(self) -> tuple[object, ...]:  # raised in workers, re-raised here
        return (_rebuilt, (type(self), self.args, self.params, self.__dict__))


def _rebuilt(cls: type[BaccaratError], args: tuple[object, ...], params: tuple[str, ...],
             state: dict[str, object]) -> BaccaratError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    error.params = params
    return error


#: The errnos of a write that found the disk (or the user's quota) full.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


class DiskFullError(OSError):
    """A write that found no space left: which file, and what became of the output.

    Not a ``BaccaratError``: the input was fine, so what was done is kept (a run stays
    resumable). The CLI reports it as one line with exit status 2, like bad input.
    """

    def __init__(self, message: str) -> None:
        super().__init__(errno.ENOSPC, message)

    def __str__(self) -> str:
        return str(self.strerror)

    def __reduce__(self) -> tuple[type, tuple[str]]:  # raised in workers, re-raised here
        return type(self), (str(self.strerror),)


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that found no space left on the device."""
    return isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS


class ChunkFailed(BaccaratError):
    """A chunk that failed twice: which shoes it held and why it failed (``message``), and
    ``kept``: what of the run's output is left, said by the output's owner, which knows
    whether there is anything to resume (``baccarat.io.parquet.owned_output``)."""

    def __init__(self, message: str, kept: str = "") -> None:
        super().__init__(f"{message} ({kept})" if kept else message,
                         params=("resume",) if "resume=True" in kept else ())
        self.message = message
        self.kept = kept

    def __reduce__(self) -> tuple[type[ChunkFailed], tuple[str, str]]:
        return (type(self), (self.message, self.kept))


class Interrupted(KeyboardInterrupt):
    """A run stopped by SIGINT or SIGTERM; the message says what was kept and how to finish."""


class StrategyFault(BaccaratError):
    """A strategy that raised, wrote into its table or returned an impossible stake.

    The message is one line naming the strategy, its file and line, the method and the
    session, shoe and coup. ``detail`` keeps the full traceback (as text, so it survives
    the trip back from a worker process) for ``--debug`` / ``BACCARAT_DEBUG=1``. It is
    deterministic: the same chunk fails the same way, so it is never retried.
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail

    def __reduce__(self) -> tuple[type[StrategyFault], tuple[str, str | None]]:
        return (type(self), (str(self), self.detail))


DEBUG_ENV = "BACCARAT_DEBUG"


def debug_requested() -> bool:
    """Whether ``BACCARAT_DEBUG`` asks for full tracebacks instead of one-line errors."""
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def full_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` with its causes, as Python prints it."""
    detail = getattr(exc, "detail", None)
    return detail if isinstance(detail, str) and detail else "".join(
        traceback.format_exception(exc))


def innermost_frame(tb: TracebackType | None, files: set[str]) -> tuple[str, int] | None:
    """(file, line) of the innermost frame of ``tb`` that runs code from one of ``files``."""
    found = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name in files or _resolved(name) in files:
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _resolved(name: str) -> str:
    try:
        return str(Path(name).resolve())
    except (OSError, ValueError):
        return name


def shown_path(name: str) -> str:
    """``name`` relative to the working folder when it is inside it, else as it is."""
    try:
        return str(Path(name).resolve().relative_to(Path.cwd().resolve()))
    except (OSError, ValueError):
        return name
