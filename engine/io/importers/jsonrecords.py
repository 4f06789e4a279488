"""JSON files as tables: the one list of coup records of a document, wherever it sits.

The document is decoded once by the json module. The coups may sit anywhere: under
``coups``, ``events``, ``data.results``, ``args.history_v2``, or in shoe objects holding
them (``{"shoes": [{"shoe": "S1", "coups": [...]}]}``). Every list of objects is a
candidate, named by its dotted path; the candidates whose records have a coup column are
the coups, and there must be one (``--records PATH`` picks it among several). Nested
objects flatten to dotted names (``playerHand.cards``), matched like any column.

Lines come from the text: containers (objects and arrays) are met in a depth-first walk
of the decoded tree in the same order as their opening brackets in the text, so the n-th
container visited starts at the n-th bracket.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .guess.evidence import card_objects
from .guess.plan import unrelated
from .guess.road import road_record
from .layout import COUP_ROLES, role_of
from .records import ImportDataError, Source
from .tables import RawTable
from .tokens import listing

_SHOE_KEYS = ("shoe", "label", "shoeid", "shoelabel", "shoeno", "shoenumber", "name")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
#: How deep a JSON document may nest: far beyond any recorded shape, and well inside
#: Python's recursion limit.
MAX_DEPTH = 64
#: Longest integer literal read as a number; longer ones are kept as their text (and
#: refused where a number is expected), never converted (a 5,000-digit number).
_MAX_INT_DIGITS = 18
_SAMPLE = 20


def _bracket_positions(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of opening and closing brackets outside strings, and of newlines."""
    if b"\\" in data:  # escapes (rare here): blank out the strings, keeping positions
        data = _STRING.sub(lambda m: b" " * len(m.group()), data)
    raw = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(raw == ord('"'))
    opening = np.flatnonzero((raw == ord("{")) | (raw == ord("[")))
    closing = np.flatnonzero((raw == ord("}")) | (raw == ord("]")))
    # without escapes, a bracket is inside a string when an odd number of quotes precede it
    opening = opening[np.searchsorted(quotes, opening) % 2 == 0]
    closing = closing[np.searchsorted(quotes, closing) % 2 == 0]
    return opening, closing, np.flatnonzero(raw == ord("\n"))


def opening_lines(text: str) -> np.ndarray:
    """The line of every '{' and '[' outside strings, in text order."""
    opening, _, newlines = _bracket_positions(text.encode("utf-8"))
    return np.searchsorted(newlines, opening) + 1


def check_depth(source: Source, text: str, line_offset: int = 0) -> None:
    """Refuse JSON nested deeper than ``MAX_DEPTH``, naming the line where it goes too deep
    (checked on the raw text, before any decoding could exhaust the stack)."""
    opening, closing, newlines = _bracket_positions(text.encode("utf-8"))
    if opening.size <= MAX_DEPTH:
        return
    position = np.concatenate([opening, closing])
    step = np.concatenate([np.ones(opening.size, np.int64), -np.ones(closing.size, np.int64)])
    order = np.argsort(position, kind="stable")
    depth = np.cumsum(step[order])
    if depth.size and depth.max() > MAX_DEPTH:
        at = int(position[order][int(np.argmax(depth > MAX_DEPTH))])
        line = int(np.searchsorted(newlines, at)) + 1 + line_offset
        raise ImportDataError(
            f"{source.at(line)}: JSON nested more than {MAX_DEPTH} levels deep; recorded "
            f"coups never nest that far")


def _parse_int(text: str) -> int | str:
    return int(text) if len(text.lstrip("-")) <= _MAX_INT_DIGITS else text


