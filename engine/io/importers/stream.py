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
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .guess.plan import Plan
from .layout import _mapped, assign_roles, coup_numbers, row_keys
from .lines import is_comment, iter_line_blocks
from .records import ImportDataError, Source
from .tables import (
    RawTable,
    _column_text,
    _no_duplicate_names,
    concat_tables,
    is_markdown_table,
    markdown_rows,
    sniff_delimiter,
)

#: Rows per block read (and the least a chunk holds before it is handed on).
CHUNK_ROWS = 50_000
#: A shoe of more rows than this is not a shoe (a card per row takes at most 416 rows).
LONGEST_SHOE_ROWS = 20_000


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
        combined = table if self.carry is None or not len(self.carry) else \
            concat_tables([self.carry, table])
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


def _physical_lines(path: Path) -> Iterator[list[str]]:
    """Every line of ``path`` without its line break, a block of lines at a time
    (``lines.iter_line_blocks``: bounded lines, UTF-8, BOM dropped); in a Markdown table,
    its rows without their outer pipes, every other line empty, so lines keep their
    numbers."""
    markdown = None
    for first, lines in iter_line_blocks(path):
        if markdown is None:  # told by the head of the file
            markdown = is_markdown_table(lines)
        if markdown:
            rows = dict(markdown_rows(enumerate(lines, first)))
            lines = [rows.get(n, "") for n in range(first, first + len(lines))]
        yield lines


def _broken(lines: Iterable[str]) -> Iterator[str]:
    """Lines with their line break back, as the csv module reads them (a quoted line break
    is kept as \\n)."""
    return (line + "\n" for line in lines)


def _arrow_rows(body: str, width: int, delimiter: str) -> np.ndarray | None:
    """Lines of text without quotes, one record each, as an (n, width) array of text by
    Arrow's CSV reader (the fast way); None when a line has another number of fields."""
    names = [f"c{j}" for j in range(width)]
    try:
        table = pacsv.read_csv(
            io.BytesIO(body.encode("utf-8")),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False))
    except pa.ArrowInvalid:
        return None
    array = np.empty((table.num_rows, width), dtype=object)
    for j in range(width):
        array[:, j] = table.column(j).to_numpy(zero_copy_only=False)
    return array


def _skipped(text: str) -> bool:
    """Whether a line holds no record: blank, or a comment ('#' or '//')."""
    return not text.strip() or is_comment(text)


def _records(source: Source, first: int, lines: list[str], delimiter: str, last: bool
             ) -> tuple[list[int], list[list[str]], int]:
    """The records of ``lines`` (line ``first`` on) by the csv module (RFC 4180: quoted
    delimiters, quoted line breaks, doubled quotes): their first lines, their fields,
    and how many of ``lines`` they took (a record still open at the end of lines that
    are not the ``last`` is left for the next lines)."""
    reader = csv.reader(_broken(lines), delimiter=delimiter, strict=True)
    numbers: list[int] = []
    rows: list[list[str]] = []
    used = 0
    while True:
        try:
            row = next(reader, None)
        except csv.Error as exc:
            if "end of data" in str(exc) and not last:
                return numbers, rows, used
            hint = ("a quoted field opened in this record is never closed"
                    if "end of data" in str(exc) else
                    f"{exc} (a quote inside a field is written doubled, \"\")")
            raise ImportDataError(f"{source.at(first + used)}: not CSV: {hint}") from None
        if row is None:
            return numbers, rows, used
        if len(row) > 1 or row and not _skipped(row[0]):
            numbers.append(first + used)
            rows.append(row)
        used = reader.line_num


