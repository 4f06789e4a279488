"""``baccarat generate``: seeded shoes dealt into a coups dataset (a folder of Parquet parts)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ..progress import progress_bars
from . import app
from .common import (
    CONNECT_TIMEOUT,
    NO_WORKERS_TIMEOUT,
    Force,
    NoWorkersTimeout,
    Quiet,
    Resume,
    Scheduler,
    SchedulerTimeout,
    Workers,
    build_rules,
    done,
    local_workers,
    reports_errors,
    seed_in_range,
)
from .rule_options import Burn, Commission, CutCard, Decks, RulesFile, TiePays, VariantOpt


@app.command()
@reports_errors
def generate(
    shoes: Annotated[int, typer.Option(min=1, help="number of shoes to generate")] = 1000,
    seed: Annotated[int, typer.Option(
        callback=seed_in_range, help="random seed; shoe i is a function of (seed, i)")] = 0,
    out: Annotated[Path, typer.Option(
        help="output coups dataset: a folder of Parquet parts, one per chunk")
    ] = Path("coups.parquet"),
    rules_file: RulesFile = None,
    decks: Decks = None,
    burn: Burn = None,
    cut_card: CutCard = None,
    commission: Commission = None,
    tie_pays: TiePays = None,
    variant: VariantOpt = None,
    chunk: Annotated[int | None, typer.Option(
        min=1, help="shoes per chunk and part (bounds memory; default 50000, or the "
        "interrupted run's with --resume)")] = None,
    shuffle: Annotated[str, typer.Option(
        "--shuffle", help="shuffle model: uniform; riffle:K (also riffle:K:strip, "
        "riffle:K:cut, riffle:K:strip:cut): each shoe is the previous shoe's discards after "
        "K riffles; csm: a continuous shuffling machine")] = "uniform",
    table_shoes: Annotated[int | None, typer.Option(
        "--table-shoes", min=1, help="riffle: consecutive shoes per table, the first "
        "shuffled uniformly (default 8)")] = None,
    coups_per_shoe: Annotated[int | None, typer.Option(
        "--coups-per-shoe", min=1, help="csm: coups per shoe (default 80)")] = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    scheduler_timeout: SchedulerTimeout = CONNECT_TIMEOUT,
    no_workers_timeout: NoWorkersTimeout = NO_WORKERS_TIMEOUT,
    resume: Resume = False,
    quiet: Quiet = False,
    force: Force = False,
) -> None:
    """Shuffle SHOES shoes from SEED and deal them into coups by the drawing rules.

    The dataset is written chunk by chunk into the folder OUT (part-00000.parquet, ...),
    which pandas, pyarrow, DuckDB and every baccarat command read as one table. An
    interrupted run keeps its finished parts: --resume finishes it. --shuffle deals
    the shoes from a model of a real shuffle instead of a perfect one.
    """
    from ..parallel import generate_dataset
    from ..shuffles import parse_shuffle

    model = parse_shuffle(shuffle, table_shoes, coups_per_shoe)
    rules = build_rules(rules_file, decks=decks, burn=burn, cut_card=cut_card,
                        commission=commission, tie_pays=tie_pays, variant=variant)
    started = time.perf_counter()
    coups_written = 0
    with progress_bars(not quiet) as bars:
        bar = bars.add("generate", "shoes", shoes)

        def advance(coups: int, chunk_shoes: int) -> None:
            nonlocal coups_written
            coups_written += coups
            rate = coups_written / max(time.perf_counter() - started, 1e-9)
            bar.update(advance=chunk_shoes, note=f"{rate / 1e6:.1f}M coups/s")

        document = generate_dataset(
            out, shoes=shoes, seed=seed, rules=rules, chunk_shoes=chunk,
            workers=local_workers(workers, scheduler),
            scheduler=scheduler, force=force, resume=resume, progress=advance, shuffle=model,
            backend_options={"connect_timeout": scheduler_timeout,
                             "no_workers_timeout": no_workers_timeout})
    elapsed = time.perf_counter() - started
    resumed = document.get("resumed_chunks", 0)
    note = f" (resumed: {resumed} of {document['chunks']} chunks were already done)" \
        if resumed else ""
    done(f"wrote {document['coups']:,} coups from {shoes:,} shoes to {out} in "
         f"{elapsed:.1f}s{note}")
