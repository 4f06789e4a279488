"""The ``baccarat`` command line: a thin layer over the Python API, one module per command.

Every bad input ends the same way, whoever catches it: one line on stderr starting with
``error:``, exit status 2. The commands turn the package's own errors into that line
(``common.reports_errors``); :class:`OneLineErrors` does the same for the usage errors
click and typer raise themselves (an unknown option, a value that is not a number, a
number out of range), which would otherwise print a usage block and a framed box.

Start-up is kept light so that ``baccarat --help`` and ``baccarat COMMAND --help`` answer
at once: importing this package (and every command module) must not import numpy or the
heavy libraries. The rule for a command module:

- at the top, only the standard library, ``typer``, ``rich``, ``from . import app`` and
  ``from .common import ...`` (what the signatures and help texts need);
- everything else (``numpy``, ``pandas``, ``pyarrow``, ``numba`` kernels, ``matplotlib``,
  the strategies, the engine modules that pull them in) is imported inside the command
  function that uses it, so only the command that runs pays for it;
- names needed only in annotations go under ``if TYPE_CHECKING:``.

``tests/test_startup.py`` checks this for every registered command, so a new command
that imports something heavy at module level fails there with the module named.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer 0.2x carries its own copy of click; older typer uses click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the typer release
    from click import exceptions as click_errors  # type: ignore[no-redef]

from .. import __version__


class OneLineErrors(TyperGroup):
    """The command group, printing click's usage errors as one ``error:`` line, exit 2."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        except click_errors.NoArgsIsHelpError as exc:
            exc.show()  # no arguments: the help text, as asked for by no_args_is_help
            sys.exit(0)
        except click_errors.ClickException as exc:
            sys.exit(_one_line(exc))
        except typer.Abort:
            print("error: aborted", file=sys.stderr)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _one_line(exc: click_errors.ClickException) -> int:
    """Print a click error as one line naming the command; returns the exit status."""
    context = getattr(exc, "ctx", None)
    where = f"{context.command_path}: " if context is not None else ""
    message = " ".join(exc.format_message().split()).rstrip(".")
    given = _given_value(exc)
    if given is not None:
        message += f" (got {given!r})"
    hint = (f" (`{context.command_path} --help` lists the options)"
            if isinstance(exc, click_errors.UsageError) and context is not None else "")
    print(f"error: {where}{message}{hint}", file=sys.stderr)
    return 2 if isinstance(exc, click_errors.UsageError) else exc.exit_code


def _given_value(exc: BaseException) -> object | None:
    """The value a user gave, when typer's check of it (pydantic underneath) kept it."""
    cause = exc.__cause__
    errors = getattr(cause, "errors", None)
    if callable(errors):
        try:
            found = errors()
        except Exception:  # pragma: no cover - not a pydantic error after all
            return None
        if found and "input" in found[0]:
            return found[0]["input"]
    return None


app = typer.Typer(
    name="baccarat",
    help="Backtest baccarat betting strategies over recorded or generated shoes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineErrors,
)


def _show_version(value: bool) -> None:
    if value:
        print(f"baccarat-backtest {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                 help="print the version and exit"),
) -> None:
    """Backtest baccarat betting strategies over recorded or generated shoes."""


# Each command module registers itself on ``app`` when imported (light imports only, above).
from . import (  # noqa: E402,F401,I001
    analyze, backtest, check_strategy, generate, importing, new_strategy, odds, report, roads,
    trace)
