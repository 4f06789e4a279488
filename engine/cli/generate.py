"""``baccarat generate``: seeded shoes dealt into a coups Parquet file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ..deal import iter_generated
from ..io.parquet import check_output_free, coups_metadata, write_tables_atomic
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
    done,
    progress_bar,
    reports_errors,
)


@app.command()
@reports_errors
def generate(
    shoes: Annotated[int, typer.Option(min=1, help="number of shoes to generate")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="random seed; shoe i is a function of (seed, i)")] = 0,
    out: Annotated[Path, typer.Option(help="output coups Parquet file")] = Path("coups.parquet"),
    rules_file: RulesFile = None,
    decks: Decks = None,
    burn: Burn = None,
    cut_card: CutCard = None,
    commission: Commission = None,
    tie_pays: TiePays = None,
    variant: VariantOpt = None,
    chunk: Annotated[int, typer.Option(min=1, help="shoes per chunk (bounds memory)")] = 50_000,
    quiet: Quiet = False,
    force: Force = False,
) -> None:
    """Shuffle SHOES shoes from SEED and deal them into coups by the drawing rules."""
    rules = build_rules(rules_file, decks=decks, burn=burn, cut_card=cut_card,
                        commission=commission, tie_pays=tie_pays, variant=variant)
    check_output_free(out, force)
    started = time.perf_counter()
    coups_written = 0
    with progress_bar("generate", shoes, "coups", quiet) as progress:
        task = progress.task_ids[0]

        def tables():
            nonlocal coups_written
            for part in iter_generated(rules, seed, shoes, chunk):
                coups_written += len(part)
                rate = coups_written / max(time.perf_counter() - started, 1e-9)
                progress.update(task, advance=int(part.shoe_ids().size),
                                rate=f"{rate / 1e6:.1f}M coups/s")
                yield part.to_arrow()

        write_tables_atomic(
            tables(), out, coups_metadata(rules, source="generated", seed=seed, shoes=shoes)
        )
    elapsed = time.perf_counter() - started
    done(f"wrote {coups_written:,} coups from {shoes:,} shoes to {out} in {elapsed:.1f}s")
