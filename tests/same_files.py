"""Comparing output folders file by file: the determinism and resume tests' evidence."""

from __future__ import annotations

from pathlib import Path


def output_files(folder: Path) -> dict[str, bytes]:
    """Every Parquet file of a run or dataset folder (parts and summary) by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.parquet"))
            if p.is_file()}


def assert_same_files(a: Path, b: Path) -> None:
    """The two folders hold the same Parquet files, byte for byte."""
    files_a, files_b = output_files(a), output_files(b)
    assert sorted(files_a) == sorted(files_b)
    for name in files_a:
        assert files_a[name] == files_b[name], name
