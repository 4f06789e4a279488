"""Tabular files (CSV, Parquet) read into one shape: named text columns with places.

What the columns mean is decided afterwards, by ``layout``, the same way for every
container, so a column layout that works in CSV works in JSON and Parquet too.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .records import ImportDataError, Source

_DELIMITERS = ",;\t|"


@dataclass
class RawTable:
    """Columns of text (None where absent) read from one file, with each row's line.

    ``group`` (JSON only) numbers the enclosing shoe object of each row (-1: none), with
    that object's label and line in ``group_labels`` / ``group_lines``.
    """

    source: Source
    columns: dict[str, np.ndarray]
    lines: np.ndarray
    group: np.ndarray | None = None
    group_labels: list[str | None] = field(default_factory=list)
    group_lines: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what reading it left out, and why
    #: which table, sheet or list of the file it is, and why (shown by --dry-run)
    why: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.lines.shape[0])


_FRAMED = re.compile(r"^\s*\|.*\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
#: Lines looked at to tell a Markdown table.
MARKDOWN_SNIFF_LINES = 50


def is_markdown_table(lines: Iterable[str]) -> bool:
    """Whether text holds a Markdown table: a row framed by pipes (``| a | b |``) with the
    rule of dashes (``|---|---|``) under it, as notes apps and forum posts write them."""
    sample = [line for line in itertools.islice(lines, MARKDOWN_SNIFF_LINES) if line.strip()]
    return any(_FRAMED.match(row) and _RULE.match(rule) and "-" in rule
               for row, rule in itertools.pairwise(sample))


def markdown_rows(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """(line number, row) of a Markdown table's rows, their outer pipes taken off, so the
    table reads as a file delimited by ``|``: the rule under the header and any text
    around the table (a post's first sentence, say) are left out."""
    for number, line in lines:
        if _FRAMED.match(line) and not _RULE.match(line):
            yield number, line.strip()[1:-1]


def table_lines(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """The numbered lines of a delimited file as its rows: a Markdown table's rows
    (``markdown_rows``) when it is one, else every line as it is."""
    head = list(itertools.islice(lines, MARKDOWN_SNIFF_LINES))
    everything = itertools.chain(head, lines)
    return markdown_rows(everything) if is_markdown_table(t for _, t in head) else everything


def sniff_delimiter(header: str) -> str:
    """The delimiter of a header line: the most frequent of , ; tab |."""
    counts = [(header.count(d), -i, d) for i, d in enumerate(_DELIMITERS)]
    best = max(counts)
    return best[2] if best[0] else ","


def read_csv(source: Source, text: str) -> RawTable:
    """A delimited text file with a header line; blank lines, '#' lines and rows of empty
    fields are skipped.

    Arrow's CSV reader does the work; a file it cannot read row for line (quoted line
    breaks, rows of the wrong width) goes through Python's csv module, which names the line.
    """
    physical = text.splitlines()
    if is_markdown_table(physical):
        rows = dict(markdown_rows(enumerate(physical)))
        physical = [rows.get(i, "") for i in range(len(physical))]  # lines keep their numbers
    delimiter = _first_delimiter(physical)
    kept = [i for i, line in enumerate(physical)
            if line.strip() and not line.lstrip().startswith("#")]
    if not kept:
        raise ImportDataError(f"{source.path}: empty file (a header line was expected)")
    header = next(csv.reader([physical[kept[0]]], delimiter=delimiter))
    header = [cell.strip() for cell in header]
    _no_duplicate_names(source, header)
    table = _arrow_csv("\n".join(physical[i] for i in kept[1:]), header, delimiter)
    if table is None or table.num_rows != len(kept) - 1:
        return _python_csv(source, text, delimiter)
    array = np.empty((table.num_rows, len(header)), dtype=object)
    for j in range(len(header)):
        array[:, j] = table.column(j).to_numpy(zero_copy_only=False)
    return _table(source, header, array, np.asarray(kept[1:], dtype=np.int64) + 1)


def _arrow_csv(body: str, header: list[str], delimiter: str) -> pa.Table | None:
    if not body:
        return pa.table({name: pa.array([], pa.string()) for name in header})
    names = [f"c{j}" for j in range(len(header))]
    try:
        return pacsv.read_csv(
            io.BytesIO(body.encode("utf-8")),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False),
        )
    except pa.ArrowInvalid:
        return None


def _python_csv(source: Source, text: str, delimiter: str) -> RawTable:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    for row in reader:
        if not any(row) or row[0].lstrip()[:1] == "#":
            continue
        if header is None:
            header = [cell.strip() for cell in row]
            continue
        if len(row) != len(header):
            if len(row) < len(header) or any(cell.strip() for cell in row[len(header):]):
                raise ImportDataError(
                    f"{source.at(reader.line_num)}: {len(row)} fields, but the header has "
                    f"{len(header)} ({', '.join(header)})"
                )
            row = row[: len(header)]
        rows.append(row)
        lines.append(reader.line_num)
    assert header is not None  # read_csv found a header line
    array = np.empty((len(rows), len(header)), dtype=object)
    if rows:
        array[:] = rows
    return _table(source, header, array, np.asarray(lines, dtype=np.int64))


def _table(source: Source, header: list[str], array: np.ndarray, lines: np.ndarray) -> RawTable:
    """The table without its rows of empty fields (spreadsheets export those)."""
    if array.size:
        filled = (array != "").any(axis=1)
        array, lines = array[filled], lines[filled]
    return RawTable(source=source, columns={name: array[:, j] for j, name in enumerate(header)},
                    lines=lines)


def _first_delimiter(lines: list[str]) -> str:
    for line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            return sniff_delimiter(line)
    return ","


def _no_duplicate_names(source: Source, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ImportDataError(f"{source.path}: column {name!r} appears twice in the header")
        seen.add(name)


# ---------------------------------------------------------------- Parquet

def read_parquet(source: Source) -> RawTable:
    """A Parquet file: every column as text (lists of cards joined by spaces)."""
    try:
        table = pq.read_table(source.path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise ImportDataError(f"{source.path}: cannot read as Parquet: {exc}") from None
    columns = {name: _column_text(table.column(name)) for name in table.column_names}
    return RawTable(source=source, columns=columns,
                    lines=np.arange(1, table.num_rows + 1, dtype=np.int64))


def _column_text(column: pa.ChunkedArray) -> np.ndarray:
    array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
        value_type = pa.list_(pa.string())
        array = pc.binary_join(array.cast(value_type), " ")
    elif pa.types.is_floating(array.type):
        whole = pc.equal(array, pc.floor(array))
        as_int = pc.cast(pc.if_else(whole, array, None), pa.int64(), safe=False)
        array = pc.if_else(whole, pc.cast(as_int, pa.string()), pc.cast(array, pa.string()))
    elif not pa.types.is_string(array.type):
        array = array.cast(pa.string())
    return np.asarray(array.to_pylist(), dtype=object)
