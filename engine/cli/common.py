"""What every command shares: the rules flags, the console, progress bars, error exits."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import BaccaratError, DiskFullError, debug_requested, full_traceback

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

    from ..rules import TableRules

console = Console()
err_console = Console(stderr=True)


def print_labelled(label: str, text: str, style: str) -> None:
    """One line on stderr: ``label:`` in ``style``, then ``text`` as it is. Messages quote
    users' files and lines, whose brackets (a log's ``[table-3]``) are not rich markup."""
    err_console.print(f"[{style}]{label}:[/] {escape(text)}", highlight=False, soft_wrap=True)

def note_import(line: str) -> None:
    """Say that a dataset that is not a coups Parquet dataset is being imported in memory."""
    print_labelled("note", line, "yellow")


def seed_in_range(value: int | None) -> int | None:
    """A seed the generators take: a whole number from 0 to 2**63 - 1 (checked here, not
    as a range, which ``--help`` would print as a 40-column type)."""
    if value is not None and not 0 <= value < 2**63:
        raise typer.BadParameter(f"{value}: expected 0 to {2**63 - 1}")
    return value


Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar (the results "
                                     "are still printed)")]
NoTable = Annotated[bool, typer.Option("--no-table", help="do not print the results table "
                                       "(the closing line still says what was written)")]
Force = Annotated[bool, typer.Option("--force", help="overwrite an existing output")]
Debug = Annotated[bool, typer.Option(
    "--debug", help="on an error, print the full traceback (a strategy's included) instead "
    "of one line; BACCARAT_DEBUG=1 does the same for every command")]
Workers = Annotated[int | None, typer.Option(
    "--workers", min=1, help="worker processes running chunks (default: all cores, or "
    "this process alone for fewer than 10,000 shoes)")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", help="run the chunks on the Dask cluster at this address "
    "(tcp://host:8786); needs the dask extra and a folder every worker can write")]
#: The defaults of the two Dask timeouts (``baccarat.parallel.CONNECT_TIMEOUT`` and
#: ``NO_WORKERS_TIMEOUT``; not imported, to keep the command line quick to start).
CONNECT_TIMEOUT = 5.0
NO_WORKERS_TIMEOUT = 60.0
SchedulerTimeout = Annotated[float, typer.Option(
    "--scheduler-timeout", min=0.1, help="seconds to wait for the --scheduler to answer")]
NoWorkersTimeout = Annotated[float, typer.Option(
    "--no-workers-timeout", min=0.1, help="seconds a --scheduler cluster may have no "
    "workers before the run stops (resumable)")]
Resume = Annotated[bool, typer.Option(
    "--resume", help="finish an interrupted run into the same --out: only missing chunks "
    "are run, and the files are those an uninterrupted run writes")]


def build_rules(rules_file: Path | None = None, **flags: Any) -> TableRules:
    """Rules from an optional file, with the flags given on the command line on top."""
    from ..rules import load_rules, rules_from_mapping

    overrides = {key: value for key, value in flags.items() if value is not None}
    if rules_file is not None:
        return load_rules(rules_file, overrides)
    return rules_from_mapping(overrides, source="command-line flags")


F = TypeVar("F", bound=Callable[..., Any])

#: The flag of each Python parameter whose flag is not ``--`` and its name with dashes.
FLAGS = {"chunk_shoes": "--chunk", "strategies": "--strategy", "dataset": "--coups"}


def in_flags(error: BaseException | None) -> str:
    """The message of ``error`` with each parameter it names (``error.params``) written
    as the command line's flag: ``force=True`` as ``--force``, ``stop_loss=-100`` as
    ``--stop-loss -100``, ``bankroll`` as ``--bankroll``."""
    import re

    message = "" if error is None else str(error)
    for name in getattr(error, "params", ()):
        flag = FLAGS.get(name, "--" + name.replace("_", "-"))
        if name.startswith("shoe_"):  # a per-shoe stop: the session's flag, per shoe
            flag = f"--{name[5:].replace('_', '-')} (with --stops-per shoe)"
        # a name inside a path or another word ("runs/out/x", "out_dir") is left alone
        alone = rf"(?<![\w./\\-]){name}"
        valued = re.sub(rf"{alone}=(?!True\b)", flag + " ", message)
        message = re.sub(rf"{alone}(=True)?(?![\w/\\-]|\.\w)", flag, valued)
    return message


def reports_errors(func: F) -> F:
    """Turn bad-input errors and a full disk into one red line on stderr and exit code 2,
    and an interruption (Ctrl-C, SIGTERM) into one line saying what was kept, exit 130.

    With ``--debug`` (a ``debug`` parameter of the command) or ``BACCARAT_DEBUG=1`` the
    full traceback is printed first: for a strategy's error, the strategy's own.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _stop_on_sigterm()
        try:
            return func(*args, **kwargs)
        except (BaccaratError, FileNotFoundError, DiskFullError) as exc:
            debug = kwargs.get("debug") or debug_requested()
            if debug:
                err_console.print(full_traceback(exc), highlight=False, soft_wrap=True,
                                  markup=False)
            hint = ("" if debug or not getattr(exc, "detail", None) else
                    " (--debug or BACCARAT_DEBUG=1 prints the full traceback)")
            print_labelled("error", f"{in_flags(exc)}{hint}", "bold red")
            raise typer.Exit(code=2) from None
        except OSError as exc:  # the file system refused a file nothing else checked
            from ..io.owner import system_refusal

            refusal = system_refusal(exc)
            if refusal is None:
                raise
            print_labelled("error", str(refusal), "bold red")
            raise typer.Exit(code=2) from None
        except KeyboardInterrupt as exc:
            message = str(exc) if str(exc) and str(exc) != "SIGTERM" else "interrupted"
            err_console.print(escape(message), style="bold yellow", highlight=False,
                              soft_wrap=True)
            raise typer.Exit(code=130) from None

    return wrapper  # type: ignore[return-value]


