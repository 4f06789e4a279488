"""JSON files as tables: the coup (or shoe) records of a document, each with its line.

The document is decoded once by the json module. Lines come from the text: containers
(objects and arrays) are met in a depth-first walk of the decoded tree in the same order
as their opening brackets in the text, so the n-th container visited starts at the n-th
bracket.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from .records import ImportDataError, Source
from .tables import RawTable

_SHOE_KEYS = ("shoe", "label", "shoeid", "shoelabel", "shoeno", "shoenumber", "name")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def opening_lines(text: str) -> np.ndarray:
    """The line of every '{' and '[' outside strings, in text order."""
    data = text.encode("utf-8")
    if b"\\" in data:  # escapes (rare here): blank out the strings, keeping positions
        data = _STRING.sub(lambda m: b" " * len(m.group()), data)
    raw = np.frombuffer(data, dtype=np.uint8)
    opening = np.flatnonzero((raw == ord("{")) | (raw == ord("[")))
    # without escapes, a bracket is inside a string when an odd number of quotes precede it
    quotes_before = np.searchsorted(np.flatnonzero(raw == ord('"')), opening)
    opening = opening[quotes_before % 2 == 0]
    newlines = np.flatnonzero(raw == ord("\n"))
    return np.searchsorted(newlines, opening) + 1


class _DuplicateKey(Exception):
    """An object with one key twice (its containers would throw the line count off)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        keys = [key for key, _ in pairs]
        raise _DuplicateKey(next(key for key in keys if keys.count(key) > 1))
    return record


def decode(source: Source, text: str, unique_keys: bool = False) -> list[Any]:
    """The document's top-level values: one, or one per line for JSON lines.

    With ``unique_keys`` an object with a key twice is an error.
    """
    hook = _unique_keys if unique_keys else None
    try:
        try:
            return [json.loads(text, object_pairs_hook=hook)]
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
                values.append(json.loads(line, object_pairs_hook=hook))
            except json.JSONDecodeError as exc:
                raise ImportDataError(
                    f"{source.at(number)}: invalid JSON: {exc.msg} (column {exc.colno})"
                ) from None
        return values
    except _DuplicateKey as exc:
        raise ImportDataError(
            f"{source.path}: an object has the key {exc.args[0]!r} twice"
        ) from None


def _containers(value: Any) -> int:
    """How many objects and arrays ``value`` is and holds."""
    if isinstance(value, dict):
        return 1 + sum(_containers(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_containers(v) for v in value if isinstance(v, dict | list))
    return 0


class _Walk:
    """Finds the record objects of a decoded document, with their lines and shoes."""

    def __init__(self, source: Source, text: str) -> None:
        self.source = source
        self.lines_of_brackets = opening_lines(text)
        self.next = 0
        self.records: list[dict[str, str | None]] = []
        self.lines: list[int] = []
        self.groups: list[int] = []
        self.group_labels: list[str | None] = []
        self.group_lines: list[int] = []

    def take(self, count: int = 1) -> int:
        """The line of the next container; skips ``count`` containers."""
        known = self.lines_of_brackets
        line = int(known[min(self.next, known.size - 1)]) if known.size else 1
        self.next += count
        return line

    def value(self, value: Any, group: int, top: bool) -> None:
        if isinstance(value, list):
            self.take()
            for item in value:
                self.value(item, group, top=False)
        elif isinstance(value, dict):
            self.object(value, group, top)
        else:
            line = self.take(0)
            raise ImportDataError(
                f"{self.source.at(line)}: expected an object (a coup or a shoe), "
                f"found {json.dumps(value)[:40]}"
            )

    def object(self, value: dict[str, Any], group: int, top: bool) -> None:
        nested = [k for k, v in value.items()
                  if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        if not nested:
            flat: dict[str, str | None] = {}
            self.lines.append(self.take(_flatten(value, "", flat)))
            self.records.append(flat)
            self.groups.append(group)
            return
        line = self.take()
        if len(nested) > 1:
            raise ImportDataError(
                f"{self.source.at(line)}: an object holds several lists of records "
                f"({', '.join(nested)}); expected one list of coups per shoe"
            )
        label = next((_scalar_text(v) for k, v in value.items()
                      if _key(k) in _SHOE_KEYS and not isinstance(v, list | dict)), None)
        if not top or label is not None:
            self.group_labels.append(label)
            self.group_lines.append(line)
            group = len(self.group_labels) - 1
        for key, item in value.items():
            if key == nested[0]:
                self.value(item, group, top=False)
            else:
                self.take(_containers(item))


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _scalar_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _flatten(record: dict[str, Any], prefix: str, flat: dict[str, str | None]) -> int:
    """Put ``record``'s values into ``flat`` as text (nested objects as ``outer_inner``,
    lists joined by spaces); returns how many containers it is and holds."""
    containers = 1
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            containers += _flatten(value, f"{name}_", flat)
        elif isinstance(value, list):
            if all(isinstance(v, str) for v in value):  # a list of cards
                containers += 1
                flat[name] = " ".join(value)
            else:
                containers += _containers(value)
                flat[name] = " ".join(str(_scalar_text(v)) for v in value)
        else:
            flat[name] = _scalar_text(value)
    return containers


def read_json(source: Source, text: str) -> RawTable:
    """JSON: coup records in an array, in ``{"coups": [...]}``, nested in shoe objects
    (``[{"shoe": "S1", "coups": [...]}]``), or JSON lines; nested objects flatten to
    ``outer_inner`` names and lists of cards join with spaces."""
    if not text.strip():
        raise ImportDataError(f"{source.path}: empty file")
    walk = _Walk(source, text)
    for value in decode(source, text):
        walk.value(value, group=-1, top=True)
    if walk.next != len(walk.lines_of_brackets):  # the decoder dropped a repeated key's value
        decode(source, text, unique_keys=True)  # names it
        raise ImportDataError(f"{source.path}: cannot place the records on their lines")
    if not walk.records:
        raise ImportDataError(f"{source.path}: no records found")
    names: dict[str, None] = {}
    for record in walk.records:
        names.update(dict.fromkeys(record))
    columns = {name: np.array([record.get(name) for record in walk.records], dtype=object)
               for name in names}
    groups = np.asarray(walk.groups, dtype=np.int64)
    return RawTable(source=source, columns=columns, lines=np.asarray(walk.lines, np.int64),
                    group=groups if (groups >= 0).any() else None,
                    group_labels=walk.group_labels, group_lines=walk.group_lines)
