"""``baccarat search``: many configurations over the same shoes, chosen and checked honestly."""

from __future__ import annotations

import json
import math
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from ..progress import Bar, progress_bars
from . import app
from .common import (
    Debug,
    Force,
    NoTable,
    Quiet,
    Workers,
    console,
    done,
    err_console,
    local_workers,
    note_import,
    reports_errors,
    seed_in_range,
)
from .rule_options import session_rules, table_rules

if TYPE_CHECKING:
    from ..search.result import SearchResult


def _p(value: Any) -> str:
    value = float(value)
    return f"{value:.3f}" if value >= 0.001 else f"{value:.0e}"


def search_table(result: SearchResult, top: int) -> Table:
    """The best configurations where chosen, with where they were checked, their
    p-values counting every try and verdicts (every row is in search.parquet)."""
    from ..search.result import BEATS, ranked_by

    document = result.document
    metric = document["metric"]
    fmt = metric["fmt"]
    rows = result.table.sort_values("rank")
    shown = rows if top <= 0 else rows.head(top)
    tried = len(rows)
    scheme = document["split"]["scheme"]
    checked = scheme != "none"
    split = document["split"]
    studentized = metric["name"] == "edge_over_expected"
    heading = f"{tried:,} configurations, best first by {ranked_by(metric)}"
    if scheme == "hold-out":
        fold = split["folds"][0]
        heading += (f"; in: shoes {fold['choose_text']} (chosen on), out: shoes "
                    f"{fold['evaluate_text']} (held back)")
    elif checked:
        heading += "; in: mean over the folds' choosing shoes, out: the folds' own shoes"
    table = Table(title=heading, box=box.SIMPLE_HEAVY, title_justify="left",
                  padding=(0, 1), pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("configuration", overflow="fold", min_width=16, ratio=1)
    if studentized:
        table.add_column("z in" if checked else "z", justify="right", no_wrap=True)
    table.add_column("in" if checked else "all", justify="right", no_wrap=True)
    if checked:
        table.add_column("out", justify="right", no_wrap=True)
    table.add_column("Holm", justify="right", no_wrap=True)
    table.add_column("step-\ndown", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for row in shown.to_dict("records"):
        cells = [str(row["rank"]), str(row["spec"]) + (" *" if row["chosen"] else "")]
        if studentized:
            cells.append(_value(row["z_in"], "{:+.1f}"))
        cells.append(_value(row["metric_in"], fmt))
        if checked:
            cells.append(_value(row["metric_out"], fmt))
        cells += [_p(row["p_holm"]), _p(row["p_stepdown"]), str(row["verdict"])]
        table.add_row(*cells, style="bold" if row["verdict"] == BEATS else None)
    if len(shown) < tried:
        table.caption = f"{tried - len(shown):,} more in search.parquet"
    return table


def _value(value: Any, fmt: str) -> str:
    value = float(value)
    return fmt.format(value) if math.isfinite(value) else "-"


def print_search(result: SearchResult, top: int, no_table: bool) -> None:
    """The sentence first, then the table, then the check and the family's verdict."""
    sentences = result.document["sentences"]
    null = "null" in result.document
    lead = sentences[:3] if null else sentences[:1]
    for sentence in lead:
        console.print(sentence, highlight=False, soft_wrap=False)
    if not no_table:
        console.print(search_table(result, top))
        console.print("Holm, step-down (Romano-Wolf): p that its realized edge beats "
                      "its expected edge, counting every configuration tried. beats: "
                      "step-down p below 5%, the verdict. *: chosen.", highlight=False)
    from ..search.result import fold_lines

    for line in fold_lines(result.document["split"], result.document["metric"]):
        console.print(line, highlight=False)
    for sentence in sentences[len(lead):]:
        console.print(sentence, highlight=False)


@app.command()
@reports_errors
@table_rules
@session_rules
def search(
    dataset: Annotated[Path, typer.Argument(help="coups Parquet dataset to search over")],
    strategy: Annotated[list[str], typer.Option(
        "--strategy", "-s", metavar="SPEC",
        help="SPEC: name or name:key=value,... (key=\\[a,b] expands a grid); repeatable: "
             "the configurations are every spec's grid")],
    metric: Annotated[str | None, typer.Option(
        help="what 'best' means: 'realized_edge - expected_edge' (default), or a summary "
             "metric (mean_net, prob_profit, risk_of_ruin, ...), NAME:higher or "
             "NAME:lower for its direction")] = None,
    holdout: Annotated[float | None, typer.Option(
        help="share of the sessions, the last ones, held back to check the choice on "
             "(default 0.5; 0: none)")] = None,
    folds: Annotated[int | None, typer.Option(
        min=1, help="K folds instead of one hold-out: each chosen on the other folds, or "
                    "with --walk-forward on the shoes before it")] = None,
    walk_forward: Annotated[bool, typer.Option(
        "--walk-forward", help="with --folds: choose on the shoes before each fold only "
                               "(the sessions in K+1 blocks, in the dataset's order)")] = False,
    sample: Annotated[int | None, typer.Option(
        min=1, help="play K configurations drawn at random from the space (with "
                    "--seed)")] = None,
    seed: Annotated[int, typer.Option(
        callback=seed_in_range, help="seed of --sample and of the bootstrap")] = 0,
    null: Annotated[int, typer.Option(
        "--null", min=0, help="play the same configurations over N fair datasets of the "
                              "same shape: the best of N by chance (0: none)")] = 0,
    null_seed: Annotated[int | None, typer.Option(
        callback=seed_in_range, help="seed of the fair datasets (default: --seed)")] = None,
    reps: Annotated[int, typer.Option(
        min=100, help="bootstrap samples of the step-down and the SPA")] = 1000,
    out: Annotated[Path, typer.Option(
        help="folder for search.parquet, null.parquet and the run folders")] = Path("search"),
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    top: Annotated[int, typer.Option(
        min=0, help="configurations shown in the table (0: all)")] = 10,
    rules: Any = None,
    session: Any = None,
    workers: Workers = None,
    quiet: Quiet = False,
    no_table: NoTable = False,
    force: Force = False,
    debug: Debug = False,
) -> None:
    """Search many configurations over DATASET's shoes without fooling yourself.

    Every configuration the specs stand for plays the same shoes in one pass. The best
    is chosen on the first shoes and checked on the shoes held back (--holdout, or
    --folds with --walk-forward); every configuration's p-value of 'its realized edge
    beats its expected edge' is adjusted for the number tried (Holm, Romano-Wolf); the
    best gets White's Reality Check and Hansen's SPA; --null N plays N fair datasets of
    the same shape to show what the best of this many gives by chance.
    """
    from ..search import search as run_search

    started = time.perf_counter()
    if dataset.exists():
        from ..io.inputs import import_note, is_coups_parquet

        if not is_coups_parquet(dataset):
            note_import(import_note(dataset))
    with progress_bars(not quiet) as bars:
        stages: dict[str, Bar] = {}

        def advance(stage: str, sessions: int, coups: int) -> None:
            if stage not in stages:
                stages[stage] = bars.add(stage, "sessions")
            stages[stage].update(advance=sessions)

        result = run_search(
            dataset, strategy, metric=metric, holdout=holdout, folds=folds,
            walk_forward=walk_forward, sample=sample, seed=seed, null=null,
            null_seed=null_seed, reps=reps, rules=rules, session=session, out=out,
            force=force,
            workers=local_workers(workers, None),
            command=" ".join(["baccarat", *map(shlex.quote, sys.argv[1:])]),
            progress=advance)
    files = "search.parquet, null.parquet" if null else "search.parquet"
    runs = " and ".join(f"{name}/" for name in result.document["runs"].values())
    message = (f"wrote {out} ({files}; the run folder{'s' if null else ''} {runs}) in "
               f"{time.perf_counter() - started:.1f}s")
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
        err_console.print(message, highlight=False, soft_wrap=True)
        return
    print_search(result, top, no_table)
    done(message)
