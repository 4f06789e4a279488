"""``baccarat roads``: the grids it prints as JSON, its drawing, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from baccarat.cards import NO_CARD
from baccarat.cli import app
from baccarat.coups import Coups
from baccarat.deal import generate_coups
from baccarat.io.parquet import write_coups
from baccarat.roads import all_roads, outcomes_from_labels
from baccarat.rules import TableRules
from typer.testing import CliRunner

runner = CliRunner()

# Shoe 7 of the hand-made file: the worked example of tests/game/test_roads.py, behind two ties.
SHOE_7 = "TT" + "BBPPPBTPPBBBBBBBP"
SHOE_9 = "PBT"


def outcome_only(shoes: dict[int, str]) -> Coups:
    """An outcome-only coups table with the given shoe ids, coups stored out of order."""
    shoe, coup, outcome = [], [], []
    for sid, letters in shoes.items():
        codes = outcomes_from_labels(letters)
        order = list(range(len(codes)))[::-1]  # stored backwards: the command must sort
        shoe += [sid] * len(codes)
        coup += [i + 1 for i in order]
        outcome += [codes[i] for i in order]
    n = len(outcome)
    return Coups(
        shoe=np.array(shoe, np.int64), coup=np.array(coup, np.int16),
        cards=np.full((n, 6), NO_CARD, np.int8), player_total=np.full(n, -1, np.int8),
        banker_total=np.full(n, -1, np.int8), outcome=np.array(outcome, np.int8),
        burn_shown=np.full(n, NO_CARD, np.int8),
    )


@pytest.fixture
def hand_file(tmp_path: Path) -> Path:
    path = tmp_path / "hand.parquet"
    write_coups(outcome_only({7: SHOE_7, 9: SHOE_9}), path, None, source="test")
    return path


def test_json_grids_match_the_pure_functions(hand_file: Path) -> None:
    result = runner.invoke(app, ["roads", "--coups", str(hand_file), "--shoe", "7", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["shoe"] == 7
    assert data["coups"] == len(SHOE_7)
    expected = all_roads(outcomes_from_labels(SHOE_7)).to_dict()
    assert {key: value for key, value in data.items() if key != "shoe"} == expected
    # and, independently of to_dict, the hand-worked figures of the example
    assert data["big_road"]["leading_ties"] == 2
    assert [len(c) for c in data["big_road"]["columns"]] == [2, 3, 1, 2, 7, 1]
    marks = {d["name"]: "".join(m[0].upper() for m in d["marks"]) for d in data["derived"]}
    assert marks == {"big eye boy": "RBBBBBRBRRRRB", "small road": "BRBBRRRRRB",
                     "cockroach pig": "RRRRBRRRB"}
    # the column of seven Bankers: rows 0-5 of display column 4, then its tail at (5, 5)
    grid = data["big_road"]["grid"]
    assert [grid[r][4]["side"] for r in range(6)] == ["B"] * 6
    assert grid[5][5] == {"side": "B", "ties": 0}
    assert grid[0][5] == {"side": "P", "ties": 0}
    # bead plate: first column is T T B B P P, top to bottom
    assert [row[0] for row in data["bead_plate"]] == ["T", "T", "B", "B", "P", "P"]


def test_json_of_a_generated_shoe(tmp_path: Path) -> None:
    rules = TableRules()
    coups = generate_coups(rules, 11, np.arange(3))
    path = tmp_path / "gen.parquet"
    write_coups(coups, path, rules, source="generated")
    result = runner.invoke(app, ["roads", "--coups", str(path), "--shoe", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    outcomes = coups.outcome[coups.shoe == 2]
    assert data["coups"] == outcomes.size > 40
    expected = all_roads(outcomes.astype(np.int64)).to_dict()
    assert data["big_road"] == expected["big_road"]
    assert data["derived"] == expected["derived"]


def test_text_output_draws_every_section(hand_file: Path) -> None:
    result = runner.invoke(app, ["roads", "--coups", str(hand_file), "--shoe", "7"])
    assert result.exit_code == 0, result.output
    out = result.output
    for title in ("Shoe 7", "Bead plate", "Big road", "Big eye boy", "Small road",
                  "Cockroach pig"):
        assert title in out
    assert "ties before the first decision: 2" in out
    # the big road's top row: B, P, B (with one tie), P, B, P -- two characters a cell
    big = out.split("Big road")[1].splitlines()
    assert big[1] == "B P B1P B P "
    # and the tail along the bottom row under columns 4 and 5
    assert big[6] == "        B B "


def test_unknown_shoe_lists_the_available_ids(hand_file: Path) -> None:
    result = runner.invoke(app, ["roads", "--coups", str(hand_file), "--shoe", "3"])
    assert result.exit_code == 2
    assert "no shoe 3" in result.output
    assert "7..9" in result.output and "2 shoes" in result.output
    assert "Bead plate" not in result.output


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["roads", "--coups", str(tmp_path / "nope.parquet"),
                                 "--shoe", "0"])
    assert result.exit_code == 2
    assert "nope.parquet" in result.output


def test_roads_print_the_ask_marks(hand_file: Path) -> None:
    # SHOE_7's big road: lengths 2, 3, 1, 2, 7, 1, a Player last. A Player goes to (5, 1):
    # big eye boy col 4 (7 long, not 1) red, small road col 3 (2) red, cockroach pig col 2
    # (1 = r) blue. A Banker starts (6, 0): col 5 (1 long) against col 4 (7) blue, col 3
    # (2) blue, col 2 (1) red.
    result = runner.invoke(app, ["roads", "--coups", str(hand_file), "--shoe", "7"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("Ask")))
    assert lines[at + 2].split() == ["Banker", "blue", "blue", "red"]
    assert lines[at + 3].split() == ["Player", "red", "red", "blue"]
    data = json.loads(runner.invoke(app, ["roads", "--coups", str(hand_file), "--shoe", "7",
                                          "--json"]).output)
    assert data["ask"]["P"] == {"big eye boy": "red", "small road": "red",
                                "cockroach pig": "blue"}


def test_a_road_wider_than_the_terminal_is_drawn_in_blocks_of_whole_columns(
        tmp_path: Path) -> None:
    """50 alternating decisions make a big road of 50 one-cell columns (100 characters);
    at 80 columns it is printed as columns 1-40 then 41-50, no mark cut or lost."""
    path = tmp_path / "wide.parquet"
    write_coups(outcome_only({1: "BP" * 25}), path, None, source="test")
    result = runner.invoke(app, ["roads", "--coups", str(path), "--shoe", "1"],
                           env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(len(line.rstrip()) for line in result.output.splitlines()) <= 80
    big = result.output.split("Big road\n")[1].split("\n\n")[0].splitlines()
    assert big[0] == "  columns 1-40 of 50" and big[1] == "B P " * 20
    assert big[7] == "  columns 41-50 of 50" and big[8] == "B P " * 5
    assert len(big) == 14  # two blocks of a label and six rows
