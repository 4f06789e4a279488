"""The scorecard file of ``baccarat live``: every coup on disk the moment it is entered.

The file is a CSV that ``baccarat import`` reads (one coup per row: shoe, coup, the cards
when entered, the totals, the outcome, the pair flags), with ``#`` comment lines, which
the importers skip, for what a coup row cannot hold: the first line names the table's
rules (JSON), ``# shoe N`` opens a shoe, ``# shoe N burn: 7H`` records its burn card.
Edited by hand, a comment may start with ``//`` too, a shoe line may read ``# Shoe 4 -``
or ``// shoe 4:``, and a coup row is in the shoe it names (a row of another shoe than the
one before it opens that shoe): the shoes resume numbered as written.

Each entry is one line appended with a single ``write`` and made durable with ``fsync``
before the screen shows it, so a crash, a killed process or a closed terminal loses
nothing entered; undo truncates the file back to where the last entry began. The file is
owned for the whole session by the output lock every command takes
(``baccarat.io.owner.OutputLock``): a second ``baccarat live`` (or any other command) on
the same file is refused, naming the pid that holds it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cards import LABEL_OF_CODE, parse_card
from ..coups import OUTCOME_LABELS
from ..errors import BaccaratError, DiskFullError, is_disk_full
from ..io.importers.lines import comment_text, is_comment
from ..io.owner import OutputExistsError, OutputLock, check_name, claim_output, refused
from ..rules import TableRules
from .entry import Coup

MARK = "# baccarat live"
COLUMNS = ("shoe", "coup", "player_card1", "player_card2", "player_card3", "banker_card1",
           "banker_card2", "banker_card3", "player_total", "banker_total", "outcome",
           "player_pair", "banker_pair")
#: What a torn last line (a write cut short by a power cut) is kept as: a comment.
TORN = "# cut short, kept as it was: "
#: A shoe line's words after its comment mark: ``shoe 4`` (any case, a dash or colon
#: after it: ``Shoe 4 -``) opens shoe 4; ``shoe 4 burn: 7H`` records its burn card.
SHOE_LINE = re.compile(r"shoe\s*(\d+)\s*[-\u2013\u2014:.]*\s*(?:burn\s*:?\s*(\S+))?",
                       re.IGNORECASE)
#: The key of the first line's JSON that keeps the systems (-s SPECs) beside the rules.
SYSTEMS = "systems"
#: The longest line a scorecard holds (a coup's row is under 100 bytes, a user's comment
#: a few hundred), and the largest scorecard (some million coups): ``--resume`` refuses a
#: file past either before reading it into memory.
MAX_LINE = 4096
MAX_BYTES = 256 << 20


class JournalError(BaccaratError):
    """A scorecard file that cannot be continued (not ours, damaged, other rules)."""


@dataclass(frozen=True)
class ShoeOpened:
    """``# shoe N``: shoe N starts (its coups follow)."""

    shoe: int


@dataclass(frozen=True)
class BurnShown:
    """``# shoe N burn: CARD``: the card shown face up when shoe N was burned."""

    shoe: int
    card: int


@dataclass(frozen=True)
class CoupRow:
    """A coup row: coup ``coup`` of shoe ``shoe``."""

    shoe: int
    coup: int
    entry: Coup


Record = ShoeOpened | BurnShown | CoupRow


