"""Delimited files are read by the standard library's csv module (RFC 4180): quoted
delimiters, quoted line breaks, doubled quotes, a byte-order mark, header names quoted
over several lines; every row keeps the line it starts on, across blocks too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.io.importers import ImportDataError, import_files, stream

HEADER = '\ufeff"coup\nnumber",winner,"player\ncards","banker\ncards",note\r\n'
ROWS = ('1,Banker,"5S 2C","9H, 0D",plain\r\n'
        '2,Player,8H 10S,7C 10D,"a ""quoted"" word, and a comma"\r\n'
        '3,Tie,2H 4C,3S 3D,"over\r\ntwo lines"\r\n'
        '\r\n'
        '# a comment line\r\n'
        '4,Banker,JC QS,KD 8C,\r\n')


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def test_rfc_4180_quoting_is_read_as_written(tmp_path: Path) -> None:
    path = write(tmp_path / "quoted.csv", HEADER + ROWS)
    got = import_files([path])
    assert list(got.outcome) == [BANKER, PLAYER, TIE, BANKER]
    assert list(got.player_total) == [7, 8, 6, 0] and list(got.banker_total) == [9, 7, 6, 8]
    table = next(stream.csv_blocks(path))
    assert list(table.columns) == ["coup\nnumber", "winner", "player\ncards", "banker\ncards",
                                   "note"]
    assert table.columns["note"][1] == 'a "quoted" word, and a comma'
    assert table.columns["note"][2] == "over\ntwo lines"
    assert list(table.lines) == [5, 6, 7, 11]  # the line each record starts on


def test_records_across_blocks_keep_their_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "quoted.csv", HEADER + ROWS)
    whole = next(stream.csv_blocks(path))
    blocks = list(stream.csv_blocks(path, rows=1))
    assert [len(b) for b in blocks] == [1, 1, 1, 1]
    np.testing.assert_array_equal(np.concatenate([b.lines for b in blocks]), whole.lines)
    assert [b.columns["note"][0] for b in blocks][2] == "over\ntwo lines"


def test_a_bad_record_after_a_quoted_line_break_is_named_by_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.csv", HEADER + ROWS + "5,Dragon,2H 3C,4S 5D,\r\n")
    with pytest.raises(ImportDataError, match=r"bad\.csv:12: .*'Dragon'"):
        import_files([path])
    path = write(tmp_path / "short.csv", HEADER + ROWS + "5,Banker\r\n")
    with pytest.raises(ImportDataError, match=r"short\.csv:12: 2 fields, but the header has 5"):
        import_files([path])


def test_an_unclosed_quote_is_one_error_naming_where_it_opens(tmp_path: Path) -> None:
    path = write(tmp_path / "open.csv", HEADER + ROWS + '5,Banker,"2H 3C,4S 5D,\r\n6,P,,,\r\n')
    with pytest.raises(ImportDataError, match=r"^.*open\.csv:12: not CSV: a quoted field "
                                              r"opened in this record is never closed$"):
        import_files([path])
    path = write(tmp_path / "stray.csv", 'winner,note\nBanker,"ok"no\n')
    with pytest.raises(ImportDataError, match=r"stray\.csv:2: not CSV: .*written doubled"):
        import_files([path])
