"""``baccarat import``: recorded shoes (scorecards, coup records, card sequences) into coups."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import BaccaratError
from ..io.importers.formats import FIELD_NAMES, FORMATS
from . import app

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable

    from ..coups import Coups
    from ..io.importers.importer import ImportReport
    from ..io.importers.readers import ReadOptions
    from ..io.importers.tokens import BitCodes
    from ..rules import TableRules

from ..progress import progress_bars
from .common import (
    Force,
    Quiet,
    build_rules,
    console,
    done,
    print_labelled,
    reports_errors,
)
from .rule_options import Burn, Commission, CutCard, Decks, RulesFile, TiePays, VariantOpt

_FORMAT_HELP = ("force the format of every file: " + ", ".join(FORMATS)
                + " or an installed reader (default: detected per file; see --formats "
                  "and data/README.md)")
_COLUMN_HELP = ("map a field to a source column or dotted JSON name, e.g. "
                "outcome='Winning Outcome', player_cards=playerHand.cards, shoe=tableId,shoe "
                "(repeatable; fields: " + ", ".join(FIELD_NAMES) + ")")


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


_HELP = (
    "Import recorded shoes into a coups table, checking every coup with cards (drawing "
    "rules, recorded totals and winner, at most 4 x decks cards of a rank per shoe). "
    "Card sequences are dealt with every card dealt, unless --burn or --cut-card (or a "
    "rules file) says the recording includes the burn or runs past the cut card."
)


@app.command("import", help=_HELP)
@reports_errors
def import_command(
    files: Annotated[list[Path] | None, typer.Argument(
        help="recorded files: scorecards, coup records (CSV, JSON, Parquet, xlsx, SQLite), "
             "message logs, card sequences", metavar="FILE", show_default=False)] = None,
    out: Annotated[Path, typer.Option(help="output coups Parquet file")] = Path("coups.parquet"),
    format: Annotated[str | None, typer.Option("--format", help=_FORMAT_HELP)] = None,
    column: Annotated[list[str] | None, typer.Option(
        "--column", metavar="FIELD=SOURCE", help=_COLUMN_HELP)] = None,
    words: Annotated[list[str] | None, typer.Option(
        "--words", metavar="SIDE=WORD,...",
        help="a platform's own outcome words: banker=WORD,... player=WORD,... "
             "tie=WORD,... (as in --words banker=装,状 player=现 tie=合)")] = None,
    bits: Annotated[list[str] | None, typer.Option(
        "--bits", metavar="SPEC",
        help="a result column whose whole numbers pack the winner and flags in bits: "
             "winner=0-1:1=B,2=P,3=T (the winner's bits, what each value is), then a "
             "NAME=BIT per flag, comma-separated (,player_pair=2,natural=4); the winner "
             "is read, the flags counted (--dry-run) and left out")] = None,
    records: Annotated[str | None, typer.Option(
        "--records", metavar="PATH",
        help="dotted path of the list of coups in a JSON document or message "
             "(e.g. data.results), when there are several")] = None,
    sheet: Annotated[str | None, typer.Option(
        help="sheet of an .xlsx workbook (default: the only one with known columns)")] = None,
    table: Annotated[str | None, typer.Option(
        help="table of a SQLite database (default: the only one with known columns)")] = None,
    list_formats: Annotated[bool, typer.Option(
        "--formats", help="list every reader, built-in and installed, and exit")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="print what the import would do (formats, column mapping, shoes, "
                          "coups, flagged coups, warnings, the first coups) and write "
                          "nothing")] = False,
    keep_invalid: Annotated[bool, typer.Option(
        "--keep-invalid",
        help="keep coups that break the drawing rules or disagree with their cards, "
             "flagged valid=False with their recorded winner")] = False,
    rules_file: RulesFile = None,
    decks: Decks = None,
    burn: Burn = None,
    cut_card: CutCard = None,
    commission: Commission = None,
    tie_pays: TiePays = None,
    variant: VariantOpt = None,
    quiet: Quiet = False,
    force: Force = False,
) -> None:
    """Import recorded shoes into a coups table (see ``baccarat.io.importers.import_files``)."""
    from ..io.importers.dataset import import_dataset
    from ..io.importers.detect import check_format_name
    from ..io.importers.importer import ImportReport
    from ..io.importers.layout import parse_mapping
    from ..io.importers.readers import ReadOptions
    from ..io.importers.tokens import parse_bits, parse_words

    if list_formats:
        _print_formats()
        return
    files, words = _words_after_flag(files or [], words)
    if not files:
        raise BaccaratError("no files to import (give FILE..., or --formats to list the "
                            "readers)")
    options = ReadOptions(columns=parse_mapping(column), records=records, sheet=sheet,
                          table=table, words=parse_words(words), bits=parse_bits(bits))
    options.outcome_words()  # --words and --bits agree
    rules = build_rules(rules_file, decks=decks, burn=burn, cut_card=cut_card,
                        commission=commission, tie_pays=tie_pays, variant=variant)
    if format is not None:
        check_format_name(format)
    report = ImportReport()
    with progress_bars(not (quiet or dry_run)) as bars:
        bar = bars.add("import", "files", len(files))

        def advance(path: Path, file_format: str) -> None:
            bar.update(advance=1, note=path.name)

        if dry_run:
            _dry_run(files, format, rules, keep_invalid, advance, options, report, out)
            return
        document = import_dataset(files, out, format=format, rules=rules,
                                  keep_invalid=keep_invalid, options=options, report=report,
                                  force=force, on_file=advance)
    _print_warnings(report)
    invalid = int(document["invalid_coups"])
    if invalid:
        print_labelled("warning", f"kept {_plural(invalid, 'invalid coup')} "
                       f"(valid=False in {out}: {_flagged(report)})", "yellow")
    if report.dropped:
        print_labelled("warning", f"dropped {_plural(report.dropped, 'coup')} with no "
                       f"outcome, no cards and not both totals", "yellow")
    done(f"imported {_plural(int(document['coups']), 'coup')} from "
         f"{_plural(int(document['shoes']), 'shoe')} ({_plural(len(files), 'file')}) to {out}")


_WORD_SPEC = re.compile(r"(?i)(banker|player|tie|b|p|t)=\S+")


def _words_after_flag(files: list[Path], words: list[str] | None
                      ) -> tuple[list[Path], list[str] | None]:
    """``--words banker=装 player=现 tie=合`` as written (one flag, several words): the
    words after the first land among the files; take back those that are no file."""
    if not words:
        return files, words
    spelled = [f for f in files if _WORD_SPEC.fullmatch(str(f)) and not f.exists()]
    return [f for f in files if f not in spelled], [*words, *map(str, spelled)]


def _print_formats() -> None:
    """One line per reader: its name, where it comes from, what it reads."""
    from ..io.importers.readers import readers

    for reader in readers().values():
        origin = "" if reader.origin == "built-in" else f" [{reader.origin}]"
        console.print(f"{reader.name:<10} {reader.description}{origin}", highlight=False,
                      soft_wrap=True, markup=False)


#: Warnings shown in full (the rest are counted).
_SHOWN_WARNINGS = 20


def _print_warnings(report: ImportReport) -> None:
    """The import's warnings (gaps, skipped lines...) on stderr, the first twenty in full."""
    for text in report.warnings[:_SHOWN_WARNINGS]:
        print_labelled("warning", text, "yellow")
    rest = len(report.warnings) - _SHOWN_WARNINGS
    if rest > 0:
        print_labelled("warning", f"... and {_plural(rest, 'more warning')}", "yellow")


