"""``baccarat risk`` as a job: configurations in, exact figures, checks and sizings out.

:func:`run_risk` takes a :class:`RiskJob` (the SPECs, the rules, the session policy, what
to check and size), computes each configuration's exact distribution, runs the check
simulation over real shoes for all of them at once (one backtest), sizes what was asked,
and returns one :class:`ConfigRisk` per configuration. A configuration exact risk cannot
follow (its state is not finite, or it passes the state limit) keeps the reason and the
simulation's figures. :func:`write_risk` stores the distributions as ``risk.parquet``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..replay import SessionPolicy
from ..rules import TableRules
from ..session_play import STOP_REASONS
from .backward import NotBackward, RiskCurve, risk_curve
from .chain import DEFAULT_CELL_LIMIT, DEFAULT_STATE_LIMIT, DEFAULT_TIME_LIMIT
from .check import DEFAULT_CHECK, SimulatedRisk, check_layout, estimates
from .exact import ExactRisk, exact_risk
from .machine import RiskError
from .sizing import SessionsRisk, Sizing, sessions_risk, size_bankroll, size_base

#: Points of the risk-against-bankroll curve kept in risk.parquet (the report draws it).
CURVE_POINTS = 400


@dataclass
class RiskJob:
    """What ``baccarat risk`` was asked."""

    specs: list[str]
    rules: TableRules = field(default_factory=TableRules)
    policy: SessionPolicy = field(default_factory=SessionPolicy)
    coups: int | None = None
    check: int = DEFAULT_CHECK
    seed: int = 0
    level: float = 0.95
    size: tuple[str, float] | None = None      # ("ruin" | "base", target risk)
    count_busts: bool = False
    sessions: int = 1
    curve: bool = False
    workers: int | None = 1
    state_limit: int = DEFAULT_STATE_LIMIT
    cell_limit: int = DEFAULT_CELL_LIMIT
    time_limit: float | None = DEFAULT_TIME_LIMIT

    @property
    def measure(self) -> str:
        """What sizing and --sessions count as losing the bankroll."""
        return "either" if self.count_busts else "ruin"


@dataclass
class ConfigRisk:
    """One configuration's answers."""

    spec: str
    strategy: Any
    exact: ExactRisk | None = None
    not_exact: RiskError | None = None  # why there are no exact figures
    seconds: float = 0.0
    simulated: SimulatedRisk | None = None
    sizing: Sizing | None = None
    over_sessions: SessionsRisk | None = None
    curve: RiskCurve | None = None
    #: Why a later answer (over sessions, sizing, the curve) could not be worked out.
    not_computed: dict[str, RiskError] = field(default_factory=dict)


def configurations(specs: list[str]) -> list[Any]:
    """Every configuration the SPECs stand for (a list in a SPEC is a grid)."""
    from ..strategies.registry import expand_spec

    out = []
    for spec in specs:
        out.extend(expand_spec(spec))
    return out


def run_risk(job: RiskJob, progress: Callable[[str], None] | None = None) -> list[ConfigRisk]:
    """Answer ``job`` for every configuration (``progress(what)`` as each step starts)."""
    say = progress or (lambda what: None)
    results = [ConfigRisk(s.spec(), s) for s in configurations(job.specs)]
    for result in results:
        say(f"exact {result.spec}")
        started = time.perf_counter()
        try:
            _check_declaration(result.strategy, job.rules)
            result.exact = exact_risk(result.strategy, job.rules, job.policy, job.coups,
                                      state_limit=job.state_limit, cell_limit=job.cell_limit,
                                      time_limit=job.time_limit)
        except RiskError as exc:
            result.not_exact = exc
        result.seconds = time.perf_counter() - started
    sessions_needed = job.check or (DEFAULT_CHECK if any(r.exact is None for r in results)
                                    else 0)
    if sessions_needed:
        say(f"check: {sessions_needed:,} sessions of real shoes")
        _simulate(job, results, sessions_needed)
    for result in results:
        if result.exact is None:
            continue
        if job.sessions > 1:
            say(f"{job.sessions} sessions {result.spec}")
            _answer(result, "sessions", partial(_over_sessions, job, result))
        if job.size is not None:
            say(f"sizing {result.spec}")
            _answer(result, "sizing", partial(_size, job, result))
        if job.curve:
            say(f"risk against bankroll {result.spec}")
            _answer(result, "curve", partial(_curve, job, result))
    return results


