"""``baccarat compare``, ``baccarat report`` and ``baccarat demo``: reading stored runs."""

from __future__ import annotations

import math
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ..extras import require
from ..progress import Bar, progress_bars
from ..report.demo import DEMO_SEED, DEMO_SHOES
from . import app
from .common import Force, NoTable, Quiet, console, done, reports_errors

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

RunDirs = Annotated[list[Path], typer.Argument(help="run folders written by baccarat backtest",
                                               show_default=False)]
COMPARISON_FILE = "comparison.parquet"

#: The summary metrics ``compare`` prints without --all or --metrics: the verdict's.
COMPARE_METRICS = ("sessions", "mean_net", "expected_net", "prob_profit", "bust_rate",
                   "risk_of_ruin", "realized_edge", "expected_edge", "edge_verdict")


def _diff_cells(row: pd.Series, family: bool) -> list[str]:
    if row["pairing"] == "baseline":
        return ["(baseline)", "", "", "", "", *([""] if family else []), ""]
    low, high = float(row["diff_low"]), float(row["diff_high"])
    interval = "-" if math.isnan(low) else f"[{low:+,.2f}, {high:+,.2f}]"
    edge = float(row["diff_edge"])
    holm = (["yes" if row["edge_differs_family"] else "no"] if family else [])
    return [f"{row['diff_mean_net']:+,.2f}", interval, str(row["diff_reason"]) or "-",
            "-" if math.isnan(edge) else f"{edge:+.3%}",
            "yes" if row["edge_differs"] else "no", *holm, str(row["pairing"])]


def comparison_tables(frame: pd.DataFrame, width: int, title: str = "Comparison",
                      metrics: Sequence[str] | None = None) -> list[Table]:
    """The comparison as rich tables: one row per configuration, the summary metrics in
    table order (all, or those named in ``metrics``), then the difference from the
    baseline (the mean net's with its reason, the edge's with its test); split into
    blocks of columns that fit ``width``. With several
    configurations each verdict has its family-wise (Holm) twin beside it, and the title
    says how many configurations were tried.
    """
    from ..search.family import tried_phrase
    from .tables import block_tables, family_edge_column, metric_columns

    family = len(frame) > 1 and "edge_verdict_family" in frame
    columns = metric_columns(frame, metrics)
    if family:
        columns = family_edge_column(columns, frame)
        title = f"{title} ({tried_phrase(len(frame))})"
    baseline = str(frame["baseline"].iloc[0]) if len(frame) else ""
    diffs = [_diff_cells(row, family) for _, row in frame.iterrows()]
    diff_titles = [f"Mean net: configuration - {baseline}", "95% interval", "Why",
                   f"Edge - {baseline}", "Edge differs",
                   *(["Edge differs, Holm"] if family else []), "Pairing"]
    columns += [(t, [d[i] for d in diffs]) for i, t in enumerate(diff_titles)]
    return block_tables([str(v) for v in frame["label"]], columns, width, title)


def print_comparison(frame: pd.DataFrame, out: Console = console, title: str = "Comparison",
                     metrics: Sequence[str] | None = None) -> None:
    """Print the comparison fitted to the console, and a note when some configurations
    are unpaired."""
    from .tables import print_metric_table

    (whole,) = comparison_tables(frame, 10**6, title, metrics)
    columns = [(str(c.header), [str(cell) for cell in c.cells]) for c in whole.columns[1:]]
    print_metric_table([str(v) for v in frame["label"]], columns, str(whole.title), out)
    if (frame["pairing"] == "unpaired").any():
        out.print("unpaired: those configurations did not play the same shoes as the "
                  "baseline; their difference uses Welch's interval.", highlight=False)


@contextmanager
def reading(runs: Sequence[Path]) -> Iterator[None]:
    """The run folders pinned (a shared lock each) while the command reads them: a run
    replacing one meanwhile (``backtest --force``) is refused, naming this command."""
    from ..io.owner import pinned

    with ExitStack() as stack:
        for run in dict.fromkeys(runs):
            stack.enter_context(pinned(run))
        yield


