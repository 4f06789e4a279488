"""The readers: each recorded shape is a function from a file (and options) to coup records.

Built-in readers are registered here by name; an installed package adds its own through
the entry-point group ``baccarat.importers``: the entry point names a function taking a
path and returning coup records (a list of dicts, or a pandas DataFrame, with the column
names of the csv format, nested dicts allowed). An optional ``detect(path) -> bool``
attribute of that function lets detection pick it; otherwise ``--format NAME`` does.
Everything a reader returns goes through the same column matching and checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...entry_points import installed
from .formats import FORMATS
from .guess.road import road_cells
from .jsonrecords import flatten, json_blocks
from .layout import table_records
from .lines import read_lines_text
from .messages import read_message_files
from .records import (
    CoupRecords,
    ImportDataError,
    SequenceRecords,
    Source,
    UnknownFormatError,
)
from .sheets import sqlite_blocks, xlsx_blocks
from .stream import csv_blocks, parquet_blocks
from .tables import RawTable, concat_tables
from .text import read_scorecard, read_sequence_text
from .tokens import BitCodes

Records = CoupRecords | SequenceRecords
ENTRY_POINT_GROUP = "baccarat.importers"


@dataclass(frozen=True)
class ReadOptions:
    """What a user said about how to read the files (the CLI flags)."""

    #: field -> source columns (``--column FIELD=SOURCE``)
    columns: dict[str, list[str]] = field(default_factory=dict)
    #: dotted path of the list of records in a JSON document (``--records``)
    records: str | None = None
    #: sheet of a workbook (``--sheet``), table of a database (``--table``)
    sheet: str | None = None
    table: str | None = None
    #: a platform's own outcome words (``--words banker=装,状``): key -> code
    words: dict[str, int] = field(default_factory=dict)
    #: a result column's winner and flags packed in bits (``--bits``)
    bits: BitCodes | None = None

    def outcome_words(self) -> dict[str, int]:
        """``words`` with the codes ``bits`` reads (a code given both ways must agree)."""
        if self.bits is None:
            return self.words
        coded = self.bits.words()
        for code, side in self.words.items():
            if coded.get(code, side) != side:
                raise ImportDataError(f"--words and --bits read code {code} as different "
                                      f"sides")
        return {**coded, **self.words}


@dataclass(frozen=True)
class Reader:
    """A named reader: what it reads, and how.

    ``read`` reads one file; ``read_many`` (when set) reads several files of the format
    as one stream (message logs) and returns one records set per file; ``blocks`` (when
    set) reads a big file as tables of rows, which the import takes in chunks of whole
    shoes (``read`` is then those tables joined).
    """

    name: str
    description: str
    read: Callable[[Path, ReadOptions], Records]
    read_many: Callable[[list[Path], ReadOptions], list[Records]] | None = None
    origin: str = "built-in"
    detect: Callable[[Path], bool] | None = None
    blocks: Callable[[Path, ReadOptions], Iterator[RawTable]] | None = None

    def read_files(self, paths: list[Path], options: ReadOptions) -> list[Records]:
        """Each file's records, in order."""
        if self.read_many is not None:
            return self.read_many(paths, options)
        return [self.read(path, options) for path in paths]


def _text_reader(parse: Callable[[Source, str], Records]) -> Callable[[Path, ReadOptions],
                                                                       Records]:
    def read(path: Path, options: ReadOptions) -> Records:
        return parse(Source(path), read_lines_text(path))
    return read


def _block_reader(name: str, blocks: Callable[[Path, ReadOptions], Iterator[RawTable]]
                  ) -> Reader:
    """A reader of tables of rows: ``read`` joins them (``tables.concat_tables``), a big
    road's cells read as its coups (``guess.road``) as the import reads them."""
    def read(path: Path, options: ReadOptions) -> Records:
        table = concat_tables(list(blocks(path, options)))
        return table_records(road_cells(table) or table, options.columns)
    return Reader(name, FORMATS[name], read, blocks=blocks)


def _read_messages(path: Path, options: ReadOptions) -> Records:
    return _read_message_files([path], options)[0]


