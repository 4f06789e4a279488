"""Interrupted runs: killed part way, they keep only complete parts, look unfinished, and
``--resume`` finishes them into the files an uninterrupted run writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from baccarat import Run, backtest
from baccarat.backtest import RUN_FILE, SESSIONS_FILE, BacktestResult, play
from baccarat.cli import app
from baccarat.errors import BaccaratError, ChunkFailed
from baccarat.io.parquet import (
    DATASET_FILE,
    PLAN_FILE,
    IncompleteOutputError,
    OutputExistsError,
    read_coups,
)
from baccarat.job import BacktestJob
from baccarat.parallel import FAULT_ENV, generate_dataset
from baccarat.strategies.base import Strategy, Table, Wager
from same_files import assert_same_files, output_files
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
#: The run every test here interrupts: 20 chunks of 50 shoes (a chunk number up to 19 and
#: the shoes it holds are what the tests name; the count of chunks is not).
SHOES, CHUNK = 1000, 50
CHUNKS = SHOES // CHUNK
RUN_ARGS = ["backtest", "-s", "flat", "-s", "martingale", "--shoes", str(SHOES), "--seed", "9",
            "--chunk", str(CHUNK), "-q"]


def cli(*args: str):
    """``baccarat ARGS`` in this process."""
    return CliRunner().invoke(app, list(args))


def spawn(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``baccarat ARGS`` in a child process (its own process group, so it can be killed
    with its workers)."""
    code = "from baccarat.cli import app; app(prog_name='baccarat')"
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT,
                            env={**os.environ, **(env or {})}, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "run"
    result = cli(*RUN_ARGS, "--out", str(out), "--workers", "1")
    assert result.exit_code == 0, result.output
    return out