def _check_declaration(strategy: Any, rules: TableRules) -> None:
    """A plugin's declared states must give the stakes it plays (the built-ins' are
    checked by the test suite)."""
    from .machine import finite_system
    from .verify import declaration_mismatch

    system = finite_system(strategy)
    if all(type(part).__module__.startswith("baccarat.strategies.")
           for part in (strategy, system, *getattr(system, "__dict__", {}).values())
           if hasattr(part, "initial_state")):
        return
    found = declaration_mismatch(strategy, rules)
    if found is not None:
        raise RiskError(f"its declared state does not match its play: {found}")


def _simulate(job: RiskJob, results: list[ConfigRisk], sessions: int) -> None:
    """One backtest plays every configuration over the same generated shoes."""
    from ..backtest import play
    from ..job import BacktestJob, Run

    shoes_per, max_coups = check_layout(job.rules, job.policy, job.coups)
    policy = job.policy
    session = SessionPolicy(**{**policy.__dict__, "session_shoes": shoes_per,
                               "max_coups": max_coups})
    run = play(BacktestJob(None, [r.strategy for r in results], shoes=sessions * shoes_per,
                           seed=job.seed, rules=job.rules, session=session,
                           run=Run(ledger=False, workers=job.workers)))
    frame = run.sessions
    for config, result in enumerate(results):
        rows = frame[frame["config"] == config]
        result.simulated = estimates(rows, sessions * shoes_per, job.seed, job.level)


#: The attribute of ``ConfigRisk`` each later answer goes to.
_ANSWERS = {"sessions": "over_sessions", "sizing": "sizing", "curve": "curve"}


def _answer(result: ConfigRisk, name: str, work: Callable[[], Any]) -> None:
    """Work out one later answer into ``result``, or note why it could not be (a chain
    past its limits): the exact figures and the check stand either way."""
    try:
        setattr(result, _ANSWERS[name], work())
    except RiskError as exc:
        result.not_computed[name] = exc


def _over_sessions(job: RiskJob, result: ConfigRisk) -> SessionsRisk:
    """Ruin (and ruin or a bust) by each of the sessions in a row: one backward pass per
    count of sessions when the chain allows it, else the sessions played forward."""
    try:
        curve = risk_curve(result.strategy, job.rules, job.policy, job.coups,
                           job.policy.bankroll, job.sessions, job.time_limit)
        ruin = [float(r[-1]) for r in curve.ruin_by]
        either = [float(e[-1]) for e in curve.either_by]
        return SessionsRisk(job.sessions, ruin, either, {}, ruin[-1])
    except NotBackward:
        return sessions_risk(result.strategy, job.rules, job.policy, job.coups, job.sessions,
                             time_limit=job.time_limit)


def _size(job: RiskJob, result: ConfigRisk) -> Sizing:
    assert job.size is not None
    what, target = job.size
    if what == "base":
        return size_base(result.strategy, job.rules, job.policy, job.coups, target,
                         job.measure, job.sessions)
    try:
        return _size_from_curve(job, result, target)
    except NotBackward as why:
        found = size_bankroll(result.strategy, job.rules, job.policy, job.coups, target,
                              job.measure, job.sessions)
        found.note = (found.note + "; " if found.note else "") + (
            f"bisection, assuming the risk falls as the bankroll grows ({why})")
        return found


