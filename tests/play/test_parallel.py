"""Chunked runs: the same files in one process, on a process pool and on a Dask cluster;
the same rows whatever the chunk size; retries; readers that see a folder of parts as one.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from baccarat import Run, Session, backtest
from baccarat.backtest import (
    LEDGER_FILE,
    RUN_FILE,
    SESSIONS_FILE,
    SUMMARY_FILE,
    BacktestResult,
    play,
    read_run_table,
)
from baccarat.deal import generate_coups
from baccarat.errors import BaccaratError, ChunkFailed, StrategyFault
from baccarat.io.parquet import read_coups, read_metadata
from baccarat.job import BacktestJob
from baccarat.parallel import FAULT_ENV, generate_dataset
from baccarat.rules import TableRules
from baccarat.strategies.base import Strategy, Table, Wager
from keywords import backtest_with
from same_files import assert_same_files

ROOT = Path(__file__).resolve().parents[2]

SPECS = ["flat", "martingale:max_doublings=5"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"




def run(out: Path, **kwargs: object) -> BacktestResult:
    options: dict[str, object] = {"shoes": 1200, "seed": 7, "chunk_shoes": 300, "out": out}
    options.update(kwargs)
    return backtest_with(strategies=SPECS, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The single-process run every other backend must reproduce file for file."""
    out = tmp_path_factory.mktemp("ref") / "run"
    run(out, workers=1)
    return out


def test_the_run_folder_is_folders_of_parts_and_single_summary_files(reference: Path):
    parts = sorted(p.name for p in (reference / SESSIONS_FILE).iterdir())
    assert parts == [f"part-{i:05d}.parquet" for i in range(4)]  # 1200 shoes / 300
    assert sorted(p.name for p in (reference / LEDGER_FILE).iterdir()) == parts
    assert (reference / SUMMARY_FILE).is_file() and (reference / RUN_FILE).is_file()
    assert not list(reference.glob("_*")) and not list(reference.rglob(".*"))
    info = json.loads((reference / RUN_FILE).read_text())
    assert info["chunks"]["chunks"] == 4 and info["counts"]["sessions"] == 1200
    # Each part holds every configuration, one after the other; session = shoe index.
    part = pq.read_table(reference / SESSIONS_FILE / "part-00002.parquet").to_pandas()
    assert part["config"].tolist() == [0] * 300 + [1] * 300
    assert part["session"].tolist() == list(range(600, 900)) * 2
    # 2 x 300 session rows: small enough to share one row group (a reader filtering on
    # config skips row groups by their statistics only for bigger chunks).
    assert pq.ParquetFile(reference / SESSIONS_FILE / "part-00002.parquet"
                          ).metadata.num_row_groups == 1
    assert read_metadata(reference / SESSIONS_FILE)["kind"] == "sessions"


def test_pandas_pyarrow_and_duckdb_read_a_folder_of_parts_as_one_table(reference: Path):
    result = BacktestResult.load(reference)
    sessions, ledger = result.sessions, result.ledger
    assert len(sessions) == 2 * 1200
    assert sessions[["config", "session"]].equals(
        sessions[["config", "session"]].sort_values(["config", "session"]))
    by_pandas = pd.read_parquet(reference / SESSIONS_FILE)
    by_arrow = ds.dataset(reference / LEDGER_FILE, format="parquet").to_table()
    con = duckdb.connect()
    ledger_glob = str(reference / LEDGER_FILE / "*.parquet")
    rows, net = con.execute(f"select count(*), sum(net) from read_parquet('{ledger_glob}')"
                            ).fetchone()
    assert len(by_pandas) == len(sessions)
    assert by_arrow.num_rows == len(ledger) == rows
    assert net == pytest.approx(ledger["net"].sum(), rel=1e-12)
    # Conservation across the parts: every session's ledger rows add up to its net.
    per_session = ledger.groupby(["config", "session"])["net"].sum()
    np.testing.assert_allclose(per_session.to_numpy(), sessions["net"].to_numpy(), atol=1e-9)


def test_the_summary_from_the_parts_agrees_with_the_sessions(reference: Path):
    result = BacktestResult.load(reference)
    sessions = result.sessions
    for config, row in result.summary.set_index("config").iterrows():
        mine = sessions[sessions["config"] == config]
        assert row["sessions"] == len(mine) == 1200
        assert row["mean_net"] == pytest.approx(mine["net"].mean(), rel=1e-12)
        assert row["risk_of_ruin"] == pytest.approx(mine["ruined"].mean())
        assert row["realized_edge"] == pytest.approx(mine["net"].sum() / mine["wagered"].sum())
    flat = result.summary.iloc[0]
    assert flat["house_edge"] == pytest.approx(0.0106, abs=5e-5)  # published: Banker 1.06%


