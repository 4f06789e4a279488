"""The ``baccarat`` command line: a thin layer over the Python API, one module per command.

A plain typer application: every module of this package registers its commands on
:data:`app`, and the last lines here import them all; ``--help`` is typer's own.

Every bad input ends the same way, whoever catches it: one line on stderr starting with
``error:``, exit status 2. The commands turn the package's own errors into that line
(``common.reports_errors``); :class:`OneLineErrors` does the same for the usage errors
typer raises itself (an unknown option, a value that is not a number, a number out of
range), which would otherwise print a usage block and a framed box.

Start-up is kept light so that ``baccarat --help`` and ``baccarat COMMAND --help`` answer
at once: importing this package (and every command module) must not import numpy or the
heavy libraries. The rule for a command module:

- at the top, only the standard library, ``typer``, ``rich``, ``from . import app`` and
  ``from .common import ...`` (what the signatures and help texts need);
- everything else (``numpy``, ``pandas``, ``pyarrow``, ``numba`` kernels, ``matplotlib``,
  the strategies, the engine modules that pull them in) is imported inside the command
  function that uses it, so only the command that runs pays for it;
- names needed only in annotations go under ``if TYPE_CHECKING:``.

``tests/cli/test_startup.py`` checks that no command's help imports anything heavy.
"""

from __future__ import annotations

import inspect
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from .. import __version__

#: The exit status of a usage error (click's, which typer raises).
USAGE_ERROR = 2


