"""Parquet files that say what they are, written so that none is ever half-written.

Every file carries a JSON document under the schema metadata key ``baccarat`` (the
kind of table, the rules, the parameters...). Writes go to a temporary name in the same
folder and are renamed into place only when complete. Long jobs write folders of parts
(see "Partitioned outputs" below), which every reader here takes as one table.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..coups import Coups
from ..errors import BaccaratError, DiskFullError, Interrupted, is_disk_full
from ..rules import TableRules

METADATA_KEY = b"baccarat"
COMPRESSION = "zstd"


class OutputExistsError(BaccaratError):
    """An output that already exists and was not to be overwritten."""


#: The mark every HTML report carries in its head, so --force knows the file is ours.
HTML_GENERATOR = '<meta name="generator" content="baccarat-backtest">'


def is_output_file(path: Path) -> bool:
    """Whether the plain file ``path`` is one this project wrote (a Parquet file carrying
    our schema metadata, or an HTML report with our generator mark), and so may be
    replaced with --force."""
    try:
        if path.suffix.lower() in (".html", ".htm"):
            with path.open("rb") as handle:
                return HTML_GENERATOR.encode() in handle.read(4096)
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException, ValueError):
        return False
    return METADATA_KEY in metadata


def check_output_free(path: Path, force: bool) -> None:
    """Refuse to replace an existing output unless ``force`` is given, and even then
    refuse anything this project did not write: a user's file is never lost."""
    if not path.exists() and not path.is_symlink():
        return
    if not force:
        raise OutputExistsError(f"{path} already exists; pass --force to overwrite it")
    ours = is_output_folder(path) if path.is_dir() else is_output_file(path)
    if path.is_symlink() or not ours:
        raise OutputExistsError(
            f"{path} is not an output baccarat wrote; --force replaces only those: "
            f"remove it yourself or choose another --out")


def temporary_sibling(path: Path) -> Path:
    """A unique temporary name beside ``path`` (same folder, so the rename is atomic)."""
    return path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")


