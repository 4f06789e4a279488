"""The recorded formats, and telling which one a file is in from its content."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from pathlib import Path

from .formats import FORMATS
from .layout import role_of
from .lines import file_head
from .messages import looks_like_messages
from .readers import readers
from .records import ImportDataError, UnknownFormatError
from .tables import is_markdown_table, sniff_delimiter
from .text import shoe_lines, split_label, split_scorecard
from .tokens import CARD_SEPARATORS, is_card, outcome_letters

_SNIFF_BYTES = 1 << 16
_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
_SNIFF_LINES = 20
_TABLE_SUFFIXES = (".csv", ".tsv", ".tab")


def check_format_name(name: str) -> str:
    """``name`` if it is a format (built-in or installed), else an error listing them."""
    if name not in FORMATS and name not in readers():
        raise UnknownFormatError(
            f"unknown format {name!r}: expected one of {', '.join(readers())}"
        )
    return name


def read_text(path: Path) -> str:
    """A text file's content (UTF-8, BOM allowed), with a clear error if it is not text."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportDataError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            f"pass --format if it is another format"
        ) from None
    except OSError as exc:
        raise ImportDataError(f"cannot read {path}: {exc.strerror}") from None


def detect_format(path: str | Path) -> str:
    """The format of a recorded file (one of ``FORMATS``), told from its content.

    Parquet by its magic bytes; JSON by a leading '[' or '{' (or a .json, .jsonl, .ndjson
    name); a first line naming known columns is a header (csv) unless every line is
    outcomes; otherwise a first line of outcomes starts a scorecard and a first line of
    cards a sequence.
    """
    path = Path(path)
    if not path.is_file():
        raise ImportDataError(f"no such file: {path}")
    head = file_head(path, _SNIFF_BYTES)
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if head.startswith(b"PK\x03\x04") and _is_workbook(path):
        return "xlsx"
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the end of the sample
            raise UnknownFormatError(
                f"cannot tell the format of {path}: it is neither Parquet nor UTF-8 text; "
                f"pass --format ({', '.join(FORMATS)})"
            ) from None
        text = head[: exc.start].decode("utf-8-sig")
    raw_lines = text.splitlines()[:_SNIFF_LINES + 1]
    if len(head) == _SNIFF_BYTES and len(raw_lines) > 1:
        raw_lines = raw_lines[:-1]  # the last sampled line may be cut short
    if looks_like_messages(raw_lines):
        return "messages"
    if text.lstrip()[:1] in ("[", "{") or path.suffix.lower() in _JSON_SUFFIXES:
        return "json"
    if is_markdown_table(raw_lines):
        return "csv"  # its rows are delimited by "|" once their frame is off
    lines = [line for _, line in shoe_lines(text)][:_SNIFF_LINES]
    if len(head) == _SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last sampled line may be cut short
    if not lines:
        raise UnknownFormatError(f"cannot tell the format of {path}: it holds no data")
    outcome_lines = [_scorecard_line(line) for line in lines]
    at = header_line(lines)
    if at >= 0 and not all(outcome_lines[at:]):
        return "csv"  # a header of known columns (under a title or two, perhaps)
    if len(lines) > 1 and not outcome_lines[0] and all(outcome_lines[1:]) and \
            sniff_delimiter(lines[0]) not in lines[0]:
        return "csv"  # one column of outcomes under a header of any name
    if outcome_lines[0]:
        return "scorecard"
    if path.suffix.lower() in _TABLE_SUFFIXES and sniff_delimiter(lines[0]) in lines[0]:
        return "csv"  # a header of unknown names: --column maps them
    if _mostly_cards(lines[0]):
        return "sequence"
    for reader in readers().values():
        if reader.detect is not None and reader.detect(path):
            return reader.name
    raise UnknownFormatError(
        f"cannot tell the format of {path}: its first line {lines[0][:60]!r} is neither a "
        f"header of known columns, a line of outcomes (BPPT...) nor a line of cards; "
        f"pass --format ({', '.join(FORMATS)})"
    )


#: Lines above a table's header that can be its title (a sheet's name, a date, a venue).
TITLE_LINES = 5


def header_line(lines: list[str], known: bool = True) -> int:
    """Where a table's header is among its first non-blank ``lines``: 0, or after up to
    ``TITLE_LINES`` lines of title ('Baccarat log, 3 Dec' above 'shoe,coup,result'), none
    a line of outcomes or cards, each with fewer fields than the header or holding no
    value (a number, a card, an outcome) under a header holding none either (a title's
    commas may match the header's: 'Baccarat results, Casino X, 2026-01-05' above
    'shoe,coup,outcome'; a line of values as wide as the header is a row out of place);
    -1 when no header of known columns is found there. With ``known`` False (a file
    already known to be a table), when no header of known columns is, a header of other
    names does: the first line with as many fields as the line under it, and more than
    one."""
    for at, line in enumerate(lines[:TITLE_LINES + 1]):
        if looks_like_header(line):
            delimiter = sniff_delimiter(line)
            width = len(line.split(delimiter))
            words = not any(map(_is_value, line.split(delimiter)))
            above = [title.split(delimiter) for title in lines[:at]]
            if all(len(title) < width or (words and not any(map(_is_value, title)))
                   for title in above):
                return at
            break
        if _scorecard_line(line) or _mostly_cards(line):
            break  # data before any header: not a title
    if known:
        return -1
    for at, line in enumerate(lines[:TITLE_LINES + 1]):
        delimiter = sniff_delimiter(line)
        width = len(line.split(delimiter))
        if width > 1 and at + 1 < len(lines) and len(lines[at + 1].split(delimiter)) == width:
            titles = lines[:at]
            return at if all(len(t.split(delimiter)) < width for t in titles) else -1
        if _scorecard_line(line) or _mostly_cards(line):
            return -1
    return -1


def _is_value(field: str) -> bool:
    """Whether a field is a value a row holds and a title does not: a number ('7',
    '-1.5'), a card ('QD') or outcomes ('B', 'Banker')."""
    field = field.strip().strip('"').strip()
    try:
        float(field)
    except ValueError:
        return is_card(field) or _is_outcomes(field)
    return True


def looks_like_header(line: str) -> bool:
    """Whether a line can be a header: it names a known column, and none twice."""
    return names_known_columns(f.strip().strip('"') for f in line.split(sniff_delimiter(line)))


def names_known_columns(names: Iterable[str | None]) -> bool:
    """Whether cells can be a header's names: one names a known column, none twice."""
    known = [r for r in (role_of(n.strip()) for n in names if n and n.strip()) if r is not None]
    # a header names each column once: "Banker,Player,Banker" is a line of outcomes
    return bool(known) and len(set(known)) == len(known)


def _is_workbook(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _scorecard_line(line: str) -> bool:
    _, words = split_scorecard(line)
    return bool(words) and all(_is_outcomes(w) for w in words)


def _is_outcomes(word: str) -> bool:
    return outcome_letters(word) is not None


def _mostly_cards(line: str) -> bool:
    """A line of cards (a typo or two allowed: the reader will name them)."""
    _, words = split_label(line, is_card, CARD_SEPARATORS)
    cards = sum(is_card(w) for w in words)
    return cards == len(words) > 0 or (len(words) >= 8 and cards >= 0.8 * len(words))
