"""``baccarat trace``: the coup-by-coup table, its JSON, the coups it takes, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from baccarat.cli import app
from baccarat.cli.trace import parse_range
from baccarat.deal import generate_coups
from baccarat.io.parquet import write_coups
from baccarat.rules import TableRules
from baccarat.testing import play
from typer.testing import CliRunner

runner = CliRunner()


def run_json(*args: str) -> dict:
    result = runner.invoke(app, ["trace", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_is_the_hand_worked_martingale_ledger():
    data = run_json("martingale", "--outcomes", "BPPTBPB")
    coups = data["coups"]
    # stake 10 wins 9.5, 10 loses, 20 loses, 40 pushes, 40 wins 38, 10 loses, 20 wins 19
    assert [c["banker"] for c in coups] == [10, 10, 20, 40, 40, 10, 20]
    assert [c["net"] for c in coups] == [9.5, -10, -20, 0, 38, -10, 19]
    assert coups[-1]["bankroll"] == 1026.5
    assert data["strategy"] == "martingale"
    assert data["rules"]["commission"] == 0.05


def test_table_shows_each_coup_and_the_closing_line():
    result = runner.invoke(app, ["trace", "martingale", "--outcomes", "BPPTBPB"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # coup 5: the 40 stake wins 38 after the push, bankroll 979.5 + 38
    rows = {line.split()[0]: line.split() for line in lines if line.strip()[:1].isdigit()}
    assert rows["5"] == ["5", "B", "40", "+38", "1,017.5"]
    assert rows["4"] == ["4", "T", "40", "0", "979.5"]
    assert lines[-1] == "7 coups shown, net +26.50, bankroll 1,026.50"


def test_roads_marks_show_for_a_road_strategy():
    coups = run_json("road", "--outcomes", "BBPBPP")["coups"]
    assert [c["big_road"] for c in coups] == ["B1", "B2", "P1", "B1", "P1", "P2"]
    assert [c["big_eye_boy"] for c in coups] == ["", "", "", "blue", "red", "blue"]
    assert "big_road" not in run_json("flat", "--outcomes", "BP")["coups"][0]
    assert "big_road" in run_json("flat", "--outcomes", "BP", "--roads")["coups"][0]


@pytest.fixture
def coups_file(tmp_path: Path) -> Path:
    rules = TableRules()
    return write_coups(generate_coups(rules, 11, np.arange(3)), tmp_path / "coups.parquet",
                       rules)


def test_a_shoe_of_a_file_with_a_range_keeps_the_state_from_coup_one(coups_file: Path):
    coups = run_json("martingale", "--coups", str(coups_file), "--shoe", "1",
                     "--range", "3-5")["coups"]
    assert [c["coup"] for c in coups] == [3, 4, 5]
    whole = play("martingale", coups_file, shoe=1)
    expected = whole[whole["coup"].between(3, 5)]
    assert [c["bankroll"] for c in coups] == expected["bankroll"].tolist()
    assert [c["player_cards"] for c in coups] == expected["player_cards"].tolist()
    assert all(c["player_cards"] for c in coups)  # generated shoes record the cards


def test_rules_flags_apply():
    coups = run_json("flat:side=tie", "--outcomes", "T", "--tie-pays", "9")["coups"]
    assert coups[0]["net"] == 90


@pytest.mark.parametrize(("args", "message"), [
    (["flat"], "give the coups to trace"),
    (["flat", "--outcomes", "BP", "--coups", "x.parquet"], "not both"),
    (["flat", "--outcomes", "BPXB"], "'X' at position 3 is not B, P or T"),
    (["flat", "--outcomes", "BP", "--range", "5-2"], "--range '5-2'"),
    (["flat", "--outcomes", "BP", "--range", "a-b"], "expected coup numbers"),
    (["flatt", "--outcomes", "BP"], "did you mean 'flat'"),
    (["flat", "--coups", "missing.parquet", "--shoe", "0"], "no coups file at missing.parquet"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str):
    result = runner.invoke(app, ["trace", *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_a_file_of_several_shoes_needs_a_shoe(coups_file: Path):
    result = runner.invoke(app, ["trace", "flat", "--coups", str(coups_file)])
    assert result.exit_code == 2
    assert "holds 3 shoes: pick one with --shoe ID (ids 0..2)" in result.stderr
    result = runner.invoke(app, ["trace", "flat", "--coups", str(coups_file), "--shoe", "7"])
    assert result.exit_code == 2
    assert "no shoe 7" in result.stderr


def test_a_plugin_that_raises_is_reported_not_dumped(tmp_path: Path):
    path = tmp_path / "broken.py"
    path.write_text(
        "from baccarat.strategies.base import SimpleStrategy\n"
        "class Broken(SimpleStrategy):\n"
        "    def bet(self, view):\n"
        "        return {'banker': 2 * self.base / (1 - view.coup)}\n"  # coup 2: 1/0
    )
    result = runner.invoke(app, ["trace", f"{path}:Broken", "--outcomes", "BPBP"])
    assert result.exit_code == 2
    assert "ZeroDivisionError" in result.stderr
    assert result.stdout == ""


def test_parse_range():
    assert parse_range("1-20") == (1, 20)
    assert parse_range("7") == (7, 7)
    assert parse_range("4-") == (4, None)


def test_debug_prints_the_plugins_own_traceback(tmp_path: Path):
    path = tmp_path / "typo.py"
    path.write_text(
        "from baccarat.strategies.base import SimpleStrategy\n"
        "class Typo(SimpleStrategy):\n"
        "    def bet(self, view):\n"
        "        return {'banker': self.bse}\n"  # a typo for self.base
    )
    plain = runner.invoke(app, ["trace", f"{path}:Typo", "--outcomes", "BP"])
    assert plain.exit_code == 2
    assert "typo.py:4" in plain.stderr and "Traceback" not in plain.stderr
    debug = runner.invoke(app, ["trace", f"{path}:Typo", "--outcomes", "BP", "--debug"])
    assert debug.exit_code == 2
    assert "Traceback" in debug.stderr and "self.bse" in debug.stderr


def test_a_composed_spec_traces_its_hand_worked_ledger_to_its_win_goal():
    # Player after three Players (10, lost to B); one unit more on the next run of three
    # (20, won): net +10 reaches the win goal, so the session ends after coup 8.
    out = runner.invoke(app, ["trace", "streak:n=3 | dalembert | stop:win=10",
                              "--outcomes", "PPPBPPPPBBBB", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["strategy"] == "streak | dalembert | stop:win=10.0"
    coups = data["coups"]
    assert [c["player"] for c in coups] == [0, 0, 0, 10, 0, 0, 0, 20]
    assert [c["net"] for c in coups] == [0, 0, 0, -10, 0, 0, 0, 20]
    assert coups[-1]["bankroll"] == 1010


def test_the_title_wraps_at_the_terminal_not_at_the_table():
    out = runner.invoke(app, ["trace", "streak:n=3 | dalembert", "--outcomes", "PPPB"],
                        env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    first = out.stdout.splitlines()[0]
    assert first.startswith("streak | dalembert over 4 coups, 8 decks, standard 5%, tie 8:1")
