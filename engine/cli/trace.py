"""``baccarat trace``: a strategy's coup-by-coup ledger over a handful of coups, to check by hand.

The ledger is ``baccarat.testing.play``'s (the real replay engine); this module only picks
the coups (letters, or one shoe of a coups file), prints the table and its JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import BaccaratError
from . import app
from .common import (
    Debug,
    console,
    print_labelled,
    reports_errors,
)
from .rule_options import session_rules, table_rules

if TYPE_CHECKING:
    import pandas as pd

    from ..coups import Coups

OUTCOME_STYLE = {"B": "bold red", "P": "bold blue", "T": "bold green"}
MARK_STYLE = {"red": "red", "blue": "blue"}


class TraceInputError(BaccaratError):
    """Trace flags that do not name one set of coups."""


def parse_range(text: str) -> tuple[int, int | None]:
    """``"5-20"`` -> (5, 20); ``"5"`` -> (5, 5); ``"5-"`` -> (5, None): coup numbers."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*", text)
    if not match:
        raise TraceInputError(f"--range {text!r}: expected coup numbers as FIRST-LAST "
                              f"(e.g. 1-20), FIRST- or one number")
    first = int(match.group(1))
    last = int(match.group(3)) if match.group(3) else (None if match.group(2) else first)
    if first < 1 or (last is not None and last < first):
        raise TraceInputError(f"--range {text!r}: the coups are numbered from 1 and the "
                              f"last must not come before the first")
    return first, last


def trace_coups(outcomes: str | None, coups: Path | None, shoe: int | None) -> Coups:
    """The one shoe to trace: letters given on the command line, or a shoe of a file."""
    from ..testing import to_coups

    if (outcomes is None) == (coups is None):
        raise TraceInputError("give the coups to trace: --outcomes BPPTB, or --coups FILE "
                              "--shoe ID (not both)")
    if outcomes is not None:
        if shoe is not None:
            raise TraceInputError("--shoe picks a shoe of --coups FILE; --outcomes is one shoe")
        return to_coups([outcomes])
    assert coups is not None
    from ..io.inputs import import_note, is_coups_parquet

    if coups.exists() and not is_coups_parquet(coups):
        print_labelled("note", import_note(coups), "yellow")
    if shoe is None:  # only the shoe column is read to see whether the file holds one shoe
        ids = shoe_ids_in(coups)
        if ids.size != 1:
            raise TraceInputError(f"{coups} holds {ids.size} shoes: pick one with --shoe ID "
                                  f"(ids {ids.min()}..{ids.max()})" if ids.size
                                  else f"{coups} holds no coups")
        shoe = int(ids[0])
    return to_coups(coups, shoe=shoe)


def shoe_ids_in(path: Path) -> Any:
    """The distinct shoe ids of a coups file, reading its shoe column only."""
    import numpy as np
    import pyarrow.parquet as pq

    from ..io.inputs import import_in_memory, is_coups_parquet
    from ..io.parquet import check_complete

    if not path.exists():
        raise FileNotFoundError(f"no coups file at {path}")
    if not is_coups_parquet(path):
        return import_in_memory(path).shoe_ids()
    check_complete(path)
    return np.unique(pq.read_table(path, columns=["shoe"]).column("shoe").to_numpy())


def _money(value: float, signed: bool = False) -> str:
    """An amount with the decimals it needs (10, 9.5, -1,280.25); blank for a 0 stake."""
    if value == 0:
        return "0" if signed else ""
    text = f"{value:+,.2f}" if signed else f"{value:,.2f}"
    return text.rstrip("0").rstrip(".")


#: Short headings, so that a ledger with roads and cards fits an 80-column terminal.
HEADINGS = {"outcome": "out", "big_road": "road", "big_eye_boy": "eye", "small_road": "small",
            "cockroach_pig": "roach", "player_pair": "P pair", "banker_pair": "B pair"}


def display_frame(ledger: pd.DataFrame) -> pd.DataFrame:
    """The ledger as printed: cards and totals in one column each; the session and shoe
    (one shoe is traced) and the expected net (in --json) left out to fit a terminal, and
    the stakes on kinds never staked."""
    from ..bets import BET_KINDS

    shown = ledger.drop(columns=["session", "shoe", "expected_net"], errors="ignore")
    if "player_cards" in shown:
        cards = shown["player_cards"] + " | " + shown["banker_cards"]
        shown = shown.drop(columns=["player_cards", "banker_cards"])
        shown.insert(2, "cards", cards)
    if "player_total" in shown:
        score = shown["player_total"].astype(str) + "-" + shown["banker_total"].astype(str)
        shown = shown.drop(columns=["player_total", "banker_total"])
        shown.insert(3 if "cards" in shown else 2, "P-B", score)
    unused = [k for k in BET_KINDS if k in shown and not (shown[k] != 0).any()]
    if len(unused) < sum(k in shown for k in BET_KINDS):
        shown = shown.drop(columns=unused)
    return shown


