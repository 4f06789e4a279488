"""Reading big recorded files in chunks of whole shoes, so memory stays flat.

CSV files are read in blocks of lines and Parquet files in record batches; each block is
a table like any other, and ``ShoeHolder`` keeps back the rows of the shoes that may go on
in the next block, so every chunk handed on holds whole shoes only. A shoe's rows may be
interleaved with other shoes' (several tables in time order) as long as they are within
``window`` rows of each other; a shoe that comes back after that is an error naming the
line (its coups were already handed on).
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .layout import _mapped, assign_roles, coup_numbers, row_keys
from .lines import numbered_lines
from .plan import Plan
from .records import ImportDataError, Source
from .tables import (
    RawTable,
    _arrow_csv,
    _column_text,
    _no_duplicate_names,
    sniff_delimiter,
    table_lines,
)

#: Rows per block read (and the least a chunk holds before it is handed on).
CHUNK_ROWS = 50_000
#: A shoe of more rows than this is not a shoe (a card per row takes at most 416 rows).
LONGEST_SHOE_ROWS = 20_000


def _concat(a: RawTable | None, b: RawTable) -> RawTable:
    if a is None or not len(a):
        return b
    columns = {}
    for name in dict.fromkeys([*a.columns, *b.columns]):
        left = a.columns.get(name, np.full(len(a), None, dtype=object))
        right = b.columns.get(name, np.full(len(b), None, dtype=object))
        columns[name] = np.concatenate([left, right])
    group = None
    if a.group is not None or b.group is not None:  # shoe objects, numbered file-wide
        group = np.concatenate([a.group if a.group is not None else np.full(len(a), -1),
                                b.group if b.group is not None else np.full(len(b), -1)])
    return RawTable(source=b.source, columns=columns, lines=np.concatenate([a.lines, b.lines]),
                    group=group, group_labels=b.group_labels or a.group_labels,
                    group_lines=b.group_lines or a.group_lines)


def _take(table: RawTable, rows: np.ndarray | slice) -> RawTable:
    return RawTable(source=table.source, columns={k: v[rows] for k, v in table.columns.items()},
                    lines=table.lines[rows],
                    group=None if table.group is None else table.group[rows],
                    group_labels=table.group_labels, group_lines=table.group_lines)


class ShoeHolder:
    """Hands on the rows of complete shoes, keeping back those of shoes that may go on."""

    def __init__(self, mapping: dict[str, list[str]], window: int | None = None,
                 longest: int | None = None, plan: Plan | None = None) -> None:
        self.mapping = mapping
        self.plan = plan
        self.window = window or CHUNK_ROWS
        self.longest = longest or LONGEST_SHOE_ROWS
        self.carry: RawTable | None = None
        self.done_keys: set[str] = set()

    def push(self, table: RawTable, final: bool = False) -> RawTable | None:
        """Take the next block; returns the rows of the shoes now complete (or None)."""
        combined = _concat(self.carry, table)
        if final:
            self.carry = None
            return combined if len(combined) else None
        if self.plan is None:
            roles = assign_roles(combined, self.mapping)
        else:
            _mapped(combined, self.mapping)  # the joined shoe key columns
            roles = self.plan.roles
        keys = row_keys(combined, roles)
        n = len(combined)
        if keys is not None:
            hold = self._hold_keyed(combined, roles, keys, len(self.carry or ()))
        elif "coup" in roles:
            number = coup_numbers(combined, roles)
            a, b = number[:-1], number[1:]
            starts = np.flatnonzero(~np.r_[False, (b > a) | (a < 0) | (b < 0)])
            hold = np.zeros(n, dtype=bool)
            hold[int(starts[-1]) if starts.size else 0:] = True
        else:
            hold = np.ones(n, dtype=bool)  # one shoe per file: handed on at the end
        if keys is None and hold.sum() > self.longest:
            row = int(np.flatnonzero(hold)[0])
            raise ImportDataError(
                f"{combined.source.at(int(combined.lines[row]))}: the shoe starting here "
                f"runs past {self.longest:,} rows, far longer than any shoe; is this one "
                f"recording? (a shoe column, or coup numbers that restart, split shoes)")
        self.carry = _take(combined, hold) if hold.any() else None
        return _take(combined, ~hold) if (~hold).any() else None

    def _hold_keyed(self, table: RawTable, roles: dict[str, str], keys: np.ndarray,
                    carried: int) -> np.ndarray:
        n = keys.size
        code, unique = pd.factorize(keys)
        code = np.asarray(code)
        last = np.full(len(unique), -1, dtype=np.int64)
        np.maximum.at(last, code, np.arange(n))
        first = np.full(len(unique), n, dtype=np.int64)
        np.minimum.at(first, code, np.arange(n))
        number = coup_numbers(table, roles) if "coup" in roles else None
        for k, key in enumerate(unique):
            if key in self.done_keys and first[k] >= carried:
                row = int(first[k])
                if number is None or number[row] > 1:
                    raise ImportDataError(
                        f"{table.source.at(int(table.lines[row]))}: shoe {key} comes back more "
                        f"than {self.window:,} rows after its last coup, whose coups were "
                        f"already read; keep a shoe's rows together (or within "
                        f"{self.window:,} rows of each other)")
        held = last >= n - self.window
        for key in np.asarray(unique)[~held]:
            self.done_keys.add(str(key))
        return held[code]


def _header(path: Path, lines: Iterator[tuple[int, str]]) -> tuple[list[str], str, int]:
    """The header of a CSV (quoted names may hold line breaks), its delimiter and its
    last line number."""
    pending: list[str] = []
    for number, text in lines:
        if not pending and (not text.strip() or text.lstrip().startswith("#")):
            continue
        pending.append(text)
        delimiter = sniff_delimiter(pending[0])
        joined = "\n".join(pending)
        if joined.count('"') % 2:  # a quoted name goes on on the next line
            continue
        header = [cell.strip() for cell in next(csv.reader(io.StringIO(joined),
                                                           delimiter=delimiter))]
        _no_duplicate_names(Source(path), header)
        return header, delimiter, number
    raise ImportDataError(f"{path}: empty file (a header line was expected)")


def _block(source: Source, header: list[str], delimiter: str,
           block: list[tuple[int, str]], notes: list[str] | None = None) -> RawTable:
    """A block of CSV lines as a table (Arrow's reader; Python's csv module names a line
    Arrow cannot read row for line)."""
    body = "\n".join(text for _, text in block)
    numbers = np.asarray([number for number, _ in block], dtype=np.int64)
    table = _arrow_csv(body, header, delimiter)
    if table is not None and table.num_rows == len(block):
        array = np.empty((table.num_rows, len(header)), dtype=object)
        for j in range(len(header)):
            array[:, j] = table.column(j).to_numpy(zero_copy_only=False)
    else:
        rows = []
        kept = []
        reader = csv.reader(io.StringIO(body), delimiter=delimiter)
        for row in reader:
            line = int(numbers[min(reader.line_num, len(block)) - 1])
            if len(row) != len(header):
                if len(row) < len(header) or any(cell.strip() for cell in row[len(header):]):
                    raise ImportDataError(
                        f"{source.at(line)}: {len(row)} fields, but the header has "
                        f"{len(header)} ({', '.join(header)})")
                row = row[:len(header)]
            rows.append(row)
            kept.append(line)
        array = np.empty((len(rows), len(header)), dtype=object)
        if rows:
            array[:] = rows
        numbers = np.asarray(kept, dtype=np.int64)
    if array.size:
        filled = (array != "").any(axis=1)
        array, numbers = array[filled], numbers[filled]
    return RawTable(source=source, columns={n: array[:, j] for j, n in enumerate(header)},
                    lines=numbers, notes=list(notes or []))


def csv_blocks(path: Path, rows: int | None = None) -> Iterator[RawTable]:
    """A CSV file as tables of at most ``rows`` rows each (blank and '#' lines skipped,
    and a title above the header, said in the first table's notes)."""
    rows = rows or CHUNK_ROWS
    source = Source(path)
    lines, titles = _past_titles(table_lines(numbered_lines(path)))
    header, delimiter, _ = _header(path, lines)
    notes = [f"{source.at(number)}: {text.strip()!r} above the header taken as a title and "
             f"left out" for number, text in titles]
    block: list[tuple[int, str]] = []
    produced = False
    for number, text in lines:
        if not text or text.isspace() or text.lstrip()[:1] == "#":
            continue
        block.append((number, text))
        if len(block) >= rows:
            yield _block(source, header, delimiter, block, notes)
            produced, notes = True, []
            block = []
    if block or not produced:
        yield _block(source, header, delimiter, block, notes)


def _past_titles(lines: Iterator[tuple[int, str]]
                 ) -> tuple[Iterator[tuple[int, str]], list[tuple[int, str]]]:
    """The lines from the header on, and the title lines above it (``header_line``)."""
    from .detect import TITLE_LINES, header_line

    ahead: list[tuple[int, str]] = []
    for number, text in lines:
        if text.strip() and not text.lstrip().startswith("#"):
            ahead.append((number, text))
            if len(ahead) > TITLE_LINES:
                break
    at = max(header_line([text for _, text in ahead], known=False), 0)
    return itertools.chain(ahead[at:], lines), ahead[:at]


#: Parquet column types read as text; anything else (binary, structs, maps) is refused.
def _readable(field: pa.Field) -> bool:
    kind = field.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        kind = kind.value_type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
    return (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_boolean(kind) or pa.types.is_null(kind)
            or pa.types.is_temporal(kind))


def parquet_blocks(path: Path, rows: int | None = None) -> Iterator[RawTable]:
    """A Parquet file as tables of at most ``rows`` rows, every column as text.

    Read batch by batch (a dictionary column that expands to millions of rows costs one
    batch at a time); columns of types that hold no coup (binary, structs, maps) are
    skipped, and text that is not UTF-8 is one error naming the column and row.
    """
    rows = rows or CHUNK_ROWS
    source = Source(path, rows=True)
    try:
        handle = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise ImportDataError(f"{path}: cannot read as Parquet: {exc}") from None
    schema = handle.schema_arrow
    names = [f.name for f in schema if _readable(f)]
    if not names:
        listed = ", ".join(f"{f.name} ({f.type})" for f in schema)
        raise ImportDataError(f"{path}: no column of text or numbers (columns: {listed})")
    start = 1
    produced = False
    try:
        batches = handle.iter_batches(batch_size=rows, columns=names)
        for batch in batches:
            columns = {}
            for name in names:
                column = batch.column(name)
                try:
                    columns[name] = _column_text(pa.chunked_array([column]))
                except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
                    raise ImportDataError(
                        f"{path}: column {name!r} in rows {start:,}-"
                        f"{start + batch.num_rows - 1:,}: {str(exc).splitlines()[0][:200]}"
                    ) from None
            yield RawTable(source=source, columns=columns,
                           lines=np.arange(start, start + batch.num_rows, dtype=np.int64))
            produced = True
            start += batch.num_rows
    except (pa.ArrowInvalid, OSError) as exc:
        raise ImportDataError(f"{path}: cannot read as Parquet near row {start:,}: "
                              f"{str(exc).splitlines()[0][:200]}") from None
    if not produced:
        yield RawTable(source=source, columns={n: np.empty(0, dtype=object) for n in names},
                       lines=np.empty(0, dtype=np.int64))
