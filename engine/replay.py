"""Strategies over coups: many sessions and many configurations in lock-step.

The coups of a chunk of sessions are laid out as a (sessions x steps) grid of row
indices. Each step deals one coup to every session at once; every configuration wagers
on it through its own ``Table`` view, the engine applies the table rules (limits,
bankroll, stop rules), settles all bets with one payout-table lookup, and records the
step in the ledger grid. Strategies are called once per step with arrays, never once
per session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from strategies.base import Dealt, Result, Strategy, Table, Wager

from .bets import BET_KINDS, KIND_INDEX, classify_coups, payout_table
from .cards import VALUE_OF_CODE
from .coups import Coups
from .errors import BaccaratError
from .rules import TableRules

WhenShort = Literal["stop", "reduce"]
STOP_REASONS = ("end", "ruin", "stop_loss", "win_goal", "max_coups")
END, RUIN, STOP_LOSS, WIN_GOAL, MAX_COUPS = range(5)


class StrategyFault(BaccaratError):
    """A strategy that raised or returned an impossible stake, with where it happened."""


@dataclass(frozen=True)
class SessionPolicy:
    """How sessions are played: bankroll, shortfalls and stop rules."""

    bankroll: float = 1000.0
    when_short: WhenShort = "stop"
    stop_loss: float | None = None
    win_goal: float | None = None
    max_coups: int | None = None
    session_shoes: int = 1


@dataclass
class SessionGrid:
    """The coups of a chunk of sessions as a (sessions, steps) grid of coup-table rows."""

    rows: np.ndarray          # (S, T) int64, -1 where the session has no more coups
    session_ids: np.ndarray   # (S,) global session numbers
    first_shoe: np.ndarray    # (S,) shoe id of the session's first shoe

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows.shape  # type: ignore[return-value]


def session_grid(coups: Coups, session_shoes: int = 1, first_session: int = 0) -> SessionGrid:
    """Group the coups into sessions of ``session_shoes`` consecutive shoes."""
    n = len(coups)
    if n == 0:
        return SessionGrid(np.empty((0, 0), np.int64), np.empty(0, np.int64),
                           np.empty(0, np.int64))
    shoe_start = np.r_[True, coups.shoe[1:] != coups.shoe[:-1]]
    shoe_rank = np.cumsum(shoe_start) - 1
    session = shoe_rank // session_shoes
    starts = np.flatnonzero(np.r_[True, session[1:] != session[:-1]])
    lengths = np.diff(np.r_[starts, n])
    n_sessions = starts.size
    width = int(lengths.max())
    step = np.arange(n) - np.repeat(starts, lengths)
    rows = np.full((n_sessions, width), -1, dtype=np.int64)
    rows[session, step] = np.arange(n)
    return SessionGrid(rows, first_session + np.arange(n_sessions, dtype=np.int64),
                       coups.shoe[starts])


@dataclass
class ConfigLedger:
    """What one configuration did in a chunk: per-session grids and per-session results."""

    strategy: Strategy
    stakes: dict[str, np.ndarray]   # kind -> (S, T) stakes actually placed
    net: np.ndarray                 # (S, T)
    bankroll: np.ndarray            # (S, T) bankroll after the coup
    played: np.ndarray              # (S, T) the session played this coup
    limit_hits: np.ndarray          # (S,)
    ruined: np.ndarray              # (S,) bool
    ruin_coup: np.ndarray           # (S,) coups played when ruined, -1 if not
    stop_reason: np.ndarray         # (S,) index into STOP_REASONS
    start_bankroll: float = 0.0
    extra: dict[str, np.ndarray] = field(default_factory=dict)


class _ConfigRun:
    """The per-configuration state of a replay in progress."""

    def __init__(self, strategy: Strategy, n: int, width: int, rules: TableRules,
                 policy: SessionPolicy, history: np.ndarray, payouts: np.ndarray) -> None:
        self.strategy = strategy
        self.rules = rules
        self.payouts = payouts
        self.policy = policy
        self.table = Table(n, rules, np.full(n, float(policy.bankroll)), width)
        self.table._history = history  # one history buffer, shared by every configuration
        self.net = np.zeros((n, width))
        self.bankroll = np.zeros((n, width))
        self.played = np.zeros((n, width), dtype=bool)
        self.stakes: dict[str, np.ndarray] = {}
        self.limit_hits = np.zeros(n, dtype=np.int64)
        self.ruined = np.zeros(n, dtype=bool)
        self.ruin_coup = np.full(n, -1, dtype=np.int64)
        self.stop_reason = np.full(n, END, dtype=np.int8)
        # The step being played: set by _play_step, read by _learn.
        self.step_net = np.zeros(n)
        self.step_staked = np.zeros(n)
        self.step_played = np.zeros(n, dtype=bool)

    def ledger(self, policy: SessionPolicy) -> ConfigLedger:
        return ConfigLedger(
            strategy=self.strategy, stakes=self.stakes, net=self.net, bankroll=self.bankroll,
            played=self.played, limit_hits=self.limit_hits, ruined=self.ruined,
            ruin_coup=self.ruin_coup, stop_reason=self.stop_reason,
            start_bankroll=float(policy.bankroll),
        )


def replay(
    coups: Coups,
    strategies: list[Strategy],
    rules: TableRules,
    policy: SessionPolicy | None = None,
    first_session: int = 0,
    config_rules: Sequence[TableRules] | None = None,
) -> tuple[SessionGrid, list[ConfigLedger]]:
    """Play every strategy configuration over the sessions of ``coups``.

    ``config_rules`` gives each configuration its own payouts and limits (rule variants
    side by side over the same shoes); by default every configuration plays ``rules``.
    Returns the session grid and, per configuration, its ledger grids and session ends.
    """
    policy = policy or SessionPolicy()
    _check_dataset(coups, strategies)
    grid = session_grid(coups, policy.session_shoes, first_session)
    n, width = grid.shape
    classes = classify_coups(coups)
    per_config = list(config_rules) if config_rules is not None else [rules] * len(strategies)
    if len(per_config) != len(strategies):
        raise ValueError("config_rules must give one rule set per strategy configuration")
    tables = {r: payout_table(r) for r in set(per_config)}
    history = np.full((n, max(width, 1)), -1, dtype=np.int8)
    runs = [_ConfigRun(s, n, width, r, policy, history, tables[r])
            for s, r in zip(strategies, per_config)]
    shared = _SharedView(coups, grid, rules, strategies)
    for run in runs:
        shared.attach(run.table)
        _call(run, grid, coups, 0, "start", lambda r=run: r.strategy.start(r.table))

    for t in range(width):
        rows = grid.rows[:, t]
        dealt = rows >= 0
        safe_rows = np.where(dealt, rows, 0)
        dealt_coup = Dealt(coups, safe_rows, shared.needs_cards)
        outcome = dealt_coup.outcome
        step_classes = classes[safe_rows]
        new_shoe = dealt & (coups.coup[safe_rows] == 1)
        shared.before_step(t, safe_rows, new_shoe, dealt)
        for run in runs:
            _play_step(run, t, rows, dealt, step_classes, new_shoe, coups, grid, policy)
        shared.after_step(safe_rows, outcome, dealt)
        history[:, t] = np.where(dealt, outcome, -1)
        for run in runs:
            run.table.advance(outcome, dealt)
            _learn(run, t, dealt, dealt_coup, grid, coups)
    return grid, [run.ledger(policy) for run in runs]


def _check_dataset(coups: Coups, strategies: list[Strategy]) -> None:
    if coups.has_cards or not len(coups):
        return
    for strategy in strategies:
        if strategy.needs_cards:
            raise StrategyFault(
                f"strategy {strategy.spec()!r} needs the cards, but the dataset records "
                f"outcomes only; use a card-level dataset (generated, or imported with cards)"
            )


class _SharedView:
    """What every configuration's table shares: roads and card counts, advanced per step."""

    def __init__(self, coups: Coups, grid: SessionGrid, rules: TableRules,
                 strategies: list[Strategy]) -> None:
        n = grid.shape[0]
        self.coups = coups
        self.roads = None
        if any(s.needs_roads for s in strategies):
            from .roads import RoadState

            self.roads = RoadState(n)
        self.seen: np.ndarray | None = None
        self.full = None
        self.needs_cards = any(s.needs_cards for s in strategies)
        if self.needs_cards:
            decks = coups.decks or rules.decks
            self.full = np.array([16 * decks] + [4 * decks] * 9, dtype=np.int64)
            self.seen = np.zeros((n, 10), dtype=np.int64)
            self.remaining = np.tile(self.full, (n, 1))

    def attach(self, table: Table) -> None:
        table.roads = self.roads
        table.seen = self.seen
        if self.seen is not None:
            table.remaining = self.remaining

    def before_step(self, t: int, rows: np.ndarray, new_shoe: np.ndarray,
                    dealt: np.ndarray) -> None:
        if self.roads is not None and new_shoe.any():
            self.roads.reset(new_shoe)
        if self.seen is not None and new_shoe.any():
            self.seen[new_shoe] = 0
            burn = self.coups.burn_shown[rows]
            shown = new_shoe & (burn >= 0)
            self.seen[shown, VALUE_OF_CODE[burn[shown]]] += 1
            self.remaining[:] = self.full - self.seen

    def after_step(self, rows: np.ndarray, outcome: np.ndarray, dealt: np.ndarray) -> None:
        if self.roads is not None:
            self.roads.append(outcome, dealt)
        if self.seen is not None:
            cards = self.coups.cards[rows]
            for column in range(6):
                code = cards[:, column]
                shown = dealt & (code >= 0)
                np.add.at(self.seen, (np.flatnonzero(shown), VALUE_OF_CODE[code[shown]]), 1)
            self.remaining[:] = self.full - self.seen


