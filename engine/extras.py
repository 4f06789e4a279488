"""The optional parts of the install, and the one error that names the missing one.

The core install is what a headless backtest needs. The full-screen scorecard (Textual),
figures and the HTML report (matplotlib), .xlsx files (openpyxl) and Dask clusters each
come with an extra; a feature whose extra is missing stops with one line saying what to
install (exit code 2 on the command line), never an ImportError.
"""

from __future__ import annotations

import importlib.util

from .errors import BaccaratError

#: The extra that installs each optional module, and what it brings.
EXTRAS = {
    "textual": ("live", "the full-screen scorecard"),
    "matplotlib": ("report", "figures and the HTML report"),
    "openpyxl": ("xlsx", ".xlsx files"),
    "distributed": ("dask", "Dask clusters"),
}


class MissingExtra(BaccaratError):
    """A feature whose optional dependency is not installed."""


def require(module: str, feature: str) -> None:
    """Raise :class:`MissingExtra` naming the extra to install if ``module`` (a key of
    :data:`EXTRAS`) cannot be imported; ``feature`` says what needed it."""
    if importlib.util.find_spec(module) is not None:
        return
    extra, brings = EXTRAS[module]
    raise MissingExtra(f"{feature} needs the [{extra}] extra ({brings}, {module}): "
                       f"pip install 'baccarat-backtest[{extra}]'")
