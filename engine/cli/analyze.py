"""``baccarat analyze``: are these shoes random? Each statistic against fair reference datasets."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from ..errors import BaccaratError
from ..progress import progress_bars
from . import app
from .common import (
    Force,
    Quiet,
    build_rules,
    console,
    done,
    err_console,
    note_import,
    print_table,
    reports_errors,
    seed_in_range,
)
from .rule_options import Burn, CutCard, Decks, RulesFile

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..coups import Coups
    from ..rules import TableRules

ANALYSIS_FILE = "analysis.parquet"
REFERENCE_FILE = "reference.parquet"


def read_datasets(paths: list[Path]) -> tuple[Coups, dict[str, Any]]:
    """The datasets' coups as one table (shoes renumbered in order) and the first's metadata.

    Datasets dealt under different rules cannot be pooled: that is an error naming them.
    """
    import numpy as np

    from ..coups import Coups
    from ..io.inputs import read_dataset

    parts: list[Coups] = []
    first_meta: dict[str, Any] = {}
    offset = 0
    for path in paths:
        coups, meta = read_dataset(path, on_import=note_import)
        if not parts:
            first_meta = meta
        elif (meta.get("rules") or None) != (first_meta.get("rules") or None):
            raise BaccaratError(f"{path}: its rules differ from those of {paths[0]}; "
                                "analyze datasets of one table's rules together")
        if not len(coups):
            raise BaccaratError(f"{path}: no coups")
        starts = np.r_[True, coups.shoe[1:] != coups.shoe[:-1]]
        shoe = np.cumsum(starts) - 1 + offset
        offset = int(shoe[-1]) + 1
        coups.shoe = shoe.astype(np.int64)
        coups.label = None
        parts.append(coups)
    return Coups.concat(parts), first_meta


def dataset_rules(meta: dict[str, Any], rules_file: Path | None, **flags: Any) -> TableRules:
    """The table rules: the dataset's own, with a rules file and the flags on top."""
    from ..rules import rules_from_mapping

    stored = dict(meta.get("rules") or {})
    if rules_file is not None:
        return build_rules(rules_file, **{**stored, **{k: v for k, v in flags.items()
                                                       if v is not None}})
    overrides = {k: v for k, v in flags.items() if v is not None}
    return rules_from_mapping({**stored, **overrides}, source="the dataset's rules and flags")


def _number(value: Any) -> str:
    value = float(value)
    if value != value:  # NaN
        return ""
    return f"{value:.4g}"


def _p(value: Any) -> str:
    value = float(value)
    if value == 0.0:
        return "<1e-300"
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


def analysis_table(analysis: Analysis) -> Table:
    """The terminal table: one row per statistic, standing-out ones marked."""
    table = Table(title=f"{analysis.shoes:,} shoes, {analysis.coups:,} coups against "
                  f"{analysis.n_reference:,} fair reference datasets",
                  box=box.SIMPLE_HEAVY)
    table.add_column("statistic", justify="left", min_width=24)
    for head in ("observed", "reference mean", "95% of reference", "z", "p", "adjusted p"):
        table.add_column(head, justify="right", no_wrap=True)
    for row in analysis.table.to_dict("records"):
        table.add_row(
            str(row["label"]), _number(row["observed"]), _number(row["reference_mean"]),
            f"[{_number(row['reference_low'])}, {_number(row['reference_high'])}]",
            f"{float(row['z']):+.2f}", _p(row["p"]),
            f"{_p(row['p_adjusted'])} [bold red]<[/]" if row["stands_out"]
            else f"{_p(row['p_adjusted'])}  ",
            style="bold" if row["stands_out"] else None)
    return table


