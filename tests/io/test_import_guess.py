"""The content guesser (``baccarat.io.importers.guess``): each rule about a kind of
evidence, then the samples of data/ that only content (or one mapping) reads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from baccarat.cli import app
from baccarat.coups import BANKER, PLAYER, TIE, Coups
from baccarat.deal import generate_coups
from baccarat.io.importers import ImportDataError, import_files, read_records
from baccarat.io.importers.guess.evidence import (
    card_objects,
    coded_outcomes,
    colour_convention,
    coup_evidence,
    table_of_coups,
)
from baccarat.io.importers.guess.road import road_cells, road_record
from baccarat.io.importers.importer import ImportReport
from baccarat.io.importers.readers import ReadOptions
from baccarat.io.importers.records import CoupRecords, Source
from baccarat.io.importers.tables import RawTable
from baccarat.io.importers.tokens import outcome_code, parse_bits, parse_words, using_words
from baccarat.rules import TableRules
from typer.testing import CliRunner

DATA = Path(__file__).resolve().parents[2] / "data"


def dealt(first: int) -> Coups:
    """Shoe ``first`` of seed 2026, as data/make_samples.py deals it."""
    return generate_coups(TableRules.model_validate({}), 2026, np.arange(first, first + 1))


# ------------------------------------------------------------------ rules, one by one

def test_a_list_of_card_objects_is_a_hand_not_the_coups() -> None:
    hand = [{"card": "Qc", "value": 0}, {"card": "3h", "value": 3}]
    assert card_objects(hand) == ["Qc", "3h"]
    assert card_objects([{"rank": "K", "code": "KD"}, {"code": "5S", "card": "5S"}]) is None
    assert card_objects([{"card": "Qc"}, {"winner": "Banker"}]) is None  # not all cards
    assert card_objects([{"hand": 1, "winner": "Banker"}]) is None  # a coup record
    assert card_objects([{"card": "Qc", "value": 0, "seen": {"by": "x"}}]) is None


def test_the_table_whose_rows_are_coups_holds_the_most_coup_fields_by_content() -> None:
    roles = {"outcome": "winner", "player_total": "p", "banker_total": "b", "coup": "n"}
    why = {"outcome": "content: outcomes; name", "player_total": "content: totals 0-9",
           "banker_total": "content: totals 0-9, odd for a banker total column",
           "coup": "content: whole numbers"}
    assert coup_evidence(roles, why) == ["outcome", "player_total"]  # odd content: no
    assert coup_evidence({"outcome": "side"}, {"outcome": "name"}) == []  # a name alone
    best, reason = table_of_coups({"games": ["outcome", "player_total", "banker_total"],
                                   "alerts": ["outcome"], "cache": []})
    assert best == "games" and reason.startswith("'games', its rows holding outcome, ")
    assert "'alerts': outcome; 'cache': none" in reason
    assert table_of_coups({"a": ["outcome"], "b": ["outcome"]}) == (None, "")  # a tie
    assert table_of_coups({"a": [], "b": []}) == (None, "")


def test_compound_result_words_are_their_winner() -> None:
    for word, code in (("bankerSuper6", BANKER), ("playerNatural", PLAYER), ("tiePair", TIE),
                       ("BANKER_PLAYER_PAIR", BANKER), ("Player Natural Pair", PLAYER),
                       ("BankerWin", BANKER)):
        assert outcome_code(word) == code, word
    for word in ("playerBonus", "bankerNatural8", "Pair", "Natural"):
        assert outcome_code(word) is None, word


def test_road_colours_read_red_banker_unless_the_user_says_otherwise() -> None:
    assert [outcome_code(w) for w in ("red", "Blue", "紅", "藍", "green")] == \
        [BANKER, PLAYER, BANKER, PLAYER, TIE]
    said = colour_convention(["red", "blue", None, "red"])
    assert said == ("road colours read red = Banker, blue = Player (the scoreboard's "
                    "convention; --words to read them otherwise)")
    assert colour_convention(["Banker", "P"]) is None
    with using_words(parse_words(["player=red", "banker=blue"])):
        assert outcome_code("red") == PLAYER
        assert colour_convention(["red", "blue"]) == ("road colours read red = Player, "
                                                      "blue = Banker (as --words says)")
    with pytest.raises(ImportDataError, match="'Banker' already means Banker"):
        parse_words(["player=Banker"])


def test_coded_results_are_counted_by_code_as_mapped() -> None:
    words = parse_words(["1=P,2=B,3=T"])
    assert words == {"1": PLAYER, "2": BANKER, "3": TIE}
    assert parse_words(["banker=1 player=2"]) == {"1": BANKER, "2": PLAYER}
    with pytest.raises(ImportDataError, match=r"or a result column's codes CODE=SIDE"):
        parse_words(["1=P,2=X"])
    assert coded_outcomes(["1", "2", "1", "3", ""]) == {}  # no --words: no codes
    with using_words(words):
        assert coded_outcomes(["1", "2", "1", "3", "", None]) == {
            ("1", PLAYER): 2, ("2", BANKER): 1, ("3", TIE): 1}


def cells(rows: list[tuple[object, ...]], names: tuple[str, ...] = ("x", "y", "colour", "ties")
          ) -> RawTable:
    return RawTable(source=Source(Path("road.json"), rows=True),
                    columns={n: np.array([None if r[j] is None else str(r[j]) for r in rows],
                                         dtype=object) for j, n in enumerate(names)},
                    lines=np.arange(1, len(rows) + 1, dtype=np.int64))


def test_road_cells_are_put_back_in_road_order_with_their_ties() -> None:
    # a grid dumped row by row: B B / P / B, the second B with two ties, the P with one
    grid = cells([(0, 0, "red", 0), (1, 0, "blue", 1), (2, 0, "red", None),
                  (0, 1, "red", 2)])
    coups = road_cells(grid)
    assert coups is not None and list(coups.columns) == ["colour"]
    assert list(coups.columns["colour"]) == ["red", "red", "Tie", "Tie", "blue", "Tie", "red"]
    assert list(coups.lines) == [1, 4, 4, 4, 2, 2, 3]
    assert coups.why["road"] == ("road cells ordered by 'x' then 'y', the 3 ties counted in "
                                 "'ties' placed after their cells: 4 cells, 7 coups")
    assert road_record({"col": 3, "row": 1, "colour": "blue"})
    assert not road_record({"col": 3, "row": 1, "colour": "Tie"})  # ties are no cells


def test_what_is_not_a_road_is_left_alone_and_a_dragon_tail_is_refused() -> None:
    assert road_cells(cells([(0, 0, "red", 0), (0, 0, "blue", 0)])) is None  # one place
    assert road_cells(cells([(0, 0, "red", 0), (1, 0, "Tie", 0)])) is None  # a tie cell
    assert road_cells(cells([(0, 0, "red"), (1, 0, "blue")], ("coup", "y", "w"))) is None
    tail = cells([(0, 0, "red", 0), (0, 1, "red", 0), (1, 1, "blue", 0), (1, 0, "blue", 0),
                  (1, 2, "red", 0)])
    with pytest.raises(ImportDataError, match=r"road\.json row 5: road cells: column 1 "
                                              r"holds two outcomes .* dragon's tail"):
        road_cells(tail)


# ------------------------------------------------------------------ the samples

def test_the_content_decides_the_new_samples() -> None:
    """Imported without a flag: the CSV by a real CSV parser (BOM, names over two lines,
    a quoted comma and doubled quotes), the database's table of games among alerts and
    caches, the live hands' card objects, the analyzer's one list of cards (some hands
    without), the compound result words, the big road's cells with their ties."""
    for name, first, cards in (("road-colours.csv", 970, True),
                               ("games-and-alerts.sqlite", 975, True),
                               ("live-hands.json", 980, True),
                               ("analyzer.sqlite", 985, False),
                               ("result-words.csv", 990, False),
                               ("big-road.json", 1000, False)):
        got, want = import_files([DATA / name]), dealt(first)
        np.testing.assert_array_equal(got.outcome, want.outcome, err_msg=name)
        if cards:
            np.testing.assert_array_equal(got.cards, want.cards, err_msg=name)
    road = read_records(DATA / "big-road.json", "json")  # the whole-file reader too
    assert isinstance(road, CoupRecords)
    np.testing.assert_array_equal(road.outcome, dealt(1000).outcome)
    analyzer, want = import_files([DATA / "analyzer.sqlite"]), dealt(985)
    with_cards = (analyzer.cards >= 0).any(axis=1)
    assert (~with_cards).sum() == 9  # every ninth hand was kept without its cards
    np.testing.assert_array_equal(analyzer.cards[with_cards], want.cards[with_cards])


