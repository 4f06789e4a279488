"""The base of every error a user can cause with bad input, so the CLI reports them alike."""

from __future__ import annotations

import errno


class BaccaratError(ValueError):
    """Bad input: the message names where (file, row, shoe, coup) and what was expected."""


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


class Interrupted(KeyboardInterrupt):
    """A run stopped by SIGINT or SIGTERM; the message says what was kept and how to finish."""
