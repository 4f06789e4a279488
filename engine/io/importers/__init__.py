"""Recorded shoes into the coups table: scorecards, card-level coup records, full card
sequences, in text, CSV, JSON or Parquet (see data/README.md for every format).

``import_files`` is the one entry point (the ``baccarat import`` command is a thin layer
over it); ``detect_format`` tells a file's format from its content. The names below are
imported on first use (see ``baccarat.lazy``).
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_exports
from .formats import FORMATS

if TYPE_CHECKING:
    from .detect import detect_format
    from .importer import import_files, read_records, sequence_rules
    from .records import (
        ImportDataError,
        InvalidCoupError,
        UnknownCardError,
        UnknownFormatError,
    )

__all__ = [
    "FORMATS",
    "ImportDataError",
    "InvalidCoupError",
    "UnknownCardError",
    "UnknownFormatError",
    "detect_format",
    "import_files",
    "read_records",
    "sequence_rules",
]

__getattr__ = lazy_exports(__name__, {
    "detect_format": ".detect", "import_files": ".importer", "read_records": ".importer",
    "sequence_rules": ".importer", "ImportDataError": ".records",
    "InvalidCoupError": ".records", "UnknownCardError": ".records",
    "UnknownFormatError": ".records",
})
