"""Spreadsheets (.xlsx, through openpyxl) and SQLite databases (the standard library) as
tables of text columns, like a CSV with a header.

A workbook's sheet is ``sheet`` or else the only sheet whose header names a known
column; a database's table is ``table`` or else the only table with a known column.
Otherwise the error lists what there is to choose from.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import sqlite3
import urllib.parse
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...extras import require
from .guess.evidence import coup_evidence, table_of_coups
from .layout import assign_roles, plan_table
from .records import ImportDataError, Source
from .tables import RawTable, _no_duplicate_names
from .tokens import listing

_MAX_COLUMNS = 1000
#: Rows per block read (the chunks of whole shoes are made from these).
BLOCK_ROWS = 50_000
#: Rows of each sheet or table looked at to choose the one with known columns.
_CHOICE_ROWS = 200
#: The most a workbook's part may unpack to, and the most it may unpack to per byte
#: packed once past ``PACKED_RATIO_FROM`` (a sheet's XML packs some 10-20 times; one huge
#: cell of repeated text thousands of times): beyond either the workbook is refused
#: before openpyxl reads it into memory.
MAX_UNPACKED = 1 << 31
MAX_PACKED_RATIO = 200
PACKED_RATIO_FROM = 16 << 20


def cell_text(value: Any) -> str | None:
    """A spreadsheet or database cell as text (whole floats without '.0')."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _rows_table(source: Source, rows: Iterable[tuple[Any, ...]],
                header: list[str] | None = None, first: int = 1) -> RawTable:
    """A table from rows: the first non-empty row is the header unless ``header`` is given;
    rows of empty cells are skipped. Places are 1-based row numbers of the sheet (the
    first of ``rows`` is row ``first``)."""
    names = header
    data: list[list[str | None]] = []
    lines: list[int] = []
    if names is None:  # the header is in the rows, perhaps under a title
        rows = list(rows)
        filled = [(i, cells) for i, row in enumerate(rows)
                  for cells in [[cell_text(v) for v in row]] if _filled(cells)]
        skip = filled[_titles([cells for _, cells in filled])][0] if filled else 0
        rows, first = rows[skip:], first + skip
    for number, row in enumerate(rows, first):
        cells = [cell_text(v) for v in row]
        if not _filled(cells):
            continue
        if names is None:
            names = _names(source, cells)
            continue
        cells = (cells + [None] * len(names))[:len(names)]
        data.append(cells)
        lines.append(number)
    if names is None:
        raise ImportDataError(f"{source.at(1)}: empty (a header row was expected)")
    array = np.empty((len(data), len(names)), dtype=object)
    if data:
        array[:] = data
    return RawTable(source=source, columns={n: array[:, j] for j, n in enumerate(names)},
                    lines=np.asarray(lines, dtype=np.int64))


def _known(table: RawTable) -> bool:
    try:
        return bool(assign_roles(table))
    except ImportDataError:
        return True  # ambiguous columns are known columns: reading it will say what is wrong


def _by_content(tables: dict[str, RawTable]) -> tuple[str | None, str]:
    """Of several tables with known columns, the one whose rows are coups by content
    (``guess.evidence.table_of_coups``), and why."""
    evidence = {}
    for name, table in tables.items():
        try:
            plan = plan_table(table) if len(table) else None
        except ImportDataError:
            plan = None
        evidence[name] = coup_evidence(plan.roles, plan.why) if plan is not None else []
    return table_of_coups(evidence)


def _open_workbook(path: Path) -> Any:
    require("openpyxl", "reading .xlsx")
    from openpyxl import load_workbook

    try:
        _check_unpacked(path)
        return load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, SyntaxError) as exc:
        raise ImportDataError(f"{path}: cannot read as an .xlsx workbook: {exc}") from None


