"""``baccarat backtest`` and ``baccarat strategies``."""

from __future__ import annotations

import contextlib
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import BaccaratError
from ..progress import progress_bars
from . import app
from .common import (
    CONNECT_TIMEOUT,
    NO_WORKERS_TIMEOUT,
    Debug,
    Force,
    NoTable,
    NoWorkersTimeout,
    Quiet,
    Resume,
    Scheduler,
    SchedulerTimeout,
    Workers,
    done,
    local_workers,
    note_import,
    print_labelled,
    print_table,
    reports_errors,
    seed_in_range,
)
from .rule_options import session_rules, table_rules


def _flagged_notice(coups: Path, skip: bool, stack: contextlib.ExitStack) -> Path:
    """Say once that the dataset holds flagged coups; with ``skip``, the dataset without
    their shoes (in a temporary folder that lives as long as ``stack``)."""
    from ..io.importers.flagged import flagged_shoes, without_shoes

    count, bad = flagged_shoes(coups)
    if not count:
        return coups
    what = (f"{count:,} flagged coup{'s' if count > 1 else ''} (valid=False) in "
            f"{bad.size:,} shoe{'s' if bad.size > 1 else ''}")
    if not skip:
        print_labelled("notice", f"{coups} holds {what}; they are played as recorded "
                       f"(--skip-invalid-shoes leaves those shoes out)", "yellow")
        return coups
    print_labelled("notice", f"{coups} holds {what}; leaving those shoes out "
                   f"(--skip-invalid-shoes)", "yellow")
    folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="baccarat-valid-"))
    return without_shoes(coups, bad, folder)


@app.command()
@reports_errors
@table_rules
@session_rules
def backtest(
    strategy: Annotated[list[str], typer.Option(
        "--strategy", "-s", metavar="SPEC",
        # the help is rich markup: a bare [a,b] would be read as a style and vanish
        help="SPEC: name or name:key=value,... (key=\\[a,b] expands a grid); repeatable")],
    coups: Annotated[Path | None, typer.Option(help="coups Parquet dataset to replay")] = None,
    shoes: Annotated[int | None, typer.Option(min=1, help="generate N shoes instead")] = None,
    seed: Annotated[int, typer.Option(
        callback=seed_in_range, help="seed for generated shoes")] = 0,
    out: Annotated[Path, typer.Option(help="run folder to write")] = Path("run"),
    unchecked: Annotated[bool, typer.Option(
        "--unchecked", help="run a plugin that was not checked before without the quick "
        "check (same ledger in one chunk and in chunks of one session)")] = False,
    ledger: Annotated[str, typer.Option(help="full (write ledger.parquet) or none")] = "full",
    expected: Annotated[str, typer.Option(
        help="how each coup's expected net is priced: auto (the cards left in the shoe for "
        "strategies that see the cards, the full shoe for the others) or exact (the cards "
        "left for every strategy; card-level datasets; slower)")] = "auto",
    engine: Annotated[str, typer.Option(
        help="the path that plays the systems: compiled (the compiled kernel; refused for a "
        "system it cannot play), replay (the plain replay) or auto (compiled where it "
        "can); the ledgers are the same")] = "auto",
    rule_sets: Any = None,
    session: Any = None,
    chunk: Annotated[int | None, typer.Option(
        min=1, help="shoes per chunk and part (bounds memory; default 20000, fewer for "
        "many configurations, or the interrupted run's with --resume)")] = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    scheduler_timeout: SchedulerTimeout = CONNECT_TIMEOUT,
    no_workers_timeout: NoWorkersTimeout = NO_WORKERS_TIMEOUT,
    resume: Resume = False,
    quiet: Quiet = False,
    no_table: NoTable = False,
    force: Force = False,
    skip_invalid_shoes: Annotated[bool, typer.Option(
        "--skip-invalid-shoes",
        help="leave out every shoe of the dataset holding a coup flagged valid=False (kept "
             "by import --keep-invalid)")] = False,
    debug: Debug = False,
) -> None:
    """Play strategies over a dataset and write the ledger, sessions, summary and run.json.

    The run goes chunk by chunk (on --workers processes, or a Dask cluster) into the
    folder OUT; ledger.parquet and sessions.parquet there are folders of parts, one per
    chunk. run.json is written last: an interrupted run keeps its finished chunks and
    --resume finishes it.
    """
    from ..backtest import play
    from ..job import BacktestJob, Run
    from .tables import print_answer, summary_labels

    if ledger not in ("full", "none"):
        raise BaccaratError(f"--ledger {ledger}: expected full or none")
    rules = rule_sets[0]
    started = time.perf_counter()
    stack = contextlib.ExitStack()
    if coups is not None and coups.exists():
        from ..io.inputs import import_note, is_coups_parquet

        if is_coups_parquet(coups):
            coups = _flagged_notice(coups, skip_invalid_shoes, stack)
        else:
            note_import(import_note(coups))
    with stack, progress_bars(not quiet) as bars:
        bar = bars.add("backtest", "shoes", shoes)
        coups_done = 0

        def begin(total_shoes: int) -> None:
            bar.update(total=total_shoes)

        def advance(n_coups: int, n_sessions: int) -> None:
            nonlocal coups_done
            coups_done += n_coups
            rate = coups_done / max(time.perf_counter() - started, 1e-9)
            bar.update(advance=n_sessions * session.session_shoes,
                       note=f"{rate / 1e6:.1f}M coups/s")

        how = Run(ledger=ledger == "full", out=out, force=force, chunk_shoes=chunk,
                  progress=advance, workers=local_workers(workers, scheduler),
                  scheduler=scheduler, resume=resume, expected=expected, engine=engine)
        result = play(BacktestJob(
            coups, strategy, shoes=shoes, seed=seed if shoes else None, rules=rules,
            rule_sets=rule_sets if len(rule_sets) > 1 else None, session=session, run=how,
            command=" ".join(["baccarat", *map(shlex.quote, sys.argv[1:])]),
            unchecked=unchecked, on_start=begin,
            backend_options={"connect_timeout": scheduler_timeout,
                             "no_workers_timeout": no_workers_timeout}))
    if not no_table:
        used = result.summary["rules"].unique()  # the rules played, the dataset's shoe rules
        title = str(used[0]) if len(used) == 1 else f"{len(used)} rule sets"
        print_answer(result.summary, summary_labels(result.summary), f"Backtest: {title}")
    _warn_no_bets(result.summary)
    short = result.info.get("short_last_session")
    if short:
        kept = ("kept (--last-session drop leaves it out)" if short["kept"] else
                "left out (--last-session drop)")
        print_labelled("note", f"the dataset's last session holds {short['shoes']} of "
                       f"{short['of']} shoes: {kept}", "cyan")
    for thread in result.info.get("stray_threads", ()):
        print_labelled("warning", f"a strategy left a thread running in a worker process: "
                       f"{thread}; the worker was stopped when its work was done", "yellow")
    counts = result.info["counts"]
    configs = f"{counts['configs']} configuration{'s' * (counts['configs'] != 1)}"
    done(f"wrote {out} ({configs} x {counts['sessions']:,} sessions, "
         f"{counts['coups']:,} coups) in {time.perf_counter() - started:.1f}s")


