"""What every command shares: the rules flags, the console, progress bars, error exits."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..errors import BaccaratError, debug_requested, full_traceback

if TYPE_CHECKING:
    from ..rules import TableRules

console = Console()
err_console = Console(stderr=True)

RulesFile = Annotated[
    Path | None, typer.Option("--rules", help="TOML or JSON file of table rules", exists=False)
]
Decks = Annotated[int | None, typer.Option(help="decks in the shoe (1-8)")]
Commission = Annotated[float | None, typer.Option(help="Banker commission (0.05 = 5%)")]
TiePays = Annotated[int | None, typer.Option("--tie-pays", help="Tie pays 8 or 9 to 1")]
VariantOpt = Annotated[str | None, typer.Option("--variant", help="standard, ez or super6")]
CutCard = Annotated[int | None, typer.Option("--cut-card", help="cards behind the cut card")]
Burn = Annotated[str | None, typer.Option(help="burn procedure: standard, none or fixed")]
TableMin = Annotated[float | None, typer.Option("--table-min", help="table minimum stake")]
TableMax = Annotated[float | None, typer.Option("--table-max", help="table maximum stake")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar (the results "
                                     "are still printed; see --no-table)")]
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


def reports_errors(func: F) -> F:
    """Turn bad-input errors into one red line on stderr and exit code 2.

    With ``--debug`` (a ``debug`` parameter of the command) or ``BACCARAT_DEBUG=1`` the
    full traceback is printed first: for a strategy's error, the strategy's own.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (BaccaratError, FileNotFoundError) as exc:
            debug = kwargs.get("debug") or debug_requested()
            if debug:
                err_console.print(full_traceback(exc), highlight=False, soft_wrap=True,
                                  markup=False)
            hint = ("" if debug or not getattr(exc, "detail", None) else
                    " (--debug or BACCARAT_DEBUG=1 prints the full traceback)")
            err_console.print(f"[bold red]error:[/] {exc}{hint}", highlight=False,
                              soft_wrap=True)
            raise typer.Exit(code=2) from None

    return wrapper  # type: ignore[return-value]


def show_progress(quiet: bool) -> bool:
    """Progress bars only on a terminal and when not asked to be quiet."""
    return not quiet and sys.stderr.isatty()


@contextmanager
def progress_bar(description: str, total: int, unit: str, quiet: bool) -> Iterator[Progress]:
    """A rich progress bar over ``total`` items with a rate and a time estimate."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        disable=not show_progress(quiet),
        transient=False,
    )
    with progress:
        progress.add_task(description, total=total, rate=f"0 {unit}/s")
        yield progress


def done(message: str) -> None:
    """The one closing line every command prints: what was written where."""
    console.print(message, highlight=False, soft_wrap=True)
