"""Storage: Parquet schemas and metadata, atomic writes, importers, run folders."""

from .parquet import (
    METADATA_KEY,
    OutputExistsError,
    read_coups,
    read_metadata,
    write_coups,
    write_table_atomic,
)

__all__ = [
    "METADATA_KEY",
    "OutputExistsError",
    "read_coups",
    "read_metadata",
    "write_coups",
    "write_table_atomic",
]
