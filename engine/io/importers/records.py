"""What every reader hands on: the coups or card sequences of one file, with their places.

Readers only turn text into codes; the checks and the assembly into one ``Coups`` table
work on these records, whatever the format was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...cards import CardError
from ...errors import BaccaratError


class ImportDataError(BaccaratError):
    """A recorded file that cannot be imported: where (file, line, shoe, coup) and what."""


class InvalidCoupError(ImportDataError):
    """Recorded coups that break the game: drawing rules, totals, winner, cards per rank."""


class UnknownCardError(ImportDataError, CardError):
    """A card spelling in a recorded file that is not a card (names the text and place)."""


class UnknownFormatError(ImportDataError):
    """A file whose format cannot be told from its content, or an unknown format name."""


@dataclass(frozen=True)
class Source:
    """A file being read, and how to name a place in it in a message.

    ``rows`` is True for tables (Parquet, spreadsheets, databases), whose places are rows
    (1-based), not text lines; ``part`` names the sheet or database table read.
    """

    path: Path
    rows: bool = False
    part: str = ""

    def at(self, number: int) -> str:
        """'file:12' for a text line, 'file row 12' (or 'file [sheet] row 12') for a row."""
        if not self.rows:
            return f"{self.path}:{number}"
        part = f" [{self.part}]" if self.part else ""
        return f"{self.path}{part} row {number}"

    def default_label(self, number: int) -> str:
        """The label of a shoe the file did not name: 'name.csv:12' (its first line)."""
        return f"{self.path.name}:{number}"


@dataclass
class CoupRecords:
    """The coups of one file as recorded, before any check.

    ``shoe`` numbers the file's shoes 0, 1, ... in order (non-decreasing); ``labels`` has
    one entry per shoe. ``cards`` is (rows, 6) like ``Coups.cards``; totals and outcome
    are -1 where the file did not record them. ``line`` is each coup's line (or row).
    ``recorded_coup`` is the coup number the file gave (-1: none).
    """

    source: Source
    line: np.ndarray
    shoe: np.ndarray
    labels: list[str]
    cards: np.ndarray
    player_total: np.ndarray
    banker_total: np.ndarray
    outcome: np.ndarray
    recorded_coup: np.ndarray | None = None
    #: what the reader skipped or decided, for the import's report (one line each)
    notes: list[str] = field(default_factory=list)
    #: recorder slips found while reading (row -> what is wrong: a hand of four cards)
    slips: dict[int, str] = field(default_factory=dict)
    #: rows with neither an outcome, nor cards, nor both totals (None: none)
    no_outcome: np.ndarray | None = None
    #: which source column filled which role (for --dry-run)
    mapping: dict[str, str] = field(default_factory=dict)
    #: coups whose cards, recorded in one list, split no one way (row -> what is wrong)
    unsplit: dict[int, str] = field(default_factory=dict)
    #: why each role's column was chosen (role -> content, name, rules check)
    why: dict[str, str] = field(default_factory=dict)
    #: rows per outcome spelling the user mapped (``--words 1=P,2=B,3=T``)
    codes: dict[tuple[str, int], int] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.line.shape[0])


@dataclass
class SequenceRecords:
    """Whole shoes recorded as their cards in dealing order, one code array per shoe."""

    source: Source
    sequences: list[np.ndarray]
    lines: list[int]
    labels: list[str]
    #: per shoe, the line (or row) of each card, for messages (None: all on the shoe's line)
    card_lines: list[np.ndarray] | None = None
    notes: list[str] = field(default_factory=list)
    mapping: dict[str, str] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)


def runs(*keys: np.ndarray) -> np.ndarray:
    """Number consecutive runs of equal keys 0, 1, 2 ...: a new run wherever any key changes."""
    n = keys[0].shape[0] if keys else 0
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
    for key in keys:
        if n > 1:
            change[1:] |= np.asarray(key[1:] != key[:-1], dtype=bool)
    return np.cumsum(change) - 1


def run_starts(shoe: np.ndarray) -> np.ndarray:
    """Row index where each run of ``shoe`` (0, 1, ... non-decreasing) starts."""
    if not shoe.size:
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]])
