"""What a system needs: the bankroll for a chosen risk, the base stake a bankroll affords,
and the risk over several sessions played one after another.

Every answer is found with exact chains (:mod:`baccarat.risk.chain`), so a risk of ruin of
1% means 1% in the model, not 1% give or take a simulation's interval.

- :func:`sessions_risk`: sessions played one after another, each starting with what the
  last one left (a busted session's leftover included; a ruined bankroll plays no more):
  the chance of ruin within M sessions and the bankroll after them.
- :func:`size_bankroll`: the smallest bankroll whose risk is at most the target, found by
  doubling then bisection on the money grid (so the risk must fall as the bankroll
  grows, which the answer's neighbour one grid step below confirms locally).
- :func:`size_base`: the largest base stake (whole table units) whose risk at the given
  bankroll is at most the target.

The risk measured is ``ruin`` (the bankroll fell below the table minimum, the engine's
risk of ruin) or ``either`` (ruined or busted: the bankroll could not pay the stake the
system asked for, which is how a Martingale under ``--when-short stop`` loses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..replay import SessionPolicy
from ..rules import TableRules
from ..session_play import BUSTED, RUIN
from .chain import (
    DEFAULT_CELL_LIMIT,
    DEFAULT_STATE_LIMIT,
    DEFAULT_TIME_LIMIT,
    Budget,
    ChainResult,
    SessionChain,
)
from .coups import exact
from .machine import RiskError

#: What a sizing counts as losing: the engine's ruin, or ruin or bust.
MEASURES = ("ruin", "either")
#: Bankrolls and bases tried at most while sizing.
MAX_TRIES = 80


@dataclass
class SessionsRisk:
    """M sessions in a row from one bankroll: ruin and bust by session, the end bankroll."""

    sessions: int
    ruin_by: list[float]              # P(ruined by the end of session m), m = 1..M
    either_by: list[float]            # P(ruined, or busted in some session, by then)
    final: dict[Fraction, float]      # P(bankroll after M sessions), ruin excluded
    ruined: float

    @property
    def risk_of_ruin(self) -> float:
        return self.ruin_by[-1] if self.ruin_by else 0.0


def _ended(result: ChainResult, without: tuple[int, ...] = (RUIN,)) -> dict[Fraction, float]:
    """Bankroll -> probability of the chain's sessions that ended for any reason but
    those in ``without``."""
    out = {}
    for amount, row in result.endings().items():
        mass = float(row.sum() - row[list(without)].sum())
        if mass > 0:
            out[amount] = mass
    return out


def sessions_risk(strategy: Any, rules: TableRules, policy: SessionPolicy,
                  coups: int | None, sessions: int, *,
                  state_limit: int = DEFAULT_STATE_LIMIT,
                  cell_limit: int = DEFAULT_CELL_LIMIT,
                  time_limit: float | None = DEFAULT_TIME_LIMIT) -> SessionsRisk:
    """Risk over ``sessions`` sessions in a row, each from the bankroll the last one left.

    A session that busts passes on what it kept; each session's stop rules count from its
    own start. Played forward, session after session: the bankroll after them comes too
    (:func:`baccarat.risk.backward.risk_curve` gives the risks alone, quicker).
    """
    if sessions < 1:
        raise RiskError(f"sessions {sessions}: expected at least 1", params=("sessions",))
    chain = SessionChain(strategy, rules, policy, coups, state_limit, cell_limit)
    start: dict[Fraction, float] = {chain.bankroll: 1.0}
    clean: dict[Fraction, float] = dict(start)  # neither ruined nor busted so far
    ruined = 0.0
    ruin_by: list[float] = []
    either_by: list[float] = []
    budget = Budget(time_limit, sessions, every=1, what="sessions")
    for done in range(sessions):
        budget.spend(done, len(start))
        if start:
            result = chain.run(start)
            ruined += result.total(RUIN)
            start = _ended(result)
        if clean:
            clean = _ended(chain.run(clean), (RUIN, BUSTED))
        ruin_by.append(ruined)
        either_by.append(1.0 - math.fsum(clean.values()))
    return SessionsRisk(sessions, ruin_by, either_by, start, ruined)


def measured_risk(strategy: Any, rules: TableRules, policy: SessionPolicy,
                  coups: int | None, measure: str, sessions: int = 1) -> float:
    """The risk a sizing compares with its target, at ``policy.bankroll``."""
    if measure not in MEASURES:
        raise RiskError(f"risk measure {measure!r}: expected one of {', '.join(MEASURES)}")
    from .backward import NotBackward, risk_curve

    try:  # every session from one backward pass when the chain allows it
        curve = risk_curve(strategy, rules, policy, coups, policy.bankroll, sessions)
        return float((curve.ruin if measure == "ruin" else curve.either)[-1])
    except NotBackward:
        pass
    if sessions > 1:
        found = sessions_risk(strategy, rules, policy, coups, sessions)
        return found.ruin_by[-1] if measure == "ruin" else found.either_by[-1]
    result = SessionChain(strategy, rules, policy, coups).run()
    ruin = result.total(RUIN)
    return ruin if measure == "ruin" else ruin + result.total(BUSTED)


@dataclass
class Sizing:
    """The answer of a sizing and the evidence for it."""

    what: str                      # "bankroll" or "base"
    target: float
    measure: str
    value: float | None            # the bankroll or base found (None: none qualifies)
    risk: float | None             # the risk at that value
    neighbour: float | None        # the next value toward more risk (a grid step away)
    neighbour_risk: float | None
    tried: dict[float, float] = field(default_factory=dict)
    note: str = ""


def size_bankroll(strategy: Any, rules: TableRules, policy: SessionPolicy,
                  coups: int | None, target: float, measure: str = "ruin",
                  sessions: int = 1) -> Sizing:
    """The smallest bankroll whose risk (``measure``) is at most ``target``."""
    _check_target(target)
    tried: dict[float, float] = {}

    def risk(bankroll: Fraction) -> float:
        key = float(bankroll)
        if key not in tried:
            if len(tried) >= MAX_TRIES:
                raise RiskError(f"sizing tried {MAX_TRIES} bankrolls without settling")
            tried[key] = measured_risk(strategy, rules, _with_bankroll(policy, bankroll),
                                       coups, measure, sessions)
        return tried[key]

    step = _money_step(strategy, rules, policy, coups)
    low = _on_grid(exact(rules.table_min), step, up=True)
    if risk(low) <= target:
        return Sizing("bankroll", target, measure, float(low), tried[float(low)], None, None,
                      tried, "the table minimum is enough")
    high = max(_on_grid(exact(policy.bankroll), step, up=True), low + step)
    while risk(high) > target:
        low = high
        high = _on_grid(high * 2, step, up=True)
        if high > 10**9:
            return Sizing("bankroll", target, measure, None, None, float(low), tried[float(low)],
                          tried, f"no bankroll up to {float(low):,.0f} keeps the risk at "
                          f"{target:g} or below")
    while high - low > step:
        middle = _on_grid(low + (high - low) / 2, step, up=False)
        if middle <= low:
            middle = low + step
        if risk(middle) <= target:
            high = middle
        else:
            low = middle
    return Sizing("bankroll", target, measure, float(high), tried[float(high)], float(low),
                  tried[float(low)], tried)


def size_base(strategy: Any, rules: TableRules, policy: SessionPolicy, coups: int | None,
              target: float, measure: str = "ruin", sessions: int = 1) -> Sizing:
    """The largest base stake (whole table units, at least the table minimum) whose risk
    (``measure``) at ``policy.bankroll`` is at most ``target``."""
    _check_target(target)
    tried: dict[float, float] = {}

    def risk(base: int) -> float:
        if base not in tried:
            if len(tried) >= MAX_TRIES:
                raise RiskError(f"sizing tried {MAX_TRIES} base stakes without settling")
            tried[base] = measured_risk(with_base(strategy, base), rules, policy, coups,
                                        measure, sessions)
        return tried[base]

    low = max(1, math.ceil(rules.table_min))
    high = math.floor(policy.bankroll)
    if high < low:
        raise RiskError(f"bankroll {policy.bankroll:g} is below the table minimum")
    if risk(low) > target:
        return Sizing("base", target, measure, None, None, float(low), tried[low], tried,
                      f"even a base stake of {low} (the table minimum) has a risk above "
                      f"{target:g}")
    if risk(high) <= target:
        return Sizing("base", target, measure, float(high), tried[high], None, None, tried,
                      "the whole bankroll as the base stake")
    while high - low > 1:
        middle = (low + high) // 2
        if risk(middle) <= target:
            low = middle
        else:
            high = middle
    return Sizing("base", target, measure, float(low), tried[low], float(high), tried[high],
                  tried)


def with_base(strategy: Any, base: float) -> Any:
    """A copy of ``strategy`` with base stake ``base`` (a composed system's staking plan
    holds it)."""
    try:
        from ..strategies.system import System

        parts = strategy.parts() if isinstance(strategy, System) else None
        if parts is not None:
            staking = type(parts.staking).model_validate(
                {**parts.staking.model_dump(), "base": base})
            return System(selection=parts.selection, staking=staking, rules=parts.rules)
        return type(strategy).model_validate({**strategy.model_dump(), "base": base})
    except Exception as exc:  # noqa: BLE001 - reported as the reason sizing cannot proceed
        raise RiskError(f"{strategy.spec()!r}: cannot set its base stake to {base:g}: "
                        f"{exc}") from None


def _with_bankroll(policy: SessionPolicy, bankroll: Fraction) -> SessionPolicy:
    return SessionPolicy(**{**policy.__dict__, "bankroll": float(bankroll)})


def _money_step(strategy: Any, rules: TableRules, policy: SessionPolicy,
                coups: int | None) -> Fraction:
    """The money grid's unit for this configuration (the bankroll searched on it)."""
    result = SessionChain(strategy, rules, policy, coups).run()
    return result.unit


def _on_grid(amount: Fraction, step: Fraction, up: bool) -> Fraction:
    units = amount / step
    whole = math.ceil(units) if up else math.floor(units)
    return whole * step


def _check_target(target: float) -> None:
    if not 0 < target < 1:
        raise RiskError(f"a risk target of {target:g}: expected a probability between 0 "
                        f"and 1 (e.g. 0.01)")


__all__ = ["MEASURES", "SessionsRisk", "Sizing", "measured_risk", "sessions_risk",
           "size_bankroll", "size_base", "with_base"]