def test_a_coded_result_column_needs_one_mapping() -> None:
    path = DATA / "coded-results.csv"
    with pytest.raises(ImportDataError):
        import_files([path])
    report = ImportReport()
    got = import_files([path], options=ReadOptions(words=parse_words(["1=P,2=B,3=T"])),
                       report=report)
    np.testing.assert_array_equal(got.outcome, dealt(995).outcome)
    counts = np.bincount(dealt(995).outcome, minlength=3)
    assert report.files[0].codes == {("1", PLAYER): counts[PLAYER],
                                     ("2", BANKER): counts[BANKER], ("3", TIE): counts[TIE]}
    assert report.files[0].why["outcome"] == "content: outcomes; --words"


def test_dry_run_says_which_table_and_every_mapping() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["import", str(DATA / "games-and-alerts.sqlite"), "--dry-run"])
    assert done.exit_code == 0, done.output
    assert "table: 'games', its rows holding outcome, player_total, banker_total" in done.output
    done = runner.invoke(app, ["import", str(DATA / "coded-results.csv"), "--dry-run",
                               "--words", "1=P,2=B,3=T"])
    assert done.exit_code == 0, done.output
    counts = np.bincount(dealt(995).outcome, minlength=3)
    assert (f"--words: '1' ({counts[PLAYER]} rows) -> Player, '2' ({counts[BANKER]} rows) "
            f"-> Banker, '3' ({counts[TIE]} rows) -> Tie; read as Banker {counts[BANKER]}, "
            f"Player {counts[PLAYER]}, Tie {counts[TIE]}") in " ".join(done.output.split())
    done = runner.invoke(app, ["import", str(DATA / "road-colours.csv"), "--dry-run"])
    assert "road colours read red = Banker, 紅 = Banker, blue = Player" in " ".join(
        done.output.split())  # the plan's lines wrap at 80 columns
    done = runner.invoke(app, ["import", str(DATA / "games-and-alerts.sqlite"), "--dry-run",
                               "--table", "alerts"])
    assert done.exit_code == 0 and "table:" not in done.output  # --table: nothing to say
    assert "would import 6 coups" in done.output


