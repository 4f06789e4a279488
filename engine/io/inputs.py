"""Any dataset a user points a command at: a coups Parquet dataset as it is, or anything
``baccarat import`` reads (a CSV, a scorecard, a log, a workbook) imported in memory.

A newcomer's first mistake is giving a recorded CSV where a Parquet dataset is expected;
every command that reads a dataset takes it instead, importing it with the importer's own
detection and checks (``baccarat.io.importers.import_files``) and saying so, so the same
file gives the same coups as ``baccarat import`` followed by the command would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BaccaratError

if TYPE_CHECKING:
    from ..coups import Coups
    from ..rules import TableRules

PARQUET_MAGIC = b"PAR1"


def import_note(path: str | Path) -> str:
    """The line a command prints when it imports ``path`` in memory."""
    return (f"{path} is not a coups Parquet dataset: importing it in memory as `baccarat "
            f"import` reads it, with the same checks (`baccarat import {path} --out DIR` "
            "keeps it)")


def is_coups_parquet(path: str | Path) -> bool:
    """Whether ``path`` is a coups dataset in Parquet: a file starting with Parquet's magic
    bytes, or a folder holding Parquet parts (``generate``'s and ``import``'s outputs)."""
    path = Path(path)
    if path.is_dir():
        return any(path.glob("*.parquet")) or (path / "_plan.json").exists() or \
            (path / "_dataset.json").exists()
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError:
        return False
    if head != PARQUET_MAGIC:
        return False
    import pyarrow.parquet as pq

    try:
        names = set(pq.read_schema(path).names)
    except Exception:  # noqa: BLE001 - not readable as Parquet: the importer says why
        return False
    return {"shoe", "outcome"} <= names


def import_in_memory(path: str | Path, rules: TableRules | None = None) -> Coups:
    """``path`` imported as ``baccarat import`` reads it (format detected, every coup
    checked; a problem raises the importer's one-line error), kept in memory."""
    from .importers import import_files

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_file() and path.stat().st_size == 0:
        raise BaccaratError(f"{path}: the file is empty; expected a coups dataset or a "
                            "file `baccarat import` reads")
    return import_files([path], rules=rules)


def read_dataset(path: str | Path, rules: TableRules | None = None,
                 on_import: Callable[[str], None] | None = None,
                 ) -> tuple[Coups, dict[str, Any]]:
    """The coups of ``path`` and its metadata, whatever it is: a coups Parquet dataset as
    ``baccarat.io.parquet.read_coups`` reads it, anything else imported in memory
    (``on_import`` gets :func:`import_note`'s line first; the metadata then holds the
    rules the coups were checked under)."""
    from .parquet import read_coups

    if not Path(path).exists():
        raise FileNotFoundError(f"no coups file at {path}")
    if is_coups_parquet(path):
        return read_coups(path)
    if on_import is not None and Path(path).exists():
        on_import(import_note(path))
    coups = import_in_memory(path, rules)
    used = rules if rules is not None else _default_rules()
    return coups, {"rules": used.model_dump(mode="json"), "imported_from": str(path)}


def _default_rules() -> TableRules:
    from ..rules import TableRules

    return TableRules()