def render(ledger: pd.DataFrame) -> Any:
    """The ledger as a rich table: outcome and marks in their colours, stakes left blank at 0
    (its title is printed above it, so that it wraps at the terminal's width, not the table's)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from ..bets import BET_KINDS
    from ..testing import ROAD_COLUMNS

    shown = display_frame(ledger)
    table = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    money = {"net", "bankroll", *BET_KINDS}
    table.caption = "roads: r = red, b = blue" if "big_eye_boy" in shown else None
    table.caption_justify = "left"
    for name in map(str, shown.columns):
        table.add_column(HEADINGS.get(name, name), no_wrap=name != "cards",
                         justify="right" if name in money or name == "coup" else "left")
    for record in shown.to_dict(orient="records"):
        cells: list[Any] = []
        for key, value in record.items():
            name = str(key)
            if name == "outcome":
                cells.append(Text(value, style=OUTCOME_STYLE[value]))
            elif name in ROAD_COLUMNS[1:]:  # "r" red, "b" blue, in colour where shown
                cells.append(Text(value[:1], style=MARK_STYLE.get(value, "")))
            elif name == "net":
                cells.append(Text(_money(value, signed=True),
                                  style="green" if value > 0 else "red" if value < 0 else ""))
            elif name in money:
                cells.append(_money(value) if name != "bankroll" else _money(value) or "0")
            else:
                cells.append(str(value))
        table.add_row(*cells)
    return table


@app.command()
@reports_errors
@table_rules
@session_rules
def trace(
    spec: Annotated[str, typer.Argument(
        help="strategy SPEC: name, name:key=value,..., file.py:Class or module:Class")],
    outcomes: Annotated[str | None, typer.Option(
        "--outcomes", "-o", help="one shoe's outcomes as letters, e.g. BPPTBPB")] = None,
    coups: Annotated[Path | None, typer.Option(
        "--coups", help="coups Parquet file to take a shoe from")] = None,
    shoe: Annotated[int | None, typer.Option(
        "--shoe", help="id of the shoe of --coups (needed when it holds several)")] = None,
    coup_range: Annotated[str | None, typer.Option(
        "--range", help="print only coups FIRST-LAST of the shoe (e.g. 1-20); the strategy "
        "still plays the shoe from its first coup")] = None,
    roads: Annotated[bool | None, typer.Option(
        "--roads/--no-roads", help="show the roads' newest marks (default: for strategies "
        "that use the roads)")] = None,
    rules: Any = None,
    session: Any = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the ledger as JSON")] = False,
    debug: Debug = False,
) -> None:
    """Play a strategy over a few coups and print its ledger coup by coup.

    Each row is one coup: its outcome (and cards when the coups record them), the stake on
    each bet kind, the net, the bankroll after it, and the roads' newest marks for
    strategies that use the roads. The same table as a DataFrame, for a test:
    baccarat.testing.play(SPEC, "BPPTB").
    """
    from ..testing import make_one_strategy, play

    shown = parse_range(coup_range) if coup_range is not None else None
    table = trace_coups(outcomes, coups, shoe)
    strategy = make_one_strategy(spec)
    bankroll = session.bankroll
    ledger = play(strategy, table, rules=rules, roads=roads, session=session)
    if shown is not None:
        first, last = shown
        keep = ledger["coup"] >= first
        if last is not None:
            keep &= ledger["coup"] <= last
        ledger = ledger[keep].reset_index(drop=True)
    if as_json:
        data = {"strategy": strategy.spec(), "rules": rules.model_dump(),
                "bankroll": bankroll, "shoe": int(table.shoe[0]) if len(table) else None,
                "coups": json.loads(ledger.drop(columns=["session"]).to_json(orient="records"))}
        typer.echo(json.dumps(data))
        return
    where = (f"shoe {int(table.shoe[0])} of {coups}" if coups is not None
             else f"{len(table)} coups")
    label = strategy.spec() or type(strategy).__name__
    console.print(f"{label} over {where}, {rules.label()}, bankroll {bankroll:,.2f}",
                  highlight=False)
    console.print(render(ledger), overflow="fold")
    net = float(ledger["net"].sum())
    end = float(ledger["bankroll"].iloc[-1]) if len(ledger) else bankroll
    console.print(f"{len(ledger)} coups shown, net {net:+,.2f}, bankroll {end:,.2f}",
                  highlight=False)
