"""Nothing mixed when files change underneath: a dataset a run reads is pinned, checked
before every chunk, and the parts a run keeps are trusted only when they check out.

Real processes and real signals: a backtest in a child process playing a deliberately slow
strategy, while the test replaces its dataset with our writers (refused, naming the
reader) or with ``cp`` (which takes no lock: the run stops, resumable, never a mix); the
same on a real Dask LocalCluster; parts truncated before ``--resume``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from baccarat import Run, backtest
from baccarat.backtest import LEDGER_FILE, SESSIONS_FILE, BacktestResult
from baccarat.cli import app
from baccarat.errors import ChunkFailed
from baccarat.io.datasets import DatasetChanged
from baccarat.io.parquet import PART_LOG, PLAN_FILE, accept_part, part_record
from baccarat.parallel import FAULT_ENV, generate_dataset
from holders import finish, lock_holders, one_line, spawn, wait_until
from keywords import backtest_with
from same_files import assert_same_files
from typer.testing import CliRunner

DELAY_ENV = "SLOW_STRATEGY_SECONDS_PER_COUP"
SLOW = f'''
import os
import time
import numpy as np
from baccarat.strategies.base import Strategy, Table, Wager


class Slow(Strategy):
    """Flat on Banker, slowed down where {DELAY_ENV} says so."""

    name = "slow"

    def wager(self, table: Table) -> Wager:
        time.sleep(float(os.environ.get("{DELAY_ENV}", "0")))
        return Wager.on(banker=np.full(table.n, 10.0))
'''


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two datasets of the same shape (12 shoes in 3 parts), other seeds; the slow plugin;
    the uninterrupted run over the first."""
    folder = tmp_path_factory.mktemp("datasets")
    for name, seed in (("a", 1), ("b", 2)):
        generate_dataset(folder / name, shoes=12, seed=seed, chunk_shoes=4)
    plugin = folder / "slow_strategy.py"
    plugin.write_text(SLOW)
    whole = folder / "whole"
    result = cli("backtest", "-s", f"{plugin}:Slow", "--coups", str(folder / "a"), "--chunk",
                 "2", "--workers", "1", "--out", str(whole), "-q", "--no-table")
    assert result.exit_code == 0, result.output
    return {"a": folder / "a", "b": folder / "b", "plugin": plugin, "whole": whole}


def slow_run(datasets: dict[str, Path], coups: Path, out: Path, workers: int = 1,
             delay: float = 0.003) -> subprocess.Popen[str]:
    return spawn("backtest", "-s", f"{datasets['plugin']}:Slow", "--coups", str(coups),
                 "--chunk", "2", "--workers", str(workers), "--out", str(out), "-q",
                 "--no-table", env={DELAY_ENV: str(delay)})


def assert_same_rows(a: Path, b: Path) -> None:
    """The two run folders hold the same parts with the same rows (their metadata names
    their own dataset's path)."""
    parts_a = sorted(p.relative_to(a) for p in a.rglob("part-*.parquet"))
    assert parts_a == sorted(p.relative_to(b) for p in b.rglob("part-*.parquet"))
    for part in parts_a:
        assert pq.read_table(a / part).equals(pq.read_table(b / part)), part


def copy_of(source: Path, folder: Path) -> Path:
    target = folder / source.name
    shutil.copytree(source, target)
    return target


