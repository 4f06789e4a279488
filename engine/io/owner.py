"""One owner for every output, and the datasets a command reads pinned while it reads them.

Every command that writes (generate, import, backtest, compare, report, analyze, demo and
the later ones) goes through this module, so one rule holds for all of them:

- **A lock on the output's name**, taken before anything is made and held for as long as
  the command writes: ``.NAME.lock`` beside the output (``flock``), exclusive for the one
  writer, shared for readers (``pinned``). A second writer, ``--force`` included, is
  refused in one line naming the holder's pid; so is a writer that would replace a
  dataset a run is reading. The OS drops the lock when its holder dies, however.
- **A temporary name** beside the output (``.NAME.<hex>.tmp``, shortened with a hash of
  the name when the file system would not take it whole), so a half-written output never
  sits at the user's path, and a failed command leaves nothing; what a killed one left is
  removed by the next writer of the same output, as it takes the lock.
- **A rename that replaces only what it expected**: the output is renamed into place only
  if nothing appeared there meanwhile (``renameat2(RENAME_NOREPLACE)``), and with
  ``--force`` only if what is there is still the output of ours it checked at the start
  (``RENAME_EXCHANGE``, then the old one removed). A user's file saved at the path while
  the command ran is kept, and the command says so.
- **Durable**: the data is fsynced before the rename and the folder after it.
- **Refusals of the file system** (read-only, permission, a name too long, a path through
  a file) are one line naming the user's path (``OutputRefused``), never the temporary.

``claim_output`` is the API for outputs written whole (a file, or a folder built under a
temporary name); the chunked, resumable outputs of ``generate`` and ``backtest`` are
written in place under the same lock (``baccarat.io.parquet.owned_output``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import os
import shutil
import signal
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..children import signals_deferred
from ..errors import BaccaratError, DiskFullError, is_disk_full


class OutputExistsError(BaccaratError):
    """An output that already exists and was not to be overwritten."""


class OutputBusyError(BaccaratError):
    """An output another live process writes, or a dataset it reads."""


#: The name the run-folder code has always used for a busy folder.
FolderLockedError = OutputBusyError


class OutputRefused(BaccaratError):
    """The file system refused a write (read-only, permission, name too long...)."""


# --- Names beside an output -----------------------------------------------------------------

#: The longest file name when the file system does not say (ext4, xfs, btrfs, tmpfs: 255).
NAME_MAX = 255


def name_max(folder: Path) -> int:
    """The longest file name (in bytes) the file system of ``folder`` takes."""
    while True:
        try:
            return int(os.pathconf(folder, "PC_NAME_MAX"))
        except (OSError, ValueError):
            if folder.parent == folder:
                return NAME_MAX
            folder = folder.parent


def sibling(path: Path, suffix: str) -> Path:
    """The hidden name ``.NAME<suffix>`` beside ``path``; where that would be longer than
    the file system allows, NAME is cut and a hash of the whole name keeps it unique (so a
    legal name is never refused because of the temporary or lock name made from it)."""
    name = path.name
    limit = name_max(path.parent if str(path.parent) else Path("."))
    if len(f".{name}{suffix}".encode()) <= limit:
        return path.with_name(f".{name}{suffix}")
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    room = limit - len(f".~{digest}{suffix}".encode())
    short = name.encode()[:max(room, 0)].decode(errors="ignore")
    return path.with_name(f".{short}~{digest}{suffix}")


_TEMPORARY = ".{}.tmp"
_HEX = 8


def temporary_sibling(path: Path) -> Path:
    """A unique temporary name beside ``path`` (same folder, so the rename is atomic)."""
    return sibling(path, _TEMPORARY.format(uuid.uuid4().hex[:_HEX]))


def remove_leftovers(path: Path) -> None:
    """Remove the temporaries (``temporary_sibling``) a killed writer of ``path`` left
    beside it. Called holding ``path``'s exclusive lock: every writer of them held it, so
    none is alive."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    shape = sibling(path, _TEMPORARY.format("0" * _HEX)).name
    head, tail = shape[:-len(_TEMPORARY.format("0" * _HEX))] + ".", ".tmp"
    try:
        names = [entry for entry in os.scandir(folder) if entry.name.startswith(head)]
    except OSError:
        return
    for entry in names:
        middle = entry.name[len(head):-len(tail)]
        if (entry.name.endswith(tail) and len(middle) == _HEX
                and all(c in "0123456789abcdef" for c in middle)):
            remove(Path(entry.path))


