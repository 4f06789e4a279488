"""The scorecard's screen, section by section, as lines of rich ``Text`` for a given width.

The same functions draw the full-screen app (each section in its own widget) and the plain
screen of ``baccarat live --plain`` (the lines' plain text, the marks as letters so they
read without colour): one screen, two ways to show it. Each section fits the width it is
given; a road wider than its space shows its latest columns, as a table's scoreboard
scrolls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..coups import BANKER, OUTCOME_LABELS, PLAYER, TIE
from ..roads import BLUE, DERIVED_ROADS, RED, ROWS

if TYPE_CHECKING:
    from ..roads import AskMarks, BigRoadCell, Roads
    from .session import CardsLeft, Tallies
    from .systems import SystemStatus

_Cell = Any  # a cell of a road's grid: an outcome code, a BigRoadCell or a mark
SIDE_STYLE = {BANKER: "bold red", PLAYER: "bold blue", TIE: "bold green"}
MARK_STYLE = {RED: "red", BLUE: "blue"}
#: The traditional drawing of each derived road's marks (colour tells red from blue).
MARK_SYMBOL = {1: "○", 2: "●", 3: "╱"}
MARK_LETTER = {RED: "r", BLUE: "b"}
#: Each derived road's names, longest first: the longest that fits with its asks is shown.
ROAD_TITLES = {1: ("Big eye boy", "Big eye", "Eye"), 2: ("Small road", "Small"),
               3: ("Cockroach pig", "Cockroach", "Roach")}
EV_NAMES = {"banker": "B", "player": "P", "tie": "T", "player_pair": "PP",
            "banker_pair": "BP", "dragon7": "D7", "panda8": "P8", "super6": "S6"}
_CONSOLE = Console(width=200, color_system=None)  # only to wrap text to a width
KEYS = ("b p t coup  [ ] pairs  cards+Enter  u undo  n new shoe  x burn  ? help  ^q quit")


@dataclass
class View:
    """Everything one screen shows (worked out by the session, drawn here)."""

    shoe: int
    rules_label: str
    tallies: Tallies
    roads: Roads
    burn: str | None
    cards: CardsLeft | None
    cards_known: bool
    systems: Sequence[SystemStatus | str] = field(default_factory=list)
    systems_current: bool = True  # False while the stakes after the last entry are worked out
    message: str = ""
    error: bool = False
    pairs: tuple[bool, bool] = (False, False)  # pair flags set for the next coup
    path: str = ""


def header(view: View, width: int) -> list[Text]:
    """Shoe, coups and the tallies on one line (the file named when there is room)."""
    t = view.tallies
    line = Text.assemble((f"Shoe {view.shoe}", "bold"), f"  coup {t.coups}  ",
                         (f"B {t.banker}", SIDE_STYLE[BANKER]), " ",
                         (f"P {t.player}", SIDE_STYLE[PLAYER]), " ",
                         (f"T {t.tie}", SIDE_STYLE[TIE]),
                         f"  pairs P {t.player_pairs} B {t.banker_pairs}")
    if view.burn:
        line.append(f"  burn {view.burn}")
    for extra in (f"  {view.rules_label}", f"  {view.path}"):
        if extra.strip() and len(line) + len(extra) <= width:
            line.append(extra, style="dim")
    line.truncate(width)
    return [line]


def _window(width_cells: int, cell: int, room: int | None) -> int:
    """The first grid column shown so that the latest columns fit ``room`` characters
    (all of them when ``room`` is None)."""
    return 0 if room is None else max(0, width_cells - room // cell)


def _grid_lines(grid: list[list[_Cell]], room: int | None, cell: int,
                draw: Callable[[Text, _Cell], None]) -> list[Text]:
    """A road's grid as lines, ``cell`` characters a cell, its latest columns that fit."""
    first = _window(len(grid[0]) if grid and grid[0] else 0, cell, room)
    lines = []
    for row in grid:
        line = Text()
        for value in row[first:]:
            if value is None:
                line.append(" " * cell)
            else:
                draw(line, value)
        lines.append(line)
    return lines or [Text() for _ in range(ROWS)]


def bead_plate_lines(grid: list[list[int | None]], room: int | None = None) -> list[Text]:
    """The bead plate, a side letter per cell (2 characters a cell)."""
    def draw(line: Text, code: _Cell) -> None:
        line.append(OUTCOME_LABELS[code], style=SIDE_STYLE[code]).append(" ")

    return _grid_lines(grid, room, 2, draw)  # type: ignore[arg-type]


