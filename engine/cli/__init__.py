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

The commands are defined lazily: :data:`COMMANDS` names the module holding each one, and
the group imports a command's module only when that command runs or its help is asked
for (``baccarat --help``, which lists them all, imports every one). A new command goes
into :data:`COMMANDS`; ``tests/test_startup.py`` checks the table against the commands
the modules define, and checks that no command's help imports anything heavy.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import threading
import types
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_command_name

try:  # typer 0.2x carries its own copy of click; older typer uses click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the typer release
    from click import exceptions as click_errors  # type: ignore[no-redef]

from .. import __version__

#: Every command, in the order ``baccarat --help`` lists them, and its module in this package.
COMMANDS = {
    "analyze": "analyze", "backtest": "backtest", "strategies": "backtest",
    "check-strategy": "check_strategy", "generate": "generate", "import": "importing",
    "live": "live", "new-strategy": "new_strategy", "odds": "odds", "compare": "report",
    "report": "report", "demo": "report", "risk": "risk", "roads": "roads",
    "search": "search", "trace": "trace",
    "warm": "warm",
}


class QuickHelp(TyperCommand):
    """A command whose ``--help`` flag defaults to False rather than None.

    typer checks a flag's value with a pydantic adapter unless the value is already a
    bool, so a help flag left unset (None) costs importing pydantic (a fifth of a second)
    to confirm that nothing was asked; False needs no check and means the same.
    """

    def get_help_option(self, ctx: Any) -> Any:
        return _unset_is_false(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _load_help_renderer()
        super().format_help(ctx, formatter)


def _unset_is_false(option: Any) -> Any:
    if option is not None and option.default is None:
        option.default = False
    if option is not None:
        _no_flag_value(option)
    return option


class LazyCommands(MutableMapping[str, Any]):
    """The group's commands by name: a command's module is imported, and the command built
    from what it registered on :data:`app`, the first time the command is looked up."""

    def __init__(self, built: MutableMapping[str, Any]) -> None:
        self._built = dict(built)

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = _build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (name for name in self._built if name not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(name not in COMMANDS for name in self._built)

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built

    @property
    def built(self) -> Mapping[str, Any]:
        """The commands built so far."""
        return self._built


def _info(name: str) -> Any:
    """What the module :data:`COMMANDS` names for command ``name`` registered on :data:`app`."""
    importlib.import_module(f"{__name__}.{COMMANDS[name]}")
    for info in app.registered_commands:
        if (info.name or get_command_name(info.callback.__name__)) == name:  # type: ignore[union-attr]
            return info
    raise LookupError(f"baccarat.cli.{COMMANDS[name]} defines no command {name!r}")


def _build(name: str) -> Any:
    """The click command ``name``, from the module :data:`COMMANDS` names for it."""
    info = _info(name)
    if info.cls in (None, TyperCommand):  # typer's default, unless a command chose its own
        info.cls = QuickHelp
    if info.help is None:
        info.help = reflow(inspect.getdoc(info.callback) or "")
    command = get_command_from_info(info, pretty_exceptions_short=app.pretty_exceptions_short,
                                    rich_markup_mode=app.rich_markup_mode)
    for param in command.params:
        _no_flag_value(param)
    return command


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


def _no_flag_value(param: Any) -> Any:
    """A flag takes no value: its help shows none (typer printed ``<bool>`` beside it)."""
    if getattr(param, "is_flag", False) and not getattr(param, "count", False):
        param.metavar = ""
    return param


def _listed(name: str) -> Any:
    """Command ``name`` as the group's help lists it: its name and help text, no options.

    Reading a command's options from its signature is most of what building it costs, and
    the list shows only the first line of each command's help.
    """
    info = _info(name)
    helptext = reflow(inspect.cleandoc(info.help) if info.help is not None
                      else inspect.getdoc(info.callback) or "")
    return TyperCommand(name, help=helptext, short_help=info.short_help, hidden=info.hidden,
                        deprecated=info.deprecated, rich_markup_mode=app.rich_markup_mode,
                        rich_help_panel=info.rich_help_panel)


class ListedCommands(Mapping[str, Any]):
    """The group's commands as its help lists them: the ones built already as they are,
    the others as :func:`_listed` describes them, without building them."""

    def __init__(self, commands: LazyCommands) -> None:
        self._commands = commands

    def __getitem__(self, name: str) -> Any:
        if name in self._commands.built:
            return self._commands[name]
        if name not in COMMANDS:
            raise KeyError(name)
        return _listed(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def __len__(self) -> int:
        return len(self._commands)


def _load_help_renderer() -> None:
    """Import typer's rich help renderer without the two rich modules it cannot use here.

    ``typer.rich_utils`` imports ``rich.markdown`` (with markdown-it and pygments) and
    ``rich.traceback`` when it loads, for Markdown help texts and pretty tracebacks, both
    off in this CLI (markup mode "rich", pretty exceptions disabled): they are most of the
    time it takes to load, a third of a help's whole time. While it loads, their two names
    are stand-ins that import the real class if ever used; the real modules stay importable.
    """
    if "typer.rich_utils" in sys.modules:
        return
    unused = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))
    stand_ins = {module: _stand_in_module(module, attr) for module, attr in unused
                 if module not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("typer.rich_utils")
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]


class _Forwarding(type):
    """The metaclass of a stand-in: any attribute of the class comes from the real one."""

    def __getattr__(cls, attr: str) -> Any:
        return getattr(cls.real(), attr)  # type: ignore[attr-defined]


def _stand_in_module(module: str, attr: str) -> types.ModuleType:
    """A module named ``module`` whose ``attr`` imports the real ``module.attr`` when used."""

    def real() -> Any:
        return getattr(importlib.import_module(module), attr)

    def construct(cls: type, *args: Any, **kwargs: Any) -> Any:
        return real()(*args, **kwargs)

    stand_in = types.ModuleType(module)
    setattr(stand_in, attr, _Forwarding(attr, (), {"real": staticmethod(real),
                                                   "__new__": construct}))
    return stand_in


class OneLineErrors(TyperGroup):
    """The command group, printing click's usage errors as one ``error:`` line, exit 2.

    Its commands are a :class:`LazyCommands`: only the command that runs is imported.
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        # Commands built before the group was (their modules imported first) are built
        # again on demand, as :class:`QuickHelp` commands like the others.
        self.commands = LazyCommands({name: command for name, command in self.commands.items()
                                      if name not in COMMANDS})
        for param in self.params:
            _no_flag_value(param)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_help_option(self, ctx: Any) -> Any:
        return _unset_is_false(super().get_help_option(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _load_help_renderer()
        commands, self.commands = self.commands, ListedCommands(self.commands)  # type: ignore[assignment,arg-type]
        try:
            super().format_help(ctx, formatter)
        finally:
            self.commands = commands

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        global _THREADS_BEFORE
        _THREADS_BEFORE = set(threading.enumerate())
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        except click_errors.NoArgsIsHelpError as exc:
            exc.show()  # no arguments: the help text, as asked for by no_args_is_help
            _leave(0)
        except click_errors.ClickException as exc:
            _leave(_one_line(exc))
        except typer.Abort as exc:
            if isinstance(exc.__context__, KeyboardInterrupt):  # click's word for Ctrl-C
                print("interrupted", file=sys.stderr)
                _leave(130)
            print("error: aborted", file=sys.stderr)
            _leave(1)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            _leave(130)
        except Exception as exc:  # noqa: BLE001 - the one error path: never a traceback
            _leave(_unexpected(exc))
        _leave(code if isinstance(code, int) else 0)


#: The threads running when the command started (a host's own: a test runner's, ...).
_THREADS_BEFORE: set[threading.Thread] = set()


def _leave(code: int) -> None:
    """Exit with ``code``; without waiting for threads the command's plugins left running
    (not daemons, which Python would wait for, for ever), each named in a warning. Run
    inside another program (its output captured: a test runner, a notebook), the command
    only returns: the host decides when to end."""
    from ..children import describe_all, stray_threads

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
    if isinstance(exc, click_errors.NoSuchOption) and context is not None and \
            exc.option_name in _FORMAT_FLAGS:
        hint = f" ({_format_hint(context)})"
    print(f"error: {where}{message}{hint}", file=sys.stderr)
    return 2 if isinstance(exc, click_errors.UsageError) else exc.exit_code


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

