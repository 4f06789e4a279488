"""JSON files as tables: the one list of coup records of a document, wherever it sits.

The document is parsed by ijson (its C parser, yajl2_c, where the platform has it), fed a
line at a time, so every object and list is built knowing the line it opens on. The coups
may sit anywhere: under ``coups``, ``events``, ``data.results``, ``args.history_v2``, or
in shoe objects holding them (``{"shoes": [{"shoe": "S1", "coups": [...]}]}``). Every
list of objects is a candidate, named by its dotted path; the candidates whose records
have a coup column are the coups, and there must be one (``--records PATH`` picks it
among several). Nested objects flatten to dotted names (``playerHand.cards``), matched
like any column. JSON lines (several values one after the other) are read alike.

A file up to ``WHOLE_BYTES`` is built whole. A bigger one is built as far as its first
``SAMPLE_BYTES``, which tell which list holds the coups (as for a whole document); from
there each element of the outermost list on the way to the coups (a coup record, a shoe
object, a shoe's list; a value of JSON lines) is handed on with the others of its batch
as soon as it is complete, and let go: memory holds a batch and the shoes' labels,
whatever the size of the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

import ijson
import numpy as np

from .guess.evidence import card_objects
from .guess.plan import unrelated
from .guess.road import road_record
from .layout import COUP_ROLES, role_of
from .lines import open_to_read
from .records import ImportDataError, Source
from .tables import RawTable
from .tokens import listing

try:  # the C parser, in ijson's wheels for the common platforms
    _IJSON = ijson.get_backend("yajl2_c")
except ImportError:  # elsewhere ijson's best
    _IJSON = ijson

_SHOE_KEYS = ("shoe", "label", "shoeid", "shoelabel", "shoeno", "shoenumber", "name")
#: How deep a JSON document may nest: far beyond any recorded shape, and well inside
#: Python's recursion limit.
MAX_DEPTH = 64
_SAMPLE = 20
#: Records of each list looked at to choose the list of coups by content.
_CHOICE = 200
#: Files up to this size are built whole; a bigger one is sampled this far.
WHOLE_BYTES = 16 << 20
SAMPLE_BYTES = 4 << 20
#: Elements handed on together.
BATCH_ELEMENTS = 20_000
#: The most bytes fed to the parser at once (a piece ends at the end of its line).
PIECE_BYTES = 1 << 16
#: A run of this many digits is refused before the parser meets it: ijson's C parser
#: fails (a crash, in 3.6) on an integer too long for Python to convert (4,300 digits).
LONG_DIGITS = 2_000
_DIGITS = re.compile(rb"(?<![0-9])[0-9]{%d}" % LONG_DIGITS)


_SCALARS = frozenset({"string", "number", "boolean", "null"})


class _Tree:
    """JSON values built from ijson's events, with the line each object and list opens on.

    ``lines`` holds those lines in the order the containers open, which is the order of a
    depth-first walk of the values (``_ordinals``): the n-th container of the walk opened
    on ``lines[n]``. Once ``outer`` is set (a list of the values, or ``values`` itself),
    its elements are taken off as they complete, with their lines (``complete``, ``take``).
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self.values: list[Any] = []
        self.stack: list[Any] = []
        self.lines: list[int] = []
        self.key = ""
        self.seen = False  # any value at all
        self.outer: list[Any] | None = None
        self.depth = -1  # where ``outer`` is on ``stack`` (-1: it is ``values``)
        self.starts: list[int] = []  # where each element of ``outer`` opens in ``lines``
        self.end: int | None = None  # the length of ``lines`` when ``outer`` closed

    def feed(self, line: int, events: list[tuple[str, Any]]) -> None:
        """Build on with the events of one piece of ``line``."""
        stack, lines, outer, key = self.stack, self.lines, self.outer, self.key
        parent: Any = stack[-1] if stack else self.values
        in_map = type(parent) is dict
        for event, value in events:
            if event == "map_key":
                key = value
            elif event in _SCALARS:
                if event == "number" and type(value) is not int:
                    value = float(value)  # a Decimal: read as json.loads reads it
                if in_map:
                    parent[key] = value
                elif parent is not outer:  # a scalar among streamed elements: left out
                    parent.append(value)
            elif event == "start_map" or event == "start_array":
                child: Any = {} if event == "start_map" else []
                if in_map:
                    if key in parent:  # the walk would miss the first one's lines
                        raise ImportDataError(f"{self.source.at(line)}: an object has the "
                                              f"key {key!r} twice")
                    parent[key] = child
                else:
                    if parent is outer:
                        self.starts.append(len(lines))
                    parent.append(child)
                lines.append(line)
                stack.append(child)
                if len(stack) > MAX_DEPTH:
                    raise ImportDataError(
                        f"{self.source.at(line)}: JSON nested more than {MAX_DEPTH} levels "
                        f"deep; recorded coups never nest that far")
                parent, in_map = child, event == "start_map"
            else:
                if stack.pop() is outer:
                    self.end = len(lines)
                parent = stack[-1] if stack else self.values
                in_map = type(parent) is dict
        self.key = key
        self.seen = self.seen or bool(events)

    def stream(self, outer: list[Any]) -> None:
        """Take ``outer``'s elements off as they complete from now on; those it holds
        already are found by a walk of the values built so far."""
        outer[:] = [v for v in outer if isinstance(v, dict | list)]
        positions, _ = _ordinals(self.values, {id(v) for v in outer})
        self.starts = [positions[id(v)] for v in outer]
        self.outer = outer
        self.depth = next((i for i, v in enumerate(self.stack) if v is outer), -1)
        if self.depth < 0 and outer is not self.values:
            self.end = len(self.lines)  # closed already

    def complete(self) -> int:
        """How many of ``outer``'s elements are complete."""
        assert self.outer is not None
        return len(self.outer) - (self.end is None and len(self.stack) > self.depth + 1)

    def take(self, count: int) -> tuple[list[Any], list[np.ndarray]]:
        """The first ``count`` (one or more) elements of ``outer``, taken off, with the
        lines of each one's containers (in walk order)."""
        assert self.outer is not None and count > 0
        ends = self.starts[1:count + 1]
        if len(ends) < count:  # the last complete element ends where ``lines`` do
            ends.append(len(self.lines) if self.end is None else self.end)
        cut = ends[-1]
        lines = np.asarray(self.lines[:cut], dtype=np.int64)
        taken = [lines[a:b] for a, b in zip(self.starts[:count], ends, strict=True)]
        elements = self.outer[:count]
        del self.outer[:count], self.starts[:count], self.lines[:cut]
        self.starts = [s - cut for s in self.starts]
        if self.end is not None:
            self.end -= cut
        return elements, taken


