"""``live``: ``--resume`` reads a scorecard within bounds: a line past ``MAX_LINE`` (a 1 GB
line appended took resume to 9.3 GB before "unexpected Error") is refused in one line
naming the file and the line, having read at most one block past the limit; Ctrl-C in the
full-screen app ends it as interrupted (it exited 0); ``--resume`` plays the systems the
scorecard was started with (it showed "Systems: none"); a full disk ends in one line
saying how many coups are safe (plain mode said "nothing was written"; the app printed a
traceback and exited 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from baccarat.live import journal
from baccarat.live.journal import Journal, JournalError
from baccarat.rules import TableRules


def test_a_line_too_long_is_refused_naming_the_file_and_line(tmp_path: Path, monkeypatch):
    card = tmp_path / "card.csv"
    Journal.create(card, TableRules()).close()
    with card.open("a") as out:
        out.write("# a comment of mine\n")
        out.write("1," + "x" * (journal.MAX_LINE + 10) + "\n")
    reads: list[int] = []
    real_read = journal.os.read

    def counted(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    monkeypatch.setattr(journal.os, "read", counted)
    with pytest.raises(JournalError, match=r"card\.csv, line 4: longer than 4,096 bytes"):
        Journal.resume(card)
    assert sum(reads) < journal.MAX_LINE + (1 << 20) + 1


def test_a_short_scorecard_still_resumes(tmp_path: Path):
    card = tmp_path / "card.csv"
    Journal.create(card, TableRules()).close()
    with card.open("a") as out:
        out.write("# " + "y" * 4000 + "\n")
    Journal.resume(card).close()


def test_ctrl_c_in_the_full_screen_app_ends_it_as_interrupted(tmp_path: Path):
    import asyncio

    from baccarat.live.app import LiveApp
    from baccarat.live.scorecard import Scorecard
    from baccarat.live.session import LiveSession

    card = Scorecard(LiveSession(Journal.create(tmp_path / "t.csv", TableRules())), [])
    app = LiveApp(card)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("b", "enter")
            await pilot.press("ctrl+c")
            await pilot.pause()

    try:
        asyncio.run(run())
    finally:
        card.close()
    assert app.return_code == LiveApp.INTERRUPTED == 130  # the command then exits 130


def test_resume_plays_the_systems_the_scorecard_was_started_with(tmp_path: Path):
    from baccarat.cli import app
    from typer.testing import CliRunner

    runner = CliRunner()
    out = tmp_path / "table.csv"
    started = runner.invoke(app, ["live", "--plain", "--out", str(out), "-s", "flat"],
                            input="b\np\nquit\n", env={"COLUMNS": "80"})
    assert started.exit_code == 0, started.output
    kept = Journal.resume(out)
    kept.close()
    assert kept.systems == ["flat"]
    resumed = runner.invoke(app, ["live", "--plain", "--resume", str(out)],
                            input="b\nquit\n", env={"COLUMNS": "80"})
    assert resumed.exit_code == 0, resumed.output
    last = resumed.output.split("\nShoe ")[-1]
    assert "Systems: none" not in resumed.output
    assert "flat" in last and "next B 10" in last


def test_a_hand_appended_row_kept_once_is_kept_at_every_resume(tmp_path: Path):
    card = tmp_path / "card.csv"
    Journal.create(card, TableRules()).close()
    with card.open("ab") as out:
        out.write("1,1,,,,,,,B,no,no\u2028oops".encode())  # no newline: cut short
    first = Journal.resume(card)
    first.close()
    assert any("cut short" in note for note in first.notes)
    for _ in range(2):  # the same file, resumed again: the comment stays a comment
        again = Journal.resume(card)
        again.close()
        assert again.records == first.records


def _full_after(monkeypatch, name: str, coups: int) -> None:
    """Writes to the file called ``name`` find no space left once it holds ``coups``
    coups (its rules line, header and the shoe's line are three lines more)."""
    import errno
    import os

    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target.endswith(name) and Path(target).read_text().count("\n") >= coups + 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(journal.os, "write", write)


def test_a_full_disk_says_how_many_coups_are_safe(tmp_path: Path, monkeypatch):
    from baccarat.cli import app
    from baccarat.io.importers import import_files
    from typer.testing import CliRunner

    out = tmp_path / "table.csv"
    _full_after(monkeypatch, "table.csv", 3)
    result = CliRunner().invoke(app, ["live", "--plain", "--out", str(out)],
                                input="b\np\nb\nt\nquit\n", env={"COLUMNS": "80"})
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1] == (
        f"error: no space left on device writing {out}: the last entry was not kept; the 3 "
        f"coups entered before it are safe in the file (continue with --resume {out} once "
        f"there is room)")
    monkeypatch.undo()
    assert len(import_files([out])) == 3


def test_a_full_disk_ends_the_full_screen_app_with_that_line(tmp_path: Path, monkeypatch):
    import asyncio

    from baccarat.errors import DiskFullError
    from baccarat.live.app import LiveApp
    from baccarat.live.scorecard import Scorecard
    from baccarat.live.session import LiveSession

    card = Scorecard(LiveSession(Journal.create(tmp_path / "t.csv", TableRules())), [])
    app = LiveApp(card)
    _full_after(monkeypatch, "t.csv", 1)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            for key in ("b", "enter", "p", "enter"):
                await pilot.press(key)
            await pilot.pause()

    try:
        asyncio.run(run())
    finally:
        monkeypatch.undo()
        card.close()
    assert app.return_code == 2
    assert isinstance(app.failure, DiskFullError)
    assert "the 1 coup entered before it is safe" in str(app.failure)