def _command() -> str:
    return " ".join(["baccarat", *map(shlex.quote, sys.argv[1:])])


@app.command("compare")
@reports_errors
def compare_command(
    runs: RunDirs,
    out: Annotated[Path, typer.Option(help="folder to write comparison.parquet into")] = Path(
        "."),
    sort: Annotated[str | None, typer.Option(
        help="order the rows by this metric (largest first), e.g. mean_net")] = None,
    ascending: Annotated[bool, typer.Option(help="with --sort: smallest first")] = False,
    baseline: Annotated[str | None, typer.Option(
        help="configuration the others are compared with (label or spec; default: the first)"
    )] = None,
    metrics: Annotated[str | None, typer.Option(
        help="print only these metrics, comma-separated (the file keeps them all)")] = None,
    all_metrics: Annotated[bool, typer.Option(
        "--all", help="print every summary metric (default: the verdict's)")] = False,
    quiet: Quiet = False,  # compare shows no progress bar: accepted like every command's
    no_table: NoTable = False,
    force: Force = False,
) -> None:
    """Compare configurations across runs: summary metrics and paired differences.

    Every difference is the configuration's figure minus the baseline's. The bottom line
    comes first; --all prints every summary metric (comparison.parquet keeps them all).
    """
    from ..errors import BaccaratError
    from ..io.owner import claim_output
    from ..io.parquet import OutputExistsError
    from ..report.compare import check_metric, compare, write_comparison_file

    if sort is not None:
        check_metric(sort)
    if all_metrics and metrics:
        raise BaccaratError("give --all or --metrics, not both")
    shown = [check_metric(m.strip()) for m in metrics.split(",") if m.strip()] \
        if metrics else None if all_metrics else list(COMPARE_METRICS)
    if os.path.lexists(out) and not os.path.isdir(out):
        raise OutputExistsError(f"{out} is a file; --out names the folder that will hold "
                                f"{COMPARISON_FILE}")
    target = out / COMPARISON_FILE
    with claim_output(target, force=force, what="comparison") as claim, reading(runs):
        frame = compare(runs, sort=sort, ascending=ascending, baseline=baseline)
        if not no_table:
            from ..answer import bottom_line

            console.print(bottom_line(frame, [str(v) for v in frame["label"]]),
                          highlight=False)
            print_comparison(frame, metrics=shown)
        write_comparison_file(frame, claim.temp)
    done(f"wrote {target} ({len(frame)} configurations from {len(runs)} "
         f"run{'s' if len(runs) != 1 else ''})")