def _size_from_curve(job: RiskJob, result: ConfigRisk, target: float) -> Sizing:
    """The smallest bankroll from which on the risk stays at or below ``target``, read
    off the risk against every bankroll (doubling the range until its top qualifies)."""
    top = max(2.0 * job.policy.bankroll, 4.0 * job.rules.table_min)
    for _ in range(12):
        curve = risk_curve(result.strategy, job.rules, job.policy, job.coups, top,
                           job.sessions)
        risk = curve.either if job.count_busts else curve.ruin
        if risk[-1] <= target:
            break
        top *= 2.0
    else:
        return Sizing("bankroll", target, job.measure, None, None, top, float(risk[-1]), {},
                      f"no bankroll up to {top:,.0f} keeps the risk at {target:g} or below")
    result.curve = curve
    over = np.flatnonzero(risk > target)
    k = int(over[-1]) + 1 if over.size else 0
    note = f"checked every bankroll up to {curve.bankroll[-1]:,.2f}"
    below = np.flatnonzero(risk[:k] <= target)
    if below.size:
        note += (f"; some smaller bankrolls also keep it (e.g. {curve.bankroll[below[0]]:,.2f}:"
                 f" {risk[below[0]]:.3%}), but not all those between")
    neighbour = (float(curve.bankroll[k - 1]), float(risk[k - 1])) if k > 0 else (None, None)
    return Sizing("bankroll", target, job.measure, float(curve.bankroll[k]), float(risk[k]),
                  neighbour[0], neighbour[1], {}, note)


def _curve(job: RiskJob, result: ConfigRisk) -> RiskCurve | None:
    """Risk against the bankroll from the table minimum to four times the bankroll."""
    if result.curve is not None:
        return result.curve
    top = 4.0 * job.policy.bankroll
    try:
        return risk_curve(result.strategy, job.rules, job.policy, job.coups, top, job.sessions)
    except NotBackward:
        pass
    bankrolls = np.unique(np.geomspace(job.rules.table_min, top, 16).round(0))
    ruin, either = [], []
    for bankroll in bankrolls:
        policy = SessionPolicy(**{**job.policy.__dict__, "bankroll": float(bankroll)})
        try:
            found = exact_risk(result.strategy, job.rules, policy, job.coups,
                               state_limit=job.state_limit, cell_limit=job.cell_limit)
        except RiskError:
            return None
        ruin.append(found.figures["risk_of_ruin"])
        either.append(found.figures["risk_of_ruin"] + found.figures["bust_rate"])
    assert result.exact is not None
    return RiskCurve(bankrolls.astype(np.float64), np.array(ruin), np.array(either),
                     result.exact.unit, 1)


# -- the outputs ----------------------------------------------------------------------------
def summary(job: RiskJob, results: list[ConfigRisk]) -> dict[str, Any]:
    """Everything but the distributions, as plain data (``--json`` and the file's metadata)."""
    return {
        "kind": "risk",
        "rules": job.rules.model_dump(),
        "rules_label": job.rules.label(),
        "policy": dict(job.policy.__dict__),
        "coups": job.coups,
        "model": "independent coups with a full shoe's exact probabilities; shoes of the "
                 "rules' length distribution",
        "check": {"sessions": _check_sessions(results), "seed": job.seed,
                  "level": job.level},
        "configurations": [_config_summary(job, r) for r in results],
    }


def _check_sessions(results: list[ConfigRisk]) -> int:
    return next((r.simulated.sessions for r in results if r.simulated is not None), 0)


def _plain(value: float | None) -> float | None:
    if value is None:
        return None
    return None if isinstance(value, float) and math.isnan(value) else float(value)