# ------------------------------------------------------------------ a session ledger

def test_a_session_ledger_in_japanese_imports_its_coups_and_leaves_the_bets() -> None:
    """A player's session log: hands under セッション.ハンド, each with the coup (cards and
    totals in the first session, the winner only in the second: 勝者 バンカー/プレイヤー/タイ)
    beside the bets placed on it (ベット, each naming a side too) and the balance. No key
    names a field: the content chooses the list and the columns; the bets are left out."""
    path = DATA / "session-ledger.json"
    got = import_files([path])
    first, second = dealt(1010), dealt(1011)
    np.testing.assert_array_equal(got.outcome, np.r_[first.outcome, second.outcome])
    assert list(got.shoe_ids()) == [0, 1]
    np.testing.assert_array_equal(got.cards[got.shoe == 0], first.cards)
    assert (got.cards[got.shoe == 1] < 0).all()  # the winner only
    report = ImportReport()
    import_files([path], report=report)
    why = report.files[0].why
    assert why["list"].startswith("'セッション.ハンド', its rows holding outcome, player_total, "
                                  "banker_total, player_hand, banker_hand by content")
    assert why["left out"] == "'残高', 'ベット' (read into no field)"
    assert report.files[0].mapping["outcome"] == "勝者"
    done = CliRunner().invoke(app, ["import", str(path), "--dry-run"])
    assert done.exit_code == 0, done.output
    assert "left out: '残高', 'ベット' (read into no field)" in done.output


