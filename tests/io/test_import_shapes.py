"""Recorded shoes as people keep them: nested JSON, message logs, one outcome column,
labelled scorecards, Asian and Vietnamese words, spreadsheets, databases, column mapping,
interleaved shoes, installed readers. Expected values are worked out by hand per case."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest
from baccarat.cli import app
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.io.importers import ImportDataError, detect_format, import_files, read_records
from baccarat.io.importers.importer import ImportReport
from baccarat.io.importers.layout import parse_mapping
from baccarat.io.importers.readers import ReadOptions
from typer.testing import CliRunner

runner = CliRunner()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def labels(coups) -> list[str]:  # noqa: ANN001 - a Coups
    return [str(coups.label[coups.shoe == s][0]) for s in coups.shoe_ids()]


# ------------------------------------------------------------------ nested JSON

NESTED = {
    "status": "ok",
    "args": {"tableId": "T9", "history_v2": [
        {"gameData": {"playerHand": {"cards": ["9S", "KD"], "score": 9},
                      "bankerHand": {"cards": ["AH", "7C"], "score": 8}},
         "result": {"winner": "Player"}},
        {"gameData": {"playerHand": {"cards": ["2C", "3D", "8H"], "score": 3},
                      "bankerHand": {"cards": ["2S", "AD"], "score": 3}},
         "result": {"winner": "Tie"}},
    ]},
}


def test_nested_json_finds_the_coups_and_flattens_dotted_names(tmp_path: Path) -> None:
    path = write(tmp_path, "history.json", json.dumps(NESTED, indent=1))
    assert detect_format(path) == "json"
    got = import_files([path])
    # 9-K (9) v A-7 (8): Player; 2-3-8 (3) v 2-A (3, stands on the 8): Tie
    assert list(got.outcome) == [PLAYER, TIE]
    assert got.cards[1].tolist()[:3] != [-1, -1, -1] and got.player_total.tolist() == [9, 3]


def test_several_lists_of_coups_need_records(tmp_path: Path) -> None:
    document = {"events": [{"winner": "B"}, {"winner": "P"}, {"winner": "P"}],
                "data": {"results": [{"outcome": "T"}, {"outcome": "B"}]},
                "players": [{"name": "ann"}]}
    path = write(tmp_path, "two.json", json.dumps(document))
    with pytest.raises(ImportDataError, match=r"events \(3 records\), data\.results "
                                              r"\(2 records\); choose one with --records"):
        import_files([path])
    got = import_files([path], options=ReadOptions(records="data.results"))
    assert list(got.outcome) == [TIE, BANKER]
    out = tmp_path / "o.parquet"
    result = runner.invoke(app, ["import", str(path), "--records", "events", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "imported 3 coups from 1 shoe" in result.stdout


def test_hostile_json_gives_one_line(tmp_path: Path) -> None:
    deep = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ImportDataError, match=r"deep\.json:1: JSON nested more than 64"):
        import_files([deep])
    huge = write(tmp_path, "huge.json", json.dumps([{"coup": 1, "winner": "B"}])
                 .replace("1", "9" * 5000))
    with pytest.raises(ImportDataError, match=r"huge\.json:1: a run of 2,000 digits or more; "
                                              r"recorded coups hold no number that long"):
        import_files([huge])
    long = write(tmp_path, "long.json", json.dumps([{"coup": 1, "winner": "B"}])
                 .replace("1", "9" * 1999))
    with pytest.raises(ImportDataError, match=r"long\.json:1: coup number '9999.*' is not a "
                                              r"whole number up to 2,147,483,647"):
        import_files([long])
    wide = write(tmp_path, "wide.csv", f"coup,winner\n1,B\n{2**63},P\n")
    with pytest.raises(ImportDataError, match=r"wide\.csv:3: coup number '92233.*' is not"):
        import_files([wide])
    past = write(tmp_path, "past.csv", f"coup,winner\n{2**31},P\n")
    with pytest.raises(ImportDataError, match=r"past\.csv:2: coup number 2,147,483,648 is "
                                              r"past the limit"):
        import_files([past])
    total = write(tmp_path, "total.json", '[{"player_total": ' + "7" * 1999 +
                  ', "banker_total": 1}]')
    with pytest.raises(ImportDataError, match=r"player total '7777.*\.\.\.' is not a hand"):
        import_files([total])


# ------------------------------------------------------------------ message logs

def _state(table: str, results: str) -> str:
    history = [{"winner": {"B": "Banker", "P": "Player", "T": "Tie"}[r],
                "playerScore": {"B": 2, "P": 8, "T": 5}[r],
                "bankerScore": {"B": 7, "P": 1, "T": 5}[r]} for r in results]
    return json.dumps({"type": "baccarat.history",
                       "args": {"tableId": table, "history_v2": history}})


def test_message_log_keeps_each_shoe_once_at_its_longest(tmp_path: Path) -> None:
    first = write(tmp_path, "08.log", "\n".join([
        "[08:46:10] connected",
        f"[08:46:12] {_state('T7', 'B')}",
        f"[08:46:40] {_state('T7', 'BP')}",
        '[08:46:41] {"type": "chat", "args": {"text": "gl"}}',
        f"[08:47:05] {_state('T7', 'BPT')}",
        f"[08:47:06] {_state('T7', 'BPT')}",      # the same state again
        f"[08:50:00] {_state('T7', 'P')}",        # a new shoe starts
        f"[08:50:30] {_state('T7', 'PP')}",
        "[08:50:31] {broken json",
    ]) + "\n")
    second = write(tmp_path, "09.log", "\n".join([
        f"2025-08-09T08:50:30Z INFO {_state('T7', 'PP')}",   # overlaps the first file
        f"2025-08-09T08:51:00Z INFO {_state('T7', 'PPB')}",
    ]) + "\n")
    assert detect_format(first) == detect_format(second) == "messages"
    got = import_files([first, second])
    assert list(got.outcome) == [BANKER, PLAYER, TIE, PLAYER, PLAYER, BANKER]
    assert list(got.shoe) == [0, 0, 0, 1, 1, 1]
    assert labels(got) == ["T7", "T7"]
    assert list(got.player_total) == [2, 8, 5, 8, 8, 2]
    notes = read_records(first, "messages").notes
    assert any("skipped 2 lines that are not JSON messages" in n for n in notes)
    assert any("skipped 1 messages that carry no coup" in n for n in notes)


def test_message_log_of_single_results(tmp_path: Path) -> None:
    def result(number: int, player: list[str], banker: list[str], winner: str) -> str:
        return json.dumps({"event": "result", "data": {
            "round": number, "result": {"winner": winner},
            "playerHand": {"cards": player}, "bankerHand": {"cards": banker}}})
    path = write(tmp_path, "live.jsonl", "\n".join([
        result(1, ["9S", "KD"], ["AH", "7C"], "P"),
        '{"event": "bet", "data": {"amount": 5}}',
        result(2, ["KS", "QD", "6C"], ["4H", "2C", "JD"], "T"),
        result(1, ["AS", "AD"], ["3C", "4D"], "B"),     # round 1 again: the next shoe
    ]) + "\n")
    assert detect_format(path) == "messages"
    # 9-K (9) v A-7 (8): Player; K-Q-6 (6) v 4-2-J (banker 6 draws on a 6: 6): Tie;
    # A-A v 3-4 breaks the rules: player draws on 2
    with pytest.raises(ImportDataError, match=r"live\.jsonl:4: shoe .*coup 1: player draws "
                                              r"on 2 but stood"):
        import_files([path])
    got = import_files([path], keep_invalid=True)
    assert list(got.outcome) == [PLAYER, TIE, BANKER] and list(got.shoe) == [0, 0, 1]
    assert got.valid is not None and list(got.valid) == [True, True, False]


def test_flat_json_lines_stay_json(tmp_path: Path) -> None:
    path = write(tmp_path, "l.jsonl", '{"shoe": 1, "winner": "P"}\n{"shoe": 1, "winner": "T"}\n')
    assert detect_format(path) == "json"


# ------------------------------------------------------------------ text shapes

def test_one_outcome_column_under_any_header(tmp_path: Path) -> None:
    path = write(tmp_path, "o.csv", "Result of hand\nBanker\nplayer\n\nTIE\n")
    assert detect_format(path) == "csv"
    assert list(import_files([path]).outcome) == [BANKER, PLAYER, TIE]
    other = write(tmp_path, "w.csv", "Ergebnis\nB\nP\n")
    assert list(import_files([other]).outcome) == [BANKER, PLAYER]


def test_scorecard_labels_on_either_side(tmp_path: Path) -> None:
    path = write(tmp_path, "s.txt", "\n".join([
        "BPPB|2026-04-06T00:25:57+09:00",
        "2026-04-06 00:25 | PPT",
        "2026-04-07 01:10\tBB",
        "T B P 2026-04-08",
        "shoe-5: B P",
    ]) + "\n")
    assert detect_format(path) == "scorecard"
    got = import_files([path])
    assert labels(got) == ["2026-04-06T00:25:57+09:00", "2026-04-06 00:25",
                           "2026-04-07 01:10", "2026-04-08", "shoe-5"]
    assert list(got.outcome) == [BANKER, PLAYER, PLAYER, BANKER, PLAYER, PLAYER, TIE,
                                 BANKER, BANKER, TIE, BANKER, PLAYER, BANKER, PLAYER]


def test_chinese_and_vietnamese_outcome_words(tmp_path: Path) -> None:
    card = write(tmp_path, "zh.txt", "桌3: 莊閒閒和庄闲\n")
    assert detect_format(card) == "scorecard"
    assert list(import_files([card]).outcome) == [BANKER, PLAYER, PLAYER, TIE, BANKER, PLAYER]
    table = write(tmp_path, "vi.csv", "ván,kết quả,màu\n1,Nhà cái,紅\n2,Người chơi,藍\n"
                                     "3,Hòa,\n4,Cái,紅\n5,Con,藍\n6,hoà,\n")
    got = import_files([table], options=ReadOptions(columns=parse_mapping(
        ["outcome=kết quả", "coup=ván"])))
    assert list(got.outcome) == [BANKER, PLAYER, TIE, BANKER, PLAYER, TIE]
    words = write(tmp_path, "words.csv", "round_no,game_outcome,colour\n1,莊,red\n2,閒,blue\n")
    assert list(import_files([words]).outcome) == [BANKER, PLAYER]


def test_scoreboard_colours_and_european_and_east_asian_words(tmp_path: Path) -> None:
    """A chat bot's scoreboard posts red/blue/green circles (Banker/Player/Tie), with or
    without the emoji variation selector; Spanish, French, Korean and Japanese sheets
    name their columns and outcomes in their own words, accents or not."""
    card = write(tmp_path, "bot.txt", "shoe 1: \U0001F534\U0001F534\U0001F535\U0001F7E2\n"
                                      "shoe 2: \U0001F535\ufe0f \U0001F534\n")
    assert detect_format(card) == "scorecard"
    got = import_files([card])
    assert list(got.outcome) == [BANKER, BANKER, PLAYER, TIE, PLAYER, BANKER]
    assert list(got.shoe) == [0, 0, 0, 0, 1, 1]
    spanish = write(tmp_path, "mesa.tsv", "Zapato\tMano\tGanador\n1\t1\tBanca\n1\t2\tJugador\n"
                                          "1\t3\tEmpate\n2\t1\tbanco\n")
    got = import_files([spanish])
    assert list(got.outcome) == [BANKER, PLAYER, TIE, BANKER]
    assert list(got.coup) == [1, 2, 3, 1]
    french = write(tmp_path, "sabot.csv", "Sabot,Manche,Résultat\n1,1,Banquier\n1,2,Joueur\n"
                                          "1,3,Égalité\n1,4,egalite\n")
    assert list(import_files([french]).outcome) == [BANKER, PLAYER, TIE, TIE]
    asian = write(tmp_path, "ko-ja.csv",
                  "result\n뱅커\n플레이어\n타이\nバンカー\nプレイヤー\nタイ\n")
    assert list(import_files([asian]).outcome) == [BANKER, PLAYER, TIE, BANKER, PLAYER, TIE]


def test_an_unknown_outcome_word_lists_the_spellings_read(tmp_path: Path) -> None:
    sheet = write(tmp_path, "nl.csv", "result\nBank\nSpeler\n")
    with pytest.raises(ImportDataError, match=r"nl\.csv:3: unknown outcome 'Speler'.*Banca/"
                                              r"Jugador/Empate.*🔴/🔵/🟢"):
        import_files([sheet])


def test_outcome_words_of_bot_exports_and_sheets(tmp_path: Path) -> None:
    """``BANKER_WIN`` (bot exports), "Player wins", "banker-won" are the outcome they name;
    a semicolon CSV with a "Hand #" column and nested JSON winners read the same way."""
    sheet = write(tmp_path, "euro.csv", "Date;Table;Hand #;Result\n"
                  "2026-03-01;Baccarat 3;1;BANKER\n2026-03-01;Baccarat 3;2;Player wins\n"
                  "2026-03-01;Baccarat 3;3;TIE\n2026-03-01;Baccarat 3;4;banker-won\n")
    assert list(import_files([sheet]).outcome) == [BANKER, PLAYER, TIE, BANKER]
    bot = write(tmp_path, "rounds.json", json.dumps({"rounds": [
        {"outcome": {"winner": "BANKER_WIN", "player": {"score": 4}, "banker": {"score": 6}}},
        {"outcome": {"winner": "PLAYER_WIN", "player": {"score": 9}, "banker": {"score": 2}}},
    ]}))
    got = import_files([bot])
    assert list(got.outcome) == [BANKER, PLAYER]
    assert list(got.player_total) == [4, 9] and list(got.banker_total) == [6, 2]
    bad = write(tmp_path, "bad.csv", "Result\nBANKER\nWIN\n")
    with pytest.raises(ImportDataError, match=r"bad.csv:3: unknown outcome 'WIN'"):
        import_files([bad], format="csv")


def test_quoted_header_with_a_line_break(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", '"Hand\nNo","Winning\nOutcome"\n1,B\n2,P\n')
    got = import_files([path])
    assert list(got.outcome) == [BANKER, PLAYER]


# ------------------------------------------------------------------ spreadsheets, databases

def test_xlsx_sheet_with_known_columns(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    notes = book.active
    notes.title = "Notes"
    notes.append(["kept by hand at table 3"])
    sheet = book.create_sheet("Shoe 12")
    sheet.append(["Date", "Hand #", "Player\nScore", "Banker Score", "Winning Outcome"])
    sheet.append(["2026-04-06", 1, 4, 7, "Banker"])
    sheet.append([None, None, None, None, None])
    sheet.append(["2026-04-06", 2, 9.0, 2, "Player"])
    sheet.append(["2026-04-06", 3, 6, 6, "Tie"])
    path = tmp_path / "sheet.xlsx"
    book.save(path)
    assert detect_format(path) == "xlsx"
    got = import_files([path])
    assert list(got.outcome) == [BANKER, PLAYER, TIE]
    assert list(got.player_total) == [4, 9, 6]
    bad = book.create_sheet("Other")
    bad.append(["winner"])
    bad.append(["Q"])
    book.save(path)
    report = ImportReport()
    assert len(import_files([path], report=report)) == 3  # 'Other' holds no outcome
    assert report.files[0].why["sheet"].startswith("'Shoe 12', its rows holding outcome, ")
    with pytest.raises(ImportDataError, match=r"sheet\.xlsx \[Other\] row 2: unknown outcome"):
        import_files([path], options=ReadOptions(sheet="Other"))
    assert len(import_files([path], options=ReadOptions(sheet="Shoe 12"))) == 3


def test_sqlite_table_with_known_columns(tmp_path: Path) -> None:
    path = tmp_path / "scraper.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE players (name TEXT)")
        db.execute("CREATE TABLE rounds (id INTEGER PRIMARY KEY, table_id TEXT, shoe INT, "
                   "game_number INT, game_outcome TEXT, player_hand_value INT, "
                   "banker_hand_value INT)")
        db.executemany("INSERT INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?)", [
            (1, "A", 1, 1, "banker", 3, 5), (2, "B", 1, 1, "player", 8, 0),
            (3, "A", 1, 2, "tie", 7, 7), (4, "B", 1, 2, "player", 9, 1),
        ])
    assert detect_format(path) == "sqlite"
    got = import_files([path], options=ReadOptions(columns=parse_mapping(
        ["shoe=table_id,shoe"])))
    assert labels(got) == ["A/1", "B/1"]
    assert list(got.outcome) == [BANKER, TIE, PLAYER, PLAYER]
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE backup (winner TEXT)")
    mapped = ReadOptions(columns=parse_mapping(["shoe=table_id,shoe"]))
    assert len(import_files([path], options=mapped)) == 4  # an empty table holds no coups
    with sqlite3.connect(path) as db:  # a copy holds them as much: the user chooses
        db.execute("CREATE TABLE copy AS SELECT * FROM rounds")
    with pytest.raises(ImportDataError, match=r"several tables have known columns; choose "
                                              r"one with --table NAME \(tables: backup "
                                              r"\(winner\); copy \(id, .*\); players "
                                              r"\(name\); rounds"):
        import_files([path])
    with pytest.raises(ImportDataError, match=r"no table 'x' \(tables: 'backup'"):
        import_files([path], options=ReadOptions(table="x"))


# ------------------------------------------------------------------ mapping, interleaving

INTERLEAVED = ("time,table,shoe,round_no,winner\n"
               "08:00,A,1,1,B\n08:00,B,7,1,P\n08:01,A,1,2,P\n08:01,B,7,2,T\n08:02,A,1,3,B\n")


def test_interleaved_shoes_are_gathered(tmp_path: Path) -> None:
    path = write(tmp_path, "tables.csv", INTERLEAVED)
    got = import_files([path])
    assert labels(got) == ["1", "7"]
    assert list(got.outcome) == [BANKER, PLAYER, BANKER, PLAYER, TIE]
    mapped = import_files([path], options=ReadOptions(columns=parse_mapping(
        ["shoe=table,shoe"])))
    assert labels(mapped) == ["A/1", "B/7"]
    restart = write(tmp_path, "r.csv", "table,game_no,winner\nA,1,B\nA,2,P\nA,1,T\nA,2,T\n")
    got = import_files([restart], options=ReadOptions(columns=parse_mapping(["shoe=table"])))
    assert list(got.shoe) == [0, 0, 1, 1]


def test_column_mapping_errors_name_the_choices(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", "Ergebnis,Tisch\nB,1\n")
    with pytest.raises(ImportDataError, match=r"--column outcome=Winner: no column 'Winner' "
                                              r"\(columns: 'Ergebnis', 'Tisch'\)"):
        import_files([path], options=ReadOptions(columns=parse_mapping(["outcome=Winner"])))
    with pytest.raises(ImportDataError, match="unknown field 'winner'; the fields are shoe"):
        parse_mapping(["winner=Ergebnis"])
    result = runner.invoke(app, ["import", str(path), "--column", "outcome",
                                 "--out", str(tmp_path / "o.parquet")])
    assert result.exit_code == 2 and "expected FIELD=SOURCE" in result.output


# ------------------------------------------------------------------ installed readers

PLUGIN = '''
def read_tsv(path):
    """Tab-separated winners, one per line (a test reader)."""
    return [{"winner": line.strip()} for line in open(path) if line.strip()]
'''


def test_installed_reader_is_listed_and_used(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tsvreader.py").write_text(PLUGIN)
    info = tmp_path / "tsvreader-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tsvreader\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[baccarat.importers]\ntsv = tsvreader:read_tsv\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    result = runner.invoke(app, ["import", "--formats"])
    assert result.exit_code == 0, result.output
    assert "tsv" in result.stdout and "(a test reader)" in result.stdout
    assert "tsvreader:read_tsv" in result.stdout and "messages" in result.stdout
    data = write(tmp_path, "w.tsv", "B\nP\nT\n")
    got = import_files([data], format="tsv")
    assert list(got.outcome) == [BANKER, PLAYER, TIE]


# ------------------------------------------------------------------ the sample data

DATA = Path(__file__).resolve().parents[2] / "data"


def dealt(first: int, shoes: int = 1):  # noqa: ANN201 - a Coups
    from baccarat.deal import generate_coups
    from baccarat.rules import TableRules

    return generate_coups(TableRules.model_validate({}), 2026, np.arange(first, first + shoes))


def test_every_sample_is_detected_as_its_readme_row_says() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`[^|]+`) \| `(\w+)`", readme, flags=re.M)
    listed = {name.strip("`"): fmt for names, fmt in rows for name in names.split(", ")}
    samples = sorted(p.name for p in DATA.iterdir()
                     if p.name not in ("README.md", "make_samples.py"))
    assert sorted(listed) == samples
    for name, fmt in listed.items():
        assert detect_format(DATA / name) == fmt, name


def test_samples_hold_the_dealt_shoes() -> None:
    logs = import_files([DATA / "live-table-08.log", DATA / "live-table-09.log"])
    shoes = dealt(700, 2)
    first = int((shoes.shoe == 700).sum())
    assert labels(logs) == ["T3", "T3"] and len(logs) == first + 40
    np.testing.assert_array_equal(logs.outcome, shoes.outcome[:first + 40])
    for name, start, count in (("results.log", 710, 1), ("history.json", 720, 1),
                               ("scorecard.xlsx", 780, 2), ("scraper.sqlite", 790, 2)):
        got, want = import_files([DATA / name]), dealt(start, count)
        np.testing.assert_array_equal(got.cards, want.cards, err_msg=name)
        np.testing.assert_array_equal(got.outcome, want.outcome, err_msg=name)
        assert len(got.shoe_ids()) == count
    titled = import_files([DATA / "titled-log.csv"])  # a title line above its header
    np.testing.assert_array_equal(titled.outcome, dealt(900, 2).outcome)
    assert len(titled.shoe_ids()) == 2
    scorecards = import_files([DATA / "scorecards-labelled.txt"])
    np.testing.assert_array_equal(scorecards.outcome, dealt(730, 5).outcome)
    assert labels(scorecards) == ["2026-04-06T00:25:57+09:00", "2026-04-06 01:40",
                                  "2026-04-06 02:55", "桌3", "bàn 5"]
    np.testing.assert_array_equal(import_files([DATA / "winning-outcome.csv"]).outcome,
                                  dealt(740).outcome)
    mapped = ReadOptions(columns=parse_mapping(["outcome=Kết quả", "coup=Ván"]))
    np.testing.assert_array_equal(import_files([DATA / "ket-qua.csv"], options=mapped).outcome,
                                  dealt(750).outcome)
    board = import_files([DATA / "bot-scoreboard.txt"])
    np.testing.assert_array_equal(board.outcome, dealt(800, 2).outcome)
    assert len(board.shoe_ids()) == 2
    spanish = import_files([DATA / "mesa.tsv"])
    np.testing.assert_array_equal(spanish.outcome, np.r_[dealt(810).outcome,
                                                         dealt(811).outcome])
    assert len(spanish.shoe_ids()) == 2
    tables = import_files([DATA / "tables-interleaved.csv"])
    assert labels(tables) == ["41", "17"]
    want = dealt(760)
    np.testing.assert_array_equal(tables.outcome[:len(want)], want.outcome)
    np.testing.assert_array_equal(tables.player_total[:len(want)], want.player_total)


def test_slips_sample() -> None:
    with pytest.raises(ImportDataError, match=r"^2 problems in the recorded coups"):
        import_files([DATA / "slips.csv"])
    from baccarat.io.importers.importer import ImportReport

    report = ImportReport()
    got = import_files([DATA / "slips.csv"], keep_invalid=True, report=report)
    assert report.dropped == 1 and report.flagged == {"recorder slip": 1}
    assert got.valid is not None and int((~got.valid).sum()) == 1
    assert len(got) == len(dealt(800)) - 1  # one coup was never recorded
    assert got.after_gap is not None and int(got.after_gap.sum()) == 1


def test_message_fields_of_any_name_are_mapped(tmp_path: Path) -> None:
    path = write(tmp_path, "odd.log", "\n".join([
        '[21:00:01] {"kind": "round", "body": {"no": 1, "res": "B"}}',
        '[21:00:30] {"kind": "round", "body": {"no": 2, "res": "T"}}',
    ]) + "\n")
    assert detect_format(path) == "messages"
    with pytest.raises(ImportDataError, match=r"odd\.log: no coups in its 2 lines"):
        import_files([path])
    options = ReadOptions(columns=parse_mapping(["outcome=body.res", "coup=body.no"]))
    got = import_files([path], options=options)
    assert list(got.outcome) == [BANKER, TIE]
    assert got.recorded_coup is not None and list(got.recorded_coup) == [1, 2]


FORUM_POST = """Here's my shoe log from last night (table 12):

