"""Parquet files that say what they are, written so that none is ever half-written.

Every file carries a JSON document under the schema metadata key ``baccarat`` (the
kind of table, the rules, the parameters...). Writes go to a temporary name in the same
folder and are renamed into place only when complete. Long jobs write folders of parts
(see "Partitioned outputs" below), which every reader here takes as one table.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..coups import Coups
from ..errors import BaccaratError, ChunkFailed, DiskFullError, Interrupted, is_disk_full
from ..rules import TableRules
from .datasets import DatasetChanged, PartPrint, opened_as_planned
from .owner import (  # the lock's names, also where run-folder code always found them
    FolderLock as FolderLock,
)
from .owner import (
    FolderLockedError as FolderLockedError,
)
from .owner import (
    OutputExistsError,
    OutputLock,
    check_name,
    fsync_folder,
    fsync_path,
    lock_path,
    pinned,
    refused,
    remove_leftovers,
    temporary_sibling,
)

METADATA_KEY = b"baccarat"
COMPRESSION = "zstd"

#: The mark every HTML report carries in its head, so --force knows the file is ours.
HTML_GENERATOR = '<meta name="generator" content="baccarat-backtest">'


def is_output_file(path: Path) -> bool:
    """Whether the plain file ``path`` is one this project wrote (a Parquet file carrying
    our schema metadata, or an HTML report with our generator mark), and so may be
    replaced with --force."""
    try:
        with path.open("rb") as handle:
            if HTML_GENERATOR.encode() in handle.read(4096):
                return True
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException, ValueError):
        return False
    return METADATA_KEY in metadata


def check_output_free(path: Path, force: bool) -> None:
    """Refuse to replace an existing output unless ``force`` is given, and even then
    refuse anything this project did not write: a user's file is never lost. (A check
    only: ``baccarat.io.owner.claim_output`` owns an output while it is written.)"""
    if not path.exists() and not path.is_symlink():
        return
    if not force:
        raise OutputExistsError(f"{path} already exists; pass force=True to overwrite it",
                                params=("force",))
    ours = is_output_folder(path) if path.is_dir() else is_output_file(path)
    if path.is_symlink() or not ours:
        raise OutputExistsError(
            f"{path} is not an output baccarat wrote; force=True replaces only those: "
            f"remove it yourself or choose another out", params=("force", "out"))


def with_metadata(table: pa.Table, metadata: dict[str, Any]) -> pa.Table:
    """``table`` with ``metadata`` stored as JSON under the ``baccarat`` schema key."""
    existing = dict(table.schema.metadata or {})
    existing[METADATA_KEY] = json.dumps(metadata, sort_keys=True, default=str).encode()
    return table.replace_schema_metadata(existing)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write; flush it and rename it to ``path`` only if the
    block succeeds (then flush the folder). For a file inside an output this process owns
    (a run's files, a plan); a command's own output goes through
    ``baccarat.io.owner.claim_output``.

    A write that finds the disk full raises ``DiskFullError`` naming ``path`` (and leaves
    no temporary behind).
    """
    final = Path(path)
    temp = temporary_sibling(final)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        yield temp
        fsync_path(temp)
        os.replace(temp, final)
        fsync_folder(final.parent)
    except OSError as exc:
        if is_disk_full(exc):
            raise disk_full(exc, final) from None
        raise
    finally:
        if temp.exists():
            temp.unlink()


def disk_full(exc: OSError, path: Path) -> OSError:
    """``exc`` as a ``DiskFullError`` naming ``path`` (unchanged if it is one already)."""
    if isinstance(exc, DiskFullError):
        return exc
    return DiskFullError(f"no space left on device writing {path}")


