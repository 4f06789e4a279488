"""Every example in examples/ runs, and the array and simple forms of one system agree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from baccarat import backtest
from baccarat.cards import NO_CARD
from baccarat.cli import app
from baccarat.coups import Coups
from keywords import backtest_with
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ARRAY = f"{EXAMPLES / 'banker_after_players.py'}:BankerAfterPlayers"
SIMPLE = f"{EXAMPLES / 'simple_banker_after_players.py'}:SimpleBankerAfterPlayers"
SIMPLE_MARTINGALE = f"{EXAMPLES / 'simple_martingale.py'}:SimpleMartingale"
#: Each example and the test below that runs it; a new example needs a test here.
COVERED = {"banker_after_players.py", "simple_banker_after_players.py", "simple_martingale.py",
           "api_compare.py"}

runner = CliRunner()


def test_every_example_is_run_by_a_test() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == COVERED


def outcome_only(letters: str) -> Coups:
    """One shoe of outcome-only coups from letters B, P, T."""
    outcome = np.array(["BPT".index(c) for c in letters], dtype=np.int8)
    n = outcome.size
    return Coups(shoe=np.zeros(n, np.int64), coup=np.arange(1, n + 1, dtype=np.int16),
                 cards=np.full((n, 6), NO_CARD, np.int8), player_total=np.full(n, -1, np.int8),
                 banker_total=np.full(n, -1, np.int8), outcome=outcome,
                 burn_shown=np.full(n, NO_CARD, np.int8))


@pytest.mark.parametrize("spec", [ARRAY, SIMPLE])
def test_the_system_by_hand(spec: str) -> None:
    # P P (two Player wins) -> bet Banker: T pushes (the run stands), B wins 9.5 and resets;
    # P P -> bet: P loses 10 (the run goes on), B wins 9.5.
    result = backtest(outcome_only("PPTBPPPB"), [spec])
    ledger = result.ledger
    assert ledger["banker"].tolist() == [0, 0, 10, 10, 0, 0, 10, 10]
    assert ledger["net"].tolist() == [0, 0, 0, 9.5, 0, 0, -10, 9.5]
    row = result.sessions.iloc[0]
    assert (row["net"], row["bets"], row["wins"], row["losses"], row["pushes"]) == \
        (9.0, 4, 2, 1, 1)


def test_array_and_simple_forms_give_identical_ledgers() -> None:
    # sessions of two shoes: the run of Player wins carries across the shoe change in both
    kwargs = {"shoes": 300, "seed": 3, "session_shoes": 2}
    array = backtest_with(strategies=[ARRAY, f"{ARRAY}:streak=3"], **kwargs)
    simple = backtest_with(strategies=[SIMPLE, f"{SIMPLE}:streak=3"], **kwargs)
    a = array.ledger.drop(columns="strategy")
    b = simple.ledger.drop(columns="strategy")
    assert len(a) > 10_000 and (a["banker"] > 0).sum() > 1_000
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(array.sessions.drop(columns="strategy"),
                                  simple.sessions.drop(columns="strategy"))


def test_simple_martingale_matches_the_builtin() -> None:
    builtin = backtest(None, ["martingale"], shoes=300, seed=4)
    simple = backtest(None, [SIMPLE_MARTINGALE], shoes=300, seed=4)
    assert builtin.summary["bust_rate"].iloc[0] > 0.1  # the progression does go bust
    pd.testing.assert_frame_equal(builtin.ledger.drop(columns="strategy"),
                                  simple.ledger.drop(columns="strategy"),
                                  check_exact=True)


def test_the_plugin_from_the_command_line_with_a_grid(tmp_path: Path) -> None:
    out = tmp_path / "run"
    spec = "examples/banker_after_players.py:BankerAfterPlayers:streak=[2,3]"
    result = runner.invoke(app, ["backtest", "--shoes", "200", "--strategy", spec, "--out",
                                 str(out), "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = pd.read_parquet(out / "summary.parquet")
    assert summary["spec"].tolist() == ["banker_after_players",
                                        "banker_after_players:streak=3"]
    # waiting for three Player wins bets less often than waiting for two
    assert summary["mean_wagered"].iloc[1] < summary["mean_wagered"].iloc[0]


@pytest.fixture(autouse=True)
def _from_the_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # examples are written to be run from there


def test_api_compare_runs_and_saves(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(EXAMPLES / "api_compare.py"), str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["label", "mean_net", "mean_wagered"]
    rows = {line.split()[0]: line.split() for line in lines[1:3]}
    assert rows["flat/flat"][-1] == "baseline"
    assert rows["mine/banker_after_players"][-1] == "paired"
    # it bets only after two Player wins: a fraction of flat Banker's stakes
    assert float(rows["mine/banker_after_players"][2]) < float(rows["flat/flat"][2]) / 2
    for name in ("flat", "banker_after_players"):
        assert (tmp_path / name / "summary.parquet").exists()
    report = (tmp_path / "report.html").read_text()
    from report_figures import expected_figures  # counted from the session rows

    assert report.count("<figure>") == expected_figures(tmp_path / "flat",
                                                         tmp_path / "banker_after_players")
