"""``baccarat check-strategy``: put a plugin through the contract and report each check."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape

from . import app
from .common import (
    Debug,
    console,
    err_console,
    print_table,
    reports_errors,
)
from .rule_options import session_rules, table_rules

VERDICT = {True: ("pass", "bold green"), False: ("FAIL", "bold red"), None: ("not run", "dim")}


@app.command("check-strategy")
@reports_errors
@table_rules
@session_rules
def check_strategy(
    spec: Annotated[str, typer.Argument(
        help="strategy SPEC: name, name:key=value,..., file.py:Class or module:Class")],
    shoes: Annotated[int, typer.Option(min=1, help="generated shoes to check over")] = 60,
    speed_shoes: Annotated[int, typer.Option(
        min=1, help="generated shoes (one session each) to measure the speed over")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="seed of the generated shoes")] = 0,
    rules: Any = None,
    session: Any = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the checks as JSON")] = False,
    debug: Debug = False,
) -> None:
    """Check a strategy against the contract on generated shoes; exit 1 if a check fails.

    Checks: it plays without an error; it writes nothing into the table; its stakes are
    finite, non-negative numbers, only on bets the table offers; its ledger is the same
    whatever the chunking (chunks of 1 and 7 sessions) and the order of the sessions (state
    shared between sessions shows there), and on a second run (determinism). Then its speed
    in coups per second. --debug prints the full traceback of what the strategy raised.
    """
    from ..backtest import check_policy
    from ..errors import debug_requested, full_traceback
    from ..strategy_check import check_strategy as run_checks
    from ..strategy_check import how_played
    from ..testing import make_one_strategy

    check_policy(session, (rules,))
    strategy = make_one_strategy(spec)  # a SPEC that does not load is bad input (exit 2)
    checks, figures = run_checks(lambda: make_one_strategy(spec), shoes=shoes, seed=seed,
                                 rules=rules, session=session, speed_shoes=speed_shoes)
    played = how_played(strategy, rules, session)
    failed = [c for c in checks if c.passed is not True]
    if debug or debug_requested():  # the full traceback of what the strategy raised
        for check in checks:
            if check.error is not None:
                err_console.print(full_traceback(check.error), highlight=False,
                                  soft_wrap=True, markup=False)
    if as_json:
        typer.echo(json.dumps({
            "strategy": spec, **figures, **played, "passed": not failed,
            "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail}
                       for c in checks]}))
    else:
        from rich.table import Table
        from rich.text import Text

        table = Table(title=f"check-strategy {spec}", header_style="bold",
                      title_justify="left")
        table.add_column("check")
        table.add_column("result", no_wrap=True)
        table.add_column("detail")
        for check in checks:
            word, style = VERDICT[check.passed]
            table.add_row(check.name, Text(word, style=style), check.detail)
        print_table(table)
        for label, key in (("played by", "engine"), ("exact risk", "exact_risk")):
            console.print(f"[cyan]{label}:[/] {escape(played[key])}", highlight=False)
        if failed:
            console.print(f"{len(failed)} of {len(checks)} checks failed or could not run",
                          highlight=False)
        else:
            console.print(f"all {len(checks)} checks passed", highlight=False)
    if failed:
        raise typer.Exit(code=1)