class _DuplicateKey(Exception):
    """An object with one key twice (its containers would throw the line count off)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        keys = [key for key, _ in pairs]
        raise _DuplicateKey(next(key for key in keys if keys.count(key) > 1))
    return record


def loads(text: str, unique_keys: bool = False) -> Any:
    """``json.loads``, with integers too long for Python to convert (thousands of digits)
    kept as text (see ``_MAX_INT_DIGITS``) rather than failing."""
    hook = _unique_keys if unique_keys else None
    try:
        return json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError:
        raise
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return json.loads(text, parse_int=_parse_int, object_pairs_hook=hook)


def decode(source: Source, text: str, unique_keys: bool = False) -> list[Any]:
    """The document's top-level values: one, or one per line for JSON lines.

    With ``unique_keys`` an object with a key twice is an error.
    """
    check_depth(source, text)
    try:
        try:
            return [loads(text, unique_keys)]
        except json.JSONDecodeError as exc:
            if not exc.msg.startswith("Extra data"):
                raise ImportDataError(
                    f"{source.at(exc.lineno)}: invalid JSON: {exc.msg} (column {exc.colno})"
                ) from None
        values = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                values.append(loads(line, unique_keys))
            except json.JSONDecodeError as exc:
                raise ImportDataError(
                    f"{source.at(number)}: invalid JSON: {exc.msg} (column {exc.colno})"
                ) from None
        return values
    except _DuplicateKey as exc:
        raise ImportDataError(
            f"{source.path}: an object has the key {exc.args[0]!r} twice"
        ) from None


def scalar_text(value: Any) -> str | None:
    """A JSON scalar as the text a column holds (whole floats without '.0')."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def is_record_list(value: Any) -> bool:
    """Whether ``value`` is a non-empty list of objects (a candidate list of records), not
    a hand's card objects (``guess.evidence.card_objects``)."""
    return (isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
            and card_objects(value) is None)


def flatten(record: dict[str, Any], prefix: str = "",
            flat: dict[str, str | None] | None = None) -> dict[str, str | None]:
    """``record``'s values as text under dotted names (``playerHand.cards``); lists of
    scalars (cards) are joined by spaces; lists of records (shoes' coups) are left out."""
    flat = {} if flat is None else flat
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flatten(value, f"{name}.", flat)
        elif isinstance(value, list):
            if is_record_list(value):
                continue
            cards = card_objects(value)
            flat[name] = " ".join(cards) if cards is not None else " ".join(
                str(scalar_text(v)) for v in value if not isinstance(v, dict | list))
        else:
            flat[name] = scalar_text(value)
    return flat


@lru_cache(maxsize=4096)
def cached_role(name: str) -> str | None:
    """``role_of`` remembered (message streams repeat the same few keys millions of times)."""
    return role_of(name)


def coup_like(records: list[dict[str, Any]], path: str = "") -> bool:
    """Whether records look like coups: a sample of them names a coup field, outside
    objects that hold no coup (``plan.unrelated``: diagnostics, multipliers...)."""
    if path and unrelated(path + ".x"):
        return False
    for record in records[:_SAMPLE]:
        flat = flatten(record)
        if any(cached_role(name) in COUP_ROLES and not unrelated(name) for name in flat):
            return True
        if road_record(flat):
            return True
    return False


def is_shoe_list(value: Any) -> bool:
    """Whether ``value`` is a list of shoes: a non-empty list of non-empty lists (of
    outcomes, cards or coup records), nested to any depth."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(v, list) and v for v in value)
            and not is_record_list(value))


def innermost_lists(value: list[Any]) -> list[list[Any]]:
    """The innermost lists of a list of lists (each one shoe)."""
    found: list[list[Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if any(isinstance(v, list) for v in item):
            stack.extend(reversed([v for v in item if isinstance(v, list)]))
        else:
            found.append(item)
    return found


@dataclass
class Candidate:
    """A list of records at a dotted path: every list found there, and each one's holder
    (the object it is a value of; None for the top level)."""

    path: str
    lists: list[list[Any]] = field(default_factory=list)
    holders: list[dict[str, Any] | list[Any] | None] = field(default_factory=list)
    #: whether each holder is a shoe object (an element of a list) rather than the document
    grouped: list[bool] = field(default_factory=list)
    #: a list of shoes: each of ``lists`` is one shoe (of outcomes, cards or coup records)
    shoes: bool = False

    def coup_like(self) -> bool:
        """Whether the lists hold coups (or shoes of outcomes, cards or coups)."""
        if self.path and unrelated(self.path + ".x"):
            return False
        if self.shoes:
            return any(coup_like([r for r in items[:3] if isinstance(r, dict)], self.path)
                       if any(isinstance(r, dict) for r in items)
                       else _shoe_of_scalars(items) for items in self.lists[:3])
        return coup_like([r for items in self.lists for r in items[:3]], self.path)

    @property
    def records(self) -> int:
        """How many records the lists hold together."""
        return sum(len(items) for items in self.lists)

    def describe(self) -> str:
        """'data.results (80 records)'."""
        return f"{self.path or '(top level)'} ({self.records:,} records)"


def candidates(values: list[Any]) -> dict[str, Candidate]:
    """Every list of records in the document's top-level ``values``, by dotted path."""
    found: dict[str, Candidate] = {}

    def add(path: str, items: list[dict[str, Any]], holder: dict[str, Any] | None,
            grouped: bool) -> None:
        candidate = found.setdefault(path, Candidate(path))
        candidate.lists.append(items)
        candidate.holders.append(holder)
        candidate.grouped.append(grouped)

    def add_shoes(path: str, value: list[Any]) -> None:
        candidate = found.setdefault(path, Candidate(path, shoes=True))
        for inner in innermost_lists(value):
            candidate.lists.append(inner)
            candidate.holders.append(inner)
            candidate.grouped.append(True)
            for item in inner:
                if isinstance(item, dict):
                    walk(item, path, True)

    def walk(obj: dict[str, Any], path: str, in_list: bool) -> None:
        # recursion is bounded: check_depth refused documents nested past MAX_DEPTH
        for key, value in obj.items():
            name = f"{path}.{key}" if path else key
            if is_record_list(value):
                add(name, value, obj, in_list)
                for item in value:
                    walk(item, name, True)
            elif is_shoe_list(value):
                add_shoes(name, value)
            elif isinstance(value, dict):
                walk(value, name, in_list)

    top_records = [v for v in values if isinstance(v, dict)]
    if len(values) > 1 and all(isinstance(v, list) and v for v in values):
        add_shoes("", values)  # JSON lines, a shoe per line
        return found
    for value in values:
        if is_record_list(value):
            add("", value, None, False)
            for item in value:
                walk(item, "", True)
        elif is_shoe_list(value):
            add_shoes("", value)
    if len(values) > 1 and top_records:  # JSON lines: each line is an element of the file
        add("", top_records, None, False)
        for item in top_records:
            walk(item, "", True)
    elif len(values) == 1 and isinstance(values[0], dict):
        walk(values[0], "", False)
    return found


