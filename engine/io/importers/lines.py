"""Reading text files line by line with a bound on a line's length.

A recorded line is short (a shoe of outcomes is ~100 characters, a message a few KB);
one past ``MAX_LINE_BYTES`` is refused with its line number as soon as it is met, so
memory never grows with a line (a 200 MB line of outcomes reads 1 MiB, then stops).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .records import ImportDataError

#: The longest line read (bytes).
MAX_LINE_BYTES = 1 << 20


def _decode(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ImportDataError(
            f"{path}:{number}: not UTF-8 text ({exc.reason} at byte {exc.start} of the "
            f"line); pass --format if it is another format") from None


def iter_lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """(line number, text without its line break) of every line of ``path``."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ImportDataError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        number = 0
        while True:
            raw = handle.readline(limit + 1)
            if not raw:
                return
            number += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                raise ImportDataError(
                    f"{path}:{number}: line longer than {limit:,} bytes; a recorded line "
                    f"(a shoe, a coup, a message) is far shorter: is this the right file?")
            yield number, _decode(path, number, raw).rstrip("\r\n")


def read_lines_text(path: Path, limit: int = MAX_LINE_BYTES) -> str:
    """The whole text of ``path`` (UTF-8, BOM allowed), refusing a line past ``limit``."""
    return "\n".join(text for _, text in iter_lines(path, limit)) + "\n"
