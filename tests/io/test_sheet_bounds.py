"""Sheets are read to their last row, within bounds, and every parser error names the file.

A workbook whose sheet declares ``<dimension ref="A1:B2"/>`` above many more rows is read
to its last row (it imported one coup, the others silently dropped); a part that unpacks
far beyond what it packs is refused before it is read; an XML parser's error (entities
expanding without end) and a SQLite database's corrupt page are one error naming the
file, not "unexpected ParseError/DatabaseError".
"""

from __future__ import annotations

import re
import sqlite3
import zipfile
from pathlib import Path

import pytest
from baccarat.io.importers import ImportDataError, import_files, sheets
from openpyxl import Workbook

WINNERS = ["Banker", "Player", "Banker", "Tie", "Player", "Banker"] * 5


def _workbook(path: Path) -> Path:
    book = Workbook()
    sheet = book.active
    sheet.title = "Coups"
    sheet.append(["Shoe", "Hand", "Winner"])
    for i, winner in enumerate(WINNERS):
        sheet.append([1, i + 1, winner])
    book.save(path)
    return path


def _rewrite(path: Path, member: str, change) -> None:
    """Rewrite one part of a workbook (a zip) through ``change`` (text -> text)."""
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    parts[member] = change(parts[member].decode()).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def test_a_sheet_is_read_past_the_dimension_it_declares(tmp_path: Path):
    path = _workbook(tmp_path / "short.xlsx")
    _rewrite(path, "xl/worksheets/sheet1.xml",
             lambda xml: re.sub(r'<dimension ref="[^"]*"\s*/>', '<dimension ref="A1:B2"/>',
                                xml))
    assert '<dimension ref="A1:B2"/>' in zipfile.ZipFile(path).read(
        "xl/worksheets/sheet1.xml").decode()
    assert len(import_files([path])) == len(WINNERS)


def test_a_part_unpacking_far_beyond_its_size_is_refused_naming_it(tmp_path: Path,
                                                                   monkeypatch):
    path = _workbook(tmp_path / "bomb.xlsx")
    _rewrite(path, "xl/worksheets/sheet1.xml",
             lambda xml: xml.replace(">Tie<", ">" + "T" * 300_000 + "<", 1))
    monkeypatch.setattr(sheets, "PACKED_RATIO_FROM", 100_000)
    with pytest.raises(ImportDataError, match=r"bomb\.xlsx: its part "
                                              r"xl/worksheets/sheet1\.xml unpacks to"):
        import_files([path])


def test_entities_expanding_without_end_are_an_error_naming_the_file(tmp_path: Path):
    path = _workbook(tmp_path / "laughs.xlsx")
    laughs = ('<!DOCTYPE lolz [<!ENTITY lol "lolololololololololol">'
              + "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">'
                        for i in range(2, 10)).replace("&lol1;", "&lol;")
              + "]>")

    def bomb(xml: str) -> str:
        assert ">Tie<" in xml and not xml.startswith("<?xml")
        return laughs + xml.replace(">Tie<", ">&lol9;<", 1)

    _rewrite(path, "xl/worksheets/sheet1.xml", bomb)
    with pytest.raises(ImportDataError, match=r"laughs\.xlsx: cannot read as an \.xlsx"):
        import_files([path])


def test_a_corrupt_sqlite_page_is_an_error_naming_the_file(tmp_path: Path):
    path = tmp_path / "scraper.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE coups (shoe INTEGER, hand INTEGER, winner TEXT, note TEXT)")
        db.executemany("INSERT INTO coups VALUES (?, ?, ?, ?)",
                       [(1 + i // 60, i % 60 + 1, WINNERS[i % len(WINNERS)], "x" * 200)
                        for i in range(600)])
    db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    data[5 * page: 6 * page] = b"\xff" * page  # a leaf page of the table, overwritten
    path.write_bytes(bytes(data))
    with pytest.raises(ImportDataError, match=r"scraper\.sqlite: cannot read"):
        import_files([path])