def _flagged(report: ImportReport) -> str:
    return ", ".join(f"{count:,} {why}" for why, count in report.flagged.most_common())


def _dry_run(files: list[Path], format: str | None, rules: TableRules, keep_invalid: bool,
             on_file: Callable[[Path, str], None], options: ReadOptions,
             report: ImportReport, out: Path) -> None:
    """Read and check everything, keep the first coups, print what would be written."""
    from ..coups import Coups
    from ..io.importers.importer import iter_checked

    first: list[Coups] = []
    coups = shoes = invalid = 0
    for part in iter_checked(files, format, rules, keep_invalid, on_file, options, report):
        coups += len(part)
        shoes += int(part.shoe_ids().size)
        invalid += int((~part.valid).sum()) if part.valid is not None else 0
        if sum(len(h) for h in first) < 5:
            first.append(part.take(slice(0, 5)))
    if report.problems and not keep_invalid:
        _print_plans(report, options.bits)  # the plan with the problems the error lists
        raise report.error()
    _print_dry_run(Coups.concat(first).take(slice(0, 5)), coups, shoes, report, out, invalid,
                   options.bits)


def _print_codes(codes: Counter[tuple[str, int]], bits: BitCodes | None) -> None:
    """The rows of each result code and the side it is read as (``--words 1=P,2=B``), or
    with ``bits`` the flags each sets too, and how many rows each side and flag has."""
    from ..io.importers.tokens import OUTCOME_NAMES

    read = [sum(n for (_, c), n in codes.items() if c == side) for side in range(3)]
    if bits is None:
        shown = [f"{spelling!r} ({_plural(rows, 'row')}) -> {OUTCOME_NAMES[side]}"
                 for (spelling, side), rows in sorted(codes.items())]
        flags = ""
    else:
        ordered = sorted(codes.items(), key=lambda item: int(item[0][0]))
        shown = [f"{code} ({_plural(rows, 'row')}) -> "
                 + " + ".join([OUTCOME_NAMES[side], *bits.flags_of(int(code))])
                 for (code, side), rows in ordered]
        counted = {name: sum(n for (code, _), n in codes.items() if name in
                             bits.flags_of(int(code))) for name in bits.flags}
        flags = "; left out (a coups table keeps no flags): " + ", ".join(
            f"{name} {n:,}" for name, n in counted.items())
    _indented(f"{'--words' if bits is None else '--bits'}: " + ", ".join(shown)
              + "; read as " + ", ".join(f"{name} {n:,}" for name, n in
                                         zip(OUTCOME_NAMES, read, strict=True) if n)
              + flags)