@dataclass
class Journal:
    """An open scorecard file owned by this process, and the records it holds."""

    path: Path
    rules: TableRules
    records: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)  # the -s SPECs it was started with
    _fd: int = -1
    _lock: OutputLock | None = None
    _starts: list[int] = field(default_factory=list)  # byte offset where each record begins

    @classmethod
    def create(cls, path: Path, rules: TableRules, systems: Sequence[str] = ()) -> Journal:
        """Start a new file at ``path`` (refused if anything is there: nothing a user wrote
        is replaced), owned until :meth:`close`.

        The file is made as every output is (``baccarat.io.owner.claim_output``: the lock,
        the folders above it, a temporary renamed into place only if nothing appeared
        there), holding the rules line (with the ``systems`` SPECs, which ``--resume``
        plays again) and the header; it is then opened to append under the lock again,
        and refused if another file took its place in between."""
        check_name(path)
        if path.is_dir():
            raise OutputExistsError(_folder(path))
        if os.path.lexists(path):
            raise OutputExistsError(_exists(path))
        with claim_output(path, what="scorecard", ours=_never_ours) as claim:
            kept = {**rules.model_dump(mode="json"),
                    **({SYSTEMS: list(systems)} if systems else {})}
            line = json.dumps(kept, separators=(",", ":"))
            claim.temp.write_text(f"{MARK} {line}\n{','.join(COLUMNS)}\n")
        made = os.stat(path)
        journal = cls.resume(path, rules)
        if (made.st_dev, made.st_ino) != journal._identity():  # another file since
            journal.close()
            raise OutputExistsError(f"{path} was replaced by another program as it was made; "
                                    f"it is kept as it is: give --out another name")
        return journal

    @classmethod
    def resume(cls, path: Path, rules: TableRules | None = None) -> Journal:
        """Open the scorecard ``path`` to continue it, with the records it holds. Rules
        given (flags, a rules file) must be the file's; by default they are."""
        if not path.exists():
            raise FileNotFoundError(f"no scorecard at {path} to resume; start one with "
                                    f"--out {path}")
        lock = _lock(path)
        try:
            try:
                fd = os.open(path, os.O_RDWR | os.O_APPEND)
            except OSError as exc:
                raise refused(exc, path) from None
            try:
                data = _read_all(fd, path)
                own_rules, systems, records, starts, torn = _parse(data, path)
                journal = cls(path, own_rules, records, systems=systems, _fd=fd, _lock=lock,
                              _starts=starts)
                if torn is not None:  # keep the bytes a crash cut short, as a comment
                    os.ftruncate(fd, len(data) - len(torn))
                    journal._write(TORN + torn.decode("utf-8", "replace").strip() + "\n",
                                   record=False)
                    journal.notes.append(f"{path}: the last line was cut short (a crash "
                                         f"while it was written); it is kept as a comment")
            except BaseException:
                os.close(fd)
                raise
            if rules is not None and rules != own_rules:
                journal.close()
                raise JournalError(f"{path} was kept under other rules ({own_rules.label()}) "
                                   f"than the ones given ({rules.label()}); resume it "
                                   f"without rules flags, or start a new file")
            return journal
        except BaseException:
            lock.release()
            raise

    # --- writing -----------------------------------------------------------------------

    def open_shoe(self, shoe: int) -> None:
        """Record that shoe ``shoe`` starts."""
        self._append(ShoeOpened(shoe), f"# shoe {shoe}\n")

    def burn(self, shoe: int, card: int) -> None:
        """Record the burn card shown at the start of shoe ``shoe``."""
        self._append(BurnShown(shoe, card), f"# shoe {shoe} burn: {LABEL_OF_CODE[card]}\n")

    def coup(self, shoe: int, coup: int, entry: Coup) -> None:
        """Append coup ``coup`` of shoe ``shoe``."""
        self._append(CoupRow(shoe, coup, entry), coup_line(shoe, coup, entry))

    def undo(self) -> Record:
        """Take the last record out of the file (truncated back to where it began)."""
        if not self.records:
            raise JournalError("nothing to undo")
        start = self._starts[-1]
        try:
            os.ftruncate(self._fd, start)
            os.fsync(self._fd)
        except OSError as exc:
            raise refused(exc, self.path) from None
        self._starts.pop()
        return self.records.pop()

    def close(self) -> None:
        """Close the file and release its lock (everything is on disk already)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _identity(self) -> tuple[int, int]:
        stat = os.fstat(self._fd)
        return stat.st_dev, stat.st_ino

    def _append(self, record: Record, line: str) -> None:
        start = os.lseek(self._fd, 0, os.SEEK_END)
        self._write(line)
        self._starts.append(start)
        self.records.append(record)

    def _write(self, text: str, record: bool = True) -> None:
        """One ``write`` of ``text`` at the end of the file, then ``fsync``."""
        data = text.encode()
        try:
            written = os.write(self._fd, data)
            if written != len(data):  # a full disk mid-line: take the piece back out
                os.ftruncate(self._fd, os.lseek(self._fd, 0, os.SEEK_END) - written)
                raise OSError(28, "No space left on device")
            os.fsync(self._fd)
        except OSError as exc:
            if is_disk_full(exc):  # what was entered before is in the file: say how much
                kept = sum(isinstance(r, CoupRow) for r in self.records)
                raise DiskFullError(
                    f"no space left on device writing {self.path}: the last entry was not "
                    f"kept; the {kept:,} coup{'s' if kept != 1 else ''} entered before it "
                    f"{'are' if kept != 1 else 'is'} safe in the file (continue with "
                    f"--resume {self.path} once there is room)") from None
            raise refused(exc, self.path) from None


def coup_line(shoe: int, coup: int, entry: Coup) -> str:
    """The CSV row of a coup (cards blank where not entered or not dealt)."""
    def cards(hand: tuple[int, ...]) -> list[str]:
        labels = [LABEL_OF_CODE[c] for c in hand]
        return labels + [""] * (3 - len(labels))

    totals = ([str(entry.player_total), str(entry.banker_total)] if entry.has_cards
              else ["", ""])
    row = [str(shoe), str(coup), *cards(entry.player), *cards(entry.banker), *totals,
           OUTCOME_LABELS[entry.outcome], "yes" if entry.player_pair else "",
           "yes" if entry.banker_pair else ""]
    return ",".join(row) + "\n"


def _exists(path: Path) -> str:
    return f"{path} already exists; continue it with --resume {path}, or give --out another name"


def _folder(path: Path) -> str:
    return f"{path} is a folder; the scorecard is one file: give a file name"


def _never_ours(path: Path) -> bool:
    """A scorecard is a record kept by hand: nothing at its path is ever replaced."""
    return False


def _lock(path: Path) -> OutputLock:
    check_name(path)
    if path.is_dir():
        raise OutputExistsError(_folder(path))
    lock = OutputLock(path)
    try:
        lock.acquire()
    except OSError as exc:
        raise refused(exc, path) from None
    return lock


def _read_all(fd: int, path: Path) -> bytes:
    """The scorecard's bytes, refused past ``MAX_BYTES`` or with a line past ``MAX_LINE``
    (reading at most one block more than the limit)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    size, line_start, number = 0, 0, 1
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
        at = 0
        while (newline := chunk.find(b"\n", at)) >= 0:
            if size + newline - line_start > MAX_LINE:
                break
            line_start, at, number = size + newline + 1, newline + 1, number + 1
        size += len(chunk)
        if size - line_start > MAX_LINE:
            raise JournalError(f"{path}, line {number}: longer than {MAX_LINE:,} bytes; a "
                               f"scorecard's lines are short (was something else appended "
                               f"to it?): remove that line to resume")
        if size > MAX_BYTES:
            raise JournalError(f"{path} is larger than {MAX_BYTES >> 20} MB, more than a "
                               f"scorecard holds; --resume continues only those")
    return b"".join(chunks)


