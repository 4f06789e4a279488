"""Asian scoreboards: the bead plate, the big road and the three derived roads.

Two interfaces over the same rules (docs/architecture.md, "Roads"):

- pure functions over one shoe's outcome codes (``BANKER``, ``PLAYER``, ``TIE`` from
  :mod:`baccarat.coups`): :func:`bead_plate`, :func:`big_road`, :func:`derived_road`,
  :func:`derived_grid` and :func:`all_roads`, returning plain lists and small dataclasses
  that serialise to JSON and render easily;
- :class:`RoadState`, the incremental, vectorised state of many sessions' roads that the
  replay engine updates once per coup and that strategies query (``last_colour``,
  ``colour_if``, ``ask``).

The *ask marks* (:func:`ask_marks`) are what a table's scoreboard shows beside the derived
roads before each coup: the mark each derived road would add if the next decision were
Banker, and if it were Player (always opposite colours, or none on both while the road
has not started).

Display rule (big road and derived roads alike), six rows:

1. A new column starts on the top row, in the first display column to the right of the
   previous column's start whose top cell is free (normally the very next one; it is
   further right only when the previous column's dragon tail ran along the top row).
2. A repeat goes down while the cell below exists (row < 6) and is free; otherwise it turns
   right, and every further repeat of that column continues right along the same row (the
   dragon tail). So a column whose way down is blocked by an earlier tail turns right early,
   just above that tail.

The derived roads are computed from the *logical* column lengths (tail included), never
from the display.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .coups import BANKER, OUTCOME_LABELS, PLAYER, TIE
from .errors import BaccaratError

ROWS = 6
RED, BLUE, NO_MARK = 1, -1, 0
DERIVED_ROADS: dict[int, str] = {1: "big eye boy", 2: "small road", 3: "cockroach pig"}
COLOUR_NAMES: dict[int, str] = {RED: "red", BLUE: "blue"}

Position = tuple[int, int]
"""A display cell as (row, column), both 0-based."""


class RoadError(BaccaratError):
    """Input the roads cannot be drawn from: an unknown outcome, a bad road index or shape."""


def outcomes_from_labels(text: str) -> list[int]:
    """Outcome codes from a string of labels such as ``"BBPT"`` (spaces ignored)."""
    codes = []
    for i, char in enumerate(text.replace(" ", "").upper()):
        if char not in OUTCOME_LABELS:
            raise RoadError(f"outcome {char!r} at position {i} is not a coup outcome; "
                            f"expected one of {', '.join(OUTCOME_LABELS)}")
        codes.append(OUTCOME_LABELS.index(char))
    return codes


def _checked(outcomes: Sequence[int] | np.ndarray) -> list[int]:
    """The outcomes as a list of Python ints, refusing anything but 0, 1 or 2."""
    values = np.asarray(outcomes)
    if values.ndim != 1:
        raise RoadError(f"outcomes must be one shoe's sequence (1-D), got shape {values.shape}")
    if values.size and not np.issubdtype(values.dtype, np.integer):
        raise RoadError(f"outcomes must be integer codes, got dtype {values.dtype}")
    bad = np.flatnonzero((values < BANKER) | (values > TIE))
    if bad.size:
        i = int(bad[0])
        raise RoadError(f"outcome {values[i]!r} at coup index {i} is not a coup outcome; "
                        f"expected {BANKER} (Banker), {PLAYER} (Player) or {TIE} (Tie)")
    return [int(v) for v in values]


def _check_k(k: int) -> int:
    if k not in DERIVED_ROADS:
        raise RoadError(f"derived road k={k!r} does not exist; expected one of "
                        + ", ".join(f"{key} ({name})" for key, name in DERIVED_ROADS.items()))
    return int(k)


# ----------------------------------------------------------------------------- layout


def layout(column_lengths: Sequence[int], rows: int = ROWS) -> list[list[Position]]:
    """Display positions of every entry, column by column, by the six-row display rule.

    ``column_lengths`` are the logical columns' lengths; the result has the same shape
    (one (row, column) pair per entry). See the module docstring for the rule.
    """
    occupied: set[Position] = set()
    positions: list[list[Position]] = []
    start = -1
    for length in column_lengths:
        col = start + 1
        while (0, col) in occupied:
            col += 1
        start = col
        row, down = 0, True
        cells = [(0, col)]
        occupied.add((0, col))
        for _ in range(int(length) - 1):
            if down and row + 1 < rows and (row + 1, col) not in occupied:
                row += 1
            else:
                down = False
                col += 1
            # An earlier tail on this row would also cover the cell we came from.
            assert (row, col) not in occupied
            occupied.add((row, col))
            cells.append((row, col))
        positions.append(cells)
    return positions


def _grid(positions: list[list[Position]], values: list[list[Any]],
          rows: int = ROWS) -> list[list[Any]]:
    """A rows x width grid (``grid[row][column]``) with ``values`` at ``positions``."""
    width = 1 + max((c for cells in positions for _, c in cells), default=-1)
    grid: list[list[Any]] = [[None] * width for _ in range(rows)]
    for cells, column_values in zip(positions, values, strict=True):
        for (row, col), value in zip(cells, column_values, strict=True):
            grid[row][col] = value
    return grid


# ----------------------------------------------------------------------------- bead plate


def bead_plate(outcomes: Sequence[int] | np.ndarray, rows: int = ROWS) -> list[list[int | None]]:
    """Every coup, ties included, top to bottom then left to right: ``grid[row][column]``.

    Cells hold outcome codes; cells after the last coup are ``None``.
    """
    codes = _checked(outcomes)
    width = -(-len(codes) // rows)
    grid: list[list[int | None]] = [[None] * width for _ in range(rows)]
    for i, code in enumerate(codes):
        grid[i % rows][i // rows] = code
    return grid


# ----------------------------------------------------------------------------- big road


@dataclass(frozen=True)
class BigRoadCell:
    """One decision on the big road: who won (``BANKER`` or ``PLAYER``) and the ties after it."""

    side: int
    ties: int = 0

    def to_dict(self) -> dict[str, Any]:
        """``{"side": "B" or "P", "ties": n}``."""
        return {"side": OUTCOME_LABELS[self.side], "ties": self.ties}


@dataclass(frozen=True)
class BigRoad:
    """The big road of one shoe.

    ``columns`` are the logical columns (one per run of the same winner, any length);
    ``leading_ties`` counts ties before the first decision (they have no cell to sit on);
    ``positions`` gives each entry's display cell and ``grid`` the six-row display
    (``grid[row][column]``, ``None`` where empty) with dragon tails.
    """

    columns: list[list[BigRoadCell]]
    leading_ties: int
    positions: list[list[Position]]
    grid: list[list[BigRoadCell | None]]

    @property
    def lengths(self) -> list[int]:
        """The logical column lengths, tails included: what the derived roads read."""
        return [len(column) for column in self.columns]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: leading ties, logical columns and the display grid."""
        return {
            "leading_ties": self.leading_ties,
            "columns": [[cell.to_dict() for cell in column] for column in self.columns],
            "grid": [[None if cell is None else cell.to_dict() for cell in row]
                     for row in self.grid],
        }