def _block(source: Source, header: list[str], numbers: list[int] | np.ndarray,
           rows: list[list[str]] | np.ndarray, notes: list[str] | None = None) -> RawTable:
    """Records as a table of the header's columns: a record of fewer fields than the
    header, or of more that are not empty, is an error naming its line; records of empty
    fields are left out (spreadsheets export those)."""
    width = len(header)
    if isinstance(rows, list):
        for i, row in enumerate(rows):
            if len(row) != width:
                if len(row) < width or any(cell.strip() for cell in row[width:]):
                    raise ImportDataError(
                        f"{source.at(int(numbers[i]))}: {len(row)} fields, but the header "
                        f"has {width} ({', '.join(header)})")
                rows[i] = row[:width]
        array = np.empty((len(rows), width), dtype=object)
        if rows:
            array[:] = rows
    else:
        array = rows
    lines = np.asarray(numbers, dtype=np.int64)
    if array.size:
        filled = (array != "").any(axis=1)
        array, lines = array[filled], lines[filled]
    return RawTable(source=source, columns={n: array[:, j] for j, n in enumerate(header)},
                    lines=lines, notes=list(notes or []))


def csv_blocks(path: Path, rows: int | None = None) -> Iterator[RawTable]:
    """A delimited file (CSV, TSV, a Markdown table) as tables of at most ``rows`` rows.

    The header is the first record (its names may be quoted over several lines), below a
    title left out and said in the first table's notes (``_past_titles``); the delimiter
    is the header line's most frequent of , ; tab |. The records are read by the csv
    module (RFC 4180), a block of ``rows`` lines at a time, a record open at the end of a
    block going on in the next; a block without a quote character, where every line is a
    record, goes through Arrow's reader instead (the same fields, faster).
    """
    rows = rows or CHUNK_ROWS
    source = Source(path)
    lines = itertools.chain.from_iterable(_physical_lines(path))
    header_at, titles, rest = _past_titles(lines)
    if header_at is None:
        raise ImportDataError(f"{path}: empty file (a header line was expected)")
    number, text = header_at
    delimiter = sniff_delimiter(text)
    reader = csv.reader(_broken(itertools.chain([text], rest)), delimiter=delimiter,
                        strict=True)
    try:
        header = [name.strip() for name in next(reader)]
    except csv.Error as exc:
        raise ImportDataError(f"{source.at(number)}: not CSV: the header: {exc}") from None
    _no_duplicate_names(source, header)
    notes = [f"{source.at(n)}: {t.strip()!r} above the header taken as a title and left out"
             for n, t in titles]
    first = number + reader.line_num
    carry: list[str] = []
    produced = False
    while True:
        block = carry + list(itertools.islice(rest, rows))
        last = len(block) == len(carry)
        table = None
        if not carry and not any('"' in line for line in block):
            kept = [i for i, line in enumerate(block) if not _skipped(line)]
            cells = _arrow_rows("\n".join(block[i] for i in kept), len(header), delimiter) \
                if kept else np.empty((0, len(header)), dtype=object)
            if cells is not None and len(cells) == len(kept):
                table = _block(source, header, [first + i for i in kept], cells, notes)
                carry = []
        if table is None:
            numbers, found, used = _records(source, first, block, delimiter, last)
            table = _block(source, header, numbers, found, notes)
            carry = block[used:]
        first += len(block) - len(carry)
        if len(table) or (last and not produced):
            yield table
            produced, notes = True, []
        if last:
            return


def _past_titles(lines: Iterator[str]) -> tuple[tuple[int, str] | None,
                                                list[tuple[int, str]], Iterator[str]]:
    """(number, text) of the header's line (None: no line but blank ones and comments),
    those of the title lines above it (``header_line``), and the lines after it."""
    from .detect import TITLE_LINES, header_line

    ahead: list[tuple[int, str]] = []
    seen: list[str] = []
    for number, text in enumerate(lines, 1):
        seen.append(text)
        if not _skipped(text):
            ahead.append((number, text))
            if len(ahead) > TITLE_LINES:
                break
    if not ahead:
        return None, [], lines
    at = max(header_line([text for _, text in ahead], known=False), 0)
    return ahead[at], ahead[:at], itertools.chain(seen[ahead[at][0]:], lines)


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