def lock_path(path: Path) -> Path:
    """The lock file of the output (or dataset) ``path``: ``.NAME.lock`` beside it, every
    symlink resolved (its folder's and its own), so every way of naming one output finds
    one lock. (A hard link to a file is another name of the same file: ``OutputLock``
    locks the file itself too.)"""
    return sibling(Path(os.path.realpath(Path(path))), ".lock")


# --- The lock -------------------------------------------------------------------------------

#: Lock descriptors this process holds: a child forked from it closes its copies at once,
#: so a forked worker outliving its command never keeps an output locked.
_HELD: set[int] = set()
_HELD_LOCK = threading.Lock()


def _close_inherited_locks() -> None:
    for fd in list(_HELD):
        with suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_inherited_locks)


class OutputLock:
    """The OS lock (``flock``) on one output's name, on the file ``lock_path(path)``.

    Exclusive (``acquire()``) for the process writing the output, shared
    (``acquire(shared=True)``) for each process reading it. Each exclusive acquisition is a
    new run with its own ``run_id``: the parts its workers stage carry it, and only the
    holder accepts them. Released, the lock file is removed when no one else holds it; a
    process killed with it held leaves the file, unlocked, for the next one to take.
    """

    def __init__(self, path: str | Path) -> None:
        self.target = Path(path)
        self.path = lock_path(self.target)
        self.run_id = ""
        self.shared = False
        self._fd: int | None = None
        self._inode: int | None = None  # the output's own file or folder, locked too

    def acquire(self, shared: bool = False) -> None:
        """Take the lock, or raise ``OutputBusyError`` naming the holder's pid. A Ctrl-C
        meanwhile waits until the lock is taken, then gives it back: never a lock file
        made and left behind (it fell between creating the file and holding it)."""
        try:
            with signals_deferred(signal.SIGINT, signal.SIGTERM):
                self._acquire(shared)
        except KeyboardInterrupt:
            if self.held:
                self.release()
            raise

    def _acquire(self, shared: bool) -> None:
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                holders = lock_holders(fd)
                os.close(fd)
                raise OutputBusyError(busy_message(self.target, holders, shared)) from None
            try:  # its last holder may have removed the file before we locked it
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        try:
            inode = _lock_file_itself(self.target, mode)
        except OutputBusyError:
            os.close(fd)
            raise
        self._fd, self._inode, self.shared = fd, inode, shared
        with _HELD_LOCK:
            _HELD.add(fd)
            if inode is not None:
                _HELD.add(inode)
        if shared:
            return
        self.run_id = uuid.uuid4().hex[:12]
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {self.run_id}\n".encode(), 0)
        except OSError:  # a full disk: the lock holds all the same, its pid goes unnamed
            pass

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Release the lock, removing its file when no one else holds it (nothing if not
        held)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        inode, self._inode = self._inode, None
        with _HELD_LOCK:
            _HELD.discard(fd)
            if inode is not None:
                _HELD.discard(inode)
        if inode is not None:
            os.close(inode)
        try:
            if self.shared:  # other readers may hold it: remove it only if none does
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                self.path.unlink()
        except (BlockingIOError, FileNotFoundError):
            pass
        except OSError:  # a read-only folder now: the lock goes with the descriptor
            pass
        finally:
            os.close(fd)


#: The name the run-folder code has always used.
FolderLock = OutputLock


