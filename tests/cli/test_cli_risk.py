"""``baccarat risk``: the table fits 80 columns, JSON and risk.parquet hold the figures,
systems it cannot follow get the reason and the simulation, bad input is one line."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from baccarat.cli import app
from baccarat.io.parquet import read_metadata
from baccarat.odds import outcome_probabilities, shoe_counts
from cli_text import words
from typer.testing import CliRunner

runner = CliRunner()
ODDS = outcome_probabilities(shoe_counts(8))


def run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["risk", *args], env={"COLUMNS": "80"})


def test_one_configuration_prints_exact_and_checked_figures_in_80_columns() -> None:
    result = run("-s", "dalembert:side=player", "--coups", "3", "--check", "2000", "-q")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert any(line.startswith("Exact risk (an infinite shoe, independent coups): "
                               "dalembert") for line in lines)
    # three coups of D'Alembert on Player (W/L/T: Player wins, Banker wins, tie): ahead
    # after WWW, any order of two W and an L or a T, of a W and two T, and LWT, LTW, TLW
    w, lose, t = ODDS.player, ODDS.banker, ODDS.tie
    ahead = w**3 + 3 * w**2 * lose + 3 * w**2 * t + 3 * w * t**2 + 3 * w * lose * t
    row = next(line for line in lines if line.startswith("P(ahead)"))
    assert f"{ahead * 100:.2f}%" in row
    assert "check: 2,000 sessions" in words(result.stdout)
    assert result.stdout.rstrip().splitlines()[-1].startswith("wrote nothing")


def test_json_and_the_parquet_file_hold_the_distribution_and_the_figures(tmp_path) -> None:
    out = tmp_path / "risk.parquet"
    result = run("-s", "martingale:max_doublings=[1,2]", "--coups", "4", "--bankroll", "100",
                 "--check", "500", "--json", "--out", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # the document alone: the closing line is on stderr
    assert f"wrote {out}: 2 of 2 configurations exact" in result.stderr
    assert [c["spec"] for c in data["configurations"]] == [
        "martingale:max_doublings=1", "martingale:max_doublings=2"]
    first = data["configurations"][0]
    assert first["exact"]["total_probability"] == pytest.approx(1.0, abs=1e-13)
    assert set(first["simulated"]["risk_of_ruin"]) == {"value", "low", "high", "holds_exact"}
    assert "bankroll" in first["curve"]
    frame = pd.read_parquet(out)
    assert set(frame["config"]) == {0, 1}
    for _, rows in frame.groupby("config"):
        assert rows["probability"].sum() == pytest.approx(1.0, abs=1e-13)
        assert rows["simulated"].sum() == pytest.approx(1.0, abs=1e-9)
    meta = read_metadata(out)
    assert meta["kind"] == "risk" and len(meta["configurations"]) == 2
    again = run("-s", "martingale", "--coups", "4", "--check", "0", "--out", str(out))
    assert again.exit_code == 2 and "already exists" in again.output


def test_a_system_without_a_finite_state_gets_its_reason_and_the_simulation() -> None:
    result = run("-s", "road", "--check", "300", "-q")
    assert result.exit_code == 0, result.output
    assert "no exact figures" in result.output and "derived road" in words(result.output)
    assert "the simulation instead (300 sessions" in words(result.stdout)


def test_past_the_state_limit_it_says_so_and_simulates() -> None:
    result = run("-s", "labouchere", "--state-limit", "50", "--check", "200", "-q")
    assert result.exit_code == 0, result.output
    assert "more than 50 states" in words(result.output)
    assert "the simulation instead" in words(result.stdout)


def test_sizing_and_sessions_lines() -> None:
    # two coups of 10 on Player: from 20 only two lost coups ruin (B**2, about 21%)
    result = run("-s", "flat:side=player", "--coups", "2", "--bankroll", "100", "--check",
                 "0", "--size", "ruin=25%", "-q")
    assert result.exit_code == 0, result.output
    assert "bankroll for a risk of ruin of at most 25%: 20.00 (21.03% there" in words(
        result.stdout)
    # bankroll 10, sessions of one coup: ruined within two sessions with B + T B
    result = run("-s", "flat:side=player", "--coups", "1", "--bankroll", "10", "--check",
                 "0", "--sessions", "2", "-q")
    both = ODDS.banker + ODDS.tie * ODDS.banker
    assert f"over 2 sessions in a row: risk of ruin {both * 100:.2f}%" in words(result.stdout)


def test_chips_with_reduced_stakes_are_simulated_and_said_so() -> None:
    """A stake cut to what is left goes in whole chips (rounded down), which the exact
    chain does not follow: the command says so and gives the simulation instead."""
    result = run("-s", "flat", "--check", "0", "--when-short", "reduce", "--chip", "5")
    assert result.exit_code == 0
    flat = " ".join(result.output.split())
    assert "flat: no exact figures: --chip with --when-short reduce is not followed by " \
           "exact risk (a stake cut to what is left is rounded down to whole chips)" in flat
    assert "the simulation instead (10,000 sessions of real shoes)" in flat


@pytest.mark.parametrize(("args", "message"), [
    (["--coups", "5", "--session-shoes", "2"], "--coups sets the session's length"),
    (["--size", "bankroll=0.01"], "expected ruin=RISK"),
    (["--size", "ruin=2"], "between 0 and 1"),
    (["--bankroll", "5"], "--bankroll must be at least the table minimum 10, got 5"),
    (["--when-short", "maybe"], "expected stop or reduce"),
    (["--stop-loss", "-3"], "expected a positive amount"),
])
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    result = run("-s", "flat", "--check", "0", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert result.output.strip().startswith("error:")


def test_an_unknown_strategy_is_one_line() -> None:
    result = run("-s", "martingal", "--check", "0")
    assert result.exit_code == 2 and "martingale" in result.output
    assert "Traceback" not in result.output


LIAR = '''
from typing import ClassVar

import numpy as np

from baccarat.strategies.base import Result, Strategy, Table, Wager


class Liar(Strategy):
    """Doubles after a loss, but declares a flat stake."""

    name: ClassVar[str] = "liar"
    _k: np.ndarray

    def start(self, table: Table) -> None:
        self._k = np.zeros(table.n, dtype=np.int64)

    def wager(self, table: Table) -> Wager:
        return Wager.on(banker=self.base * 2.0 ** self._k)

    def settle(self, table: Table, result: Result) -> None:
        self._k = np.where(result.won, 0, np.where(result.lost, self._k + 1, self._k))

    def initial_state(self) -> int:
        return 0

    def stakes_of(self, k: int) -> dict[str, float]:
        return {"banker": self.base}

    def next_state(self, k: int, outcome: str, result: str) -> int:
        return k
'''


def test_a_plugin_is_followed_only_if_its_declaration_matches_its_play(tmp_path) -> None:
    good = run("-s", "examples/banker_after_players.py:BankerAfterPlayers:streak=3",
               "--check", "0", "-q")
    assert good.exit_code == 0, good.output
    assert "exact over 4 states" in words(good.stdout)
    (tmp_path / "liar.py").write_text(LIAR)
    bad = run("-s", f"{tmp_path / 'liar.py'}:Liar", "--check", "100", "-q")
    assert bad.exit_code == 0, bad.output
    text = words(bad.output)
    assert "its declared state does not match its play" in text
    assert "the declared state 0 stakes 10 on banker, the strategy staked 20 on banker" in text


def test_the_report_draws_the_exact_distribution_and_risk_against_bankroll(tmp_path) -> None:
    out = tmp_path / "risk.parquet"
    made = run("-s", "martingale:max_doublings=[2,4]", "--coups", "6", "--bankroll", "200",
               "--check", "300", "--out", str(out), "-q")
    assert made.exit_code == 0, made.output
    page = tmp_path / "risk.html"
    report = runner.invoke(app, ["report", "--risk", str(out), "--out", str(page), "-q"])
    assert report.exit_code == 0, report.output
    text = page.read_text()
    assert '<section id="risk"><h2>Exact risk</h2>' in text
    # a distribution figure per configuration and one of risk against the bankroll
    assert text.count("<svg") == 3
    assert "martingale:max_doublings=2" in text and "risk of ruin" in text
    bad = runner.invoke(app, ["report", "--risk", str(tmp_path / "none.parquet"), "--out",
                              str(tmp_path / "x.html")])
    assert bad.exit_code == 2 and "no such file" in bad.output
