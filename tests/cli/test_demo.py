"""``baccarat demo``: the whole pipeline with no input, on defaults, well under a minute."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from baccarat.backtest import BacktestResult
from baccarat.cli import app
from baccarat.report import compare
from baccarat.report.demo import DEMO_SHOES, DEMO_STRATEGIES, run_demo
from cli_text import words as flat
from typer.testing import CliRunner

runner = CliRunner()


def test_demo_on_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["demo"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    demo = tmp_path / "demo"
    assert sorted(p.name for p in demo.iterdir()) == ["comparison.parquet", "report.html", "run"]
    # it says where everything is, in one closing line
    last = flat(result.output.strip().splitlines()[-1])
    assert last.startswith("wrote demo/run (run), demo/comparison.parquet and demo/report.html")

    info = json.loads((demo / "run" / "run.json").read_text())
    assert [c["strategy"] for c in info["configs"]] == list(DEMO_STRATEGIES)
    assert info["rules"]["decks"] == 8
    assert info["dataset"]["shoes"] == DEMO_SHOES and DEMO_SHOES >= 2000
    assert info["policy"]["bankroll"] == 1000.0
    summary = pd.read_parquet(demo / "run" / "summary.parquet")
    assert summary["sessions"].tolist() == [DEMO_SHOES] * len(DEMO_STRATEGIES)

    # the printed table is the comparison written beside the run
    stored = pd.read_parquet(demo / "comparison.parquet")
    fresh = compare(demo / "run")
    pd.testing.assert_frame_equal(stored.drop(columns="run"), fresh.drop(columns="run"))
    assert stored["run"].unique().tolist() == [str(Path("demo") / "run")]
    for label in DEMO_STRATEGIES:
        assert label in result.output
    # the answer first: a bottom line and one table that fit 80 columns by 24 lines
    lines = result.output.strip().splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines[:-1]) <= 80
    text = flat(result.output)
    edges = summary["realized_edge"]
    assert text.startswith(f"All five systems lost {-edges.max():.1%} to {-edges.min():.1%} "
                           f"of what they staked, as the house edge says; none beats it "
                           f"(counting 5 tried). Martingale busted "
                           f"{summary.set_index('spec').loc['martingale', 'bust_rate']:.0%} "
                           f"of its sessions.")
    assert "mean net expected P(ahead) bust ruin edge, Holm" in text
    assert text.count("as expected") == len(DEMO_STRATEGIES)

    report = (demo / "report.html").read_text()
    # fan, final net, drawdown each; ruin for Martingale, bust for Martingale and
    # Fibonacci (no empty panel); the bankroll, ruin and bust overlays
    assert report.count("<figure>") == len(DEMO_STRATEGIES) * 3 + 1 + 2 + 3
    assert len(report.encode()) < 5_000_000
    assert "<script" not in report and ".tmp" not in report


def test_demo_refuses_a_folder_with_something_in_it_and_is_reproducible(
        tmp_path: Path) -> None:
    """One demo into an empty folder; the same demo refused by a folder with a user's file
    in it, ``--force`` included (it replaces only a demo's own output); then written over
    the first, without ``--force`` (it is the demo's own folder): the two give the same
    summary and comparison. (One test,
    as each part needs a whole demo run of its own.)"""
    (tmp_path / "a").mkdir()  # an empty folder is not "something in it"
    a = run_demo(tmp_path / "a", shoes=120)
    assert (tmp_path / "a" / "report.html").exists()

    out = tmp_path / "demo"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for force in ([], ["--force"]):
        result = runner.invoke(app, ["demo", "--out", str(out), "--shoes", "120", "-q",
                                     *force])
        assert result.exit_code == 2
        assert "not an output baccarat wrote" in flat(result.output)
        assert [p.name for p in out.iterdir()] == ["notes.txt"]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "demo"]  # nothing left

    first = tmp_path / "a"  # a demo's own folder: the demo run again writes it again
    result = runner.invoke(app, ["demo", "--out", str(first), "--shoes", "120", "-q"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in first.iterdir()) == ["comparison.parquet", "report.html",
                                                       "run"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "demo"]

    b = BacktestResult.load(first / "run")
    pd.testing.assert_frame_equal(a.result.summary, b.summary)
    pd.testing.assert_frame_equal(
        a.comparison.drop(columns="run"),
        pd.read_parquet(first / "comparison.parquet").drop(columns="run"))