def _lock_file_itself(target: Path, mode: int) -> int | None:
    """Lock the file or folder at ``target`` itself (its device and inode: every name of
    it, a hard link's too, finds this lock) in ``mode``; its descriptor, None when there
    is nothing there to lock (or it cannot be opened). Busy: ``OutputBusyError``."""
    try:
        if not (os.path.isfile(target) or os.path.isdir(target)):
            return None
        fd = os.open(target, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        holders = lock_holders(fd, named=False)
        os.close(fd)
        raise OutputBusyError(busy_message(target, holders, mode == fcntl.LOCK_SH)) from None
    except OSError:
        os.close(fd)
        return None
    return fd


def lock_holders(fd: int, named: bool = True) -> list[tuple[int, str]]:
    """The (pid, "READ" or "WRITE") of the processes holding a lock on the file of ``fd``,
    from ``/proc/locks`` (Linux); the pid the lock file names when that is not readable."""
    stat = os.fstat(fd)
    key = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    found: list[tuple[int, str]] = []
    try:
        with open("/proc/locks") as table:
            for line in table:
                words = line.split()
                if "->" in words or len(words) < 6 or words[1] != "FLOCK":
                    continue  # a waiter's line, or a lock of another kind
                if words[5] == key and words[4].isdigit():
                    found.append((int(words[4]), words[3]))
    except OSError:
        pass
    if not found and named:  # a lock file names its writer's pid on its first line
        try:
            first = os.pread(fd, 64, 0).split()
            if first and first[0].isdigit():
                found.append((int(first[0]), "WRITE"))
        except OSError:
            pass
    return found


def busy_message(target: Path, holders: list[tuple[int, str]], shared: bool) -> str:
    """Why ``target`` cannot be locked: who writes it, or who reads it."""
    writers = [pid for pid, mode in holders if mode == "WRITE"]
    readers = [pid for pid, mode in holders if mode == "READ"]
    if writers or not readers:
        who = f"pid {writers[0]}" if writers else "another process"
        if shared:
            return (f"{target} is being written by another run ({who}); wait for it to "
                    f"finish before reading it")
        return (f"{target} is in use by another run ({who}); wait for it to finish or "
                f"stop it first (an output has one writer at a time)")
    pids = ", ".join(str(pid) for pid in sorted(set(readers)))
    return (f"{target} is being read by another run (pid {pids}); it cannot be replaced "
            f"while that run reads it: wait for it to finish, or write elsewhere")


@contextmanager
def pinned(path: str | Path) -> Iterator[OutputLock | None]:
    """Hold a shared lock on the dataset (or run) ``path`` while the block reads it, so no
    writer of ours replaces it meanwhile (it is refused, naming this process). Yields None
    where no lock can be made (a read-only folder): the reader's own checks remain."""
    lock = OutputLock(path)
    try:
        lock.acquire(shared=True)
    except OSError:
        yield None
        return
    try:
        yield lock
    finally:
        lock.release()


# --- Refusals of the file system, in one line -------------------------------------------------

_REASONS = {
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EISDIR: "it is a folder",
    errno.ENOTEMPTY: "a folder that is not empty is in the way",
    errno.EEXIST: "something else is there",
    errno.ELOOP: "too many symbolic links",
    errno.EXDEV: "the temporary and final names are on different file systems",
}


def refused(exc: OSError, target: Path, doing: str = "write") -> OSError | BaccaratError:
    """``exc`` (raised writing ``target`` or a temporary of it) as one line naming
    ``target``: a ``DiskFullError`` for a full disk, else an ``OutputRefused``."""
    if isinstance(exc, BaccaratError | DiskFullError):
        return exc
    if is_disk_full(exc):
        return DiskFullError(f"no space left on device writing {target}; nothing was "
                             f"written")
    number = exc.errno or 0
    if number == errno.ENAMETOOLONG:
        reason = _too_long(target)
    elif number == errno.ENOTDIR:
        reason = f"{_file_on_the_way(target) or 'a part of the path'} is a file, not a folder"
    else:
        reason = _REASONS.get(number) or (exc.strerror or str(exc)).lower()
    return OutputRefused(f"cannot {doing} {target}: {reason}")


#: The refusals of the file system a command turns into one line when nothing more
#: particular caught them (reading an input whose name is too long, say).
SYSTEM_REFUSALS = frozenset({errno.ENAMETOOLONG, errno.EACCES, errno.EPERM, errno.EROFS,
                             errno.ENOTDIR, errno.ELOOP, errno.EISDIR})


def system_refusal(exc: OSError) -> BaccaratError | None:
    """``exc`` as one line naming its file (``cannot open PATH: reason``) when it is a
    refusal of the file system about a named file; None for anything else."""
    if exc.errno not in SYSTEM_REFUSALS or not exc.filename:
        return None
    refusal = refused(exc, Path(os.fsdecode(exc.filename)), doing="open")
    return refusal if isinstance(refusal, BaccaratError) else None


def _too_long(target: Path) -> str:
    limit = name_max(_existing_folder(target.parent))
    for part in (target, *target.parents):
        if len(part.name.encode()) > limit:
            return (f"the name {part.name[:24]}... is {len(part.name.encode())} bytes, "
                    f"longer than this file system allows ({limit})")
    return "the path is longer than this system allows"


def _file_on_the_way(target: Path) -> Path | None:
    # os.path's tests, unlike Path's, answer False for a name the system refuses
    for part in reversed(target.parents):
        if os.path.exists(part) and not os.path.isdir(part):
            return part
    return None


def _existing_folder(path: Path) -> Path:
    while not os.path.isdir(path) and path.parent != path:
        path = path.parent
    return path


def check_name(target: Path) -> None:
    """Refuse, before any work, an output whose own name is longer than its file system
    takes, or whose folder is reached through a file."""
    on_the_way = _file_on_the_way(target)
    if on_the_way is not None:
        raise OutputRefused(f"cannot write {target}: {on_the_way} is a file, not a folder")
    limit = name_max(_existing_folder(target.parent))
    for part in (target, *target.parents):
        if len(part.name.encode()) > limit:
            raise OutputRefused(f"cannot write {target}: {_too_long(target)}")


# --- Durable renames ----------------------------------------------------------------------------

_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2
_AT_FDCWD = -100
_renameat2: Any
try:
    _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
except (OSError, AttributeError):  # pragma: no cover - not glibc: the fallbacks below
    _renameat2 = None


def _rename2(source: Path, target: Path, flags: int) -> bool:
    """``renameat2(source, target, flags)``; False where the system lacks it."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), flags) == 0:
        return True
    number = ctypes.get_errno()
    if number in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False  # a file system without it (some network ones): the fallback
    raise OSError(number, os.strerror(number), str(target))


def rename_new(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` only if nothing is at ``target`` (``FileExistsError``
    otherwise: what is there is never replaced)."""
    if _rename2(source, target, _RENAME_NOREPLACE):
        return
    if source.is_dir():
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "File exists", str(target))
        os.rename(source, target)
    else:
        os.link(source, target)  # fails if target exists
        os.unlink(source)


