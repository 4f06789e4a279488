"""Parquet files that say what they are, written so that none is ever half-written.

Every file carries a JSON document under the schema metadata key ``baccarat`` (the
kind of table, the rules, the parameters...). Writes go to a temporary name in the same
folder and are renamed into place only when complete.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..coups import Coups
from ..errors import BaccaratError
from ..rules import TableRules

METADATA_KEY = b"baccarat"
COMPRESSION = "zstd"


class OutputExistsError(BaccaratError):
    """An output that already exists and was not to be overwritten."""


def check_output_free(path: Path, force: bool) -> None:
    """Refuse to replace an existing output unless ``force`` is given."""
    if path.exists() and not force:
        raise OutputExistsError(f"{path} already exists; pass --force to overwrite it")


def temporary_sibling(path: Path) -> Path:
    """A unique temporary name beside ``path`` (same folder, so the rename is atomic)."""
    return path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")


def with_metadata(table: pa.Table, metadata: dict[str, Any]) -> pa.Table:
    """``table`` with ``metadata`` stored as JSON under the ``baccarat`` schema key."""
    existing = dict(table.schema.metadata or {})
    existing[METADATA_KEY] = json.dumps(metadata, sort_keys=True, default=str).encode()
    return table.replace_schema_metadata(existing)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write; rename it to ``path`` only if the block succeeds."""
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    temp = temporary_sibling(final)
    try:
        yield temp
        os.replace(temp, final)
    finally:
        if temp.exists():
            temp.unlink()


def write_table_atomic(table: pa.Table, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write ``table`` as zstd Parquet at ``path`` with ``metadata``, atomically."""
    with atomic_path(path) as temp:
        pq.write_table(with_metadata(table, metadata), temp, compression=COMPRESSION)
    return Path(path)


def write_tables_atomic(
    tables: Iterable[pa.Table], path: str | Path, metadata: dict[str, Any]
) -> int:
    """Stream ``tables`` (same schema) into one Parquet file, atomically; returns rows."""
    rows = 0
    writer: pq.ParquetWriter | None = None
    with atomic_path(path) as temp:
        try:
            for table in tables:
                table = with_metadata(table, metadata)
                if writer is None:
                    writer = pq.ParquetWriter(temp, table.schema, compression=COMPRESSION)
                writer.write_table(table)
                rows += table.num_rows
        finally:
            if writer is not None:
                writer.close()
    return rows


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``baccarat`` metadata of a Parquet file or of the first part of a folder."""
    path = Path(path)
    if path.is_dir():
        parts = sorted(path.glob("*.parquet"))
        if not parts:
            return {}
        path = parts[0]
    schema = pq.read_schema(path)
    raw = (schema.metadata or {}).get(METADATA_KEY)
    return json.loads(raw) if raw else {}


def coups_metadata(rules: TableRules | None, **extra: Any) -> dict[str, Any]:
    """The metadata a coups file carries: its kind, its rules and where it came from."""
    return {"kind": "coups", "rules": rules.model_dump() if rules else None, **extra}


def write_coups(coups: Coups, path: str | Path, rules: TableRules | None, **extra: Any) -> Path:
    """Write a coups table atomically, with its rules in the metadata."""
    return write_table_atomic(coups.to_arrow(), path, coups_metadata(rules, **extra))


def read_coups(path: str | Path) -> tuple[Coups, dict[str, Any]]:
    """Read a coups Parquet file (or a folder of parts) and its metadata."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no coups file at {path}")
    table = pq.read_table(path)
    metadata = read_metadata(path)
    coups = Coups.from_arrow(table)
    rules = metadata.get("rules")
    if rules:
        coups.decks = int(rules.get("decks", 8))
    return coups, metadata
