"""Does a declared state tell the truth? The declaration against the class's own play.

Exact risk trusts a system's finite-state declaration (``strategies/finite_state.py``)
to say what the system stakes. :func:`declaration_mismatch` plays the strategy the way a
backtest does (``baccarat.replay.replay``, over generated shoes, with a bankroll and table
limits too wide to interfere) and walks the declared states along the same coups; the
first coup where the declared stakes differ from those the strategy placed is reported.
A system that forgets what the table maximum makes irrelevant (``limited_state``) is
walked a second time with it, at the table's maximum, and must place the same stakes.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from ..bets import BET_KINDS
from ..coups import OUTCOME_LABELS
from ..deal import generate_coups
from ..replay import SessionPolicy, replay
from ..rules import TableRules
from ..strategies.finite_state import shoe_state
from .coups import exact
from .machine import TableCut, finite_system, limits_states, result_of

#: Shoes played to check a declaration (sessions of two shoes, so new shoes are seen).
CHECK_SHOES = 60
_WIDE = 1e15


def declaration_mismatch(strategy: Any, rules: TableRules, shoes: int = CHECK_SHOES,
                         seed: int = 20240522) -> str | None:
    """None if the declared states give the stakes the strategy plays over ``shoes``
    generated shoes, else one line saying where and how they differ."""
    return declaration_mismatches([strategy], rules, shoes, seed)[0]


def declaration_mismatches(strategies: list[Any], rules: TableRules,
                           shoes: int = CHECK_SHOES, seed: int = 20240522) -> list[str | None]:
    """:func:`declaration_mismatch` for several strategies, played side by side."""
    systems = [finite_system(strategy) for strategy in strategies]
    wide = rules.model_copy(update={"table_min": 1e-9, "table_max": _WIDE})
    coups = generate_coups(wide, seed, np.arange(shoes))
    fresh = [copy.deepcopy(s) for s in strategies]  # a System's parts are private
    grid, ledgers = replay(coups, fresh, wide, SessionPolicy(bankroll=_WIDE, session_shoes=2))
    cut = TableCut(exact(rules.table_max), None)
    return [_first_difference(system, grid, ledger, coups)
            or _first_limited_difference(system, grid, ledger, coups, cut)
            for system, ledger in zip(systems, ledgers, strict=True)]


def _played(grid: Any, ledger: Any, coups: Any) -> Iterator[tuple[int, int, int, int]]:
    """(session, coup of the session, row, shoe) of every coup the strategy played,
    session after session, in order."""
    n, width = grid.shape
    for session in range(n):
        for t in range(width):
            row = grid.rows[session, t]
            if row < 0 or not ledger.played[session, t]:
                break
            yield session, t, int(row), int(coups.shoe[row])


def _result(ledger: Any, session: int, t: int) -> Any:
    """What a played coup did to the stakes placed on it (``result_of``)."""
    placed = sum(float(stakes[session, t]) for stakes in ledger.stakes.values())
    return result_of(Fraction(float(ledger.net[session, t])), Fraction(placed))


def _first_difference(system: Any, grid: Any, ledger: Any, coups: Any) -> str | None:
    state, last_shoe = None, -1
    for session, t, row, shoe in _played(grid, ledger, coups):
        if t == 0:
            state, last_shoe = system.initial_state(), -1
        if shoe != last_shoe:
            state, last_shoe = shoe_state(system, state), shoe
        declared = {k: float(v) for k, v in system.stakes_of(state).items() if float(v) > 0}
        placed = {k: float(stakes[session, t]) for k, stakes in ledger.stakes.items()
                  if stakes[session, t] > 0}
        if not _same(declared, placed):
            return (f"session {session}, shoe {shoe}, coup {int(coups.coup[row])}: the "
                    f"declared state {state!r} stakes {_show(declared)}, the strategy "
                    f"staked {_show(placed)}")
        state = system.next_state(state, OUTCOME_LABELS[int(coups.outcome[row])],
                                  _result(ledger, session, t))
    return None


def _first_limited_difference(system: Any, grid: Any, ledger: Any, coups: Any,
                              cut: TableCut) -> str | None:
    """None if the states ``limited_state`` leaves place what the full states place at
    the table's maximum, coup after coup of the same sessions, else where they differ."""
    if not limits_states(system):
        return None
    state = limited = None
    last_shoe = -1
    for session, t, row, shoe in _played(grid, ledger, coups):
        if t == 0:
            state, last_shoe = system.initial_state(), -1
            limited = system.limited_state(state, cut)
        if shoe != last_shoe:
            state = shoe_state(system, state)
            limited = system.limited_state(shoe_state(system, limited), cut)
            last_shoe = shoe
        full = _at_table(system.stakes_of(state), cut)
        kept = _at_table(system.stakes_of(limited), cut)
        if full != kept:
            return (f"session {session}, shoe {shoe}, coup {int(coups.coup[row])}: the "
                    f"declared state {state!r} places {full} at a maximum of "
                    f"{float(cut.table_max):g}, its limited state {limited!r} "
                    f"places {kept}")
        outcome, result = OUTCOME_LABELS[int(coups.outcome[row])], _result(ledger, session, t)
        state = system.next_state(state, outcome, result)
        limited = system.limited_state(system.next_state(limited, outcome, result), cut)
    return None


def _at_table(stakes: Any, cut: TableCut) -> str:
    """Stakes as the table maximum places them: a stake it cuts shows as the maximum."""
    placed = {k: f"{float(cut.table_max):g} (cut)" if cut(float(v)) else f"{float(v):g}"
              for k, v in stakes.items() if float(v) > 0}
    return ", ".join(f"{placed[k]} on {k}" for k in BET_KINDS if k in placed) or "nothing"


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    if set(a) != set(b):
        return False
    return all(math.isclose(a[k], b[k], rel_tol=1e-12, abs_tol=1e-9) for k in a)


def _show(stakes: dict[str, float]) -> str:
    if not stakes:
        return "nothing"
    return ", ".join(f"{v:g} on {k}" for k, v in sorted(stakes.items(),
                                                       key=lambda kv: BET_KINDS.index(kv[0])))


__all__ = ["CHECK_SHOES", "declaration_mismatch", "declaration_mismatches"]