class _Parser:
    """ijson fed a file a piece at a time (each within one line), building a ``_Tree``."""

    def __init__(self, handle: BinaryIO, source: Source) -> None:
        self.source = source
        self.tree = _Tree(source)
        self.events = ijson.sendable_list()
        self.coroutine = _IJSON.basic_parse_coro(self.events, multiple_values=True)
        self.handle = handle
        self.line = 1
        self.fed = 0
        self.done = False

    def feed(self, until: int | None = None, stop: bool = False) -> None:
        """Parse on until ``until`` bytes are fed (None: to the end), or ``stop`` is set
        and the streamed list has closed, or ``BATCH_ELEMENTS`` of it are complete."""
        tree = self.tree
        while not self.done:
            if until is not None and self.fed >= until:
                return
            if stop and (tree.end is not None or tree.complete() >= BATCH_ELEMENTS):
                return
            piece = self.handle.readline(PIECE_BYTES)
            if not self.fed and piece.startswith(b"\xef\xbb\xbf"):
                piece = piece[3:]
            self.fed += len(piece)
            try:
                if not piece:
                    self.done = True
                    self.coroutine.close()
                elif len(piece) >= LONG_DIGITS and _DIGITS.search(piece):
                    raise ImportDataError(
                        f"{self.source.at(self.line)}: a run of {LONG_DIGITS:,} digits or "
                        f"more; recorded coups hold no number that long")
                else:
                    self.coroutine.send(piece)
            except ijson.JSONError as exc:
                if not tree.seen and not self.events:
                    raise ImportDataError(f"{self.source.path}: empty file") from None
                raise ImportDataError(f"{self.source.at(self.line)}: invalid JSON: "
                                      f"{_reason(exc)}") from None
            tree.feed(self.line, self.events)
            del self.events[:]
            if piece.endswith(b"\n"):
                self.line += 1


