"""What the columns of a table mean, and the coups or card sequences they hold.

Column names are matched after lower-casing and dropping everything but letters and
digits ("Player Card 1", "player_card1", "P1" are the same column). One coup per row:
card columns, or one hand string per hand, and/or the outcome and totals. One card per
row (``card``) or one shoe per row (``cards``/``sequence``): full card sequences.
"""

from __future__ import annotations

import re

import numpy as np

from ...cards import NO_CARD
from .records import CoupRecords, ImportDataError, SequenceRecords, run_starts, runs
from .tables import RawTable
from .tokens import (
    CARD_SEPARATORS,
    parse_cards,
    parse_hands,
    parse_outcomes,
    parse_totals,
    text_array,
)

_ROLES: tuple[tuple[str, str], ...] = (
    ("shoe", r"shoe|shoeid|shoeno|shoenum|shoenumber|shoeindex"),
    ("label", r"label|shoelabel|shoename"),
    ("coup", r"coup|coupid|coupno|coupnum|coupnumber|hand|handno|handnum|handnumber"
             r"|round|roundno"),
    ("outcome", r"outcome|winner|result|win|decision"),
    ("player_total", r"(?:player|p)(?:total|score|points)"),
    ("banker_total", r"(?:banker|b)(?:total|score|points)"),
    ("player_card1", r"(?:player|p)(?:card)?1"),
    ("player_card2", r"(?:player|p)(?:card)?2"),
    ("player_card3", r"(?:player|p)(?:card)?3"),
    ("banker_card1", r"(?:banker|b)(?:card)?1"),
    ("banker_card2", r"(?:banker|b)(?:card)?2"),
    ("banker_card3", r"(?:banker|b)(?:card)?3"),
    ("player_hand", r"player|(?:player|p)(?:cards|hand)"),
    ("banker_hand", r"banker|(?:banker|b)(?:cards|hand)"),
    ("card", r"card"),
    ("sequence", r"cards|sequence|shoecards"),
)
_PATTERNS = tuple((role, re.compile(pattern)) for role, pattern in _ROLES)

CARD_ROLES = ("player_card1", "player_card2", "player_card3",
              "banker_card1", "banker_card2", "banker_card3")
HAND_ROLES = ("player_hand", "banker_hand")
EXPECTED = ("an outcome column (outcome, winner or result), card columns (player_card1 .. "
            "banker_card3, or P1 .. B3), hand strings (player, banker), totals "
            "(player_total, banker_total), or a card sequence (card, one per row; or "
            "cards, one shoe per row)")