def test_lists_named_in_no_known_words_are_chosen_by_content(tmp_path: Path) -> None:
    """The list whose records hold the most coup fields by content; when two hold as
    many, the error lists them, as for lists named for coups. The bets inside each hand
    are left out, and said."""
    coups = [("P", "9S KH", "AD 7C"), ("P", "8S KH", "2D 4C"), ("T", "9S KH", "9D KC"),
             ("B", "2S 4H", "4S 5C")]  # naturals: nobody draws
    hands = [{"n": k + 1, "w": w, "p": p.split(), "q": q.split(), "b": [{"s": "P", "a": 10}]}
             for k, (w, p, q) in enumerate(coups)]
    path = tmp_path / "l.json"
    path.write_text(json.dumps({"h": hands}), encoding="utf-8")
    report = ImportReport()
    got = import_files([path], report=report)
    assert list(got.outcome) == [PLAYER, PLAYER, TIE, BANKER]
    assert report.files[0].why["left out"] == "'b' (lists of records)"
    assert report.files[0].why["list"].startswith("'h', its rows holding outcome, ")
    winners = [{"w": hand["w"], "b": hand["b"]} for hand in hands]  # a side, as a bet's
    path.write_text(json.dumps({"h": winners}), encoding="utf-8")
    with pytest.raises(ImportDataError, match=r"several lists of coup records: h \(4 records\), "
                                              r"h\.b \(4 records\); choose one with --records"):
        import_files([path])


# ------------------------------------------------------------------ coded results

def test_a_code_left_unmapped_is_one_error_naming_it_and_its_row(tmp_path: Path) -> None:
    """--words 1=P,2=B over a column of 1, 2 and 3: the column is still the outcome (most
    of it is mapped), and the 3s are one error at the first of them; nothing written."""
    ties = np.flatnonzero(dealt(995).outcome == TIE)
    out = tmp_path / "o"
    done = CliRunner().invoke(app, ["import", str(DATA / "coded-results.csv"), "--words",
                                    "1=P,2=B", "--out", str(out)])
    assert done.exit_code == 2 and not out.exists()
    assert done.stderr.strip().splitlines() == [
        f"error: {DATA / 'coded-results.csv'}:{ties[0] + 2}: code 3 ({ties.size} rows) in "
        f"column 'res' is not mapped by --words (it maps 1, 2); add 3=B or 3=P or 3=T"]


def _result_codes() -> tuple[np.ndarray, np.ndarray]:
    """data/result-bits.csv's result column and where each row is (its line)."""
    import pandas as pd

    codes = pd.read_csv(DATA / "result-bits.csv")["result"].to_numpy()
    return codes, np.arange(2, codes.size + 2)


BITS = "winner=0-1:1=B,2=P,3=T,player_pair=2,banker_pair=3,natural=4"


def test_bit_coded_results_read_the_winner_and_count_the_flags() -> None:
    """--bits: the winner in bits 0-1, flags in bits 2-4. The outcome is the winner; the
    plan counts every code, what it was read as, and each flag, left out."""
    path = DATA / "result-bits.csv"
    with pytest.raises(ImportDataError):
        import_files([path])  # no mapping: the codes are no outcome
    codes, _ = _result_codes()
    bits = parse_bits([BITS])
    assert bits is not None and bits.words()["17"] == BANKER and "32" not in bits.words()
    report = ImportReport()
    got = import_files([path], options=ReadOptions(bits=bits), report=report)
    want = generate_coups(TableRules.model_validate({}), 2026, np.arange(1020, 1022))
    np.testing.assert_array_equal(got.outcome, want.outcome)
    assert list(got.shoe_ids()) == [0, 1]
    values, counts = np.unique(codes, return_counts=True)
    assert report.files[0].codes == {(str(v), [BANKER, PLAYER, TIE][(v & 3) - 1]): n
                                     for v, n in zip(values.tolist(), counts.tolist(),
                                                     strict=True)}
    done = CliRunner().invoke(app, ["import", str(path), "--bits", BITS, "--dry-run"])
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    shown = ", ".join(f"{v} ({n} row{'s' if n > 1 else ''}) -> " + " + ".join(
        [["Banker", "Player", "Tie"][(v & 3) - 1]]
        + [name for name, bit in (("player_pair", 2), ("banker_pair", 3), ("natural", 4))
           if v >> bit & 1]) for v, n in zip(values.tolist(), counts.tolist(), strict=True))
    sides = np.bincount(want.outcome, minlength=3)
    flags = [int((codes >> bit & 1).sum()) for bit in (2, 3, 4)]
    assert (f"--bits: {shown}; read as Banker {sides[0]}, Player {sides[1]}, Tie {sides[2]}; "
            f"left out (a coups table keeps no flags): player_pair {flags[0]}, banker_pair "
            f"{flags[1]}, natural {flags[2]}") in said
    assert "outcome <- 'result' (content: outcomes; --bits)" in said