def write_analysis(analysis: Analysis, paths: dict[str, Path],
                   metadata: dict[str, Any]) -> None:
    """``analysis.parquet`` and ``reference.parquet``, each at ``paths[name]`` (files the
    caller owns: the temporaries of its claims of the two outputs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..io.parquet import COMPRESSION, with_metadata

    document = {**metadata, "kind": "analysis", "verdict": analysis.verdict,
                "notes": analysis.notes, "shoes": analysis.shoes, "coups": analysis.coups,
                "reference": analysis.n_reference}
    for frame, name, kind in ((analysis.table, ANALYSIS_FILE, "analysis"),
                              (analysis.reference, REFERENCE_FILE, "analysis reference")):
        table = pa.Table.from_pandas(frame, preserve_index=False)
        pq.write_table(with_metadata(table, {**document, "kind": kind}), paths[name],
                       compression=COMPRESSION)


@app.command()
@reports_errors
def analyze(
    datasets: Annotated[list[Path], typer.Argument(
        help="coups datasets (Parquet files or folders of parts), analysed as one")],
    reference: Annotated[int | None, typer.Option(
        "--reference", min=20, help="fair reference datasets to compare with "
        "(default 500)")] = None,
    out: Annotated[Path, typer.Option(
        help="folder for analysis.parquet and reference.parquet")] = Path("analysis"),
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    seed: Annotated[int, typer.Option(
        callback=seed_in_range, help="seed of the reference shoes")] = 0,
    table_shoes: Annotated[int | None, typer.Option(
        "--table-shoes", min=2, help="consecutive shoes come in tables of N shoes, each "
        "dealt from the previous shoe's cards (default: the dataset's own, if generated "
        "with --table-shoes)")] = None,
    rules_file: RulesFile = None,
    decks: Decks = None,
    burn: Burn = None,
    cut_card: CutCard = None,
    quiet: Quiet = False,
    force: Force = False,
) -> None:
    """Test whether DATASET's shoes look fairly shuffled: every statistic of the family
    (outcomes, runs, roads, and cards where recorded) against its distribution over
    datasets of the same shape dealt from fair shuffles, with Holm-adjusted p-values.

    The rules (decks, burn, cut card) are the dataset's own unless given.
    """
    from ..analysis import DEFAULT_REFERENCE, analyze_coups
    from ..io.owner import claim_output

    started = time.perf_counter()
    if os.path.lexists(out) and not os.path.isdir(out):
        raise BaccaratError(f"--out {out} is a file; give a folder")
    with contextlib.ExitStack() as claims:
        temps = {name: claims.enter_context(claim_output(out / name, force=force,
                                                         what="analysis")).temp
                 for name in (ANALYSIS_FILE, REFERENCE_FILE)}
        coups, meta = read_datasets(datasets)
        rules = dataset_rules(meta, rules_file, decks=decks, burn=burn, cut_card=cut_card)
        if table_shoes is None and len(datasets) == 1:
            table_shoes = meta.get("table_shoes")
        n_reference = reference or DEFAULT_REFERENCE
        with progress_bars(not quiet) as bars:
            bar = bars.add("reference", "datasets", n_reference)
            analysis = analyze_coups(coups, rules, n_reference=n_reference, seed=seed,
                                     table_shoes=table_shoes,
                                     progress=lambda n: bar.update(advance=n))
        metadata = {"datasets": [str(p) for p in datasets], "rules": rules.model_dump(),
                    "seed": seed, "table_shoes": table_shoes}
        write_analysis(analysis, temps, metadata)
    # the folder named once: twice, a closing line outgrew 80 columns with a modest name
    message = (f"wrote {out} ({ANALYSIS_FILE}, {REFERENCE_FILE}) in "
               f"{time.perf_counter() - started:.1f}s")
    if as_json:
        typer.echo(json.dumps({**analysis.to_json(), **metadata}, indent=2))
        err_console.print(message, highlight=False, soft_wrap=True)
        return
    print_table(analysis_table(analysis), stack=True)
    if not analysis.flagged.empty:
        console.print("<: stands out (Holm-adjusted p below 5%)", highlight=False)
    console.print(f"Verdict: {analysis.verdict}", highlight=False, overflow="fold")
    for note in analysis.notes:
        console.print(f"Note: {note}", highlight=False, overflow="fold")
    done(message)