def exchange(source: Path, target: Path) -> None:
    """Swap ``source`` and ``target`` (both exist): ``target`` becomes the new output at
    once, ``source`` holds the old one."""
    if _rename2(source, target, _RENAME_EXCHANGE):
        return
    aside = temporary_sibling(target)
    os.rename(target, aside)
    os.rename(source, target)
    os.rename(aside, source)


def fsync_path(path: Path) -> None:
    """Flush ``path`` (a file, or a folder and every file under it) to the disk."""
    if path.is_dir() and not path.is_symlink():
        for folder, _, files in os.walk(path):
            for name in files:
                _fsync(Path(folder) / name, os.O_RDONLY)
            _fsync(Path(folder), os.O_RDONLY | os.O_DIRECTORY)
    elif path.exists():
        _fsync(path, os.O_RDONLY)


def fsync_folder(folder: Path) -> None:
    """Flush ``folder``'s entries (a rename into it) to the disk."""
    _fsync(folder if str(folder) else Path("."), os.O_RDONLY | os.O_DIRECTORY)


def _fsync(path: Path, flags: int) -> None:
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EROFS):  # a file system without fsync
            raise
    finally:
        os.close(fd)


def remove(path: Path) -> None:
    """Remove a file or a folder tree (nothing if it is gone)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with suppress(FileNotFoundError, IsADirectoryError):
            path.unlink()


# --- The claim ------------------------------------------------------------------------------


def _identity(path: Path) -> tuple[int, ...] | None:
    """What is at ``path`` (device, inode, type, size, mtime), or None when nothing is."""
    try:
        stat = os.lstat(path)
    except FileNotFoundError:
        return None
    return (stat.st_dev, stat.st_ino, stat.st_mode, stat.st_size, stat.st_mtime_ns)


@dataclass
class Claim:
    """An output owned by this process: write ``temp``; on success it becomes ``path``."""

    path: Path
    temp: Path
    lock: OutputLock
    folder: bool
    before: tuple[int, ...] | None
    made: list[Path] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        """The id of this claim (staged parts carry it)."""
        return self.lock.run_id

    def commit(self) -> Path:
        """Flush the temporary to the disk and rename it into place: only if nothing
        appeared at ``path`` since the claim (or, replacing with ``--force``, only if what
        is there is still what was checked); then flush the folder."""
        fsync_path(self.temp)
        now = _identity(self.path)
        if self.before is None:
            try:
                rename_new(self.temp, self.path)
            except FileExistsError:
                raise OutputExistsError(_appeared(self.path)) from None
        else:
            if now != self.before:
                raise OutputExistsError(_appeared(self.path, changed=True))
            exchange(self.temp, self.path)
            remove(self.temp)  # the old output, now under the temporary name
        fsync_folder(self.path.parent)
        return self.path


def _appeared(path: Path, changed: bool = False) -> str:
    what = "changed" if changed else "appeared"
    return (f"{path} {what} while this command wrote it (another program saved something "
            f"there); it is kept as it is and nothing was written: choose another --out, "
            f"or run again")


Ours = Callable[[Path], bool]


@contextmanager
def claim_output(path: str | Path, *, force: bool = False, folder: bool = False,
                 ours: Ours | None = None, what: str = "output") -> Iterator[Claim]:
    """Own the output ``path`` for the block: yields a ``Claim`` whose ``temp`` the block
    writes (a file name, or a folder already made with ``folder=True``); when the block
    succeeds the temporary is committed (``Claim.commit``), and whatever happens the lock
    is released and the temporary (and any folder made for it) removed.

    Refused before any work: a path another process writes or reads (``OutputBusyError``
    naming its pid), an existing output without ``force``, with ``force`` anything
    ``ours`` does not recognise as written by this project (default: a Parquet file with
    our metadata, an HTML report of ours, a run or dataset folder of ours), a folder where
    a file is to go (and the reverse, unless ``ours`` says so), a name the file system
    would not take. A refusal of the file system is one line naming ``path``.
    """
    target = Path(path)
    check_name(target)
    claim: Claim | None = None
    made = _make_parents(target)
    lock = OutputLock(target)
    try:
        try:
            lock.acquire()
            remove_leftovers(target)
            before = _check_replaceable(target, force, folder, ours, what)
            temp = temporary_sibling(target)
            claim = Claim(target, temp, lock, folder, before, made)
            if folder:
                temp.mkdir()
            else:
                os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except OSError as exc:
            raise refused(exc, target) from None
        try:
            yield claim
        except OSError as exc:
            if is_disk_full(exc):  # whatever file it named, the output is what failed
                raise DiskFullError(f"no space left on device writing {target}; nothing "
                                    f"was written") from None
            if _about(exc, claim):  # writing the output: named as the user named it
                raise refused(exc, target) from None
            raise
        try:
            claim.commit()
        except OSError as exc:
            raise refused(exc, target) from None
        made.clear()  # the folders made for it now hold the output
    finally:
        if claim is not None:
            remove(claim.temp)
        lock.release()
        for parent in reversed(made):  # folders made only for this output, still empty
            with suppress(OSError):
                parent.rmdir()


def _about(exc: OSError, claim: Claim) -> bool:
    """Whether ``exc`` was raised writing the claimed output (its temporary): not, say,
    reading a missing input file."""
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    temp = str(claim.temp)
    return any(n.startswith(temp) for n in names) or (not names and temp in str(exc))


def _make_parents(target: Path) -> list[Path]:
    """Make the folders above ``target`` that are missing; returns those made."""
    missing = [p for p in reversed(target.parents) if str(p) and not p.exists()]
    made = []
    try:
        for parent in missing:
            parent.mkdir()
            made.append(parent)
    except FileExistsError:
        pass  # made by someone else meanwhile: theirs
    except OSError as exc:
        for parent in reversed(made):
            with suppress(OSError):
                parent.rmdir()
        raise refused(exc, target) from None
    return made


def _check_replaceable(target: Path, force: bool, folder: bool, ours: Ours | None,
                       what: str) -> tuple[int, ...] | None:
    before = _identity(target)
    if before is None:
        return None
    is_dir = target.is_dir() and not target.is_symlink()
    if is_dir and not folder and ours is None:
        raise OutputExistsError(f"{target} is a folder; the {what} is one file: give out "
                                f"a file name", params=("out",))
    if folder and is_dir and not target.is_symlink() and not any(target.iterdir()):
        return before  # an empty folder: nothing in it to lose
    mine = not target.is_symlink() and (ours or _ours)(target)
    if not force and mine:
        raise OutputExistsError(f"{target} already exists; pass force=True to overwrite it",
                                params=("force",))
    if not mine:
        raise OutputExistsError(
            f"{target} already exists and is not an output baccarat wrote; force=True "
            f"replaces only those: remove it yourself or choose another out",
                                params=("force", "out"))
    return before


def _ours(path: Path) -> bool:
    from .parquet import is_output_file, is_output_folder

    return is_output_folder(path) if path.is_dir() else is_output_file(path)


__all__ = ["Claim", "FolderLock", "FolderLockedError", "OutputBusyError", "OutputExistsError",
           "OutputLock", "OutputRefused", "check_name", "claim_output", "exchange",
           "fsync_folder", "fsync_path", "lock_path", "pinned", "refused", "remove_leftovers",
           "rename_new", "sibling", "system_refusal", "temporary_sibling"]