def _parse(data: bytes, path: Path
           ) -> tuple[TableRules, list[str], list[Record], list[int], bytes | None]:
    """The rules, the systems, the records with the offset each begins at, and a torn
    last line."""
    torn = None
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        torn, data = data[cut:], data[:cut]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise JournalError(f"{path} is not a scorecard baccarat live wrote (not UTF-8 "
                           f"text)") from None
    # Lines end at "\n" only, as they are written: str.splitlines would also cut at the
    # "\r", "\x85" or "\u2028" a hand-typed row may hold, so that a row kept once (as a
    # comment, when it was cut short) became a malformed row at the next resume.
    lines = [line + "\n" for line in text.split("\n")[:-1]]
    if not lines or not lines[0].startswith(MARK):
        raise JournalError(f"{path} is not a scorecard baccarat live wrote (its first line "
                           f"is not '{MARK} ...'); --resume continues only those")
    rules, systems = _rules(lines[0], path)
    if len(lines) < 2 or lines[1].strip() != ",".join(COLUMNS):
        raise JournalError(f"{path}, line 2: expected the header {','.join(COLUMNS)}")
    records: list[Record] = []
    starts: list[int] = []
    offset = len(lines[0].encode()) + len(lines[1].encode())
    shoe = None  # the shoe being kept
    for number, line in enumerate(lines[2:], start=3):
        record = _record(line, f"{path}, line {number}")
        if record is not None and record.shoe != shoe:
            if not isinstance(record, ShoeOpened):  # a row or burn of another shoe opens it
                records.append(ShoeOpened(record.shoe))
                starts.append(offset)
            shoe = record.shoe
        elif isinstance(record, ShoeOpened):
            record = None  # the shoe being kept, named again: a heading, not a new shoe
        if record is not None:
            records.append(record)
            starts.append(offset)
        offset += len(line.encode())
    return rules, systems, records, starts, torn


