"""The ``baccarat`` command line: a thin layer over the Python API, one module per command.

Start-up is kept light so that ``baccarat --help`` and ``baccarat COMMAND --help`` answer
at once: importing this package (and every command module) must not import numpy-heavy
or compiled parts of the engine. The rule for a command module:

- at the top, only the standard library, ``typer``, ``rich``, ``from . import app`` and
  ``from .common import ...`` (what the signatures and help texts need);
- everything else (``pandas``, ``pyarrow``, ``numba`` kernels, ``matplotlib``, the
  strategies, the engine modules that pull them in) is imported inside the command
  function that uses it, so only the command that runs pays for it;
- names needed only in annotations go under ``if TYPE_CHECKING:``.

``tests/test_startup.py`` checks this for every registered command, so a new command
that imports something heavy at module level fails there with the module named.
"""

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


# Each command module registers itself on ``app`` when imported (light imports only, above).
from . import backtest, generate, importing, odds, report, roads  # noqa: E402,F401,I001
