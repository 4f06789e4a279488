"""Progress of a long call from Python: a bar in a Jupyter notebook, or on a terminal.

In a notebook the bar is an output of the cell, redrawn in place as the run reports its
sessions (``NotebookBar``: a display that is updated, so it needs no widget library and
shows in Jupyter, JupyterLab, VS Code and a notebook run by nbclient alike); on a
terminal, rich's bar on stderr. A call that prints nothing for a minute shows it works.
"""

from __future__ import annotations

import html
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return bool(get and get() is not None and "IPKernelApp" in getattr(get(), "config", {}))


class NotebookBar:
    """A progress bar as a notebook output, updated in place: ``start(total)``,
    ``advance(n)``, ``close()``. It is redrawn at most every ``EVERY`` seconds (and once
    more at the end, showing the time taken)."""

    EVERY = 0.2

    def __init__(self, description: str, unit: str) -> None:
        from IPython.display import display

        self.description, self.unit = description, unit
        self.done, self.total = 0, 0
        self.started = time.perf_counter()
        self.drawn = 0.0
        self.handle: Any = display(_Shown(self.text(), self.html()), display_id=True)

    def start(self, total: int) -> None:
        self.total = total
        self.draw(force=True)

    def advance(self, n: int) -> None:
        self.done += n
        self.draw()

    def close(self) -> None:
        self.draw(force=True)

    def draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.drawn < self.EVERY:
            return
        self.drawn = now
        if self.handle is not None:
            self.handle.update(_Shown(self.text(), self.html()))

    def text(self) -> str:
        """'backtest: 1,200/3,000 sessions, 2.1 s'."""
        of = f"/{self.total:,}" if self.total else ""
        return (f"{self.description}: {self.done:,}{of} {self.unit}, "
                f"{time.perf_counter() - self.started:.1f} s")

    def html(self) -> str:
        value = f' value="{self.done}" max="{self.total}"' if self.total else ""
        return (f"<div><b>{html.escape(self.description)}</b> <progress{value} "
                f'style="width: 40%"></progress> {html.escape(self.text().split(": ", 1)[1])}'
                f"</div>")


class _Shown:
    """What a notebook shows of the bar: text, and HTML where the front end draws it."""

    def __init__(self, text: str, page: str) -> None:
        self.text, self.page = text, page

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.page


@contextmanager
def session_progress(description: str, session_shoes: int = 1
                     ) -> Iterator[tuple[Callable[[int], None], Callable[[int, int], None]]]:
    """``(on_start(shoes), advance(coups, sessions))`` moving a progress bar of sessions
    (of ``session_shoes`` shoes each): in a notebook, or on a terminal's stderr; nothing
    when neither is there."""

    def sessions_of(shoes: int) -> int:
        return -(-shoes // max(session_shoes, 1))

    if in_notebook():
        bar = NotebookBar(description, "sessions")
        try:
            yield (lambda shoes: bar.start(sessions_of(shoes)),
                   lambda coups, sessions: bar.advance(sessions))
        finally:
            bar.close()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("sessions"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=console, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task(description, total=None)

        def on_start(shoes: int) -> None:
            progress.update(task, total=sessions_of(shoes))

        def advance(coups: int, sessions: int) -> None:
            progress.update(task, advance=sessions)

        yield on_start, advance
