"""Storage: Parquet schemas and metadata, atomic writes, importers, run folders.

The names below are imported on first use (see ``baccarat.lazy``): importing a light
submodule such as ``baccarat.io.importers.formats`` does not load pyarrow.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
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

__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, ".parquet"))
