"""Sessions whose bankroll left the money grid, followed exactly beside the chain.

Under ``--when-short reduce`` a session that cannot cover its stakes stakes what it has.
When that whole bankroll wins at a price that is a fraction (a Banker win pays 0.95),
the new bankroll need not be a whole number of the chain's ``unit`` (0.95 x 375.5 is not
a multiple of 0.5). The chain (:mod:`baccarat.risk.chain`) hands those sessions here, with
their mass; from then on they are kept as entries (chain state, bankroll, mass), the
bankroll an exact integer in units of ``unit / scale`` (``scale`` grows by the price's
denominator whenever a payout needs it: Python integers, which do not overflow however
many times a session wins reduced at 0.95), and stepped coup by coup with the same chain
states and edges, the same stop rules in the same order, in numpy over all entries at
once. They are few (one reduced win in a session is rare, two rarer), so a sparse form
costs little where a grid 20 times finer would cost everything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..session_play import (
    BUSTED,
    END,
    MAX_COUPS,
    RUIN,
    STOP_LOSS,
    STOP_REASONS,
    WIN_GOAL,
    unit_thresholds,
)
from .machine import TooManyStates

if TYPE_CHECKING:
    from .chain import _Run



def _ints(values: np.ndarray) -> np.ndarray:
    """``values`` as Python integers (an object array: exact at any size)."""
    return np.asarray(values).astype(object)


_NONE = np.zeros(0, dtype=object)
#: Most off-grid sessions (distinct state and bankroll) followed at once, by default
#: (``SessionChain(off_grid_limit=)``). Their number grows by about half a coup when
#: reduced stakes often win at a fractional price (each win opens a finer lattice of
#: bankrolls): past this, exact risk stops and says so.
OFF_GRID_LIMIT = 50_000


class OffGrid:
    """The off-grid sessions of one chain run (see the module docstring)."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.scale = 1
        self.u = np.zeros(0, np.int64)
        self.b = _NONE
        self.m = np.zeros(0)
        self.ends: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (reason, b, mass)
        self.carried: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._new: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    # -- money ------------------------------------------------------------------------
    def regrid(self, factor: int) -> None:
        """The chain's unit was divided by ``factor``: the same bankrolls, more units."""
        self.b = self.b * factor
        self.ends = [(r, b * factor, m) for r, b, m in self.ends]
        self.carried = [(u, b * factor, m) for u, b, m in self.carried]
        self._new = [(u, b * factor, m) for u, b, m in self._new]

    def _rescale(self, factor: int) -> None:
        self.scale *= factor
        self.regrid(factor)

    # -- what the chain hands over --------------------------------------------------------
    def spill(self, u: np.ndarray, e: np.ndarray, i: np.ndarray, q: np.ndarray, last: bool,
              end_hazard: float) -> None:
        """Mass ``q`` of chain state ``u`` with bankroll ``i`` (grid units) staked it all
        and took edge ``e`` off the grid: move it (the coup is already accounted)."""
        if u.size:
            self._move(u, e, _ints(i) * self.scale, q, last, end_hazard, reduced=True)

    # -- a coup -----------------------------------------------------------------------------
    def coup(self, last: bool, end_hazard: float) -> None:
        """Every off-grid entry plays one coup."""
        if not self.u.size:
            return
        run = self.run
        run._expand(np.unique(self.u))  # (a finer grid rescales the entries first)
        u, b, m = self.u, self.b, self.m
        self.u, self.b, self.m = np.zeros(0, np.int64), _NONE, np.zeros(0)
        self._new = []
        cs = run.cs
        end = cs.end_reason[u]
        ended = end >= 0
        self._absorb(end[ended], b[ended], m[ended])
        run._account_rows(u[ended], m[ended], np.zeros(int(ended.sum())),
                          np.zeros(int(ended.sum())), entered_only=True)
        u, b, m = u[~ended], b[~ended], m[~ended]
        stake = _ints(cs.stake[u]) * self.scale
        states, back = np.unique(u, return_inverse=True)
        floor = np.array([self._floor(int(x)) for x in states.tolist()] or [0],
                         dtype=object)[back] if u.size else _NONE
        short = (stake > b).astype(bool)
        busted = short & ((not run.reduce) | (b < floor).astype(bool))
        self._absorb(np.full(int(busted.sum()), BUSTED), b[busted], m[busted])
        run._account_rows(u[busted], m[busted], np.zeros(int(busted.sum())),
                          np.zeros(int(busted.sum())), entered_only=True)
        keep = ~busted
        u, b, m, short = u[keep], b[keep], m[keep], short[keep]
        # bankroll in grid units (a float: for the amounts staked only)
        money = np.array([x / self.scale for x in b.tolist()], dtype=np.float64)
        run._account_rows(u, m, np.where(short, m, 0.0), np.where(short, m * money, 0.0))
        # every entry takes every edge of its state
        counts = cs.t_n[u]
        rows = np.repeat(np.arange(u.size), counts)
        firsts = np.cumsum(counts) - counts
        edges = (cs.t_off[u][rows] + np.arange(rows.size) - firsts[rows]).astype(np.int64)
        self._move(u[rows], edges, b[rows], m[rows] * run.tr.prob[edges], last, end_hazard,
                   reduced=short[rows])
        self._merge()

    def _floor(self, u: int) -> int:
        """The smallest scaled bankroll a reduced stake of chain state ``u`` may have."""
        return math.ceil(self.run.floors[u] * self.scale)

    def _move(self, u: np.ndarray, e: np.ndarray, b: np.ndarray, q: np.ndarray, last: bool,
              end_hazard: float, reduced: np.ndarray | bool) -> None:
        run = self.run
        tr = run.tr
        reduced = np.broadcast_to(np.asarray(reduced), u.shape)
        num, den = tr.num[e], tr.den[e]
        # a reduced stake (the whole bankroll) nets b * num / den; make it whole
        num, den = _ints(num), _ints(den)
        need = reduced & ((b * num) % den != 0).astype(bool)
        while need.any():
            factor = 1
            for d in np.unique(den[need]).tolist():
                factor = factor * int(d) // math.gcd(factor, int(d))
            self._rescale(factor)
            b = b * factor
            need = reduced & ((b * num) % den != 0).astype(bool)
        j = np.where(reduced, b + (b * num) // den, b + _ints(tr.delta[e]) * self.scale)
        v = tr.target[e]
        ruin = math.ceil(run.table_min / run.unit * self.scale)
        code = np.full(u.size, -1, np.int64)
        code[(j < ruin).astype(bool)] = RUIN
        loss, goal = self._thresholds(u)
        if loss is not None:
            code[(code < 0) & (j <= loss).astype(bool)] = STOP_LOSS
        if goal is not None:
            code[(code < 0) & (j >= goal).astype(bool)] = WIN_GOAL
        if last:
            code[code < 0] = MAX_COUPS
        rule = (code < 0) & (v < -1)
        code[rule] = -2 - v[rule]
        code[(code < 0) & (v == -1)] = END
        done = code >= 0
        self._absorb(code[done], j[done], q[done])
        on = ~done
        if end_hazard > 0.0:
            self._absorb(np.full(int(on.sum()), END), j[on], q[on] * end_hazard)
        self._new.append((v[on], j[on], q[on] * (1.0 - end_hazard)))

    def _thresholds(self, u: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Per entry: stop loss at or below, win goal at or above (scaled units; None
        where the rule is not set)."""
        run = self.run
        if not run.relative:
            return None, None
        # per chain state (entries are many, their states few), then spread to the entries
        states, back = np.unique(u, return_inverse=True)
        pairs = [unit_thresholds(run.policy, run.keys[x][2], run.unit, self.scale)
                 for x in states.tolist()] or [(0, 0)]
        loss, goal = (None if pairs[0][k] is None else
                      np.array([pair[k] for pair in pairs], dtype=object)[back]
                      for k in (0, 1))
        return loss, goal

    def _absorb(self, reason: np.ndarray, b: np.ndarray, m: np.ndarray) -> None:
        if m.size:
            self.ends.append((reason.astype(np.int64), _ints(b), m))

    def _merge(self) -> None:
        """The new entries, those alike (state and bankroll) added together."""
        parts = [p for p in getattr(self, "_new", []) if p[0].size] + \
            ([(self.u, self.b, self.m)] if self.u.size else [])
        self._new = []
        if not parts:
            self.u, self.b, self.m = np.zeros(0, np.int64), _NONE, np.zeros(0)
            return
        u = np.concatenate([p[0] for p in parts]).astype(np.int64)
        b = np.concatenate([_ints(p[1]) for p in parts])
        m = np.concatenate([p[2] for p in parts])
        order = np.lexsort((b, u))
        u, b, m = u[order], b[order], m[order]
        first = np.r_[True, (u[1:] != u[:-1]) | (b[1:] != b[:-1])]
        starts = np.flatnonzero(first)
        self.u, self.b = u[starts], b[starts]
        self.m = np.add.reduceat(m, starts)
        limit = self.run.chain.off_grid_limit
        if self.u.size > limit:
            raise TooManyStates(
                f"under when_short=reduce, reduced stakes that win at a fractional price "
                f"(a Banker win pays 0.95 of the bankroll staked) take the bankroll off the "
                f"money grid in more than {limit:,} different ways at once",
                params=("when_short",))

    def begin(self) -> None:
        """Before the chain's coup: room for what it hands over."""
        self._new = []

    def finish(self) -> None:
        """After the chain's coup: what it handed over joins the entries."""
        self._merge()

    # -- shoes ----------------------------------------------------------------------------
    def carry(self, h: float) -> None:
        """A share ``h`` of every entry goes on to the next shoe (as a new shoe leaves its
        state); the rest stays in this one."""
        if not self.u.size or h <= 0:
            return
        run = self.run
        nxt = []
        for x in self.u.tolist():
            s, _, start, rule = run.keys[x]
            nxt.append(run.chain_state(run.machine.shoe(s), None, start, rule))
        self.carried.append((np.array(nxt, np.int64), self.b.copy(), self.m * h))
        self.m = self.m * (1.0 - h)

    def next_shoe(self) -> None:
        """The carried entries are the next shoe's."""
        self._new = list(self.carried)
        self.carried = []
        self.u, self.b, self.m = np.zeros(0, np.int64), _NONE, np.zeros(0)
        self._merge()

    def end_all(self) -> None:
        """What is left ran out of coups."""
        self._absorb(np.full(self.u.size, END), self.b, self.m)
        self.u, self.b, self.m = np.zeros(0, np.int64), _NONE, np.zeros(0)

    # -- the result -----------------------------------------------------------------------
    def endings(self) -> OffGridEnds:
        """The off-grid sessions' ends, added up by bankroll (reasons as rows)."""
        if not self.ends:
            return OffGridEnds(_NONE, np.zeros((len(STOP_REASONS), 0)), self.scale)
        reason = np.concatenate([r for r, _, _ in self.ends])
        b = np.concatenate([_ints(x) for _, x, _ in self.ends])
        m = np.concatenate([x for _, _, x in self.ends])
        order = np.lexsort((b,))
        b, reason, m = b[order], reason[order], m[order]
        first = np.r_[True, b[1:] != b[:-1]].astype(bool)
        group = np.cumsum(first) - 1
        by_reason = np.zeros((len(STOP_REASONS), int(first.sum())))
        np.add.at(by_reason, (reason, group), m)
        return OffGridEnds(b[first], by_reason, self.scale)


@dataclass
class OffGridEnds:
    """Where the off-grid sessions ended: bankrolls ``amount`` (Python integers, in units
    of the chain's unit / ``scale``) and ``by_reason[r, k]`` the probability of ending at
    ``amount[k]`` for reason r."""

    amount: np.ndarray
    by_reason: np.ndarray
    scale: int

    def __bool__(self) -> bool:
        return bool(self.amount.size)


__all__ = ["OffGrid", "OffGridEnds"]