def _warn_no_bets(summary: Any) -> None:
    """A warning for each configuration that placed no bet in the whole run: its figures
    are all zeros, which a misspelt hook produces silently."""
    from .tables import summary_labels

    for label, wagered, sessions in zip(summary_labels(summary), summary["mean_wagered"],
                                        summary["sessions"], strict=True):
        if sessions > 0 and wagered == 0:
            print_labelled("warning", f"{label} placed no bet in the whole run: every figure "
                           f"of it is 0 (`baccarat check-strategy` checks a plugin's "
                           f"hooks)", "yellow")


@app.command()
@reports_errors
def strategies() -> None:
    """List the strategies and the parts of systems, by kind, with their parameters.

    A whole strategy is one name (martingale, streak, counter, ...); a system joins a
    selection, a staking plan and session rules with | in a SPEC: -s "streak:n=4 |
    dalembert | stop:win=50,per=shoe".
    """
    from rich.table import Table as RichTable

    from ..strategies.registry import available_parts, available_strategies, describe

    sections: list[tuple[str, dict[str, Any]]] = [
        ("Strategies (one name each: a selection and a staking plan)",
         available_strategies()),
        ("Selections: when and what to bet", available_parts("selection")),
        ("Staking plans: how much", available_parts("staking")),
        ("Session rules: when to stop", available_parts("rules"))]
    for title, classes in sections:
        table = RichTable(title=title, header_style="bold", show_lines=True)
        table.add_column("name", style="bold")
        table.add_column("description")
        table.add_column("parameters (default)")
        for name, cls in classes.items():
            params = "\n".join(
                f"{field}={info.get_default(call_default_factory=True)!r}"
                + (f"  {info.description}" if info.description else "")
                for field, info in cls.model_fields.items()
            )
            table.add_row(name, describe(cls) + _exact_risk_note(cls), params)
        print_table(table)


def _exact_risk_note(cls: type) -> str:
    """Whether ``baccarat risk`` follows the strategy or part exactly, and why not."""
    from ..strategies.finite_state import not_finite_reason

    if getattr(cls, "kind", "") == "rules":
        return ""  # session rules are the engine's: exact risk applies them itself
    reason = not_finite_reason(cls)
    return "\nexact risk: yes" if reason is None else f"\nexact risk: no, {reason}"