class ReadableHelp(TyperCommand):
    """A command whose help reads at 80 columns: a flag shows no value (typer prints
    ``<bool>`` beside it), a value a short name (``INT``, ``PATH``), and a bound is said at
    the end of the description rather than in the type column (``<int range> [x>=1]``
    widened that column for every option and squeezed each description into a narrow
    cell). Its ``--help`` flag included."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _no_flag_value(param)
            _short_value(param)
            _bounds_in_help(param)

    def get_help_option(self, ctx: Any) -> Any:
        return _no_flag_value(super().get_help_option(ctx))


def _no_flag_value(param: Any) -> Any:
    """A flag takes no value: its help shows none. A flag left unset is False, not None:
    typer checks a value that is not already a bool with pydantic, and importing pydantic
    is a fifth of a second that ``--help`` does not need."""
    if param is not None and getattr(param, "is_flag", False) and \
            not getattr(param, "count", False):
        param.metavar = ""
        if param.default is None and not getattr(param, "secondary_opts", None):
            param.default = False  # an on/off pair (--roads/--no-roads) keeps None: unset
    return param


#: The name a value of each type shows in help.
_VALUE_NAMES = {"int": "INT", "float": "NUMBER", "str": "TEXT", "Path": "PATH"}


def _short_value(param: Any) -> None:
    """A value's name in help: ``INT`` for ``<int range>``, ``TEXT...`` for a repeatable
    text (the parameter's own metavar, if it has one, stays)."""
    if param.metavar is not None or getattr(param, "is_flag", False) or \
            not hasattr(param, "bare_type"):
        return
    bare = param.bare_type()
    repeated = bare.startswith("list[")
    name = _VALUE_NAMES.get(bare[5:-1] if repeated else bare)
    if name is not None:
        param.metavar = name + "..." * repeated


def _bounds_in_help(param: Any) -> None:
    """An option's bounds at the end of its description (typer still checks them: the
    bound given to ``typer.Option`` is its annotation's constraint; ``param.min`` and
    ``param.max`` are what its help shows)."""
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if (low is None and high is None) or getattr(param, "count", False):
        return
    said = (f"{low} to {high}" if low is not None and high is not None else
            f"at least {low}" if low is not None else f"at most {high}")
    param.help = f"{param.help or ''} ({said})".strip()
    param.min = param.max = None


def reflow(text: str) -> str:
    """A docstring as help text that wraps to the terminal: the lines of each paragraph
    joined (typer keeps a docstring's line breaks, so a help printed narrower than the
    source left words alone on a line); lists and indented blocks are kept as written."""
    paragraphs = []
    for paragraph in text.split("\n\n"):
        lines = paragraph.splitlines()
        if any(line.startswith((" ", "- ", "* ")) for line in lines):
            paragraphs.append(paragraph)
        else:
            paragraphs.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(paragraphs)


class OneLineErrors(TyperGroup):
    """The command group, printing typer's usage errors as one ``error:`` line, exit 2,
    and any other failure as one line too (never a traceback)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for param in self.params:
            _no_flag_value(param)

    def get_help_option(self, ctx: Any) -> Any:
        return _no_flag_value(super().get_help_option(ctx))

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        global _THREADS_BEFORE
        _THREADS_BEFORE = set(threading.enumerate())
        given = list(sys.argv[1:] if args is None else args)
        sys.unraisablehook = _ctrl_c_in_a_callback
        try:
            code = super().main(given or ["--help"], prog_name, complete_var, False,
                                windows_expand_args, **extra)
        except typer.Exit as exc:
            _leave(exc.exit_code)
        except typer.Abort as exc:
            if isinstance(exc.__context__, KeyboardInterrupt):  # click's word for Ctrl-C
                print("interrupted", file=sys.stderr)
                _leave(130)
            print("error: aborted", file=sys.stderr)
            _leave(1)
        except typer.TyperException as exc:  # click's errors are TyperExceptions
            _leave(_one_line(exc))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            _leave(130)
        except Exception as exc:  # noqa: BLE001 - the one error path: never a traceback
            _leave(_unexpected(exc))
        if _CTRL_C_NOTED:  # a Ctrl-C that landed in a callback Python cannot raise from
            print("interrupted", file=sys.stderr)
            _leave(130)
        _leave(code if isinstance(code, int) else 0)


#: Set when a Ctrl-C landed in a callback (a weak reference's, a finalizer).
_CTRL_C_NOTED: list[bool] = []


def _ctrl_c_in_a_callback(unraisable: Any) -> None:
    """A Ctrl-C raised inside a garbage-collector callback cannot propagate; Python would
    print it as an ignored exception with a traceback. Note it (the command then ends as
    interrupted); anything else goes to Python's own report."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        _CTRL_C_NOTED.append(True)
        return
    sys.__unraisablehook__(unraisable)


#: The threads running when the command started (a host's own: a test runner's, ...).
_THREADS_BEFORE: set[threading.Thread] = set()


def _leave(code: int) -> None:
    """Exit with ``code``; without waiting for threads the command's plugins left running
    (not daemons, which Python would wait for, for ever), each named in a warning. Run
    inside another program (its output captured: a test runner, a notebook), the command
    only returns: the host decides when to end."""
    from ..children import describe_all, stray_threads

    _done_with_ctrl_c()
    strays = [thread for thread in stray_threads() if thread not in _THREADS_BEFORE]
    if not strays:
        sys.exit(code)
    names = describe_all(strays)
    print(f"warning: left without waiting for {len(strays)} thread"
          f"{'s' if len(strays) != 1 else ''} still running (started by a strategy?): "
          f"{names}", file=sys.stderr)
    if sys.stdout is not sys.__stdout__ or sys.stderr is not sys.__stderr__:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os._exit(code)


def _done_with_ctrl_c() -> None:
    """The command has ended: a Ctrl-C while the interpreter shuts down (freeing what the
    command loaded) has nothing left to stop, and Python would print it as an ignored
    exception with a traceback. Only for a process of its own (not inside a host that
    captures the output, whose Ctrl-C is its own)."""
    if threading.current_thread() is threading.main_thread() and \
            sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


#: Flags a user asks for an output format with, which no command here has.
_FORMAT_FLAGS = ("--format", "--output-format", "--csv")


def _options(command: Any) -> set[str]:
    return {name for param in command.params for name in getattr(param, "opts", ())}


def _format_hint(context: Any) -> str:
    """What a command asked for ``--format`` prints instead: JSON with ``--json`` where it
    has that, else text (and Parquet files), with the commands that print JSON."""
    if "--json" in _options(context.command):
        return f"{context.command_path} prints JSON with --json"
    group = context.find_root().command
    with_json = [name for name in group.list_commands(context)
                 if "--json" in _options(group.get_command(context, name))]
    return (f"{context.command_path} prints text and writes Parquet (pandas.read_parquet "
            f"reads it); --json is on {', '.join(with_json)}")


def _one_line(exc: typer.TyperException) -> int:
    """Print a usage error of click's (typer raises them as ``TyperException``) as one
    line naming the command; returns the exit status (2 for a usage error)."""
    context = getattr(exc, "ctx", None)
    where = f"{context.command_path}: " if context is not None else ""
    message = " ".join(exc.format_message().split()).rstrip(".")
    given = _given_value(exc)
    if given is not None:
        message += f" (got {given!r})"
    usage = exc.exit_code == USAGE_ERROR
    hint = (f" (`{context.command_path} --help` lists the options)"
            if usage and context is not None else "")
    if usage and context is not None and getattr(exc, "option_name", None) in _FORMAT_FLAGS:
        hint = f" ({_format_hint(context)})"
    print(f"error: {where}{message}{hint}", file=sys.stderr)
    return exc.exit_code


def _unexpected(exc: BaseException) -> int:
    """An error no command turned into its own line (a bug, or a library's error on input
    nothing checked): one line naming it, the traceback only with --debug or
    BACCARAT_DEBUG=1; exit status 1."""
    from ..errors import debug_requested, full_traceback

    if debug_requested() or "--debug" in sys.argv[1:]:
        print(full_traceback(exc), file=sys.stderr)
        hint = ""
    else:
        hint = " (--debug or BACCARAT_DEBUG=1 prints the full traceback)"
    message = " ".join(str(exc).split()) or "no message"
    print(f"error: unexpected {type(exc).__name__}: {message}{hint}", file=sys.stderr)
    return 1


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


# The commands, in the order ``baccarat --help`` lists them (each module registers its own).
from . import (  # noqa: E402
    analyze,
    backtest,
    check_strategy,
    generate,
    importing,
    live,
    new_strategy,
    odds,
    report,
    risk,
    roads,
    search,
    trace,
    warm,
)

for _info in app.registered_commands:  # typer's public description of each command
    if _info.cls in (None, TyperCommand):  # typer's default, unless a command chose its own
        _info.cls = ReadableHelp
    _info.help = _info.help or reflow(inspect.getdoc(_info.callback) or "")

__all__ = ["analyze", "app", "backtest", "check_strategy", "generate", "importing", "live",
           "new_strategy", "odds", "report", "risk", "roads", "search", "trace", "warm"]