def _check_unpacked(path: Path) -> None:
    """Refuse a workbook whose parts unpack beyond the bounds (``MAX_UNPACKED``,
    ``MAX_PACKED_RATIO``): their declared sizes are what reading them can produce."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            size, packed = info.file_size, max(info.compress_size, 1)
            if size > MAX_UNPACKED or (size > PACKED_RATIO_FROM
                                       and size > MAX_PACKED_RATIO * packed):
                raise ImportDataError(
                    f"{path}: its part {info.filename} unpacks to {size:,} bytes from "
                    f"{packed:,}: beyond what a sheet of coups holds (at most "
                    f"{MAX_UNPACKED:,} bytes, {MAX_PACKED_RATIO} times packed); not read")


def _sheet_rows(book: Any, name: str) -> Iterator[tuple[Any, ...]]:
    """A sheet's rows to its last, whatever the ``<dimension>`` its file declares (a
    writer may declare A1:B2 above a million rows)."""
    sheet = book[name]
    sheet.reset_dimensions()
    return sheet.iter_rows(values_only=True, max_col=_MAX_COLUMNS)  # type: ignore[no-any-return]


def _header_and_rows(source: Source, rows: Iterator[tuple[Any, ...]]
                     ) -> tuple[list[str], int, list[tuple[int, tuple[Any, ...]]],
                                list[str]] | None:
    """The header of a sheet (its first non-empty row, or the first below a title of up
    to ``TITLE_LINES`` rows), its row number, the rows read past it (numbered), and a
    note for each title row left out."""
    from .detect import TITLE_LINES

    ahead: list[tuple[int, tuple[Any, ...], list[str | None]]] = []
    for number, row in enumerate(rows, 1):
        cells = [cell_text(v) for v in row]
        if _filled(cells):
            ahead.append((number, row, cells))
            if len(ahead) > TITLE_LINES:
                break
    if not ahead:
        return None
    at = _titles([cells for _, _, cells in ahead])
    number, _, cells = ahead[at]
    notes = [f"{source.at(n)}: {' '.join(c.strip() for c in title if c and c.strip())!r} "
             f"above the header taken as a title and left out"
             for n, _, title in ahead[:at]]
    return _names(source, cells), number, [(n, row) for n, row, _ in ahead[at + 1:]], notes


def _filled(cells: list[str | None]) -> bool:
    return any(c is not None and c.strip() for c in cells)


def _names(source: Source, cells: list[str | None]) -> list[str]:
    """A header row's column names (empty trailing cells dropped, empty ones named)."""
    cells = list(cells)
    while cells and (cells[-1] is None or not cells[-1].strip()):
        cells.pop()
    names = [(c or "").strip() or f"column {j + 1}" for j, c in enumerate(cells)]
    _no_duplicate_names(source, names)
    return names


def _titles(rows: list[list[str | None]]) -> int:
    """How many of a sheet's first non-empty rows are a title above its header: rows of
    fewer filled cells than the header, before the first row naming known columns (none
    when no such row comes within ``TITLE_LINES``)."""
    from .detect import TITLE_LINES, names_known_columns

    width = [sum(1 for c in cells if c is not None and c.strip()) for cells in rows]
    for at, cells in enumerate(rows[:TITLE_LINES + 1]):
        if names_known_columns(cells):
            return at if all(w < width[at] for w in width[:at]) else 0
    return 0


def _choose_sheet(path: Path, book: Any, sheet: str | None) -> tuple[str, str]:
    """The sheet to read and why (empty: given, or the only one with known columns)."""
    names = list(book.sheetnames)
    if sheet is not None:
        if sheet not in names:
            raise ImportDataError(f"{path}: no sheet {sheet!r} (sheets: "
                                  f"{listing([repr(n) for n in names])})")
        return sheet, ""
    tables = []
    for name in names:
        source = Source(path, rows=True, part=name)
        sample = list(itertools.islice(_sheet_rows(book, name), _CHOICE_ROWS))
        try:
            tables.append(_rows_table(source, sample))
        except ImportDataError:
            continue
    known = [t for t in tables if _known(t)]
    if len(known) == 1:
        return known[0].source.part, ""
    best, why = _by_content({t.source.part: t for t in known})
    if best is not None:
        return best, why
    listed = listing([f"{t.source.part!r} ({', '.join(t.columns)})" for t in tables]) \
        or "none with a header"
    what = "several sheets have" if known else "no sheet has"
    raise ImportDataError(f"{path}: {what} known columns; choose one with --sheet NAME "
                          f"(sheets: {listed})")


