"""A run folder has one owner, and holds only what that run planned and wrote.

The lock is a real OS lock held by a real other process; the orphaned part is one a worker
of another run staged in the folder, as a worker outliving a killed run would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from baccarat import Run, backtest
from baccarat.backtest import RUN_FILE, SESSIONS_FILE, BacktestResult
from baccarat.cli import app
from baccarat.errors import BaccaratError, ChunkFailed
from baccarat.io.parquet import (
    LOCK_FILE,
    PLAN_FILE,
    FolderLock,
    FolderLockedError,
    OutputExistsError,
    accept_part,
)
from baccarat.parallel import FAULT_ENV, generate_dataset
from baccarat.report.runs import load_run
from cli_text import words as flat
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def interrupted_run(out: Path, shoes: int, failing_chunk: int) -> None:
    """What an interrupted run leaves in ``out``: a flat run over ``shoes`` shoes in chunks
    of 10 whose chunk ``failing_chunk`` fails (a planned fault)."""
    os.environ[FAULT_ENV] = f"{failing_chunk}:raise"
    try:
        with pytest.raises(ChunkFailed):
            backtest(None, ["flat"], shoes=shoes, seed=1, run=Run(chunk_shoes=10, out=out))
    finally:
        del os.environ[FAULT_ENV]


@pytest.fixture
def holder(tmp_path: Path):
    """Another process holding the lock of folder ``tmp_path / "run"`` (a run of ours,
    interrupted: plan and one part), as a live run would."""
    out = tmp_path / "run"
    interrupted_run(out, shoes=30, failing_chunk=1)
    code = ("import sys, time; from pathlib import Path; from baccarat.io.parquet import "
            "FolderLock; lock = FolderLock(Path(sys.argv[1])); lock.acquire(); "
            "print('locked', flush=True); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, str(out)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)},
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "locked"
    yield out, child.pid
    child.kill()
    child.wait()


def test_a_locked_folder_is_refused_to_a_second_run_force_and_resume(holder):
    out, pid = holder
    before = sorted(str(p) for p in out.rglob("*"))
    for extra in ([], ["--force"], ["--resume"]):
        result = cli("backtest", "-s", "flat", "--shoes", "30", "--seed", "1", "--chunk", "10",
                     "--out", str(out), "-q", *extra)
        assert result.exit_code == 2, (extra, result.output)
        assert f"in use by another run (pid {pid})" in flat(result.output), extra
        assert "Traceback" not in result.output
    with pytest.raises(FolderLockedError, match=f"pid {pid}"):
        generate_dataset(out, shoes=10, force=True)
    assert sorted(str(p) for p in out.rglob("*")) == before  # untouched


def test_the_lock_is_released_when_its_holder_dies(holder):
    out, pid = holder
    os.kill(pid, 9)
    time.sleep(0.2)
    result = backtest(None, ["flat"], shoes=30, seed=1,
                      run=Run(chunk_shoes=10, out=out, resume=True))
    assert result.info["chunks"]["resumed"] == 1
    assert not (out / LOCK_FILE).exists()  # a finished run leaves no lock file


def test_two_locks_on_one_folder_in_one_process_conflict(tmp_path: Path):
    first, second = FolderLock(tmp_path), FolderLock(tmp_path)
    first.acquire()
    with pytest.raises(FolderLockedError, match=f"pid {os.getpid()}"):
        second.acquire()
    first.release()
    second.acquire()
    assert first.run_id != second.run_id
    second.release()


def test_a_part_staged_by_another_run_is_never_accepted_and_is_removed(tmp_path: Path):
    out = tmp_path / "run"
    interrupted_run(out, shoes=40, failing_chunk=2)
    # A worker of another run (martingale, killed meanwhile) finishes chunk 2 here.
    other = tmp_path / "other"
    backtest(None, ["martingale"], shoes=40, seed=1, run=Run(chunk_shoes=10, out=other))
    foreign = out / SESSIONS_FILE / ".part-00002.parquet.0123456789ab-deadbeef.tmp"
    foreign.write_bytes((other / SESSIONS_FILE / "part-00002.parquet").read_bytes())
    with pytest.raises(BaccaratError, match="not a part of this run"):
        accept_part(foreign, "feedfacecafe")
    result = backtest(None, ["flat"], shoes=40, seed=1, run=Run(out=out, resume=True))
    assert not foreign.exists()
    assert set(result.sessions["strategy"] if "strategy" in result.sessions else ["flat"]) \
        == {"flat"}
    assert result.summary["spec"].tolist() == ["flat"]
    for part in (out / SESSIONS_FILE).glob("part-*.parquet"):
        assert b"martingale" not in pq.read_schema(part).metadata[b"baccarat"]


def test_compare_and_report_refuse_a_folder_holding_another_runs_parts(tmp_path: Path):
    flat_run, other = tmp_path / "flat", tmp_path / "other"
    backtest(None, ["flat"], shoes=40, seed=1, run=Run(chunk_shoes=10, out=flat_run))
    backtest(None, ["martingale"], shoes=40, seed=1, run=Run(chunk_shoes=10, out=other))
    part = flat_run / SESSIONS_FILE / "part-00001.parquet"
    part.write_bytes((other / SESSIONS_FILE / "part-00001.parquet").read_bytes())
    with pytest.raises(BaccaratError, match=r"part-00001.parquet.*another run"):
        BacktestResult.load(flat_run)
    with pytest.raises(BaccaratError, match=r"part-00001.parquet.*another run"):
        load_run(flat_run)
    result = cli("compare", str(flat_run), str(other), "-q")
    assert result.exit_code == 2 and "another run" in flat(result.output)


def test_force_refuses_a_plain_file_and_a_folder_of_anything_else(tmp_path: Path):
    document = tmp_path / "thesis.docx"
    document.write_bytes(b"years of work")
    result = cli("backtest", "-s", "flat", "--shoes", "5", "--out", str(document), "--force",
                 "-q")
    assert result.exit_code == 2 and "is a file, not a folder baccarat wrote" in flat(
        result.output)
    assert len(result.output.strip().splitlines()) <= 2  # one line (wrapped at most once)
    assert document.read_bytes() == b"years of work"
    with pytest.raises(OutputExistsError, match="is a file"):
        generate_dataset(document, shoes=5, force=True)

    # Names like ours are not enough: no plan and no marker, so not ours.
    lookalike = tmp_path / "lookalike"
    (lookalike / SESSIONS_FILE).mkdir(parents=True)
    (lookalike / SESSIONS_FILE / "notes.txt").write_text("mine")
    (lookalike / "summary.parquet").write_bytes(b"mine too")
    for folder in (lookalike,):
        with pytest.raises(OutputExistsError, match="did not write"):
            backtest(None, ["flat"], shoes=5, run=Run(out=folder, force=True))
    assert (lookalike / SESSIONS_FILE / "notes.txt").read_text() == "mine"
    # A run folder with a user's file added to it is not replaced either.
    run = tmp_path / "run"
    backtest(None, ["flat"], shoes=5, run=Run(out=run))
    (run / "my-analysis.ipynb").write_text("{}")
    with pytest.raises(OutputExistsError, match="did not write"):
        backtest(None, ["flat"], shoes=5, run=Run(out=run, force=True))
    assert (run / "my-analysis.ipynb").exists() and (run / RUN_FILE).exists()
    # An empty folder holds nothing to lose: it is used as it is.
    empty = tmp_path / "empty"
    empty.mkdir()
    backtest(None, ["flat"], shoes=5, run=Run(out=empty))
    assert (empty / RUN_FILE).exists() and not (empty / PLAN_FILE).exists()


def test_force_replaces_a_run_folder_of_ours(tmp_path: Path):
    run = tmp_path / "run"
    backtest(None, ["flat"], shoes=20, run=Run(out=run))
    result = backtest(None, ["martingale"], shoes=20, run=Run(out=run, force=True))
    assert result.summary["spec"].tolist() == ["martingale"]
    assert BacktestResult.load(run).summary["spec"].tolist() == ["martingale"]


def test_workers_beyond_the_cores_are_capped_with_a_note(tmp_path: Path):
    from baccarat.parallel import default_workers

    cores = default_workers()
    out = tmp_path / "run"
    result = cli("backtest", "-s", "flat", "--shoes", "40", "--chunk", "10", "--workers",
                 "1000", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert f"--workers 1000 is more than the {cores} cores here: using {cores}" in flat(
        result.output)
    assert BacktestResult.load(out).info["chunks"]["workers"] == cores


def test_a_finished_run_removes_what_killed_writers_left(tmp_path: Path):
    out = tmp_path / "run"
    interrupted_run(out, shoes=30, failing_chunk=1)
    # What writers killed mid-file leave: a temporary, a part staged by a dead run.
    strays = [out / SESSIONS_FILE / ".part-00001.parquet.1a2b3c4d.tmp",
              out / ".summary.parquet.99887766.tmp"]
    for stray in strays:
        stray.write_bytes(b"half written")
    backtest(None, ["flat"], shoes=30, seed=1, run=Run(out=out, resume=True))
    assert not any(p.exists() for p in strays) and not list(out.rglob(".*"))


def test_force_on_single_file_outputs_replaces_only_files_of_ours(tmp_path: Path):
    """import, compare and report write single files: --force replaces one of ours (Parquet
    with our metadata, a report with our generator mark) and never a user's document."""
    run = tmp_path / "run"  # small: what is checked is which file is replaced, not its content
    backtest(None, ["flat"], shoes=20, run=Run(out=run, ledger=False))
    sample = str(ROOT / "data" / "outcomes.csv")
    for command, name in ((["import", sample], "coups.parquet"),
                          (["compare", str(run)], "comparison.parquet"),
                          (["report", str(run)], "report.html")):
        folder = tmp_path / command[0]
        folder.mkdir()
        # compare's --out is the folder that holds comparison.parquet
        out = folder if command[0] == "compare" else folder / name
        document = folder / name
        document.write_bytes(b"years of work")
        result = cli(*command, "--out", str(out), "--force", "-q")
        assert result.exit_code == 2, (command, result.output)
        assert "not an output baccarat wrote" in flat(result.output), command
        assert document.read_bytes() == b"years of work"
        document.unlink()
        first = cli(*command, "--out", str(out), "-q")
        assert first.exit_code == 0, (command, first.output)
        again = cli(*command, "--out", str(out), "--force", "-q")
        assert again.exit_code == 0, (command, again.output)


def test_compare_out_that_is_a_file_is_one_line(tmp_path: Path):
    run = tmp_path / "run"
    backtest(None, ["flat"], shoes=5, run=Run(out=run))
    document = tmp_path / "notes.txt"
    document.write_text("mine")
    result = cli("compare", str(run), "--out", str(document), "-q")
    assert result.exit_code == 2 and "is a file; --out names the folder" in flat(result.output)
    assert document.read_text() == "mine"
