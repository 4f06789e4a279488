"""``baccarat risk``: a system's exact session distribution, its check over real shoes,
and the bankroll it needs."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import BaccaratError
from ..progress import progress_bars
from ..risk.limits import DEFAULT_STATE_LIMIT, DEFAULT_TIME_LIMIT
from . import app
from .common import (
    Force,
    NoTable,
    Quiet,
    Workers,
    console,
    done,
    err_console,
    in_flags,
    print_labelled,
    reports_errors,
    seed_in_range,
)
from .rule_options import session_rules, table_rules

if TYPE_CHECKING:
    from rich.table import Table

    from ..risk.job import ConfigRisk, RiskJob

#: The figures of one configuration's table, in order: (key, label, kind).
FIGURES = (
    ("mean_net", "mean net", "money"),
    ("std_net", "std dev of net", "money"),
    ("q05_net", "5% net", "money"),
    ("q25_net", "25% net", "money"),
    ("q50_net", "median net", "money"),
    ("q75_net", "75% net", "money"),
    ("q95_net", "95% net", "money"),
    ("p_ahead", "P(ahead)", "share"),
    ("risk_of_ruin", "risk of ruin", "share"),
    ("bust_rate", "busted", "share"),
    ("p_win_goal", "P(win goal)", "share"),
    ("p_stop_loss", "P(stop loss)", "share"),
    ("p_trailing_stop", "P(trailing stop)", "share"),
    ("p_losses_in_row", "P(losses in a row)", "share"),
    ("p_strategy", "P(system ends)", "share"),
    ("p_below_min", "P(below minimum)", "share"),
    ("expected_coups", "coups played", "count"),
    ("expected_wagered", "amount staked", "money"),
    ("expected_edge", "edge", "edge"),
)


def money(value: float) -> str:
    """An amount: thousands separated, two decimals."""
    return "-" if value is None or math.isnan(value) else f"{value:,.2f}"


def share(value: float | None) -> str:
    """A probability as a percentage with four significant digits (tiny ones as 1.2e-07%)."""
    if value is None or math.isnan(value):
        return "-"
    pct = value * 100
    if pct == 0:
        return "0%"
    if abs(pct) < 0.001:
        return f"{pct:.2g}%"
    digits = max(0, 3 - math.floor(math.log10(abs(pct))))
    return f"{pct:.{min(digits, 6)}f}%"


def _cell(kind: str, value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if kind == "money":
        return money(value)
    if kind == "share":
        return share(value)
    if kind == "edge":
        return f"{value * 100:+.4f}%"
    return f"{value:,.2f}"


def _interval(kind: str, low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return ""
    return f"{_cell(kind, low)} to {_cell(kind, high)}"


def _shown(job: RiskJob, key: str, result: ConfigRisk | None = None) -> bool:
    """Whether a figure has a row: the stop rules' only when set (or, for the system's own
    end and the minimum's, when they happen)."""
    policy = job.policy
    if key in ("p_strategy", "p_below_min"):
        return result is not None and result.exact is not None and \
            result.exact.figures.get(key, 0.0) > 0
    field = {"p_win_goal": "win_goal", "p_stop_loss": "stop_loss",
             "p_trailing_stop": "trailing_stop", "p_losses_in_row": "losses_in_row"}.get(key)
    if field is None:
        return True
    if getattr(policy, field) is not None:
        return True
    own = result.strategy.session_rules() if result is not None else {}
    return bool(own.get(field) is not None)


def _setup_line(job: RiskJob) -> str:
    rules = job.rules
    session = (f"sessions of {job.coups:,} coups" if job.coups is not None else
               f"sessions of {job.policy.session_shoes} shoe"
               f"{'s' if job.policy.session_shoes > 1 else ''}")
    stops = []
    if job.policy.stop_loss is not None:
        stops.append(f"stop loss {job.policy.stop_loss:,g}")
    if job.policy.win_goal is not None:
        stops.append(f"win goal {job.policy.win_goal:,g}")
    if job.policy.max_coups is not None and job.coups is None:
        stops.append(f"at most {job.policy.max_coups:,} coups")
    if job.policy.trailing_stop is not None:
        stops.append(f"trailing stop {job.policy.trailing_stop:,g}")
    if job.policy.losses_in_row is not None:
        stops.append(f"{job.policy.losses_in_row} losses in a row")
    if job.policy.chip is not None:
        stops.append(f"chips of {job.policy.chip:,g}")
    if job.policy.below_min != "raise":
        stops.append(f"below the minimum: {job.policy.below_min}")
    if job.policy.when_short != "stop":
        stops.append(f"when short: {job.policy.when_short}")
    return (f"{rules.label()}; table {rules.table_min:,g} to {rules.table_max:,g}; bankroll "
            f"{job.policy.bankroll:,g}; {session}" + "".join(f"; {s}" for s in stops))


