"""Recorded shoes into the coups table: scorecards, card-level coup records, full card
sequences, in text, CSV, JSON or Parquet (see data/README.md for every format).

``import_files`` is the one entry point (the ``baccarat import`` command is a thin layer
over it); ``detect_format`` tells a file's format from its content.
"""

from .detect import FORMATS, detect_format
from .importer import import_files, read_records, sequence_rules
from .records import ImportDataError, InvalidCoupError, UnknownCardError, UnknownFormatError

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
