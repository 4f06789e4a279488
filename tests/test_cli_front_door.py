"""The front door: every usage error is one line, ``--version``, and the README's options.

A user who mistypes gets the same kind of answer whoever catches the mistake (click's
parser, typer's type checks, or the package): one line starting with ``error:``, exit
status 2, nothing written.
"""

from __future__ import annotations

import re
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


# -- the README shows only options that exist -------------------------------------------------

README = Path(__file__).resolve().parents[1] / "README.md"
COMMANDS = ("odds", "generate", "import", "backtest", "compare", "report", "roads",
            "strategies", "demo", "trace", "check-strategy", "new-strategy")
# An option: --name, not part of an arrow ("--deal-->") or a call ("--replay(...)").
_TOKEN = re.compile(r"baccarat ([a-z][\w-]*)|(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?![\w>(-])")


def _options_shown(text: str) -> dict[str, set[str]]:
    """The options the README shows for each command.

    Read section by section (``### `` headings): an option belongs to the command named
    last before it (``$ baccarat CMD ...``, ```baccarat CMD```), or, before any is named,
    to the command the section's heading is about when it names exactly one.
    """
    shown: dict[str, set[str]] = {c: set() for c in COMMANDS}
    for section in re.split(r"^#+ ", text, flags=re.M):
        heading = section.splitlines()[0] if section else ""
        named = [c for c in re.findall(r"`baccarat ([a-z][\w-]*)`", heading) if c in shown]
        current = named[0] if len(named) == 1 else None
        for command, option in _TOKEN.findall(section[len(heading):]):
            if command:
                current = command if command in shown else None
            elif current is not None:
                shown[current].add(option)
    return shown


def _help_options(command: str) -> set[str]:
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", result.output))


def test_every_option_the_readme_shows_exists_in_that_commands_help():
    shown = _options_shown(README.read_text(encoding="utf-8"))
    assert shown["backtest"] and shown["generate"] and shown["odds"]  # the parser finds them
    missing = {command: sorted(options - _help_options(command) - {"--help"})
               for command, options in shown.items() if options}
    assert {c: m for c, m in missing.items() if m} == {}


def test_the_readme_check_would_catch_a_missing_option():
    text = "### `baccarat backtest`: x\n\nUse `--cut-card` here.\n\n$ baccarat odds --bogus\n"
    shown = _options_shown(text)
    assert shown["backtest"] == {"--cut-card"} and shown["odds"] == {"--bogus"}
    assert "--cut-card" not in _help_options("backtest")
