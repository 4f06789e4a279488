"""Tabular files (CSV, Parquet) read into one shape: named text columns with places.

What the columns mean is decided afterwards, by ``layout``, the same way for every
container, so a column layout that works in CSV works in JSON and Parquet too.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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


def sniff_delimiter(header: str) -> str:
    """The delimiter of a header line: the most frequent of , ; tab |."""
    counts = [(header.count(d), -i, d) for i, d in enumerate(_DELIMITERS)]
    best = max(counts)
    return best[2] if best[0] else ","


def concat_tables(tables: list[RawTable]) -> RawTable:
    """Tables of one file read a block at a time, as one (a column missing from a block
    is None there; JSON's shoe objects are numbered file-wide)."""
    first = tables[0]
    if len(tables) == 1:
        return first
    names = dict.fromkeys(n for t in tables for n in t.columns)
    grouped = any(t.group is not None for t in tables)
    return RawTable(
        source=tables[-1].source,
        columns={n: np.concatenate([t.columns.get(n, np.full(len(t), None, dtype=object))
                                    for t in tables]) for n in names},
        lines=np.concatenate([t.lines for t in tables]),
        group=np.concatenate([t.group if t.group is not None else np.full(len(t), -1)
                              for t in tables]) if grouped else None,
        group_labels=next((t.group_labels for t in reversed(tables) if t.group_labels), []),
        group_lines=next((t.group_lines for t in reversed(tables) if t.group_lines), []),
        notes=[note for t in tables for note in t.notes],
        why={k: v for t in reversed(tables) for k, v in t.why.items()})


def _no_duplicate_names(source: Source, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ImportDataError(f"{source.path}: column {name!r} appears twice in the header")
        seen.add(name)


# ---------------------------------------------------------------- Parquet

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