def big_road_lines(grid: list[list[BigRoadCell | None]], room: int | None = None) -> list[Text]:
    """The big road: a side letter per cell, the ties on it as a green digit after it."""
    def draw(line: Text, cell: _Cell) -> None:
        line.append(OUTCOME_LABELS[cell.side], style=SIDE_STYLE[cell.side])
        if cell.ties:
            line.append(str(cell.ties) if cell.ties < 10 else "+", style=SIDE_STYLE[TIE])
        else:
            line.append(" ")

    return _grid_lines(grid, room, 2, draw)  # type: ignore[arg-type]


def derived_lines(grid: list[list[int | None]], k: int, room: int | None = None,
                  plain: bool = False, cell: int = 1) -> list[Text]:
    """Derived road ``k``: its symbol in colour, or r/b in plain, ``cell`` characters a
    cell (1 on the live screen, 2 in ``baccarat roads``)."""
    def draw(line: Text, mark: _Cell) -> None:
        line.append(MARK_LETTER[mark] if plain else MARK_SYMBOL[k], style=MARK_STYLE[mark])
        line.append(" " * (cell - 1))

    return _grid_lines(grid, room, cell, draw)  # type: ignore[arg-type]


def side_by_side(blocks: list[list[Text]], widths: list[int], gap: int = 2) -> list[Text]:
    """Blocks of lines next to each other, each padded to its width."""
    height = max(len(block) for block in blocks)
    lines = []
    for r in range(height):
        line = Text()
        for i, (block, width) in enumerate(zip(blocks, widths, strict=True)):
            part = block[r].copy() if r < len(block) else Text()
            part.truncate(width)
            if i < len(blocks) - 1:
                part.pad_right(width - len(part) + gap)
            line.append_text(part)
        line.rstrip()
        lines.append(line)
    return lines