def _read_message_files(paths: list[Path], options: ReadOptions) -> list[Records]:
    return read_message_files(paths, options.columns, options.records)


BUILT_IN: tuple[Reader, ...] = (
    Reader("scorecard", FORMATS["scorecard"], _text_reader(read_scorecard)),
    _block_reader("csv", lambda path, options: csv_blocks(path)),
    _block_reader("json", lambda path, options: json_blocks(path, options.records)),
    Reader("messages", FORMATS["messages"], _read_messages, read_many=_read_message_files),
    Reader("sequence", FORMATS["sequence"], _text_reader(read_sequence_text)),
    _block_reader("parquet", lambda path, options: parquet_blocks(path)),
    _block_reader("xlsx", lambda path, options: xlsx_blocks(path, options.sheet)),
    _block_reader("sqlite", lambda path, options: sqlite_blocks(path, options.table)),
)


def _records_table(path: Path, rows: Any) -> RawTable:
    """What a plugin returned (dicts, or a DataFrame) as a table of text columns."""
    if hasattr(rows, "to_dict") and hasattr(rows, "columns"):
        rows = rows.to_dict(orient="records")
    if not isinstance(rows, Iterable) or isinstance(rows, str | bytes | Mapping):
        raise ImportDataError(f"{path}: the reader returned {type(rows).__name__}, not coup "
                              f"records (a list of dicts or a DataFrame)")
    flat: list[dict[str, str | None]] = []
    for i, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            raise ImportDataError(f"{path}: record {i} from the reader is "
                                  f"{type(row).__name__}, not a dict")
        flat.append(flatten(dict(row)))
    names: dict[str, None] = {}
    for record in flat:
        names.update(dict.fromkeys(record))
    columns = {n: np.array([r.get(n) for r in flat], dtype=object) for n in names}
    source = Source(path, rows=True)
    return RawTable(source=source, columns=columns,
                    lines=np.arange(1, len(flat) + 1, dtype=np.int64))


def _plugin(name: str, function: Callable[[Path], Any], origin: str) -> Reader:
    def read(path: Path, options: ReadOptions) -> Records:
        try:
            rows = function(path)
        except ImportDataError:
            raise
        except (ValueError, OSError, KeyError, TypeError) as exc:
            raise ImportDataError(f"{path}: the {name} reader ({origin}) failed: "
                                  f"{type(exc).__name__}: {exc}") from None
        return table_records(_records_table(path, rows), options.columns)

    doc = (function.__doc__ or "").strip().splitlines()
    detect = getattr(function, "detect", None)
    return Reader(name, doc[0] if doc else f"installed reader {name}", read, origin=origin,
                  detect=detect if callable(detect) else None)


def installed_readers() -> list[Reader]:
    """The readers installed packages add (entry-point group ``baccarat.importers``)."""
    found = []
    for entry in sorted(installed(ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            function = entry.load()
        except Exception as exc:  # a broken plugin must not break the built-ins
            raise ImportDataError(f"the reader {entry.name!r} ({entry.value}) cannot be "
                                  f"loaded: {type(exc).__name__}: {exc}") from None
        if not callable(function):
            raise ImportDataError(f"the reader {entry.name!r} ({entry.value}) is not a "
                                  f"function")
        found.append(_plugin(entry.name, function, entry.value))
    return found


def readers() -> dict[str, Reader]:
    """Every reader by name: the built-ins, then the installed ones."""
    table = {r.name: r for r in BUILT_IN}
    for reader in installed_readers():
        if reader.name in table:
            raise ImportDataError(f"the installed reader {reader.name!r} ({reader.origin}) "
                                  f"has the name of a built-in reader")
        table[reader.name] = reader
    return table


def get_reader(name: str) -> Reader:
    """The reader called ``name``, or an error listing them."""
    table = {r.name: r for r in BUILT_IN}
    if name not in table:
        table = readers()
    if name not in table:
        raise UnknownFormatError(f"unknown format {name!r}: expected one of "
                                 f"{', '.join(table)}")
    return table[name]
