"""Progress of a long job, the one place it is drawn: a terminal, a notebook, or nothing.

``progress_bars()`` opens a display and ``Bars.add(...)`` puts a bar in it; every command
and every Python call with ``progress=True`` moves its bars through :class:`Bar` alone. On
a terminal the bars are rich's, on stderr (none when stderr is not a terminal or the user
asked for quiet); in a notebook each bar is an output of the cell, redrawn in place
(``NotebookBar``: a display that is updated, so it needs no widget library and shows in
Jupyter, JupyterLab, VS Code and a notebook run by nbclient alike). The workers' counts
reach the bars through the run's ``progress(coups, sessions)`` callback (see
``baccarat.parallel.task_progress``). A job that prints nothing for a minute shows it works.
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
    ``move(...)`` (what :class:`Bar` asks), ``close()``. It is redrawn at most every
    ``EVERY`` seconds (and once more at the end, showing the time taken)."""

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

    def close(self) -> None:
        self.draw(force=True)

    def move(self, advance: int, done: int | None, total: int | None, note: str | None,
             description: str | None, visible: bool | None) -> None:
        """What :class:`Bar` asks of it (a note or visibility is the terminal's only)."""
        self.description = description or self.description
        self.total = total if total is not None else self.total
        self.done = done if done is not None else self.done + advance
        self.draw(force=total is not None or description is not None)

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


class Bar:
    """One bar of a display: ``update(advance=n)``, or ``done``/``total`` set outright, a
    ``note`` shown beside the count (a unit or a rate), a new ``description``, or hidden."""

    def __init__(self, shown: Any, task: Any = None) -> None:
        self._shown, self._task = shown, task

    def update(self, *, advance: int = 0, done: int | None = None, total: int | None = None,
               note: str | None = None, description: str | None = None,
               visible: bool | None = None) -> None:
        if isinstance(self._shown, NotebookBar):
            self._shown.move(advance, done, total, note, description, visible)
            return
        fields: dict[str, Any] = {"advance": advance or None, "completed": done,
                                  "total": total, "note": note, "description": description,
                                  "visible": visible}
        if self._task is not None:
            if done is not None:
                self._shown.start_task(self._task)
            self._shown.update(self._task, **{k: v for k, v in fields.items()
                                              if v is not None})


class Bars:
    """A display of progress bars (see :func:`progress_bars`)."""

    def __init__(self, terminal: Any) -> None:
        self._terminal = terminal  # rich's Progress, or None in a notebook
        self.notebook_bars: list[NotebookBar] = []

    def add(self, description: str, unit: str, total: int | None = None,
            started: bool = True) -> Bar:
        """A new bar counting ``unit`` up to ``total`` (None: not known yet); one not
        ``started`` shows no elapsed time until its first ``done``."""
        if self._terminal is None:
            bar = NotebookBar(description, unit)
            if total:
                bar.start(total)
            self.notebook_bars.append(bar)
            return Bar(bar)
        return Bar(self._terminal, self._terminal.add_task(
            description, total=total, note=unit, start=started))


@contextmanager
def progress_bars(shown: bool = True) -> Iterator[Bars]:
    """A display of bars: in a notebook, or on a terminal's stderr; when ``shown`` is false
    or stderr is not a terminal, bars that draw nothing."""
    if shown and in_notebook():
        bars = Bars(None)
        try:
            yield bars
        finally:
            for bar in bars.notebook_bars:
                bar.close()
        return
    from rich.console import Console
    from rich.progress import (  # only what runs shows a bar, not a command's help
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True),
                  disable=not (shown and sys.stderr.isatty())) as terminal:
        yield Bars(terminal)


@contextmanager
def session_progress(description: str, session_shoes: int = 1
                     ) -> Iterator[tuple[Callable[[int], None], Callable[[int, int], None]]]:
    """``(on_start(shoes), advance(coups, sessions))`` moving a bar of sessions (of
    ``session_shoes`` shoes each): a Python call's ``progress=True``."""

    def sessions_of(shoes: int) -> int:
        return -(-shoes // max(session_shoes, 1))

    with progress_bars() as bars:
        bar = bars.add(description, "sessions")
        yield (lambda shoes: bar.update(total=sessions_of(shoes)),
               lambda coups, sessions: bar.update(advance=sessions))