| Shoe | Hand | Result |
|:-----|-----:|--------|
| 1    | 1    | Banker |
| 1    | 2    | Banker |
| 1    | 3    | Player |
| 1    | 4    | Tye    |
| 2    | 1    | Player |

Any pattern here?
"""


def test_a_markdown_table_in_a_post_imports_with_its_line_numbers(tmp_path: Path) -> None:
    """A table pasted from a forum or a notes app: the pipes framing each row, the rule
    under the header and the sentences around it are no obstacle, and an error still
    names the line of the file."""
    path = tmp_path / "post.md"
    path.write_text(FORUM_POST.replace("Tye", "Tie"))
    assert detect_format(path) == "csv"
    got = import_files([path])
    assert got.outcome.tolist() == [BANKER, BANKER, PLAYER, TIE, PLAYER]
    assert got.shoe.tolist() == [0, 0, 0, 0, 1]
    bad = tmp_path / "bad.md"
    bad.write_text(FORUM_POST)
    with pytest.raises(ImportDataError, match=r"bad\.md:8: unknown outcome"):
        import_files([bad])
    plain = tmp_path / "plain.csv"  # a pipe-delimited file without the frame is unchanged
    plain.write_text("shoe|coup|outcome\n1|1|B\n1|2|P\n")
    assert import_files([plain]).outcome.tolist() == [BANKER, PLAYER]