def normalise(name: str) -> str:
    """A column name as matched: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def role_of(name: str) -> str | None:
    """The role a column name plays (None: not a known column)."""
    key = normalise(name)
    for role, pattern in _PATTERNS:
        if pattern.fullmatch(key):
            return role
    return None


def assign_roles(table: RawTable) -> dict[str, str]:
    """Role -> column name; two columns with one role is an error."""
    roles: dict[str, str] = {}
    for name in table.columns:
        role = role_of(name)
        if role is None:
            continue
        if role in roles:
            raise ImportDataError(
                f"{table.source.path}: columns {roles[role]!r} and {name!r} are both the "
                f"{role.replace('_', ' ')} column; keep one"
            )
        roles[role] = name
    return roles


def table_records(table: RawTable) -> CoupRecords | SequenceRecords:
    """The coups or the card sequences a table holds, by its columns."""
    if not len(table):
        raise ImportDataError(f"{table.source.path}: no rows")
    roles = assign_roles(table)
    sequence_roles = [r for r in ("card", "sequence") if r in roles]
    coup_roles = [r for r in (*CARD_ROLES, *HAND_ROLES, "outcome", "player_total",
                              "banker_total") if r in roles]
    found = ", ".join(repr(n) for n in table.columns) or "none"
    if not sequence_roles and not coup_roles:
        raise ImportDataError(
            f"{table.source.path}: no column this importer knows (columns: {found}); "
            f"expected {EXPECTED}"
        )
    if len(sequence_roles) > 1 or (sequence_roles and coup_roles):
        names = ", ".join(repr(roles[r]) for r in (*sequence_roles, *coup_roles))
        raise ImportDataError(
            f"{table.source.path}: columns {names} mix card sequences with coups; a file "
            f"holds either coups (one per row) or card sequences"
        )
    if any(r in roles for r in CARD_ROLES) and any(r in roles for r in HAND_ROLES):
        raise ImportDataError(
            f"{table.source.path}: both card columns and hand strings "
            f"({', '.join(roles[r] for r in HAND_ROLES if r in roles)}); keep one"
        )
    if "sequence" in roles:
        return _whole_shoes(table, roles)
    shoe, labels = _shoes(table, roles)
    if "card" in roles:
        return _card_per_row(table, roles, shoe, labels)
    return _coups(table, roles, shoe, labels)


def _column(table: RawTable, roles: dict[str, str], role: str) -> np.ndarray:
    return table.columns[roles[role]]


def _shoes(table: RawTable, roles: dict[str, str]) -> tuple[np.ndarray, list[str]]:
    """Each row's shoe (0, 1, ...) and each shoe's label.

    Shoes split where the shoe or label column changes, where a JSON shoe object ends, or
    (with no shoe column) where the coup number does not go up.
    """
    keys = [_column(table, roles, r) for r in ("shoe", "label") if r in roles]
    if table.group is not None:
        keys.append(table.group)
    shoe = runs(*keys) if keys else np.zeros(len(table), dtype=np.int64)
    if "coup" in roles:
        shoe = _split_on_coup_numbers(table, roles, shoe, split=not keys)
    starts = run_starts(shoe)
    labels: list[str] = []
    label_column = next((_column(table, roles, r) for r in ("label", "shoe") if r in roles),
                        None)
    for start in starts:
        text = None
        if label_column is not None and label_column[start] is not None:
            text = str(label_column[start]).strip() or None
        if text is None and table.group is not None and table.group[start] >= 0:
            text = table.group_labels[int(table.group[start])]
        labels.append(text if text is not None
                      else table.source.default_label(int(table.lines[start])))
    return shoe, labels


def _split_on_coup_numbers(table: RawTable, roles: dict[str, str], shoe: np.ndarray,
                           split: bool) -> np.ndarray:
    raw = _column(table, roles, "coup")
    text = np.char.strip(text_array(raw))
    numeric = np.char.isdigit(text)
    if not numeric.all():
        i = int(np.flatnonzero(~numeric)[0])
        raise ImportDataError(
            f"{table.source.at(int(table.lines[i]))}: coup number {text[i]!r} is not a "
            f"whole number"
        )
    number = text.astype(np.int64)
    same_shoe = np.r_[False, shoe[1:] == shoe[:-1]]
    down = same_shoe & np.r_[False, number[1:] <= number[:-1]]
    if split:
        return runs(np.cumsum(down))
    if down.any():
        i = int(np.flatnonzero(down)[0])
        raise ImportDataError(
            f"{table.source.at(int(table.lines[i]))}: coup {number[i]} follows coup "
            f"{number[i - 1]} in the same shoe; rows must be in dealing order"
        )
    return shoe


def _coups(table: RawTable, roles: dict[str, str], shoe: np.ndarray,
           labels: list[str]) -> CoupRecords:
    source, lines, n = table.source, table.lines, len(table)
    cards = np.full((n, 6), NO_CARD, dtype=np.int8)
    for j, role in enumerate(CARD_ROLES):
        if role in roles:
            cards[:, j] = parse_cards(_column(table, roles, role), lines, source)
    for j, role in enumerate(HAND_ROLES):
        if role in roles:
            hand = role.split("_")[0]
            cards[:, 3 * j:3 * j + 3] = parse_hands(_column(table, roles, role), lines,
                                                    source, hand)
    missing = np.full(n, -1, dtype=np.int8)
    player_total = (parse_totals(_column(table, roles, "player_total"), lines, source,
                                 "player") if "player_total" in roles else missing.copy())
    banker_total = (parse_totals(_column(table, roles, "banker_total"), lines, source,
                                 "banker") if "banker_total" in roles else missing.copy())
    outcome = (parse_outcomes(_column(table, roles, "outcome"), lines, source)
               if "outcome" in roles else missing.copy())
    known = (cards >= 0).any(axis=1) | (outcome >= 0) | ((player_total >= 0)
                                                         & (banker_total >= 0))
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        raise ImportDataError(
            f"{source.at(int(lines[i]))}: a coup with no cards and no outcome; expected the "
            f"winner (B, P, T) or the cards of both hands"
        )
    return CoupRecords(source=source, line=lines.copy(), shoe=shoe, labels=labels,
                       cards=cards, player_total=player_total, banker_total=banker_total,
                       outcome=outcome)


def _card_per_row(table: RawTable, roles: dict[str, str], shoe: np.ndarray,
                  labels: list[str]) -> SequenceRecords:
    codes = parse_cards(_column(table, roles, "card"), table.lines, table.source)
    blank = np.flatnonzero(codes == NO_CARD)
    if blank.size:
        raise ImportDataError(
            f"{table.source.at(int(table.lines[blank[0]]))}: no card; a sequence lists every "
            f"card dealt, one per row"
        )
    starts = run_starts(shoe)
    cut = starts[1:]
    return SequenceRecords(
        source=table.source, sequences=np.split(codes, cut),
        lines=[int(table.lines[s]) for s in starts], labels=labels,
        card_lines=np.split(table.lines, cut),
    )


def _whole_shoes(table: RawTable, roles: dict[str, str]) -> SequenceRecords:
    words: list[str] = []
    counts: list[int] = []
    for value in _column(table, roles, "sequence"):
        cards = [w for w in CARD_SEPARATORS.split(str(value or "").strip()) if w]
        words.extend(cards)
        counts.append(len(cards))
    lines = table.lines
    empty = np.flatnonzero(np.asarray(counts) == 0)
    if empty.size:
        raise ImportDataError(f"{table.source.at(int(lines[empty[0]]))}: a shoe with no cards")
    word_lines = np.repeat(lines, counts)
    codes = parse_cards(np.asarray(words, dtype=object), word_lines, table.source)
    blank = np.flatnonzero(codes == NO_CARD)
    if blank.size:
        raise ImportDataError(
            f"{table.source.at(int(word_lines[blank[0]]))}: {words[blank[0]]!r} is not a "
            f"card; a sequence lists every card dealt, in order"
        )
    label_column = next((_column(table, roles, r) for r in ("label", "shoe") if r in roles),
                        None)
    labels = []
    for i, line in enumerate(lines):
        text = None if label_column is None or label_column[i] is None else str(
            label_column[i]).strip() or None
        if text is None and table.group is not None and table.group[i] >= 0:
            text = table.group_labels[int(table.group[i])]
        labels.append(text if text is not None else table.source.default_label(int(line)))
    return SequenceRecords(source=table.source,
                           sequences=np.split(codes, np.cumsum(counts)[:-1]),
                           lines=[int(x) for x in lines], labels=labels)
