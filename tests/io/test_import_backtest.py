"""A backtest over an import that kept flagged coups says so once, and
--skip-invalid-shoes leaves out every shoe holding one."""

from __future__ import annotations

from pathlib import Path

from baccarat.cli import app
from typer.testing import CliRunner

runner = CliRunner()
# S2's second coup breaks the drawing rules (banker 4 must draw when player stands on 6)
RECORDED = ("shoe,player,banker,winner\n"
            "S1,9-K,3-2,P\nS1,6-K,7-K,B\n"
            "S2,9-K,3-2,P\nS2,A-5,K-4,B\nS2,6-K,7-K,B\n"
            "S3,6-K,7-K,B\n")


def test_flagged_coups_are_noticed_once_and_their_shoes_can_be_left_out(tmp_path: Path) -> None:
    source = tmp_path / "kept.csv"
    source.write_text(RECORDED)
    coups = tmp_path / "coups"
    assert runner.invoke(app, ["import", str(source), "--out", str(coups),
                               "--keep-invalid", "--quiet"]).exit_code == 0
    played = runner.invoke(app, ["backtest", "--coups", str(coups), "-s", "flat",
                                 "--out", str(tmp_path / "run"), "--quiet", "--no-table"])
    assert played.exit_code == 0, played.output
    notices = [line for line in played.stderr.splitlines() if "notice" in line]
    assert notices == [f"notice: {coups} holds 1 flagged coup (valid=False) in 1 shoe; they "
                       f"are played as recorded (--skip-invalid-shoes leaves those shoes out)"]
    assert "x 3 sessions, 6 coups" in played.stdout
    skipped = runner.invoke(app, ["backtest", "--coups", str(coups), "-s", "flat",
                                  "--out", str(tmp_path / "run2"), "--quiet", "--no-table",
                                  "--skip-invalid-shoes"])
    assert skipped.exit_code == 0, skipped.output
    assert "leaving those shoes out" in skipped.stderr
    assert "x 2 sessions, 3 coups" in skipped.stdout
