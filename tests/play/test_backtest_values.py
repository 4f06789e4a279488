"""Bad values are refused before anything runs, and a dataset's shoe rules are its own.

Every refusal is one line naming the value and what is accepted, exit status 2, and no
output folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from baccarat.cli import app
from baccarat.deal import generate_coups
from baccarat.io.parquet import write_coups
from baccarat.rules import TableRules
from typer.testing import CliRunner

runner = CliRunner()


@pytest.fixture(scope="module")
def six_decks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded-like dataset of 3 six-deck shoes, cut 14 cards from the end, no burn."""
    rules = TableRules(decks=6, cut_card=14, burn="none")
    path = tmp_path_factory.mktemp("data") / "six.parquet"
    write_coups(generate_coups(rules, 1, [0, 1, 2]), path, rules, source="import")
    return path


def backtest(*args: str):
    return runner.invoke(app, ["backtest", "-s", "flat", *args])


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["--stop-loss", "-100"], "--stop-loss -100.0: the loss at which a session stops; "
                                  "expected a positive amount"),
        (["--stop-loss", "0"], "--stop-loss 0.0"),
        (["--win-goal", "-5"], "--win-goal -5.0"),
        (["--win-goal", "nan"], "--win-goal nan"),
        (["--max-coups", "0"], "--max-coups 0: expected a whole number of coups, at least 1"),
        (["--session-shoes", "20"], "--session-shoes 20: the dataset holds 3 shoes; "
                                    "expected 1 to 3"),
        (["--bankroll", "0"], "--bankroll 0.0: expected a positive amount"),
        (["--bankroll", "5"], "--bankroll must be at least the table minimum 10, got 5"),
        (["--bankroll", "inf"], "--bankroll inf"),
        (["--when-short", "borrow"], "--when-short 'borrow': expected stop or reduce"),
        (["--ledger", "some"], "--ledger some: expected full or none"),
        (["--expected", "roughly"], "--expected must be auto or exact, got 'roughly'"),
        (["--decks", "8"], "was dealt with decks = 6, but the rules given say decks = 8"),
        (["--max-coups", "many"], "Invalid value for '--max-coups'"),
        (["--workers", "0"], "Invalid value for '--workers'"),
        (["--chunk", "0"], "Invalid value for '--chunk'"),
    ],
)
def test_bad_values_are_one_line_exit_2_nothing_written(tmp_path: Path, six_decks: Path,
                                                        args: list[str], phrase: str):
    out = tmp_path / "run"
    result = backtest("--coups", str(six_decks), "--out", str(out), "-q", *args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert phrase in lines[0]
    assert not out.exists()


def test_a_rules_file_that_contradicts_the_dataset_names_both_values(tmp_path: Path,
                                                                     six_decks: Path):
    rules = tmp_path / "rules.toml"
    rules.write_text('cut_card = 7\ncommission = 0.04\n')
    result = backtest("--coups", str(six_decks), "--rules", str(rules),
                      "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert "cut_card = 14, but the rules given say cut_card = 7" in result.output
    assert not (tmp_path / "run").exists()


def test_the_shoe_rules_come_from_the_dataset_and_payouts_from_the_flags(tmp_path: Path,
                                                                         six_decks: Path):
    out = tmp_path / "run"
    result = backtest("--coups", str(six_decks), "--commission", "0.04", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Backtest: 6 decks, standard 4%, tie 8:1" in result.output
    used = json.loads((out / "run.json").read_text())["rules"]
    assert (used["decks"], used["cut_card"], used["burn"], used["commission"]) == (
        6, 14, "none", 0.04)
    for name in ("summary.parquet", "sessions.parquet/part-00000.parquet",
                 "ledger.parquet/part-00000.parquet"):
        meta = json.loads(pq.read_schema(out / name).metadata[b"baccarat"])
        assert meta["rules"] == used, name
    # the flag that agrees with the dataset is fine
    again = backtest("--coups", str(six_decks), "--decks", "6", "--out", str(out), "--force",
                     "--no-table")
    assert again.exit_code == 0, again.output
    assert "Backtest:" not in again.output and "wrote" in again.output