#: "Exact" beside the model it is exact for: a shoe that never runs down, each coup
#: independent of the last (the simulated check plays real shoes).
EXACT_TITLE = "Exact risk (an infinite shoe, independent coups)"


def config_table(job: RiskJob, result: ConfigRisk) -> Table:
    """One configuration's figures: exact, and the check's with its interval."""
    from rich.table import Table

    sim = result.simulated
    level = f"{job.level:.0%}".replace(".0%", "%")
    table = Table(header_style="bold", box=None, pad_edge=False)
    table.add_column("figure", no_wrap=True)
    table.add_column("exact", justify="right", no_wrap=True)
    if sim is not None:
        table.add_column("simulated", justify="right", no_wrap=True)
        table.add_column(f"{level} interval", justify="right", no_wrap=True)
        table.add_column("", no_wrap=True)
    exact = result.exact
    assert exact is not None
    for key, label, kind in FIGURES:
        if not _shown(job, key, result):
            continue
        row = [label, _cell(kind, exact.figures[key])]
        if sim is not None:
            estimate = sim.estimates[key]
            holds = estimate.holds(exact.figures[key])
            row += [_cell(kind, estimate.value), _interval(kind, estimate.low, estimate.high),
                    "" if holds is None else ("in" if holds else "OUT")]
        table.add_row(*row)
    return table


def grid_table(job: RiskJob, results: list[ConfigRisk], width: int) -> list[Table]:
    """Several configurations: one row each, their exact figures."""
    from .tables import block_tables

    shown = [(k, label, kind) for k, label, kind in FIGURES
             if any(_shown(job, k, r) for r in results)]
    labels = [r.spec for r in results]
    columns = []
    for key, label, kind in shown:
        cells = [_cell(kind, r.exact.figures[key]) if r.exact is not None else "-"
                 for r in results]
        columns.append((label, cells))
    if any(r.simulated is not None for r in results):
        columns.append(("check: intervals holding the exact figure",
                        [_holding(job, r) for r in results]))
    return block_tables(labels, columns, width, EXACT_TITLE)


def _verdicts(job: RiskJob, result: ConfigRisk) -> list[bool]:
    """Whether each shown figure's check interval holds the exact figure."""
    if result.simulated is None or result.exact is None:
        return []
    out = []
    for key, _, _ in FIGURES:
        estimate = result.simulated.estimates.get(key)
        if estimate is None or not _shown(job, key, result):
            continue
        verdict = estimate.holds(result.exact.figures[key])
        if verdict is not None:
            out.append(verdict)
    return out


def _holding(job: RiskJob, result: ConfigRisk) -> str:
    if result.simulated is None or result.exact is None:
        return "-"
    verdicts = _verdicts(job, result)
    return f"{sum(verdicts)} of {len(verdicts)}"


def _notes(job: RiskJob, result: ConfigRisk) -> list[str]:
    """The lines printed under a configuration: the model, sizing, sessions, misses."""
    lines = []
    exact = result.exact
    if exact is not None:
        lines.append(f"{result.spec}: exact over {exact.states:,} state"
                     f"{'s' if exact.states != 1 else ''} of the system, money in steps of "
                     f"{float(exact.unit):g}, {result.seconds:.2f}s")
    else:
        lines.append(f"{result.spec}: no exact figures: {in_flags(result.not_exact)}")
        sim = result.simulated
        if sim is not None:
            e = sim.estimates
            lines.append(f"  the simulation instead ({sim.sessions:,} sessions of real "
                         f"shoes): mean net {money(e['mean_net'].value)}, risk of ruin "
                         f"{share(e['risk_of_ruin'].value)} ({share(e['risk_of_ruin'].low)} to "
                         f"{share(e['risk_of_ruin'].high)}), busted "
                         f"{share(e['bust_rate'].value)}")
    if result.over_sessions is not None:
        o = result.over_sessions
        lines.append(f"  over {o.sessions} sessions in a row: risk of ruin "
                     f"{share(o.ruin_by[-1])}, ruin or a bust {share(o.either_by[-1])}")
    if result.sizing is not None:
        lines.append("  " + _sizing_line(job, result))
    for name, exc in result.not_computed.items():
        what = {"sessions": f"over {job.sessions} sessions in a row", "sizing": "sizing",
                "curve": "risk against the bankroll"}[name]
        lines.append(f"  {what}: not worked out: {in_flags(exc)}")
    return lines


