"""``baccarat roads``: draw one shoe's scoreboards (bead plate, big road, derived roads)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from ..errors import BaccaratError
from . import app
from .common import console, note_import, reports_errors

if TYPE_CHECKING:
    import numpy as np

    from ..coups import Coups
    from ..roads import AskMarks, BigRoadCell, Roads

SIDE_STYLE = {0: "bold red", 1: "bold blue", 2: "bold green"}
# The traditional drawing of each derived road's marks, used when colour shows them apart.
MARK_SYMBOL = {1: "○", 2: "●", 3: "╱"}
SECTION = {1: "Big eye boy", 2: "Small road", 3: "Cockroach pig"}


class ShoeNotFoundError(BaccaratError):
    """A shoe id that the coups file does not hold."""


def shoe_outcomes(coups: Coups, shoe: int, path: Path) -> np.ndarray:
    """The outcome codes of ``shoe`` in coup order, or a clear error naming what exists."""
    import numpy as np

    from ..coups import OUTCOME_LABELS

    ids = coups.shoe_ids()
    if ids.size == 0:
        raise ShoeNotFoundError(f"{path} holds no shoes")
    rows = np.flatnonzero(coups.shoe == shoe)
    if rows.size == 0:
        unique = np.unique(ids)
        raise ShoeNotFoundError(
            f"{path} has no shoe {shoe}; available shoe ids: {unique[0]}..{unique[-1]} "
            f"({unique.size} shoe{'s' if unique.size != 1 else ''})"
        )
    rows = rows[np.argsort(coups.coup[rows], kind="stable")]
    outcomes = coups.outcome[rows]
    bad = np.flatnonzero((outcomes < 0) | (outcomes > 2))
    if bad.size:
        coup = int(coups.coup[rows[bad[0]]])
        raise BaccaratError(f"{path}, shoe {shoe}, coup {coup}: the outcome is missing or "
                            f"unknown; expected one of {', '.join(OUTCOME_LABELS)}")
    return outcomes.astype(np.int64)


def _render_bead_plate(grid: list[list[int | None]]) -> list[Text]:
    from ..coups import OUTCOME_LABELS

    lines = []
    for row in grid:
        line = Text()
        for code in row:
            if code is None:
                line.append("  ")
            else:
                line.append(OUTCOME_LABELS[code], style=SIDE_STYLE[code]).append(" ")
        lines.append(line)
    return lines


def _render_big_road(grid: list[list[BigRoadCell | None]]) -> list[Text]:
    from ..coups import OUTCOME_LABELS

    lines = []
    for row in grid:
        line = Text()
        for cell in row:
            if cell is None:
                line.append("  ")
                continue
            line.append(OUTCOME_LABELS[cell.side], style=SIDE_STYLE[cell.side])
            if cell.ties:
                line.append(str(cell.ties) if cell.ties < 10 else "+", style=SIDE_STYLE[2])
            else:
                line.append(" ")
        lines.append(line)
    return lines


def _render_derived(grid: list[list[int | None]], k: int, coloured: bool) -> list[Text]:
    from ..roads import BLUE, RED

    mark_style = {RED: "red", BLUE: "blue"}
    mark_letter = {RED: "r", BLUE: "b"}  # without colour, the letter says the colour
    lines = []
    for row in grid:
        line = Text()
        for mark in row:
            if mark is None:
                line.append("  ")
            else:
                symbol = MARK_SYMBOL[k] if coloured else mark_letter[mark]
                line.append(symbol, style=mark_style[mark]).append(" ")
        lines.append(line)
    return lines


def _print_section(title: str, lines: list[Text], note: str = "") -> None:
    heading = Text(title, style="bold")
    if note:
        heading.append(f"  {note}", style="dim")
    console.print(heading, soft_wrap=True)
    if not any(line.plain.strip() for line in lines):
        console.print(Text("  (empty)", style="dim"), soft_wrap=True)
    else:
        for line in lines:
            console.print(line, soft_wrap=True)
    console.print()


def render_ask(ask: AskMarks) -> list[Text]:
    """The ask marks as two lines: what each derived road adds if the next decision is
    Banker, or Player (a colour word, in its colour; "-" while the road has not started)."""
    from ..roads import BLUE, DERIVED_ROADS, RED

    words = {RED: ("red ", "red"), BLUE: ("blue", "blue")}
    lines = [Text("        " + "  ".join(f"{name:<13}" for name in DERIVED_ROADS.values())
                  .rstrip(), style="dim")]
    for label, marks in (("Banker", ask.banker), ("Player", ask.player)):
        line = Text(f"{label:<8}", style=SIDE_STYLE[0 if label == "Banker" else 1])
        for k in DERIVED_ROADS:
            word, style = words.get(marks[k], ("-", "dim"))
            line.append(f"{word:<13}", style=style)
            line.append("  ")
        line.rstrip()
        lines.append(line)
    return lines


def draw(roads: Roads, shoe: int) -> None:
    """Print every road of one shoe to the console, in colour where the terminal has it."""
    import numpy as np

    from ..roads import DERIVED_ROADS

    counts = np.bincount(np.asarray(roads.outcomes, dtype=np.int64), minlength=3)
    console.print(Text.assemble(
        (f"Shoe {shoe}", "bold"), f": {len(roads.outcomes)} coups, ",
        (f"B {counts[0]}", SIDE_STYLE[0]), ", ", (f"P {counts[1]}", SIDE_STYLE[1]), ", ",
        (f"T {counts[2]}", SIDE_STYLE[2]),
    ), soft_wrap=True)
    console.print()
    _print_section("Bead plate", _render_bead_plate(roads.bead_plate))
    leading = roads.big_road.leading_ties
    _print_section("Big road", _render_big_road(roads.big_road.grid),
                   f"ties before the first decision: {leading}" if leading else "")
    coloured = console.color_system is not None
    for k in DERIVED_ROADS:
        note = "" if coloured else "r = red, b = blue"
        _print_section(SECTION[k], _render_derived(roads.derived_grid(k), k, coloured), note)
    _print_section("Ask", render_ask(roads.ask), "the mark the next decision would add")


@app.command()
@reports_errors
def roads(
    shoe: Annotated[int, typer.Option(help="id of the shoe to draw")],
    coups: Annotated[Path, typer.Option(help="coups Parquet file")] = Path("coups.parquet"),
    as_json: Annotated[bool, typer.Option("--json", help="print the grids as JSON")] = False,
) -> None:
    """Draw one shoe's bead plate, big road, derived roads and ask marks (or print them
    as JSON)."""
    from ..io.inputs import read_dataset
    from ..roads import all_roads

    table, _ = read_dataset(coups, on_import=note_import)
    result = all_roads(shoe_outcomes(table, shoe, coups))
    if as_json:
        data: dict[str, Any] = {"shoe": shoe, **result.to_dict()}
        typer.echo(json.dumps(data))
    else:
        draw(result, shoe)