def _likely(candidate: Candidate) -> tuple[bool, int]:
    return (not candidate.coup_like(), -candidate.records)


def choose(source: Source, found: dict[str, Candidate], records: str | None) -> Candidate:
    """The candidate holding the coups: ``records`` (a dotted path) if given, else the one
    whose records look like coups. Lists of candidates in errors: the ten most likely
    (coup-like first, then the longest), then how many more."""
    ranked = sorted(found.values(), key=_likely)
    every = listing([c.describe() for c in ranked]) or "none"
    if records is not None:
        key = records.strip(".")
        if key in found:
            return found[key]
        raise ImportDataError(f"{source.path}: --records {records}: no list of records "
                              f"there (lists of records: {every})")
    coups = [c for c in ranked if c.coup_like()]
    if len(coups) == 1:
        return coups[0]
    if not coups:
        more = f" (lists of records: {every})" if found else ""
        raise ImportDataError(f"{source.path}: no records with a coup column found{more}; "
                              f"map columns with --column FIELD=SOURCE")
    listed = listing([c.describe() for c in coups])
    raise ImportDataError(f"{source.path}: several lists of coup records: {listed}; "
                          f"choose one with --records PATH")


def _shoe_of_scalars(items: list[Any]) -> bool:
    """Whether a list of scalars is a shoe: outcomes or cards."""
    from .guess.profile import value_kinds

    sample = [scalar_text(v) or "" for v in items[:_SAMPLE] if not isinstance(v, dict | list)]
    if not sample:
        return False
    kinds = [value_kinds(text)[0] for text in sample]
    return (all("outcome_or_outcomes" in k for k in kinds)
            or all("card" in k for k in kinds) and len(items) >= 4)


def one_coup(values: list[Any]) -> dict[str, str | None] | None:
    """A document that is itself one coup (a game-state message: ``args.gameData`` with
    the hands and the result), flattened; None when it names no coup field."""
    if len(values) != 1 or not isinstance(values[0], dict):
        return None
    flat = flatten(values[0])
    return flat if coup_like([values[0]]) else None


def _ordinals(values: list[Any], wanted: set[int]) -> tuple[dict[int, int], int]:
    """The pre-order position of the ``wanted`` containers (by id), and how many there are."""
    positions: dict[int, int] = {}
    count = 0
    stack = list(reversed(values))
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            children = [v for v in value.values() if isinstance(v, dict | list)]
        elif isinstance(value, list):
            children = [v for v in value if isinstance(v, dict | list)]
        else:
            continue
        if id(value) in wanted:
            positions[id(value)] = count
        count += 1
        stack.extend(reversed(children))
    return positions, count


def _shoe_label(holder: dict[str, Any]) -> str | None:
    return next((scalar_text(v) for k, v in holder.items()
                 if re.sub(r"[^a-z0-9]", "", k.lower()) in _SHOE_KEYS
                 and not isinstance(v, list | dict)), None)