def _reason(exc: Exception) -> str:
    """The first line of the parser's message (yajl's next lines point at the place, in a
    copy of the text)."""
    text = exc.args[0] if exc.args else ""
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return text.strip().split("\n")[0].rstrip(".") or type(exc).__name__


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
            flat: dict[str, str | None] | None = None,
            left: set[str] | None = None) -> dict[str, str | None]:
    """``record``'s values as text under dotted names (``playerHand.cards``); lists of
    scalars (cards) are joined by spaces; lists of records (shoes' coups, a ledger's bets)
    are left out, and named in ``left`` when it is given."""
    flat = {} if flat is None else flat
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flatten(value, f"{name}.", flat, left)
        elif isinstance(value, list):
            if is_record_list(value):
                if left is not None:
                    left.add(name)
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
    #: why it was chosen, when its content chose it (for --dry-run)
    why: str = ""

    def coup_like(self) -> bool:
        """Whether the lists hold coups (or shoes of outcomes, cards or coups)."""
        if self.path and unrelated(self.path + ".x"):
            return False
        if self.shoes:
            return any(coup_like([r for r in items[:3] if isinstance(r, dict)], self.path)
                       if any(isinstance(r, dict) for r in items)
                       else _shoe_of_scalars(items) for items in self.lists[:3])
        return coup_like([r for items in self.lists for r in items[:3] if isinstance(r, dict)],
                         self.path)

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
    coups = [c for c in ranked if c.coup_like()] or _by_content(source, found)
    if len(coups) == 1:
        return coups[0]
    if not coups:
        more = f" (lists of records: {every})" if found else ""
        raise ImportDataError(f"{source.path}: no records with a coup column found{more}; "
                              f"map columns with --column FIELD=SOURCE")
    listed = listing([c.describe() for c in coups])
    raise ImportDataError(f"{source.path}: several lists of coup records: {listed}; "
                          f"choose one with --records PATH")


def _by_content(source: Source, found: dict[str, Candidate]) -> list[Candidate]:
    """Lists of records none of whose keys names a coup field (a ledger kept in Japanese):
    the one whose records hold the most coup fields by content, as for a database's
    tables (``guess.evidence.table_of_coups``), on the first records of each; those
    holding as many when several do; none when none holds one."""
    from .guess.evidence import coup_evidence, table_of_coups
    from .layout import plan_table

    evidence: dict[str, list[str]] = {}
    for path, candidate in found.items():
        records = [r for items in candidate.lists for r in items[:_CHOICE] if isinstance(r, dict)]
        if candidate.shoes or not records or path and unrelated(path + ".x"):
            continue
        table = _flat_table(source, [flatten(r) for r in records[:_CHOICE]],
                            list(range(1, len(records[:_CHOICE]) + 1)))
        try:
            plan = plan_table(table)
        except ImportDataError:
            continue
        evidence[path or "(top level)"] = coup_evidence(plan.roles, plan.why)
    best, why = table_of_coups(evidence)
    if best is None:
        most = max(map(len, evidence.values()), default=0)
        return [found["" if p == "(top level)" else p] for p, e in evidence.items()
                if most and len(e) == most]
    chosen = found["" if best == "(top level)" else best]
    chosen.why = why
    return [chosen]


def _flat_table(source: Source, flat: list[dict[str, str | None]], lines: list[int],
                **more: Any) -> RawTable:
    """Flattened records as a table: a column per name any of them has."""
    names: dict[str, None] = {}
    for record in flat:
        names.update(dict.fromkeys(record))
    return RawTable(source=source,
                    columns={n: np.array([r.get(n) for r in flat], dtype=object)
                             for n in names},
                    lines=np.asarray(lines, dtype=np.int64), **more)


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


def json_blocks(path: Path, records: str | None = None) -> Iterator[RawTable]:
    """The coup records of a JSON file as tables (see the module docstring): one for a
    file built whole, one per batch of elements for a bigger one."""
    source = Source(path)
    with open_to_read(path) as handle:
        parser = _Parser(handle, source)
        tree = parser.tree
        parser.feed(SAMPLE_BYTES if path.stat().st_size > WHOLE_BYTES else None)
        if not tree.seen and parser.done:
            raise ImportDataError(f"{path}: empty file")
        if parser.done:
            yield values_table(source, tree.values, np.asarray(tree.lines, dtype=np.int64),
                               records)
            return
        chosen = choose(source, candidates(tree.values), records)
        outer_label = None
        relative = chosen.path
        if len(tree.values) > 1:  # JSON lines: each value is an element
            outer = tree.values
        else:
            found, holder = _outer_list(tree.values, chosen.path)
            if found is None or not any(isinstance(v, dict | list) for v in found):
                raise ImportDataError(
                    f"{path}: too big to read whole ({path.stat().st_size:,} bytes), and "
                    f"its coups are in no list of objects or lists to read a piece at a time")
            outer = found
            relative = chosen.path[len(_path_to(tree.values[0], outer)):].lstrip(".")
            outer_label = _shoe_label(holder) if holder is not None else None
        tree.stream(outer)
        groups = Groups()
        while True:
            parser.feed(stop=True)
            finished = parser.done or tree.end is not None
            while (count := tree.complete()) >= BATCH_ELEMENTS or finished and count:
                elements, lines = tree.take(min(count, BATCH_ELEMENTS))
                yield _batch_table(source, elements, lines, relative, groups, outer_label,
                                   chosen.why)
            if finished:
                return