def xlsx_blocks(path: Path, sheet: str | None = None,
                rows: int | None = None) -> Iterator[RawTable]:
    """One sheet of an .xlsx workbook (``sheet``, or the one with known columns) as tables
    of at most ``rows`` rows, read row by row (openpyxl's read-only mode)."""
    rows = rows or BLOCK_ROWS
    book = _open_workbook(path)
    try:
        name, why = _choose_sheet(path, book, sheet)
        source = Source(path, rows=True, part=name)
        stream = _sheet_rows(book, name)
        found = _header_and_rows(source, stream)
        if found is None:
            raise ImportDataError(f"{source.at(1)}: empty (a header row was expected)")
        header, number, read, notes = found
        first = number + 1
        # the rows read past the header, then the rest; the empty rows among those read
        # put back as empty, so that every row keeps its number
        pending: list[tuple[Any, ...]] = []
        at = number
        for n, row in read:
            pending.extend([()] * (n - at - 1))
            pending.append(row)
            at = n
        stream = itertools.chain(pending, stream)
        while True:
            batch = list(itertools.islice(stream, rows))
            table = _rows_table(source, batch, header=header, first=first)
            table.notes, notes = notes, []
            table.why = {"sheet": why} if why else {}
            yield table
            first += len(batch)
            if len(batch) < rows:
                return
    except SyntaxError as exc:  # the XML parser's (entities expanding without end, ...)
        raise ImportDataError(f"{path}: cannot read as an .xlsx workbook: {exc}") from None
    finally:
        book.close()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_uri(path: Path) -> str:
    """How to open a database without writing beside it: immutable (no lock, no -shm or
    -wal created) unless a writer's journal is there, then read-only through it (where
    the folder cannot be written, immutable all the same)."""
    companions = [path.with_name(path.name + s) for s in ("-wal", "-journal")]
    live = any(c.exists() for c in companions) and os.access(path.parent, os.W_OK)
    quoted = urllib.parse.quote(str(path.resolve()))
    return f"file:{quoted}?mode=ro" if live else f"file:{quoted}?mode=ro&immutable=1"


def _open_sqlite(path: Path) -> sqlite3.Connection:
    try:
        return sqlite3.connect(_sqlite_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise ImportDataError(f"{path}: cannot open as SQLite: {exc}") from None


def _sqlite_table(path: Path, connection: sqlite3.Connection, table: str | None
                  ) -> tuple[str, str]:
    """The table to read and why: ``table``, else the only one with known columns, else
    the one whose rows are coups by content (``_by_content``)."""
    try:
        names = [r[0] for r in connection.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    except sqlite3.DatabaseError as exc:
        raise ImportDataError(f"{path}: cannot read as SQLite: {exc}") from None
    if table is not None and table not in names:
        raise ImportDataError(f"{path}: no table {table!r} (tables: "
                              f"{listing([repr(n) for n in names]) or 'none'})")
    if table is not None:
        return table, ""
    columns = {n: [r[1] for r in connection.execute(f"PRAGMA table_info({_quoted(n)})")]
               for n in names}
    known: dict[str, RawTable] = {}
    for name in names:
        sample = connection.execute(
            f"SELECT * FROM {_quoted(name)} LIMIT {_CHOICE_ROWS}").fetchall()
        read = _rows_table(Source(path, rows=True, part=name), sample, header=columns[name])
        if _known(read):
            known[name] = read
    if len(known) > 1:
        best, why = _by_content(known)
        if best is not None:
            return best, why
    if len(known) != 1:
        listed = listing([f"{n} ({', '.join(columns[n])})" for n in names], sep="; ") \
            or "none"
        what = "several tables have" if known else "no table has"
        raise ImportDataError(f"{path}: {what} known columns; choose one with "
                              f"--table NAME (tables: {listed})")
    return next(iter(known)), ""


def sqlite_blocks(path: Path, table: str | None = None,
                  rows: int | None = None) -> Iterator[RawTable]:
    """One table of a SQLite database (``table``, or the one with known columns), in rowid
    order where it has one, as tables of at most ``rows`` rows. The database is opened
    read-only and never written beside (see ``_sqlite_uri``)."""
    rows = rows or BLOCK_ROWS
    connection = _open_sqlite(path)
    try:
        yield from _sqlite_rows(path, connection, table, rows)
    except sqlite3.DatabaseError as exc:  # a corrupt page, wherever it is met
        raise ImportDataError(f"{path}: cannot read as SQLite: {exc}") from None
    finally:
        connection.close()


def _sqlite_rows(path: Path, connection: sqlite3.Connection, table: str | None,
                 rows: int) -> Iterator[RawTable]:
    table, why = _sqlite_table(path, connection, table)
    source = Source(path, rows=True, part=table)
    try:
        cursor = connection.execute(f"SELECT * FROM {_quoted(table)} ORDER BY rowid")
    except sqlite3.OperationalError:  # a view, or a table without rowid
        cursor = connection.execute(f"SELECT * FROM {_quoted(table)}")
    header = [d[0] for d in cursor.description]
    _no_duplicate_names(source, header)
    first = 1
    produced = False
    while True:
        try:
            batch = cursor.fetchmany(rows)
        except sqlite3.DatabaseError as exc:
            raise ImportDataError(f"{source.path}: cannot read table {table!r}: "
                                  f"{exc}") from None
        if not batch and produced:
            return
        block = _rows_table(source, batch, header=header, first=first)
        block.why = {"table": why} if why and not produced else {}
        yield block
        produced = True
        first += len(batch)
        if not batch:
            return