def test_a_writer_is_refused_while_a_run_reads_the_dataset(datasets, tmp_path: Path):
    coups = copy_of(datasets["a"], tmp_path)
    child = slow_run(datasets, coups, tmp_path / "run")
    wait_until(lambda: child.pid in lock_holders(coups), "dataset pinned", child=child)
    generate = cli("generate", "--shoes", "12", "--seed", "2", "--out", str(coups),
                   "--force", "-q")
    assert generate.exit_code == 2
    assert f"being read by another run (pid {child.pid})" in one_line(generate.output)
    imported = cli("import", str(datasets["b"]), "--out", str(coups), "--force", "-q")
    assert imported.exit_code == 2
    assert f"being read by another run (pid {child.pid})" in one_line(imported.output)
    wait_until(lambda: (tmp_path / "run").is_dir(), "the run folder made", child=child)
    into_the_run = cli("import", str(datasets["b"]), "--out", str(tmp_path / "run"),
                       "--force", "-q")  # the folder the live backtest writes
    assert into_the_run.exit_code == 2
    assert f"in use by another run (pid {child.pid})" in one_line(into_the_run.output)
    code, text = finish(child)
    assert code == 0, text
    assert_same_rows(datasets["whole"], tmp_path / "run")  # only the dataset it planned


def test_a_reader_is_refused_while_a_writer_writes_the_dataset(tmp_path: Path):
    coups = tmp_path / "coups"
    child = spawn("generate", "--shoes", "100000", "--chunk", "10000", "--workers", "1",
                  "--out", str(coups), "-q")
    wait_until(lambda: child.pid in lock_holders(coups) and coups.is_dir(),
               "generate writing", child=child)
    result = cli("backtest", "-s", "flat", "--coups", str(coups), "--out",
                 str(tmp_path / "run"), "-q")
    assert result.exit_code == 2
    assert f"being written by another run (pid {child.pid})" in one_line(result.output)
    assert not (tmp_path / "run").exists()
    os.killpg(child.pid, signal.SIGKILL)  # its own outcome is not what this test is about
    child.communicate()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_dataset_rewritten_by_cp_mid_run_stops_it_resumable_never_mixed(
        datasets, tmp_path: Path, workers: int):
    coups = copy_of(datasets["a"], tmp_path)
    kept = tmp_path / "part-00002.parquet.saved"
    shutil.copy2(coups / "part-00002.parquet", kept)
    out = tmp_path / "run"
    child = slow_run(datasets, coups, out, workers=workers)
    wait_until(lambda: list((out / SESSIONS_FILE).glob("part-*.parquet")), "a chunk done",
               child=child)
    # cp takes no lock: the part the last chunks read is rewritten in place under the run.
    subprocess.run(["cp", str(datasets["b"] / "part-00002.parquet"),
                    str(coups / "part-00002.parquet")], check=True)
    code, text = finish(child)
    assert code == 2, text
    line = one_line(text)
    assert "part-00002.parquet changed while the run was reading the dataset" in line
    assert "--resume" in line and len(text.strip().splitlines()) == 1
    assert (out / PLAN_FILE).exists()  # resumable: its finished chunks are kept
    for part in (out / SESSIONS_FILE).glob("part-*.parquet"):  # none from the other coups
        assert pq.read_metadata(part).num_rows > 0
    assert not list((out / SESSIONS_FILE).glob("part-0000[45].parquet"))

    refused = cli("backtest", "-s", f"{datasets['plugin']}:Slow", "--coups", str(coups),
                  "--chunk", "2", "--workers", "1", "--out", str(out), "--resume", "-q")
    assert refused.exit_code == 2
    assert "no longer the one the run planned" in one_line(refused.output)
    assert "part-00002.parquet" in refused.output

    shutil.copy2(kept, coups / "part-00002.parquet")  # put back: the resume finishes it
    resumed = cli("backtest", "-s", f"{datasets['plugin']}:Slow", "--coups", str(coups),
                  "--chunk", "2", "--workers", "1", "--out", str(out), "--resume", "-q",
                  "--no-table")
    assert resumed.exit_code == 0, resumed.output
    assert_same_rows(datasets["whole"], out)


