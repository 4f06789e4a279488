"""A full disk at any write is one clear line and exit status 2, never a traceback; the
output is left resumable, or removed when nothing was done (so a rerun is not blocked).

Each write site gets a real ``ENOSPC`` from the call that writes its bytes (the JSON
writer, pyarrow's Parquet writers); where the test runs as root, a real 1 MB tmpfs too.
"""

from __future__ import annotations

import errno
import os
import pathlib
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from baccarat.backtest import RUN_FILE, SUMMARY_FILE, BacktestResult
from baccarat.cli import app
from baccarat.io.parquet import DATASET_FILE, LOCK_FILE, PLAN_FILE, read_coups
from cli_text import words as flat
from holders import mounted_tmpfs
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
RUN = ["backtest", "-s", "flat", "--shoes", "40", "--chunk", "10", "--workers", "1", "-q"]


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def disk_full_at(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Every write of a file whose name holds ``name`` finds no space left."""
    def full(path: object) -> None:
        if name in os.fspath(path):  # type: ignore[arg-type]
            raise OSError(errno.ENOSPC, "No space left on device")

    write_text = pathlib.Path.write_text
    write_table = pq.write_table
    writer_init = pq.ParquetWriter.__init__

    def text(self: pathlib.Path, *args: object, **kwargs: object) -> int:
        full(self)
        return write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    def table(data: object, where: object, *args: object, **kwargs: object) -> None:
        full(where)
        write_table(data, where, *args, **kwargs)  # type: ignore[arg-type]

    def writer(self: pq.ParquetWriter, where: object, *args: object, **kwargs: object) -> None:
        full(where)
        writer_init(self, where, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pathlib.Path, "write_text", text)
    monkeypatch.setattr(pq, "write_table", table)
    monkeypatch.setattr(pq.ParquetWriter, "__init__", writer)


def one_error_line(output: str) -> str:
    assert "Traceback" not in output
    assert output.startswith("error: no space left on device writing"), output
    return flat(output)


def test_no_room_for_the_plan_leaves_nothing_and_a_rerun_works(tmp_path: Path, monkeypatch):
    out = tmp_path / "coups"
    disk_full_at(monkeypatch, PLAN_FILE)
    result = cli("generate", "--shoes", "20", "--out", str(out), "-q")
    assert result.exit_code == 2
    assert "nothing was kept" in one_error_line(result.output)
    assert not out.exists()  # an empty folder would block the rerun
    monkeypatch.undo()
    assert cli("generate", "--shoes", "20", "--out", str(out), "-q").exit_code == 0
    assert read_coups(out)[0].shoe_ids().size == 20


@pytest.mark.parametrize("site", [SUMMARY_FILE, RUN_FILE])
def test_no_room_for_the_summary_or_run_json_leaves_a_resumable_run(tmp_path: Path,
                                                                     monkeypatch, site: str):
    out = tmp_path / "run"
    disk_full_at(monkeypatch, site)
    result = cli(*RUN, "--out", str(out))
    assert result.exit_code == 2
    message = one_error_line(result.output)
    assert site in message and "--resume" in message
    assert (out / PLAN_FILE).exists() and not (out / RUN_FILE).exists()
    assert not (out / LOCK_FILE).exists() and not list(out.rglob(".*.tmp"))
    monkeypatch.undo()
    resumed = cli(*RUN, "--out", str(out), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert BacktestResult.load(out).info["chunks"]["resumed"] == 4


def test_no_room_for_the_dataset_marker_leaves_a_resumable_dataset(tmp_path: Path,
                                                                   monkeypatch):
    out = tmp_path / "coups"
    disk_full_at(monkeypatch, DATASET_FILE)
    result = cli("generate", "--shoes", "20", "--chunk", "10", "--out", str(out), "-q")
    assert result.exit_code == 2 and "--resume" in one_error_line(result.output)
    monkeypatch.undo()
    result = cli("generate", "--shoes", "20", "--chunk", "10", "--out", str(out), "--resume",
                 "-q")
    assert result.exit_code == 0 and "resumed: 2 of 2 chunks" in result.output


def test_no_room_for_a_workers_part_stops_the_run_resumable(tmp_path: Path, monkeypatch):
    out = tmp_path / "run"
    disk_full_at(monkeypatch, "part-00002")
    result = cli(*RUN, "--out", str(out))
    assert result.exit_code == 2 and "Traceback" not in result.output
    message = flat(result.output)
    assert "chunk 2 (shoes 20-29) failed twice" in message
    assert "no space left on device writing" in message and "--resume" in message
    assert not list(out.rglob(".*.tmp"))
    monkeypatch.undo()
    assert cli(*RUN, "--out", str(out), "--resume").exit_code == 0

    first = tmp_path / "first"  # the very first part: nothing was done, nothing is left
    disk_full_at(monkeypatch, "part-00000")
    result = cli(*RUN, "--out", str(first))
    assert result.exit_code == 2 and not first.exists()


def test_no_room_for_an_import_writes_nothing(tmp_path: Path, monkeypatch):
    out = tmp_path / "imported.parquet"
    disk_full_at(monkeypatch, "imported.parquet")
    result = cli("import", str(ROOT / "data" / "outcomes.csv"), "--out", str(out), "-q")
    assert result.exit_code == 2
    assert "imported.parquet" in one_error_line(result.output)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A real 1 MB filesystem (tmpfs), where the test may mount one (root on Linux)."""
    with mounted_tmpfs(tmp_path / "tiny", "size=1m") as mount:
        yield mount


def test_a_real_full_disk_is_one_line_and_a_rerun_is_not_blocked(tiny_disk: Path):
    out = tiny_disk / "coups"
    result = cli("generate", "--shoes", "3000", "--chunk", "500", "--workers", "1",
                 "--out", str(out), "-q")
    assert result.exit_code == 2
    message = flat(result.output)
    assert "Traceback" not in result.output and "no space left on device" in message
    assert not list(tiny_disk.rglob(".*.tmp"))
    if out.exists():  # some chunks fitted: resumable, and the message says so
        assert (out / PLAN_FILE).exists() and "--resume" in message
        shutil.rmtree(out)
    small = cli("generate", "--shoes", "50", "--out", str(out), "-q")
    assert small.exit_code == 0, small.output
