"""An import written like ``generate`` writes: a folder of Parquet parts, chunk by chunk.

The output is claimed for the whole import (``baccarat.io.owner.claim_output``: its name
locked, so a second import into it, or a writer replacing a dataset a run reads, is
refused), the parts are written into a temporary folder beside it, and the folder is
renamed into place only when every file has been read and checked, and only if nothing
appeared at the output meanwhile: a failed import leaves nothing, and an existing output
is replaced (with ``force``) only by a complete import. ``_dataset.json`` describes the
result (files, formats, coups, shoes, flagged coups).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...coups import Coups
from ...errors import BaccaratError
from ...rules import TableRules
from ..owner import claim_output
from ..parquet import DATASET_FILE, coups_metadata, write_json_atomic, write_part
from .detect import detect_format
from .importer import ImportReport, iter_checked, sequence_rules
from .readers import ReadOptions
from .tokens import using_words

#: Coups per part: parts are written once this many coups are ready.
PART_COUPS = 500_000


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
    with claim_output(target, force=force, folder=True, what="coups dataset") as claim:
        return _write(files, claim.temp, format, rules, keep_invalid, options, report,
                      on_file, part_coups)


def _write(files: list[Path], folder: Path, format: str | None, rules: TableRules,
           keep_invalid: bool, options: ReadOptions | None, report: ImportReport,
           on_file: Callable[[Path, str], None] | None, part_coups: int) -> dict[str, Any]:
    """Read, check and write the coups of ``files`` as parts into ``folder``."""
    stored_rules, _ = sequence_rules(rules)
    options = options or ReadOptions()
    with using_words(options.outcome_words(), options.bits):
        formats = [format or detect_format(f) for f in files]
    metadata = coups_metadata(stored_rules, source="import", files=[str(f) for f in files],
                              formats=formats, keep_invalid=keep_invalid)
    pending: list[Coups] = []
    parts = coups = shoes = invalid = 0

    def flush() -> None:
        nonlocal parts
        if not pending:
            return
        chunk = Coups.concat(pending)
        pending.clear()
        write_part([chunk.to_arrow()], folder, parts, metadata)
        parts += 1

    ready = 0
    for part in iter_checked(files, format, rules, keep_invalid, on_file, options, report):
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
    write_json_atomic(folder / DATASET_FILE, document)
    return document