def test_a_run_being_reported_is_not_replaced_under_the_report(datasets, tmp_path: Path):
    run = tmp_path / "run"
    backtest(datasets["a"], ["flat", "martingale", "fibonacci", "paroli"],
             run=Run(out=run, ledger=False))
    child = spawn("report", str(run), "--out", str(tmp_path / "r.html"), "-q",
                  env={"BACCARAT_REPORT_WORKERS": "0"})
    wait_until(lambda: child.pid in lock_holders(run), "the run pinned", child=child)
    os.kill(child.pid, signal.SIGSTOP)  # the report holds its pin while the backtest tries
    try:
        assert child.pid in lock_holders(run)
        result = cli("backtest", "-s", "flat", "--coups", str(datasets["a"]), "--out",
                     str(run), "--force", "-q")
    finally:
        os.kill(child.pid, signal.SIGCONT)
    assert result.exit_code == 2
    assert f"being read by another run (pid {child.pid})" in one_line(result.output)
    code, text = finish(child)
    assert code == 0, text


def test_a_dataset_written_while_it_is_read_whole_is_refused(datasets, tmp_path: Path,
                                                            monkeypatch):
    """analyze, roads and trace read a dataset whole: a part that a program taking no lock
    rewrites during that read (here cp, started as the read begins) is said, not mixed."""
    import baccarat.io.parquet as parquet

    coups = copy_of(datasets["a"], tmp_path)
    real = parquet.pq.read_table

    def read_while_cp_writes(*args, **kwargs):
        table = real(*args, **kwargs)
        subprocess.run(["cp", str(datasets["b"] / "part-00001.parquet"),
                        str(coups / "part-00001.parquet")], check=True)
        return table

    monkeypatch.setattr(parquet.pq, "read_table", read_while_cp_writes)
    with pytest.raises(DatasetChanged, match="changed while it was being read"):
        parquet.read_coups(coups)
    monkeypatch.undo()
    assert parquet.read_coups(coups)[0].shoe_ids().size == 12  # the dataset as it is now


def test_a_dask_worker_reading_a_changed_part_fails_the_run_cleanly(datasets, tmp_path: Path,
                                                                     monkeypatch):
    """On a LocalCluster of worker processes: the worker that reads the part cp rewrote
    fails the chunk with DatasetChanged, which Dask does not retry."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv(DELAY_ENV, "0.003")  # the workers inherit it
    coups = copy_of(datasets["a"], tmp_path)
    out = tmp_path / "run"

    def rewrite_when_a_chunk_is_done() -> None:
        deadline = time.monotonic() + 60
        while not list((out / SESSIONS_FILE).glob("part-*.parquet")):
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)
        subprocess.run(["cp", str(datasets["b"] / "part-00002.parquet"),
                        str(coups / "part-00002.parquet")], check=True)

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        threading.Thread(target=rewrite_when_a_chunk_is_done, daemon=True).start()
        with pytest.raises(DatasetChanged, match=r"part-00002.parquet changed.*--resume"):
            backtest(coups, [f"{datasets['plugin']}:Slow"],
                     run=Run(chunk_shoes=2, out=out, scheduler=cluster.scheduler_address))
    assert (out / PLAN_FILE).exists() and not list((out / SESSIONS_FILE).glob(
        "part-0000[45].parquet"))


def test_resume_replays_a_truncated_part_and_gives_the_uninterrupted_files(tmp_path: Path,
                                                                           monkeypatch):
    whole, out = tmp_path / "whole", tmp_path / "run"
    args = dict(strategies=["flat", "martingale"], shoes=60, seed=3, chunk_shoes=10)
    backtest_with(out=whole, **args)
    monkeypatch.setenv(FAULT_ENV, "4:raise")
    with pytest.raises(ChunkFailed):
        backtest_with(out=out, **args)
    monkeypatch.delenv(FAULT_ENV)
    for part in (out / SESSIONS_FILE / "part-00001.parquet",
                 out / LEDGER_FILE / "part-00002.parquet"):  # half of each, as a crash leaves
        part.write_bytes(part.read_bytes()[:part.stat().st_size // 2])
    result = cli("backtest", "-s", "flat", "-s", "martingale", "--shoes", "60", "--seed", "3",
                 "--chunk", "10", "--out", str(out), "--resume", "-q", "--no-table")
    assert result.exit_code == 0, result.output
    assert_same_files(whole, out)
    assert BacktestResult.load(out).info["chunks"]["resumed"] == 2  # chunks 0 and 3
    assert not (out / PART_LOG).exists()


def test_a_part_is_flushed_before_its_rename_and_its_folder_after(tmp_path: Path,
                                                                  monkeypatch):
    """The order of what reaches the disk: the part's bytes, its log line, the rename,
    then the folder's entry (so after a power loss a part under its final name is whole)."""
    import baccarat.io.owner as owner
    import baccarat.io.parquet as parquet

    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync " + Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real_fsync(fd)

    def replace(source, target) -> None:
        events.append(f"rename {Path(target).name}")
        real_replace(source, target)

    monkeypatch.setattr(owner.os, "fsync", fsync)
    monkeypatch.setattr(parquet.os, "replace", replace)
    folder = tmp_path / "parts"
    folder.mkdir()
    lock = owner.OutputLock(folder)  # the run that stages a part holds its folder
    lock.acquire()
    staged = parquet.write_part([pq.read_table(Path(__file__).resolve().parents[2] / "data"
                                               / "generated-8deck-200.parquet")],
                                folder, 7, {"kind": "coups"}, run_id=lock.run_id)
    log = parquet.PartLog(folder)
    record = part_record(staged)
    events.append("written")
    accept_part(staged, lock.run_id, record, log)
    lock.release()
    assert events[0] == f"fsync {staged.name}" and events[1] == "written"
    assert events[2:] == [f"fsync {parquet.PART_LOG}", "rename part-00007.parquet",
                          "fsync parts"]
    assert log.records()["part-00007.parquet"] == record