def _stop_on_sigterm() -> None:
    """Make SIGTERM stop the command as Ctrl-C does (``KeyboardInterrupt``), so a run ended
    by ``kill`` stops its workers and says what it kept (from the main thread only)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _sigterm)


def _sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt("SIGTERM")


def local_workers(workers: int | None, scheduler: str | None) -> int | None:
    """``--workers`` capped at this machine's cores (with a note) unless a Dask
    ``--scheduler`` runs the chunks."""
    if workers is None or scheduler:
        return workers
    from ..parallel import cap_workers

    capped, note = cap_workers(workers)
    if note:
        print_labelled("note", note, "yellow")
    return capped


# -- output that fits the terminal it is given, every value whole ------------------------------

#: A label column wider than this share of the width makes a blocked table a vertical one:
#: blocks would hold a column or two each (35 blocks of one metric for long labels).
WIDE_LABEL_SHARE = 0.45


def fits(table: Table, width: int, out: Console | None = None) -> bool:
    """Whether ``table`` printed ``width`` columns wide shows every value whole: each
    no-wrap cell on one line, every word of the other cells and of the headers unbroken."""
    from rich.console import Console as Sizer
    from rich.measure import Measurement

    sizer = Sizer(width=width, color_system=None, legacy_windows=False,
                  file=open(os.devnull, "w"))  # noqa: SIM115 - closed below
    try:
        lines = ["".join(seg.text for seg in line)
                 for line in sizer.render_lines(table, sizer.options, pad=False)]
        wide = sizer.options.update(width=10_000, max_width=10_000)
        least = Measurement.get(sizer, wide, table).minimum
    finally:
        sizer.file.close()
    if least > width or any(len(line.rstrip()) > width for line in lines):
        return False
    words = {word for line in lines for word in line.split()}
    text = "\n".join(lines)
    for column in table.columns:
        if any(word not in words for word in str(column.header).split()):
            return False
        for cell in column.cells:
            plain = _cell_text(cell)
            if column.no_wrap and plain.strip() and plain.strip() not in text:
                return False
            if any(word not in text for word in plain.split()):
                return False
    return True


def _cell_text(cell: Any) -> str:
    from rich.text import Text

    if isinstance(cell, Text):
        return cell.plain
    return Text.from_markup(cell).plain if isinstance(cell, str) else str(cell)


def vertical(table: Table, keys: int = 1, out: Console | None = None) -> RenderableType:
    """``table``'s cells laid out one row after another: each row headed by its first
    ``keys`` cells, then a line per other column (its header, then the value), for a
    table too wide for the terminal. Values keep their column's wrapping: a number is
    never broken, a text wraps at its spaces."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.table import Table as Grid
    from rich.text import Text

    columns = list(table.columns)
    rows = list(zip(*(list(column.cells) for column in columns), strict=True))
    parts: list[RenderableType] = []
    for row in rows:
        heading = " · ".join(str(cell) for cell in row[:keys] if str(cell))
        parts.append(Text(heading, style="bold", overflow="fold"))
        grid = Grid.grid(padding=(0, 2))
        grid.add_column(overflow="fold", max_width=max(16, (out or console).width * 2 // 5))
        grid.add_column(justify="left", overflow="fold")
        for column, cell in zip(columns[keys:], row[keys:], strict=True):
            if str(cell).strip():
                grid.add_row(Text(_plain(column.header)), cell)
        parts.append(Padding(grid, (0, 0, 0, 2)))
    return Group(*parts)


def stacked(table: Table, keys: int = 1, out: Console | None = None) -> RenderableType:
    """``table`` with its first ``keys`` cells of each row on a line of their own above the
    row's other cells (labels stacked over their values), for a table that fits only
    without its label column. Every other cell must be a one-line value."""
    from rich.console import Group
    from rich.table import Table as Bare
    from rich.text import Text

    out = out or console
    columns = list(table.columns)
    rows = list(zip(*(list(column.cells) for column in columns), strict=True))
    rest = Bare(box=None, show_edge=False, pad_edge=False, header_style="bold")
    for column in columns[keys:]:
        rest.add_column(column.header, justify=column.justify, no_wrap=True,
                        overflow="fold")
    for row in rows:
        rest.add_row(*row[keys:])
    lines = out.render_lines(rest, out.options.update(width=out.width), pad=False)
    header = len(lines) - len(rows)
    def text(line: list[Any]) -> Text:
        return Text.assemble(*((seg.text, seg.style) for seg in line))

    parts: list[RenderableType] = [text(line) for line in lines[:header]]
    for row, line in zip(rows, lines[header:], strict=True):
        parts.append(Text(" · ".join(_cell_text(c) for c in row[:keys] if _cell_text(c)),
                          style="bold", overflow="fold"))
        parts.append(text(line))
    return Group(*parts)


def _plain(header: Any) -> str:
    return " ".join(str(header).split())


def print_table(table: Table, keys: int = 1, out: Console | None = None,
                stack: bool = False) -> None:
    """Print ``table`` so that it fits the console's width with no value cut: its title as
    a line of its own (wrapped at spaces), then the table; when it is too wide, with its
    labels stacked over their rows (``stack``, if that fits) or in :func:`vertical`'s
    layout. Sent to a file or a pipe, the width is ``COLUMNS`` or 80."""
    out = out or console
    title, table.title = table.title, None
    if title:
        out.print(title, highlight=False, overflow="fold")
    for column in table.columns:
        column.overflow = "fold"  # never an ellipsis: a long header or word folds
    if fits(table, out.width, out):
        out.print(table, highlight=False)
    elif stack and _fits_without(table, keys, out):
        out.print(stacked(table, keys, out), highlight=False)
    else:
        out.print(vertical(table, keys, out), highlight=False)


def _fits_without(table: Table, keys: int, out: Console) -> bool:
    from rich.table import Table as Bare

    rest = Bare(box=None, show_edge=False, pad_edge=False)
    for column in list(table.columns)[keys:]:
        rest.add_column(column.header, no_wrap=True)
    for row in zip(*(list(c.cells) for c in list(table.columns)[keys:]), strict=True):
        rest.add_row(*row)
    return fits(rest, out.width, out)


def done(message: str) -> None:
    """The closing line every command prints: what was written where. On a terminal it is
    wrapped between words to the width (the terminal itself would break a path anywhere);
    to a file or a pipe it is one line, its paths whole, for a script to read."""
    if console.is_terminal:
        console.print(message, highlight=False, overflow="fold")  # a long path: folded
    else:
        console.print(message, highlight=False, soft_wrap=True)