def test_the_summary_is_the_same_read_one_configuration_at_a_time(reference: Path,
                                                                  monkeypatch):
    module = importlib.import_module("baccarat.backtest")  # baccarat.backtest is the function

    configs = module.resolve_strategies(SPECS)
    grouped = module.summarize_run(reference, configs, TableRules())
    monkeypatch.setattr(module, "SUMMARY_BATCH_ROWS", 1)  # as for the biggest runs
    alone = module.summarize_run(reference, configs, TableRules())
    pd.testing.assert_frame_equal(grouped, alone)
    pd.testing.assert_frame_equal(grouped, pd.read_parquet(reference / SUMMARY_FILE))


def test_a_process_pool_writes_the_same_files_as_one_process(reference: Path, tmp_path: Path):
    out = tmp_path / "pool"
    result = run(out, workers=2)
    assert result.info["chunks"]["workers"] == 2
    assert_same_files(reference, out)


def test_chunk_sizes_give_the_same_rows_and_summary(reference: Path, tmp_path: Path):
    expected = BacktestResult.load(reference)
    for chunk in (1200, 170, 500):
        result = run(tmp_path / f"chunk{chunk}", chunk_shoes=chunk)
        assert len(list((tmp_path / f"chunk{chunk}" / SESSIONS_FILE).iterdir())) == \
            -(-1200 // chunk)
        pd.testing.assert_frame_equal(result.sessions, expected.sessions)
        # Exact: the same coups give the same floats. (Not exact, pandas also compares the
        # categorical columns value by value in Python: seconds per ledger.)
        pd.testing.assert_frame_equal(result.ledger, expected.ledger, check_exact=True)
        pd.testing.assert_frame_equal(result.summary, expected.summary)
        assert (tmp_path / f"chunk{chunk}" / SUMMARY_FILE).read_bytes() == \
            (reference / SUMMARY_FILE).read_bytes()


def test_sessions_of_several_shoes_do_not_depend_on_the_chunking(tmp_path: Path):
    # 3 shoes per session: a chunk of 7 shoes is rounded down to 6 (two whole sessions).
    one = backtest(None, SPECS, shoes=100, seed=3, session=Session(session_shoes=3),
                   run=Run(chunk_shoes=100))
    many = backtest(None, SPECS, shoes=100, seed=3, session=Session(session_shoes=3),
                    run=Run(chunk_shoes=7))
    assert many.info["chunks"]["shoes_per_chunk"] == 6
    assert one.sessions["session"].max() == 33  # shoes 99 // 3
    assert one.sessions["first_shoe"].tolist()[:3] == [0, 3, 6]
    pd.testing.assert_frame_equal(one.sessions, many.sessions)
    pd.testing.assert_frame_equal(one.ledger, many.ledger, check_exact=True)


def test_a_stored_dataset_is_read_chunk_by_chunk_across_its_parts(tmp_path: Path):
    # Parts of 7 shoes, backtest chunks of 5: chunks start in the middle of parts.
    coups_dir = tmp_path / "coups.parquet"
    generate_dataset(coups_dir, shoes=60, seed=11, chunk_shoes=7)
    stored = backtest(coups_dir, SPECS, run=Run(chunk_shoes=5))
    generated = backtest(None, SPECS, shoes=60, seed=11, run=Run(chunk_shoes=60))
    in_memory = backtest(read_coups(coups_dir)[0], SPECS, run=Run(chunk_shoes=9))
    pd.testing.assert_frame_equal(stored.ledger, generated.ledger, check_exact=True)
    pd.testing.assert_frame_equal(stored.sessions, generated.sessions)
    pd.testing.assert_frame_equal(in_memory.sessions, generated.sessions)
    assert stored.info["counts"]["coups"] == len(generate_coups(TableRules(), 11, np.arange(60)))


def test_generate_on_a_pool_writes_the_same_parts(tmp_path: Path):
    generate_dataset(tmp_path / "one", shoes=900, seed=5, chunk_shoes=200, workers=1)
    document = generate_dataset(tmp_path / "two", shoes=900, seed=5, chunk_shoes=200,
                                workers=2)
    assert document["chunks"] == 5
    assert_same_files(tmp_path / "one", tmp_path / "two")
    coups, metadata = read_coups(tmp_path / "two")
    expected = generate_coups(TableRules(), 5, np.arange(900))
    assert np.array_equal(coups.cards, expected.cards)
    assert np.array_equal(coups.shoe, expected.shoe)
    assert metadata["shoes"] == 900 and document["coups"] == len(expected)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def test_a_dask_cluster_writes_the_same_files_as_one_process(reference: Path, tmp_path: Path,
                                                             cluster):
    out = tmp_path / "dask"
    run(out, scheduler=cluster.scheduler_address)
    assert_same_files(reference, out)
    generate_dataset(tmp_path / "here", shoes=500, seed=2, chunk_shoes=150)
    generate_dataset(tmp_path / "there", shoes=500, seed=2, chunk_shoes=150,
                     scheduler=cluster.scheduler_address)
    assert_same_files(tmp_path / "here", tmp_path / "there")


def test_a_chunk_that_fails_twice_stops_the_run_naming_its_shoes(tmp_path: Path,
                                                                 monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "2:raise")  # every attempt at chunk 2: disk full
    out = tmp_path / "run"
    with pytest.raises(ChunkFailed, match=r"chunk 2 \(shoes 600-899\) failed twice") as error:
        run(out)
    assert "No space left on device" in str(error.value)
    assert "resume=True" in str(error.value)
    # The chunks done are kept, the run is visibly unfinished.
    assert {p.name for p in (out / SESSIONS_FILE).iterdir()} == {
        "part-00000.parquet", "part-00001.parquet"}
    assert not (out / RUN_FILE).exists() and (out / "_plan.json").exists()


def test_a_failed_chunk_claims_no_resume_that_does_not_exist(tmp_path: Path, monkeypatch):
    """``--resume`` is offered only where a run folder keeps finished chunks: not when the
    first chunk failed (nothing kept, the folder removed), not for a run without a folder,
    and not for ``search``, which has no ``--resume`` (its folder appears only whole)."""
    monkeypatch.setenv(FAULT_ENV, "0:raise")
    with pytest.raises(ChunkFailed, match=r"chunk 0 .*failed twice") as error:
        run(tmp_path / "first")
    assert "--resume" not in str(error.value) and "no chunk had finished" in str(error.value)
    assert not (tmp_path / "first").exists()
    monkeypatch.setenv(FAULT_ENV, "2:raise")
    with pytest.raises(ChunkFailed) as error:
        run(None)
    assert str(error.value).endswith("(nothing was kept)")
    from baccarat.search.run import search

    coups = tmp_path / "coups"
    monkeypatch.delenv(FAULT_ENV)
    generate_dataset(coups, shoes=40, seed=1, chunk_shoes=20)
    monkeypatch.setenv(FAULT_ENV, "0:raise")
    with pytest.raises(ChunkFailed) as error:
        search(coups, ["flat"], out=tmp_path / "found")
    assert "--resume" not in str(error.value)
    assert str(error.value).endswith(f"(the search wrote nothing ({tmp_path / 'found'} is "
                                     f"as it was))")


def test_a_worker_that_dies_is_retried_and_one_that_always_dies_stops_the_run(
        reference: Path, tmp_path: Path, monkeypatch):
    marker = tmp_path / "died-once"
    monkeypatch.setenv(FAULT_ENV, f"1:exit:{marker}")  # the worker dies on the first try
    out = tmp_path / "retried"
    run(out, workers=2)
    assert marker.exists()
    assert_same_files(reference, out)

    monkeypatch.setenv(FAULT_ENV, "3:exit")  # dies every time
    with pytest.raises(ChunkFailed, match=r"chunk 3 \(shoes 900-1199\) failed twice.*"
                                          r"worker process died"):
        run(tmp_path / "dead", workers=2)


class Local(Strategy):
    """Defined at module level: picklable, so it runs on a pool."""

    name = "local_test_strategy"

    def wager(self, table: Table) -> Wager:
        return Wager.on(player=np.full(table.n, self.base))


def test_plugins_and_instances_run_on_a_pool(tmp_path: Path):
    plugin = f"{EXAMPLES / 'simple_martingale.py'}:SimpleMartingale"
    specs = [plugin, Local()]
    here = backtest(None, specs, shoes=240, seed=1, run=Run(chunk_shoes=60, ledger=False))
    pool = backtest(None, specs, shoes=240, seed=1,
                    run=Run(chunk_shoes=60, ledger=False, workers=2))
    pd.testing.assert_frame_equal(here.sessions, pool.sessions)

    class Unpicklable(Local):
        name = "unpicklable"

    with pytest.raises(BaccaratError, match="cannot be sent to worker processes"):
        backtest(None, [Unpicklable()], shoes=240, run=Run(chunk_shoes=60, workers=2))


def test_a_result_without_a_folder_can_be_saved(tmp_path: Path):
    result = backtest(None, ["flat"], shoes=50, seed=4, run=Run(chunk_shoes=20))
    assert result.path is None and result.folder is not None
    temp = result.folder
    saved = result.save(tmp_path / "kept")
    assert saved == tmp_path / "kept" and result.path == saved
    assert not temp.exists()  # the temporary folder went with the save
    loaded = BacktestResult.load(saved)
    pd.testing.assert_frame_equal(loaded.ledger, result.ledger, check_exact=True)
    with pytest.raises(BaccaratError, match="already exists"):
        backtest(None, ["flat"], shoes=50).save(saved)
    assert os.listdir(saved)  # untouched


def test_read_run_table_reads_one_configuration(reference: Path):
    one = read_run_table(reference, "ledger", config=1, columns=["config", "session", "net"])
    assert one.column_names == ["config", "session", "net"]
    assert set(one.column("config").to_pylist()) == {1}
    whole = BacktestResult.load(reference).ledger
    assert one.num_rows == int((whole["config"] == 1).sum())


WRONG_SHAPE_PLUGIN = '''
import numpy as np
from baccarat.strategies.base import Strategy, Wager


class WrongShape(Strategy):
    """Counts its chunk starts in a file, then stakes an array one too long."""
    name = "wrong_shape"
    marker: str = ""

    def start(self, table):
        with open(self.marker, "a") as f:
            f.write("x")

    def wager(self, table):
        return Wager.on(banker=np.full(table.n + 1, 10.0))
'''


def test_a_strategy_error_on_a_dask_cluster_is_not_retried(tmp_path: Path, cluster):
    path = tmp_path / "wrong_shape.py"
    path.write_text(WRONG_SHAPE_PLUGIN)
    marker = tmp_path / "starts"
    out = tmp_path / "run"
    with pytest.raises(StrategyFault, match=r"^strategy 'wrong_shape:marker=.*coup 1.*"
                       r"wager\(\) returned an array of shape \(11,\)") as error:
        play(BacktestJob(None, [f"{path}:WrongShape:marker={marker}"], shoes=20, seed=1,
                         run=Run(chunk_shoes=10, out=out, scheduler=cluster.scheduler_address),
                         unchecked=True))  # it counts its starts: no check before the run
    assert not isinstance(error.value, ChunkFailed)
    assert 1 <= len(marker.read_text()) <= 2  # two chunks, each started once at most
    assert not out.exists()


def _progress_of_a_run(tmp_path: Path, **backend: object) -> tuple[list[tuple[int, int]], int]:
    """The progress calls of a 4-chunk run replayed step by step (exact pricing: the
    compiled path plays a chunk in one call), and the coups it played."""
    calls: list[tuple[int, int]] = []
    result = backtest_with(strategies=SPECS, shoes=40, seed=3, chunk_shoes=10, expected="exact",
                      out=tmp_path / "run", progress=lambda c, s: calls.append((c, s)),
                      **backend)  # type: ignore[arg-type]
    return calls, result.info["counts"]["coups"]


def _moves_within_chunks(calls: list[tuple[int, int]], coups: int) -> None:
    # 4 chunks of 10 one-shoe sessions: a bar moving only as chunks end gets 4 calls,
    # the first of 10 sessions; chunks that report as they go give many, small ones
    assert sum(s for _, s in calls) == 40 and sum(c for c, _ in calls) == coups
    assert len(calls) >= 4 * 8
    assert 0 < next(s for _, s in calls if s) < 10


def test_a_pool_reports_sessions_as_its_chunks_go_not_only_when_they_end(tmp_path: Path):
    _moves_within_chunks(*_progress_of_a_run(tmp_path, workers=2))


def test_a_dask_cluster_reports_sessions_as_its_chunks_go(tmp_path: Path, cluster):
    _moves_within_chunks(*_progress_of_a_run(tmp_path, scheduler=cluster.scheduler_address))