def _report_progress(bar: Bar) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback that moves ``bar`` with a steps/s rate."""
    started = time.perf_counter()

    def advance(n_done: int, total: int) -> None:
        rate = n_done / max(time.perf_counter() - started, 1e-9)
        bar.update(done=n_done, total=total, note=f"{rate:.1f} steps/s")
    return advance


@app.command("report")
@reports_errors
def report_command(
    runs: Annotated[list[Path] | None, typer.Argument(
        help="run folders written by baccarat backtest (none with --search or --risk: "
             "those sections alone)", show_default=False)] = None,
    out: Annotated[Path, typer.Option(help="the HTML file to write")] = Path("report.html"),
    samples: Annotated[int, typer.Option(
        min=0, max=50, help="sample sessions drawn over each bankroll fan chart")] = 5,
    analysis: Annotated[Path | None, typer.Option(
        "--analysis", help="add the section of a `baccarat analyze` folder: each "
        "statistic's fair reference distribution with the observed value")] = None,
    search: Annotated[Path | None, typer.Option(
        "--search", help="add the section of a `baccarat search` folder: the observed best "
        "against the best on fair datasets, and each configuration where chosen against "
        "where checked")] = None,
    risk: Annotated[Path | None, typer.Option(
        "--risk", help="add the section of a `baccarat risk --out` file: the exact "
        "distribution of a session's net with the simulated sessions over it, and risk "
        "against the starting bankroll")] = None,
    quiet: Quiet = False,
    force: Force = False,
) -> None:
    """Write one self-contained HTML report (figures inline, no network) of stored runs."""
    require("matplotlib", "baccarat report")
    from ..errors import BaccaratError
    from ..io.owner import claim_output
    from ..report.drawing import FigureDrawer
    from ..report.html import figure_count, render_report, report_steps
    from ..report.runs import load_runs

    started = time.perf_counter()
    if not runs and search is None and risk is None:
        raise BaccaratError("no run folder given: name one or more run folders written by "
                            "`baccarat backtest` (or a search folder with --search, a risk "
                            "file with --risk)")
    read = [*(runs or []), *(p for p in (search, risk, analysis) if p is not None)]
    with claim_output(out, force=force, what="report") as claim, reading(read):
        opened = load_runs(runs) if runs else []
        with FigureDrawer() as drawer:
            sections = []
            if analysis is not None:
                from ..report.analysis_section import analysis_section
                sections.append(analysis_section(analysis, drawer))
            if search is not None:
                from ..report.search_section import search_section
                sections.append(search_section(search, drawer))
            if risk is not None:
                from ..report.risk_section import risk_section
                sections.append(risk_section(risk, drawer))
            if opened:
                with progress_bars(not quiet) as bars:
                    bar = bars.add("report", "steps", report_steps(opened))
                    text = render_report(opened, samples=samples, sections=sections,
                                         drawer=drawer, progress=_report_progress(bar))
            else:
                from ..report.search_section import render_sections_page
                text = (render_sections_page(sections, drawer) if search is not None else
                        render_sections_page(sections, drawer, "Baccarat risk report",
                                             "a stored exact risk"))
        claim.temp.write_text(text, encoding="utf-8")
    source = (f"{len(opened)} run{'s' if len(opened) != 1 else ''}" if opened
              else f"the search in {search}" if search is not None else f"the risk in {risk}")
    done(f"wrote {out} ({figure_count(text)} figures, {out.stat().st_size / 1e6:.1f} MB) "
         f"from {source} in {time.perf_counter() - started:.1f}s")


@app.command("demo")
@reports_errors
def demo_command(
    out: Annotated[Path, typer.Option(help="folder for the run, comparison and report")] = Path(
        "demo"),
    shoes: Annotated[int, typer.Option(min=1, help="shoes to generate")] = DEMO_SHOES,
    seed: Annotated[int, typer.Option(min=0, help="seed of the shoes")] = DEMO_SEED,
    quiet: Quiet = False,
    no_table: NoTable = False,
    force: Force = False,
) -> None:
    """Run the whole pipeline with no input: shoes, five systems, comparison, HTML report."""
    require("matplotlib", "baccarat demo (its HTML report)")
    from ..report.demo import run_demo

    started = time.perf_counter()
    with progress_bars(not quiet) as bars:
        bar = bars.add("backtest", "shoes", shoes)
        report_bar = bars.add("report", "steps", 1, started=False)
        coups_done = 0

        def advance(n_coups: int, n_sessions: int) -> None:
            nonlocal coups_done
            coups_done += n_coups
            rate = coups_done / max(time.perf_counter() - started, 1e-9)
            bar.update(advance=n_sessions, note=f"{rate / 1e6:.2f}M coups/s")

        result = run_demo(out, shoes=shoes, seed=seed, force=force, command=_command(),
                          backtest_progress=advance,
                          report_progress=_report_progress(report_bar))
    if not no_table:
        from .tables import print_answer

        print_answer(result.comparison, [str(v) for v in result.comparison["label"]],
                     f"Demo: {shoes:,} shoes, seed {seed}, bankroll 1,000, base stake 10")
    done(f"wrote {result.run} (run), {result.comparison_path} and {result.report} "
         f"in {time.perf_counter() - started:.1f}s; open {result.report} in a browser")