def roads_section(view: View, width: int) -> list[Text]:
    """The bead plate beside the big road, with their titles (7 lines)."""
    bead_room = min(24, max(8, width // 3 - 2))
    road_room = max(8, width - bead_room - 2)
    roads = view.roads
    titles = [Text("Bead plate", style="bold")]
    big = Text("Big road", style="bold")
    if roads.big_road.leading_ties:
        big.append(f"  ties before the first decision: {roads.big_road.leading_ties}",
                   style="dim")
    titles.append(big)
    top = side_by_side([[titles[0]], [titles[1]]], [bead_room, road_room])
    body = side_by_side([bead_plate_lines(roads.bead_plate, bead_room),
                         big_road_lines(roads.big_road.grid, road_room)],
                        [bead_room, road_room])
    return top + body


def ask_text(ask: AskMarks, k: int, plain: bool) -> Text:
    """``B o P o`` (the ask marks of road ``k`` in their colours; words in plain)."""
    text = Text()
    for label, side in (("B", BANKER), ("P", PLAYER)):
        mark = ask.of(side)[k]
        text.append(f" {label}", style=SIDE_STYLE[side])
        if mark == 0:
            text.append(" -", style="dim")
        elif plain:
            text.append(" red" if mark == RED else " blue", style=MARK_STYLE[mark])
        else:
            text.append(f" {MARK_SYMBOL[k]}", style=MARK_STYLE[mark])
    return text


def derived_section(view: View, width: int, plain: bool = False) -> list[Text]:
    """The three derived roads side by side, each titled with its ask marks (7 lines)."""
    room = max(6, (width - 4) // 3)
    titles, blocks = [], []
    for k in DERIVED_ROADS:
        asks = ask_text(view.roads.ask, k, plain)
        name = next((n for n in ROAD_TITLES[k] if len(n) + len(asks) <= room),
                    ROAD_TITLES[k][-1])
        title = Text(name, style="bold")
        title.append_text(asks)
        titles.append([title])
        blocks.append(derived_lines(view.roads.derived_grid(k), k, room, plain))
    widths = [room] * 3
    return side_by_side(titles, widths) + side_by_side(blocks, widths)


def money(value: float, signed: bool = False) -> str:
    """An amount with cents, the cents left out when there are none (``1,012.50``, ``980``)."""
    text = f"{value:+,.2f}" if signed else f"{value:,.2f}"
    return text[:-3] if text.endswith(".00") else text


def percent(ev: float, decimals: int = 3) -> str:
    """An EV as a signed percentage, three decimals by default (``-1.058%``, ``+0.214%``)."""
    return f"{ev * 100:+.{decimals}f}%"


def cards_section(view: View, width: int) -> list[Text]:
    """The cards left by value and the exact EV of every bet from them (2 lines)."""
    cards = view.cards
    if cards is None:
        why = "Cards left and EV: unknown (a coup of this shoe was entered without its cards)"
        line = Text(why, style="dim")
        line.truncate(width)
        return [line, Text()]
    left = Text("Left ", style="bold")
    for digit, count in enumerate(cards.by_value):
        left.append(f"{'0A23456789'[digit]}:{count} ")
    left.append(f"({int(cards.by_value.sum())})", style="dim")
    if cards.ev is None:
        ev = Text("EV   ", style="bold").append("fewer than six cards left", style="dim")
        ev.truncate(width)
    else:
        ev = _ev_line(cards.ev, width)
    left.rstrip()
    side = _side_line(cards.side_ev, width) if cards.side_ev else []
    return [*left.wrap(_CONSOLE, width), *ev.wrap(_CONSOLE, width), *side]


def _side_line(side_ev: dict[str, float], width: int) -> list[Text]:
    """The side bets the cards left make worth a bet (a positive EV, highlighted), or the
    best of them when none is: what a counter of any side bet looks for, on one line."""
    ahead = {bet: ev for bet, ev in side_ev.items() if ev > 0}
    line = Text("Side ", style="bold")
    if ahead:
        for bet, ev in sorted(ahead.items(), key=lambda item: -item[1]):
            line.append(f"{bet} ").append(percent(ev, 2), style="bold black on green")
            line.append(" ")
        line.rstrip()
    else:
        best = max(side_ev, key=lambda bet: side_ev[bet])
        line.append(f"none above 0; best {best} {percent(side_ev[best], 2)}", style="dim")
    return list(line.wrap(_CONSOLE, width))


def _ev_line(evs: dict[str, float], width: int) -> Text:
    """The EV of every bet on one line: with three decimals, or fewer when a table offering
    more bets (EZ's Dragon 7 and Panda 8) would not fit them in ``width`` (nothing is cut:
    a line that fits no way is wrapped by the caller)."""
    for decimals in (3, 2, 1):
        line = Text("EV   ", style="bold")
        for kind, value in evs.items():
            line.append(f"{EV_NAMES[kind]} ")
            line.append(percent(value, decimals),
                        style="bold black on green" if value > 0 else "")
            line.append(" ")
        line.rstrip()
        if line.cell_len <= width:
            break
    return line


def systems_section(view: View, width: int) -> list[Text]:
    """Each system's next stake and session bankroll (net so far): one line each, or its
    SPEC on lines of its own when it is too long to share one (nothing is cut)."""
    if not view.systems:
        return [Text("Systems: none (-s SPEC shows what a system would stake next)",
                     style="dim")]
    if not view.systems_current:
        return [Text("Systems: working out the next stakes...", style="dim")]
    figures = {id(s): _figures(s) for s in view.systems if not isinstance(s, str)}
    room = width - 2 - max((len(f) for f in figures.values()), default=0)
    name_room = max((len(s.spec) for s in view.systems
                     if not isinstance(s, str) and len(s.spec) <= room), default=0)
    lines: list[Text] = []
    for status in view.systems:
        if isinstance(status, str):
            lines += Text(status, style="red").wrap(_CONSOLE, width)
        elif len(status.spec) <= name_room:
            lines.append(Text(f"{status.spec:<{name_room}}  ").append_text(figures[id(status)]))
        else:
            lines += Text(status.spec).wrap(_CONSOLE, width)
            lines.append(Text("  ").append_text(figures[id(status)]))
    return lines


def _figures(status: SystemStatus) -> Text:
    """``next B 10  bankroll 1,009.50 (+9.50)``: a system's next stake and its session."""
    figures = Text(f"next {status.stake_text():<16}", style="bold")
    net = status.net
    figures.append(f" bankroll {money(status.bankroll)}")
    figures.append(f" ({money(net, signed=True)})",
                   style="green" if net > 0 else "red" if net < 0 else "")
    return figures


def message_line(view: View, width: int) -> Text:
    """The last thing done, or the error the last input gave (in red)."""
    flags = [name for name, on in zip(("Player pair", "Banker pair"), view.pairs,
                                      strict=True) if on]
    text = view.message
    if flags:
        text = f"next coup with {' and '.join(flags)}; " + text
    return Text(text, style="bold red" if view.error else "")  # wrapped, never cut


def plain_screen(view: View, width: int = 80) -> str:
    """The whole screen as plain text (``baccarat live --plain``): every section, marks
    as letters (r = red, b = blue), no colour."""
    sections = [
        header(view, width), roads_section(view, width),
        derived_section(view, width, plain=True), cards_section(view, width),
        systems_section(view, width),
    ]
    lines = [line.plain.rstrip() for section in sections for line in section]
    lines += [part.plain for part in message_line(view, width).wrap(_CONSOLE, width)]
    return "\n".join(lines)


__all__ = ["KEYS", "View", "cards_section", "derived_section", "header", "message_line",
           "plain_screen", "roads_section", "systems_section"]