def _sizing_line(job: RiskJob, result: ConfigRisk) -> str:
    s = result.sizing
    assert s is not None
    counted = "risk of ruin or bust" if s.measure == "either" else "risk of ruin"
    if job.sessions > 1:
        counted += f" over {job.sessions} sessions"
    what = "bankroll" if s.what == "bankroll" else "base stake"
    target = f"{s.target * 100:g}%"
    if s.value is None:
        return f"{what} for a {counted} of at most {target}: none; {s.note}"
    line = (f"{what} for a {counted} of at most {target}: {money(s.value)} "
            f"({share(s.risk)} there")
    if s.neighbour is not None:
        line += f"; {money(s.neighbour)} has {share(s.neighbour_risk)}"
    line += ")"
    return line + (f"; {s.note}" if s.note else "")


def _check_line(job: RiskJob, results: list[ConfigRisk]) -> str | None:
    sims = [r for r in results if r.simulated is not None and r.exact is not None]
    if not sims:
        return None
    sim = sims[0].simulated
    assert sim is not None
    held = total = 0
    for r in sims:
        verdicts = _verdicts(job, r)
        total += len(verdicts)
        held += sum(verdicts)
    return (f"check: {sim.sessions:,} sessions of {sim.shoes // max(sim.sessions, 1)} "
            f"generated shoe{'s' if sim.shoes > sim.sessions else ''} each (seed {sim.seed}); "
            f"{held} of {total} {job.level:.0%} intervals hold the exact figure (by chance "
            f"alone about {1 - job.level:.0%} miss; a miss the finite shoe explains stays "
            f"as the sessions grow)")


def parse_size(text: str) -> tuple[str, float]:
    """``ruin=0.01`` or ``base=0.01``."""
    what, _, value = text.partition("=")
    what = what.strip().lower()
    if what not in ("ruin", "base") or not value:
        raise BaccaratError(f"--size {text}: expected ruin=RISK (the smallest bankroll) or "
                            f"base=RISK (the largest base stake), e.g. ruin=0.01")
    try:
        target = float(value.rstrip("%")) / (100 if value.endswith("%") else 1)
    except ValueError:
        raise BaccaratError(f"--size {text}: {value!r} is not a number") from None
    if not 0 < target < 1:
        raise BaccaratError(f"--size {text}: the risk must be between 0 and 1 (or 0% and "
                            f"100%), e.g. ruin=0.01")
    return what, target


