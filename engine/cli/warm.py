"""``baccarat warm``: fill numba's cache now, so no command's first run compiles."""

from __future__ import annotations

import contextlib
from typing import Annotated

import typer

from ..progress import Bar, progress_bars
from . import app
from .common import console, done, err_console, reports_errors


@app.command()
@reports_errors
def warm(
    processes: Annotated[int | None, typer.Option(
        min=1, help="processes compiling at once (default: the cores)")] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="name every tiny run and what numba did in it")] = False,
) -> None:
    """Compile the engine's kernels into numba's cache now (a step of the install).

    Runs a tiny version of each command, as many at once as there are cores; every
    kernel they call is compiled, or loaded if numba's cache holds it already.
    Otherwise the first run of a fresh install compiles the kernels it needs as it
    goes: the first `baccarat demo` takes seconds longer than the next.
    """
    from ..warm import warm as warm_kernels

    with contextlib.ExitStack() as stack:
        shown: list[Bar] = []

        def ran(n: int, total: int) -> None:
            if not shown:
                shown.append(stack.enter_context(progress_bars()).add("warm", "tiny runs"))
            shown[0].update(done=n, total=total)

        report = warm_kernels(processes, progress=ran)
    if verbose:
        for line in report.runs:
            console.print(f"  {line}", highlight=False)
    done(f"{report.exercises} tiny runs, {report.processes} at a time, in "
         f"{report.seconds:.1f} s: {report.compiled} kernels compiled, {report.loaded} "
         f"loaded from numba's cache")
    for line in report.failed:  # a bug of the engine, not of the user's input
        err_console.print(f"error: {line}", highlight=False, soft_wrap=True)
    if report.failed:
        raise typer.Exit(1)
