"""The front door: every usage error is one line, ``--version``, and the README's options.

A user who mistypes gets the same kind of answer whoever catches the mistake (click's
parser, typer's type checks, or the package): one line starting with ``error:``, exit
status 2, nothing written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import __version__
from engine.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["backtest", "--shoes", "0", "-s", "flat"], "'--shoes'"),
        (["backtest", "--shoes", "ten", "-s", "flat"], "(got 'ten')"),
        (["backtest", "--shoes", "3"], "Missing option '--strategy'"),
        (["backtest", "--cut-card", "3", "-s", "flat"], "No such option: --cut-card"),
        (["--bogus"], "No such option: --bogus"),
        (["nosuch"], "No such command 'nosuch'"),
        (["odds", "--decks", "many"], "'--decks'"),
    ],
)
def test_usage_errors_are_one_line_exit_2(tmp_path: Path, args: list[str], phrase: str):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and phrase in lines[0]
    assert not any(ch in result.output for ch in "╭│╰"), "no framed box"


def test_usage_error_in_a_real_process_is_one_line_on_stderr(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "engine.cli", "backtest", "--max-coups",
                           "x", "-s", "flat", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"baccarat-backtest {__version__}"


def test_no_arguments_shows_the_help():
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    assert "backtest" in result.output and "Usage" in result.output
