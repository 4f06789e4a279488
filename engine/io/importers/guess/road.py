"""Road histories: a lobby's big road as cells with a column and a row position, a
colour, and a count of the ties marked on the cell, put back in road order as coups.

The evidence: a column of whole numbers named for the road's column (``col``,
``column``, ``x``) and one for its row (``row``, ``y``) whose pairs place each cell once,
beside a column of outcomes (colours or words) holding no tie: the big road draws ties
as marks on a cell, never as cells. Road order is column by column, top to bottom; the
ties marked on a cell come right after its coup. A road whose streak turns right at the
bottom (a dragon's tail: two outcomes in one column of cells) is refused, naming the
cell: that layout is not read yet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from ..records import ImportDataError
from ..tables import RawTable
from ..tokens import outcome_code

_COLUMN = re.compile(r"(?:road)?(?:col|column|x)")
_ROW = re.compile(r"(?:road)?(?:row|y)")
_TIES = re.compile(r"ties|tie|tiecount|tiecounts|tiescount")


def _is(name: str, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.fullmatch(re.sub(r"[^a-z]", "", name.rsplit(".", 1)[-1].lower())))


def _named(table: RawTable, pattern: re.Pattern[str]) -> str | None:
    found = [c for c in table.columns if _is(c, pattern)]
    return found[0] if len(found) == 1 else None


def road_record(record: Mapping[str, object]) -> bool:
    """Whether a (flattened) record is a road cell: a column and a row position, and an
    outcome that is no tie (a colour, a word)."""
    return (any(_is(k, _COLUMN) for k in record) and any(_is(k, _ROW) for k in record)
            and any(outcome_code(str(v)) in (0, 1) for v in record.values()
                    if isinstance(v, str)))


def _whole(values: np.ndarray) -> np.ndarray | None:
    """Whole numbers 0 and up (blank: 0), or None when a value is not one."""
    out = np.zeros(len(values), dtype=np.int64)
    for i, v in enumerate(values):
        text = "" if v is None else str(v).strip()
        if not text:
            continue
        if not text.isdigit() or len(text) > 6:
            return None
        out[i] = int(text)
    return out


def road_cells(table: RawTable) -> RawTable | None:
    """The coups of a table of road cells, in road order with the ties marked on each
    cell after it, and what was done (for the plan); None when the table is no road."""
    column, row = _named(table, _COLUMN), _named(table, _ROW)
    if column is None or row is None or not len(table):
        return None
    x, y = _whole(table.columns[column]), _whole(table.columns[row])
    if x is None or y is None or len(set(zip(x.tolist(), y.tolist(), strict=True))) < len(x):
        return None
    outcomes = {}
    for name, values in table.columns.items():
        if name in (column, row):
            continue
        codes = [outcome_code(str(v)) if v is not None else None for v in values]
        if all(c in (0, 1) for c in codes):
            outcomes[name] = np.asarray(codes, dtype=np.int8)
    if len(outcomes) != 1:
        return None
    (side, code), = outcomes.items()
    ties_name = _named(table, _TIES)
    ties = _whole(table.columns[ties_name]) if ties_name is not None else None
    if ties_name is not None and ties is None:
        raise ImportDataError(f"{table.source.path}: road cells: {ties_name!r} holds "
                              f"something else than tie counts (whole numbers)")
    order = np.lexsort((y, x))
    for a, b in zip(order[:-1].tolist(), order[1:].tolist(), strict=True):
        if x[a] == x[b] and code[a] != code[b]:
            raise ImportDataError(
                f"{table.source.at(int(table.lines[b]))}: road cells: column {x[b]} holds "
                f"two outcomes (rows {y[a]} and {y[b]}): a streak turning right at the "
                f"bottom of the road (a dragon's tail) is not read yet; export the road "
                f"as a list of coups, or pass the coups' column order")
    count = ties[order] if ties is not None else np.zeros(len(order), dtype=np.int64)
    rows = np.repeat(order, 1 + count)
    tie = np.ones(len(rows), dtype=bool)
    tie[np.r_[0, np.cumsum(1 + count)[:-1]]] = False
    columns = {}
    for name, values in table.columns.items():
        if name in (column, row, ties_name):
            continue  # used: the road's order and its ties
        taken = values[rows].copy()
        if name != side:
            taken[tie] = None  # a tie coup holds nothing of the cell but its place
        columns[name] = taken
    columns[side][tie] = "Tie"
    why = (f"road cells ordered by {column!r} then {row!r}"
           + (f", the {int(count.sum()):,} ties counted in {ties_name!r} placed after their "
              f"cells" if ties_name is not None else "")
           + f": {len(order):,} cells, {len(rows):,} coups")
    return RawTable(source=table.source, columns=columns, lines=table.lines[rows],
                    group=None if table.group is None else table.group[rows],
                    group_labels=table.group_labels, group_lines=table.group_lines,
                    notes=table.notes, why={**table.why, "road": why})
