"""Recorded files into one coups table: read each file, check every coup, number the shoes.

Nothing is returned unless every file reads and every coup passes its checks (or the
caller asked to keep invalid coups, which are then flagged ``valid=False``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...cards import NO_CARD
from ...coups import Coups
from ...deal import SHOE_SHORT, deal_sequences
from ...rules import TableRules
from .checks import KIND_NAMES, SLIP, SPLIT, check_coups, count_check, winner
from .detect import check_format_name, detect_format
from .guess.plan import Plan
from .guess.road import road_cells
from .layout import plan_table, table_records
from .readers import ReadOptions, get_reader
from .records import (
    CoupRecords,
    ImportDataError,
    InvalidCoupError,
    SequenceRecords,
    run_starts,
)
from .stream import ShoeHolder, _take
from .tables import RawTable
from .tokens import BitCodes, using_words

KEEP_HINT = "pass --keep-invalid (keep_invalid=True) to import such coups flagged valid=False"


def read_records(path: str | Path, format: str,
                 options: ReadOptions | None = None) -> CoupRecords | SequenceRecords:
    """The coups or card sequences recorded in one file of the given format (not checked)."""
    path = Path(path)
    reader = get_reader(format)
    if not path.is_file():
        raise ImportDataError(f"no such file: {path}")
    return reader.read(path, options or ReadOptions())


Records = CoupRecords | SequenceRecords


def _streamed(path: Path, blocks: Iterator[RawTable],
              mapping: dict[str, list[str]]) -> Iterator[Records]:
    """The records of a file read block by block, in chunks of whole shoes; which column
    is which field is decided once, on the first block, for the whole file."""
    holder: ShoeHolder | None = None
    plan: Plan | None = None
    produced = False
    last: RawTable | None = None
    notes: list[str] = []  # what reading left out, told with the first records

    def told(records: Records) -> Records:
        records.notes[:0] = notes
        notes.clear()
        return records

    road = False
    for table in blocks:
        cells = road_cells(table)  # a big road's cells: its coups, in road order
        if road or cells is not None and last is not None:
            raise ImportDataError(f"{path}: road cells in more than one block of rows (a "
                                  f"road history this big is not read yet)")
        road, table = cells is not None, cells or table
        last = table
        notes.extend(table.notes)
        if plan is None:
            plan = plan_table(table, mapping) if len(table) else None
            if plan is not None:
                holder = ShoeHolder(mapping, plan=plan)
        if holder is None:
            continue
        ready = holder.push(table)
        if ready is not None:
            produced = True
            yield told(table_records(ready, mapping, plan))
    assert last is not None  # a file gives one block at least
    rest = holder.push(_take(last, slice(0, 0)), final=True) if holder is not None else None
    if rest is not None:
        yield told(table_records(rest, mapping, plan))
    elif not produced:
        yield table_records(_take(last, slice(0, 0)), mapping)  # "no rows"


def iter_records(paths: list[Path], formats: list[str],
                 options: ReadOptions) -> Iterator[tuple[int, Records]]:
    """(file index, records) of every file in order, big files in chunks of whole shoes;
    the files of a streaming reader (message logs) are read together as one stream."""
    for path in paths:
        if not path.is_file():
            raise ImportDataError(f"no such file: {path}")
    together: dict[int, Records] = {}
    for name in dict.fromkeys(formats):
        reader = get_reader(name)
        if reader.read_many is None:
            continue
        indices = [i for i, f in enumerate(formats) if f == name]
        for i, records in zip(indices, reader.read_files([paths[i] for i in indices], options),
                              strict=True):
            together[i] = records
    for i, path in enumerate(paths):
        if i in together:
            yield i, together.pop(i)
            continue
        reader = get_reader(formats[i])
        blocks = reader.blocks(path, options) if reader.blocks is not None else None
        if blocks is None:
            yield i, reader.read(path, options)
        else:
            for records in _streamed(path, blocks, options.columns):
                yield i, records


def _with_words(items: Iterator[tuple[int, Records]], words: dict[str, int],
                bits: BitCodes | None) -> Iterator[tuple[int, Records]]:
    """``items`` read with ``words`` (and ``bits``) as outcomes too (set around each step
    only, so nothing outside the reading sees them)."""
    while True:
        with using_words(words, bits):
            item = next(items, None)
        if item is None:
            return
        yield item


def sequence_rules(rules: TableRules) -> tuple[TableRules, bool]:
    """The rules recorded sequences are dealt by, and whether to stop at the cut card.

    A recorded sequence is every card dealt: no burn and no cut card, unless the rules set
    ``burn`` or ``cut_card`` explicitly (a rules file or a flag), in which case the
    sequence is taken to include the burn, or to run past the cut card.
    """
    explicit = rules.model_fields_set
    if "burn" not in explicit and rules.burn != "none":
        rules = rules.model_copy(update={"burn": "none"})
    return rules, "cut_card" in explicit


#: How many problems an error lists (the rest are counted).
SHOWN_PROBLEMS = 20


@dataclass
class FileReport:
    """What one file held and how it was read (for the import's summary and --dry-run)."""

    path: Path
    format: str
    mapping: dict[str, str]
    coups: int = 0
    shoes: int = 0
    #: why each role's column was chosen (content, name, rules check)
    why: dict[str, str] = field(default_factory=dict)
    #: rows per outcome spelling mapped by ``--words`` and its outcome code (``('1', 1)``
    #: -> 40), over the whole file
    codes: Counter[tuple[str, int]] = field(default_factory=Counter)


@dataclass
class ImportReport:
    """What an import did: per file, the problems found, the warnings, what was dropped.

    ``problems`` counts every problem; ``first_problems`` holds the first
    ``SHOWN_PROBLEMS`` of them, each naming file, line, shoe and coup. ``flagged`` counts
    the coups kept with ``valid=False`` by what was wrong with them.
    """

    files: list[FileReport] = field(default_factory=list)
    problems: int = 0
    first_problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    dropped: int = 0
    flagged: Counter[str] = field(default_factory=Counter)

    def problem(self, text: str, count: int = 1) -> None:
        """Record ``count`` problems, the first described by ``text``."""
        self.problems += count
        if len(self.first_problems) < SHOWN_PROBLEMS:
            self.first_problems.append(text)

    def problems_at(self, found: list[tuple[int, str]], count: int) -> None:
        """Record ``count`` problems of one file, ``found`` holding (line, text) of the
        first of each kind: listed in line order."""
        shown = sorted(found, key=lambda item: item[0])[:SHOWN_PROBLEMS]
        for _, text in shown:
            self.problem(text)
        self.problems += count - len(shown)

    def error(self) -> InvalidCoupError:
        """The error naming the problems: the first ``SHOWN_PROBLEMS``, and how many more."""
        if self.problems == 1:
            return InvalidCoupError(f"{self.first_problems[0]}; {KEEP_HINT}")
        shown = self.first_problems
        rest = self.problems - len(shown)
        lines = [f"{self.problems:,} problems in the recorded coups"
                 + (f" (the first {len(shown)} below)" if rest else "") + f"; {KEEP_HINT}:"]
        lines += [f"  {text}" for text in shown]
        if rest:
            lines.append(f"  ... and {rest:,} more")
        return InvalidCoupError("\n".join(lines))


def max_coups(decks: int) -> int:
    """The most coups a shoe of ``decks`` decks can deal (every coup takes 4 cards or more)."""
    return 52 * decks // 4


def _where(records: CoupRecords, row: int, coup: int) -> str:
    return (f"{records.source.at(int(records.line[row]))}: shoe "
            f"{records.labels[int(records.shoe[row])]}, coup {coup}")


def _coup_part(records: CoupRecords, decks: int, keep_invalid: bool,
               report: ImportReport) -> Coups:
    """One file's coups, checked: problems go to ``report``; with ``keep_invalid`` the
    coups with a problem are kept flagged (and those with no outcome at all dropped)."""
    found: list[tuple[int, str]] = []
    count = 0
    if records.no_outcome is not None and records.no_outcome.any():
        unknown = int(records.no_outcome.sum())
        records, dropped = _drop_unknown(records, keep_invalid, report)
        if not keep_invalid:
            found.extend(dropped)
            count += unknown
    check = check_coups(records.cards, records.shoe, records.player_total,
                        records.banker_total, records.outcome, decks)
    starts = run_starts(records.shoe)
    n = len(records)
    coup_number = (np.arange(n) - starts[records.shoe] + 1).astype(np.int32) if n else \
        np.empty(0, dtype=np.int32)
    invalid = check.invalid.copy()
    reasons = check.kind.astype(np.int16)
    for row in records.slips:
        invalid[row] = True
        reasons[row] = SLIP
    for row in records.unsplit:
        invalid[row] = True
        reasons[row] = SPLIT
    problem_rows = np.flatnonzero(invalid)
    count += int(problem_rows.size)
    for row in problem_rows[:SHOWN_PROBLEMS].tolist():
        text = records.slips.get(row) or records.unsplit.get(row) or check.describe(row)
        found.append((int(records.line[row]),
                      f"{_where(records, row, int(coup_number[row]))}: {text}"))
    for kind, how_many in zip(*np.unique(reasons[invalid], return_counts=True), strict=True):
        report.flagged[KIND_NAMES[int(kind)]] += int(how_many)
    lengths = np.diff(np.r_[starts, n]) if n else np.empty(0, dtype=np.int64)
    limit = max_coups(decks)
    for s in np.flatnonzero(lengths > limit).tolist():
        row = int(starts[s])
        count += 1
        found.append((int(records.line[row]),
                      f"{records.source.at(int(records.line[row]))}: shoe {records.labels[s]}: "
                      f"{int(lengths[s]):,} coups, more than {decks} deck"
                      f"{'s' if decks > 1 else ''} can deal (at most {limit} coups of 4 "
                      f"cards): two shoes recorded as one?"))
        shoe_rows = records.shoe == s
        report.flagged["too long a shoe"] += int((shoe_rows & ~invalid).sum())
        invalid |= shoe_rows
    report.problems_at(found, count)
    recorded = records.recorded_coup if records.recorded_coup is not None else None
    after_gap = None
    if recorded is not None and (recorded >= 0).any():
        after_gap = _gaps(records, recorded, starts, report)
    outcome = np.where(records.outcome >= 0, records.outcome,
                       winner(check.player_total, check.banker_total)).astype(np.int8)
    return Coups(
        shoe=records.shoe.astype(np.int64), coup=coup_number, cards=records.cards,
        player_total=np.where(records.player_total >= 0, records.player_total,
                              check.player_total).astype(np.int8),
        banker_total=np.where(records.banker_total >= 0, records.banker_total,
                              check.banker_total).astype(np.int8),
        outcome=outcome, burn_shown=np.full(n, NO_CARD, dtype=np.int8),
        label=np.asarray(records.labels, dtype=object)[records.shoe], valid=~invalid,
        recorded_coup=recorded, after_gap=after_gap,
    )


def _drop_unknown(records: CoupRecords, keep_invalid: bool, report: ImportReport
                  ) -> tuple[CoupRecords, list[tuple[int, str]]]:
    """The records without the coups that have no outcome (counted in ``report.dropped``),
    and (line, text) of the first of them, which are problems unless ``keep_invalid``."""
    assert records.no_outcome is not None
    rows = np.flatnonzero(records.no_outcome)
    found = []
    starts = run_starts(records.shoe)
    for row in rows[:SHOWN_PROBLEMS].tolist():
        coup = row - int(starts[records.shoe[row]]) + 1
        found.append((int(records.line[row]),
                      f"{_where(records, row, coup)}: no outcome, no cards and not both "
                      f"totals (a row with only a total, or empty): expected the winner "
                      f"(B, P, T) or the cards of both hands"))
    report.dropped += int(rows.size)
    keep = ~records.no_outcome
    index = np.flatnonzero(keep)
    remap = np.cumsum(keep) - 1
    old_shoe = records.shoe[keep]
    kept_shoes = np.unique(old_shoe)
    new_shoe = np.searchsorted(kept_shoes, old_shoe)
    slips = {int(remap[r]): t for r, t in records.slips.items() if keep[r]}
    unsplit = {int(remap[r]): t for r, t in records.unsplit.items() if keep[r]}
    return CoupRecords(
        source=records.source, line=records.line[keep], shoe=new_shoe,
        labels=[records.labels[int(s)] for s in kept_shoes], cards=records.cards[keep],
        player_total=records.player_total[keep], banker_total=records.banker_total[keep],
        outcome=records.outcome[keep],
        recorded_coup=None if records.recorded_coup is None else records.recorded_coup[index],
        notes=records.notes, slips=slips, no_outcome=None, mapping=records.mapping,
        unsplit=unsplit, why=records.why), found


def _gaps(records: CoupRecords, recorded: np.ndarray, starts: np.ndarray,
          report: ImportReport) -> np.ndarray:
    """Mark each coup whose recorded number skips some, and warn once per shoe."""
    n = recorded.size
    same = np.zeros(n, dtype=bool)
    if n > 1:
        same[1:] = records.shoe[1:] == records.shoe[:-1]
    previous = np.r_[-1, recorded[:-1]]
    gap = same & (recorded >= 0) & (previous >= 0) & (recorded > previous + 1)
    for s in np.unique(records.shoe[gap]).tolist():
        rows = np.flatnonzero(gap & (records.shoe == s))
        jumps = ", ".join(f"{previous[r]} to {recorded[r]}" for r in rows[:5].tolist())
        more = f" and {rows.size - 5} more" if rows.size > 5 else ""
        missing = int((recorded[rows] - previous[rows] - 1).sum())
        report.warnings.append(
            f"{records.source.at(int(records.line[rows[0]]))}: shoe {records.labels[s]}: "
            f"recorded coup numbers jump from {jumps}{more} ({missing:,} coup"
            f"{'s' if missing > 1 else ''} missing); the coup after each gap is marked "
            f"after_gap")
    return gap


def _sequence_part(records: SequenceRecords, rules: TableRules,
                   report: ImportReport) -> Coups:
    source = records.source
    dealing_rules, use_cut_card = sequence_rules(rules)
    limit = 52 * rules.decks
    for index, seq in enumerate(records.sequences):
        if seq.size > limit:
            report.problem(f"{source.at(records.lines[index])}: shoe {records.labels[index]}: "
                           f"{seq.size:,} cards, more than the {limit:,} of {rules.decks} "
                           f"deck{'s' if rules.decks > 1 else ''}: two shoes recorded as one?")
    coups, status = deal_sequences(records.sequences, dealing_rules, use_cut_card=use_cut_card)
    dealt = np.bincount(coups.shoe, minlength=len(records.sequences))
    too_long = np.array([seq.size > limit for seq in records.sequences], dtype=bool)
    for s in np.flatnonzero(((status == SHOE_SHORT) | (dealt == 0)) & ~too_long):
        how = (f"burn {dealing_rules.burn}" if dealing_rules.burn != "none" else "no burn")
        how += ", stopping at the cut card" if use_cut_card else ", no cut card"
        where = f"{source.at(records.lines[s])}: shoe {records.labels[s]}"
        size = records.sequences[s].size
        if dealt[s] == 0 and status[s] != SHOE_SHORT:
            raise ImportDataError(f"{where}: its {size} cards hold no whole coup ({how})")
        hint = ("; if it starts with the burn, pass --burn standard (or fixed)"
                if dealing_rules.burn == "none" else "")
        raise ImportDataError(
            f"{where}: the sequence of {size} cards ends in the middle of coup "
            f"{dealt[s] + 1} (dealt with {how}: every card is dealt); a recorded sequence "
            f"lists every card dealt, up to the end of the last coup{hint}"
        )
    lengths = np.array([seq.size for seq in records.sequences], dtype=np.int64)
    shoe_of_card = np.repeat(np.arange(lengths.size), lengths)
    position = np.arange(shoe_of_card.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    counts = count_check(np.concatenate(records.sequences), shoe_of_card, position,
                         rules.decks)
    bad_shoes = np.unique(counts.shoe[counts.excess])
    for bad in bad_shoes.tolist():
        i = int(np.flatnonzero(counts.excess & (counts.shoe == bad))[0])
        card = int(counts.row[i])
        line = (records.lines[bad] if records.card_lines is None
                else int(records.card_lines[bad][card]))
        too_many = counts.describe(i, rules.decks)
        report.problem(f"{source.at(line)}: shoe {records.labels[bad]}, card {card + 1}: "
                       f"{too_many}")
    bad_shoes = np.union1d(bad_shoes, np.flatnonzero(lengths > limit))
    valid = ~np.isin(coups.shoe, bad_shoes)
    report.flagged["too many cards in the shoe"] += int((~valid).sum())
    coups.label = np.asarray(records.labels, dtype=object)[coups.shoe]
    coups.valid = valid
    coups.coup = coups.coup.astype(np.int32)
    return coups


def fill_optional(parts: list[Coups], always: bool = False) -> list[Coups]:
    """``parts`` with the import's optional columns present in all or none (``always``:
    in all), a part without recorded coup numbers getting nulls and without gaps none, so
    they concatenate and every part of a dataset has one schema."""
    if always or any(p.recorded_coup is not None for p in parts):
        for p in parts:
            if p.recorded_coup is None:
                p.recorded_coup = np.full(len(p), -1, dtype=np.int64)
            if p.after_gap is None:
                p.after_gap = np.zeros(len(p), dtype=bool)
    return parts


def check_records(records: CoupRecords | SequenceRecords, rules: TableRules,
                  keep_invalid: bool, report: ImportReport) -> Coups:
    """One file's (or chunk's) records checked into coups (shoes numbered from 0)."""
    if isinstance(records, SequenceRecords):
        return _sequence_part(records, rules, report)
    return _coup_part(records, rules.decks, keep_invalid, report)


def iter_checked(
    paths: Iterable[str | Path],
    format: str | None = None,
    rules: TableRules | None = None,
    keep_invalid: bool = False,
    on_file: Callable[[Path, str], None] | None = None,
    options: ReadOptions | None = None,
    report: ImportReport | None = None,
) -> Iterator[Coups]:
    """The checked coups of recorded files, chunk by chunk of whole shoes, shoe ids running
    on across chunks and files (see ``import_files`` for the arguments). Problems are only
    counted in ``report`` here: the caller decides what they mean once every chunk is read.
    """
    rules = rules if rules is not None else TableRules.model_validate({})
    report = report if report is not None else ImportReport()
    if format is not None:
        check_format_name(format)
    options = options or ReadOptions()
    files = [Path(p) for p in paths]
    if not files:
        raise ImportDataError("no files to import")
    words = options.outcome_words()
    with using_words(words, options.bits):
        formats = [format or detect_format(path) for path in files]
    offset = 0
    current = -1
    for index, records in _with_words(iter_records(files, formats, options), words,
                                      options.bits):
        if index != current:
            if current >= 0 and on_file is not None:
                on_file(files[current], formats[current])
            report.files.append(FileReport(files[index], formats[index],
                                           dict(records.mapping), why=dict(records.why)))
            current = index
        report.warnings.extend(records.notes)
        if isinstance(records, CoupRecords):
            report.files[-1].codes.update(records.codes)
        part = check_records(records, rules, keep_invalid, report)
        shoes = int(part.shoe_ids().size)
        report.files[-1].coups += len(part)
        report.files[-1].shoes += shoes
        part.shoe = part.shoe + offset
        offset += len(records.labels) if isinstance(records, CoupRecords) else shoes
        part.decks = rules.decks
        yield fill_optional([part], always=True)[0]
    if current >= 0 and on_file is not None:
        on_file(files[current], formats[current])


def import_files(
    paths: Iterable[str | Path],
    format: str | None = None,
    rules: TableRules | None = None,
    keep_invalid: bool = False,
    on_file: Callable[[Path, str], None] | None = None,
    options: ReadOptions | None = None,
    report: ImportReport | None = None,
) -> Coups:
    """Import recorded files into one coups table.

    Each file's format is detected (``detect_format``) unless ``format`` forces one. Shoe
    ids run 0..n-1 in order of appearance across all files; ``label`` keeps each shoe's
    recorded label ("file:line" when it had none). Every coup with cards is checked (hands,
    drawing rules, recorded totals and winner, cards per rank against ``rules.decks``), and
    every shoe's length against what its decks can deal. Problems raise
    ``InvalidCoupError`` listing the first ``SHOWN_PROBLEMS`` (file, line, shoe, coup) and
    how many more there are, unless ``keep_invalid``, which keeps such coups with
    ``valid=False`` and their recorded winner (and drops coups with no outcome at all,
    counted in ``report.dropped``). ``on_file(path, format)`` is called after each file is
    read (for progress); ``report`` collects what was done (see ``ImportReport``).
    ``import_dataset`` writes the same coups to a folder of parts, chunk by chunk.
    """
    rules = rules if rules is not None else TableRules.model_validate({})
    report = report if report is not None else ImportReport()
    parts = list(iter_checked(paths, format, rules, keep_invalid, on_file, options, report))
    if report.problems and not keep_invalid:
        raise report.error()
    coups = Coups.concat(parts)
    coups.decks = rules.decks
    return coups