def _call(run: _ConfigRun, grid: SessionGrid, coups: Coups, t: int, what: str, fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except BaccaratError:
        raise
    except Exception as exc:
        raise StrategyFault(
            f"strategy {run.strategy.spec()!r} raised {type(exc).__name__} in {what}() "
            f"at step {t + 1} of sessions {grid.session_ids[0]}-{grid.session_ids[-1]}: {exc}"
        ) from exc


def _where(run: _ConfigRun, grid: SessionGrid, coups: Coups, rows: np.ndarray,
           session: int) -> str:
    row = rows[session]
    return (f"strategy {run.strategy.spec()!r}, session {grid.session_ids[session]}, "
            f"shoe {coups.shoe[row]}, coup {coups.coup[row]}")


def _stake_matrix(run: _ConfigRun, wager: Wager, n: int, grid: SessionGrid, coups: Coups,
                  rows: np.ndarray, dealt: np.ndarray) -> dict[str, np.ndarray]:
    stakes = {}
    for kind, stake in wager.stakes.items():
        stake = np.broadcast_to(np.asarray(stake, dtype=np.float64), (n,))
        bad = dealt & run.table.active & ~(np.isfinite(stake) & (stake >= 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise StrategyFault(
                f"{_where(run, grid, coups, rows, i)}: stake {stake[i]!r} on {kind} is not a "
                f"finite non-negative number ({int(bad.sum()) - 1} more sessions alike)"
            )
        stakes[kind] = stake
    return stakes


def _play_step(run: _ConfigRun, t: int, rows: np.ndarray, dealt: np.ndarray,
               classes: np.ndarray, new_shoe: np.ndarray, coups: Coups, grid: SessionGrid,
               policy: SessionPolicy) -> None:
    table = run.table
    rules = run.rules
    n = table.n
    table.active &= dealt
    table.new_shoe = new_shoe
    table.shoe_coup = np.where(new_shoe, 0, table.shoe_coup)
    wager = _call(run, grid, coups, t, "wager", lambda: run.strategy.wager(table))
    if not isinstance(wager, Wager):
        raise StrategyFault(f"strategy {run.strategy.spec()!r}: wager() returned "
                            f"{type(wager).__name__}, expected a Wager")
    stakes = _stake_matrix(run, wager, n, grid, coups, rows, dealt)
    playing = table.active
    total = np.zeros(n)
    for kind in list(stakes):
        stake = np.where(playing, stakes[kind], 0.0)
        over = stake > rules.table_max
        run.limit_hits += over
        stake = np.minimum(stake, rules.table_max)
        under = (stake > 0) & (stake < rules.table_min - 1e-12)
        if under.any():
            i = int(np.flatnonzero(under)[0])
            raise StrategyFault(
                f"{_where(run, grid, coups, rows, i)}: stake {stake[i]:g} on {kind} is below "
                f"the table minimum {rules.table_min:g}"
            )
        stakes[kind] = stake
        total += stake
    short = playing & (total > table.bankroll + 1e-9)
    if short.any():
        if policy.when_short == "reduce":
            scale = np.where(short, table.bankroll / np.where(total > 0, total, 1.0), 1.0)
            for kind in stakes:
                stakes[kind] = stakes[kind] * scale
            total = total * scale
            too_small = short & np.any(
                [(s > 0) & (s < rules.table_min - 1e-12) for s in stakes.values()], axis=0)
        else:
            too_small = short
        if too_small.any():
            _end(run, too_small, RUIN, ruined=True)
            for kind in stakes:
                stakes[kind] = np.where(too_small, 0.0, stakes[kind])
            total = np.where(too_small, 0.0, total)
            playing = table.active
    net = np.zeros(n)
    for kind, stake in stakes.items():
        if not stake.any():
            continue
        mult = run.payouts[classes, KIND_INDEX[kind]]
        unsettled = (stake > 0) & np.isnan(mult)
        if unsettled.any():
            i = int(np.flatnonzero(unsettled)[0])
            raise StrategyFault(
                f"{_where(run, grid, coups, rows, i)}: a stake on {kind} cannot be settled: "
                f"the dataset lacks the cards (or totals) that bet needs under these rules"
            )
        net += stake * np.where(stake > 0, mult, 0.0)
        if kind not in run.stakes:
            run.stakes[kind] = np.zeros_like(run.net)
        run.stakes[kind][:, t] = stake
    table.bankroll = table.bankroll + net
    run.net[:, t] = net
    run.bankroll[:, t] = table.bankroll
    run.played[:, t] = playing
    run.step_net, run.step_staked, run.step_played = net, total, playing


def _learn(run: _ConfigRun, t: int, dealt: np.ndarray, dealt_coup: Dealt, grid: SessionGrid,
           coups: Coups) -> None:
    net, total, playing = run.step_net, run.step_staked, run.step_played
    table = run.table
    result = Result(dealt=dealt_coup, net=net, staked=total, played=playing)
    table.coup = table.coup + playing
    table.shoe_coup = table.shoe_coup + dealt
    _call(run, grid, coups, t, "settle", lambda: run.strategy.settle(table, result))
    _apply_stop_rules(run, playing)


def _apply_stop_rules(run: _ConfigRun, playing: np.ndarray) -> None:
    table = run.table
    rules = table.rules
    policy = run.policy
    result = table.bankroll - table.start_bankroll
    broke = playing & (table.bankroll < rules.table_min - 1e-9)
    _end(run, broke, RUIN, ruined=True)
    if policy.stop_loss is not None:
        _end(run, table.active & (result <= -policy.stop_loss + 1e-9), STOP_LOSS)
    if policy.win_goal is not None:
        _end(run, table.active & (result >= policy.win_goal - 1e-9), WIN_GOAL)
    if policy.max_coups is not None:
        _end(run, table.active & (table.coup >= policy.max_coups), MAX_COUPS)


def _end(run: _ConfigRun, mask: np.ndarray, reason: int, ruined: bool = False) -> None:
    mask = mask & run.table.active
    if not mask.any():
        return
    run.stop_reason[mask] = reason
    if ruined:
        run.ruined |= mask
        run.ruin_coup[mask] = run.table.coup[mask]
    run.table.active = run.table.active & ~mask


__all__ = ["BET_KINDS", "ConfigLedger", "SessionGrid", "SessionPolicy", "StrategyFault",
           "replay", "session_grid", "STOP_REASONS"]
