"""Big JSON documents read in bounded memory: the elements of the records' list, a batch at
a time.

A document up to ``WHOLE_BYTES`` is decoded whole (``jsonrecords.read_json``). A bigger
one is first sampled: its first ``SAMPLE_BYTES``, cut after a complete value and closed,
are decoded and tell which list holds the coups (as for a whole document). The file is
then scanned block by block with numpy (brackets outside strings, their depth, the
lines), and each element of the outermost list on the way to the coups (a coup record, a
shoe object, a shoe's list) is cut out of the text as it completes and decoded with the
others of its batch: memory holds a block, a batch and the shoes' labels, whatever the
size of the file. JSON lines are read the same way, a line being an element.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .jsonrecords import (
    MAX_DEPTH,
    Groups,
    _ordinals,
    _shoe_label,
    candidates,
    check_depth,
    choose,
    decode,
    flatten,
    loads,
    read_json,
    values_table,
)
from .records import ImportDataError, Source
from .tables import RawTable

#: Documents up to this size are decoded whole.
WHOLE_BYTES = 16 << 20
#: Bytes read at a time, and the head of the document sampled to find the coups.
BLOCK_BYTES = 4 << 20
SAMPLE_BYTES = 4 << 20
#: Elements decoded together.
BATCH_ELEMENTS = 20_000


@dataclass
class _Scan:
    """The state of a scan between blocks: inside a string, the backslashes just before
    the block, the depth of brackets, the lines so far and the offset of the block."""

    in_string: bool = False
    backslashes: int = 0
    depth: int = 0
    lines: int = 1
    offset: int = 0


@dataclass
class _Brackets:
    """The brackets of one block outside strings: absolute position, whether opening, the
    depth after it, and the line it is on."""

    position: np.ndarray
    opening: np.ndarray
    depth: np.ndarray
    line: np.ndarray


def _escaped(raw: np.ndarray, quotes: np.ndarray, carried: int) -> np.ndarray:
    """Which of the quotes at ``quotes`` follow an odd run of backslashes (``carried``:
    the backslashes that ended the previous block)."""
    slashes = np.flatnonzero(raw == ord("\\"))
    if not slashes.size and not carried:
        return np.zeros(quotes.size, dtype=bool)
    new_run = np.r_[True, np.diff(slashes) != 1] if slashes.size else np.zeros(0, bool)
    run_start = np.flatnonzero(new_run)
    run_end = np.r_[run_start[1:], slashes.size] - 1
    ends_at = slashes[run_end] if slashes.size else slashes
    lengths = run_end - run_start + 1
    if slashes.size and slashes[0] == 0:
        lengths[0] += carried
    found = np.searchsorted(ends_at, quotes - 1)
    hit = found < ends_at.size
    hit[hit] = ends_at[found[hit]] == quotes[hit] - 1
    run = np.zeros(quotes.size, dtype=np.int64)
    run[hit] = lengths[found[hit]]
    run[quotes == 0] = carried
    return run % 2 == 1


def scan_block(data: bytes, state: _Scan) -> _Brackets:
    """The brackets of ``data`` (the block after ``state``), and ``state`` moved on."""
    raw = np.frombuffer(data, dtype=np.uint8)
    n = raw.size
    quotes = np.flatnonzero(raw == ord('"'))
    quotes = quotes[~_escaped(raw, quotes, state.backslashes if state.in_string else 0)]
    where = np.flatnonzero((raw == ord("{")) | (raw == ord("[")) | (raw == ord("}"))
                           | (raw == ord("]")))
    outside = (np.searchsorted(quotes, where) + state.in_string) % 2 == 0
    where = where[outside]
    is_open = (raw[where] == ord("{")) | (raw[where] == ord("["))
    depth = state.depth + np.cumsum(np.where(is_open, 1, -1))
    newlines = np.flatnonzero(raw == ord("\n"))
    line = state.lines + np.searchsorted(newlines, where)
    state.in_string = bool((quotes.size + state.in_string) % 2)
    if n:
        plain = np.flatnonzero(raw != ord("\\"))
        trailing = n - 1 - int(plain[-1]) if plain.size else n
        state.backslashes = trailing + (state.backslashes if trailing == n else 0)
    state.depth = int(depth[-1]) if depth.size else state.depth
    state.lines += int(newlines.size)
    brackets = _Brackets(position=where + state.offset, opening=is_open, depth=depth,
                         line=line)
    state.offset += n
    return brackets


def _sample(path: Path, source: Source) -> tuple[list[Any], bool]:
    """The document's head, cut after its last complete value and closed, decoded; and
    whether the file is JSON lines (several top-level values)."""
    with path.open("rb") as handle:
        head = handle.read(SAMPLE_BYTES)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    found = scan_block(head, _Scan())
    closes = np.flatnonzero(~found.opening)
    if not closes.size:
        raise ImportDataError(f"{source.path}: no complete JSON value in its first "
                              f"{SAMPLE_BYTES:,} bytes")
    lines_file = bool(((found.depth == 0) & ~found.opening).sum() > 1 or (
        (found.depth == 0) & ~found.opening).sum() == 1 and head[
            int(found.position[np.flatnonzero((found.depth == 0) & ~found.opening)[0]]) + 1:
        ].strip()[:1] in (b"{", b"["))
    last = int(closes[-1])
    cut = int(found.position[last]) + 1
    stack: list[int] = []
    for is_open, position in zip(found.opening[:last + 1].tolist(),
                                 found.position[:last + 1].tolist(), strict=True):
        if is_open:
            stack.append(head[position])
        elif stack:
            stack.pop()
    closers = bytes(ord("}") if c == ord("{") else ord("]") for c in reversed(stack))
    text = (head[:cut] + closers).decode("utf-8", errors="replace")
    if lines_file:
        text = "\n".join(line for line in text.splitlines() if line.strip())
    check_depth(source, text)
    return decode(source, text), lines_file


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


def json_blocks(path: Path, records: str | None = None,
                whole: int | None = None) -> Iterator[RawTable]:
    """The coup records of a JSON file as tables of whole elements (see the module
    docstring); ``whole`` is the size up to which it is decoded in one piece."""
    from .detect import read_text

    source = Source(path)
    if path.stat().st_size <= (WHOLE_BYTES if whole is None else whole):
        yield read_json(source, read_text(path), records)
        return
    values, lines_file = _sample(path, source)
    found = candidates(values)
    chosen = choose(source, found, records)
    outer_label = None
    relative = chosen.path
    if lines_file:
        ordinal = -1
    else:
        outer, holder = _outer_list(values, chosen.path)
        if outer is None or not outer or not isinstance(outer[0], dict | list):
            raise ImportDataError(
                f"{source.path}: too big to read whole ({path.stat().st_size:,} bytes), and "
                f"its coups are in no list of objects or lists to read a piece at a time")
        positions, _ = _ordinals(values, {id(outer)})
        ordinal = positions[id(outer)]
        outer_path = _path_to(values[0], outer)
        relative = chosen.path[len(outer_path):].lstrip(".")
        outer_label = _shoe_label(holder) if holder is not None else None
    groups = Groups()
    batch: list[bytes] = []
    batch_lines: list[np.ndarray] = []
    for element, element_lines in _elements(path, source, ordinal):
        batch.append(element)
        batch_lines.append(element_lines)
        if len(batch) >= BATCH_ELEMENTS:
            yield _batch_table(source, batch, batch_lines, relative, groups, outer_label)
            batch, batch_lines = [], []
    if batch:
        yield _batch_table(source, batch, batch_lines, relative, groups, outer_label)


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


def _batch_table(source: Source, batch: list[bytes], lines: list[np.ndarray],
                 relative: str, groups: Groups, outer_label: str | None) -> RawTable:
    elements = loads("[" + b",".join(batch).decode("utf-8") + "]")
    if not relative and all(isinstance(e, dict) for e in elements):
        return _records_table(source, elements, [int(x[0]) for x in lines], groups,
                              outer_label)
    brackets = np.concatenate([np.array([lines[0][0] if lines[0].size else 1])] + lines)
    return values_table(source, [elements], brackets, relative, groups=groups,
                        outer_label=outer_label)


def _records_table(source: Source, records: list[dict[str, Any]], lines: list[int],
                   groups: Groups, outer_label: str | None) -> RawTable:
    """Coup records that are the elements themselves: flattened, each on its line, all in
    the one shoe object outside them when it has a label."""
    flat = [flatten(record) for record in records]
    names: dict[str, None] = {}
    for record in flat:
        names.update(dict.fromkeys(record))
    group = None
    if outer_label is not None:
        if groups.outer is None:
            groups.labels.append(outer_label)
            groups.lines.append(1)
            groups.outer = len(groups.labels) - 1
        group = np.full(len(flat), groups.outer, dtype=np.int64)
    return RawTable(source=source,
                    columns={n: np.array([r.get(n) for r in flat], dtype=object)
                             for n in names},
                    lines=np.asarray(lines, dtype=np.int64), group=group,
                    group_labels=groups.labels, group_lines=groups.lines)


def _elements(path: Path, source: Source, ordinal: int) -> Iterator[tuple[bytes, np.ndarray]]:
    """Each element of the list whose opening bracket is the ``ordinal``-th of the file
    (-1: the file's top-level values, JSON lines), with the line of each of its opening
    brackets in order."""
    state = _Scan()
    seen = 0
    list_level = 0 if ordinal < 0 else -1
    start = -1  # absolute start of the element in progress
    pending = np.empty(0, dtype=np.int64)  # its bracket lines from earlier blocks
    carry = b""
    with path.open("rb") as handle:
        first = True
        while True:
            data = handle.read(BLOCK_BYTES)
            if not data:
                return
            if first and data.startswith(b"\xef\xbb\xbf"):
                data = b"   " + data[3:]
            first = False
            block_at = state.offset
            found = scan_block(data, state)
            if found.depth.size and found.depth.max() > MAX_DEPTH:
                raise ImportDataError(f"{source.path}: JSON nested more than {MAX_DEPTH} "
                                      f"levels deep; recorded coups never nest that far")
            buffer, base = carry + data, block_at - len(carry)
            keep = np.ones(found.position.size, dtype=bool)
            if list_level < 0:
                openings = np.flatnonzero(found.opening)
                if seen + openings.size <= ordinal:
                    seen += openings.size
                    continue
                k = int(openings[ordinal - seen])
                list_level = int(found.depth[k])
                keep[:k + 1] = False
            closing = ~found.opening & keep
            list_end = np.flatnonzero(closing & (found.depth == list_level - 1))
            if list_end.size:
                keep[int(list_end[0]):] = False
            opens = found.opening & keep & (found.depth >= list_level + 1)
            opens_at, opens_line = found.position[opens], found.line[opens]
            starts = found.position[found.opening & keep & (found.depth == list_level + 1)]
            ends = found.position[~found.opening & keep & (found.depth == list_level)]
            every_start = ([start] if start >= 0 else []) + starts.tolist()
            for i, end in enumerate(ends.tolist()):
                begin = every_start[i]
                lo = int(np.searchsorted(opens_at, begin))
                hi = int(np.searchsorted(opens_at, end, side="right"))
                lines = opens_line[lo:hi]
                if i == 0 and start >= 0:
                    lines = np.concatenate([pending, lines])
                yield buffer[begin - base:end - base + 1], lines
            rest = every_start[ends.size:]
            if rest:
                if not ends.size and start >= 0:
                    pending = np.concatenate([pending, opens_line])
                else:
                    start = rest[0]
                    pending = opens_line[int(np.searchsorted(opens_at, start)):]
                start = rest[0]
                carry = buffer[start - base:]
            else:
                start, pending, carry = -1, np.empty(0, dtype=np.int64), b""
            if list_end.size:
                return