def with_metadata(table: pa.Table, metadata: dict[str, Any]) -> pa.Table:
    """``table`` with ``metadata`` stored as JSON under the ``baccarat`` schema key."""
    existing = dict(table.schema.metadata or {})
    existing[METADATA_KEY] = json.dumps(metadata, sort_keys=True, default=str).encode()
    return table.replace_schema_metadata(existing)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write; rename it to ``path`` only if the block succeeds.

    A write that finds the disk full raises ``DiskFullError`` naming ``path`` (and leaves
    no temporary behind).
    """
    final = Path(path)
    temp = temporary_sibling(final)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        yield temp
        os.replace(temp, final)
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
    """Write a coups table atomically, with its rules in the metadata."""
    return write_table_atomic(coups.to_arrow(), path, coups_metadata(rules, **extra))


def read_coups(path: str | Path) -> tuple[Coups, dict[str, Any]]:
    """Read a coups Parquet file (or a folder of parts) and its metadata.

    A folder an interrupted ``generate`` left is refused (``IncompleteOutputError``).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no coups file at {path}")
    check_complete(path)
    table = pq.read_table(path)
    metadata = read_metadata(path)
    coups = Coups.from_arrow(table)
    rules = metadata.get("rules")
    if rules:
        coups.decks = int(rules.get("decks", 8))
    return coups, metadata


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
    """Yield the staged name of part ``path`` for run ``run_id``: kept if the block
    succeeds (for ``accept_part``), removed if it fails."""
    staged = path.with_name(f".{path.name}.{run_id}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        yield staged
    except OSError as exc:
        staged.unlink(missing_ok=True)
        if is_disk_full(exc):
            raise disk_full(exc, path) from None
        raise
    except BaseException:
        staged.unlink(missing_ok=True)
        raise


def accept_part(staged: str | Path, run_id: str) -> Path:
    """Give a part staged by a worker of run ``run_id`` its final name; returns it.

    A part staged by another run (an orphaned worker of a killed one) is refused: it is
    never renamed into place, and is removed with the other temporaries.
    """
    staged = Path(staged)
    name = staged.name
    final, _, rest = name[1:].partition(".parquet.")
    if not (name.startswith(".") and rest.startswith(f"{run_id}-") and rest.endswith(".tmp")
            and part_index(Path(final + ".parquet")) is not None):
        raise BaccaratError(f"{staged}: not a part of this run ({run_id}); refused")
    target = staged.with_name(final + ".parquet")
    os.replace(staged, target)
    return target


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


#: The lock file of an output folder: held (``flock``) by the run writing the folder, and
#: naming its pid and run id. The OS releases the lock when the process dies, however.
LOCK_FILE = "_owner.lock"


class FolderLockedError(BaccaratError):
    """An output folder another live run holds."""


class FolderLock:
    """The exclusive OS lock (``flock``) of one output folder, held for a run's life.

    Each acquisition is a new run with its own id (``run_id``): the parts its workers
    write carry it, and only the holder accepts them. The lock file is removed on release;
    a process killed with it held leaves the file, unlocked, for the next run to take.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / LOCK_FILE
        self.run_id = ""
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise ``FolderLockedError`` naming the holder's pid."""
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                if is_disk_full(exc):
                    raise disk_full(exc, self.path) from None
                raise
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _lock_holder(fd)
                os.close(fd)
                raise FolderLockedError(_locked_message(self.folder, holder)) from None
            try:  # its last holder may have removed the file before we locked it
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self._fd = fd
        self.run_id = uuid.uuid4().hex[:12]
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {self.run_id}\n".encode())
        except OSError:  # a full disk: the lock holds all the same, its pid goes unnamed
            pass

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and release the lock (nothing if not held)."""
        if self._fd is None:
            return
        try:
            if os.stat(self.path).st_ino == os.fstat(self._fd).st_ino:
                self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self._fd)
        self._fd = None


def lock_holder(folder: Path) -> int | None:
    """The pid of the live process holding ``folder`` (0 if it names none), or None."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _lock_holder(fd)
    finally:
        os.close(fd)  # closing the descriptor releases a lock taken just to test
    return None


def _lock_holder(fd: int) -> int:
    try:
        first = os.pread(fd, 64, 0).split()
        return int(first[0]) if first else 0
    except (OSError, ValueError):
        return 0


def _locked_message(folder: Path, pid: int) -> str:
    who = f"pid {pid}" if pid else "another process"
    return (f"{folder} is in use by another run ({who}); wait for it to finish or stop it "
            f"first (a folder has one run at a time)")


@dataclass(frozen=True)
class Output:
    """The output folder a run owns: its state ("new", "resume" or "complete") and the id
    its parts carry."""

    folder: Path
    state: str
    run_id: str


@contextmanager
def owned_output(path: str | Path, plan: dict[str, Any], *, force: bool, resume: bool,
                 complete: str, ignore: tuple[str, ...] = ("command", )) -> Iterator[Output]:
    """Own the output folder of a chunked job for the block (see ``open_output``).

    The folder is locked for the block. If the block fails in a folder this run made
    (new, or replaced with ``force``) and no part was finished, the folder is removed;
    otherwise it is left resumable. An interruption (``KeyboardInterrupt``) or a full disk
    is re-raised with a message saying which, and what was kept.
    """
    folder = Path(path)
    lock = FolderLock(folder)
    try:
        state, fresh = _claim(folder, plan, lock, force=force, resume=resume,
                              complete=complete, ignore=ignore)
    except BaseException:
        lock.release()
        raise
    try:
        yield Output(folder, state, lock.run_id)
    except (KeyboardInterrupt, DiskFullError) as exc:
        kept = _abandon(folder, fresh)
        if isinstance(exc, DiskFullError):
            raise DiskFullError(f"{exc}; {_what_was_kept(folder, kept)}") from None
        raise Interrupted(f"interrupted: {_what_was_kept(folder, kept)}") from None
    except BaseException:
        _abandon(folder, fresh)
        raise
    finally:
        lock.release()


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


def _claim(folder: Path, plan: dict[str, Any], lock: FolderLock, *, force: bool,
           resume: bool, complete: str, ignore: tuple[str, ...]) -> tuple[str, bool]:
    """Lock and prepare ``folder``; returns its state and whether this run made it."""
    if force and resume:
        raise BaccaratError("--force and --resume contradict each other: --force starts "
                            "over, --resume finishes an interrupted run; give one")
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        if resume:
            raise BaccaratError(f"{folder} is not an interrupted output (not a folder); "
                                f"nothing to resume")
        if force:
            raise OutputExistsError(
                f"{folder} is a file, not a folder baccarat wrote; --force replaces only "
                f"run and dataset folders: remove it yourself or choose another --out")
        raise OutputExistsError(f"{folder} already exists; choose another --out")
    if folder.is_dir():
        holder = lock_holder(folder)
        if holder is not None:
            raise FolderLockedError(_locked_message(folder, holder))
        if resume:
            return _claim_resume(folder, plan, lock, complete, ignore), False
        if not any(p.name != LOCK_FILE for p in folder.iterdir()):  # empty: nothing to lose
            lock.acquire()
            _start(folder, plan, lock, made=False)
            return "new", False
        if not force:
            hint = (" (an interrupted run: --resume finishes it)"
                    if (folder / PLAN_FILE).exists() else "")
            raise OutputExistsError(f"{folder} already exists{hint}; pass --force to "
                                    f"overwrite it")
        _check_replaceable(folder)
        lock.acquire()
        _check_replaceable(folder)
        for entry in folder.iterdir():
            if entry.name == LOCK_FILE:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        _start(folder, plan, lock, made=True)
        return "new", True
    try:  # a new output (also with --resume: there was nothing to resume)
        folder.mkdir(parents=True)
    except FileExistsError:
        raise OutputExistsError(f"{folder} already exists (made by another run just now)") \
            from None
    except OSError as exc:
        if is_disk_full(exc):
            raise disk_full(exc, folder) from None
        raise
    try:
        lock.acquire()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _start(folder, plan, lock, made=True)
    return "new", True


def _claim_resume(folder: Path, plan: dict[str, Any], lock: FolderLock, complete: str,
                  ignore: tuple[str, ...]) -> str:
    if (folder / complete).exists():
        return "complete"
    if read_plan(folder) is None:
        raise BaccaratError(f"{folder} is not an interrupted output (no {PLAN_FILE}); "
                            f"nothing to resume")
    lock.acquire()
    stored = read_plan(folder)
    if stored is None:  # finished or replaced while we took the lock
        raise BaccaratError(f"{folder} is no longer an interrupted output; nothing to resume")
    differ = sorted(k for k in set(stored) | set(plan)
                    if k not in ignore and _plain(stored.get(k)) != _plain(plan.get(k)))
    if differ:
        raise BaccaratError(
            f"cannot resume {folder}: it was started with different "
            f"{', '.join(differ)}; run the same command again with --resume, or "
            f"start over with --force")
    remove_temporaries(folder)
    return "resume"


def _start(folder: Path, plan: dict[str, Any], lock: FolderLock, made: bool) -> None:
    """Write the plan of a new run; on failure (a full disk) leave nothing behind."""
    try:
        write_json_atomic(folder / PLAN_FILE, plan)
    except BaseException as exc:
        lock.release()
        if made:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            (folder / PLAN_FILE).unlink(missing_ok=True)
        if isinstance(exc, DiskFullError):
            raise DiskFullError(f"{exc}; nothing was written, {folder} is as it was"
                                if not made else f"{exc}; nothing was kept") from None
        raise


def _check_replaceable(folder: Path) -> None:
    if not is_output_folder(folder):
        raise OutputExistsError(
            f"{folder} is a folder that baccarat did not write; --force replaces only "
            f"run and dataset folders (holding {PLAN_FILE}, {DATASET_FILE} or run.json, "
            f"and nothing else): remove it yourself or choose another --out")


def _abandon(folder: Path, fresh: bool) -> bool:
    """After a failed run: remove ``folder`` if this run made it and finished no part in
    it; returns whether the folder is kept."""
    if not folder.is_dir():
        return False
    if fresh and not any(part_index(p) is not None for p in folder.rglob(f"{_PART_PREFIX}*")):
        shutil.rmtree(folder, ignore_errors=True)
        return False
    return True


def _what_was_kept(folder: Path, kept: bool) -> str:
    if not kept:
        return f"no chunk had finished, {folder} was removed"
    if (folder / PLAN_FILE).exists():
        return (f"{folder} keeps its finished chunks: run the same command with --resume "
                f"to finish it")
    return f"{folder} is kept"


#: What a folder written by a chunked job may hold (anything else: not ours to delete):
#: files, and folders of parts.
_OUTPUT_FILES = {PLAN_FILE, DATASET_FILE, LOCK_FILE, "run.json", "summary.parquet"}
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
        raise BaccaratError(f"{path}: unreadable plan ({exc}); start over with --force") from None
    return document if isinstance(document, dict) else None


def finish_output(folder: str | Path, marker: str, document: dict[str, Any]) -> Path:
    """Mark a chunked output complete: remove what killed writers left (temporaries, parts
    staged by another run), write ``marker``, then drop ``_plan.json``."""
    folder = Path(folder)
    remove_temporaries(folder)
    path = write_json_atomic(folder / marker, document)
    (folder / PLAN_FILE).unlink(missing_ok=True)
    return path


def check_complete(path: str | Path) -> None:
    """Refuse a folder an interrupted job left (its ``_plan.json`` is still there)."""
    path = Path(path)
    if path.is_dir() and (path / PLAN_FILE).exists():
        raise IncompleteOutputError(
            f"{path} is incomplete: the run writing it was interrupted; finish it with "
            f"the same command and --resume (or start over with --force)")


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
                    groups: list[RowGroup] | None = None) -> Coups:
    """The coups at rows ``start:stop`` of a dataset, reading only the row groups they span."""
    groups = row_groups(path) if groups is None else groups
    pieces = []
    for group in groups:
        lo, hi = max(start, group.start), min(stop, group.start + group.rows)
        if lo >= hi:
            continue
        pieces.append(_read_group(group).slice(lo - group.start, hi - lo))
    if not pieces:
        raise ValueError(f"rows {start}:{stop} are not in {path}")
    table = pa.concat_tables(pieces, promote_options="default").unify_dictionaries()
    return Coups.from_arrow(table)


_last_group: list[tuple[tuple[str, int, int, int], pa.Table]] = []


def _read_group(group: RowGroup) -> pa.Table:
    """Row group ``group``, keeping the last one read: consecutive chunks of a dataset share
    the row group their boundary falls in, which is then decoded once, not twice."""
    stat = os.stat(group.file)
    key = (group.file, group.index, stat.st_mtime_ns, stat.st_size)
    if _last_group and _last_group[0][0] == key:
        return _last_group[0][1]
    table = pq.ParquetFile(group.file).read_row_group(group.index)
    _last_group[:] = [(key, table)]
    return table
