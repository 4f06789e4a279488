"""The ``baccarat`` command line: a thin layer over the Python API, one module per command."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="baccarat",
    help="Backtest baccarat betting strategies over recorded or generated shoes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def main() -> None:
    """Backtest baccarat betting strategies over recorded or generated shoes."""


# Each command module registers itself on ``app`` when imported.
from . import analyze, backtest, generate, importing, odds, report, roads  # noqa: E402,F401,I001
