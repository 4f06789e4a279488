"""Risk as a function of the starting bankroll, every bankroll at once, by backward
induction over the same chain.

The forward chain (:mod:`baccarat.risk.chain`) gives the whole distribution from one
bankroll. Sizing a bankroll, or drawing risk of ruin against the bankroll, asks the
reverse question: from each bankroll b, the chance of ruin (or of ruin or a bust). That
is a value function of (state, bankroll), computed from the session's last coup back to
its first, which answers for every starting bankroll in one pass:

    U_t(s, b) = sum over classes c of p_c * W(next(s, c), b + delta(s, c))

where W is 1 below the table minimum (ruin), the value of the session's end where the
coups run out (0 for one session; the risk of the sessions still to come for several),
and U_{t+1} otherwise; a state whose stakes the bankroll cannot cover busts (value 1 when
busts count, else the value of ending there). The bankrolls each state can hold at each
coup are found first by a forward pass over the states (the highest bankroll each can
reach), so the value function is kept only where a session can be.

It covers the chains without a stop loss or win goal (those depend on the starting
bankroll too) and without shoe phases, under ``--when-short stop``; the others are
sized by :mod:`baccarat.risk.sizing`'s bisection over forward chains.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..jit import njit
from ..replay import SessionPolicy
from ..rules import TableRules
from .chain import DEFAULT_TIME_LIMIT, PLAIN, Budget, SessionChain, _NeedsShoes, _Run
from .coups import exact
from .machine import RiskError, TooManyStates
from .shoes import hazards, session_lengths


class NotBackward(RiskError):
    """The configuration needs the forward chain (stop loss, win goal, shoe phases, ...)."""


@dataclass
class RiskCurve:
    """Risk against the starting bankroll: ``bankroll[k]`` (ascending, on the money grid)
    with the chance of ruin and of ruin-or-bust within ``sessions`` sessions."""

    bankroll: np.ndarray
    ruin: np.ndarray
    either: np.ndarray
    unit: Fraction
    sessions: int
    #: the same within 1, 2, ..., ``sessions`` sessions (the last is ``ruin``/``either``)
    ruin_by: list[np.ndarray] = field(default_factory=list)
    either_by: list[np.ndarray] = field(default_factory=list)


@njit(cache=True)
def _reach_max(start_state, start_hi, ruin_at, horizon, n_states, stake, t_off, t_n, delta,
               target, end_reason, out):  # pragma: no cover - compiled
    """``out[t, s]``: the highest bankroll (units) state s can hold before coup t + 1 when
    sessions start in ``start_state`` with any bankroll up to ``start_hi`` (-1: none)."""
    for t in range(horizon + 1):
        for s in range(n_states):
            out[t, s] = -1
    out[0, start_state] = start_hi
    for t in range(horizon):
        for s in range(n_states):
            hi = out[t, s]
            if hi < 0 or stake[s] > hi or hi < ruin_at or end_reason[s] >= 0:
                continue
            for e in range(t_off[s], t_off[s] + t_n[s]):
                v = target[e]
                if v < 0:
                    continue
                j = hi + delta[e]
                if j >= ruin_at and j > out[t + 1, v]:
                    out[t + 1, v] = j


@njit(cache=True)
def _back_step(his, hi_next, ruin_at, stake, t_off, t_n, delta, target, prob, hazard, last,
               busts_count, end_ruin, end_either, next_ruin, next_either, next_off,
               out_ruin, out_either, out_off, end_reason):  # pragma: no cover - compiled
    """One coup backward: ``out_*[out_off[s] + i - ruin_at]`` for i up to ``his[s]`` from
    the values after the coup (``next_*``, windows from ``ruin_at`` to ``hi_next[s]``) and
    the values of ending with bankroll j (``end_*``)."""
    n_states = his.shape[0]
    for s in range(n_states):
        hi = his[s]
        if hi < ruin_at:
            continue
        x = stake[s]
        for i in range(ruin_at, hi + 1):
            k = out_off[s] + i - ruin_at
            if end_reason[s] >= 0:  # the session ends before the coup (not a bust)
                out_ruin[k] = end_ruin[i]
                out_either[k] = end_either[i]
                continue
            if x > i:  # the bankroll cannot cover the stakes: busted, the coup not played
                out_ruin[k] = end_ruin[i]
                out_either[k] = 1.0 if busts_count else end_either[i]
                continue
            r = 0.0
            e_ = 0.0
            for e in range(t_off[s], t_off[s] + t_n[s]):
                j = i + delta[e]
                p = prob[e]
                if j < ruin_at:
                    r += p
                    e_ += p
                    continue
                v = target[e]
                if last or v < 0 or hazard >= 1.0:
                    r += p * end_ruin[j]
                    e_ += p * end_either[j]
                    continue
                w = next_off[v] + j - ruin_at
                if hazard > 0.0:
                    r += p * ((1.0 - hazard) * next_ruin[w] + hazard * end_ruin[j])
                    e_ += p * ((1.0 - hazard) * next_either[w] + hazard * end_either[j])
                else:
                    r += p * next_ruin[w]
                    e_ += p * next_either[w]
            out_ruin[k] = r
            out_either[k] = e_


def risk_curve(strategy: Any, rules: TableRules, policy: SessionPolicy, coups: int | None,
               up_to: float, sessions: int = 1,
               time_limit: float | None = DEFAULT_TIME_LIMIT) -> RiskCurve:
    """Risk of ruin, and of ruin or a bust, from every starting bankroll on the money grid
    from the table minimum to ``up_to``, over ``sessions`` sessions in a row. Each session
    in a row widens the bankrolls the pass covers, so its time grows about as the square
    of the sessions: past ``time_limit`` seconds (projected as it goes) it stops with
    ``TooManyStates``."""
    chain = SessionChain(strategy, rules, policy, coups)
    policy = chain.policy  # with the configuration's own rules
    if policy.stop_loss is not None or policy.win_goal is not None:
        raise NotBackward("a stop loss or win goal counts from the starting bankroll")
    if policy.when_short != "stop":
        raise NotBackward("--when-short reduce")
    run = _Run(chain, {exact(up_to): 1.0}, PLAIN)
    tables = _Tables(run, chain)
    return tables.curve(exact(up_to), sessions, time_limit)


class _Tables:
    """The chain's states and edges, laid out for the backward passes."""

    def __init__(self, run: _Run, chain: SessionChain) -> None:
        self.run = run
        self.chain = chain
        machine = chain.machine
        self.start = machine.start
        run._expand_unit_for(self.start)
        self.explored = -1
        self.explore(run.units(next(iter(run.start))))

    def explore(self, top: int) -> None:
        """Number every system state a session starting with at most ``top`` units can
        reach in the horizon, following the highest bankroll each can hold (a state whose
        stakes that cannot cover goes no further), and fill the chain rows: one chain
        state per system state."""
        run, chain = self.run, self.chain
        self.explored = top
        frontier = {run.chain_state(self.start, None, None, run.start_rule()): top}
        ruin_at = math.ceil(run.table_min / run.unit)
        for _ in range(chain.horizon):
            if not frontier:
                break
            try:
                run._expand(np.array(list(frontier), dtype=np.int64))
            except _NeedsShoes:
                raise NotBackward("the system changes at a new shoe") from None
            ruin_at = math.ceil(run.table_min / run.unit)
            nxt: dict[int, int] = {}
            for u, hi in frontier.items():
                hi = hi if hi >= 0 else 0
                if run.cs.stake[u] > hi:
                    continue
                for e in range(run.cs.t_off[u], run.cs.t_off[u] + run.cs.t_n[u]):
                    v = int(run.tr.target[e])
                    j = hi + int(run.tr.delta[e])
                    if v >= 0 and j >= ruin_at and j > nxt.get(v, -1):
                        nxt[v] = j
            frontier = nxt
        # the grid may have been refined while states were added: fill every row again
        run.cs.built[:] = False
        run.tr.size = 0
        run._expand(np.arange(len(run.keys), dtype=np.int64))
        self.n = len(run.keys)

    def reach(self, top: int, sessions: int, ruin_at: int) -> list[np.ndarray]:
        """The highest bankroll of every chain state before each coup, session after
        session (exploring further while a later session can start richer)."""
        start_u = self.run.index[(self.start, None, None, self.run.start_rule())]
        horizon = self.chain.horizon
        while True:
            cs, tr = self.run.cs, self.run.tr
            reach = []
            session_top = top
            for _ in range(sessions):
                out = np.empty((horizon + 1, self.n), np.int64)
                _reach_max(start_u, session_top, ruin_at, horizon, self.n, cs.stake,
                           cs.t_off, cs.t_n, tr.delta, tr.target, cs.end_reason, out)
                reach.append(out)
                session_top = max(int(out.max()), session_top)
            if session_top <= self.explored:
                break
            unit = self.run.unit
            self.explore(session_top)
            if self.run.unit != unit:  # the grid was refined: the caller starts over
                return []
        for out in reach:  # every state a session can hold has its row
            held = (out[:horizon] >= ruin_at).any(axis=0)
            if not cs.built[: self.n][held].all():  # pragma: no cover - a bug if so
                raise AssertionError("the backward pass reached a state it did not build")
        return reach

    def curve(self, up_to: Fraction, sessions: int,
              time_limit: float | None = DEFAULT_TIME_LIMIT) -> RiskCurve:
        run, chain = self.run, self.chain
        horizon = chain.horizon
        start_u = run.index[(self.start, None, None, run.start_rule())]
        hazard = np.zeros(horizon + 2)
        if chain.shoes is not None:
            h = hazards(session_lengths(chain.rules, chain.shoes))
            hazard[: min(h.size, hazard.size)] = h[: hazard.size]
        reach: list[np.ndarray] = []
        while not reach:
            unit = run.unit
            ruin_at = math.ceil(run.table_min / unit)
            top = math.floor(up_to / unit)
            reach = self.reach(top, sessions, ruin_at)
        cs, tr = run.cs, run.tr
        session_top = max(int(out.max()) for out in reach)
        session_top = max(session_top, top)
        cells = max(int(np.maximum(out - ruin_at + 1, 0).sum(axis=1).max()) for out in reach)
        if max(session_top + 1, cells) > chain.cell_limit:  # refused before it is allocated
            raise TooManyStates(
                f"over {sessions:,} sessions in a row the bankroll spans "
                f"{session_top + 1:,} amounts of {float(unit):g} ({cells:,} cells a coup), "
                f"more than {chain.cell_limit:,} cells")
        end_ruin = np.zeros(session_top + 1)
        end_either = np.zeros(session_top + 1)
        ruin_by: list[np.ndarray] = []
        either_by: list[np.ndarray] = []
        budget = Budget(time_limit, sessions * horizon, what="coups (sessions x coups)")
        done = 0
        for m in range(sessions - 1, -1, -1):
            out = reach[m]
            width = int(out.max()) + 1
            end_r = _fit(end_ruin, width)
            end_e = _fit(end_either, width)
            next_r, next_e, next_off = np.zeros(1), np.zeros(1), np.zeros(self.n, np.int64)
            for t in range(horizon - 1, -1, -1):
                his = out[t]
                counts = np.where(his >= ruin_at, his - ruin_at + 1, 0)
                budget.spend(done, int(counts.sum()))
                done += 1
                offs = np.cumsum(counts) - counts
                cur_r = np.zeros(int(counts.sum()))
                cur_e = np.zeros(int(counts.sum()))
                last = chain.coups is not None and t == horizon - 1 or (
                    chain.policy.max_coups is not None and t + 1 == chain.policy.max_coups)
                _back_step(his, out[t + 1], ruin_at, cs.stake, cs.t_off, cs.t_n, tr.delta,
                           tr.target, tr.prob, float(hazard[t + 1]), last, True, end_r,
                           end_e, next_r, next_e, next_off, cur_r, cur_e, offs.astype(np.int64),
                           cs.end_reason)
                next_r, next_e, next_off = cur_r, cur_e, offs.astype(np.int64)
            # the value of starting this session with bankroll b: the end value of the one
            # before it
            first = out[0, start_u]
            end_ruin = np.zeros(session_top + 1)
            end_either = np.zeros(session_top + 1)
            end_ruin[:ruin_at] = 1.0
            end_either[:ruin_at] = 1.0
            span = next_r[next_off[start_u]: next_off[start_u] + first - ruin_at + 1]
            end_ruin[ruin_at: first + 1] = span
            end_either[ruin_at: first + 1] = next_e[next_off[start_u]:
                                                    next_off[start_u] + first - ruin_at + 1]
            # the sessions are alike: what is left to play from here is the risk within
            # that many sessions, from every bankroll up to the one asked
            ruin_by.append(end_ruin[ruin_at: top + 1].copy())
            either_by.append(end_either[ruin_at: top + 1].copy())
        bankrolls = np.arange(ruin_at, top + 1)
        return RiskCurve(np.array([float(b * unit) for b in bankrolls.tolist()]),
                         ruin_by[-1], either_by[-1], unit, sessions, ruin_by, either_by)


def _fit(values: np.ndarray, width: int) -> np.ndarray:
    if values.size >= width:
        return values
    out = np.zeros(width)
    out[: values.size] = values
    return out


__all__ = ["NotBackward", "RiskCurve", "risk_curve"]
