"""Spreadsheets (.xlsx, through openpyxl) and SQLite databases (the standard library) as
tables of text columns, like a CSV with a header.

A workbook's sheet is ``sheet`` or else the only sheet whose header names a known
column; a database's table is ``table`` or else the only table with a known column.
Otherwise the error lists what there is to choose from.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from .layout import assign_roles
from .records import ImportDataError, Source
from .tables import RawTable, _no_duplicate_names

_MAX_COLUMNS = 1000


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
                header: list[str] | None = None) -> RawTable:
    """A table from rows: the first non-empty row is the header unless ``header`` is given;
    rows of empty cells are skipped. Places are 1-based row numbers of the sheet."""
    names = header
    data: list[list[str | None]] = []
    lines: list[int] = []
    for number, row in enumerate(rows, 1):
        cells = [cell_text(v) for v in row]
        if not any(c is not None and c.strip() for c in cells):
            continue
        if names is None:
            while cells and (cells[-1] is None or not cells[-1].strip()):
                cells.pop()
            names = [(c or "").strip() or f"column {j + 1}" for j, c in enumerate(cells)]
            _no_duplicate_names(source, names)
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


def read_xlsx(path: Path, sheet: str | None = None) -> RawTable:
    """One sheet of an .xlsx workbook as a table (``sheet``, or the one with known columns)."""
    try:
        from openpyxl import load_workbook
    except ImportError:  # pragma: no cover - a dependency
        raise ImportDataError("reading .xlsx needs openpyxl: pip install openpyxl") from None
    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise ImportDataError(f"{path}: cannot read as an .xlsx workbook: {exc}") from None
    try:
        names = list(book.sheetnames)
        if sheet is not None:
            if sheet not in names:
                raise ImportDataError(f"{path}: no sheet {sheet!r} (sheets: "
                                      f"{', '.join(repr(n) for n in names)})")
            chosen = [sheet]
        else:
            chosen = names
        tables = []
        for name in chosen:
            source = Source(path, rows=True, part=name)
            rows = book[name].iter_rows(values_only=True, max_col=_MAX_COLUMNS)
            try:
                tables.append(_rows_table(source, rows))
            except ImportDataError:
                if sheet is not None:
                    raise
        if sheet is not None:
            return tables[0]
        known = [t for t in tables if _known(t)]
        if len(known) == 1:
            return known[0]
        listed = ", ".join(f"{t.source.part!r} ({', '.join(t.columns)})" for t in tables) \
            or "none with a header"
        what = "several sheets have" if known else "no sheet has"
        raise ImportDataError(f"{path}: {what} known columns; choose one with --sheet NAME "
                              f"(sheets: {listed})")
    finally:
        book.close()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_sqlite(path: Path, table: str | None = None) -> RawTable:
    """One table of a SQLite database (``table``, or the one with known columns), in rowid
    order where it has one."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ImportDataError(f"{path}: cannot open as SQLite: {exc}") from None
    try:
        try:
            names = [r[0] for r in connection.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        except sqlite3.DatabaseError as exc:
            raise ImportDataError(f"{path}: cannot read as SQLite: {exc}") from None
        if table is not None and table not in names:
            raise ImportDataError(f"{path}: no table {table!r} (tables: "
                                  f"{', '.join(repr(n) for n in names) or 'none'})")
        columns = {n: [r[1] for r in connection.execute(f"PRAGMA table_info({_quoted(n)})")]
                   for n in names}
        if table is None:
            known = [n for n in names if _known(RawTable(
                Source(path), {c: np.empty(0, dtype=object) for c in columns[n]},
                np.empty(0, dtype=np.int64)))]
            if len(known) != 1:
                listed = "; ".join(f"{n} ({', '.join(columns[n])})" for n in names) or "none"
                what = "several tables have" if known else "no table has"
                raise ImportDataError(f"{path}: {what} known columns; choose one with "
                                      f"--table NAME (tables: {listed})")
            table = known[0]
        source = Source(path, rows=True, part=table)
        try:
            cursor = connection.execute(f"SELECT * FROM {_quoted(table)} ORDER BY rowid")
        except sqlite3.OperationalError:  # a view, or a table without rowid
            cursor = connection.execute(f"SELECT * FROM {_quoted(table)}")
        header = [d[0] for d in cursor.description]
        try:
            return _rows_table(source, cursor, header=header)
        except sqlite3.DatabaseError as exc:
            raise ImportDataError(f"{source.path}: cannot read table {table!r}: {exc}") \
                from None
    finally:
        connection.close()