def _rules(line: str, path: Path) -> tuple[TableRules, list[str]]:
    """The rules of the first line, and the systems' SPECs kept beside them."""
    from ..rules import rules_from_mapping

    try:
        mapping: dict[str, Any] = json.loads(line[len(MARK):])
    except ValueError:
        raise JournalError(f"{path}, line 1: the rules after '{MARK}' are not JSON") from None
    if not isinstance(mapping, dict):
        raise JournalError(f"{path}, line 1: the rules after '{MARK}' are not a JSON object")
    systems = mapping.pop(SYSTEMS, [])
    if not isinstance(systems, list) or not all(isinstance(s, str) for s in systems):
        raise JournalError(f"{path}, line 1: {SYSTEMS!r} is not a list of SPECs")
    return rules_from_mapping(mapping, source=f"{path}, line 1"), systems


def _record(line: str, where: str) -> Record | None:
    text = line.strip()
    if not text or text.startswith(TORN.strip()):
        return None
    if is_comment(text):
        line_of = SHOE_LINE.fullmatch(comment_text(text))
        try:
            if line_of is not None and line_of[2] is None:
                return ShoeOpened(int(line_of[1]))
            if line_of is not None:
                return BurnShown(int(line_of[1]), parse_card(line_of[2], where))
        except ValueError:
            pass
        return None  # a comment of the user's own
    values = next(csv.reader(io.StringIO(text)))
    if len(values) != len(COLUMNS):
        raise JournalError(f"{where}: {len(values)} fields, expected {len(COLUMNS)} "
                           f"({','.join(COLUMNS)})")
    row = dict(zip(COLUMNS, values, strict=True))
    try:
        shoe, coup = int(row["shoe"]), int(row["coup"])
    except ValueError:
        raise JournalError(f"{where}: shoe and coup must be whole numbers, got "
                           f"{row['shoe']!r}, {row['coup']!r}") from None
    return CoupRow(shoe, coup, _entry(row, where))  # its errors name what is wrong


def _entry(row: dict[str, str], where: str) -> Coup:
    from .entry import coup_from_cards

    outcome = row["outcome"].strip().upper()
    if outcome not in OUTCOME_LABELS:
        raise JournalError(f"{where}: outcome {row['outcome']!r} is not B, P or T")
    player = [row[f"player_card{i}"] for i in (1, 2, 3) if row[f"player_card{i}"]]
    banker = [row[f"banker_card{i}"] for i in (1, 2, 3) if row[f"banker_card{i}"]]
    if not player and not banker:
        return Coup(OUTCOME_LABELS.index(outcome), player_pair=row["player_pair"] == "yes",
                    banker_pair=row["banker_pair"] == "yes")
    dealt = player[:2] + banker[:2]  # back into dealing order: P B P B, then the thirds
    order = [dealt[0], dealt[2], dealt[1], dealt[3], *player[2:], *banker[2:]] \
        if len(dealt) == 4 else dealt
    try:
        entry = coup_from_cards(order)
    except BaccaratError as exc:
        raise JournalError(f"{where}: {exc}") from None
    if OUTCOME_LABELS[entry.outcome] != outcome:
        raise JournalError(f"{where}: the cards make {entry.describe()}, but the row says "
                           f"{outcome}")
    return entry


__all__ = ["BurnShown", "COLUMNS", "CoupRow", "Journal", "JournalError", "Record",
           "ShoeOpened", "coup_line"]