def _config_summary(job: RiskJob, r: ConfigRisk) -> dict[str, Any]:
    out: dict[str, Any] = {"spec": r.spec, "exact": None,
                           "not_exact": None if r.not_exact is None else str(r.not_exact)}
    if r.exact is not None:
        out["exact"] = {k: _plain(v) for k, v in r.exact.figures.items()}
        out["unit"] = str(r.exact.unit)
        out["states"] = r.exact.states
        out["cells"] = r.exact.cells
        out["seconds"] = round(r.seconds, 4)
    if r.simulated is not None:
        out["simulated"] = {
            k: {"value": _plain(e.value), "low": _plain(e.low), "high": _plain(e.high),
                "holds_exact": (e.holds(r.exact.figures[k]) if r.exact is not None else None)}
            for k, e in r.simulated.estimates.items()}
    if r.sizing is not None:
        s = r.sizing
        out["sizing"] = {"what": s.what, "target": s.target, "measure": s.measure,
                         "value": s.value, "risk": s.risk, "neighbour": s.neighbour,
                         "neighbour_risk": s.neighbour_risk, "note": s.note}
    if r.over_sessions is not None:
        o = r.over_sessions
        out["sessions"] = {"sessions": o.sessions, "ruin_by_session": o.ruin_by,
                           "ruin_or_bust_by_session": o.either_by}
    if r.not_computed:
        out["not_computed"] = {name: str(exc) for name, exc in r.not_computed.items()}
    if r.curve is not None:
        c = r.curve
        keep = np.unique(np.linspace(0, c.bankroll.size - 1,
                                     min(CURVE_POINTS, c.bankroll.size)).round().astype(int))
        out["curve"] = {"bankroll": c.bankroll[keep].tolist(), "ruin": c.ruin[keep].tolist(),
                        "ruin_or_bust": c.either[keep].tolist(), "sessions": c.sessions}
    return out


def distribution_table(results: list[ConfigRisk]) -> Any:
    """The exact distributions, one row per configuration and final net, with the share of
    the check's sessions that ended there (``simulated``)."""
    import pyarrow as pa

    columns: dict[str, list[Any]] = {"config": [], "spec": [], "net": [], "probability": [],
                                     "cdf": [], **{f"p_{r}": [] for r in STOP_REASONS},
                                     "simulated": []}
    for config, r in enumerate(results):
        if r.exact is None:
            continue
        frame = r.exact.frame()
        shares = _simulated_shares(r, frame["net"].to_numpy())
        n = len(frame)
        columns["config"] += [config] * n
        columns["spec"] += [r.spec] * n
        for name in ("net", "probability", "cdf", *(f"p_{s}" for s in STOP_REASONS)):
            columns[name] += frame[name].tolist()
        columns["simulated"] += shares.tolist()
    types = {"config": pa.int32(), "spec": pa.dictionary(pa.int32(), pa.string())}
    return pa.table({name: pa.array(values, type=types.get(name, pa.float64()))
                     for name, values in columns.items()})


def _simulated_shares(r: ConfigRisk, nets: np.ndarray) -> np.ndarray:
    """The share of the check's sessions ending at each exact net (NaN without a check)."""
    if r.simulated is None or r.exact is None or r.simulated.net.size == 0:
        return np.full(nets.size, np.nan)
    unit = float(r.exact.unit)
    sim = np.rint(r.simulated.net / unit).astype(np.int64)
    grid = np.rint(nets / unit).astype(np.int64)
    values, counts = np.unique(sim, return_counts=True)
    at = np.searchsorted(grid, values)
    shares = np.zeros(nets.size)
    inside = (at < grid.size) & (grid[np.minimum(at, grid.size - 1)] == values)
    np.add.at(shares, at[inside], counts[inside] / sim.size)
    return shares


def write_risk(job: RiskJob, results: list[ConfigRisk], path: str | Path) -> Path:
    """Write ``risk.parquet`` at ``path`` (a file the caller owns: the command's claimed
    temporary): the distributions, the rest in the file's metadata."""
    import pyarrow.parquet as pq

    from ..io.parquet import COMPRESSION, with_metadata

    table = with_metadata(distribution_table(results), summary(job, results))
    pq.write_table(table, path, compression=COMPRESSION)
    return Path(path)


__all__ = ["ConfigRisk", "RiskJob", "configurations", "distribution_table", "run_risk",
           "summary", "write_risk"]