def test_a_bit_no_name_covers_is_one_error_naming_the_codes_and_the_row(
        tmp_path: Path) -> None:
    codes, lines = _result_codes()
    natural = codes >> 4 & 1 == 1
    out = tmp_path / "o"
    done = CliRunner().invoke(app, ["import", str(DATA / "result-bits.csv"), "--bits",
                                    "winner=0-1:1=B,2=P,3=T,player_pair=2,banker_pair=3",
                                    "--out", str(out)])
    assert done.exit_code == 2 and not out.exists()
    [error] = done.stderr.strip().splitlines()
    first = int(codes[natural][0])
    assert error.startswith(f"error: {DATA / 'result-bits.csv'}:{lines[natural][0]}: codes "
                            f"{first} ({int((codes == first).sum())} rows), ")
    assert error.endswith(" in column 'result': bit 4 is set, which --bits does not name")
    with pytest.raises(ImportDataError, match=r"result-bits\.csv:\d+: codes .* in column "
                                              r"'result': its winner bits 0-1 hold 3, which "
                                              r"--bits does not map \(it maps 1, 2\)"):
        import_files([DATA / "result-bits.csv"], options=ReadOptions(bits=parse_bits(
            ["winner=0-1:1=B,2=P,player_pair=2,banker_pair=3,natural=4"])))


@pytest.mark.parametrize("spec, message", [
    ("winner=0-1:1=B,5=P", r"each value of bits 0-1 once, 0 to 3"),
    ("winner=0-1:1=B,1=P", r"each value of bits 0-1 once, 0 to 3"),
    ("winner=3-1:1=B", "each bit named once"),
    ("winner=0-1:1=B,2=P,natural=1", "each bit named once, from 0 to 15"),
    ("winner=0-20:1=B", "each bit named once, from 0 to 15"),
    ("natural=4", "no winner bits"),
    ("winner=0-1:1=B,2=X", "expected winner=LOW-HIGH:VALUE=SIDE"),
    ("winner=0-1:1=B,natural=x", "expected winner=LOW-HIGH:VALUE=SIDE"),
])
def test_a_bits_mapping_that_reads_no_one_way_is_refused(spec: str, message: str) -> None:
    with pytest.raises(ImportDataError, match=message):
        parse_bits([spec])


def test_words_and_bits_must_agree_on_a_code() -> None:
    options = ReadOptions(words=parse_words(["1=P"]), bits=parse_bits(["winner=0-1:1=B"]))
    with pytest.raises(ImportDataError, match="--words and --bits read code 1 as different"):
        options.outcome_words()
    both = ReadOptions(words=parse_words(["1=B"]), bits=parse_bits(["winner=0-1:1=B,2=P"]))
    assert both.outcome_words() == {"1": BANKER, "2": PLAYER}


@pytest.mark.parametrize(("banker", "player", "tie"), [
    ("BANK", "SPIELER", "UNENTSCHIEDEN"), ("Banco", "Giocatore", "Pareggio"),
    ("เจ้ามือ", "ผู้เล่น", "เสมอ")])
def test_german_italian_and_thai_tables_words_import_without_flags(
        banker: str, player: str, tie: str, tmp_path: Path) -> None:
    """A semicolon CSV with the table's own words, totals beside them: read as written."""
    path = tmp_path / "hands.csv"
    path.write_text(f"Datum;Schuh;Hand;Ergebnis;P;B\n05.01.2026;1;1;{banker};5;7\n"
                    f"05.01.2026;1;2;{player};9;3\n05.01.2026;1;3;{tie};6;6\n"
                    f"05.01.2026;2;1;{banker};2;8\n", encoding="utf-8")
    coups = import_files([path])
    assert coups.outcome.tolist() == [BANKER, PLAYER, TIE, BANKER]
    assert coups.shoe_ids().size == 2
