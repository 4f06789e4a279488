"""A plugin given by its file path loads in every worker of every backend, composed with
session rules, whatever the chunking: the same way it loads in the command's own
process (the worker is told the file, and loads it under the same module name)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from baccarat import Run, backtest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = f"{ROOT / 'examples' / 'banker_after_players.py'}:BankerAfterPlayers"
#: The plugin composed with session rules (only: the plugin alone among them hid the bug).
SPECS = [f"{PLUGIN} | stop:win=100", f"{PLUGIN} | stop:loss=30,per=shoe"]


def _sessions(run: Path) -> pd.DataFrame:
    return pd.read_parquet(run / "sessions.parquet").sort_values(
        ["config", "session"]).reset_index(drop=True)


def test_the_command_plays_a_composed_plugin_on_a_pool(tmp_path: Path) -> None:
    """``baccarat backtest`` with two workers and several chunks gives the sessions one
    process gives (it failed: "No module named 'baccarat_plugin_...'")."""
    outputs = {}
    for workers in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "baccarat.cli", "backtest", "--shoes", "40", "--chunk",
             "10", "--workers", workers, *(a for s in SPECS for a in ("-s", s)),
             "--out", str(tmp_path / workers), "-q"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr
        outputs[workers] = _sessions(tmp_path / workers)
    pd.testing.assert_frame_equal(outputs["1"], outputs["2"])


def test_the_python_face_plays_a_composed_plugin_on_dask(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    one = backtest(None, SPECS, shoes=20, seed=3,
                   run=Run(chunk_shoes=10, workers=1, out=tmp_path / "one", ledger=False))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        dask = backtest(None, SPECS, shoes=20, seed=3,
                        run=Run(chunk_shoes=10, scheduler=cluster.scheduler_address,
                                out=tmp_path / "dask", ledger=False))
    pd.testing.assert_frame_equal(one.summary, dask.summary)
