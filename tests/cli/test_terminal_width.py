"""Output fits the terminal it is given, 80 columns included, with no value cut; help texts
wrap to the terminal and a flag shows no value; a dataset that is not Parquet is imported
in memory by every command that reads one."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from baccarat import Run, backtest
from baccarat.cli import app
from baccarat.cli.common import fits, print_table
from baccarat.metrics import SUMMARY_METRICS, format_metric
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "generated-8deck-200.parquet"
runner = CliRunner()


def run80(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def assert_fits(text: str, width: int = 80) -> None:
    long = [line for line in text.splitlines() if len(line.rstrip()) > width]
    assert not long, long[:3]
    assert "…" not in text


@pytest.fixture(scope="module")
def long_labelled_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two small runs in folders with long names: their labels are wider than half a
    terminal (the comparison printed 35 blocks of one metric each)."""
    base = tmp_path_factory.mktemp("runs")
    runs = []
    for i, spec in enumerate(("flat", "martingale:max_doublings=5")):
        out = base / f"run_number_{i}_with_a_long_descriptive_folder_name"
        backtest(None, [spec], shoes=60, seed=3, run=Run(out=out, ledger=False))
        runs.append(out)
    return runs


def test_compare_with_long_labels_stacks_them_and_shows_every_value(
        long_labelled_runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(long_labelled_runs[0].parent)
    out = run80("compare", *(p.name for p in long_labelled_runs), "--out",
                str(tmp_path / "cmp"), "--all")
    out = out[:out.rindex("wrote")]  # the closing line names the temporary folder
    assert_fits(out)
    assert out.count("Comparison") == 1  # one layout, not a block per metric
    frame = pd.read_parquet(tmp_path / "cmp" / "comparison.parquet")
    lines = out.splitlines()
    for label in frame["label"]:
        assert label in lines  # each configuration's label whole, on a line of its own
    for metric in SUMMARY_METRICS:
        for value in frame[metric.name]:
            assert format_metric(metric, value) in out, metric.name


def test_analyze_at_80_columns_keeps_every_statistic_name(tmp_path: Path) -> None:
    out = run80("analyze", str(SAMPLE), "--reference", "20", "--out", str(tmp_path / "a"))
    assert_fits(out[:out.rindex("wrote")])  # the closing line names the temporary folder
    frame = pd.read_parquet(tmp_path / "a" / "analysis.parquet")
    lines = [line.strip() for line in out.splitlines()]
    for label in frame["label"]:
        assert label in lines, label  # the statistic's name whole, over its numbers


def test_odds_compare_at_80_columns_cuts_no_value() -> None:
    out = run80("odds", "--compare")
    assert_fits(out)
    assert "29.412" in out and "7.611" in out and "29.977" in out  # P pair, Dragon 7, Super 6


def test_a_table_too_wide_is_printed_vertically_with_every_cell() -> None:
    table = Table(title="wide")
    table.add_column("name", no_wrap=True)
    for i in range(6):
        table.add_column(f"column number {i}", justify="right", no_wrap=True)
    table.add_row("a-rather-long-row-label", *[f"{i * 1234567.891:,.3f}" for i in range(6)])
    console = Console(width=50, file=io.StringIO(), color_system=None)
    assert not fits(table, 50, console)
    print_table(table, out=console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert_fits(text, 50)
    for i in range(6):
        assert re.search(rf"column number {i}\s+{re.escape(f'{i * 1234567.891:,.3f}')}", text)


def test_help_wraps_to_the_terminal_and_flags_show_no_value() -> None:
    out = run80("backtest", "--help")
    assert "<bool>" not in out
    assert_fits(out)
    # the docstring's lines are joined, so no word sits alone on a line
    words = [line.strip(" │") for line in out.splitlines()]
    assert "the" not in words and "one per" not in words
    assert "<bool>" not in run80("--help")


@pytest.mark.parametrize("command", ["backtest", "search", "risk", "generate", "analyze",
                                     "check-strategy", "report", "odds", "import", "live"])
def test_help_at_80_columns_gives_each_description_room(command: str) -> None:
    """A value's type is a short name and a bound is said in words: the type column does
    not squeeze the descriptions (``<float range> [0.5<=x<=0.9999]`` left them 25
    columns)."""
    out = run80(command, "--help")
    assert_fits(out)
    assert "range>" not in out and "<=x" not in out and "x>=" not in out
    rows = [line for line in out.splitlines() if line.startswith("│") and "--" in line]
    starts = set()
    for row in rows:  # where a description starts: after the option, its name and type
        found = re.match(r"│ (?:[ *]  )?(--\S+)(\s+-\w)?\s+([A-Z]+(\.\.\.)?\s+)?", row)
        if found:
            starts.add(found.end())
    assert starts and 80 - max(starts) >= 34, (max(starts), out)
    if command == "risk":
        flat = " ".join(line.strip(" │") for line in out.splitlines())
        assert "(0.5 to 0.9999)" in flat and "(at least 1)" in flat
        refused = runner.invoke(app, ["risk", "-s", "flat", "--level", "2"])
        assert refused.exit_code == 2 and "--level" in refused.output  # the bound still holds


@pytest.mark.parametrize("command", ["backtest", "analyze", "roads", "trace"])
def test_a_csv_where_a_dataset_is_expected_is_imported_in_memory(command: str,
                                                                  tmp_path: Path) -> None:
    csv = ROOT / "data" / "outcomes.csv"
    args = {"backtest": ["backtest", "--coups", str(csv), "-s", "flat", "--out",
                         str(tmp_path / "run"), "--no-table"],
            "analyze": ["analyze", str(csv), "--reference", "20", "--out", str(tmp_path / "a")],
            "roads": ["roads", "--coups", str(csv), "--shoe", "0"],
            "trace": ["trace", "flat", "--coups", str(csv), "--shoe", "0"]}[command]
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "is not a coups Parquet dataset: importing it in memory" in result.output
    if command == "backtest":  # the same coups `baccarat import` gives: 3 shoes, 245 coups
        sessions = pd.read_parquet(tmp_path / "run" / "sessions.parquet")
        assert len(sessions) == 3 and int(sessions["coups"].sum()) == 245


def test_the_closing_line_wraps_between_words_on_a_terminal_and_is_whole_on_a_pipe(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from baccarat.cli import common

    message = ("wrote demo/run (run), demo/comparison.parquet and demo/report.html in 4.6s; "
               "open demo/report.html in a browser")
    for terminal in (True, False):
        out = io.StringIO()
        monkeypatch.setattr(common, "console", Console(file=out, width=80,
                                                       force_terminal=terminal, no_color=True))
        common.done(message)
        lines = out.getvalue().splitlines()
        if terminal:  # two lines, broken between words: every path whole on its line
            assert len(lines) == 2 and all(len(line) <= 80 for line in lines)
            assert " ".join(line.strip() for line in lines) == message
            assert all(path in lines[0] or path in lines[1] for path in
                       ("demo/run", "demo/comparison.parquet", "demo/report.html"))
        else:
            assert lines == [message]
