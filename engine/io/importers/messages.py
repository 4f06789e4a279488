"""Live-table message streams: JSON messages, one per line, as live-casino clients log them.

A line is a message when it holds a JSON object, optionally behind a log prefix
(``[08:46:12] {...}``, ``2025-08-09T08:46:12Z INFO {...}``). Two kinds of message carry
coups:

- a *shoe state*: the whole shoe so far, a list of coup results (winner, scores...) that
  grows by one each coup. Each shoe is kept once, at its longest state; a state that
  restarts, or no longer extends the previous one, starts a new shoe. States are followed
  per table (the message's table, shoe or label fields), so tables may be interleaved.
- a *single coup result*: winner, scores, and cards when present.

A file with shoe states is read from them (its single results, the same coups again, are
counted, not added). Lines that are not messages, and messages of other kinds, are skipped
and counted. Files of one import are one stream: the same shoe seen in two files (hourly
logs overlap) is kept once, in the file where its longest state is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .guess.plan import unrelated
from .jsonrecords import MAX_DEPTH, cached_role, candidates, coup_like, flatten
from .layout import COUP_ROLES, FIELDS, find_column, table_records
from .lines import numbered_lines
from .records import CoupRecords, ImportDataError, SequenceRecords, Source
from .tables import RawTable
from .tokens import is_missing, outcome_code

_STREAM_KEYS = {"table", "tableid", "tablename", "tableno", "tablenumber", "shoe", "shoeid",
                "shoeno", "shoenumber", "label", "shoelabel"}
_SAMPLE_LINES = 20
_RECENT = 4  # finished shoes per table compared with a new one
#: Longest integer literal read as a number; longer ones are kept as their text (and
#: refused where a number is expected), never converted (a 5,000-digit number).
_MAX_INT_DIGITS = 18


def _parse_int(text: str) -> int | str:
    return int(text) if len(text.lstrip("-")) <= _MAX_INT_DIGITS else text


def loads(text: str) -> Any:
    """``json.loads`` of one message, with integers too long for Python to convert
    (thousands of digits) kept as text rather than failing."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return json.loads(text, parse_int=_parse_int)