def _shoe_rows(source: Source, brackets: np.ndarray, values: list[Any],
               chosen: Candidate) -> RawTable:
    """A list of shoes, each a list of outcomes or cards: one row per shoe, its values
    joined by spaces (a scorecard string or a card sequence, told by the content)."""
    wanted = {id(items) for items in chosen.lists}
    positions, _ = _ordinals(values, wanted)
    name = "shoes"  # one column of whole shoes (its content tells outcomes from cards)
    rows = [" ".join(scalar_text(v) or "" for v in items if not isinstance(v, dict | list))
            for items in chosen.lists]
    lines = [int(brackets[positions[id(items)]]) for items in chosen.lists]
    return RawTable(source=source, columns={name: np.asarray(rows, dtype=object)},
                    lines=np.asarray(lines, dtype=np.int64))


def read_json(source: Source, text: str, records: str | None = None) -> RawTable:
    """JSON (a document or JSON lines): the one list of coup records, wherever it sits,
    each record flattened to dotted names; shoe objects holding coups make the shoes."""
    if not text.strip():
        raise ImportDataError(f"{source.path}: empty file")
    values = decode(source, text)
    return values_table(source, values, opening_lines(text), records, text=text)


@dataclass
class Groups:
    """The shoe objects (or lists) met so far: their labels and lines, shared by every
    batch of one file so their numbers run on."""

    labels: list[str | None] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    #: the number of the one shoe object outside a streamed list (None: not met yet)
    outer: int | None = None


def values_table(source: Source, values: list[Any], brackets: np.ndarray,
                 records: str | None = None, *, text: str | None = None,
                 groups: Groups | None = None, outer_label: str | None = None) -> RawTable:
    """The coup records of decoded JSON ``values`` as a table; ``brackets`` holds the line
    of each container in pre-order (``opening_lines``). ``groups`` (when given) numbers
    shoe objects on from earlier batches; ``outer_label`` labels records whose list sits
    in an object of the document outside the batch."""
    if not any(isinstance(v, dict | list) for v in values):
        raise ImportDataError(f"{source.path}: expected an object (a coup or a shoe), "
                              f"found {json.dumps(values[0])[:40]}")
    found = candidates(values)
    if records is None and not any(c.coup_like() for c in found.values()):
        single = one_coup(values)
        if single is not None:
            return RawTable(source=source,
                            columns={n: np.array([v], dtype=object) for n, v in single.items()},
                            lines=np.array([1], dtype=np.int64))
    if not found:
        raise ImportDataError(f"{source.path}: no list of records found (expected coup "
                              f"objects, shoe objects holding them, or lists of shoes)")
    chosen = choose(source, found, records)
    if chosen.shoes and not any(isinstance(r, dict) for items in chosen.lists for r in items):
        return _shoe_rows(source, brackets, values, chosen)
    wanted = {id(r) for items in chosen.lists for r in items}
    wanted |= {id(h) for h in chosen.holders if h is not None}
    positions, count = _ordinals(values, wanted)
    if count != brackets.size:  # the decoder dropped a repeated key's value
        if text is not None:
            decode(source, text, unique_keys=True)  # names it
        raise ImportDataError(f"{source.path}: cannot place the records on their lines")
    flat_records: list[dict[str, str | None]] = []
    lines: list[int] = []
    group_of: list[int] = []
    groups = groups if groups is not None else Groups()
    for items, holder, grouped in zip(chosen.lists, chosen.holders, chosen.grouped,
                                      strict=True):
        group = -1
        items = [r for r in items if isinstance(r, dict)]
        label = outer_label if holder is None else (
            _shoe_label(holder) if isinstance(holder, dict) else None)
        if holder is not None and (grouped or label is not None) or label is not None:
            groups.labels.append(label)
            groups.lines.append(int(brackets[positions[id(holder)]]) if holder is not None
                                else 1)
            group = len(groups.labels) - 1
        for record in items:
            flat_records.append(flatten(record))
            lines.append(int(brackets[positions[id(record)]]))
            group_of.append(group)
    names: dict[str, None] = {}
    for record in flat_records:
        names.update(dict.fromkeys(record))
    columns = {name: np.array([record.get(name) for record in flat_records], dtype=object)
               for name in names}
    group_array = np.asarray(group_of, dtype=np.int64)
    return RawTable(source=source, columns=columns, lines=np.asarray(lines, np.int64),
                    group=group_array if (group_array >= 0).any() else None,
                    group_labels=groups.labels, group_lines=groups.lines)
