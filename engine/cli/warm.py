"""``baccarat warm``: compile the engine's kernels now, so no command's first run waits."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Annotated

import typer

from . import app
from .common import console, done, err_console, progress_bar, reports_errors

if TYPE_CHECKING:
    from rich.progress import Progress


@app.command()
@reports_errors
def warm(
    processes: Annotated[int | None, typer.Option(
        min=1, help="processes compiling at once (default: the cores)")] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="name every kernel and what became of it")] = False,
) -> None:
    """Compile the engine's kernels into numba's cache now (a step of the install).

    Otherwise the first run of a fresh install compiles the kernels it needs as it
    goes: the first `baccarat demo` takes seconds longer than the next. Kernels
    already cached are loaded, not compiled again.
    """
    from ..warm import warm as warm_kernels

    with contextlib.ExitStack() as stack:
        bars: list[Progress] = []  # a bar once there is something to compile

        def compiled(n: int, total: int) -> None:
            if not total:
                return
            if not bars:
                bars.append(stack.enter_context(progress_bar("warm", total, "kernels", False)))
            bars[0].update(bars[0].task_ids[0], completed=n, rate="kernels in the cache")

        report = warm_kernels(processes, progress=compiled)
    if verbose:
        for title, names in (("compiled now", report.compiled), ("already cached", report.already),
                             ("compiled into their callers", report.inlined),
                             ("no command runs it: compiled on first use", report.first_use),
                             ("not compiled (compiled on first use)", report.missing)):
            for name in names:
                console.print(f"  {name}: {title}", highlight=False)
    if report.missing:
        console.print(f"not reached by the warm-up, compiled on first use: "
                      f"{', '.join(report.missing)}", highlight=False)
    left = f"; {len(report.first_use)} no command runs, left to first use" \
        if report.first_use else ""
    done(f"{len(report.compiled)} kernels compiled and {len(report.already)} already cached "
         f"(of {len(report.found)} found; {len(report.inlined)} compile into their callers"
         f"{left}) in {report.seconds:.1f} s, {report.processes} at a time")
    for line in report.failed:  # a bug of the engine, not of the user's input
        err_console.print(f"error: {line}", highlight=False, soft_wrap=True)
    if report.failed:
        raise typer.Exit(1)
