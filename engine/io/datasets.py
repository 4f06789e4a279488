"""A dataset as a run planned it: each file's size and fingerprint, checked before a chunk
reads it, so a run never mixes two datasets.

A run holds a shared lock on the dataset it reads (``baccarat.io.owner.pinned``), so no
writer of ours replaces it meanwhile. A program that takes no lock (an editor, ``cp``,
another machine on a shared disk) is caught here: when the run plans, every file of the
dataset is read once and recorded (``PartPrint``: its size, modification time, the digest
of its Parquet footer and of all its bytes); before a chunk reads a file, the file is
opened and checked against its record (size and footer; all its bytes again when its
modification time moved), the chunk reads the row groups from that very open file, and the
file is checked once more after. A file that changed stops the run with ``DatasetChanged``
(bad input: never retried into a mix), which says the run is resumable once the dataset
is back as it was.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import BaccaratError, shown_path

#: The tail of a Parquet file: the footer's length (4 bytes, little-endian) and "PAR1".
_TAIL = 8


class DatasetChanged(BaccaratError):
    """A dataset file that is no longer what the run planned."""


@dataclass(frozen=True)
class PartPrint:
    """One file of a dataset as the run planned it."""

    file: str       # the absolute path
    bytes: int
    mtime_ns: int
    footer: str     # SHA-256 of the Parquet footer
    sha256: str     # SHA-256 of every byte

    def record(self, dataset: Path) -> dict[str, Any]:
        """The file's record in a plan: its name in the dataset, size and checksum."""
        name = Path(self.file).name if dataset.is_dir() else dataset.name
        return {"part": name, "bytes": self.bytes, "sha256": self.sha256}


def dataset_prints(files: list[Path]) -> tuple[list[PartPrint], str]:
    """The record of each file, read once, and the fingerprint of the dataset (the first 16
    hex digits of the SHA-256 of all the files' bytes in order)."""
    whole = hashlib.sha256()
    prints = []
    for file in files:
        fd = os.open(file, os.O_RDONLY | os.O_CLOEXEC)
        try:
            before = os.fstat(fd)
            digest = hashlib.sha256()
            with os.fdopen(os.dup(fd), "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
                    whole.update(block)
            footer = _footer(fd, before.st_size)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
            raise DatasetChanged(f"{shown_path(str(file))} changed while it was being read; "
                                 f"run again once nothing writes it")
        prints.append(PartPrint(str(Path(file).absolute()), before.st_size,
                                before.st_mtime_ns, footer, digest.hexdigest()))
    return prints, whole.hexdigest()[:16]


def _footer(fd: int, size: int) -> str:
    """SHA-256 of the Parquet footer of the open file ``fd`` of ``size`` bytes ("" if the
    file is too short to have one)."""
    if size < _TAIL:
        return ""
    tail = os.pread(fd, _TAIL, size - _TAIL)
    length = int.from_bytes(tail[:4], "little")
    if length + _TAIL > size:
        return hashlib.sha256(tail).hexdigest()
    return hashlib.sha256(os.pread(fd, length, size - _TAIL - length) + tail).hexdigest()


def _content(fd: int) -> str:
    digest = hashlib.sha256()
    with os.fdopen(os.dup(fd), "rb") as handle:
        handle.seek(0)
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _problem(fd: int, planned: PartPrint) -> str | None:
    """How the open file ``fd`` differs from ``planned`` (None: it is the planned file)."""
    stat = os.fstat(fd)
    if stat.st_size != planned.bytes:
        return f"{planned.bytes:,} bytes when the run planned, {stat.st_size:,} now"
    if _footer(fd, stat.st_size) != planned.footer:
        return "its Parquet footer is not the one the run planned"
    if stat.st_mtime_ns != planned.mtime_ns and _content(fd) != planned.sha256:
        return "its bytes are not the ones the run planned (same size, rewritten)"
    return None


def changed(planned: PartPrint, problem: str) -> DatasetChanged:
    """The error of a dataset file that changed under a run."""
    return DatasetChanged(
        f"{shown_path(planned.file)} changed while the run was reading the dataset "
        f"({problem}); the run stopped rather than mix two datasets")


@contextmanager
def opened_as_planned(planned: PartPrint) -> Iterator[pq.ParquetFile]:
    """The file of ``planned``, open and checked against it, as a ``ParquetFile`` reading
    that very open file (a rename over the path meanwhile does not reach it); checked once
    more when the block ends (an in-place rewrite meanwhile does)."""
    try:
        fd = os.open(planned.file, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise changed(planned, "it is gone") from None
    try:
        problem = _problem(fd, planned)
        if problem is not None:
            raise changed(planned, problem)
        before = os.fstat(fd)
        same = f"/proc/self/fd/{fd}"  # this open file, whatever is at its path now
        with pa.OSFile(same if os.path.exists(same) else planned.file) as source:
            yield pq.ParquetFile(source)
        after = os.fstat(fd)
        if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
            raise changed(planned, "it was rewritten while the chunk read it")
    finally:
        os.close(fd)


__all__ = ["DatasetChanged", "PartPrint", "changed", "dataset_prints", "opened_as_planned"]
