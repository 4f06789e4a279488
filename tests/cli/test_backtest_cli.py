"""``baccarat backtest`` through the CLI: the run folder, datasets, chunk flags, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from baccarat import Run, backtest
from baccarat.backtest import (
    LEDGER_FILE,
    RUN_FILE,
    SESSIONS_FILE,
    SUMMARY_FILE,
    BacktestResult,
    play,
)
from baccarat.deal import generate_coups
from baccarat.io.parquet import read_metadata
from baccarat.job import BacktestJob
from baccarat.rules import TableRules
from cli_text import cli, flat


def test_writes_a_run_folder_of_parts_with_the_summary(tmp_path: Path):
    out = tmp_path / "run"
    result = cli("backtest", "-s", "flat", "-s", "martingale:max_doublings=[3,6]",
                 "--shoes", "500", "--seed", "4", "--chunk", "200", "--out", str(out))
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    assert f"wrote {out} (3 configurations x 500 sessions" in text
    assert "Backtest: 8 decks, standard 5%, tie 8:1" in text  # the summary table
    assert sorted(p.name for p in (out / LEDGER_FILE).iterdir()) == [
        "part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    summary = pd.read_parquet(out / SUMMARY_FILE)
    assert summary["spec"].tolist() == ["flat", "martingale:max_doublings=3",
                                        "martingale:max_doublings=6"]
    assert (summary["sessions"] == 500).all()
    info = json.loads((out / RUN_FILE).read_text())
    expected_coups = len(generate_coups(TableRules(), 4, np.arange(500)))
    assert info["counts"] == {"configs": 3, "sessions": 500, "shoes": 500,
                              "coups": expected_coups}
    assert info["command"].split()[0] == "baccarat"  # argv of the test process follows
    assert info["chunks"]["shoes_per_chunk"] == 200
    # Every part says what it is; the ledger has one row per coup played.
    assert read_metadata(out / LEDGER_FILE)["kind"] == "ledger"
    ledger = pd.read_parquet(out / LEDGER_FILE)
    sessions = pd.read_parquet(out / SESSIONS_FILE)
    assert len(ledger) == int(sessions["coups"].sum())
    assert set(ledger.columns) >= {"config", "session", "shoe", "coup", "banker", "player",
                                   "tie", "net", "bankroll"}


def test_ledger_none_writes_no_ledger(tmp_path: Path):
    out = tmp_path / "run"
    result = cli("backtest", "-s", "flat", "--shoes", "50", "--ledger", "none",
                 "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert not (out / LEDGER_FILE).exists()
    assert BacktestResult.load(out).ledger.empty
    assert len(pd.read_parquet(out / SESSIONS_FILE)) == 50


def test_a_generated_dataset_folder_replays_like_generated_shoes(tmp_path: Path):
    coups = tmp_path / "coups.parquet"
    assert cli("generate", "--shoes", "120", "--seed", "8", "--chunk", "25", "--out",
               str(coups), "-q").exit_code == 0
    from_file = tmp_path / "file"
    from_seed = tmp_path / "seed"
    assert cli("backtest", "-s", "paroli", "--coups", str(coups), "--chunk", "40",
               "--out", str(from_file), "-q").exit_code == 0
    assert cli("backtest", "-s", "paroli", "--shoes", "120", "--seed", "8",
               "--out", str(from_seed), "-q").exit_code == 0
    for name in (SESSIONS_FILE, LEDGER_FILE):
        pd.testing.assert_frame_equal(pd.read_parquet(from_file / name),
                                      pd.read_parquet(from_seed / name))
    info = json.loads((from_file / RUN_FILE).read_text())
    assert info["dataset"]["path"] == str(coups) and info["counts"]["shoes"] == 120


def test_workers_flag_gives_the_same_files(tmp_path: Path):
    args = ["backtest", "-s", "dalembert", "--shoes", "400", "--seed", "2", "--chunk",
            "100", "-q"]
    assert cli(*args, "--out", str(tmp_path / "one"), "--workers", "1").exit_code == 0
    assert cli(*args, "--out", str(tmp_path / "two"), "--workers", "2").exit_code == 0
    for part in sorted((tmp_path / "one").rglob("*.parquet")):
        if part.is_file():
            twin = tmp_path / "two" / part.relative_to(tmp_path / "one")
            assert twin.read_bytes() == part.read_bytes(), part


def test_progress_reports_every_chunk(tmp_path: Path):
    seen: list[tuple[int, int]] = []
    totals: list[int] = []
    result = play(BacktestJob(None, ["flat"], shoes=90, seed=1,
                              run=Run(chunk_shoes=40, progress=lambda coups, sessions:
                                      seen.append((coups, sessions))),
                              on_start=totals.append))
    assert totals == [90]
    # Every chunk's end is reported (chunks played here also report their sessions as
    # their steps go, so there may be more calls between).
    reached = set(np.cumsum([s for _, s in seen]).tolist())
    assert {40, 80, 90} <= reached and max(reached) == 90
    assert sum(c for c, _ in seen) == result.info["counts"]["coups"]


def test_many_configurations_get_smaller_chunks():
    bases = ",".join(str(10 * i) for i in range(1, 25))  # 24 configurations
    result = backtest(None, [f"flat:base=[{bases}]"], shoes=30, run=Run(ledger=False))
    assert result.info["chunks"]["shoes_per_chunk"] == 6250  # 150,000 config-shoes / 24
    assert len(result.summary) == 24
    assert backtest(None, ["flat"], shoes=30).info["chunks"]["shoes_per_chunk"] == 20_000


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--workers", "0"], "Invalid value for '--workers'"),
        (["--chunk", "0"], "Invalid value for '--chunk'"),
        (["--ledger", "some"], "--ledger some: expected full or none"),
        (["--strategy", "martingail"], "did you mean 'martingale'"),
        (["--resume", "--force"], "contradict"),
        (["--bankroll", "-5"], "--bankroll -5.0: expected a positive amount"),
        (["--coups", "nowhere.parquet"], "give either a coups dataset or --shoes"),
    ],
)
def test_bad_flags_exit_2_and_write_nothing(tmp_path: Path, flags: list[str], message: str):
    out = tmp_path / "run"
    base = ["backtest", "--shoes", "20", "--out", str(out), "-q"]
    if "--strategy" not in flags:
        base += ["-s", "flat"]
    result = cli(*base, *flags)
    assert result.exit_code == 2, result.output
    assert message in flat(result.output)
    assert not out.exists()


def test_a_missing_dataset_exits_2(tmp_path: Path):
    result = cli("backtest", "-s", "flat", "--coups", str(tmp_path / "nowhere.parquet"),
                 "--out", str(tmp_path / "run"), "-q")
    assert result.exit_code == 2
    assert f"no coups file at {tmp_path / 'nowhere.parquet'}" in flat(result.output)
    assert not (tmp_path / "run").exists()


def test_a_file_that_is_not_a_coups_table_is_refused(tmp_path: Path):
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), other)
    result = cli("backtest", "-s", "flat", "--coups", str(other), "--out",
                 str(tmp_path / "run"), "-q")
    assert result.exit_code == 2
    # not a coups dataset: read as `baccarat import` reads a Parquet file, which says why
    # it holds no coups
    assert "importing it in memory" in flat(result.output)
    assert "error:" in result.output and "other.parquet" in flat(result.output)
    assert "Traceback" not in result.output
    assert not (tmp_path / "run").exists()
