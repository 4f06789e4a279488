"""``baccarat import``: recorded shoes (scorecards, coup records, card sequences) into coups."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import BaccaratError
from ..io.importers.formats import FIELD_NAMES, FORMATS
from . import app
from .common import (
    Burn,
    Commission,
    CutCard,
    Decks,
    Force,
    Quiet,
    RulesFile,
    TiePays,
    VariantOpt,
    build_rules,
    console,
    done,
    err_console,
    progress_bar,
    reports_errors,
)

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
    """Import recorded shoes into a coups table (see ``engine.io.importers.import_files``)."""
    from ..io.importers import import_files, sequence_rules
    from ..io.importers.detect import check_format_name
    from ..io.importers.layout import parse_mapping
    from ..io.importers.readers import ReadOptions
    from ..io.parquet import check_output_free, write_coups

    if list_formats:
        _print_formats()
        return
    if not files:
        raise BaccaratError("no files to import (give FILE..., or --formats to list the "
                            "readers)")
    options = ReadOptions(columns=parse_mapping(column), records=records, sheet=sheet,
                          table=table)
    rules = build_rules(rules_file, decks=decks, burn=burn, cut_card=cut_card,
                        commission=commission, tie_pays=tie_pays, variant=variant)
    if format is not None:
        check_format_name(format)
    check_output_free(out, force)
    formats: list[str] = []
    with progress_bar("import", len(files), "files", quiet) as progress:
        task = progress.task_ids[0]

        def advance(path: Path, file_format: str) -> None:
            formats.append(file_format)
            progress.update(task, advance=1, rate=path.name)

        coups = import_files(files, format=format, rules=rules, keep_invalid=keep_invalid,
                             on_file=advance, options=options)
    invalid = int((~coups.valid).sum()) if coups.valid is not None else 0
    stored_rules, _ = sequence_rules(rules)
    write_coups(coups, out, stored_rules, source="import",
                files=[str(f) for f in files], formats=formats,
                keep_invalid=keep_invalid, invalid_coups=invalid)
    if invalid:
        err_console.print(
            f"[yellow]warning:[/] kept {_plural(invalid, 'invalid coup')} "
            f"(valid=False in {out})", highlight=False, soft_wrap=True)
    shoes = int(coups.shoe_ids().size)
    done(f"imported {_plural(len(coups), 'coup')} from {_plural(shoes, 'shoe')} "
         f"({_plural(len(files), 'file')}) to {out}")


def _print_formats() -> None:
    """One line per reader: its name, where it comes from, what it reads."""
    from ..io.importers.readers import readers

    for reader in readers().values():
        origin = "" if reader.origin == "built-in" else f" [{reader.origin}]"
        console.print(f"{reader.name:<10} {reader.description}{origin}", highlight=False,
                      soft_wrap=True, markup=False)