@app.command()
@reports_errors
@table_rules
@session_rules
def risk(
    strategy: Annotated[list[str], typer.Option(
        "--strategy", "-s", metavar="SPEC",
        help="SPEC: name or name:key=value,... (key=\\[a,b] expands a grid); repeatable")],
    coups: Annotated[int | None, typer.Option(
        min=1, help="sessions of N coups (over as many shoes as it takes)")] = None,
    rules: Any = None,
    session: Any = None,
    check: Annotated[int, typer.Option(
        min=0, help="sessions of generated real shoes the exact figures are checked "
        "against (0: none)")] = 10_000,
    seed: Annotated[int, typer.Option(callback=seed_in_range,
                                      help="seed of the check's shoes")] = 0,
    level: Annotated[float, typer.Option(
        min=0.5, max=0.9999, help="confidence of the check's intervals")] = 0.95,
    size: Annotated[str | None, typer.Option(
        help="ruin=RISK: the smallest bankroll whose risk of ruin is at most RISK; "
        "base=RISK: the largest base stake (whole units) the bankroll affords at that "
        "risk (e.g. ruin=0.01 or ruin=1%)")] = None,
    count_busts: Annotated[bool, typer.Option(
        "--count-busts", help="--size and --sessions count a bust (the bankroll could not "
        "pay the stake asked for) as losing the bankroll, as well as ruin")] = False,
    sessions: Annotated[int, typer.Option(
        min=1, help="the risk over M sessions played one after another, each from what "
        "the last one left")] = 1,
    out: Annotated[Path | None, typer.Option(
        help="write the exact distributions to this Parquet file (risk.parquet; the "
        "figures, checks and the risk against the bankroll in its metadata)")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="print the figures as JSON instead of tables")] = False,
    state_limit: Annotated[int, typer.Option(
        min=1, help="most states of a system the exact chain follows")] = DEFAULT_STATE_LIMIT,
    time_limit: Annotated[float, typer.Option(
        min=1, help="most seconds the exact chain may take per configuration: past "
        "the projection of its time it is not run and the figures are simulated "
        "instead")] = DEFAULT_TIME_LIMIT,
    workers: Workers = 1,
    quiet: Quiet = False,
    no_table: NoTable = False,
    force: Force = False,
) -> None:
    """The exact distribution of a session's result, checked against real shoes.

    For a system whose state is finite (see `baccarat strategies` and
    docs/strategies.md), the session is a Markov chain over (the system's state, the
    bankroll) with the exact odds of every coup, as if each were dealt from a full shoe:
    its figures are exact for that model. The same figures from sessions of generated
    shoes of the real size (--check) measure what the finite shoe changes.
    """
    import contextlib

    from ..backtest import check_policy
    from ..io.owner import claim_output
    from ..risk.job import RiskJob, run_risk, summary, write_risk

    if coups is not None and (session.session_shoes != 1 or session.max_coups is not None):
        raise BaccaratError("--coups sets the session's length; it does not go with "
                            "--session-shoes or --max-coups")
    check_policy(session, (rules,))
    sizing = parse_size(size) if size else None
    started = time.perf_counter()
    job = RiskJob(list(strategy), rules, session, coups, check, seed, level, sizing,
                  count_busts, sessions, curve=out is not None, workers=workers,
                  state_limit=state_limit, time_limit=time_limit)
    with contextlib.ExitStack() as stack:
        # the output is ours before any work starts (refused at once if it is not free)
        claim = (stack.enter_context(claim_output(out, force=force, what="risk file"))
                 if out is not None else None)
        with progress_bars(not (quiet or as_json)) as bars:
            bar = bars.add("risk", "steps")

            def step(what: str) -> None:
                bar.update(description=f"risk: {what}"[:40], advance=1)

            results = run_risk(job, step)
        if claim is not None:
            write_risk(job, results, claim.temp)
    if as_json:
        typer.echo(json.dumps(summary(job, results), indent=2, default=_plain))
    elif not no_table:
        _print(job, results)
    for result in results:
        if result.exact is None and (as_json or no_table):
            print_labelled("note", f"{result.spec}: no exact figures: "
                           f"{in_flags(result.not_exact)}",
                           "yellow")
    exact = sum(r.exact is not None for r in results)
    wrote = f"wrote {out}" if out is not None else "wrote nothing (--out FILE keeps them)"
    message = (f"{wrote}: {exact} of {len(results)} configuration"
               f"{'s' if len(results) > 1 else ''} exact in "
               f"{time.perf_counter() - started:.1f}s")
    if as_json:  # stdout is the JSON document alone
        err_console.print(message, highlight=False, soft_wrap=True)
    else:
        done(message)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return str(value)


def _print(job: RiskJob, results: list[ConfigRisk]) -> None:
    console.print(_setup_line(job), highlight=False)
    exact = [r for r in results if r.exact is not None]
    if len(results) == 1 and exact:
        console.print(f"{EXACT_TITLE}: {results[0].spec}", highlight=False, markup=False)
        console.print(config_table(job, results[0]))
    elif exact:
        for table in grid_table(job, results, console.width):
            console.print(table)
    for result in results:
        for note in _notes(job, result):
            console.print(note, highlight=False, markup=False)
    line = _check_line(job, results)
    if line:
        console.print(line, highlight=False)
