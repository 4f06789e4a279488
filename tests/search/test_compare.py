"""``compare`` and ``baccarat compare``: the table, the paired and unpaired differences."""

from __future__ import annotations

import io
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from baccarat import Run, Session, backtest
from baccarat.cli import app
from baccarat.cli.report import comparison_tables
from baccarat.metrics import SUMMARY_METRICS
from baccarat.report import RunFolderError, compare, differences
from baccarat.report.compare import (
    DIFF_COLUMNS,
    FAMILY_COLUMNS,
    LABEL_COLUMNS,
    UnknownMetricError,
)
from baccarat.report.stats import paired_difference, t_quantile, welch_difference
from baccarat.rules import TableRules
from cli_text import words as flat
from rich.console import Console
from typer.testing import CliRunner

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small run folders: three systems on one set of shoes, the same shoes again under
    other payouts, other shoes (another seed), and sessions of two shoes."""
    root = tmp_path_factory.mktemp("runs")
    folders = {
        "three": root / "three",
        "again": root / "again",
        "other_seed": root / "other_seed",
        "two_shoe_sessions": root / "two_shoe_sessions",
    }
    backtest(None, ["flat", "flat:side=tie", "martingale"], shoes=600, seed=5,
             run=Run(out=folders["three"]))
    backtest(None, ["flat"], shoes=600, seed=5, rules=TableRules(commission=0.04),
             run=Run(out=folders["again"]))
    backtest(None, ["flat"], shoes=600, seed=6, run=Run(out=folders["other_seed"]))
    backtest(None, ["flat"], shoes=600, seed=5, session=Session(session_shoes=2),
             run=Run(out=folders["two_shoe_sessions"]))
    return folders


# -- the intervals, against published figures and hand arithmetic ---------------------------

@pytest.mark.parametrize(("df", "published"), [
    (1, 12.706), (2, 4.303), (4, 2.776), (5, 2.571), (10, 2.228), (30, 2.042), (120, 1.980),
])
def test_t_quantile_matches_the_printed_t_table(df: int, published: float) -> None:
    assert round(t_quantile(0.975, df), 3) == published
    assert t_quantile(0.025, df) == pytest.approx(-t_quantile(0.975, df))


def test_t_quantile_tends_to_the_normal_quantile() -> None:
    assert t_quantile(0.975, 1e9) == pytest.approx(1.959964, abs=1e-6)


def test_paired_difference_by_hand() -> None:
    # differences 1..5: mean 3, sd sqrt(2.5), se sqrt(2.5/5) = 0.70711, t(.975, 4) = 2.7764
    a = np.array([11.0, 12.0, 13.0, 14.0, 15.0])
    b = np.array([10.0, 10.0, 10.0, 10.0, 10.0])
    d = paired_difference(a, b)
    assert d.estimate == 3.0 and d.n == 5 and d.paired
    assert d.low == pytest.approx(3 - 2.776445 * 0.7071068, abs=1e-5)
    assert d.high == pytest.approx(3 + 2.776445 * 0.7071068, abs=1e-5)
    assert d.significant


def test_identical_samples_differ_by_exactly_nothing() -> None:
    x = np.array([5.0, -3.0, 2.5])
    d = paired_difference(x, x)
    assert (d.estimate, d.low, d.high, d.significant) == (0.0, 0.0, 0.0, False)


def test_welch_difference_by_hand() -> None:
    # a: mean 2.5, var 5/3 (n 4); b: mean 6, var 10 (n 5); se^2 = 5/12 + 2
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([2.0, 4.0, 6.0, 8.0, 10.0])
    d = welch_difference(a, b)
    assert d.estimate == pytest.approx(-3.5) and not d.paired
    se = math.sqrt(5 / 12 + 2)
    half = (d.high - d.low) / 2
    # Welch df = (29/12)^2 / ((5/12)^2/3 + 2^2/4) = 5.52: the quantile lies between t(5), t(6)
    assert 2.447 * se < half < 2.571 * se
    assert not d.significant  # -3.5 +- ~3.9 includes 0


# -- compare() on stored runs ---------------------------------------------------------------

def test_columns_follow_the_metric_table(runs: dict[str, Path]) -> None:
    table = compare(runs["three"])
    expected = [*LABEL_COLUMNS, *(m.name for m in SUMMARY_METRICS if m.name != "edge_p"),
                *(name for name, _ in DIFF_COLUMNS), *(name for name, _ in FAMILY_COLUMNS)]
    assert list(table.columns) == expected
    assert table["label"].tolist() == ["flat", "flat:side=tie", "martingale"]
    assert table["sessions"].tolist() == [600, 600, 600]


def test_configurations_of_one_run_are_paired(runs: dict[str, Path]) -> None:
    table = compare(runs["three"])
    summary = pd.read_parquet(runs["three"] / "summary.parquet")
    assert table["pairing"].tolist() == ["baseline", "paired", "paired"]
    assert table["baseline"].unique().tolist() == ["flat"]
    # the paired mean difference is the difference of the stored means
    expected = summary["mean_net"] - summary["mean_net"].iloc[0]
    assert np.allclose(table["diff_mean_net"], expected, rtol=0, atol=1e-9)
    assert table["diff_sessions"].tolist() == [600, 600, 600]
    # a tie bet (house edge 14.4%) loses far more than a Banker bet (1.06%)
    tie = table.iloc[1]
    assert tie["diff_high"] < 0 and bool(tie["significant"])


def test_the_paired_interval_comes_from_the_session_differences(runs: dict[str, Path]) -> None:
    sessions = pd.read_parquet(runs["three"] / "sessions.parquet")
    net = {c: g.sort_values("session")["net"].to_numpy() for c, g in sessions.groupby("config")}
    diff = net[2] - net[0]
    se = diff.std(ddof=1) / math.sqrt(diff.size)
    row = compare(runs["three"]).iloc[2]
    # 599 degrees of freedom: t(.975) = 1.9640 (normal 1.9600)
    assert row["diff_low"] == pytest.approx(diff.mean() - 1.9640 * se, rel=1e-3)
    assert row["diff_high"] == pytest.approx(diff.mean() + 1.9640 * se, rel=1e-3)


def test_same_shoes_under_other_payouts_pair_across_runs(runs: dict[str, Path]) -> None:
    table = compare([runs["three"], runs["again"]], baseline="three/flat")
    row = table.set_index("label").loc["again/flat"]
    assert row["pairing"] == "paired"
    # Banker pays 0.96 instead of 0.95: every Banker win brings 0.10 more on a stake of 10
    sessions = pd.read_parquet(runs["three"] / "sessions.parquet")
    wins = sessions[sessions["config"] == 0]["wins"].mean()
    assert row["diff_mean_net"] == pytest.approx(0.10 * wins, rel=1e-9)
    assert row["significant"]


def test_the_same_configuration_twice_differs_by_nothing(runs: dict[str, Path],
                                                         tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runs["three"], copy)
    table = compare([runs["three"], copy]).set_index("label")
    row = table.loc["copy/flat"]
    assert (row["pairing"], row["diff_mean_net"], row["diff_low"], row["diff_high"]) == \
        ("paired", 0.0, 0.0, 0.0)
    assert not row["significant"]


@pytest.mark.parametrize("other", ["other_seed", "two_shoe_sessions"])
def test_different_shoes_or_sessions_are_unpaired(runs: dict[str, Path], other: str) -> None:
    table = compare([runs["three"], runs[other]]).set_index("label")
    row = table.loc[f"{other}/flat"]
    assert row["pairing"] == "unpaired"
    a = pd.read_parquet(runs[other] / "sessions.parquet")["net"].to_numpy()
    s = pd.read_parquet(runs["three"] / "sessions.parquet")
    b = s[s["config"] == 0]["net"].to_numpy()
    assert row["diff_mean_net"] == pytest.approx(a.mean() - b.mean())
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert (row["diff_high"] - row["diff_low"]) / 2 == pytest.approx(1.96 * se, rel=0.01)


def test_sort_and_baseline(runs: dict[str, Path]) -> None:
    table = compare(runs["three"], sort="mean_net")
    assert table["mean_net"].is_monotonic_decreasing
    assert table["baseline"].unique().tolist() == ["flat"]  # baseline chosen before sorting
    table = compare(runs["three"], sort="risk_of_ruin", ascending=True, baseline="martingale")
    assert table["risk_of_ruin"].is_monotonic_increasing
    assert table.set_index("label").loc["martingale", "pairing"] == "baseline"


def test_unknown_metric_suggests_the_closest(runs: dict[str, Path]) -> None:
    with pytest.raises(UnknownMetricError, match="did you mean 'mean_net'"):
        compare(runs["three"], sort="mean_nett")


def test_differences_lists_every_pair(runs: dict[str, Path]) -> None:
    pairs = differences(runs["three"])
    assert list(zip(pairs["a"], pairs["b"], strict=True)) == [
        ("flat", "flat:side=tie"), ("flat", "martingale"), ("flat:side=tie", "martingale")]
    table = compare(runs["three"]).set_index("label")
    # a - b is the opposite of (b - baseline a)
    assert pairs["diff_mean_net"].iloc[0] == pytest.approx(
        -table.loc["flat:side=tie", "diff_mean_net"])


def test_results_in_memory_compare_like_folders(runs: dict[str, Path]) -> None:
    mem = backtest(None, ["flat", "flat:side=tie", "martingale"], shoes=600, seed=5)
    a = compare(mem)
    b = compare(runs["three"])
    metrics = [m.name for m in SUMMARY_METRICS] + ["diff_mean_net", "diff_low", "diff_high"]
    pd.testing.assert_frame_equal(a[metrics], b[metrics])


def test_parts_folders_read_like_single_files(runs: dict[str, Path], tmp_path: Path) -> None:
    """sessions.parquet and ledger.parquet may be folders of parts: same comparison."""
    parted = tmp_path / "parted"
    shutil.copytree(runs["three"], parted)
    for name in ("sessions.parquet", "ledger.parquet"):
        table = pq.read_table(parted / name)
        if (parted / name).is_dir():
            shutil.rmtree(parted / name)
        else:
            (parted / name).unlink()
        (parted / name).mkdir()
        third = table.num_rows // 3  # three parts, the last one first in name order
        pq.write_table(table.slice(0, third), parted / name / "part-2.parquet")
        pq.write_table(table.slice(third, third), parted / name / "part-0.parquet")
        pq.write_table(table.slice(2 * third), parted / name / "part-1.parquet")
    a = compare(parted).drop(columns=["run"])
    b = compare(runs["three"]).drop(columns=["run"])
    pd.testing.assert_frame_equal(a, b)


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(RunFolderError, match="does not exist"):
        compare(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFolderError, match="summary.parquet, sessions.parquet, run.json "
                                             "missing"):
        compare(tmp_path / "empty")


# -- the command ----------------------------------------------------------------------------

def test_the_printed_table_has_the_metric_titles_in_order(runs: dict[str, Path]) -> None:
    frame = compare(runs["three"])
    (wide,) = comparison_tables(frame, width=1000)
    headers = [str(column.header) for column in wide.columns]
    titles = [m.title for m in SUMMARY_METRICS]
    verdict = titles.index("Expected in 95%?") + 1  # its family-wise twin beside it
    titles = [*titles[:verdict], "Expected in, Holm?", *titles[verdict:]]
    assert headers[0] == "configuration"
    assert headers[1:1 + len(titles)] == titles
    assert headers[1 + len(titles):] == ["Mean net: configuration - flat", "95% interval",
                                         "Why", "Edge - flat", "Edge differs",
                                         "Edge differs, Holm", "Pairing"]
    assert [str(c) for c in wide.columns[0].cells] == frame["label"].tolist()
    # narrower: the same columns, in the same order, over several blocks that fit
    blocks = comparison_tables(frame, width=80)
    assert len(blocks) > 1
    split = [str(c.header) for block in blocks for c in block.columns[1:]]
    assert split == headers[1:]
    console = Console(width=80, file=io.StringIO(), color_system=None)
    for block in blocks:
        console.print(block)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert max(map(len, lines)) <= 80


def test_command_prints_the_table_and_writes_the_comparison(runs: dict[str, Path],
                                                            tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", str(runs["three"]), str(runs["other_seed"]),
                                 "--out", str(out), "--all"])
    assert result.exit_code == 0, result.output
    text = result.output[result.output.index("Comparison ("):]  # after the bottom line
    assert "Comparison (4 configurations tried) (1/" in text
    blocks = text.count("Comparison (")
    for label in ("three/flat:side=tie", "three/martingale", "other_seed/flat"):
        assert text.count(label) == blocks  # every block has a row per configuration
    assert "unpaired" in text and "Welch" in text
    assert f"wrote {out / 'comparison.parquet'}" in flat(text)
    stored = pd.read_parquet(out / "comparison.parquet")
    expected = compare([runs["three"], runs["other_seed"]])
    pd.testing.assert_frame_equal(stored, expected)
    meta = json.loads(pq.read_schema(out / "comparison.parquet").metadata[b"baccarat"])
    assert meta["kind"] == "comparison"

    again = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(out)])
    assert again.exit_code == 2 and "--force" in flat(again.output)
    forced = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(out), "--force",
                                 "-q"])
    assert forced.exit_code == 0, forced.output
    assert len(pd.read_parquet(out / "comparison.parquet")) == 3


def test_command_prints_only_the_metrics_asked_for(runs: dict[str, Path],
                                                  tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(tmp_path),
                                 "--metrics", "mean_net,risk_of_ruin"])
    assert result.exit_code == 0, result.output
    assert "Mean" in result.output and "ruin" in result.output
    assert "Median" not in result.output and "SQN" not in result.output
    assert "differs" in result.output  # the difference is always shown
    stored = pd.read_parquet(tmp_path / "comparison.parquet")
    assert "sqn" in stored  # the file keeps every metric
    bad = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(tmp_path / "x"),
                              "--metrics", "mean_net,sharp"])
    assert bad.exit_code == 2 and "did you mean 'sharpe'" in flat(bad.output)


def test_command_prints_the_verdict_s_metrics_unless_all(runs: dict[str, Path],
                                                        tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(tmp_path)],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Mean net" in result.output and "Median" not in result.output
    assert "SQN" not in result.output and "differs" in result.output
    frame = pd.read_parquet(tmp_path / "comparison.parquet")
    assert "sqn" in frame  # the file keeps every metric
    from baccarat.answer import bottom_line

    first = result.output.splitlines()[0]
    assert flat(bottom_line(frame, frame["label"].tolist())).startswith(first.strip())
    both = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(tmp_path / "x"),
                               "--all", "--metrics", "sqn"])
    assert both.exit_code == 2 and "give --all or --metrics, not both" in flat(both.output)


def test_a_smaller_stake_at_the_same_edge_is_no_different_in_edge(tmp_path: Path) -> None:
    """Flat Banker at 10 and at 5 on the same shoes: every net and stake of the second is
    half the first's, so the realized edges are equal and the paired difference in edge
    is exactly 0; the mean net differs (by half of flat 10's) because it staked less."""
    import baccarat

    run = baccarat.backtest(baccarat.generate(200, seed=3), ["flat", "flat:base=5"],
                            rules=baccarat.TableRules(table_min=5),
                            run=baccarat.Run(out=tmp_path / "r", workers=1))
    frame = baccarat.compare(run).set_index("spec")
    half = frame.loc["flat:base=5.0"]
    assert half["diff_edge"] == 0.0 and not half["edge_differs"]
    assert not half["edge_differs_family"]
    assert half["diff_mean_net"] == pytest.approx(-frame.loc["flat", "mean_net"] / 2)
    assert half["diff_reason"] == "staked less"
    result = runner.invoke(app, ["compare", str(tmp_path / "r"), "--out",
                                 str(tmp_path / "c")], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "flat:base=5.0" in line
               and "staked less" in line)
    assert "+0.000%" in row and row.split()[-2:] == ["no", "│"]  # edge differs: no


def test_a_mapping_names_the_runs(runs: dict[str, Path]) -> None:
    table = compare({"A": runs["three"], "B": runs["again"]})
    assert table["label"].tolist() == ["A/flat", "A/flat:side=tie", "A/martingale", "B/flat"]


def test_command_sort_errors(runs: dict[str, Path], tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(tmp_path),
                                 "--sort", "risk_of_rune"])
    assert result.exit_code == 2
    assert "did you mean 'risk_of_ruin'" in flat(result.output)
    assert list(tmp_path.iterdir()) == []
    result = runner.invoke(app, ["compare", str(runs["three"]), "--out", str(tmp_path),
                                 "--baseline", "martingal"])
    assert result.exit_code == 2
    assert "did you mean 'martingale'" in flat(result.output)
    assert list(tmp_path.iterdir()) == []


def test_command_on_a_missing_or_wrong_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["compare", str(tmp_path / "nope"), "--out", str(out)])
    assert result.exit_code == 2
    assert "run folder" in flat(result.output) and "does not exist" in flat(result.output)
    not_run = tmp_path / "notrun"
    not_run.mkdir()
    (not_run / "run.json").write_text("{}")
    result = runner.invoke(app, ["compare", str(not_run), "--out", str(out)])
    assert result.exit_code == 2
    assert "is not a run folder" in flat(result.output)
    assert not out.exists()
