"""Helpers of the ownership tests: real processes holding an output's lock, and commands
run in child processes (as a user starts them), with what /proc says about them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

HOLD = """
import sys
from baccarat.io.owner import OutputLock
lock = OutputLock(sys.argv[1])
lock.acquire(shared=sys.argv[2] == "shared")
print("locked", flush=True)
sys.stdin.read()
lock.release()
"""


@contextmanager
def held(path: Path, shared: bool = False) -> Iterator[int]:
    """Another process holding the lock of output ``path`` (exclusive, as a writer does, or
    shared, as a reader does) for the block; yields its pid."""
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path),
                              "shared" if shared else "exclusive"], cwd=ROOT, env=ENV,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        yield child.pid
    finally:
        try:
            child.communicate(timeout=10)  # stdin closed: it releases the lock and ends
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def spawn(*args: str, env: dict[str, str] | None = None,
          cwd: Path = ROOT) -> subprocess.Popen[str]:
    """``baccarat ARGS`` in a child process of its own session, as a user starts it."""
    code = "from baccarat.cli import app; app(prog_name='baccarat')"
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd,
                            env={**ENV, **(env or {})}, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(child: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str]:
    """Wait for ``child``; its exit status and everything it printed."""
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        raise AssertionError(f"still running after {timeout} s: {out}{err}") from None
    return child.returncode, out + err


def lock_holders(path: Path) -> set[int]:
    """The pids holding a lock on the lock file of output ``path`` (from /proc/locks)."""
    from baccarat.io.owner import lock_path

    try:
        stat = os.stat(lock_path(path))
    except FileNotFoundError:
        return set()
    key = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    with open("/proc/locks") as table:
        return {int(words[4]) for line in table if (words := line.split())
                and "->" not in words and len(words) > 5 and words[5] == key}


def wait_until(condition, what: str, timeout: float = 60,
               child: subprocess.Popen[str] | None = None) -> None:
    """Poll ``condition`` until it holds (an error naming ``what`` after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if child is not None and child.poll() is not None:
            raise AssertionError(f"the command ended before {what}: {finish(child)}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.002)


def one_line(text: str) -> str:
    """The one error line a refused command prints (asserted to be one), words joined."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    assert "Traceback" not in text, text
    assert lines and lines[0].startswith("error:"), text
    return " ".join(text.split())


def leftovers(folder: Path) -> list[str]:
    """Hidden files a command left in ``folder`` (temporaries, lock files)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def live(pid: int) -> bool:
    """Whether process ``pid`` is running (not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def live_processes() -> dict[int, list[str]]:
    """Every live (not zombie) process's /proc stat fields after its name: state, parent,
    process group, session, ..."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                stats[int(entry.name)] = fields
    return stats


def session_members(sid: int) -> set[int]:
    """Live processes of session ``sid`` (a command started its own), whoever their parent
    is now (orphans move to init)."""
    return {pid for pid, fields in live_processes().items() if int(fields[3]) == sid}


def gone_within(pids: set[int], seconds: float) -> set[int]:
    """The processes of ``pids`` still running after ``seconds`` (polled)."""
    deadline = time.monotonic() + seconds
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = {pid for pid in alive if live(pid)}
    return alive


@contextmanager
def mounted_tmpfs(mount: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted with ``options`` at the new folder ``mount`` for the block (the
    test is skipped where none can be mounted: it needs root)."""
    import shutil

    import pytest

    mount.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a file system needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)],
                          capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a file system here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def run_inputs(folder: Path, shoes: int, seed: int) -> dict[str, Path]:
    """A generated coups dataset and a run of flat over it, in ``folder``."""
    from baccarat import Run, backtest
    from baccarat.parallel import generate_dataset

    generate_dataset(folder / "coups", shoes=shoes, seed=seed)
    backtest(folder / "coups", ["flat"], run=Run(out=folder / "run", ledger=False))
    return {"coups": folder / "coups", "run": folder / "run"}