def write_table_atomic(table: pa.Table, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Write ``table`` as zstd Parquet at ``path`` with ``metadata``, atomically."""
    with atomic_path(path) as temp:
        pq.write_table(with_metadata(table, metadata), temp, compression=COMPRESSION)
    return Path(path)


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``baccarat`` metadata of a Parquet file or of the first part of a folder."""
    path = Path(path)
    if path.is_dir():
        parts = parquet_files(path)
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
    """Write a coups table as one Parquet file, with its rules in the metadata: an output of
    its own (``baccarat.io.owner.claim_output``), which replaces a file already at ``path``
    (as this function always has) but not one a run is reading or writing."""
    from .owner import claim_output

    with claim_output(path, force=True, ours=Path.is_file, what="coups file") as claim:
        pq.write_table(with_metadata(coups.to_arrow(), coups_metadata(rules, **extra)),
                       claim.temp, compression=COMPRESSION)
    return Path(path)


class CoupsFile(NamedTuple):
    """What ``read_coups`` returns: the coups and the dataset's metadata (a tuple, so
    ``coups, metadata = read_coups(path)`` reads both)."""

    coups: Coups
    #: The ``baccarat`` metadata of the file: ``rules`` (the TableRules it was dealt or
    #: recorded under, as a dict), and for generated datasets ``seed``, ``shoes``,
    #: ``shuffle``; for imports ``source``/``formats``; empty for a plain Parquet file.
    metadata: dict[str, Any]


def read_coups(path: str | Path) -> CoupsFile:
    """Read a coups Parquet file (or a folder of parts): ``CoupsFile(coups, metadata)``,
    the ``Coups`` table (its ``decks`` from the metadata's rules) and the metadata dict.

    A folder an interrupted ``generate`` left is refused (``IncompleteOutputError``).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no coups file at {path}")
    with pinned(path):  # no writer of ours replaces it while it is read
        check_complete(path)
        files = parquet_files(path)
        before = files_as_they_are(files)
        table = pq.read_table([str(f) for f in files]) if path.is_dir() else \
            pq.read_table(path)
        metadata = read_metadata(path)
        if files_as_they_are(parquet_files(path)) != before:  # a program that takes no lock
            raise DatasetChanged(f"{path} changed while it was being read (a file of it was "
                                 f"written meanwhile); run again once nothing writes it")
    coups = Coups.from_arrow(table)
    rules = metadata.get("rules")
    if rules:
        coups.decks = int(rules.get("decks", 8))
    return CoupsFile(coups, metadata)


def files_as_they_are(files: Sequence[Path]) -> list[tuple[str, int, int, int]]:
    """Each file's name, inode, size and modification time: what changes when a program
    writes it, in place or by a rename."""
    found = []
    for file in files:
        stat = os.stat(file)
        found.append((str(file), stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return found


# --- Partitioned outputs: a folder of parts, each written atomically ------------------------
#
# A long job (``generate``, ``backtest``) writes its output as a folder of Parquet parts,
# ``part-00000.parquet``, ``part-00001.parquet``..., one per chunk, each renamed into place
# only when complete. pandas, pyarrow and DuckDB (``read_parquet('dir/*.parquet')``) read
# the folder as one table, in part order; they skip the ``_*`` and ``.*`` files kept beside
# the parts. While the job runs, ``_plan.json`` (what is being written, and how it is
# chunked) sits in the output folder; it is replaced by the completion marker at the end, so
# an interrupted output is visibly incomplete and ``--resume`` knows what is left to do.

PLAN_FILE = "_plan.json"
DATASET_FILE = "_dataset.json"
PART_KEY = b"baccarat_part"
_PART_PREFIX = "part-"


class IncompleteOutputError(BaccaratError):
    """An output folder left by an interrupted run (finish it with --resume)."""


def part_name(index: int) -> str:
    """The file name of part ``index``: ``part-00042.parquet``."""
    return f"{_PART_PREFIX}{index:05d}.parquet"


def part_index(path: Path) -> int | None:
    """The index of a part file from its name, or None when it is not a part."""
    name = path.name
    if not (name.startswith(_PART_PREFIX) and name.endswith(".parquet")):
        return None
    digits = name[len(_PART_PREFIX):-len(".parquet")]
    return int(digits) if digits.isdigit() else None


def parquet_files(path: str | Path) -> list[Path]:
    """The Parquet files of a dataset: the file itself, or a folder's parts in order.

    A folder's files are those a pyarrow dataset reads: every ``*.parquet`` not starting
    with ``_`` or ``.``, in name order (parts are zero-padded, so name order is part order).
    """
    path = Path(path)
    if not path.is_dir():
        return [path]
    return sorted(p for p in path.glob("*.parquet")
                  if p.is_file() and not p.name.startswith(("_", ".")))


def write_part(tables: Iterable[pa.Table], folder: str | Path, index: int,
               metadata: dict[str, Any], part_info: dict[str, Any] | None = None,
               row_group_rows: int | None = None, run_id: str | None = None) -> Path:
    """Write part ``index`` of ``folder`` from ``tables`` (one row group or more each, of at
    most ``row_group_rows`` rows; default 131,072).

    Every part of a folder carries the same ``metadata`` (what the table is); ``part_info``
    (this chunk's own figures) goes under a separate schema key, read by ``read_part_info``.
    The part appears under its final name only when complete. With ``run_id`` (a worker's
    part of a run) it is written under a staged name carrying the run's id, returned, and
    only the run that planned it gives it its final name (``accept_part``); the folder
    must exist (a folder removed meanwhile is not made again).
    """
    path = Path(folder) / part_name(index)
    extra = {PART_KEY: json.dumps(part_info, sort_keys=True).encode()} if part_info else {}
    writer: pq.ParquetWriter | None = None
    with (atomic_path(path) if run_id is None else staged_path(path, run_id)) as temp:
        try:
            for table in tables:
                table = with_metadata(table, metadata)
                if extra:
                    table = table.replace_schema_metadata({**table.schema.metadata, **extra})
                if writer is None:
                    writer = pq.ParquetWriter(
                        temp, table.schema, compression=COMPRESSION,
                        write_statistics=_statistics(table.schema),
                        use_dictionary=dictionary_columns(table, metadata.get("kind")),
                        column_encoding=column_encodings(table, metadata.get("kind")))
                writer.write_table(table, row_group_size=row_group_rows or _ROW_GROUP_ROWS)
        finally:
            if writer is not None:
                writer.close()
        if writer is None:
            raise ValueError(f"part {index} of {folder}: no table to write")
    return path if run_id is None else temp


@contextmanager
def staged_path(path: Path, run_id: str) -> Iterator[Path]:
    """Yield the staged name of part ``path`` for run ``run_id``: flushed to the disk and
    kept if the block succeeds (for ``accept_part``), removed if it fails."""
    staged = path.with_name(f".{path.name}.{run_id}-{os.urandom(4).hex()}.tmp")
    try:
        yield staged
        fsync_path(staged)
        if not run_holds(path, run_id):  # a task the run left behind (Dask cannot stop
            staged.unlink(missing_ok=True)  # one mid-way): nothing of it stays
            raise BaccaratError(f"{path}: the run that planned it ({run_id}) is over; the "
                                f"part was not kept")
    except OSError as exc:
        staged.unlink(missing_ok=True)
        if is_disk_full(exc):
            raise disk_full(exc, path) from None
        raise
    except BaseException:
        staged.unlink(missing_ok=True)
        raise


def run_holds(part: Path, run_id: str) -> bool:
    """Whether run ``run_id`` still holds the output folder of ``part`` (the folder or,
    for a run folder's parts, the one above it), as the lock beside it says; True where
    the lock names no run (a full disk kept it from writing its name)."""
    for folder in (part.parent, part.parent.parent):
        try:
            holder = lock_path(folder).read_text().split()
        except (OSError, UnicodeDecodeError):
            continue
        if not holder or run_id in holder:
            return True
    return False


def accept_part(staged: str | Path, run_id: str, record: dict[str, Any] | None = None,
                log: PartLog | None = None) -> Path:
    """Give a part staged by a worker of run ``run_id`` its final name; returns it.

    A part staged by another run (an orphaned worker of a killed one) is refused: it is
    never renamed into place, and is removed with the other temporaries. With ``record``
    (``part_record`` of the staged file) and ``log``, the part's rows, size and checksum
    are logged (before the rename), so ``--resume`` can check it before trusting it.
    """
    staged = Path(staged)
    name = staged.name
    final, _, rest = name[1:].partition(".parquet.")
    if not (name.startswith(".") and rest.startswith(f"{run_id}-") and rest.endswith(".tmp")
            and part_index(Path(final + ".parquet")) is not None):
        raise BaccaratError(f"{staged}: not a part of this run ({run_id}); refused")
    if record is not None and staged.stat().st_size != record["bytes"]:
        raise BaccaratError(f"{staged}: {staged.stat().st_size} bytes, its worker wrote "
                            f"{record['bytes']}; refused")
    target = staged.with_name(final + ".parquet")
    if record is not None and log is not None:  # logged first: no part is ever unlogged
        log.append(target, record)
    os.replace(staged, target)
    fsync_folder(target.parent)
    return target


def part_record(path: str | Path) -> dict[str, Any]:
    """What a part is, to check it later: its rows (from its footer), its size in bytes
    and a checksum (SHA-256) of its bytes."""
    path = Path(path)
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"rows": pq.ParquetFile(path).metadata.num_rows, "bytes": size,
            "sha256": digest.hexdigest()}


#: The log of the parts of an output folder in progress: one JSON line per part renamed
#: into place (its path in the folder, rows, bytes, checksum), appended and flushed.
PART_LOG = "_parts.log"


class PartLog:
    """The parts of an output folder as they were written (``PART_LOG``), to verify them."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / PART_LOG

    def append(self, part: Path, record: dict[str, Any]) -> None:
        """Log ``part`` (a path in the folder) with its ``record``, flushed to the disk."""
        line = json.dumps({"part": self._name(part), **record},
                          sort_keys=True) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def _name(self, part: Path) -> str:
        return part.absolute().relative_to(self.folder.absolute()).as_posix()

    def records(self) -> dict[str, dict[str, Any]]:
        """The logged records by part path (a torn last line, from a power loss, is no
        record: its part is replayed)."""
        found: dict[str, dict[str, Any]] = {}
        try:
            text = self.path.read_text(errors="replace")
        except OSError:
            return found
        for line in text.splitlines():
            try:
                record = json.loads(line)
                found[str(record.pop("part"))] = record
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
        return found

    def verified(self, parts: Iterable[Path]) -> tuple[set[Path], list[tuple[Path, str]]]:
        """Of ``parts`` (finished parts on the disk), those whose rows, size and checksum
        are the ones logged when they were written, and the others with why."""
        records = self.records()
        good: set[Path] = set()
        bad: list[tuple[Path, str]] = []
        for part in parts:
            record = records.get(self._name(part))
            problem = "not in the log of parts written" if record is None else None
            if record is not None:
                try:
                    now = part_record(part)
                except (OSError, pa.ArrowException, ValueError) as exc:
                    problem = f"unreadable ({type(exc).__name__})"
                else:
                    differ = [k for k in ("rows", "bytes", "sha256") if now[k] != record.get(k)]
                    problem = f"its {', '.join(differ)} changed since written" if differ \
                        else None
            if problem is None:
                good.add(part)
            else:
                bad.append((part, problem))
        return good, bad

    def take(self) -> dict[str, dict[str, Any]]:
        """The records, the log removed (they go into the completion marker)."""
        records = self.records()
        self.path.unlink(missing_ok=True)
        return dict(sorted(records.items()))


#: Row groups hold at most this many rows: a reader's unit of memory, and what a reader of
#: a row range (a chunk) reads beyond it at each end.
_ROW_GROUP_ROWS = 1 << 17


def _statistics(schema: pa.Schema) -> list[str]:
    """The columns whose min/max a part records: the numeric ones, which readers filter on
    (config, session, shoe...). Statistics of dictionary-encoded text (cards, outcome) would
    cost more than the rest of the write and serve no filter."""
    return [f.name for f in schema if pa.types.is_integer(f.type) or
            pa.types.is_floating(f.type) or pa.types.is_boolean(f.type)]


#: Columns written without a dictionary, by kind of table: they change at (nearly) every
#: row, so a dictionary of them only costs time (twice a plain column's) and space. A
#: ledger's per-coup counters (its ids in long runs, config, session, shoe, keep theirs);
#: a sessions table's ids, one row per session, and its realized edge, a ratio that
#: almost never repeats.
_PLAIN_COLUMNS = {"ledger": frozenset({"coup", "session_coup"}),
                  "sessions": frozenset({"session", "first_shoe", "realized_edge"})}

#: Of those, the integer columns written as deltas: a sessions table's ids rise by one
#: (or a few) from row to row, which delta encoding packs into a few bits (a sessions
#: part 18% smaller and a seventh quicker to write than with dictionaries; a ledger's
#: small counters are quicker plain).
_DELTA_COLUMNS = {"sessions": frozenset({"session", "first_shoe"})}


def dictionary_columns(table: pa.Table, kind: str | None = None) -> list[str]:
    """The columns of a file worth dictionary-encoding, judged from its first ``table``.

    A choice of speed and size only: every encoding reads back the same values. All are,
    but the ``kind``'s plain columns (``_PLAIN_COLUMNS``) and a floating column
    of which a sample holds only zeros: a bet kind nobody staked, whose plain zeros
    compress to nothing while hashing each into a one-entry dictionary is a third of the
    cost of such a column. (A part of several configurations is judged by its first; a
    kind it never staked but a later one did is then written plain, a little larger.)
    """
    plain = _PLAIN_COLUMNS.get(kind or "", frozenset())
    return [name for name, column in zip(table.column_names, table.columns, strict=True)
            if name not in plain
            and not (pa.types.is_floating(column.type) and _zeros(column))]


def column_encodings(table: pa.Table, kind: str | None = None) -> dict[str, str] | None:
    """The columns of a file written by an encoding of their own (``_DELTA_COLUMNS``),
    or None: the others take pyarrow's (a dictionary, or plain values)."""
    delta = _DELTA_COLUMNS.get(kind or "", frozenset())
    chosen = {field.name: "DELTA_BINARY_PACKED" for field in table.schema
              if field.name in delta and pa.types.is_integer(field.type)}
    return chosen or None


def _zeros(column: pa.ChunkedArray, sample: int = 4096) -> bool:
    """Whether an evenly spaced sample of ``column`` (no nulls) holds only zeros."""
    if column.null_count or not len(column):
        return False
    values = column.chunk(0).to_numpy(zero_copy_only=False) if column.num_chunks == 1 \
        else column.to_numpy()
    step = max(1, values.size // sample)
    return not values[::step].any()


def read_part_info(path: str | Path) -> dict[str, Any]:
    """The per-part figures ``write_part`` stored in part ``path`` ({} if none)."""
    raw = (pq.read_schema(path).metadata or {}).get(PART_KEY)
    return json.loads(raw) if raw else {}


def finished_parts(folder: str | Path) -> set[int]:
    """The indices of the parts already complete in ``folder`` (renamed into place)."""
    folder = Path(folder)
    if not folder.is_dir():
        return set()
    return {i for p in folder.glob(f"{_PART_PREFIX}*.parquet")
            if (i := part_index(p)) is not None}


def verified_parts(output: Output, folder: str | Path | None = None) -> set[int]:
    """The finished parts of ``folder`` (default: the output folder itself) that pass their
    check (rows, size and checksum as ``output.log`` has them); the others are removed, to
    be written again."""
    where = output.folder if folder is None else Path(folder)
    found = [where / part_name(i) for i in sorted(finished_parts(where))]
    good, _ = output.log.verified(found)
    for part in found:
        if part not in good:
            part.unlink(missing_ok=True)
    return {i for i in finished_parts(where)}


def write_json_atomic(path: str | Path, document: dict[str, Any]) -> Path:
    """Write ``document`` as indented JSON at ``path``, atomically."""
    with atomic_path(path) as temp:
        temp.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n")
    return Path(path)


def remove_temporaries(folder: str | Path) -> int:
    """Delete the temporary files an interrupted writer left in ``folder`` (recursively)."""
    count = 0
    for path in Path(folder).rglob(".*.tmp"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        count += 1
    return count


#: The lock file older versions kept inside an output folder (the lock is now beside it,
#: ``baccarat.io.owner.lock_path``); still recognised as ours in a folder they left.
LOCK_FILE = "_owner.lock"


@dataclass(frozen=True)
class Output:
    """The output folder a run owns: its state ("new", "resume" or "complete"), the id
    its parts carry, and the log of the parts written into it."""

    folder: Path
    state: str
    run_id: str

    @property
    def log(self) -> PartLog:
        """The log of the parts written into the folder."""
        return PartLog(self.folder)


class _FolderClaim:
    """What a claim of a chunked job's folder made, so a failure removes that and no more."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lock = OutputLock(folder)
        self.fresh = False          # this run made the folder (or emptied it with --force)
        self.planned = False        # this run wrote the plan into a folder it did not make
        self.owned = False          # the claim succeeded: the folder is this run's to clear
        self.parents: list[Path] = []

    def undo(self) -> bool:
        """After a failure: remove what this run made and finished no part in, and what its
        stopped (or killed) workers staged; returns whether the folder is kept."""
        if self.owned and self.folder.is_dir():
            remove_temporaries(self.folder)  # never taken as parts: nothing to keep
        if not (self.fresh or self.planned):  # this run made nothing there
            self._remove_parents()
            return _exists(self.folder)
        kept = _abandon(self.folder, self.fresh)
        if kept and self.planned and not _has_parts(self.folder):  # back to how it was
            for name in (PLAN_FILE, PART_LOG):
                (self.folder / name).unlink(missing_ok=True)
        if not kept:
            self._remove_parents()
        return kept

    def _remove_parents(self) -> None:
        """Remove the folders made above the output for it (only while empty)."""
        for parent in reversed(self.parents):
            try:
                parent.rmdir()
            except OSError:
                break


@contextmanager
def owned_output(path: str | Path, plan: dict[str, Any], *, force: bool, resume: bool,
                 complete: str, ignore: tuple[str, ...] = ("command", ),
                 resumable: bool = True) -> Iterator[Output]:
    """Own the output folder of a chunked job for the block (see ``open_output``).

    The folder's name is locked (``baccarat.io.owner.OutputLock``) before anything is looked
    at or made, and for the block. If the block fails in a folder this run made (new, or
    replaced with ``force``) and no part was finished, the folder is removed; a folder it
    did not make is left as it was; otherwise it is left resumable. An interruption
    (``KeyboardInterrupt``) or a full disk is re-raised with a message saying which, and
    what was kept, and so is a chunk that failed twice (``ChunkFailed``). A folder that is
    not ``resumable`` (a temporary one) is removed.
    """
    folder = Path(path)
    claim = _FolderClaim(folder)
    try:
        state = _claim(folder, plan, claim, force=force, resume=resume,
                       complete=complete, ignore=ignore)
        claim.owned = True
    except BaseException as exc:
        claim.undo()
        claim.lock.release()
        if isinstance(exc, OSError):
            raise refused(exc, folder) from None
        raise
    try:
        yield Output(folder, state, claim.lock.run_id)
    except (KeyboardInterrupt, DiskFullError) as exc:
        if not resumable:
            shutil.rmtree(folder, ignore_errors=True)
        kept = claim.undo()
        what = _what_was_kept(folder, kept) if resumable else "nothing was kept"
        if isinstance(exc, DiskFullError):
            raise DiskFullError(f"{exc}; {what}") from None
        raise Interrupted(f"interrupted: {what}") from None
    except ChunkFailed as exc:  # what is left, and whether --resume has anything to finish
        kept = claim.undo()
        what = _what_was_kept(folder, kept, "resume=True") if resumable else "nothing was kept"
        raise ChunkFailed(exc.message, what) from exc.__cause__
    except BaseException:
        claim.undo()
        raise
    finally:
        claim.lock.release()


def open_output(path: str | Path, plan: dict[str, Any], *, force: bool, resume: bool,
                complete: str, ignore: tuple[str, ...] = ("command",)) -> str:
    """Prepare the output folder of a chunked job; returns "new", "resume" or "complete".

    A missing output is created with ``plan`` in ``_plan.json``. An existing one is replaced
    only with ``force``, and only if this project wrote it (it holds a plan or a completion
    marker, and nothing else of anyone's); with ``resume`` an interrupted output whose plan
    matches ``plan`` (all keys but ``ignore``) is kept as it is, and one already holding
    its completion marker ``complete`` is reported "complete". Anything else is refused,
    untouched, and so is a folder another live run holds. (``owned_output`` also holds
    the folder's lock for the run's life.)
    """
    with owned_output(path, plan, force=force, resume=resume, complete=complete,
                      ignore=ignore) as output:
        return output.state


def _claim(folder: Path, plan: dict[str, Any], claim: _FolderClaim, *, force: bool,
           resume: bool, complete: str, ignore: tuple[str, ...]) -> str:
    """Lock and prepare ``folder``; returns its state (``claim`` says what was made)."""
    if force and resume:
        raise BaccaratError("force=True and resume=True contradict each other: force=True starts "
                            "over, resume=True finishes an interrupted run; give one",
                            params=("force", "resume"))
    check_name(folder)
    claim.parents = _missing_parents(folder)
    for parent in claim.parents:
        parent.mkdir()
    claim.lock.acquire()  # before anything is looked at: one claim at a time per name
    remove_leftovers(folder)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        if resume:
            raise BaccaratError(f"{folder} is not an interrupted output (not a folder); "
                                f"nothing to resume")
        if force:
            raise OutputExistsError(
                f"{folder} is a file, not a folder baccarat wrote; force=True replaces only "
                f"run and dataset folders: remove it yourself or choose another out",
                                    params=("force", "out"))
        raise OutputExistsError(f"{folder} already exists; choose another out", params=("out",))
    if folder.is_dir():
        if resume and not _abandoned(folder):
            return _claim_resume(folder, plan, complete, ignore)
        if _abandoned(folder) or not any(folder.iterdir()):  # nothing in it to lose
            remove_temporaries(folder)
            for name in (PLAN_FILE, PART_LOG, LOCK_FILE):
                (folder / name).unlink(missing_ok=True)
            claim.planned = True
            _start(folder, plan)
            return "new"
        if not force:
            hint = (" (an interrupted run: --resume finishes it)"
                    if (folder / PLAN_FILE).exists() else "")
            raise OutputExistsError(f"{folder} already exists{hint}; pass force=True to "
                                    f"overwrite it", params=("force",))
        _check_replaceable(folder)
        claim.fresh = True  # emptied by this run: removed if it fails before a part
        for entry in folder.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        _start(folder, plan)
        return "new"
    try:  # a new output (also with --resume: there was nothing to resume)
        folder.mkdir()
    except FileExistsError:  # made just now by a program that takes no lock: not ours
        raise OutputExistsError(f"{folder} already exists (made by another program just "
                                f"now); choose another out", params=("out",)) from None
    claim.fresh = True
    _start(folder, plan)
    return "new"


def _exists(path: Path) -> bool:
    """Whether anything is at ``path`` (False for a path the system refuses to look at)."""
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _missing_parents(path: Path) -> list[Path]:
    return [p for p in reversed(path.parents) if str(p) and not p.exists()]


def _has_parts(folder: Path) -> bool:
    return any(part_index(p) is not None for p in folder.rglob(f"{_PART_PREFIX}*"))


def _abandoned(folder: Path) -> bool:
    """Whether ``folder`` holds only what a run of ours that finished no chunk left: its
    plan, its log, temporaries (and the lock file of older versions): nothing to keep."""
    if not (folder / PLAN_FILE).is_file():
        return False
    for path in folder.iterdir():
        if path.is_symlink():
            return False
        if path.is_dir():
            if path.name not in _PART_FOLDERS or not all(_temporary(p)
                                                         for p in path.iterdir()):
                return False
        elif path.name not in (PLAN_FILE, PART_LOG, LOCK_FILE) and not _temporary(path):
            return False
    return True


def _claim_resume(folder: Path, plan: dict[str, Any], complete: str,
                  ignore: tuple[str, ...]) -> str:
    if (folder / complete).exists():
        return "complete"
    stored = read_plan(folder)
    if stored is None:
        raise BaccaratError(f"{folder} is not an interrupted output (no {PLAN_FILE}); "
                            f"nothing to resume")
    differ = sorted(k for k in set(stored) | set(plan)
                    if k not in ignore and _plain(stored.get(k)) != _plain(plan.get(k)))
    before, now = stored.get("dataset"), plan.get("dataset")
    if "dataset" in differ and isinstance(before, dict) and isinstance(now, dict) \
            and before.get("path") and before.get("path") == now.get("path"):
        raise BaccaratError(
            f"cannot resume {folder}: its dataset {now['path']} is no longer the one the "
            f"run planned ({_parts_changed(stored, plan)}); put the dataset back as it was "
            f"and resume, or start over with force=True", params=("force",))
    if differ:
        raise BaccaratError(
            f"cannot resume {folder}: it was started with different "
            f"{', '.join(differ)}; run the same command again with resume=True, or "
            f"start over with force=True", params=("resume", "force"))
    remove_temporaries(folder)
    return "resume"


def _parts_changed(stored: dict[str, Any], plan: dict[str, Any]) -> str:
    """Which file of a plan's dataset is not what it was, in a few words."""
    then = {p.get("part"): p for p in stored.get("dataset_parts") or [] if isinstance(p, dict)}
    now = {p.get("part"): p for p in plan.get("dataset_parts") or [] if isinstance(p, dict)}
    for name in sorted(set(then) | set(now), key=str):
        a, b = then.get(name), now.get(name)
        if a == b:
            continue
        if a is None or b is None:
            return f"{name} {'appeared' if a is None else 'is gone'}"
        if a.get("bytes") != b.get("bytes"):
            return f"{name}: {a.get('bytes'):,} bytes then, {b.get('bytes'):,} now"
        return f"{name} holds other bytes (same size)"
    return (f"it holds other coups: fingerprint {stored['dataset'].get('fingerprint')} "
            f"then, {plan['dataset'].get('fingerprint')} now")


def _start(folder: Path, plan: dict[str, Any]) -> None:
    """Write the plan of a new run (a full disk leaves nothing: the claim undoes it)."""
    try:
        write_json_atomic(folder / PLAN_FILE, plan)
    except DiskFullError as exc:
        raise DiskFullError(f"{exc}; nothing was kept") from None


def _check_replaceable(folder: Path) -> None:
    if not is_output_folder(folder):
        raise OutputExistsError(
            f"{folder} is a folder that baccarat did not write; force=True replaces only "
            f"run and dataset folders (holding {PLAN_FILE}, {DATASET_FILE} or run.json, "
            f"and nothing else): remove it yourself or choose another out", params=("force", "out"))


def _abandon(folder: Path, fresh: bool) -> bool:
    """After a failed run: remove ``folder`` if this run made it and finished no part in
    it; returns whether the folder is kept."""
    if not folder.is_dir():
        return False
    if fresh and not _has_parts(folder):
        shutil.rmtree(folder, ignore_errors=True)
        return False
    return True


def _what_was_kept(folder: Path, kept: bool, resume: str = "--resume") -> str:
    """What a failed run leaves in ``folder``, and how to finish it (``resume``: the flag,
    or the parameter for an error a Python caller reads)."""
    name = str(folder)
    if not kept:
        return f"no chunk had finished, {name} was removed"
    if (folder / PLAN_FILE).exists() and _has_parts(folder):
        return (f"{name} keeps its finished chunks: run the same command with {resume} "
                f"to finish it")
    return f"{name} is as it was"


#: What a folder written by a chunked job may hold (anything else: not ours to delete):
#: files, and folders of parts.
_OUTPUT_FILES = {PLAN_FILE, DATASET_FILE, LOCK_FILE, PART_LOG, "run.json",
                 "summary.parquet"}
_PART_FOLDERS = {"sessions.parquet", "ledger.parquet"}
#: A folder is ours only if it holds one of these (its plan or its completion marker).
_MARKERS = (PLAN_FILE, DATASET_FILE, "run.json")


def is_output_folder(folder: Path) -> bool:
    """Whether ``folder`` is an output of ours (its plan or completion marker, with only
    parts, run files and temporaries beside it), and so may be replaced with --force."""
    if not any((folder / marker).is_file() for marker in _MARKERS):
        return False
    for path in folder.iterdir():
        if path.is_symlink():
            return False
        if path.is_dir():
            if path.name not in _PART_FOLDERS or not all(
                    _temporary(p) or (p.is_file() and part_index(p) is not None)
                    for p in path.iterdir()):
                return False
        elif not (path.name in _OUTPUT_FILES or part_index(path) is not None
                  or _temporary(path)):
            return False
    return True


def _temporary(path: Path) -> bool:
    return path.name.startswith(".") and path.name.endswith(".tmp") and not path.is_symlink()


def _plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists...), for comparisons."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def read_plan(folder: str | Path) -> dict[str, Any] | None:
    """The ``_plan.json`` of an output folder in progress, or None."""
    path = Path(folder) / PLAN_FILE
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BaccaratError(f"{path}: unreadable plan ({exc}); start over with force=True",
                            params=("force",)) from None
    return document if isinstance(document, dict) else None


def finish_output(folder: str | Path, marker: str, document: dict[str, Any]) -> Path:
    """Mark a chunked output complete: remove what killed writers left (temporaries, parts
    staged by another run), write ``marker`` (with the log of the parts written, under
    "parts": each part's rows, bytes and checksum), then drop ``_plan.json``."""
    folder = Path(folder)
    remove_temporaries(folder)
    log = PartLog(folder)
    parts = log.records()
    path = write_json_atomic(folder / marker, {**document, "parts": parts} if parts
                             else document)
    log.take()
    (folder / PLAN_FILE).unlink(missing_ok=True)
    fsync_folder(folder)
    return path


def check_complete(path: str | Path) -> None:
    """Refuse a folder an interrupted job left (its ``_plan.json`` is still there)."""
    path = Path(path)
    if path.is_dir() and (path / PLAN_FILE).exists():
        raise IncompleteOutputError(
            f"{path} is incomplete: the run writing it was interrupted; finish it with "
            f"the same command and resume=True (or start over with force=True)",
                                    params=("resume", "force"))


# --- Reading a coups dataset by rows, chunk by chunk ------------------------------------------


@dataclass(frozen=True)
class RowGroup:
    """One row group of a dataset: its file, its index there, and its global rows."""

    file: str
    index: int
    start: int
    rows: int


def row_groups(path: str | Path) -> list[RowGroup]:
    """Every row group of a Parquet file or folder of parts, in dataset order (footers only)."""
    groups: list[RowGroup] = []
    start = 0
    for file in parquet_files(path):
        meta = pq.ParquetFile(file).metadata
        for i in range(meta.num_row_groups):
            rows = meta.row_group(i).num_rows
            groups.append(RowGroup(str(file), i, start, rows))
            start += rows
    return groups


def shoe_chunk_rows(path: str | Path, shoes_per_chunk: int,
                    groups: list[RowGroup] | None = None) -> tuple[np.ndarray, int]:
    """Row bounds of chunks of ``shoes_per_chunk`` whole shoes, and the number of shoes.

    Chunk k is rows ``bounds[k]:bounds[k + 1]``. Only the shoe column is read, one row
    group at a time, so memory stays flat whatever the size of the dataset. A shoe is a run
    of equal shoe ids (as everywhere else), so recorded shoe numbers need not be sorted.
    """
    groups = row_groups(path) if groups is None else groups
    bounds = [0]
    shoes = 0
    previous: int | None = None
    files: dict[str, pq.ParquetFile] = {}
    for group in groups:
        if group.rows == 0:
            continue
        handle = files.setdefault(group.file, pq.ParquetFile(group.file))
        shoe = handle.read_row_group(group.index, columns=["shoe"]).column(0).to_numpy()
        first = previous is None or int(shoe[0]) != previous
        starts = np.flatnonzero(np.r_[first, shoe[1:] != shoe[:-1]])
        ordinal = shoes + np.arange(starts.size)
        cut = starts[(ordinal % shoes_per_chunk == 0) & (ordinal > 0)]
        bounds.extend((group.start + cut).tolist())
        shoes += int(starts.size)
        previous = int(shoe[-1])
    total = groups[-1].start + groups[-1].rows if groups else 0
    bounds.append(total)
    return np.asarray(bounds, dtype=np.int64), shoes


def read_coups_rows(path: str | Path, start: int, stop: int,
                    groups: list[RowGroup] | None = None,
                    prints: Sequence[PartPrint] = ()) -> Coups:
    """The coups at rows ``start:stop`` of a dataset, reading only the row groups they span.

    With ``prints`` (the dataset's files as a run planned them), each file is checked
    before and after it is read (``baccarat.io.datasets.opened_as_planned``): a file that
    changed raises ``DatasetChanged`` rather than give coups of another dataset.
    """
    groups = row_groups(path) if groups is None else groups
    planned = {p.file: p for p in prints}
    wanted = [(group, max(start, group.start), min(stop, group.start + group.rows))
              for group in groups]
    wanted = [(group, lo, hi) for group, lo, hi in wanted if lo < hi]
    if not wanted:
        raise ValueError(f"rows {start}:{stop} are not in {path}")
    pieces = []
    for file in dict.fromkeys(group.file for group, _, _ in wanted):
        mine = [(group, lo, hi) for group, lo, hi in wanted if group.file == file]
        if file in planned:
            with opened_as_planned(planned[file]) as handle:
                for group, lo, hi in mine:
                    table = _read_group(group, handle, planned[file].sha256)
                    pieces.append(table.slice(lo - group.start, hi - lo))
        else:
            for group, lo, hi in mine:
                pieces.append(_read_group(group).slice(lo - group.start, hi - lo))
    table = pa.concat_tables(pieces, promote_options="default").unify_dictionaries()
    return Coups.from_arrow(table)


_last_group: list[tuple[tuple[Any, ...], pa.Table]] = []


def _read_group(group: RowGroup, handle: pq.ParquetFile | None = None,
                checksum: str = "") -> pa.Table:
    """Row group ``group`` (from the open ``handle`` of its file, whose bytes have
    ``checksum``, when given), keeping the last one read: consecutive chunks of a dataset
    share the row group their boundary falls in, which is then decoded once, not twice."""
    if checksum:
        key: tuple[Any, ...] = (group.file, group.index, checksum)
    else:
        stat = os.stat(group.file)
        key = (group.file, group.index, stat.st_mtime_ns, stat.st_size)
    if _last_group and _last_group[0][0] == key:
        return _last_group[0][1]
    table = (handle or pq.ParquetFile(group.file)).read_row_group(group.index)
    _last_group[:] = [(key, table)]
    return table
