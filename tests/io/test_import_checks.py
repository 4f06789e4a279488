"""What the import checks and says: recorded coup numbers and gaps, shoes longer than the
decks deal, ten-valued cards of unknown rank, recorder slips, every problem in one run,
--dry-run. Expected values are worked out by hand per case."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from baccarat.cli import app
from baccarat.coups import BANKER, PLAYER
from baccarat.io.importers import InvalidCoupError, import_files
from baccarat.io.importers.importer import ImportReport
from baccarat.io.parquet import read_coups
from baccarat.rules import TableRules
from typer.testing import CliRunner

runner = CliRunner()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_deck() -> TableRules:
    return TableRules.model_validate({"decks": 1})


def test_recorded_coup_numbers_and_gaps(tmp_path: Path) -> None:
    path = write(tmp_path, "g.csv", "shoe,round,winner\nS1,1,B\nS1,3,P\nS1,4,P\nS1,7,B\n"
                                    "S2,12,B\nS2,13,P\n")
    report = ImportReport()
    got = import_files([path], report=report)
    assert list(got.coup) == [1, 2, 3, 4, 1, 2]
    assert got.recorded_coup is not None and list(got.recorded_coup) == [1, 3, 4, 7, 12, 13]
    assert got.after_gap is not None
    assert list(got.after_gap) == [False, True, False, True, False, False]
    assert report.warnings == [f"{path}:3: shoe S1: recorded coup numbers jump from 1 to 3, "
                               f"4 to 7 (3 coups missing); the coup after each gap is marked "
                               f"after_gap"]
    out = tmp_path / "o.parquet"
    result = runner.invoke(app, ["import", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "jump from 1 to 3, 4 to 7" in result.stderr
    stored, _ = read_coups(out)
    assert stored.recorded_coup is not None and list(stored.recorded_coup) == [1, 3, 4, 7,
                                                                              12, 13]
    assert stored.coup.dtype == np.int32


def test_a_shoe_longer_than_the_decks_deal(tmp_path: Path) -> None:
    # one deck deals at most 52 / 4 = 13 coups
    path = write(tmp_path, "long.txt", "S1: " + "BP" * 7 + "\nS2: BBP\n")
    with pytest.raises(InvalidCoupError, match=r"long\.txt:1: shoe S1: 14 coups, more than "
                                               r"1 deck can deal \(at most 13 coups of 4 "
                                               r"cards\): two shoes recorded as one\?"):
        import_files([path], rules=one_deck())
    assert len(import_files([path])) == 17  # 8 decks deal up to 104
    kept = import_files([path], rules=one_deck(), keep_invalid=True)
    assert kept.valid is not None and list(kept.valid) == [False] * 14 + [True] * 3
    cards = write(tmp_path, "seq.txt", "S1: " + " ".join(["9"] * 4 + ["K"] * 16 + ["A"] * 4
                                                         + ["2"] * 4 + ["3"] * 4 + ["4"] * 4
                                                         + ["5"] * 4 + ["6"] * 4 + ["7"] * 4
                                                         + ["8"] * 4 + ["9"]) + "\n")
    with pytest.raises(InvalidCoupError, match=r"shoe S1: 53 cards, more than the 52 of 1 "
                                               r"deck"):
        import_files([cards], rules=one_deck())


def test_zero_with_a_suit_is_a_ten_valued_card_of_that_suit(tmp_path: Path) -> None:
    # 9H-0C (9) v 8D-0C (8): Player, twice; four ten-valued clubs fit one deck
    fine = "player,banker,winner\n9H-0C,8D-0C,P\n9S-0C,8S-0C,P\n"
    got = import_files([write(tmp_path, "ok.csv", fine)], rules=one_deck())
    assert list(got.outcome) == [PLAYER, PLAYER]
    # a fifth ten-valued club (KC) is one too many: 10C, JC, QC, KC per deck
    path = write(tmp_path, "bad.csv", fine + "9D-KC,8C-0H,P\n")
    with pytest.raises(InvalidCoupError, match=r"bad\.csv:4: shoe .*, coup 3: too many "
                                               r"ten-valued cards of one suit \(10C, JC, QC, "
                                               r"KC or 0C\): 5 in the shoe, where 1 deck "
                                               r"holds 4"):
        import_files([path], rules=one_deck())


def test_every_problem_in_one_run_first_twenty_and_the_count(tmp_path: Path) -> None:
    rows = ["shoe,player,banker,player_total,winner"]
    for i in range(25):  # A-5 v K-4: banker must draw on 4 when player stands
        rows.append(f"S{i // 10},A-5,K-4,,B")
    rows.append("S9,9-K-2-3,A-7,,P")   # a hand of four cards
    rows.append("S9,,,6,")             # a total and nothing else
    rows.append("S9,9-K,A-7,,P")       # fine
    path = write(tmp_path, "slips.csv", "\n".join(rows) + "\n")
    with pytest.raises(InvalidCoupError) as err:
        import_files([path])
    lines = str(err.value).splitlines()
    assert lines[0] == ("27 problems in the recorded coups (the first 20 below); pass "
                        "--keep-invalid (keep_invalid=True) to import such coups flagged "
                        "valid=False:")
    assert lines[1] == (f"  {path}:2: shoe S0, coup 1: banker draws on 4 when player "
                        f"stands, but stood (player A-5, banker K-4)")
    assert lines[20].startswith(f"  {path}:21: shoe S1, coup 10: banker draws on 4")
    assert lines[21:] == ["  ... and 7 more"]
    report = ImportReport()
    kept = import_files([path], keep_invalid=True, report=report)
    assert len(kept) == 27 and report.dropped == 1
    assert kept.valid is not None and int((~kept.valid).sum()) == 26
    assert report.flagged == {"banker's drawing rule": 25, "recorder slip": 1}
    assert list(kept.outcome[-2:]) == [PLAYER, PLAYER]
    assert kept.outcome[0] == BANKER  # the recorded winner is kept


def test_dry_run_says_what_it_would_do_and_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", "Shoe,Round No,Winning Outcome,Player\n"
                                    "A,1,B,\nA,2,P,\nA,4,P,9-K-2-3\nB,1,T,\n")
    out = tmp_path / "coups.parquet"
    result = runner.invoke(app, ["import", str(path), "--out", str(out), "--dry-run",
                                 "--keep-invalid"])
    assert result.exit_code == 0, result.output
    # an item of the plan wrapped to the terminal goes on in lines indented further
    lines = re.sub(r"\n {6}", " ", result.stdout).splitlines()
    assert lines[0] == f"{path}: format csv; 2 shoes, 4 coups"
    # per field, the column chosen and why; the rules check is one line for the file
    assert lines[1] == "  rules check: 3 of 4 sampled coups hold"
    assert lines[2:6] == [
        "  shoe <- 'Shoe' (name)", "  coup <- 'Round No' (content: whole numbers; name)",
        "  outcome <- 'Winning Outcome' (content: outcomes; name; rules check)",
        "  player_cards <- 'Player' (content: lists of 4 cards, odd for a player_cards "
        "column; name; rules check)"]
    lines = lines[5:]
    assert lines[1] == f"would import 4 coups from 2 shoes (1 file) to {out}; nothing written"
    assert lines[2] == "flagged: 1 coup (1 recorder slip)"
    assert "jump from 2 to 4" in lines[3]
    # the first coups, in blocks of columns that fit the terminal
    assert all(len(line) <= 80 for line in lines[4:])
    table = " ".join(lines[4:])
    for name in ("shoe", "label", "coup", "recorded_coup", "player", "banker",
                 "player_total", "banker_total", "outcome", "valid"):
        assert f" {name} " in f" {table} "
    assert "9-K-2" in table and "False" in table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
