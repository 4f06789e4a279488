"""What a newcomer hits first, each through the command line as they met it: a CSV under a
title line, a hand-edited live scorecard, a plugin hook returning the wrong type, a plugin
reaching past its read-only table, and the demo run twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from baccarat.cli import app
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.io.parquet import read_coups
from typer.testing import CliRunner

runner = CliRunner()


def flat(text: str) -> str:
    """Output with the line wrapping removed, for message checks."""
    return " ".join(text.split())


# --- 1. A CSV with a title line above its header -------------------------------------------

#: The issue's file: a title with as many commas as the header has (it was refused unless
#: --format csv was given, and with it the title was read as the header).
TITLED = ("Baccarat results, Casino X, 2026-01-05\n"
          "shoe,coup,outcome\n1,1,B\n1,2,P\n1,3,T\n2,1,B\n2,2,B\n")


@pytest.mark.parametrize("name", ["results.csv", "results.txt"])
@pytest.mark.parametrize("title", [
    "Baccarat results, Casino X, 2026-01-05",     # as wide as the header
    "Baccarat results, Casino X, table 7, night",  # wider
    "Baccarat results,,",                          # a spreadsheet's title row
])
def test_a_title_line_as_wide_as_the_header_is_left_out_by_the_format_guess(
        tmp_path: Path, name: str, title: str) -> None:
    path = tmp_path / name
    path.write_text(TITLED.replace(TITLED.splitlines()[0], title), encoding="utf-8")
    out = tmp_path / "coups"
    result = runner.invoke(app, ["import", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{name}:1: {title.strip()!r} above the header taken as a title and left out" \
        in flat(result.output)
    assert "imported 5 coups from 2 shoes" in flat(result.output)
    coups, _ = read_coups(out)
    assert coups.outcome.tolist() == [BANKER, PLAYER, TIE, BANKER, BANKER]
    assert coups.shoe.tolist() == [0, 0, 0, 1, 1]


def test_the_same_file_with_format_csv_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "results.txt"
    path.write_text(TITLED, encoding="utf-8")
    out = tmp_path / "coups"
    result = runner.invoke(app, ["import", str(path), "--out", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert read_coups(out)[0].outcome.tolist() == [BANKER, PLAYER, TIE, BANKER, BANKER]


def test_a_line_of_data_above_the_header_is_still_no_title(tmp_path: Path) -> None:
    """A line holding numbers, as wide as the header, is a row out of place: refused, as
    before (a title holds words, a date at most)."""
    path = tmp_path / "rows.csv"
    path.write_text("1,1,B\nshoe,coup,outcome\n1,2,P\n", encoding="utf-8")
    result = runner.invoke(app, ["import", str(path), "--out", str(tmp_path / "coups")])
    assert result.exit_code == 2
    assert "taken as a title" not in flat(result.output)
