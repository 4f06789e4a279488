"""The front door: every usage error is one line, ``--version``, and the docs' options.

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
from baccarat import __version__
from baccarat.cli import app
from typer.main import get_command
from typer.testing import CliRunner

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["backtest", "--shoes", "0", "-s", "flat"], "'--shoes'"),
        (["backtest", "--shoes", "ten", "-s", "flat"], "(got 'ten')"),
        (["backtest", "--shoes", "3"], "Missing option '--strategy'"),
        (["backtest", "--cut-cards", "3", "-s", "flat"], "No such option: --cut-cards"),
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


def test_asked_for_a_format_a_command_says_what_it_prints_instead():
    result = runner.invoke(app, ["odds", "--format", "json"])
    assert result.exit_code == 2
    assert result.output.strip().endswith("(baccarat odds prints JSON with --json)")
    result = runner.invoke(app, ["compare", "--format=csv", "run"])
    line, = result.output.strip().splitlines()
    assert result.exit_code == 2 and "baccarat compare prints text and writes Parquet" in line
    # the commands that print JSON, by their options (typer's own view of them)
    group = get_command(app)
    with_json = sorted(name for name in group.list_commands(None)  # type: ignore[attr-defined]
                       if "--json" in {o for p in group.get_command(None, name).params
                                       for o in p.opts})
    assert line.endswith(f"--json is on {', '.join(with_json)})")
    assert "--json is on" not in runner.invoke(app, ["compare", "--formt", "x"]).output


def test_usage_error_in_a_real_process_is_one_line_on_stderr(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "baccarat.cli", "backtest", "--max-coups",
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

README = Path(__file__).resolve().parents[2] / "README.md"
#: Every command of the app (what the README may name).
COMMANDS = tuple(sorted(get_command(app).commands))  # type: ignore[attr-defined]
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?![\w>(-])")  # not "--deal-->"
_CONSOLE = re.compile(r"^\s*\$ baccarat ([a-z][\w-]*)((?:.*\\\n)*.*)$", re.M)


def _command_of(span: str, commands: dict[str, set[str]]) -> str | None:
    """The command a code span starts with (``baccarat X ...`` or ``X --...``), if any."""
    words = span.split()
    if words[:1] == ["baccarat"]:
        words = words[1:]
    return words[0] if words and words[0] in commands else None


def _options_shown(text: str) -> dict[str, set[str]]:
    """The options the README shows for each command.

    ``$ baccarat CMD ...`` lines (continuations included) show CMD's options. In prose, a
    code span that starts with a command (```baccarat CMD --x```, ```CMD --x```) shows
    that command's options; any other option belongs to the command of its bullet (one
    that starts with ```baccarat CMD```) or else of its section (a heading naming exactly
    one command).
    """
    shown: dict[str, set[str]] = {c: set() for c in COMMANDS}
    for command, rest in _CONSOLE.findall(text):
        if command in shown:
            shown[command] |= set(_OPTION.findall(rest))
    # prose: what is left without the commands and the fenced blocks (a command's output
    # may name another command's options)
    prose = re.sub(r"^```.*?^```", "", _CONSOLE.sub("", text), flags=re.M | re.S)
    for section in re.split(r"^#+ ", prose, flags=re.M):
        heading = section.splitlines()[0] if section else ""
        named = [c for c in re.findall(r"`baccarat ([a-z][\w-]*)`", heading) if c in shown]
        default = named[0] if len(named) == 1 else None
        for paragraph in re.split(r"\n\s*\n|\n(?=- )", section[len(heading):]):
            lead = re.match(r"\s*- `([^`]+)`", paragraph)
            context = (_command_of(lead.group(1), shown) if lead else None) or default
            for i, piece in enumerate(re.split(r"`", paragraph)):
                owner = (_command_of(piece, shown) or context) if i % 2 else context
                if owner is not None:
                    shown[owner] |= set(_OPTION.findall(piece))
    return shown


def _help_options(command: str) -> set[str]:
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", result.output))


#: The README and every docs page (a page per command under docs/commands/).
DOCUMENTS = (README, *sorted((README.parent / "docs").rglob("*.md")))


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(README.parent)))
def test_every_option_the_docs_show_exists_in_that_commands_help(document: Path):
    shown = _options_shown(document.read_text(encoding="utf-8"))
    missing = {command: sorted(options - _help_options(command) - {"--help"})
               for command, options in shown.items() if options}
    assert {c: m for c, m in missing.items() if m} == {}


def test_the_option_check_finds_the_options_of_the_command_pages():
    shown: dict[str, set[str]] = {c: set() for c in COMMANDS}
    for document in DOCUMENTS:
        for command, options in _options_shown(document.read_text(encoding="utf-8")).items():
            shown[command] |= options
    assert {"--shuffle", "--seed"} <= shown["generate"] and "--compare" in shown["odds"]
    assert {"--stop-loss", "--ledger", "--session-shoes"} <= shown["backtest"]


def test_the_readme_check_would_catch_a_missing_option():
    text = ("### `baccarat backtest`: x\n\nUse `--cut-cards` here, and `generate --shuffle`.\n"
            "\n$ baccarat odds --bogus \\\n    --more\n")
    shown = _options_shown(text)
    assert shown["backtest"] == {"--cut-cards"} and shown["odds"] == {"--bogus", "--more"}
    assert shown["generate"] == {"--shuffle"}
    assert "--cut-cards" not in _help_options("backtest")


def test_quiet_hides_only_the_progress_bar_and_no_table_the_table(tmp_path: Path):
    base = ["backtest", "--shoes", "3", "-s", "flat"]
    quiet = runner.invoke(app, [*base, "--out", str(tmp_path / "a"), "-q"])
    assert quiet.exit_code == 0 and "Backtest: 8 decks" in quiet.output
    bare = runner.invoke(app, [*base, "--out", str(tmp_path / "b"), "-q", "--no-table"])
    assert bare.exit_code == 0 and "Backtest" not in bare.output
    assert bare.output.strip().splitlines()[-1].startswith(f"wrote {tmp_path / 'b'}")


def test_help_texts_show_their_brackets():
    # rich markup would swallow a bare [a,b]: the grid syntax must reach the reader
    result = runner.invoke(app, ["backtest", "--help"], env={"COLUMNS": "240"})
    text = " ".join(result.output.replace("│", " ").split())
    assert "(key=[a,b] expands a grid)" in text