def test_generate_resume_replays_a_truncated_part(tmp_path: Path, monkeypatch):
    whole, out = tmp_path / "whole", tmp_path / "coups"
    generate_dataset(whole, shoes=40, seed=4, chunk_shoes=10)
    monkeypatch.setenv(FAULT_ENV, "3:raise")
    with pytest.raises(ChunkFailed):
        generate_dataset(out, shoes=40, seed=4, chunk_shoes=10)
    monkeypatch.delenv(FAULT_ENV)
    part = out / "part-00001.parquet"
    part.write_bytes(part.read_bytes()[:part.stat().st_size // 2])
    document = generate_dataset(out, shoes=40, seed=4, chunk_shoes=10, resume=True)
    assert document["resumed_chunks"] == 2  # parts 0 and 2; 1 failed its check
    assert_same_files(whole, out)


def test_search_holds_its_dataset_for_its_whole_life(tmp_path: Path, monkeypatch):
    """search reads the dataset's shoes (to split them) before its backtest plays them:
    a writer replacing the dataset between the two is refused, naming the search (it
    replaced it, and the split and the play were over two datasets)."""
    import importlib

    search_run = importlib.import_module("baccarat.search.run")  # baccarat.search: the function

    coups = tmp_path / "coups"
    generate_dataset(coups, shoes=6, seed=1)
    answers = []

    def then_replace(dataset):
        found = shoes_of(dataset)
        answers.append(cli("generate", "--shoes", "6", "--seed", "2", "--out", str(coups),
                           "--force", "-q"))
        return found

    shoes_of = search_run.dataset_shoes
    monkeypatch.setattr(search_run, "dataset_shoes", then_replace)
    search_run.search(coups, ["flat:side=[banker,player]"], reps=100, out=tmp_path / "search")
    assert answers[0].exit_code == 2, answers[0].output
    assert f"being read by another run (pid {os.getpid()})" in one_line(answers[0].output)
    assert read_seed(coups) == 1  # the dataset searched is still there


def read_seed(coups: Path) -> int:
    import json

    return int(json.loads((coups / "_dataset.json").read_text())["seed"])
