"""Recorded files into one coups table: read each file, check every coup, number the shoes.

Nothing is returned unless every file reads and every coup passes its checks (or the
caller asked to keep invalid coups, which are then flagged ``valid=False``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...cards import NO_CARD
from ...coups import Coups
from ...deal import SHOE_SHORT, deal_sequences
from ...rules import TableRules
from .checks import check_coups, count_check, winner
from .detect import check_format_name, detect_format
from .readers import ReadOptions, get_reader
from .records import (
    CoupRecords,
    ImportDataError,
    InvalidCoupError,
    SequenceRecords,
    run_starts,
)

KEEP_HINT = "pass --keep-invalid (keep_invalid=True) to import such coups flagged valid=False"


def read_records(path: str | Path, format: str,
                 options: ReadOptions | None = None) -> CoupRecords | SequenceRecords:
    """The coups or card sequences recorded in one file of the given format (not checked)."""
    path = Path(path)
    reader = get_reader(format)
    if not path.is_file():
        raise ImportDataError(f"no such file: {path}")
    return reader.read(path, options or ReadOptions())


def read_all(paths: list[Path], formats: list[str],
             options: ReadOptions) -> list[CoupRecords | SequenceRecords]:
    """Each file's records, in order; the files of a streaming reader (message logs) are
    read together as one stream."""
    for path in paths:
        if not path.is_file():
            raise ImportDataError(f"no such file: {path}")
    out: list[CoupRecords | SequenceRecords | None] = [None] * len(paths)
    for name in dict.fromkeys(formats):
        reader = get_reader(name)
        if reader.read_many is None:
            continue
        indices = [i for i, f in enumerate(formats) if f == name]
        for i, records in zip(indices, reader.read_files([paths[i] for i in indices], options),
                              strict=True):
            out[i] = records
    for i, path in enumerate(paths):
        if out[i] is None:
            out[i] = get_reader(formats[i]).read(path, options)
    return [r for r in out if r is not None]


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


@dataclass
class _Part:
    """One file's coups (shoes numbered from 0 within the file) and its problems."""

    coups: Coups
    shoes: int
    problems: int
    first_problem: str | None


def _coup_part(records: CoupRecords, decks: int) -> _Part:
    check = check_coups(records.cards, records.shoe, records.player_total,
                        records.banker_total, records.outcome, decks)
    starts = run_starts(records.shoe)
    coup_number = (np.arange(len(records)) - starts[records.shoe] + 1).astype(np.int16)
    outcome = np.where(records.outcome >= 0, records.outcome,
                       winner(check.player_total, check.banker_total)).astype(np.int8)
    invalid = check.invalid
    first = None
    if invalid.any():
        row = int(np.flatnonzero(invalid)[0])
        first = (f"{records.source.at(int(records.line[row]))}: shoe "
                 f"{records.labels[int(records.shoe[row])]}, coup {coup_number[row]}: "
                 f"{check.describe(row)}")
    n = len(records)
    coups = Coups(
        shoe=records.shoe.astype(np.int64), coup=coup_number, cards=records.cards,
        player_total=np.where(records.player_total >= 0, records.player_total,
                              check.player_total).astype(np.int8),
        banker_total=np.where(records.banker_total >= 0, records.banker_total,
                              check.banker_total).astype(np.int8),
        outcome=outcome, burn_shown=np.full(n, NO_CARD, dtype=np.int8),
        label=np.asarray(records.labels, dtype=object)[records.shoe], valid=~invalid,
    )
    return _Part(coups=coups, shoes=len(records.labels), problems=int(invalid.sum()),
                 first_problem=first)


def _sequence_part(records: SequenceRecords, rules: TableRules) -> _Part:
    source = records.source
    dealing_rules, use_cut_card = sequence_rules(rules)
    coups, status = deal_sequences(records.sequences, dealing_rules, use_cut_card=use_cut_card)
    dealt = np.bincount(coups.shoe, minlength=len(records.sequences))
    for s in np.flatnonzero((status == SHOE_SHORT) | (dealt == 0)):
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
    first = None
    if bad_shoes.size:
        bad = int(bad_shoes[0])
        i = int(np.flatnonzero(counts.excess & (counts.shoe == bad))[0])
        card = int(counts.row[i])
        line = (records.lines[bad] if records.card_lines is None
                else int(records.card_lines[bad][card]))
        too_many = counts.describe(i, rules.decks)
        first = f"{source.at(line)}: shoe {records.labels[bad]}, card {card + 1}: {too_many}"
    valid = ~np.isin(coups.shoe, bad_shoes)
    coups.label = np.asarray(records.labels, dtype=object)[coups.shoe]
    coups.valid = valid
    return _Part(coups=coups, shoes=len(records.sequences), problems=int(bad_shoes.size),
                 first_problem=first)


def import_files(
    paths: Iterable[str | Path],
    format: str | None = None,
    rules: TableRules | None = None,
    keep_invalid: bool = False,
    on_file: Callable[[Path, str], None] | None = None,
    options: ReadOptions | None = None,
) -> Coups:
    """Import recorded files into one coups table.

    Each file's format is detected (``detect_format``) unless ``format`` forces one. Shoe
    ids run 0..n-1 in order of appearance across all files; ``label`` keeps each shoe's
    recorded label ("file:line" when it had none). Every coup with cards is checked (hands,
    drawing rules, recorded totals and winner, cards per rank against ``rules.decks``); a
    problem raises ``InvalidCoupError`` naming the first one and how many more there are,
    unless ``keep_invalid``, which keeps such coups with ``valid=False`` and their recorded
    winner. ``on_file(path, format)`` is called after each file is read (for progress).
    """
    rules = rules if rules is not None else TableRules.model_validate({})
    if format is not None:
        check_format_name(format)
    options = options or ReadOptions()
    files = [Path(p) for p in paths]
    formats = [format or detect_format(path) for path in files]
    parts: list[_Part] = []
    for path, file_format, records in zip(files, formats, read_all(files, formats, options),
                                          strict=True):
        if isinstance(records, SequenceRecords):
            parts.append(_sequence_part(records, rules))
        else:
            parts.append(_coup_part(records, rules.decks))
        if on_file is not None:
            on_file(path, file_format)
    if not parts:
        raise ImportDataError("no files to import")
    problems = sum(part.problems for part in parts)
    if problems and not keep_invalid:
        first = next(part.first_problem for part in parts if part.first_problem)
        more = f" (and {problems - 1} more problem{'s' if problems > 2 else ''})" \
            if problems > 1 else ""
        raise InvalidCoupError(f"{first}{more}; {KEEP_HINT}")
    offset = 0
    for part in parts:
        part.coups.shoe = part.coups.shoe + offset
        offset += part.shoes
    coups = Coups.concat([part.coups for part in parts])
    coups.decks = rules.decks
    return coups
