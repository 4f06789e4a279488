"""Progress of a long call from Python: a bar in a terminal and in a Jupyter notebook.

rich draws the same bar in both (in a notebook as a live output cell). It moves as the
run reports its sessions done, so a call that prints nothing for a minute shows it works.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return bool(get and get() is not None and "IPKernelApp" in getattr(get(), "config", {}))


@contextmanager
def session_progress(description: str
                     ) -> Iterator[tuple[Callable[[int], None], Callable[[int, int], None]]]:
    """``(on_start(shoes), advance(coups, sessions))`` moving a progress bar of sessions:
    in a notebook, or on a terminal's stderr; nothing when neither is there."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    notebook = in_notebook()
    console = Console(stderr=not notebook, force_jupyter=notebook or None)
    shown = notebook or sys.stderr.isatty()
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("sessions"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=console, disable=not shown) as progress:
        task = progress.add_task(description, total=None)

        def on_start(shoes: int) -> None:
            progress.update(task, total=shoes)

        def advance(coups: int, sessions: int) -> None:
            progress.update(task, advance=sessions)

        yield on_start, advance
