"""The Python face for notebooks: the names one import gives, the backtest's three groups
(dataset, Session, Run), results and datasets that show themselves, the bankroll by coup
with stopped sessions kept, figures, and errors in Python's words."""

from __future__ import annotations

import importlib
from pathlib import Path

import baccarat
import numpy as np
import pandas as pd
import pytest
from baccarat import (
    Run,
    Session,
    TableRules,
    backtest,
    compare,
    generate,
    odds,
    risk,
    roads,
)
from baccarat.io.parquet import read_coups
from baccarat.replay import SessionPolicy

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def result():  # noqa: ANN201 - a BacktestResult
    coups = generate(300, seed=7)
    return backtest(coups, ["flat", "martingale"], session=Session(bankroll=500),
                    run=Run(workers=1))


def test_one_import_gives_the_face_each_a_function_or_a_class() -> None:
    import inspect

    assert set(baccarat.__all__) <= set(dir(baccarat))
    for name in baccarat.__all__:
        value = getattr(baccarat, name)
        assert inspect.isfunction(value) or inspect.isclass(value), name
    assert {"backtest", "search", "risk", "generate", "import_files", "compare", "report",
            "odds", "roads", "analyze", "Session", "Run", "TableRules", "SimpleStrategy",
            "Selection", "Staking", "BacktestResult"} <= set(baccarat.__all__)
    # a submodule imported under the same name does not replace the function
    importlib.import_module("baccarat.odds.enumeration")
    importlib.import_module("baccarat.backtest")
    assert callable(baccarat.odds) and inspect.isfunction(baccarat.backtest)


def test_session_is_the_replays_policy_and_settings_go_in_their_group() -> None:
    assert Session is SessionPolicy
    grouped = backtest(None, ["martingale"], shoes=120, seed=3,
                       session=Session(bankroll=400, stop_loss=150), run=Run(workers=1))
    assert grouped.sessions["start_bankroll"].eq(400).all()
    with pytest.raises(TypeError, match="bankroll"):
        backtest(None, ["flat"], shoes=10, bankroll=400)  # type: ignore[call-arg]


def test_odds_risk_and_roads_answer_in_python() -> None:
    # the 8-deck house edges every published table gives: Banker 1.058%, Player 1.235%
    edges = odds().set_index("bet")["house_edge"]
    assert round(edges["banker"] * 100, 3) == 1.058 and round(edges["player"] * 100, 3) == 1.235
    # one coup of flat 10 on Player from 100: +10 or -10, or 0 on a tie
    frame = risk("flat:side=player", session=Session(bankroll=100), coups=1)
    p = frame.set_index("net")["probability"]
    assert p[10.0] == pytest.approx(0.446246, abs=1e-6)
    assert p[-10.0] == pytest.approx(0.458597, abs=1e-6)
    # B P P T B: the big road's columns B, P P (tie on the second P), B
    road = roads("BPPTB")
    assert [len(column) for column in road.big_road.columns] == [1, 2, 1]


def test_the_bankroll_curve_keeps_stopped_sessions_at_their_final_bankroll(result) -> None:
    curve = result.bankroll_curve()
    sessions = result.sessions
    for config, part in curve.groupby("config"):
        played = sessions[sessions["config"] == config]
        final = played["final_bankroll"].to_numpy()
        assert part["mean"].iloc[0] == 500 and part["median"].iloc[0] == 500
        # at the last coup every session has stopped: the curve is over all of them
        assert part["mean"].iloc[-1] == pytest.approx(final.mean())
        assert part["median"].iloc[-1] == pytest.approx(np.median(final))
        assert part["mean"].iloc[-1] == pytest.approx(500 + played["net"].mean())
    # the pivot of the ledger holds only the sessions still playing at a coup: at the last
    # coup, a handful of the 300; the curve is over all 300
    ledger = result.ledger
    still = ledger[ledger["session_coup"] == int(curve["coup"].max())]
    assert 0 < len(still) < len(sessions) / 2


def test_a_result_shows_its_verdict_table_and_a_figure_and_plots(result) -> None:
    page = result._repr_html_()
    for spec in ("flat", "martingale"):
        assert f"<th>{spec}</th>" in page
    assert "Risk of ruin" in page and "Busted" in page and "<svg" in page
    figure = result.plot()
    titles = [ax.get_title() for ax in figure.axes]
    assert titles == ["Bankroll by coup (mean; median dashed)", "Ruined by coup",
                      "Busted by coup"]
    stopped = result.stopped_curves()
    mart = stopped[stopped["spec"] == "martingale"]
    share = result.summary.set_index("spec").loc["martingale", "bust_rate"]
    assert mart["busted"].iloc[-1] == pytest.approx(share)


def test_a_dataset_reads_as_a_summary_and_converts_to_pandas() -> None:
    coups = generate(20, seed=1)
    text = repr(coups)
    assert text.startswith("Coups(") and "20 shoes" in text and "array(" not in text
    frame = coups.to_pandas()
    assert len(frame) == len(coups) and {"shoe", "coup", "outcome"} <= set(frame.columns)
    assert "<table" in coups._repr_html_()


def test_read_coups_returns_the_coups_and_the_metadata_by_name() -> None:
    stored = read_coups(ROOT / "data" / "generated-8deck-200.parquet")
    coups, metadata = stored
    assert stored.coups is coups and stored.metadata is metadata
    assert metadata["rules"]["decks"] == 8 and len(np.unique(coups.shoe)) == 200