def kill_when_parts_appear(child: subprocess.Popen[bytes], folder: Path, parts: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        if len(list(folder.glob("part-*.parquet"))) >= parts:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return
        time.sleep(0.005)
    raise AssertionError(f"the run ended before it could be killed: {child.communicate()}")


def check_interrupted(out: Path) -> None:
    """What a killed run leaves: complete parts only, and a folder that says unfinished."""
    assert not (out / RUN_FILE).exists() and (out / PLAN_FILE).exists()
    parts = sorted((out / SESSIONS_FILE).glob("part-*.parquet"))
    assert 0 < len(parts) < CHUNKS
    for part in parts:  # every file under a final name is whole
        assert pq.read_table(part).num_rows > 0
    with pytest.raises(IncompleteOutputError, match="resume=True"):
        BacktestResult.load(out)
    refused = cli(*RUN_ARGS, "--out", str(out))
    assert refused.exit_code == 2 and "--resume" in refused.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_killed_run_resumes_into_the_files_of_an_uninterrupted_one(
        uninterrupted: Path, tmp_path: Path, workers: str):
    out = tmp_path / "run"
    child = spawn([*RUN_ARGS, "--out", str(out), "--workers", workers])
    kill_when_parts_appear(child, out / SESSIONS_FILE, parts=3)
    check_interrupted(out)
    before = {p.name for p in (out / SESSIONS_FILE).glob("part-*.parquet")}

    result = cli(*RUN_ARGS, "--out", str(out), "--resume", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert_same_files(uninterrupted, out)
    assert not (out / PLAN_FILE).exists() and not list(out.rglob(".*"))
    # The chunks already there were not redone: a chunk's sessions part is written last.
    assert BacktestResult.load(out).info["chunks"]["resumed"] == len(before)


def test_a_run_that_dies_at_a_chunk_keeps_the_chunks_before_it(uninterrupted: Path,
                                                               tmp_path: Path):
    out = tmp_path / "run"
    child = spawn([*RUN_ARGS, "--out", str(out), "--workers", "1"], {FAULT_ENV: "7:exit"})
    assert child.wait(timeout=120) == 70  # the process died in chunk 7, with no cleanup
    assert sorted(p.name for p in (out / SESSIONS_FILE).iterdir()) == [
        f"part-{i:05d}.parquet" for i in range(7)]
    check_interrupted(out)
    result = backtest(None, ["flat", "martingale"], shoes=SHOES, seed=9,
                      run=Run(out=out, resume=True))
    assert result.info["chunks"]["resumed"] == 7
    assert_same_files(uninterrupted, out)


def test_a_full_disk_stops_the_run_and_resume_finishes_it(uninterrupted: Path,
                                                          tmp_path: Path, monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setenv(FAULT_ENV, "12:raise")
    with pytest.raises(ChunkFailed, match=r"chunk 12 \(shoes 600-649\).*No space left"):
        backtest(None, ["flat", "martingale"], shoes=SHOES, seed=9,
                 run=Run(chunk_shoes=CHUNK, out=out))
    monkeypatch.delenv(FAULT_ENV)
    # A writer killed mid-file leaves a temporary: readers skip it, resume removes it.
    stray = out / SESSIONS_FILE / ".part-00012.parquet.0123abcd.tmp"
    stray.write_bytes(b"half a part")
    assert len(pd.read_parquet(out / SESSIONS_FILE)) == 2 * 600
    backtest(None, ["flat", "martingale"], shoes=SHOES, seed=9, run=Run(out=out, resume=True))
    assert not stray.exists()
    assert_same_files(uninterrupted, out)


def test_generate_resumes_after_a_kill(tmp_path: Path):
    whole = tmp_path / "whole"
    generate_dataset(whole, shoes=400, seed=3, chunk_shoes=40)
    out = tmp_path / "coups"
    child = spawn(["generate", "--shoes", "400", "--seed", "3", "--chunk", "40",
                   "--workers", "1", "--out", str(out), "-q"], {FAULT_ENV: "4:exit"})
    assert child.wait(timeout=120) == 70
    assert len(list(out.glob("part-*.parquet"))) == 4
    assert (out / PLAN_FILE).exists() and not (out / DATASET_FILE).exists()
    with pytest.raises(IncompleteOutputError, match="resume=True"):
        read_coups(out)
    refused = cli("backtest", "-s", "flat", "--coups", str(out), "--out",
                  str(tmp_path / "r"), "-q")
    assert refused.exit_code == 2 and "incomplete" in refused.output
    assert not (tmp_path / "r").exists()

    result = cli("generate", "--shoes", "400", "--seed", "3", "--out", str(out), "--resume",
                 "-q")
    assert result.exit_code == 0, result.output
    assert "resumed: 4 of 10 chunks" in result.output
    assert_same_files(whole, out)
    assert read_coups(out)[0].shoe_ids().tolist() == list(range(400))


def test_an_existing_output_is_never_overwritten_without_force(uninterrupted: Path,
                                                               tmp_path: Path):
    before = output_files(uninterrupted)
    refused = cli(*RUN_ARGS, "--out", str(uninterrupted))
    assert refused.exit_code == 2 and "already exists" in refused.output
    assert "--force" in refused.output
    assert output_files(uninterrupted) == before

    precious = tmp_path / "coups.parquet"
    precious.write_bytes(b"precious")
    with pytest.raises(OutputExistsError):
        generate_dataset(precious, shoes=10)
    assert precious.read_bytes() == b"precious"


def test_force_replaces_outputs_but_not_other_folders(tmp_path: Path):
    home = tmp_path / "documents"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work")
    with pytest.raises(OutputExistsError, match="did not write"):
        backtest(None, ["flat"], shoes=10, run=Run(out=home, force=True))
    with pytest.raises(OutputExistsError, match="did not write"):
        generate_dataset(home, shoes=10, force=True)
    assert (home / "thesis.tex").read_text() == "years of work"


def test_resume_of_a_finished_run_changes_nothing_and_mismatches_are_refused(
        uninterrupted: Path):
    stamps = {p: p.stat().st_mtime_ns for p in uninterrupted.rglob("*")}
    again = backtest(None, ["flat", "martingale"], shoes=SHOES, seed=9,
                     run=Run(chunk_shoes=CHUNK, out=uninterrupted, resume=True))
    assert again.path == uninterrupted and len(again.sessions) == 2 * SHOES
    assert {p: p.stat().st_mtime_ns for p in uninterrupted.rglob("*")} == stamps
    with pytest.raises(BaccaratError, match="contradict"):
        backtest(None, ["flat"], shoes=SHOES, run=Run(out=uninterrupted, resume=True, force=True))


def test_resume_refuses_a_different_run(tmp_path: Path, monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setenv(FAULT_ENV, "1:raise")
    with pytest.raises(ChunkFailed):
        backtest(None, ["flat"], shoes=300, seed=1, run=Run(chunk_shoes=100, out=out))
    monkeypatch.delenv(FAULT_ENV)
    with pytest.raises(BaccaratError, match="different dataset"):
        backtest(None, ["flat"], shoes=300, seed=2, run=Run(out=out, resume=True))
    with pytest.raises(BaccaratError, match="different chunk_shoes"):
        backtest(None, ["flat"], shoes=300, seed=1, run=Run(chunk_shoes=150, out=out, resume=True))
    with pytest.raises(BaccaratError, match="different configs"):
        backtest(None, ["martingale"], shoes=300, seed=1, run=Run(out=out, resume=True))
    assert (out / PLAN_FILE).exists()  # still resumable
    backtest(None, ["flat"], shoes=300, seed=1, run=Run(out=out, resume=True))
    assert (out / RUN_FILE).exists()


class FailsLater(Strategy):
    """Stakes NaN from the second chunk on: bad input found after parts were written."""

    name = "fails_later"
    chunks_started: ClassVar[list[int]] = []

    def start(self, table: Table) -> None:
        self.chunks_started.append(table.n)

    def wager(self, table: Table) -> Wager:
        stake = 10.0 if len(self.chunks_started) < 2 else float("nan")
        return Wager.on(banker=np.full(table.n, stake))


def test_bad_input_found_mid_run_leaves_no_output(tmp_path: Path):
    out = tmp_path / "run"
    with pytest.raises(BaccaratError,
                       match="fails_later.*staked nan on banker; expected a finite number"):
        play(BacktestJob(None, [FailsLater()], shoes=300, run=Run(chunk_shoes=100, out=out),
                         unchecked=True))  # it counts the chunks started
    assert len(FailsLater.chunks_started) == 2  # one chunk was written before the fault
    assert not out.exists()