def big_road(outcomes: Sequence[int] | np.ndarray, rows: int = ROWS) -> BigRoad:
    """The big road: Banker and Player decisions only, ties counted on the latest cell."""
    columns: list[list[BigRoadCell]] = []
    leading_ties = 0
    for code in _checked(outcomes):
        if code == TIE:
            if columns:
                last = columns[-1][-1]
                columns[-1][-1] = BigRoadCell(last.side, last.ties + 1)
            else:
                leading_ties += 1
        elif columns and columns[-1][0].side == code:
            columns[-1].append(BigRoadCell(code))
        else:
            columns.append([BigRoadCell(code)])
    positions = layout([len(column) for column in columns], rows)
    return BigRoad(columns, leading_ties, positions, _grid(positions, columns, rows))


# ----------------------------------------------------------------------------- derived roads


def derived_road(big_road_or_columns: BigRoad | Sequence[int], k: int) -> list[int]:
    """The marks (``RED`` = 1, ``BLUE`` = -1) of derived road ``k`` in order.

    ``k`` is 1 (big eye boy), 2 (small road) or 3 (cockroach pig). Every big road entry at
    logical column c, row r from (k, 1) on -- or from (k + 1, 0) when column k has one
    cell -- adds a mark: on r = 0, red when columns c-1 and c-1-k are equally long; on
    r >= 1, red unless column c-k is exactly r long (the cell beside it empty but the one
    above it filled). Accepts a :class:`BigRoad` or its logical column lengths.
    """
    k = _check_k(k)
    if isinstance(big_road_or_columns, BigRoad):
        lengths = big_road_or_columns.lengths
    else:
        lengths = [int(n) for n in big_road_or_columns]
        if any(n < 1 for n in lengths):
            raise RoadError(f"big road column lengths must be >= 1, got {lengths}")
    marks: list[int] = []
    for c in range(k, len(lengths)):
        for r in range(lengths[c]):
            if c == k and r == 0:
                continue
            if r == 0:
                same = lengths[c - 1] == lengths[c - 1 - k]
                marks.append(RED if same else BLUE)
            else:
                marks.append(BLUE if lengths[c - k] == r else RED)
    return marks