def _print_plans(report: ImportReport, bits: BitCodes | None = None) -> None:
    """Per file: its format, shoes and coups, and per field the column chosen and why."""
    from ..io.importers.layout import FIELDS

    field_of = {role: name for name, role in FIELDS.items()}
    order = list(FIELDS.values())
    for file in report.files:
        console.print(f"{file.path}: format {file.format}; {_plural(file.shoes, 'shoe')}, "
                      f"{_plural(file.coups, 'coup')}", highlight=False, soft_wrap=True,
                      markup=False)
        roles = sorted(file.mapping, key=lambda r: order.index(r) if r in order else 99)
        for what in ("table", "sheet", "list", "road"):
            if what in file.why:
                console.print(f"  {what}: {file.why[what]}", highlight=False,
                              soft_wrap=True, markup=False)
        if file.codes:
            _print_codes(file.codes, bits)
        if "rules" in file.why:
            _indented(f"rules check: {file.why['rules']}")
        for role in roles:
            why = file.why.get(role, "")
            _indented(f"{field_of.get(role, role)} <- {file.mapping[role]!r}"
                      + (f" ({why})" if why else ""))
        if "left out" in file.why:
            _indented(f"left out: {file.why['left out']}")


def _indented(text: str) -> None:
    """One item of a file's plan, indented under the file and wrapped to the terminal."""
    import textwrap

    console.print(textwrap.fill(text, width=max(console.width, 40), initial_indent="  ",
                                subsequent_indent="      ", break_long_words=False,
                                break_on_hyphens=False),
                  highlight=False, soft_wrap=True, markup=False)


def _print_dry_run(head: Coups, coups: int, shoes: int, report: ImportReport, out: Path,
                   invalid: int, bits: BitCodes | None) -> None:
    """What the import would write, without writing it."""
    import numpy as np
    import pandas as pd

    from ..io.importers.writers import card_text

    _print_plans(report, bits)
    console.print(f"would import {_plural(coups, 'coup')} from {_plural(shoes, 'shoe')} "
                  f"({_plural(len(report.files), 'file')}) to {out}; nothing written",
                  highlight=False, soft_wrap=True, markup=False)
    if invalid:
        console.print(f"flagged: {_plural(invalid, 'coup')} ({_flagged(report)})",
                      highlight=False, soft_wrap=True, markup=False)
    if report.dropped:
        console.print(f"dropped: {_plural(report.dropped, 'coup')} with no outcome",
                      highlight=False, markup=False)
    for text in report.warnings[:_SHOWN_WARNINGS]:
        console.print(f"warning: {text}", highlight=False, soft_wrap=True, markup=False)
    if len(report.warnings) > _SHOWN_WARNINGS:
        console.print(f"warning: ... and {len(report.warnings) - _SHOWN_WARNINGS:,} more",
                      highlight=False, markup=False)
    spelled = card_text(head.cards)
    frame = pd.DataFrame({
        "shoe": head.shoe, "label": head.label, "coup": head.coup,
        **({"recorded_coup": head.recorded_coup} if head.recorded_coup is not None else {}),
        "player": ["-".join(c for c in row[:3] if c) for row in spelled],
        "banker": ["-".join(c for c in row[3:] if c) for row in spelled],
        "player_total": head.player_total, "banker_total": head.banker_total,
        "outcome": np.array(["B", "P", "T"])[head.outcome],
        "valid": head.valid,
    })
    console.print(frame.to_string(index=False, line_width=max(console.width, 40)),
                  highlight=False, markup=False, soft_wrap=True)