def test_errors_raised_to_python_name_the_python_argument(tmp_path: Path) -> None:
    with pytest.raises(Exception, match=r"^workers must be at least 1, got 0$"):
        backtest(None, ["flat"], shoes=10, run=Run(workers=0))
    with pytest.raises(Exception, match=r"^chunk_shoes must be at least 1, got 0$"):
        backtest(None, ["flat"], shoes=10, run=Run(chunk_shoes=0))
    with pytest.raises(Exception, match=r"^bankroll must be at least the table minimum 10, "
                                        r"got 5"):
        backtest(None, ["flat"], shoes=10, rules=TableRules(table_min=10),
                 session=Session(bankroll=5))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="force=True") as caught:
        backtest(None, ["flat"], shoes=10, run=Run(out=tmp_path / "run"))
    assert "--force" not in str(caught.value)
    with pytest.raises(Exception, match=r"^stop_loss -100") as caught:
        backtest(None, ["flat"], shoes=10, session=Session(stop_loss=-100))
    assert "--stop-loss" not in str(caught.value)


def test_the_command_line_says_the_same_errors_with_its_flags(tmp_path: Path) -> None:
    from baccarat.cli import app
    from typer.testing import CliRunner

    said = CliRunner().invoke(app, ["backtest", "-s", "flat", "--shoes", "10", "--bankroll", "5",
                                    "--table-min", "10", "--out", str(tmp_path / "r")])
    assert said.exit_code == 2
    assert "--bankroll must be at least the table minimum 10, got 5" in said.output
    said = CliRunner().invoke(app, ["backtest", "-s", "flat", "--shoes", "10",
                                    "--stop-loss", "-100", "--out", str(tmp_path / "r")])
    assert "--stop-loss -100" in said.output and "stop_loss" not in said.output
    # a parameter's name inside a path is the path's, not the flag
    mine = tmp_path / "out" / "force"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("mine")
    said = CliRunner().invoke(app, ["backtest", "-s", "flat", "--shoes", "10", "--out",
                                    str(mine)], env={"COLUMNS": "300"})
    assert said.exit_code == 2
    assert f"error: {mine} already exists; pass --force to overwrite it" in said.output


def test_the_bankroll_curve_by_hand() -> None:
    """Flat 10 on Banker (a win pays 9.5) from 100 with a stop loss of 20, over three
    shoes, one session each. By hand, the bankroll after each coup:
      BPB   109.5  99.5  109.0            (the shoe ends after 3 coups)
      PPPP   90.0  80.0                   (stop loss: -20 after 2 coups)
      BBBB  109.5 119.0  128.5  138.0
    A stopped session keeps its final bankroll, so at coup 4 the three sessions stand at
    109.0, 80.0 and 138.0 (the ledger's pivot there holds only the last: 138)."""
    from baccarat.coups import coups_from_outcomes

    result = backtest(coups_from_outcomes(["BPB", "PPPP", "BBBB"]), ["flat"],
                      session=Session(bankroll=100, stop_loss=20))
    curve = result.bankroll_curve()
    assert curve["coup"].tolist() == [0, 1, 2, 3, 4]
    assert curve["mean"].tolist() == pytest.approx(
        [100, (109.5 + 90 + 109.5) / 3, (99.5 + 80 + 119) / 3, (109 + 80 + 128.5) / 3,
         (109 + 80 + 138) / 3])
    assert curve["median"].tolist() == pytest.approx([100, 109.5, 99.5, 109, 109])
    # the 5th percentile at coup 4, numpy's linear rule over 80, 109, 138: 80 + 0.1 * 29
    assert curve["p05"].iloc[-1] == pytest.approx(82.9)


def test_a_comparison_shows_its_verdict_table_and_a_bankroll_figure(result) -> None:
    comparison = compare({"first": result})
    frame = pd.DataFrame(comparison)
    page = comparison._repr_html_()
    assert "<b>Comparison</b>: 2 configuration(s) against flat" in page and "<svg" in page
    martingale = frame[frame["label"] == "martingale"].iloc[0]
    # the row of martingale: its difference with flat and the interval, as the frame holds
    assert ("<th>martingale</th><td>300</td>" in page and
            f"<td>{martingale['diff_mean_net']:+,.2f}</td><td>[{martingale['diff_low']:+,.2f}, "
            f"{martingale['diff_high']:+,.2f}]</td>" in page)
    # the heading row and the two configurations' rows
    assert page.count("<tr><th>") == 1 + 2 and ">paired<" in page and ">baseline<" in page
    # what is taken from it is a plain table, displayed as pandas displays one
    assert type(comparison[["label", "mean_net"]]) is pd.DataFrame
    assert type(comparison.sort_values("mean_net")) is pd.DataFrame


def test_the_text_form_names_each_configuration_by_its_spec() -> None:
    """A grid's configurations share their strategy's name, and a composed system's name
    is its parts run together: printed, each row says its spec as the command takes it."""
    result = backtest(None, ["martingale:max_doublings=[3,4]", "streak:n=4 | martingale"],
                      shoes=20, seed=1, run=Run(ledger=False))
    text = repr(result)
    assert text.startswith("BacktestResult(3 configurations)")
    for spec in ("martingale:max_doublings=3", "martingale:max_doublings=4",
                 "streak:n=4 | martingale"):
        assert spec in text