def runs(marks: Sequence[int]) -> list[list[int]]:
    """Consecutive equal marks grouped into columns, as a derived road is drawn."""
    columns: list[list[int]] = []
    for mark in marks:
        if columns and columns[-1][0] == mark:
            columns[-1].append(mark)
        else:
            columns.append([mark])
    return columns


def derived_grid(marks: Sequence[int], rows: int = ROWS) -> list[list[int | None]]:
    """Derived road marks laid out like a big road: ``grid[row][column]``, ``None`` empty."""
    columns = runs(marks)
    positions = layout([len(column) for column in columns], rows)
    return _grid(positions, columns, rows)


# ----------------------------------------------------------------------------- ask marks


def next_mark(lengths: Sequence[int], k: int, repeat: bool) -> int:
    """The mark derived road ``k`` adds for the next big road entry (``NO_MARK`` if none).

    ``lengths`` are the big road's logical column lengths so far; ``repeat`` says whether
    the next decision repeats the last column's side (it goes below it, at column C-1,
    row r = that column's length) or starts a new column (at column C, row 0). The rule
    is :func:`derived_road`'s for that one entry.
    """
    k = _check_k(k)
    count = len(lengths)
    if count == 0:
        return NO_MARK
    if repeat:  # (C-1, r >= 1): marked from column k on
        c, r = count - 1, lengths[-1]
        if c < k:
            return NO_MARK
        return BLUE if lengths[c - k] == r else RED
    c = count  # (C, 0): marked from column k + 1 on ((k, 0) is never marked)
    if c <= k:
        return NO_MARK
    return RED if lengths[c - 1] == lengths[c - 1 - k] else BLUE


@dataclass(frozen=True)
class AskMarks:
    """What each derived road would add if the next decision were Banker, or Player.

    ``banker[k]`` and ``player[k]`` are ``RED``, ``BLUE`` or ``NO_MARK`` for k = 1 (big eye
    boy), 2 (small road), 3 (cockroach pig). A tie adds no mark, so it has no ask.
    """

    banker: dict[int, int]
    player: dict[int, int]

    def of(self, side: int) -> dict[int, int]:
        """The marks for ``side`` (``BANKER`` or ``PLAYER``)."""
        if side not in (BANKER, PLAYER):
            raise RoadError(f"an ask is for Banker ({BANKER}) or Player ({PLAYER}), "
                            f"not {side!r}")
        return self.banker if side == BANKER else self.player

    def to_dict(self) -> dict[str, dict[str, str | None]]:
        """``{"B": {"big eye boy": "red", ...}, "P": {...}}``, None where no mark."""
        return {OUTCOME_LABELS[side]: {DERIVED_ROADS[k]: COLOUR_NAMES.get(mark)
                                       for k, mark in self.of(side).items()}
                for side in (BANKER, PLAYER)}


def ask_marks(road_or_outcomes: BigRoad | Sequence[int] | np.ndarray) -> AskMarks:
    """The ask marks of a shoe so far: a :class:`BigRoad` or the shoe's outcome codes."""
    road = (road_or_outcomes if isinstance(road_or_outcomes, BigRoad)
            else big_road(road_or_outcomes))
    lengths = road.lengths
    last = road.columns[-1][0].side if road.columns else None
    marks = {side: {k: next_mark(lengths, k, repeat=side == last) for k in DERIVED_ROADS}
             for side in (BANKER, PLAYER)}
    return AskMarks(marks[BANKER], marks[PLAYER])