def _at(message: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = message
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def message_of(line: str) -> dict[str, Any] | None:
    """The JSON object a log line holds (after any prefix), or None if it holds none."""
    start = line.find("{")
    if start < 0:
        return None
    try:
        value = loads(line[start:])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def looks_like_messages(lines: list[str]) -> bool:
    """Whether sampled lines are a message stream: JSON objects behind log prefixes, or
    JSON lines whose objects wrap their coups (not flat coup records)."""
    sample = [line for line in lines if line.strip()][:_SAMPLE_LINES]
    if not sample:
        return False
    messages = [message_of(line) for line in sample]
    parsed = [m for m in messages if m is not None]
    if not parsed:
        return False
    prefixed = any(m is not None and line.lstrip()[:1] != "{"
                   for line, m in zip(sample, messages, strict=True))
    if prefixed:
        return len(parsed) * 2 >= len(sample) or len(parsed) >= 3
    if len(parsed) < len(sample) or len(sample) < 2:
        return False
    flat_records = all(any(cached_role(k) in COUP_ROLES for k in m if "." not in k)
                       and not any(isinstance(v, dict | list) for v in m.values())
                       for m in parsed)
    return not flat_records


def _roles(flat: dict[str, str | None], mapping: dict[str, list[str]],
           sources: dict[str, str] | None = None) -> dict[str, str | None]:
    """A flattened record's values by role (mapped fields first, then known names);
    ``sources`` learns which source name filled each role (for --dry-run)."""
    out: dict[str, str | None] = {}
    names = list(flat)
    used: set[str] = set()
    for field_name, wanted in mapping.items():
        columns = [find_column(names, s) for s in wanted]
        if any(c is None for c in columns):
            continue
        used.update(c for c in columns if c is not None)
        out[FIELDS[field_name]] = "/".join(str(flat[c]) for c in columns if c is not None)
        if sources is not None:
            sources.setdefault(FIELDS[field_name], "/".join(c for c in columns if c))
    for name, value in flat.items():
        if name in used or unrelated(name):
            continue
        role = cached_role(name)
        if role is not None and role not in out:
            out[role] = value
            if sources is not None:
                sources.setdefault(role, name)
    return out


def _is_coup(roles: dict[str, str | None]) -> bool:
    """Whether a single message's values make a coup: an outcome, both totals, or cards."""
    outcome = roles.get("outcome")
    if outcome is not None and outcome_code(outcome) is not None:
        return True
    totals = [roles.get(r) for r in ("player_total", "banker_total")]
    if all(t is not None and t.strip().isdigit() for t in totals):
        return True
    return any(roles.get(r) not in (None, "") and not is_missing(str(roles.get(r)))
               for r in ("player_hand", "banker_hand", "player_card1", "banker_card1"))


def _stream_key(message: dict[str, Any], prefix: str = "",
                depth: int = 0) -> tuple[tuple[str, str], ...]:
    """The table a message is about: its table, shoe and label fields, in any nested
    object (lists, such as the shoe state itself, are not looked into)."""
    key: list[tuple[str, str]] = []
    for name, value in message.items():
        if isinstance(value, dict):
            if depth < MAX_DEPTH:
                key.extend(_stream_key(value, f"{prefix}{name}.", depth + 1))
        elif not isinstance(value, list) and value is not None and _is_stream_key(name):
            key.append((f"{prefix}{name}", str(value)))
    return tuple(sorted(key))


@lru_cache(maxsize=4096)
def _is_stream_key(name: str) -> bool:
    return "".join(c for c in name.lower() if c.isalnum()) in _STREAM_KEYS


@dataclass
class _Shoe:
    """A shoe followed through its states: the longest so far, and where it was seen."""

    key: tuple[tuple[str, str], ...]
    records: list[dict[str, Any]]
    file: int
    line: int
    first_file: int
    first_line: int
    path: str = ""


@dataclass
class _Counts:
    not_messages: int = 0
    other: int = 0
    states: int = 0
    singles: int = 0
    repeated_shoes: int = 0


@dataclass
class MessageStream:
    """The state of a stream of message files being read (see the module docstring)."""

    mapping: dict[str, list[str]] = field(default_factory=dict)
    records_path: str | None = None
    live: dict[tuple[tuple[str, str], ...], _Shoe] = field(default_factory=dict)
    shoes: list[_Shoe] = field(default_factory=list)
    singles: dict[int, list[tuple[int, dict[str, str | None]]]] = field(default_factory=dict)
    counts: dict[int, _Counts] = field(default_factory=dict)
    _state_paths: dict[tuple[str, ...], str | None] = field(default_factory=dict)
    _last_path: tuple[str, ...] | None = None
    _recent: dict[tuple[tuple[str, str], ...], list[_Shoe]] = field(default_factory=dict)
    #: per file, the source name (dotted) that filled each role
    sources: dict[int, dict[str, str]] = field(default_factory=dict)

    def feed(self, file: int, line: int, message: dict[str, Any]) -> None:
        """Take one message of file ``file`` at ``line``."""
        counts = self.counts.setdefault(file, _Counts())
        state = self._state(message)
        if state is not None:
            counts.states += 1
            self._extend(_stream_key(message), state, file, line,
                         ".".join(self._last_path or ()))
            return
        roles = _roles(flatten(message), self.mapping, self.sources.setdefault(file, {}))
        if _is_coup(roles):
            counts.singles += 1
            self.singles.setdefault(file, []).append((line, roles))
        else:
            counts.other += 1

    def _state(self, message: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The shoe state a message holds (its one list of coup records), or None.

        The path where the last state was found is tried first: a stream repeats the same
        few kinds of message, and walking each one would cost more than decoding it.
        """
        if self._last_path is not None:
            value = _at(message, self._last_path)
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return value
        found = candidates([message])
        paths = tuple(sorted(found))
        if not paths:
            return None
        if self.records_path is not None:
            chosen = found.get(self.records_path.strip("."))
            return chosen.lists[0] if chosen is not None else None
        if paths not in self._state_paths:
            coups = [p for p, c in found.items()
                     if not c.shoes and coup_like(c.lists[0], p)]
            self._state_paths[paths] = coups[0] if len(coups) == 1 else None
        path = self._state_paths[paths]
        if path is None:
            return None
        self._last_path = tuple(path.split("."))
        return found[path].lists[0]

    def _extend(self, key: tuple[tuple[str, str], ...], state: list[dict[str, Any]],
                file: int, line: int, path: str = "") -> None:
        live = self.live.get(key)
        if live is not None:
            n = len(live.records)
            if len(state) >= n and state[:n] == live.records:
                live.records, live.file, live.line = state, file, line
                return
            if len(state) < n and live.records[:len(state)] == state:
                return  # an older state again (overlapping logs)
            self._finish(live)
        self.live[key] = _Shoe(key, state, file, line, file, line, path)

    def _finish(self, shoe: _Shoe) -> None:
        """Keep a finished shoe, unless it repeats one of the last few of its table (the
        same shoe seen again in an overlapping log)."""
        recent = self._recent.setdefault(shoe.key, [])
        for other in recent:
            if len(other.records) >= len(shoe.records) and \
                    other.records[:len(shoe.records)] == shoe.records:
                self.counts.setdefault(shoe.file, _Counts()).repeated_shoes += 1
                return
        recent.append(shoe)
        del recent[:-_RECENT]
        self.shoes.append(shoe)

    def close(self) -> None:
        """End of the stream: every shoe still followed is complete."""
        for shoe in self.live.values():
            self._finish(shoe)
        self.live.clear()

    def file_table(self, file: int, source: Source) -> tuple[RawTable | None, list[str]]:
        """The coups of file ``file`` as a table of role columns, and notes on what was
        skipped."""
        counts = self.counts.get(file, _Counts())
        notes = []
        if counts.not_messages:
            notes.append(f"{source.path}: skipped {counts.not_messages:,} lines that are not "
                         f"JSON messages")
        if counts.other:
            notes.append(f"{source.path}: skipped {counts.other:,} messages that carry no "
                         f"coup")
        rows: list[dict[str, str | None]] = []
        lines: list[int] = []
        has_states = any(s.first_file == file or s.file == file for s in self.shoes)
        if has_states or counts.states:
            if counts.singles:
                notes.append(f"{source.path}: {counts.singles:,} single coup results not "
                             f"added (the shoe states hold the coups)")
            for index, shoe in enumerate(self.shoes):
                if shoe.file != file:
                    continue
                label = "/".join(v for _, v in shoe.key) or source.default_label(
                    shoe.first_line if shoe.first_file == file else shoe.line)
                prefix = f"{shoe.path}." if shoe.path else ""
                for record in shoe.records:
                    found: dict[str, str] = {}
                    roles = _roles(flatten(record), self.mapping, found)
                    for role, name in found.items():
                        self.sources.setdefault(file, {}).setdefault(role, prefix + name)
                    roles["shoe"] = f"#{index}"
                    roles["label"] = label
                    rows.append(roles)
                    lines.append(shoe.line)
            if counts.repeated_shoes:
                notes.append(f"{source.path}: {counts.repeated_shoes:,} shoes seen again "
                             f"(overlapping logs) kept once")
        else:
            for line, roles in self.singles.get(file, []):
                rows.append(roles)
                lines.append(line)
        if not rows:
            return None, notes
        names: dict[str, None] = {}
        for row in rows:
            names.update(dict.fromkeys(row))
        columns = {name: np.array([row.get(name) for row in rows], dtype=object)
                   for name in names}
        return RawTable(source=source, columns=columns,
                        lines=np.asarray(lines, dtype=np.int64)), notes


def _too_deep(path: Path, number: int) -> ImportDataError:
    return ImportDataError(f"{path}:{number}: JSON nested too deep; recorded coups never "
                           f"nest more than {MAX_DEPTH} levels")


def _messages(path: Path) -> Iterator[tuple[int, dict[str, Any] | None]]:
    for number, line in numbered_lines(path):
        if not line.strip():
            continue
        start = line.find("{")
        if start < 0:
            yield number, None
            continue
        try:
            value = loads(line[start:])
        except RecursionError:
            raise _too_deep(path, number) from None
        except ValueError:
            yield number, None
            continue
        yield number, value if isinstance(value, dict) else None


def read_message_files(paths: list[Path], mapping: dict[str, list[str]] | None = None,
                       records: str | None = None) -> list[CoupRecords | SequenceRecords]:
    """The coups of message files read as one stream, one records set per file (in order)."""
    stream = MessageStream(mapping=mapping or {}, records_path=records)
    for index, path in enumerate(paths):
        counts = stream.counts.setdefault(index, _Counts())
        for number, message in _messages(path):
            if message is None:
                counts.not_messages += 1
            else:
                try:
                    stream.feed(index, number, message)
                except RecursionError:
                    raise _too_deep(path, number) from None
    stream.close()
    out: list[CoupRecords | SequenceRecords] = []
    for index, path in enumerate(paths):
        source = Source(path)
        table, notes = stream.file_table(index, source)
        if table is None:
            counts = stream.counts[index]
            if counts.states:  # its shoes were kept in a later file
                out.append(_empty(source, notes))
                continue
            raise ImportDataError(
                f"{path}: no coups in its {counts.not_messages + counts.other:,} lines: "
                f"expected JSON messages holding a shoe's results or a coup's result "
                f"(winner, scores, cards)")
        records_ = table_records(table)
        records_.notes.extend(notes)
        known = stream.sources.get(index, {})
        records_.mapping = {role: known.get(role, role) for role in records_.mapping
                            if role in known}
        out.append(records_)
    return out


def _empty(source: Source, notes: list[str]) -> CoupRecords:
    from ...cards import NO_CARD

    none = np.empty(0, dtype=np.int64)
    small = np.empty(0, dtype=np.int8)
    return CoupRecords(source=source, line=none, shoe=none, labels=[],
                       cards=np.full((0, 6), NO_CARD, dtype=np.int8), player_total=small,
                       banker_total=small, outcome=small, notes=notes)
