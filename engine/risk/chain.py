"""The session as a Markov chain over (the system's state, the bankroll), coup by coup.

Money lives on a grid: every amount a session can hold is a whole number of the
``unit``, the largest amount that divides the bankroll, every stake and every payout
(a 5% commission Banker stake of 10 wins 9.5, so the unit is 0.5). The chain keeps, per
state and per bankroll on that grid, the probability of being there before the next
coup: no amount is ever rounded, and each probability is a sum of products of the exact
class probabilities in float64.

A chain state is the system's state (:class:`baccarat.risk.machine.Machine`), and where
the rules need them, the shoe's phase (shoes finished, coups into the current one) and
the session's starting bankroll (for a stop loss or win goal over several sessions).
Each holds its mass over a window of bankrolls; the windows of one coup lie end to end in
one buffer, so a system with many states (a Labouchere line) costs what its sessions
reach, not states x every bankroll.

One coup (:func:`_reach` then :func:`_scatter`, compiled) moves every mass by each class
of coup, in the order the replay applies its rules (``baccarat.replay``): the stakes, cut to
the table maximum; the bankroll must cover them (else the session ends busted and the coup
is not played, or under ``when_short="reduce"`` the stakes are scaled to the bankroll);
the payout; then ruin (below the table minimum), the stop loss, the win goal, the most
coups. A session also ends when its coups run out (its shoes end): the chance of that
after each coup is the hazard of the session's length (:mod:`baccarat.risk.shoes`),
independent of the play. A system whose state changes when a new shoe opens (a pattern
forgetting the scoreboard) needs to know where the shoes end, so its chain keeps the
shoe's phase in the state and the shoe's own hazard in the transitions.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..bets import BET_KINDS, KIND_INDEX
from ..coups import OUTCOME_LABELS
from ..jit import njit
from ..replay import SHOE_RULES, SessionPolicy, config_policy
from ..rules import TableRules
from ..session_play import (
    BUSTED,
    END,
    LOSSES_IN_ROW,
    MAX_COUPS,
    RUIN,
    STOP_LOSS,
    STOP_REASONS,
    TRAILING_STOP,
    WIN_GOAL,
    unit_thresholds,
)
from .coups import class_tallies, exact, exact_payouts
from .limits import DEFAULT_CELL_LIMIT, DEFAULT_STATE_LIMIT, DEFAULT_TIME_LIMIT
from .machine import Machine, RiskError, TooManyStates, result_of
from .offgrid import OFF_GRID_LIMIT, OffGrid, OffGridEnds
from .shoes import fewest_coups, hazards, session_lengths, shoe_lengths

N_REASONS = len(STOP_REASONS)
_NEVER_LOW = -(2**62)
_NEVER_HIGH = 2**62


class Budget:
    """How long the chain may take (``limit`` seconds), projected as it goes.

    A chain's coups do not cost the same: without a win goal the bankroll's window widens
    with every coup, so a coup late in a long session costs about that many times one
    early. Every ``EVERY`` coups once a second has passed, the time left is projected
    from the last coups' cost (widening as it has been: linearly in the coups), and a
    projection past ``limit`` stops the chain at once with ``TooManyStates``, naming the
    time it would take and the flag that sets the limit: a session of 100,000 coups is
    refused in a second or two, not after many minutes.
    """

    EVERY = 32

    def __init__(self, limit: float | None, total_coups: int, every: int = EVERY,
                 what: str = "coups") -> None:
        self.limit, self.total = limit, max(total_coups, 1)
        self.every, self.what = every, what
        self.started = time.perf_counter()
        self.mark: tuple[int, float, int] | None = None  # (coups done, when, cells then)

    def spend(self, done: int, cells: int) -> None:
        if self.limit is None or done % self.every or not done:
            return
        now = time.perf_counter()
        elapsed = now - self.started
        if self.mark is None:  # the first coups load the kernels: measured from here
            self.mark = (done, now, cells)
            return
        last_done, last_time, last_cells = self.mark
        self.mark = (done, now, cells)
        if elapsed < 1.0:
            return
        per_coup = (now - last_time) / (done - last_done)
        left = self.total - done
        widening = cells > last_cells
        # per-coup cost growing as the coups (k / done at coup k): the mean over what is left
        growth = (self.total + done) / (2 * done) if widening else 1.0
        projected = elapsed + per_coup * left * growth
        if projected > self.limit:
            raise TooManyStates(
                f"the exact chain would take about {_duration(projected)} for "
                f"{self.total:,} {self.what}, more than time_limit {self.limit:g} s",
                params=("time_limit",))


def _duration(seconds: float) -> str:
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:,.0f} hours"
    return f"{seconds / 60:,.0f} minutes" if seconds >= 120 else f"{seconds:,.0f} s"


def fraction_gcd(a: Fraction, b: Fraction) -> Fraction:
    """The largest amount of which both ``a`` and ``b`` are whole multiples."""
    if a == 0:
        return abs(b)
    if b == 0:
        return abs(a)
    den = a.denominator * b.denominator // math.gcd(a.denominator, b.denominator)
    return Fraction(math.gcd(int(a * den), int(b * den)), den)


@dataclass
class ClassPartition:
    """The classes of coup that the configuration cannot tell apart, merged.

    Two classes are one for the chain when they have the same outcome letter (the system
    learns it) and pay the same on every bet kind the system stakes.
    """

    probs: np.ndarray                     # (C,) float64
    letters: list[str]                    # outcome letter of each class
    payouts: list[dict[str, Fraction]]    # net per unit staked, by kind, per class


def partition(rules: TableRules, kinds: list[str]) -> ClassPartition:
    """The merged classes of a full shoe under ``rules`` for stakes on ``kinds``."""
    coups = class_tallies(rules.decks)
    pays = exact_payouts(rules, coups)
    groups: dict[tuple[Any, ...], int] = {}
    tallies: list[int] = []
    letters: list[str] = []
    payouts: list[dict[str, Fraction]] = []
    for k in range(coups.classes.size):
        letter = OUTCOME_LABELS[int(coups.outcome[k])]
        key = (letter, *(pays[k][kind] for kind in kinds))
        g = groups.get(key)
        if g is None:
            g = groups[key] = len(tallies)
            tallies.append(0)
            letters.append(letter)
            payouts.append({kind: pays[k][kind] for kind in kinds})
        tallies[g] += int(coups.tallies[k].sum())
    probs = np.array([t / coups.total for t in tallies])  # integers below 2**53: one rounding
    return ClassPartition(probs, letters, payouts)


@dataclass
class ChainResult:
    """What one session's chain gives, all probabilities over the start distribution."""

    unit: Fraction
    final: np.ndarray           # (N_REASONS, W): P(ends for that reason with bankroll i units)
    coups: float                # E[coups played]
    wagered: dict[str, float]   # E[amount staked] per kind
    limit_hits: float           # E[stakes cut to the table maximum]
    states: int                 # states of the system reached
    cells: int                  # most (state, bankroll) cells held at once
    shoes_followed: str         # how the chain followed the shoes (PLAIN, BY_SHOE, PHASES)
    #: sessions whose bankroll left the grid (``--when-short reduce``)
    off_grid: OffGridEnds | None = None

    def amounts(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Every final bankroll, on the grid and off it, as (Python integers in units of
        ``unit / scale``, ascending; the probability of each by stop reason (rows);
        ``scale``)."""
        held = np.flatnonzero(self.final.any(axis=0))
        if not self.off_grid:
            return held.astype(object), self.final[:, held], 1
        scale = self.off_grid.scale
        amount = np.concatenate([held.astype(object) * scale, self.off_grid.amount])
        rows = np.concatenate([self.final[:, held], self.off_grid.by_reason], axis=1)
        order = np.lexsort((amount,))
        amount, rows = amount[order], rows[:, order]
        first = np.r_[True, amount[1:] != amount[:-1]].astype(bool)
        group = np.cumsum(first) - 1
        merged = np.zeros((int(first.sum()), rows.shape[0]))
        np.add.at(merged, group, rows.T)
        merged = merged.T
        return amount[first], merged, scale

    def endings(self) -> dict[Fraction, np.ndarray]:
        """Every final bankroll (exact) -> its probability by stop reason."""
        amount, rows, scale = self.amounts()
        return {Fraction(int(a), scale) * self.unit: rows[:, k]
                for k, a in enumerate(amount.tolist())}

    def total(self, reason: int) -> float:
        """P(the session ends for ``reason``)."""
        extra = math.fsum(self.off_grid.by_reason[reason]) if self.off_grid else 0.0
        return math.fsum(self.final[reason]) + extra


@njit(cache=True)
def _reduced_target(i, num, den):  # pragma: no cover - compiled
    """Where bankroll ``i`` goes when it is staked whole and the coup nets ``num / den``
    per unit staked: (j, on the grid)."""
    n = i * num
    if n % den != 0:
        return i, False
    return i + n // den, True


@njit(cache=True)
def _reach(live, off, lo, cnt, buf, stake, rfloor, loss_at, goal_at, t_off, t_n, t_delta,
           t_num, t_den, t_target, ruin_at, last, reduce, tlo, thi):  # pragma: no cover
    # (a state that ends the session before the coup has no edges: nothing to reach)
    """Pass 1 of a coup: the window of bankrolls each target state can receive (``tlo``,
    ``thi``, which must come in as big / -1), and the highest bankroll any mass reaches.

    The bankrolls that cover the stakes move by a fixed amount per class, so their
    targets are ranges found from the window's ends; only reduced stakes go cell by cell.
    """
    top = -1
    for a_ in range(live.shape[0]):
        u = live[a_]
        a = lo[u]
        b = a + cnt[u] - 1
        x = stake[u]
        fa = max(a, x)
        for e in range(t_off[u], t_off[u] + t_n[u]):
            v = t_target[e]
            if fa <= b:
                ja = fa + t_delta[e]
                jb = b + t_delta[e]
                if jb > top:
                    top = jb
                if v >= 0 and not last:
                    ca = max(ja, ruin_at, loss_at[u] + 1)
                    cb = min(jb, goal_at[u] - 1)
                    if ca <= cb:
                        if ca < tlo[v]:
                            tlo[v] = ca
                        if cb > thi[v]:
                            thi[v] = cb
            if reduce:
                for i in range(max(a, rfloor[u]), min(b, x - 1) + 1):
                    if buf[off[u] + i - a] == 0.0:
                        continue
                    j, ok = _reduced_target(i, t_num[e], t_den[e])
                    if not ok:
                        continue
                    if j > top:
                        top = j
                    if v < 0 or last or j < ruin_at or j <= loss_at[u] or j >= goal_at[u]:
                        continue
                    if j < tlo[v]:
                        tlo[v] = j
                    if j > thi[v]:
                        thi[v] = j
    return top


@njit(cache=True, inline="always")
def _kadd(final, reason, j, q):  # pragma: no cover - compiled
    """``final[reason, j] += q``, compensated (Kahan): a cell that ends up holding most of
    the mass (the ruined bankrolls) takes thousands of tiny additions a coup, each of
    which plain float addition would round against the large total."""
    total = final[0, reason, j]
    y = q - final[1, reason, j]
    t = total + y
    final[1, reason, j] = (t - total) - y
    final[0, reason, j] = t


@njit(cache=True)
def _ended(src, first, n, p, final, reason, j0):  # pragma: no cover - compiled
    """``final[reason, j0 + k] += p * src[first + k]`` for k < n."""
    for k in range(n):
        _kadd(final, reason, j0 + k, p * src[first + k])


@njit(cache=True)
def _scatter(live, off, lo, cnt, buf, stake, rfloor, loss_at, goal_at, t_off, t_n, t_delta,
             t_num, t_den, t_target, t_prob, ruin_at, last, reduce, end_hazard, new_off,
             new_lo, new_buf, final, played, reduced_mass, reduced_money, entered,
             end_reason, sp_u, sp_e, sp_i, sp_q):  # pragma: no cover - compiled
    """Pass 2 of a coup: move every mass (see the module docstring). Returns the mass
    that went off the grid (the caller refuses it).

    A window's bankrolls that cover the stakes all move by the same amount per class of
    coup, so each class moves contiguous runs of them at once (one run per outcome:
    ruined, stopped at the loss, at the goal, at the most coups, or on to the next coup);
    the bankrolls below the stakes bust, or under ``reduce`` go one at a time. A state that
    ends the session before the coup (``end_reason``: the strategy's end, a stake below
    the minimum under ``below_min="stop"``) ends it there; an edge whose target is -2 - r
    ends the session for reason r after the coup (a trailing stop, losses in a row). A
    reduced stake whose payout is not a whole number of units is written to the ``sp_``
    arrays (state, edge, bankroll, mass) for the off-grid entries; returns how many.
    """
    spilled = 0
    stay = 1.0 - end_hazard
    for a_ in range(live.shape[0]):
        u = live[a_]
        base = off[u]
        a = lo[u]
        b = a + cnt[u] - 1
        x = stake[u]
        if end_reason[u] >= 0:
            for i in range(a, b + 1):
                m = buf[base + i - a]
                entered[u] += m
                _kadd(final, end_reason[u], i, m)
            continue
        # below the stakes: busted (the coup is not played), or reduced
        short_hi = min(b, x - 1)
        bust_hi = min(short_hi, rfloor[u] - 1) if reduce else short_hi
        for i in range(a, bust_hi + 1):
            m = buf[base + i - a]
            entered[u] += m
            _kadd(final, BUSTED, i, m)
        if reduce:
            for i in range(max(a, bust_hi + 1), short_hi + 1):
                m = buf[base + i - a]
                if m == 0.0:
                    continue
                entered[u] += m
                played[u] += m
                reduced_mass[u] += m
                reduced_money[u] += m * i
                for e in range(t_off[u], t_off[u] + t_n[u]):
                    q = m * t_prob[e]
                    j, ok = _reduced_target(i, t_num[e], t_den[e])
                    if not ok:
                        sp_u[spilled] = u
                        sp_e[spilled] = e
                        sp_i[spilled] = i
                        sp_q[spilled] = q
                        spilled += 1
                        continue
                    v = t_target[e]
                    if j < ruin_at:
                        _kadd(final, RUIN, j, q)
                    elif j <= loss_at[u]:
                        _kadd(final, STOP_LOSS, j, q)
                    elif j >= goal_at[u]:
                        _kadd(final, WIN_GOAL, j, q)
                    elif last:
                        _kadd(final, MAX_COUPS, j, q)
                    elif v < -1:
                        _kadd(final, -2 - v, j, q)
                    elif v < 0:
                        _kadd(final, END, j, q)
                    else:
                        if end_hazard > 0.0:
                            _kadd(final, END, j, q * end_hazard)
                            q = q * stay
                        new_buf[new_off[v] + j - new_lo[v]] += q
        fa = max(a, x)
        if fa > b:
            continue
        total = 0.0
        for i in range(fa, b + 1):
            total += buf[base + i - a]
        entered[u] += total
        played[u] += total
        for e in range(t_off[u], t_off[u] + t_n[u]):
            d = t_delta[e]
            p = t_prob[e]
            v = t_target[e]
            # i ranges by where j = i + d lands, in order: ruin, stop loss, go on, goal
            ruin_end = min(b, ruin_at - d - 1)
            if ruin_end >= fa:
                _ended(buf, base + fa - a, ruin_end - fa + 1, p, final, RUIN, fa + d)
            start = max(fa, ruin_end + 1)
            loss_end = min(b, loss_at[u] - d)
            if loss_end >= start:
                _ended(buf, base + start - a, loss_end - start + 1, p, final, STOP_LOSS,
                       start + d)
                start = loss_end + 1
            goal_start = max(start, goal_at[u] - d)
            if goal_start <= b:
                _ended(buf, base + goal_start - a, b - goal_start + 1, p, final, WIN_GOAL,
                       goal_start + d)
            stop = min(b, goal_start - 1)
            if stop < start:
                continue
            n = stop - start + 1
            if last:
                _ended(buf, base + start - a, n, p, final, MAX_COUPS, start + d)
            elif v < -1:
                _ended(buf, base + start - a, n, p, final, -2 - v, start + d)
            elif v < 0:
                _ended(buf, base + start - a, n, p, final, END, start + d)
            else:
                if end_hazard > 0.0:
                    _ended(buf, base + start - a, n, p * end_hazard, final, END, start + d)
                    p = p * stay
                src = base + start - a
                dst = new_off[v] + start + d - new_lo[v]
                for k in range(n):
                    new_buf[dst + k] += p * buf[src + k]
    return spilled


@dataclass(frozen=True)
class Phase:
    """Where a session stands in its shoes: shoes finished, coups into the current one."""

    shoes: int
    age: int


class SessionChain:
    """One configuration's session under ``rules`` and ``policy``, ready to be played.

    ``coups``: the session is that many coups (over as many shoes as it takes, ending
    with stop reason ``max_coups``, as a backtest with ``max_coups`` does); otherwise
    ``policy.session_shoes`` shoes (and ``policy.max_coups`` if set).
    """

    def __init__(self, strategy: Any, rules: TableRules, policy: SessionPolicy,
                 coups: int | None = None, state_limit: int = DEFAULT_STATE_LIMIT,
                 cell_limit: int = DEFAULT_CELL_LIMIT,
                 off_grid_limit: int = OFF_GRID_LIMIT,
                 time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        if coups is not None and coups < 1:
            raise RiskError(f"a session of {coups} coups: expected at least 1")
        self.rules = rules
        # the configuration's own session rules (a `stop:` part) on the run's
        self.policy = policy = config_policy(strategy, policy)
        shoe_rules = [f for f in SHOE_RULES if getattr(policy, f) is not None]
        if shoe_rules:
            raise RiskError(f"the per-shoe stop rules ({', '.join(shoe_rules)}: sitting out "
                            f"the rest of a shoe) are not followed by exact risk")
        if policy.trailing_stop is not None and policy.when_short == "reduce":
            raise RiskError("a trailing_stop with when_short=reduce is not followed by "
                            "exact risk", params=("trailing_stop", "when_short"))
        if policy.chip is not None and policy.when_short == "reduce":
            raise RiskError("chip with when_short=reduce is not followed by exact risk "
                            "(a stake cut to what is left is rounded down to whole chips)",
                            params=("chip", "when_short"))
        self.coups = coups
        self.cell_limit = cell_limit
        self.time_limit = time_limit
        self.off_grid_limit = min(off_grid_limit, cell_limit)
        self.machine = Machine(strategy, rules, policy, limit=state_limit)
        self.bankroll = exact(policy.bankroll)
        if self.bankroll < exact(rules.table_min):
            raise RiskError(f"bankroll {policy.bankroll:g} is below the table minimum "
                            f"{rules.table_min:g}")
        self.shoes = None if coups is not None else policy.session_shoes
        self.horizon = self._horizon()
        #: Whether a new shoe can open during a session (else no system needs the shoes).
        self.new_shoes = (policy.session_shoes > 1 if coups is None
                          else coups > fewest_coups(rules))

    def _horizon(self) -> int:
        """The most coups a session can hold."""
        if self.coups is not None:
            return self.coups
        most = session_lengths(self.rules, self.policy.session_shoes).size - 1
        if self.policy.max_coups is not None:
            most = min(most, self.policy.max_coups)
        return most

    def run(self, start: dict[Fraction, float] | None = None) -> ChainResult:
        """Play the session from ``start`` (bankroll -> probability; default: the policy's
        bankroll with certainty). Follows the shoes' ends only if the system needs it."""
        start = start or {self.bankroll: 1.0}
        try:
            return _Run(self, start, PLAIN).play()
        except _NeedsShoes:
            by_shoe = self.shoes is not None and self.policy.max_coups is None
            return _Run(self, start, BY_SHOE if by_shoe else PHASES).play()


#: How a run follows the shoes: not at all (the system ignores them; a session's end is
#: the hazard of its length), shoe by shoe (each shoe from where the last left the mass:
#: a shoe's play does not depend on when it began), or by the shoe's phase in the state
#: (when the session's end depends on the coups played: ``--coups``, ``max_coups``).
PLAIN, BY_SHOE, PHASES = "plain", "by shoe", "phases"


class _NeedsShoes(Exception):
    """The system turned out to change at a new shoe: the chain must follow the shoes."""


class _Grow:
    """Arrays indexed by chain state (or edge) that grow as states appear."""

    _fields: dict[str, tuple[Any, Any]] = {}

    def __init__(self) -> None:
        self.size = 0
        for name, (dtype, fill) in self._fields.items():
            setattr(self, name, np.full(64, fill, dtype=dtype))

    def ensure(self, n: int) -> None:
        """Room for ``n`` entries."""
        capacity = getattr(self, next(iter(self._fields))).shape[0]
        if n <= capacity:
            return
        new = max(n, 2 * capacity)
        for name, (dtype, fill) in self._fields.items():
            old = getattr(self, name)
            grown = np.full(new, fill, dtype=dtype)
            grown[: old.shape[0]] = old
            setattr(self, name, grown)


class _States(_Grow):
    """Per chain state: its system state, its stakes (units), reduced-stake floor, stop
    thresholds, its edges, limit hits, and whether the row is filled."""

    _fields = {"state": (np.int64, 0), "stake": (np.int64, 0), "rfloor": (np.int64, 0),
               "loss_at": (np.int64, _NEVER_LOW), "goal_at": (np.int64, _NEVER_HIGH),
               "t_off": (np.int64, 0), "t_n": (np.int64, 0), "built": (np.bool_, False),
               "hits": (np.float64, 0.0), "end_reason": (np.int64, -1)}
    state: np.ndarray
    stake: np.ndarray
    rfloor: np.ndarray
    loss_at: np.ndarray
    goal_at: np.ndarray
    t_off: np.ndarray
    t_n: np.ndarray
    built: np.ndarray
    hits: np.ndarray
    end_reason: np.ndarray


class _Edges(_Grow):
    """Per edge (a chain state's move by one class of coup): the bankroll change in units,
    the net per unit staked as a fraction (for reduced stakes), the target chain state
    (-1: the shoes ran out) and the probability."""

    _fields = {"delta": (np.int64, 0), "num": (np.int64, 0), "den": (np.int64, 1),
               "target": (np.int64, -1), "prob": (np.float64, 0.0)}
    delta: np.ndarray
    num: np.ndarray
    den: np.ndarray
    target: np.ndarray
    prob: np.ndarray


class _Run:
    """One pass of the chain (see :class:`SessionChain`)."""

    def __init__(self, chain: SessionChain, start: dict[Fraction, float], mode: str) -> None:
        self.chain = chain
        self.machine = chain.machine
        self.rules = chain.rules
        self.policy = chain.policy
        self.mode = mode
        self.shoe_phases = mode == PHASES
        self.start = start
        self.reduce = chain.policy.when_short == "reduce"
        self.table_min = exact(self.rules.table_min)
        #: per chain state, the smallest bankroll (grid units, exact) a reduced stake may be
        self.floors: dict[int, Fraction] = {}
        self._money_cache: dict[Any, tuple[Any, ...]] = {}
        self._amounts_cache: dict[Any, list[Fraction]] = {}
        self.kinds: list[str] = []
        self.classes = partition(self.rules, self.kinds)
        unit = Fraction(0)
        for amount in start:
            unit = fraction_gcd(unit, amount)
        self.unit = unit
        self.relative = self.policy.stop_loss is not None or self.policy.win_goal is not None
        self.shoe_hazard = hazards(shoe_lengths(self.rules)) if self.shoe_phases else None
        # chain states: (machine state, phase or None, start in units or None, the stop
        # rules' counts or None)
        self.keys: list[tuple[int, Phase | None, int | None, tuple[int, int] | None]] = []
        self.index: dict[tuple[Any, ...], int] = {}
        self.cs = _States()
        # per chain state and bet kind: the stake, and its share of all the stakes
        self.kind_stake = np.zeros((64, len(BET_KINDS)))
        self.kind_share = np.zeros((64, len(BET_KINDS)))
        self.tr = _Edges()
        # the end of every session, by reason and bankroll: sums, and their compensations
        self.final = np.zeros((2, N_REASONS, 64))
        # the mass: per chain state a window of bankrolls, end to end in one buffer
        self.off = np.zeros(64, np.int64)
        self.lo = np.zeros(64, np.int64)
        self.cnt = np.zeros(64, np.int64)
        self.buf = np.zeros(0)
        self.coups_played = 0.0
        self.wagered = np.zeros(len(BET_KINDS))
        self.hits = 0.0
        self.most_cells = 0
        self.offgrid = OffGrid(self)

    # -- money --------------------------------------------------------------------------
    def units(self, amount: Fraction) -> int:
        value = amount / self.unit
        if value.denominator != 1:  # pragma: no cover - the grid divides every amount
            raise AssertionError(f"{amount} is not a multiple of the unit {self.unit}")
        return int(value)

    def _amounts(self, s: int) -> list[Fraction]:
        """Every amount machine state ``s`` can stake or win, under the current classes."""
        row = self.machine.rows[s]
        key = tuple(sorted(row.stakes.items()))
        out = self._amounts_cache.get(key)
        if out is None:
            out = list(row.stakes.values())
            for pays in self.classes.payouts:
                out.append(sum((row.stakes.get(k, Fraction(0)) * pays[k] for k in self.kinds),
                               Fraction(0)))
            self._amounts_cache[key] = out
        return out

    def _regrid(self, unit: Fraction) -> None:
        """Refine the grid to ``unit`` (dividing the current one): bankroll i becomes i f."""
        f = self.unit / unit
        assert f.denominator == 1
        factor = int(f)
        self.unit = unit
        if factor == 1:
            return
        self.offgrid.regrid(factor)
        self.final = _stretch(self.final, factor)
        n = len(self.keys)
        buf = []
        off = 0
        new_off = np.zeros_like(self.off)
        new_cnt = np.zeros_like(self.cnt)
        for u in range(n):
            c = int(self.cnt[u])
            if c == 0:
                continue
            window = _stretch(self.buf[self.off[u]: self.off[u] + c][None, :], factor)[0]
            buf.append(window)
            new_off[u] = off
            new_cnt[u] = window.size
            off += window.size
        self.buf = np.concatenate(buf) if buf else np.zeros(0)
        self.off, self.cnt = new_off, new_cnt
        self.lo = self.lo * factor
        self.keys = [(s, ph, None if st is None else st * factor,
                      None if rule is None else (rule[0], rule[1] * factor))
                     for s, ph, st, rule in self.keys]
        self.index = {key: u for u, key in enumerate(self.keys)}
        self.cs.built[:] = False

    # -- chain states ---------------------------------------------------------------------
    def chain_state(self, s: int, phase: Phase | None, start: int | None,
                    rule: tuple[int, int] | None = None) -> int:
        """The number of the chain state (system state, shoe phase, session start, and the
        stop rules' counts: losing bets in a row, units below the highest bankroll)."""
        key = (s, phase, start, rule)
        u = self.index.get(key)
        if u is None:
            u = self.index[key] = len(self.keys)
            self.keys.append(key)
            self.cs.ensure(u + 1)
            for name in ("off", "lo", "cnt"):
                arr = getattr(self, name)
                if arr.shape[0] <= u:
                    grown = np.zeros(max(u + 1, 2 * arr.shape[0]), np.int64)
                    grown[: arr.shape[0]] = arr
                    setattr(self, name, grown)
        return u

    def _expand(self, live: np.ndarray) -> None:
        """Fill the rows of the chain states in ``live`` (reclassify and regrid if the
        system's stakes ask for it)."""
        todo = [int(u) for u in live if not self.cs.built[u]]
        if not todo:
            return
        machine = self.machine
        for u in todo:
            s = self.keys[u][0]
            if self.mode == PLAIN and self.chain.new_shoes and machine.shoe(s) != s:
                raise _NeedsShoes
        rebuild = False
        if machine.kinds != self.kinds:
            self.kinds = list(machine.kinds)
            self.classes = partition(self.rules, self.kinds)
            self._amounts_cache.clear()
            rebuild = True
        unit = self.unit
        for u in todo:
            for amount in self._amounts(self.keys[u][0]):
                unit = fraction_gcd(unit, amount)
        if unit != self.unit:
            self._regrid(unit)
            rebuild = True
        if rebuild:  # every row with mass is refilled under the new classes or grid
            self._money_cache.clear()
            self.cs.built[:] = False
            self.tr.size = 0
            todo = sorted(set(todo) | {int(u) for u in np.flatnonzero(self.cnt[:len(self.keys)])})
        for u in todo:
            self._fill(u)

    def _money(self, row: Any) -> tuple[Any, ...]:
        """What a state's stakes mean on the current grid and classes (cached by stakes:
        many states stake alike): total in units, the stake and share of each kind, the
        reduced-stake floor, and per class (units won, net per unit staked, result)."""
        key = tuple(sorted(row.stakes.items()))
        found = self._money_cache.get(key)
        if found is not None:
            return found
        total = row.total
        kind_stake = np.zeros(len(BET_KINDS))
        kind_share = np.zeros(len(BET_KINDS))
        floor = Fraction(0)
        for kind, stake in row.stakes.items():
            kind_stake[KIND_INDEX[kind]] = float(stake)
            kind_share[KIND_INDEX[kind]] = float(stake / total)
            # reduced, each stake must stay at or above the table minimum
            floor = max(floor, self.table_min * total / stake)
        per_class = []
        for pays in self.classes.payouts:
            net = sum((row.stakes.get(k, Fraction(0)) * pays[k] for k in self.kinds),
                      Fraction(0))
            per_unit = net / total if total else Fraction(0)
            per_class.append((self.units(net), per_unit.numerator, per_unit.denominator,
                              result_of(net, total)))
        found = (self.units(total), kind_stake, kind_share,
                 math.ceil(floor / self.unit) if total else 0, per_class,
                 floor / self.unit if total else Fraction(0))
        self._money_cache[key] = found
        return found

    def _fill(self, u: int) -> None:
        s, phase, start, rule = self.keys[u]
        machine = self.machine
        row = machine.rows[s]
        cs = self.cs
        units, kind_stake, kind_share, rfloor, per_class, floor = self._money(row)
        self.floors[u] = floor
        cs.state[u] = s
        cs.stake[u] = units
        cs.hits[u] = row.limit_hits
        self._kind_rows(u + 1)
        self.kind_stake[u] = kind_stake
        self.kind_share[u] = kind_share
        cs.rfloor[u] = rfloor
        cs.loss_at[u], cs.goal_at[u] = (self._thresholds(start) if start is not None
                                        else (_NEVER_LOW, _NEVER_HIGH))
        cs.end_reason[u] = STOP_REASONS.index(row.ends) if row.ends else -1
        edges = []
        for c, (delta, num, den, result) in enumerate(per_class):
            if row.ends:
                break  # the session ends before this coup
            nxt = machine.move(s, self.classes.letters[c], result)
            p = float(self.classes.probs[c])
            after, stop = self._rules_after(rule, delta, result)
            if stop >= 0:  # a trailing stop or losses in a row end the session here
                edges.append((delta, num, den, -2 - stop, p))
                continue
            for target, weight in self._successors(nxt, phase, start, after):
                edges.append((delta, num, den, target, p * weight))
        tr = self.tr
        tr.ensure(tr.size + len(edges))
        cs.t_off[u] = tr.size
        cs.t_n[u] = len(edges)
        for k, (delta, num, den, target, p) in enumerate(edges):
            e = tr.size + k
            tr.delta[e] = delta
            tr.num[e] = num
            tr.den[e] = den
            tr.target[e] = target
            tr.prob[e] = p
        tr.size += len(edges)
        cs.built[u] = True

    def start_rule(self) -> tuple[int, int] | None:
        """The stop rules' counts at a session's start (None: no such rule)."""
        if self.policy.trailing_stop is None and self.policy.losses_in_row is None:
            return None
        return (0, 0)

    def _rules_after(self, rule: tuple[int, int] | None, delta: int,
                     result: str) -> tuple[tuple[int, int] | None, int]:
        """The counts after a coup that moves the bankroll by ``delta`` units with
        ``result``, and the stop reason they call for (-1: none), in the replay's order
        (after ruin, the stop loss, the win goal and the most coups): the trailing stop
        (the bankroll at least ``trailing_stop`` below its highest), then losses in a row
        (a push or a coup without a stake neither counts nor breaks the run)."""
        if rule is None:
            return None, -1
        losses, below_peak = rule
        if result == "lost":
            losses += 1
        elif result == "won":
            losses = 0
        below_peak = max(below_peak - delta, 0)
        policy = self.policy
        if policy.trailing_stop is not None and \
                below_peak * self.unit >= exact(policy.trailing_stop):
            return None, TRAILING_STOP
        if policy.losses_in_row is not None and losses >= policy.losses_in_row:
            return None, LOSSES_IN_ROW
        if policy.losses_in_row is None:
            losses = 0  # not counted: states differing only there are one
        if policy.trailing_stop is None:
            below_peak = 0
        return (losses, below_peak), -1

    def _successors(self, nxt: int, phase: Phase | None, start: int | None,
                    rule: tuple[int, int] | None = None) -> list[tuple[int, float]]:
        """The chain states after a coup that leaves the system in state ``nxt`` (and the
        stop rules' counts ``rule``), with their weights (-1: the session's shoes ran
        out)."""
        if phase is None:
            return [(self.chain_state(nxt, None, start, rule), 1.0)]
        assert self.shoe_hazard is not None
        age = phase.age + 1
        h = float(self.shoe_hazard[age]) if age < self.shoe_hazard.size else 1.0
        out = []
        if h < 1.0:
            out.append((self.chain_state(nxt, Phase(phase.shoes, age), start, rule),
                        1.0 - h))
        if h > 0.0:
            shoes = phase.shoes + 1
            if self.chain.shoes is not None and shoes >= self.chain.shoes:
                out.append((-1, h))
            else:
                counted = shoes if self.chain.shoes is not None else 0
                out.append((self.chain_state(self.machine.shoe(nxt), Phase(counted, 0),
                                             start, rule), h))
        return out

    def _thresholds(self, start: int) -> tuple[int, int]:
        """(stop loss at or below, win goal at or above), in bankroll units."""
        loss_at, goal_at = unit_thresholds(self.policy, start, self.unit)
        return (_NEVER_LOW if loss_at is None else loss_at,
                _NEVER_HIGH if goal_at is None else goal_at)

    # -- the play -----------------------------------------------------------------------
    def play(self) -> ChainResult:
        machine = self.machine
        first = machine.start
        self._expand_unit_for(first)
        phase = Phase(0, 0) if self.shoe_phases else None
        windows: dict[int, dict[int, float]] = {}
        for amount, p in self.start.items():
            i = self.units(amount)
            u = self.chain_state(first, phase, i if self.relative else None,
                                 self.start_rule())
            windows.setdefault(u, {})[i] = windows.get(u, {}).get(i, 0.0) + p
        self._widen(max((i for cells in windows.values() for i in cells), default=0) + 1)
        self._load({u: _window(cells) for u, cells in windows.items()})
        if self.mode == BY_SHOE:
            self._play_by_shoe()
        else:
            self._play_coups()
        return self._result()

    def _play_coups(self) -> None:
        """Coup after coup to the end of the session."""
        horizon = self.chain.horizon
        end_hazard = None
        if not self.shoe_phases and self.chain.shoes is not None:
            end_hazard = hazards(session_lengths(self.rules, self.chain.shoes))
        budget = Budget(self.chain.time_limit, horizon)
        for t in range(horizon):
            live = self._live()
            if live.size == 0 and not self.offgrid.u.size:
                break
            budget.spend(t, self.most_cells)
            last = self.chain.coups is not None and t == horizon - 1 or (
                self.policy.max_coups is not None and t + 1 == self.policy.max_coups)
            h = 0.0
            if end_hazard is not None:
                h = float(end_hazard[t + 1]) if t + 1 < end_hazard.size else 1.0
            self._coup(live, last, h)
        self._end_all()

    def _play_by_shoe(self) -> None:
        """Shoe after shoe: what a shoe's end leaves opens the next shoe (its states as a
        new shoe leaves them), the last shoe's end ends the session."""
        hazard = hazards(shoe_lengths(self.rules))
        shoes = self.chain.shoes
        assert shoes is not None
        budget = Budget(self.chain.time_limit, shoes * hazard.size)
        done = 0
        for shoe in range(shoes):
            final_shoe = shoe == shoes - 1
            carry: dict[int, tuple[int, np.ndarray]] = {}
            for t in range(hazard.size):
                live = self._live()
                if live.size == 0 and not self.offgrid.u.size:
                    break
                budget.spend(done, self.most_cells)
                done += 1
                h = float(hazard[t + 1]) if t + 1 < hazard.size else 1.0
                self._coup(live, False, h if final_shoe else 0.0)
                if not final_shoe and h > 0:
                    self._carry(carry, h)
            if final_shoe:
                self._end_all()
            else:
                self._load(carry)
                self.offgrid.next_shoe()

    def _live(self) -> np.ndarray:
        return np.flatnonzero(self.cnt[: len(self.keys)]).astype(np.int64)

    def _carry(self, carry: dict[int, tuple[int, np.ndarray]], h: float) -> None:
        """Move a share ``h`` of every mass into ``carry``, as the next shoe opens it."""
        for u in self._live():
            s, _, start, rule = self.keys[u]
            v = self.chain_state(self.machine.shoe(s), None, start, rule)
            window = self.buf[self.off[u]: self.off[u] + self.cnt[u]]
            _add_window(carry, v, int(self.lo[u]), window * h)
            window *= 1.0 - h
        self.offgrid.carry(h)

    def _end_all(self) -> None:
        """What is left ran out of coups."""
        for u in self._live():
            c = int(self.cnt[u])
            self._widen(int(self.lo[u]) + c)
            _ended(self.buf, int(self.off[u]), c, 1.0, self.final, END, int(self.lo[u]))
            self.cnt[u] = 0
        self.offgrid.end_all()

    def _expand_unit_for(self, s: int) -> None:
        """Set the grid for the first state before any mass is placed."""
        if machine_kinds := self.machine.kinds:
            self.kinds = list(machine_kinds)
            self.classes = partition(self.rules, self.kinds)
        unit = self.unit
        for amount in self._amounts(s):
            unit = fraction_gcd(unit, amount)
        self.unit = unit

    def _load(self, windows: dict[int, tuple[int, np.ndarray]]) -> None:
        """Make the mass the given windows (chain state -> first bankroll, masses)."""
        self.cnt[:] = 0
        parts = []
        off = 0
        for u, (lo, window) in windows.items():
            self.off[u], self.lo[u], self.cnt[u] = off, lo, window.size
            off += window.size
            parts.append(window)
        self.buf = np.concatenate(parts) if parts else np.zeros(0)

    def _widen(self, width: int) -> None:
        if width > self.chain.cell_limit:  # the bankroll amounts alone pass the budget
            raise TooManyStates(f"the session's bankroll spans {width:,} amounts of "
                                f"{float(self.unit):g}, more than {self.chain.cell_limit:,} "
                                f"cells")
        if width > self.final.shape[2]:
            out = np.zeros((2, N_REASONS, max(width, int(self.final.shape[2] * 1.5))))
            out[:, :, : self.final.shape[2]] = self.final
            self.final = out

    def _coup(self, live: np.ndarray, last: bool, end_hazard: float) -> None:
        """Every live chain state plays one coup (and every off-grid session)."""
        self.offgrid.coup(last, end_hazard)
        self._expand(live)
        n = len(self.keys)
        live = np.flatnonzero(self.cnt[:n]).astype(np.int64)  # a regrid keeps the same
        cs, tr = self.cs, self.tr
        ruin_at = math.ceil(self.table_min / self.unit)
        tlo = np.full(n, _NEVER_HIGH, np.int64)
        thi = np.full(n, -1, np.int64)
        top = _reach(live, self.off, self.lo, self.cnt, self.buf, cs.stake, cs.rfloor,
                     cs.loss_at, cs.goal_at, cs.t_off, cs.t_n, tr.delta, tr.num, tr.den,
                     tr.target, ruin_at, last, self.reduce, tlo, thi)
        # a session that busts keeps its bankroll: the highest held must fit too
        held_top = int((self.lo[live] + self.cnt[live]).max()) if live.size else 0
        self._widen(max(top + 1, held_top))
        reached = thi >= 0
        new_cnt = np.where(reached, thi - tlo + 1, 0).astype(np.int64)
        cells = int(new_cnt.sum())
        self.most_cells = max(self.most_cells, cells)
        if cells > self.chain.cell_limit:
            raise TooManyStates(f"the session's chain needs more than "
                                f"{self.chain.cell_limit:,} cells (states x bankroll amounts)")
        new_off = np.zeros(max(n, self.off.shape[0]), np.int64)
        new_off[:n] = np.cumsum(new_cnt) - new_cnt
        new_lo = np.zeros(max(n, self.off.shape[0]), np.int64)
        new_lo[:n] = np.where(reached, tlo, 0)
        new_buf = np.zeros(cells)
        room = 0
        if self.reduce and live.size:  # the reduced stakes' cells, each down every edge
            short = np.minimum(self.lo[live] + self.cnt[live] - 1, cs.stake[live] - 1) - \
                np.maximum(self.lo[live], cs.rfloor[live]) + 1
            room = int((np.maximum(short, 0) * cs.t_n[live]).sum())
        sp_u, sp_e, sp_i = (np.zeros(room, np.int64) for _ in range(3))
        sp_q = np.zeros(room)
        played = np.zeros(n)
        reduced_mass = np.zeros(n)
        reduced_money = np.zeros(n)
        entered = np.zeros(n)
        spilled = _scatter(live, self.off, self.lo, self.cnt, self.buf, cs.stake, cs.rfloor,
                           cs.loss_at, cs.goal_at, cs.t_off, cs.t_n, tr.delta, tr.num,
                           tr.den, tr.target, tr.prob, ruin_at, last, self.reduce,
                           end_hazard, new_off, new_lo, new_buf, self.final, played,
                           reduced_mass, reduced_money, entered, cs.end_reason, sp_u, sp_e,
                           sp_i, sp_q)
        if spilled:  # reduced stakes that won a fraction of the unit: off the grid
            self.offgrid.begin()
            self.offgrid.spill(sp_u[:spilled], sp_e[:spilled], sp_i[:spilled],
                               sp_q[:spilled], last, end_hazard)
            self.offgrid.finish()
        self._account(played, reduced_mass, reduced_money, entered)
        self.off, self.lo = new_off, new_lo
        cnt = np.zeros(max(n, self.cnt.shape[0]), np.int64)
        cnt[:n] = new_cnt
        self.cnt = cnt
        self.buf = new_buf

    def _kind_rows(self, n: int) -> None:
        """Room for ``n`` chain states in the per-kind stake tables."""
        if self.kind_stake.shape[0] >= n:
            return
        rows = max(n, 2 * self.kind_stake.shape[0])
        for name in ("kind_stake", "kind_share"):
            old = getattr(self, name)
            grown = np.zeros((rows, len(BET_KINDS)))
            grown[: old.shape[0]] = old
            setattr(self, name, grown)

    def _account(self, played: np.ndarray, reduced_mass: np.ndarray,
                 reduced_money: np.ndarray, entered: np.ndarray) -> None:
        """Add one coup's expected coups played, amounts staked and limit hits."""
        n = played.size
        self._kind_rows(n)
        self.coups_played += float(played.sum())
        self.hits += float(entered @ self.cs.hits[:n])
        self.wagered += (played - reduced_mass) @ self.kind_stake[:n]
        if self.reduce:
            self.wagered += float(self.unit) * (reduced_money @ self.kind_share[:n])

    def _account_rows(self, u: np.ndarray, mass: np.ndarray, reduced_mass: np.ndarray,
                      reduced_money: np.ndarray, entered_only: bool = False) -> None:
        """:meth:`_account` for off-grid entries: chain states ``u`` with ``mass`` (which
        all came to the coup, and played it unless ``entered_only``)."""
        if not u.size:
            return
        self._kind_rows(int(u.max()) + 1)
        self.hits += float(mass @ self.cs.hits[u])
        if entered_only:
            return
        self.coups_played += float(mass.sum())
        self.wagered += (mass - reduced_mass) @ self.kind_stake[u]
        self.wagered += float(self.unit) * (reduced_money @ self.kind_share[u])

    def _result(self) -> ChainResult:
        wagered = {kind: float(self.wagered[KIND_INDEX[kind]]) for kind in self.kinds}
        final = self.final[0] - self.final[1]  # the sums with what they rounded away
        return ChainResult(self.unit, final, self.coups_played, wagered, self.hits,
                           len(self.machine.rows), self.most_cells, self.mode,
                           self.offgrid.endings())


def _window(cells: dict[int, float]) -> tuple[int, np.ndarray]:
    """(first bankroll, masses) of a few bankrolls with their masses."""
    lo, hi = min(cells), max(cells)
    window = np.zeros(hi - lo + 1)
    for i, p in cells.items():
        window[i - lo] += p
    return lo, window


def _add_window(pool: dict[int, tuple[int, np.ndarray]], u: int, lo: int,
                values: np.ndarray) -> None:
    """Add ``values`` (bankrolls from ``lo``) into ``pool[u]``."""
    have = pool.get(u)
    if have is None:
        pool[u] = (lo, values.copy())
        return
    hlo, hv = have
    new_lo = min(lo, hlo)
    new_hi = max(lo + values.size, hlo + hv.size)
    out = np.zeros(new_hi - new_lo)
    out[hlo - new_lo: hlo - new_lo + hv.size] += hv
    out[lo - new_lo: lo - new_lo + values.size] += values
    pool[u] = (new_lo, out)


def _stretch(array: np.ndarray, factor: int) -> np.ndarray:
    """Bankroll index i (the last axis) becomes i x factor."""
    width = (array.shape[-1] - 1) * factor + 1 if array.shape[-1] else 0
    out = np.zeros(array.shape[:-1] + (width,))
    out[..., ::factor] = array
    return out


__all__ = ["Budget", "ChainResult", "ClassPartition", "DEFAULT_CELL_LIMIT", "DEFAULT_STATE_LIMIT",
           "DEFAULT_TIME_LIMIT", "Phase", "SessionChain", "fraction_gcd", "partition"]
