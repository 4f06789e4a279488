"""The full-screen scorecard (Textual): the sections of ``baccarat.live.screen`` in widgets.

Keys, while the entry line is empty: ``b`` ``p`` ``t`` record a coup at once (with the
pair flags ``[`` Player pair and ``]`` Banker pair set before it), ``u`` undoes, ``n``
starts a new shoe, ``x`` starts a burn line (``burn `` then the card), ``?`` shows help.
Anything else is typed into the entry line and carried out with Enter: the cards of a
coup as dealt (``9s 3h kd 5c``), or any line ``--plain`` takes. Ctrl+Q leaves; everything
entered is in the file already.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from ..errors import DiskFullError
from .scorecard import Scorecard
from .screen import (
    KEYS,
    cards_section,
    derived_section,
    header,
    message_line,
    roads_section,
    systems_section,
)
from .session import LiveSession, Shoe
from .systems import SystemStatus

#: Keys that act at once while the entry line is empty, and the line each stands for.
KEY_LINES = {"b": "b", "p": "p", "t": "t", "u": "undo", "n": "new"}


def _joined(lines: list[Text]) -> Text:
    return Text("\n").join(lines)


class EntryLine(Input):
    """The entry line: one-key commands while it is empty, a typed line otherwise."""

    def __init__(self, scorecard_app: LiveApp, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._live = scorecard_app

    async def _on_key(self, event: events.Key) -> None:
        character = event.character
        if not self.value and character is not None:
            if character in KEY_LINES:
                event.stop()
                event.prevent_default()
                self._live.enter(KEY_LINES[character])
                return
            if character in "[]":
                event.stop()
                event.prevent_default()
                self._live.toggle_pair(0 if character == "[" else 1)
                return
            if character == "x":
                event.stop()
                event.prevent_default()
                self.value = "burn "
                self.cursor_position = len(self.value)
                return
            if character == "?":
                event.stop()
                event.prevent_default()
                self._live.enter("?")
                return
        await super()._on_key(event)


class LiveApp(App[None]):
    """``baccarat live``: the scorecard in the terminal, 80x24 and larger."""

    TITLE = "baccarat live"
    CSS = """
    Screen { layout: vertical; overflow: hidden; }
    #header { height: 1; }
    #roads { height: 7; }
    #derived { height: 7; }
    #cards { height: auto; }
    #systems-box { height: 1fr; min-height: 1; }
    #systems { height: auto; }
    #message { height: auto; max-height: 2; }
    #entry { height: 1; border: none; padding: 0 0; }
    #keys { height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[Any]] = [("ctrl+q", "quit", "Quit"),
                                     ("ctrl+z", "undo", "Undo"),
                                     Binding("ctrl+c", "interrupt", "Interrupt",
                                             priority=True)]
    #: The app's return code after Ctrl-C: the command then exits as interrupted (130).
    INTERRUPTED = 130

    def __init__(self, scorecard: Scorecard, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scorecard = scorecard
        self.failure: DiskFullError | None = None  # what ended the app, for the command
        self._working = False  # a thread is working out the systems' stakes

    def action_interrupt(self) -> None:
        """Ctrl-C (the terminal, in the app's raw mode, sends it as a key): end the app
        as interrupted, for the command to exit 130 as a plain-mode Ctrl-C does."""
        self.exit(return_code=self.INTERRUPTED)

    def compose(self) -> ComposeResult:
        for name in ("header", "roads", "derived", "cards"):
            yield Static(id=name)
        box = VerticalScroll(id="systems-box")  # many systems scroll, the rest stays put
        box.can_focus = False  # Tab must never take the keys away from the entry line
        with box:
            yield Static(id="systems")
        yield Static(id="message")
        yield EntryLine(self, id="entry", placeholder="b p t, or cards as dealt: 9s 3h kd 5c")
        yield Static(KEYS, id="keys")

    def on_mount(self) -> None:
        self.query_one("#entry", EntryLine).focus()
        self.redraw()
        self.run_worker(LiveSession.warm, thread=True, group="warm")

    def on_resize(self, event: events.Resize) -> None:
        self.redraw()

    def enter(self, line: str) -> None:
        """Carry out a line (typed, or stood for by a key) and redraw; the systems'
        next stakes are worked out on a thread and drawn when they are ready."""
        try:
            going_on = self.scorecard.handle(line, systems=False)
        except DiskFullError as exc:  # one line from the command, not a traceback here
            self.failure = exc
            self.exit(return_code=2)
            return
        if not going_on:
            self.exit()
            return
        self.redraw()
        self._want_stakes()

    def _want_stakes(self) -> None:
        """Work out the stakes for the shoes as they are, one thread at a time: entries
        made meanwhile are taken by the next round, when this one ends."""
        if self._working or self.scorecard.stakes_current:
            return
        self._working = True
        version, shoes = self.scorecard.snapshot()
        self.run_worker(lambda: self._stakes(version, shoes), thread=True, group="systems")

    def _stakes(self, version: int, shoes: list[Shoe]) -> None:
        stakes = self.scorecard.stakes_of(shoes)
        self.call_from_thread(self._show_stakes, version, stakes)

    def _show_stakes(self, version: int, stakes: list[SystemStatus | str]) -> None:
        self._working = False
        self.scorecard.set_stakes(version, stakes)
        self.redraw()
        self._want_stakes()

    def toggle_pair(self, which: int) -> None:
        """Flip a pair flag of the next coup entered by key."""
        self.scorecard.toggle_pair(which)
        self.redraw()

    def action_undo(self) -> None:
        """Ctrl+Z: undo the last entry."""
        self.enter("undo")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value
        event.input.value = ""
        self.enter(line)

    def redraw(self) -> None:
        """Draw every section for the current width."""
        width = max(20, self.size.width)
        view = self.scorecard.view()
        sections = {
            "header": header(view, width), "roads": roads_section(view, width),
            "derived": derived_section(view, width), "cards": cards_section(view, width),
            "systems": systems_section(view, width), "message": [message_line(view, width)],
        }
        for name, lines in sections.items():
            self.query_one(f"#{name}", Static).update(_joined(lines))


__all__ = ["EntryLine", "LiveApp"]
