"""``backtest`` and ``compare`` over several configurations: the family-wise (Holm) verdict
beside each per-configuration one, and the number of configurations tried in the title."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from baccarat import Run, backtest
from baccarat.cli import app
from baccarat.metrics import Z95
from baccarat.report.compare import compare
from baccarat.report.stats import paired_difference, welch_difference
from baccarat.search.family import edge_p_values, family_edge_verdicts
from cli_text import flat
from typer.testing import CliRunner

runner = CliRunner()


def test_edge_p_value_by_hand() -> None:
    # realized +2% in [0%, +4%]: se = 0.02 / Z95; against -1%: z = 0.03 / se = 1.5 Z95
    table = pd.DataFrame({"realized_edge": [0.02, 0.02], "realized_edge_low": [0.0, 0.0],
                          "realized_edge_high": [0.04, 0.04],
                          "expected_edge": [-0.01, 0.01]})
    p = edge_p_values(table)
    assert p[0] == pytest.approx(math.erfc(1.5 * Z95 / math.sqrt(2)))
    assert p[1] == pytest.approx(math.erfc(0.5 * Z95 / math.sqrt(2)))


def test_holm_verdict_by_hand() -> None:
    # z of 3.0, 2.2, 0.5 (se 0.01): p 0.0027, 0.0278, 0.617; Holm: x3 = 0.0081,
    # x2 = 0.0556, x1 = 0.617 -> outside, inside, inside (the 2nd is outside alone)
    table = pd.DataFrame({"realized_edge": [0.03, 0.022, 0.005],
                          "realized_edge_low": [0.03 - Z95 * 0.01, 0.022 - Z95 * 0.01,
                                                0.005 - Z95 * 0.01],
                          "realized_edge_high": [0.03 + Z95 * 0.01, 0.022 + Z95 * 0.01,
                                                 0.005 + Z95 * 0.01],
                          "expected_edge": [0.0, 0.0, 0.0]})
    p, adjusted, verdict = family_edge_verdicts(table)
    assert p.tolist() == pytest.approx([math.erfc(z / math.sqrt(2)) for z in (3, 2.2, .5)])
    assert adjusted.tolist() == pytest.approx([3 * p[0], 2 * p[1], p[2]])
    assert verdict == ["outside", "inside", "inside"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("family")
    backtest(None, ["streak:n=[1,2,3,4,5,6,7,8]", "flat:side=[banker,player]", "chop"], shoes=300,
             seed=5, run=Run(ledger=False, out=folder / "run"))
    return folder / "run"


def test_the_family_verdict_is_stored_in_summary_parquet(runs: Path) -> None:
    stored = pd.read_parquet(runs / "summary.parquet")
    p = stored["edge_p"].to_numpy()
    # Holm by hand: the i-th smallest of k p-values times (k - i), a running maximum
    order = np.argsort(p)
    k = p.size
    adjusted = np.empty(k)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (k - i) * p[j]))
        adjusted[j] = running
    assert stored["edge_p_holm"].to_numpy() == pytest.approx(adjusted)
    assert stored["edge_verdict_family"].tolist() == [
        "outside" if a < 0.05 else "inside" for a in adjusted]
    assert "edge_p_holm" not in pd.read_parquet(
        backtest(None, ["flat"], shoes=3, seed=5,
                 run=Run(ledger=False, out=runs.parent / "one")).path
        / "summary.parquet").columns


def test_the_edge_p_value_is_the_verdict_s_test(runs: Path) -> None:
    from baccarat.backtest import BacktestResult

    summary = BacktestResult.load(runs).summary
    p = edge_p_values(summary)
    assert ((p < 0.05) == (summary["edge_verdict"] == "outside")).all()


def test_difference_p_values_are_the_intervals_tests() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    a = np.array([1.0, 2.0, 3.0, 4.0, 0.5])
    b = np.zeros(5)
    paired = paired_difference(a, b)
    assert paired.p_value == pytest.approx(scipy_stats.ttest_rel(a, b).pvalue, rel=1e-9)
    rng = np.random.default_rng(2)
    x, y = rng.normal(0, 1, 30), rng.normal(0.7, 2, 45)
    welch = welch_difference(x, y)
    assert welch.p_value == pytest.approx(
        scipy_stats.ttest_ind(x, y, equal_var=False).pvalue, rel=1e-9)
    assert (welch.p_value < 0.05) == welch.significant


def test_compare_adds_the_family_columns(runs: Path) -> None:
    frame = compare([runs])
    others = frame.iloc[1:]
    raw = others["diff_p"].to_numpy()
    order = np.argsort(raw)
    m = raw.size
    by_hand = np.maximum.accumulate(np.minimum(1, (m - np.arange(m)) * raw[order]))
    np.testing.assert_allclose(others["diff_p_holm"].to_numpy()[order], by_hand)
    assert (others["significant_family"] == (others["diff_p_holm"] < 0.05)).all()
    assert (others["significant"] == (others["diff_p"] < 0.05)).all()
    assert set(frame["edge_verdict_family"]) <= {"inside", "outside"}


def test_backtest_and_compare_say_how_many_were_tried(runs: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["backtest", "--shoes", "60", "--seed", "1", "-s",
                                 "streak:n=[1,2]", "-s", "flat", "--ledger", "none",
                                 "--out", str(tmp_path / "r")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    assert "Backtest: 8 decks, standard 5%, tie 8:1 (3 configurations tried)" in text
    assert "edge, Holm" in text  # the answer table's verdict, counting all three
    # 60 shoes are too few bets to judge an edge: the bottom line says so first
    assert text.startswith("Realized edge streak:n=1 ")
    assert "too few bets to tell" in text
    result = runner.invoke(app, ["compare", str(runs), "--out", str(tmp_path / "c")],
                           env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    assert "Comparison (11 configurations tried)" in text
    assert "Holm" in text  # the edge difference's verdict counting all 11
    assert "edge_differs_family" in pd.read_parquet(tmp_path / "c" / "comparison.parquet")
    single = runner.invoke(app, ["backtest", "--shoes", "60", "--seed", "1", "-s", "flat",
                                 "--ledger", "none", "--out", str(tmp_path / "one")])
    assert "tried" not in single.output and "Holm" not in single.output


def test_the_html_verdict_table_has_the_holm_twin_and_the_count(tmp_path: Path) -> None:
    import re

    from baccarat.report import render_report

    # streak n=6,7,8 over 60 shoes of seed 23: the edge p-values are about 0.70, 0.049
    # and 1e-8, so n=7 and n=8 are outside alone; Holm (x1, x2, x3 after sorting) keeps
    # n=8 outside (3e-8) and takes n=7 back (0.097 > 5%)
    backtest(None, ["streak:n=[6,7,8]"], shoes=60, seed=23,
             run=Run(ledger=False, out=tmp_path / "r"))
    raw = compare([tmp_path / "r"])["edge_p"].to_numpy()
    order = np.argsort(raw)
    holm = np.maximum.accumulate(np.minimum(1, (3 - np.arange(3)) * raw[order]))
    by_hand = np.empty(3)
    by_hand[order] = holm
    assert (raw < 0.05).tolist() == [False, True, True]
    assert (by_hand < 0.05).tolist() == [False, False, True]
    text = render_report([tmp_path / "r"])
    verdict = text[text.find('id="verdict"'):text.find("</table>", text.find('id="verdict"'))]
    assert "Verdict (3 configurations tried)" in verdict
    assert "expected inside, Holm (all tried)?" in verdict
    rows = re.findall(r"<tr><td>.*?</tr>", verdict)
    words = [re.findall(r'class="(?:yes|warn)">(yes|no)<', row) for row in rows]
    assert words == [["yes", "yes"], ["no", "yes"], ["no", "no"]]
