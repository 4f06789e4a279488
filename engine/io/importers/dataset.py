"""An import written like ``generate`` writes: a folder of Parquet parts, chunk by chunk.

The parts are written into a temporary folder beside the output and the folder is renamed
into place only when every file has been read and checked: a failed import leaves no
output, and an existing one is replaced (with ``force``) only by a complete import.
``_dataset.json`` describes the result (files, formats, coups, shoes, flagged coups).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...coups import Coups
from ...errors import BaccaratError
from ...rules import TableRules
from ..parquet import (
    DATASET_FILE,
    check_output_free,
    coups_metadata,
    temporary_sibling,
    write_json_atomic,
    write_part,
)
from .detect import detect_format
from .importer import ImportReport, iter_checked, sequence_rules
from .readers import ReadOptions
from .tokens import using_words

#: Coups per part: parts are written once this many coups are ready.
PART_COUPS = 500_000


def _replace(temp: Path, out: Path) -> None:
    """Put the finished folder ``temp`` at ``out``, the old output removed only after."""
    old = None
    if out.exists() or out.is_symlink():
        old = temporary_sibling(out)
        os.replace(out, old)
    os.replace(temp, out)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


def import_dataset(
    paths: Iterable[str | Path],
    out: str | Path,
    *,
    format: str | None = None,
    rules: TableRules | None = None,
    keep_invalid: bool = False,
    options: ReadOptions | None = None,
    report: ImportReport | None = None,
    force: bool = False,
    on_file: Callable[[Path, str], None] | None = None,
    part_coups: int = PART_COUPS,
) -> dict[str, Any]:
    """Import recorded files into the coups folder ``out``, chunk by chunk of whole shoes.

    The same coups as ``import_files`` (same checks, same errors), written as parts of
    about ``part_coups`` coups that pandas, pyarrow, DuckDB and ``read_coups`` read as
    one table; memory is bounded by the chunk, not by the files. Returns the
    ``_dataset.json`` document.
    """
    rules = rules if rules is not None else TableRules.model_validate({})
    report = report if report is not None else ImportReport()
    files = [Path(p) for p in paths]
    target = Path(out)
    check_output_free(target, force)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = temporary_sibling(target)
    temp.mkdir()
    stored_rules, _ = sequence_rules(rules)
    with using_words((options or ReadOptions()).words):
        formats = [format or detect_format(f) for f in files]
    metadata = coups_metadata(stored_rules, source="import", files=[str(f) for f in files],
                              formats=formats, keep_invalid=keep_invalid)
    try:
        pending: list[Coups] = []
        parts = coups = shoes = invalid = 0

        def flush() -> None:
            nonlocal parts
            if not pending:
                return
            chunk = Coups.concat(pending)
            pending.clear()
            write_part([chunk.to_arrow()], temp, parts, metadata)
            parts += 1

        ready = 0
        for part in iter_checked(files, format, rules, keep_invalid, on_file, options,
                                 report):
            if report.problems and not keep_invalid:
                continue  # read on to count every problem, write nothing more
            coups += len(part)
            shoes += int(part.shoe_ids().size)
            invalid += int((~part.valid).sum()) if part.valid is not None else 0
            pending.append(part)
            ready += len(part)
            if ready >= part_coups:
                flush()
                ready = 0
        if report.problems and not keep_invalid:
            raise report.error()
        flush()
        if parts == 0:
            raise BaccaratError("no coups to import")
        document = {**metadata, "coups": coups, "shoes": shoes, "parts": parts,
                    "invalid_coups": invalid, "dropped_coups": report.dropped,
                    "warnings": len(report.warnings)}
        write_json_atomic(temp / DATASET_FILE, document)
        _replace(temp, target)
        return document
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)
