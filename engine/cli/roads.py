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
    from ..roads import AskMarks, Roads

SIDE_STYLE = {0: "bold red", 1: "bold blue", 2: "bold green"}
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


def _print_section(title: str, lines: list[Text], note: str = "", cell: int = 0) -> None:
    """A road under its title; a grid of ``cell`` characters a column wider than the
    terminal is printed in blocks of the columns that fit, one under the other."""
    heading = Text(title, style="bold")
    if note:
        heading.append(f"  {note}", style="dim")
    console.print(heading, soft_wrap=True)
    if not any(line.plain.strip() for line in lines):
        console.print(Text("  (empty)", style="dim"), soft_wrap=True)
    else:
        for block in column_blocks(lines, cell, console.width):
            for line in block:
                console.print(line, soft_wrap=True)
    console.print()


def column_blocks(lines: list[Text], cell: int, width: int) -> list[list[Text]]:
    """``lines`` (a grid, ``cell`` characters a column) cut into blocks of whole columns
    no wider than ``width``, each after a line naming its columns; as they are when they
    fit (or ``cell`` is 0: not a grid)."""
    widest = max((len(line.plain.rstrip()) for line in lines), default=0)
    if not cell or widest <= width:
        return [lines]
    per_block = max(width // cell, 1) * cell
    columns = -(-widest // cell)
    blocks = []
    for start in range(0, widest, per_block):
        first, last = start // cell + 1, min((start + per_block) // cell, columns)
        label = Text(f"  columns {first}-{last} of {columns}", style="dim")
        blocks.append([label, *(line[start:start + per_block] for line in lines)])
    return blocks


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

    from ..live.screen import bead_plate_lines, big_road_lines, derived_lines
    from ..roads import DERIVED_ROADS

    counts = np.bincount(np.asarray(roads.outcomes, dtype=np.int64), minlength=3)
    console.print(Text.assemble(
        (f"Shoe {shoe}", "bold"), f": {len(roads.outcomes)} coups, ",
        (f"B {counts[0]}", SIDE_STYLE[0]), ", ", (f"P {counts[1]}", SIDE_STYLE[1]), ", ",
        (f"T {counts[2]}", SIDE_STYLE[2]),
    ), soft_wrap=True)
    console.print()
    _print_section("Bead plate", bead_plate_lines(roads.bead_plate), cell=2)
    leading = roads.big_road.leading_ties
    _print_section("Big road", big_road_lines(roads.big_road.grid),
                   f"ties before the first decision: {leading}" if leading else "", cell=2)
    coloured = console.color_system is not None
    for k in DERIVED_ROADS:
        note = "" if coloured else "r = red, b = blue"
        _print_section(SECTION[k], derived_lines(roads.derived_grid(k), k, plain=not coloured,
                                                 cell=2), note, cell=2)
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
