"""The command line run in this process, and its output flattened for phrase matching:
shared by the backtest and search command tests (tests/cli/, tests/search/)."""

from __future__ import annotations

from baccarat.cli import app
from typer.testing import CliRunner

runner = CliRunner()


def cli(*args: str):
    """``baccarat ARGS`` in this process."""
    return runner.invoke(app, list(args))


def words(text: str) -> str:
    """Output with its line wrapping removed (line breaks and runs of spaces as one
    space), for message checks."""
    return " ".join(text.split())


def flat(text: str) -> str:
    """Output with rich's table borders and line wrapping removed, for phrase matching."""
    for border in "│╭╮╰╯─┃━┏┓┗┛┡┩└┘┌┐├┤┼":
        text = text.replace(border, " ")
    return " ".join(text.split())