def _outer_list(values: list[Any], path: str) -> tuple[list[Any] | None, dict[str, Any] | None]:
    """The outermost list on the way to the records at ``path``, and the object holding
    it (None: the document itself is that list)."""
    value: Any = values[0]
    holder: dict[str, Any] | None = None
    if isinstance(value, list):
        return value, None
    for key in path.split(".") if path else []:
        if not isinstance(value, dict) or key not in value:
            return None, None
        holder, value = value, value[key]
        if isinstance(value, list):
            return value, holder
    return None, None


def _path_to(document: Any, target: list[Any]) -> str:
    """The dotted path of the list ``target`` in ``document`` (found through objects)."""
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        value, path = stack.pop()
        if value is target:
            return path
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else k) for k, v in value.items()
                         if isinstance(v, dict | list))
    return ""


def _batch_table(source: Source, elements: list[Any], lines: list[np.ndarray],
                 relative: str, groups: Groups, outer_label: str | None,
                 why: str) -> RawTable:
    """A batch of streamed elements as a table; ``lines`` holds the lines of each one's
    containers."""
    if not relative and all(isinstance(e, dict) for e in elements):
        return _records_table(source, elements, [int(x[0]) for x in lines], groups,
                              outer_label, why)
    brackets = np.concatenate([lines[0][:1], *lines])  # the batch's list, then the elements
    return values_table(source, [elements], brackets, relative, groups=groups,
                        outer_label=outer_label, why=why)


def _records_table(source: Source, records: list[dict[str, Any]], lines: list[int],
                   groups: Groups, outer_label: str | None, why: str) -> RawTable:
    """Coup records that are the elements themselves: flattened, each on its line, all in
    the one shoe object outside them when it has a label."""
    left: set[str] = set()
    flat = [flatten(record, left=left) for record in records]
    group = None
    if outer_label is not None:
        if groups.outer is None:
            groups.labels.append(outer_label)
            groups.lines.append(1)
            groups.outer = len(groups.labels) - 1
        group = np.full(len(flat), groups.outer, dtype=np.int64)
    table = _flat_table(source, flat, lines, group=group, group_labels=groups.labels,
                        group_lines=groups.lines)
    table.why = _why(why, left - set(table.columns))
    return table


def _why(chosen: str, left: set[str]) -> dict[str, str]:
    """What a table of records says for --dry-run: why its list was chosen (when its
    content chose it), and the lists of records inside them, left out (those empty in
    some records are columns, which the plan names when it reads nothing from them)."""
    why = {"list": chosen} if chosen else {}
    if left:
        why["left out"] = f"{listing(sorted(map(repr, left)))} (lists of records)"
    return why


@dataclass
class Groups:
    """The shoe objects (or lists) met so far: their labels and lines, shared by every
    batch of one file so their numbers run on."""

    labels: list[str | None] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    #: the number of the one shoe object outside a streamed list (None: not met yet)
    outer: int | None = None


def values_table(source: Source, values: list[Any], brackets: np.ndarray,
                 records: str | None = None, *, groups: Groups | None = None,
                 outer_label: str | None = None, why: str = "") -> RawTable:
    """The coup records of decoded JSON ``values`` as a table; ``brackets`` holds the line
    of each container in pre-order (``_Tree.lines``). ``groups`` (when given) numbers
    shoe objects on from earlier batches; ``outer_label`` labels records whose list sits
    in an object of the document outside the batch, and ``why`` says why that list was
    chosen (by content, on the document's head)."""
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
    assert count == brackets.size, "a container without its line"
    flat_records: list[dict[str, str | None]] = []
    lines: list[int] = []
    group_of: list[int] = []
    left: set[str] = set()
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
            flat_records.append(flatten(record, left=left))
            lines.append(int(brackets[positions[id(record)]]))
            group_of.append(group)
    group_array = np.asarray(group_of, dtype=np.int64)
    table = _flat_table(source, flat_records, lines,
                        group=group_array if (group_array >= 0).any() else None,
                        group_labels=groups.labels, group_lines=groups.lines)
    table.why = _why(chosen.why or why, left - set(table.columns))
    return table
