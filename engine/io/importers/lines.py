"""Reading text files line by line with a bound on a line's length.

A recorded line is short (a shoe of outcomes is ~100 characters, a message a few KB);
one past ``MAX_LINE_BYTES`` is refused with its line number as soon as it is met, so
memory never grows with a line (a 200 MB line of outcomes reads 1 MiB, then stops).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .records import ImportDataError

#: The longest line read (bytes).
MAX_LINE_BYTES = 1 << 20

#: What starts a comment line in a text format (a scorecard, a CSV, the live scorecard):
#: a note a person keeps beside the records, never a record itself.
COMMENT_MARKS = ("#", "//")


def is_comment(text: str) -> bool:
    """Whether a line is a comment (``# ...`` or ``// ...``, spaces before it allowed)."""
    return text.lstrip().startswith(COMMENT_MARKS)


def comment_text(text: str) -> str:
    """A comment line's words after its mark (``'# shoe 4'`` -> ``'shoe 4'``)."""
    text = text.strip()
    for mark in COMMENT_MARKS:
        if text.startswith(mark):
            return text[len(mark):].strip()
    return text


def _decode(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ImportDataError(
            f"{path}:{number}: not UTF-8 text ({exc.reason} at byte {exc.start} of the "
            f"line); pass --format if it is another format") from None


def open_to_read(path: Path) -> BinaryIO:
    """``path`` opened to read its bytes, or the one error naming it."""
    try:
        return path.open("rb")
    except OSError as exc:
        raise ImportDataError(f"cannot read {path}: {exc.strerror}") from None


def file_head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (fewer in a shorter file)."""
    with open_to_read(path) as handle:
        try:
            return handle.read(size)
        except OSError as exc:
            raise ImportDataError(f"cannot read {path}: {exc.strerror}") from None


def line_break(path: Path) -> bytes:
    """The file's line break: ``\\n`` (with or without ``\\r`` before it), or a bare
    ``\\r`` (old Mac spreadsheets export those) when its head has carriage returns only."""
    head = file_head(path, 1 << 16)
    return b"\r" if b"\r" in head and b"\n" not in head else b"\n"


def iter_lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """(line number, text without its line break) of every line of ``path``."""
    if line_break(path) == b"\r":
        yield from numbered_lines(path, limit)
        return
    with open_to_read(path) as handle:
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


#: Bytes read at a time by ``iter_line_blocks``.
BLOCK_BYTES = 1 << 23


def iter_line_blocks(path: Path, limit: int = MAX_LINE_BYTES,
                     block_bytes: int | None = None) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, lines) of ``path`` a block of whole lines at a time: the
    fast way through big files (no line break kept, UTF-8, BOM allowed)."""
    size = block_bytes or BLOCK_BYTES
    newline = line_break(path)
    with open_to_read(path) as handle:
        rest = b""
        first = 1
        while True:
            data = handle.read(size)
            if not data:
                break
            data = rest + data
            cut = data.rfind(newline)
            if cut < 0:
                if len(data) > limit:
                    _too_long(path, first, limit)
                rest = data
                continue
            rest = data[cut + 1:]
            lines = data[:cut].split(newline)
            _check_lengths(path, first, lines, limit)
            yield first, _decode_lines(path, first, lines)
            first += len(lines)
            if len(rest) > limit:
                _too_long(path, first, limit)
        if rest:
            _check_lengths(path, first, [rest], limit)
            yield first, _decode_lines(path, first, [rest])


def _too_long(path: Path, number: int, limit: int) -> None:
    raise ImportDataError(
        f"{path}:{number}: line longer than {limit:,} bytes; a recorded line (a shoe, a "
        f"coup, a message) is far shorter: is this the right file?")


def _check_lengths(path: Path, first: int, lines: list[bytes], limit: int) -> None:
    if max(map(len, lines), default=0) > limit:
        number = first + next(i for i, line in enumerate(lines) if len(line) > limit)
        _too_long(path, number, limit)


def _decode_lines(path: Path, first: int, lines: list[bytes]) -> list[str]:
    try:
        text = b"\n".join(lines).decode("utf-8")
    except UnicodeDecodeError:
        for i, line in enumerate(lines):
            _decode(path, first + i, line)
        raise  # pragma: no cover - one line above fails
    if first == 1 and text.startswith("\ufeff"):
        text = text[1:]
    return [line.rstrip("\r") for line in text.split("\n")]


def numbered_lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of ``path``, read a block at a time."""
    for first, lines in iter_line_blocks(path, limit):
        yield from enumerate(lines, first)
