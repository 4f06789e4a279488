"""Ctrl-C while a worker holds a staged part leaves nothing behind.

Real processes, a real signal: ``baccarat backtest`` and ``baccarat generate`` with two
workers, one of which has staged its chunk's parts (``.part-N.parquet.<run>.tmp``) and
not yet handed them back (``BACCARAT_TEST_FAULT=1:hang``: it waits there, as a worker
still writing does). Ctrl-C reaches the whole process group, as at a terminal. The run
ends in one ``interrupted`` line saying it is resumable, no process of it is left, no
temporary or lock file is left anywhere, and ``--resume`` finishes it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from baccarat.cli import app
from baccarat.parallel import FAULT_ENV
from holders import ENV, ROOT, finish, gone_within, session_members, wait_until
from typer.testing import CliRunner

#: Each command's run (4 chunks of 10 shoes, two workers) and the folder of its parts.
RUNS = {
    "backtest": (["backtest", "-s", "flat", "-s", "martingale", "--shoes", "40", "--chunk",
                  "10", "--workers", "2", "-q", "--no-table"], "sessions.parquet"),
    "generate": (["generate", "--shoes", "40", "--chunk", "10", "--workers", "2", "-q"], "."),
}


def staged(folder: Path) -> list[Path]:
    return [p for p in folder.rglob(".*") if p.name.endswith((".tmp", ".lock"))]


@pytest.mark.parametrize("command", sorted(RUNS))
def test_ctrl_c_with_a_part_staged_leaves_no_temporary_and_resumes(tmp_path: Path,
                                                                   command: str):
    args, parts = RUNS[command]
    out = tmp_path / "out"
    child = subprocess.Popen(
        [sys.executable, "-c", "from baccarat.cli import app; app(prog_name='baccarat')",
         *args, "--out", str(out)], cwd=ROOT, env={**ENV, FAULT_ENV: "1:hang"},
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: list((out / parts).glob(".part-00001.parquet.*.tmp"))
               and (out / parts / "part-00000.parquet").exists(),
               "chunk 1 staged and chunk 0 in place", child=child, timeout=120)
    os.killpg(child.pid, signal.SIGINT)
    status, text = finish(child, timeout=30)
    assert status == 130 and "Traceback" not in text, text
    assert "interrupted" in text and "--resume" in " ".join(text.split()), text
    assert not gone_within(session_members(child.pid), 5)
    assert not staged(tmp_path), staged(tmp_path)

    resumed = CliRunner().invoke(app, [*args, "--out", str(out), "--resume",
                                       "--workers", "1"])
    assert resumed.exit_code == 0, resumed.output
    assert sorted(p.name for p in (out / parts).glob("part-*.parquet")) == [
        f"part-0000{i}.parquet" for i in range(4)]
    assert not staged(tmp_path)


@pytest.mark.parametrize("resume", [False, True])
def test_an_interrupted_claim_clears_what_its_workers_staged(tmp_path: Path, resume: bool):
    """Whether the run started the folder or resumed it, an interruption clears the staged
    parts in it (they are never taken as parts) and keeps the finished ones; a user's own
    temporary in a folder the claim refused is left alone."""
    from baccarat.errors import Interrupted
    from baccarat.io.parquet import OutputExistsError, owned_output

    folder = tmp_path / "run"
    plan = {"job": "test"}
    with pytest.raises(Interrupted):
        with owned_output(folder, plan, force=False, resume=False, complete="run.json"):
            (folder / "part-00000.parquet").write_bytes(b"finished")
            (folder / ".part-00001.parquet.abc-1.tmp").write_bytes(b"staged")
            raise KeyboardInterrupt
    if resume:
        with pytest.raises(Interrupted):
            with owned_output(folder, plan, force=False, resume=True, complete="run.json"):
                (folder / ".part-00002.parquet.def-2.tmp").write_bytes(b"staged")
                raise KeyboardInterrupt
    assert sorted(p.name for p in folder.iterdir()) == ["_plan.json", "part-00000.parquet"]

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    (mine / ".draft.tmp").write_text("mine")
    with pytest.raises(OutputExistsError):
        with owned_output(mine, plan, force=False, resume=False, complete="run.json"):
            pass
    assert sorted(p.name for p in mine.iterdir()) == [".draft.tmp", "notes.txt"]


def test_a_task_whose_run_is_over_keeps_no_staged_part(tmp_path: Path):
    """A task its run left behind (a Dask task cannot be stopped mid-way) finishes its part
    after the run released the folder, or after another run took it: the part is
    removed, never left staged."""
    import pyarrow as pa
    from baccarat.errors import BaccaratError
    from baccarat.io.owner import OutputLock
    from baccarat.io.parquet import write_part

    folder = tmp_path / "run"
    (folder / "sessions.parquet").mkdir(parents=True)
    table = pa.table({"x": [1, 2, 3]})
    ours = OutputLock(folder)
    ours.acquire()
    kept = write_part([table], folder / "sessions.parquet", 0, {"kind": "test"},
                      run_id=ours.run_id)
    assert kept.exists()
    gone = ours.run_id
    ours.release()
    with pytest.raises(BaccaratError, match="is over"):
        write_part([table], folder / "sessions.parquet", 1, {"kind": "test"}, run_id=gone)
    other = OutputLock(folder)
    other.acquire()
    with pytest.raises(BaccaratError, match="is over"):
        write_part([table], folder / "sessions.parquet", 2, {"kind": "test"}, run_id=gone)
    other.release()
    assert [p.name for p in (folder / "sessions.parquet").iterdir()] == [kept.name]