# ----------------------------------------------------------------------------- all of them


@dataclass(frozen=True)
class Roads:
    """Every road of one shoe: what ``baccarat roads`` draws or prints as JSON."""

    outcomes: list[int]
    bead_plate: list[list[int | None]]
    big_road: BigRoad
    derived: dict[int, list[int]]
    ask: AskMarks

    def derived_grid(self, k: int) -> list[list[int | None]]:
        """The display grid of derived road ``k``."""
        return derived_grid(self.derived[_check_k(k)])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: labels "B"/"P"/"T" and colours "red"/"blue", ``None`` empty."""
        def colour(mark: int | None) -> str | None:
            return None if mark is None else COLOUR_NAMES[mark]

        return {
            "coups": len(self.outcomes),
            "bead_plate": [[None if code is None else OUTCOME_LABELS[code] for code in row]
                           for row in self.bead_plate],
            "big_road": self.big_road.to_dict(),
            "derived": [
                {
                    "k": k,
                    "name": name,
                    "marks": [COLOUR_NAMES[m] for m in self.derived[k]],
                    "grid": [[colour(m) for m in row] for row in self.derived_grid(k)],
                }
                for k, name in DERIVED_ROADS.items()
            ],
            "ask": self.ask.to_dict(),
        }


def all_roads(outcomes: Sequence[int] | np.ndarray) -> Roads:
    """The bead plate, the big road and the three derived roads of one shoe."""
    codes = _checked(outcomes)
    road = big_road(codes)
    return Roads(codes, bead_plate(codes), road,
                 {k: derived_road(road, k) for k in DERIVED_ROADS}, ask_marks(road))


# ----------------------------------------------------------------------------- vectorised


class RoadState:
    """The roads of ``n_sessions`` sessions at once, updated one coup at a time.

    Only what the derived roads need is kept, per session: the length of the current big
    road column and of the three before it (an (n, 4) array, shifted when a new column
    starts), the number of columns, the current side, tie counts, and the latest mark and
    mark count of each derived road. Memory is O(n) whatever the session length, and every
    update is a handful of numpy operations across sessions (no loop over sessions).
    """

    _HISTORY = max(DERIVED_ROADS) + 1

    def __init__(self, n_sessions: int) -> None:
        if n_sessions < 0:
            raise RoadError(f"n_sessions must be >= 0, got {n_sessions}")
        self.n_sessions = int(n_sessions)
        n = self.n_sessions
        self._lengths = np.zeros((n, self._HISTORY), dtype=np.int64)
        self._columns = np.zeros(n, dtype=np.int64)
        self._side = np.full(n, -1, dtype=np.int8)
        self._ties = np.zeros(n, dtype=np.int64)
        self._leading = np.zeros(n, dtype=np.int64)
        self._last = np.zeros((n, len(DERIVED_ROADS)), dtype=np.int8)
        self._marks = np.zeros((n, len(DERIVED_ROADS)), dtype=np.int64)

    def _mask(self, mask: np.ndarray | None, what: str) -> np.ndarray:
        if mask is None:
            return np.ones(self.n_sessions, dtype=bool)
        values = np.asarray(mask)
        if values.shape != (self.n_sessions,) or values.dtype != np.bool_:
            raise RoadError(f"{what} must be a boolean array of shape ({self.n_sessions},), "
                            f"got {values.dtype} {values.shape}")
        return values

    def append(self, outcomes: np.ndarray, active: np.ndarray | None = None) -> None:
        """Add one coup's outcome to every active session's roads (a tie is only counted)."""
        codes = np.asarray(outcomes)
        if codes.shape != (self.n_sessions,) or not np.issubdtype(codes.dtype, np.integer):
            raise RoadError(f"outcomes must be integer codes of shape ({self.n_sessions},), "
                            f"got {codes.dtype} {codes.shape}")
        act = self._mask(active, "active")
        bad = np.flatnonzero(act & ((codes < BANKER) | (codes > TIE)))
        if bad.size:
            s = int(bad[0])
            raise RoadError(f"session {s}: outcome {codes[s]!r} is not a coup outcome; "
                            f"expected {BANKER} (Banker), {PLAYER} (Player) or {TIE} (Tie)")
        tie = act & (codes == TIE)
        decision = act & (codes != TIE)
        has_cell = self._columns > 0
        self._ties += tie & has_cell
        self._leading += tie & ~has_cell
        same = decision & (codes == self._side)
        new = decision & ~same
        for k in DERIVED_ROADS:
            colour = self._colour_same(k)
            colour = np.where(same, colour, -colour)
            marked = decision & (self._columns > k)
            self._last[:, k - 1] = np.where(marked, colour, self._last[:, k - 1])
            self._marks[:, k - 1] += marked
        shifted = np.empty_like(self._lengths)
        shifted[:, 0] = 1
        shifted[:, 1:] = self._lengths[:, :-1]
        self._lengths[:, 0] += same
        self._lengths = np.where(new[:, None], shifted, self._lengths)
        self._columns += new
        self._side = np.where(decision, codes, self._side).astype(np.int8)
        self._ties[decision] = 0

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Start new, empty roads for the sessions in ``mask`` (all when ``None``)."""
        m = self._mask(mask, "mask")
        self._lengths[m] = 0
        self._columns[m] = 0
        self._side[m] = -1
        self._ties[m] = 0
        self._leading[m] = 0
        self._last[m] = 0
        self._marks[m] = 0

    def _colour_same(self, k: int) -> np.ndarray:
        """The mark a repeat of the current side would add (where road k has marks at all).

        A repeat lands at (C, r = current length): red unless column C-k is r long. A new
        column lands at (C+1, 0): red when columns C and C-k are equally long -- always
        the opposite colour, hence ``-colour``.
        """
        return np.where(self._lengths[:, k] != self._lengths[:, 0], RED, BLUE).astype(np.int8)

    def last_colour(self, k: int) -> np.ndarray:
        """Latest mark of derived road ``k`` per session: 1 red, -1 blue, 0 none yet."""
        return self._last[:, _check_k(k) - 1].copy()

    def colour_if(self, k: int, outcome: int | np.ndarray) -> np.ndarray:
        """The mark that ``outcome`` (scalar or per session) would add to derived road ``k``.

        1 red, -1 blue, 0 when it would add none (a tie, or too few big road columns yet).
        """
        k = _check_k(k)
        try:
            codes = np.broadcast_to(np.asarray(outcome), (self.n_sessions,))
        except ValueError:
            raise RoadError(f"outcome must be a code or an array of shape ({self.n_sessions},), "
                            f"got shape {np.shape(outcome)}") from None
        colour = self._colour_same(k)
        colour = np.where(codes == self._side, colour, -colour)
        marked = (self._columns > k) & ((codes == BANKER) | (codes == PLAYER))
        return np.where(marked, colour, NO_MARK).astype(np.int8)

    def ask(self, k: int) -> np.ndarray:
        """The ask marks of derived road ``k``: an (n, 2) array per session, column 0 the
        mark a Banker win would add, column 1 a Player win's (1 red, -1 blue, 0 none)."""
        return np.stack([self.colour_if(k, BANKER), self.colour_if(k, PLAYER)], axis=1)

    def mark_count(self, k: int) -> np.ndarray:
        """How many marks derived road ``k`` holds per session."""
        return self._marks[:, _check_k(k) - 1].copy()

    @property
    def side(self) -> np.ndarray:
        """The current big road column's side (``BANKER``/``PLAYER``), -1 before any."""
        return self._side.copy()

    @property
    def streak(self) -> np.ndarray:
        """The current big road column's length (0 before any decision)."""
        return self._lengths[:, 0].copy()

    @property
    def columns(self) -> np.ndarray:
        """The number of big road columns so far."""
        return self._columns.copy()

    @property
    def ties(self) -> np.ndarray:
        """Ties counted on the latest big road cell."""
        return self._ties.copy()

    @property
    def leading_ties(self) -> np.ndarray:
        """Ties before the first decision of the shoe."""
        return self._leading.copy()
