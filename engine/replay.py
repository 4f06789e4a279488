"""Strategies over coups: many sessions and many configurations in lock-step.

The coups of a chunk of sessions are laid out as a (sessions x steps) grid of row
indices. Each step deals one coup to every session at once; every configuration wagers
on it through its own ``Table`` view, the engine applies the table rules (limits,
bankroll, stop rules), settles all bets with one payout-table lookup, and records the
step in the ledger grid. Strategies are called once per step with arrays, never once
per session.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

import numpy as np

from .bets import BET_KINDS, KIND_INDEX, classify_coups, payout_table
from .cards import VALUE_OF_CODE
from .coups import Coups
from .errors import BaccaratError, StrategyFault, innermost_frame, shown_path
from .jit import njit
from .odds import bets_offered, expected_values, expected_values_batch, shoe_rank_counts
from .odds.cache import CACHE
from .odds.composition import MIN_CARDS
from .plugin_guard import guard_for
from .rules import TableRules
from .session_play import (
    BELOW_MIN,
    BUSTED,
    END,
    N_SHOE_STOPS,
    R_BELOW,
    R_CHIP,
    R_REDUCE,
    R_TABLE_MAX,
    R_TABLE_MIN,
    RUIN,
    SHOE_STOP_SLOT,
    STRATEGY,
    is_stake,
    policy_row,
    reduce_scale,
    reduced_stake,
    short,
    stop_after_coup,
    table_stake,
)
from .strategies.base import (
    Dealt,
    HookReturnError,
    Result,
    SessionFault,
    SimpleStrategy,
    Strategy,
    TableState,
    Wager,
    describe_value,
)
from .strategies.randomness import TableRandom
from .strategies.readonly import ReadOnlyError
from .strategies.registry import StrategyError

WhenShort = Literal["stop", "reduce"]
#: How a coup's expected net is priced: ``auto`` from the cards left in the shoe for
#: strategies that see the cards (``needs_cards``), from the full shoe for the others;
#: ``exact`` from the cards left for every strategy (card-level datasets only).
ExpectedMode = Literal["auto", "exact"]
EXPECTED_MODES = ("auto", "exact")
BelowMin = Literal["raise", "skip", "stop"]
LastSession = Literal["keep", "drop"]


@dataclass(frozen=True)
class SessionPolicy:
    """How sessions are played: the bankroll, shortfalls, stakes the table cannot take,
    and the stop rules.

    Every stop rule exists per session (it ends the session) and per shoe (``shoe_...``:
    it ends play in the current shoe; the session goes on at its next shoe, with its
    money and its progression as they were). After each coup the engine checks, in this
    order: ruin (the bankroll below the table minimum), ``stop_loss`` (this much behind),
    ``win_goal`` (this much ahead), ``max_coups``, ``trailing_stop`` (this far below the
    highest bankroll reached), ``losses_in_row`` (losing bets in a row; a push or a coup
    without a bet neither counts nor breaks the run); then the same per shoe, counted
    from the shoe's first coup. A configuration's own rule parts (``stop:win=50``) set
    these fields for it (``config_policy``).

    Before each coup, a stake is rounded to the nearest multiple of ``chip`` (none: as
    asked; a stake rounded to 0 is no bet), capped at the table maximum, and one below
    the table minimum is raised to it (``below_min="raise"``), not placed (``"skip"``) or
    ends the session (``"stop"``, reason ``below_min``); never an abort of the run. A
    last session with fewer shoes than ``session_shoes`` (the dataset's shoes do not
    divide into sessions) is played (``last_session="keep"``) or left out (``"drop"``).
    """

    bankroll: float = 1000.0
    when_short: WhenShort = "stop"
    stop_loss: float | None = None
    win_goal: float | None = None
    max_coups: int | None = None
    session_shoes: int = 1
    trailing_stop: float | None = None
    losses_in_row: int | None = None
    shoe_stop_loss: float | None = None
    shoe_win_goal: float | None = None
    shoe_max_coups: int | None = None
    shoe_trailing_stop: float | None = None
    shoe_losses_in_row: int | None = None
    chip: float | None = None
    below_min: BelowMin = "raise"
    last_session: LastSession = "keep"

    def shoe_rules(self) -> bool:
        """Whether a per-shoe stop rule is set."""
        return any(getattr(self, f) is not None for f in SHOE_RULES)


#: The stop rules the engine counts per shoe.
SHOE_RULES = ("shoe_stop_loss", "shoe_win_goal", "shoe_max_coups", "shoe_trailing_stop",
              "shoe_losses_in_row")
#: The fields a configuration's session rules may set (the stop rules).
RULE_FIELDS = ("stop_loss", "win_goal", "max_coups", "trailing_stop", "losses_in_row",
               *SHOE_RULES)


def config_policy(strategy: Strategy, policy: SessionPolicy) -> SessionPolicy:
    """The policy ``strategy`` plays by: the run's, with its own session rules set.

    A rule set both by the run (a ``backtest`` flag) and by the configuration (its
    ``stop:`` part) to different values is refused, naming both.
    """
    own = strategy.session_rules()
    if not own:
        return policy
    for name, value in own.items():
        if name not in RULE_FIELDS:
            raise BaccaratError(f"strategy {strategy.spec()!r} sets {name!r}, which is not a "
                                f"session rule; rules: {', '.join(RULE_FIELDS)}")
        given = getattr(policy, name)
        if given is not None and given != value:
            raise BaccaratError(f"strategy {strategy.spec()!r} sets {name} = {value!r} but "
                                f"the run sets {name} = {given!r}: give it in one place")
    return replace(policy, **own)


@dataclass
class SessionGrid:
    """The coups of a chunk of sessions as a (sessions, steps) grid of coup-table rows."""

    rows: np.ndarray          # (S, T) int64, -1 where the session has no more coups
    session_ids: np.ndarray   # (S,) global session numbers
    first_shoe: np.ndarray    # (S,) shoe id of the session's first shoe

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows.shape  # type: ignore[return-value]

    def lengths(self) -> np.ndarray:
        """(S,) how many coups each session has (its grid row's entries before the -1s)."""
        return (self.rows >= 0).sum(axis=1)


def session_starts(shoe: np.ndarray, session_shoes: int) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each session of ``session_shoes`` consecutive shoes (a non-empty
    column of shoe ids), and each row's session number within the column."""
    shoe_start = np.r_[True, shoe[1:] != shoe[:-1]]
    session = (np.cumsum(shoe_start) - 1) // session_shoes
    return np.flatnonzero(np.r_[True, session[1:] != session[:-1]]), session


def session_start_rows(shoe: np.ndarray, session_shoes: int) -> np.ndarray:
    """The first row of each session (``session_starts``'s first array), in one pass."""
    starts = np.empty(shoe.size, dtype=np.int64)
    return starts[:_session_start_rows(shoe, session_shoes, starts)].copy()


@njit(cache=True)
def _session_start_rows(shoe, session_shoes, starts):  # pragma: no cover - compiled
    """Write the rows opening every ``session_shoes``-th shoe (a shoe: a run of equal ids)
    into ``starts``; returns how many."""
    found = 0
    shoes = 0
    for i in range(shoe.shape[0]):
        if i == 0 or shoe[i] != shoe[i - 1]:
            if shoes % session_shoes == 0:
                starts[found] = i
                found += 1
            shoes += 1
    return found


def session_grid(coups: Coups, session_shoes: int = 1, first_session: int = 0) -> SessionGrid:
    """Group the coups into sessions of ``session_shoes`` consecutive shoes."""
    n = len(coups)
    if n == 0:
        return SessionGrid(np.empty((0, 0), np.int64), np.empty(0, np.int64),
                           np.empty(0, np.int64))
    starts = session_start_rows(coups.shoe, session_shoes)
    lengths = np.diff(np.r_[starts, n])
    n_sessions = starts.size
    rows = np.empty((n_sessions, int(lengths.max())), dtype=np.int64)
    _fill_grid(starts, lengths, rows)
    return SessionGrid(rows, first_session + np.arange(n_sessions, dtype=np.int64),
                       coups.shoe[starts])


@njit(cache=True)
def _fill_grid(starts, lengths, rows):  # pragma: no cover - compiled
    """Session s's row of the grid: its coups' rows (consecutive from ``starts[s]``), then -1."""
    for s in range(rows.shape[0]):
        first = starts[s]
        length = lengths[s]
        for t in range(length):
            rows[s, t] = first + t
        for t in range(length, rows.shape[1]):
            rows[s, t] = -1


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
    shoe_stops: np.ndarray          # (S, N_SHOE_STOPS) shoes each per-shoe rule cut short
    start_bankroll: float = 0.0
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    #: Full-shoe EV per unit staked of each bet kind under this configuration's rules.
    shoe_ev: dict[str, float] = field(default_factory=dict)
    #: (S, T) expected net of each coup's stakes from the cards left in the shoe, when the
    #: configuration is priced that way (``priced_by == "remaining cards"``); else None and
    #: the expected net is the stakes times ``shoe_ev``.
    exact_expected: np.ndarray | None = None
    priced_by: str = "full shoe"

    def expected_net(self) -> np.ndarray:
        """(S, T) exact expected net of the stakes placed on each coup (0 where none)."""
        if self.exact_expected is not None:
            return self.exact_expected
        expected = np.zeros_like(self.net)
        for kind, stake in self.stakes.items():
            expected += stake * self.shoe_ev[kind]
        return expected

    def session_expected_net(self) -> np.ndarray:
        """(S,) expected net of each session's stakes: the sum of its coups'."""
        if self.exact_expected is not None:
            return self.exact_expected.sum(axis=1)
        total = np.zeros(self.net.shape[0])
        for kind, stake in self.stakes.items():
            total += stake.sum(axis=1) * self.shoe_ev[kind]
        return total


class _ConfigRun:
    """The per-configuration state of a replay in progress."""

    def __init__(self, strategy: Strategy, n: int, width: int, rules: TableRules,
                 policy: SessionPolicy, history: np.ndarray, payouts: np.ndarray,
                 exact_ev: bool = False, rng: TableRandom | None = None) -> None:
        self.strategy = strategy
        # Expected net from the cards left, filled step by step (step-major like the rest).
        self.exact_expected = np.zeros((width, n)) if exact_ev else None
        self.rules = rules
        self.payouts = payouts
        self.offered = frozenset(bets_offered(rules))
        self.policy = policy
        self.state = TableState(n, rules, np.full(n, float(policy.bankroll)), width, history,
                                rng=rng)
        self.table = self.state.table
        # The ledger grids, step-major while playing, so that each step writes one
        # contiguous row; ``ledger()`` hands them over (sessions, steps) as documented.
        self.net = np.zeros((width, n))
        self.bankroll = np.zeros((width, n))
        self.played = np.zeros((width, n), dtype=bool)
        self.stakes: dict[str, np.ndarray] = {}
        self.limit_hits = np.zeros(n, dtype=np.int64)
        self.ruined = np.zeros(n, dtype=bool)
        self.ruin_coup = np.full(n, -1, dtype=np.int64)
        self.stop_reason = np.full(n, END, dtype=np.int8)
        # Sessions not ended (a session sitting out the rest of a shoe is not ended).
        self.alive = np.ones(n, dtype=bool)
        # The policy and limits as the compiled rules read them, the settle kernel's
        # buffers, the stop rules' counts: made once.
        self.policy_row = policy_row(policy, rules)
        self.below_stop = np.empty(n, dtype=np.bool_)
        self.short_ruin = np.empty(n, dtype=np.bool_)
        self.counts = _StopCounts(n, float(policy.bankroll), policy.shoe_rules())
        # The step being played: set by _play_step, read by _learn.
        self.step_net = np.zeros(n)
        self.step_staked = np.zeros(n)
        self.step_played = np.zeros(n, dtype=bool)

    def ledger(self, policy: SessionPolicy) -> ConfigLedger:
        def by_session(grid: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(grid.T)

        return ConfigLedger(
            strategy=self.strategy,
            stakes={kind: by_session(grid) for kind, grid in self.stakes.items()},
            net=by_session(self.net), bankroll=by_session(self.bankroll),
            played=by_session(self.played), limit_hits=self.limit_hits, ruined=self.ruined,
            ruin_coup=self.ruin_coup, stop_reason=self.stop_reason,
            shoe_stops=self.counts.shoe_stops, start_bankroll=float(policy.bankroll),
            shoe_ev=full_shoe_ev(self.rules),
            exact_expected=(by_session(self.exact_expected)
                            if self.exact_expected is not None else None),
            priced_by="remaining cards" if self.exact_expected is not None else "full shoe",
        )


class _StopCounts:
    """What the stop rules count per session (``baccarat.session_play.stop_after_coup``):
    the highest bankroll, losing bets in a row, and per shoe the shoe's first bankroll,
    its highest, its losing bets in a row and its coups; which sessions sit out the rest
    of their shoe, and the shoes each per-shoe rule cut short."""

    def __init__(self, n: int, start: float, shoes: bool) -> None:
        self.shoes = shoes
        self.peak = np.full(n, start)
        self.losses = np.zeros(n, dtype=np.int64)
        self.shoe_start = np.full(n, start)
        self.shoe_peak = np.full(n, start)
        self.shoe_losses = np.zeros(n, dtype=np.int64)
        self.shoe_coups = np.zeros(n, dtype=np.int64)
        self.sitting = np.zeros(n, dtype=bool)
        self.shoe_stops = np.zeros((n, N_SHOE_STOPS), dtype=np.int64)

    def new_shoe(self, opening: np.ndarray, bankroll: np.ndarray, alive: np.ndarray,
                 stop_reason: np.ndarray) -> None:
        """Start the shoe's counts where a shoe opens; a session sitting out comes back."""
        if not self.shoes or not opening.any():
            return
        back = opening & self.sitting & alive
        stop_reason[back] = END
        self.sitting &= ~opening
        self.shoe_start = np.where(opening, bankroll, self.shoe_start)
        self.shoe_peak = np.where(opening, bankroll, self.shoe_peak)
        self.shoe_losses[opening] = 0
        self.shoe_coups[opening] = 0


@functools.lru_cache(maxsize=64)
def full_shoe_ev(rules: TableRules) -> dict[str, float]:
    """EV per unit staked of every bet kind on a full shoe of ``rules`` (pairs by rank)."""
    return expected_values(shoe_rank_counts(rules.decks), rules)


def replay(
    coups: Coups,
    strategies: list[Strategy],
    rules: TableRules,
    policy: SessionPolicy | None = None,
    first_session: int = 0,
    config_rules: Sequence[TableRules] | None = None,
    expected: ExpectedMode = "auto",
    seed: int = 0,
    on_step: Callable[[int, int], None] | None = None,
) -> tuple[SessionGrid, list[ConfigLedger]]:
    """Play every strategy configuration over the sessions of ``coups``.

    ``config_rules`` gives each configuration its own payouts and limits (rule variants
    side by side over the same shoes); by default every configuration plays ``rules``.
    ``expected`` says how each coup's expected net is priced (see ``ExpectedMode``).
    ``on_step(steps done, of steps)`` is called after each step (progress within a chunk).
    ``seed`` keys each session's random numbers (``table.rng``: by the seed and the
    session's first shoe, so a session draws the same numbers in any chunk and any order).
    Returns the session grid and, per configuration, its ledger grids and session ends.
    """
    policy = policy or SessionPolicy()
    has_cards = coups.has_cards  # a pass over the cards: once, not once per configuration
    _check_dataset(coups, strategies, has_cards)
    if expected not in EXPECTED_MODES:
        raise BaccaratError(f"expected must be auto or exact, got {expected!r}")
    if expected == "exact" and len(coups) and not has_cards:
        raise BaccaratError("expected='exact' prices each coup from the cards left in the "
                            "shoe, but the dataset records outcomes only; use a card-level "
                            "dataset or expected='auto'", params=("expected",))
    grid = session_grid(coups, policy.session_shoes, first_session)
    n, width = grid.shape
    classes = classify_coups(coups)
    per_config = list(config_rules) if config_rules is not None else [rules] * len(strategies)
    if len(per_config) != len(strategies):
        raise ValueError("config_rules must give one rule set per strategy configuration")
    tables = {r: payout_table(r) for r in set(per_config)}
    history = np.full((n, max(width, 1)), -1, dtype=np.int8)
    runs = [_ConfigRun(s, n, width, r, config_policy(s, policy), history, tables[r],
                       exact_ev=has_cards and (expected == "exact" or s.needs_cards),
                       rng=TableRandom(seed, grid.first_shoe))
            for s, r in zip(strategies, per_config, strict=True)]
    shared = _SharedView(coups, grid, rules, strategies,
                         count_cards=any(run.exact_expected is not None for run in runs))
    for run in runs:
        shared.attach(run.state)
        run.strategy.clear_state()  # per-run state starts empty: nothing from an earlier run
        _call(run, grid, coups, -1, "start", lambda r=run: r.strategy.start(r.table))

    steps = _StepMajor(coups, grid, classes)
    for t in range(width):
        rows = steps.rows[t]
        dealt = steps.dealt[t].copy()
        safe_rows = rows  # every row index is valid; `dealt` says which sessions play
        if shared.needs_cards:
            dealt_coup = Dealt(coups, safe_rows, True)
        else:  # this step's values only (copies), so nothing leads to a later coup
            dealt_coup = Dealt(cast(Coups, _ThisStep(steps, t)), _ALL, False)
        outcome = dealt_coup.outcome
        step_classes = steps.classes[t]
        new_shoe = steps.new_shoe[t].copy()
        shared.before_step(t, safe_rows, new_shoe, dealt)
        for run in runs:
            _play_step(run, t, rows, dealt, step_classes, new_shoe, coups, grid)
            if run.exact_expected is not None:
                _price_step(run, t, shared)
        shared.after_step(safe_rows, outcome, dealt)
        history[:, t] = np.where(dealt, outcome, -1)
        for run in runs:
            run.state.advance(outcome, dealt)
            _learn(run, t, dealt, dealt_coup, grid, coups)
        if on_step is not None:
            on_step(t + 1, width)
    ledgers = []
    for run in runs:  # hand each configuration's grids over, freeing the step-major ones
        ledgers.append(run.ledger(policy))
        run.net = run.bankroll = run.played = np.empty((0, 0))
        run.stakes = {}
    return grid, ledgers


class _StepMajor:
    """A chunk's per-coup values laid out (steps, sessions), gathered once per chunk.

    Step t of every session is then one contiguous row, instead of a gather scattered over
    the coups table at each step. ``rows`` holds coup-table rows (0 where a session has no
    more coups: ``dealt`` is False there).
    """

    def __init__(self, coups: Coups, grid: SessionGrid, classes: np.ndarray) -> None:
        # A coup opens a shoe when it is the first of its session, is numbered 1, or
        # belongs to another shoe than the coup before it (recorded coups need not start
        # at 1); a session's coups are consecutive rows of the table.
        opens = coups.coup == 1
        opens[1:] |= coups.shoe[1:] != coups.shoe[:-1]
        n, width = grid.rows.shape
        self.rows = np.empty((width, n), dtype=np.int64)
        self.dealt = np.empty((width, n), dtype=np.bool_)
        self.new_shoe = np.empty((width, n), dtype=np.bool_)
        self.classes = np.empty((width, n), dtype=classes.dtype)
        self.outcome = np.empty((width, n), dtype=coups.outcome.dtype)
        self.player_total = np.empty((width, n), dtype=coups.player_total.dtype)
        self.banker_total = np.empty((width, n), dtype=coups.banker_total.dtype)
        if n and width:
            _step_rows(grid.rows[:, 0].copy(), grid.lengths(), opens, self.rows, self.dealt,
                       self.new_shoe)
            for values, out in ((classes, self.classes), (coups.outcome, self.outcome),
                                (coups.player_total, self.player_total),
                                (coups.banker_total, self.banker_total)):
                _gather(values, self.rows, out)


@njit(cache=True)
def _step_rows(starts, lengths, opens, rows, dealt, new_shoe):  # pragma: no cover - compiled
    """Step t of session s: its coup's row (0 once it has no more coups: ``dealt`` False)
    and whether that coup opens a shoe (its first coup does; a later one where ``opens``
    says so)."""
    width, n = rows.shape
    for t in range(width):
        for s in range(n):
            played = t < lengths[s]
            row = starts[s] + t if played else 0
            rows[t, s] = row
            dealt[t, s] = played
            new_shoe[t, s] = played and (t == 0 or opens[row])


@njit(cache=True)
def _gather(values, rows, out):  # pragma: no cover - compiled
    """``out = values[rows]`` for a 2-D ``rows``, without NumPy's temporaries."""
    width, n = rows.shape
    for t in range(width):
        for s in range(n):
            out[t, s] = values[rows[t, s]]


_ALL: Any = slice(None)  # every session of a one-step table


class _ThisStep:
    """The values ``Dealt`` reads, for one step only: copies, not views of the chunk."""

    __slots__ = ("outcome", "player_total", "banker_total")

    def __init__(self, steps: _StepMajor, t: int) -> None:
        self.outcome = steps.outcome[t].copy()
        self.player_total = steps.player_total[t].copy()
        self.banker_total = steps.banker_total[t].copy()


def _check_dataset(coups: Coups, strategies: list[Strategy], has_cards: bool) -> None:
    if has_cards or not len(coups):
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
                 strategies: list[Strategy], count_cards: bool = False) -> None:
        n = grid.shape[0]
        self.coups = coups
        self.roads = None
        if any(s.needs_roads for s in strategies):
            from .roads import RoadState

            self.roads = RoadState(n)
        self.seen: np.ndarray | None = None
        self.remaining = np.empty((0, 10), dtype=np.int64)  # filled when cards are counted
        self.full = None
        self.needs_cards = any(s.needs_cards for s in strategies)
        self.decks = coups.decks or rules.decks
        if self.needs_cards or count_cards:
            decks = self.decks
            self.full = np.array([16 * decks] + [4 * decks] * 9, dtype=np.int64)
            self.seen = np.zeros((n, 10), dtype=np.int64)
            self.remaining = np.tile(self.full, (n, 1))

    def attach(self, state: TableState) -> None:
        # The table shows read-only views: every configuration reads the same roads and
        # counts, none may change them.
        if self.roads is not None:
            state.attach_roads(self.roads)
        if self.seen is not None and self.needs_cards:
            state.attach_cards(self.seen, self.remaining)

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
            _count_shown(self.seen, self.remaining, self.full, self.coups.cards, rows, dealt,
                         VALUE_OF_CODE)


@njit(cache=True)
def _count_shown(seen, remaining, full, cards, rows, dealt, value_of_code):
    """Add the cards of each dealing session's coup (``cards[rows[i]]``) to its ``seen``
    counts by value, and refresh ``remaining = full - seen``: one pass over the sessions."""
    for i in range(rows.shape[0]):
        if dealt[i]:
            coup = cards[rows[i]]
            for column in range(coup.shape[0]):
                code = coup[column]
                if code >= 0:
                    seen[i, value_of_code[code]] += 1
        for v in range(full.shape[0]):
            remaining[i, v] = full[v] - seen[i, v]


def _call(run: _ConfigRun, grid: SessionGrid, coups: Coups, t: int, what: str, fn):  # type: ignore[no-untyped-def]
    """Call the strategy under the plugin guard (``engine/plugin_guard.py``); whatever it
    raises (``SystemExit`` and ``GeneratorExit`` too: only Ctrl-C passes) becomes a
    ``StrategyFault`` saying where."""
    try:
        with guard_for(run.strategy):
            return fn()
    except (StrategyFault, StrategyError, KeyboardInterrupt):  # one line already, or Ctrl-C
        raise
    except BaseException as exc:
        raise _fault(run, grid, coups, t, what, exc) from None


def _fault(run: _ConfigRun, grid: SessionGrid, coups: Coups, t: int, what: str,
           exc: BaseException) -> StrategyFault:
    """The one-line report of a strategy's failure: strategy, file:line, method, where."""
    session = None
    cause: BaseException = exc
    if isinstance(exc, SessionFault):  # the simple form says which session, in which method
        session, what = exc.session, exc.method
        if exc.message:
            return StrategyFault(f"{_at(run, grid, coups, t, session)}: {exc.message}"
                                 f"{_defined(run.strategy, what)}")
        cause = exc.__cause__ or exc
    if isinstance(cause, StrategyFault):
        return cause
    at = _at(run, grid, coups, t, session)
    if isinstance(cause, HookReturnError):  # refused by the contract: where the hook is
        return StrategyFault(f"{at}: {cause}{_defined(run.strategy, cause.method)}")
    line, method = _plugin_line(cause, run.strategy)
    what = method if method is not None and not method.startswith("<") else what
    if not line and _definition(run.strategy, what):  # refused by the contract after the
        line = f" at {_definition(run.strategy, what)}"  # plugin returned: its definition
    if isinstance(cause, ReadOnlyError) or (isinstance(cause, ValueError) and (
            "read-only" in str(cause) or "WRITEABLE flag" in str(cause))):
        text = f"wrote into its table in {what}(){line}: {cause}"
    else:
        text = f"raised {type(cause).__name__} in {what}(){line}: {cause}{_did_you_mean(cause)}"
    return StrategyFault(f"{at}: {text}",
                         detail="".join(traceback.format_exception(cause)))


def _did_you_mean(exc: BaseException) -> str:
    """For an attribute a plugin misspelt (``self.player`` for ``self.players``), the
    names it may have meant, as Python's own traceback would suggest them."""
    name, obj = getattr(exc, "name", None), getattr(exc, "obj", None)
    if not isinstance(exc, AttributeError) or not name or obj is None:
        return ""
    try:
        known = [n for n in dir(obj) if not n.startswith("__")]
    except Exception:  # noqa: BLE001 - only a hint for a message
        return ""
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _plugin_line(exc: BaseException, strategy: Strategy) -> tuple[str, str | None]:
    """(" at file.py:LINE", the method called) for the innermost frame in the
    source files of the strategy's own code (a composed system's parts: not the contract's
    classes that call them), or ("", None) when no frame is there."""
    from .strategies.base import _CONTRACT_MODULES

    files = set()
    for component in strategy.component_classes():
        for klass in component.__mro__:
            if klass.__module__ in _CONTRACT_MODULES or klass.__module__.startswith(
                    "pydantic") or klass is object:
                continue
            try:
                files.add(inspect.getfile(klass))
            except (TypeError, OSError):
                continue
    found = innermost_frame(exc.__traceback__, files)
    if found is None:  # raised by the contract for the part (a method it does not define)
        from .strategies import parts

        return "", _called_method(exc, {inspect.getfile(parts)})
    return f" at {shown_path(found[0])}:{found[1]}", _called_method(exc, files)


def _defined(strategy: Strategy, method: str) -> str:
    """`` (METHOD() at FILE:LINE)`` (see ``_definition``), "" when there is none."""
    where = _definition(strategy, method)
    return f" ({method}() at {where})" if where else ""


def _definition(strategy: Strategy, method: str) -> str:
    """``FILE:LINE`` where the strategy's own code (a part's, for a composed system)
    defines ``method``, for a refusal of what it returned; "" when the engine's classes
    define it."""
    from .strategies.base import _CONTRACT_MODULES

    for component in strategy.component_classes():
        for klass in component.__mro__:
            if klass.__module__ in _CONTRACT_MODULES or klass.__module__.startswith(
                    ("baccarat.", "pydantic")) or klass is object:
                continue
            code = getattr(vars(klass).get(method), "__code__", None)
            if code is not None:
                return f"{shown_path(code.co_filename)}:{code.co_firstlineno}"
    return ""


def _called_method(exc: BaseException, files: set[str]) -> str | None:
    """The name of the outermost function of ``files`` in ``exc``'s traceback: the method
    the engine (or a composed system) called, e.g. a selection's choose()."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            return tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    return None


def _at(run: _ConfigRun, grid: SessionGrid, coups: Coups, t: int,
        session: int | None = None) -> str:
    """Which strategy, session, shoe and coup (or sessions, for the array form)."""
    who = f"strategy {run.strategy.spec()!r}"
    n, width = grid.shape
    if session is None and n == 1:
        session = 0
    if t < 0 or width == 0:
        if session is not None:
            return f"{who}, session {grid.session_ids[session]}, before its first coup"
        return f"{who}, sessions {grid.session_ids[0]}-{grid.session_ids[-1]}, before the " \
               f"first coup"
    rows = grid.rows[:, min(t, width - 1)]
    if session is not None:
        return _where(run, grid, coups, rows, session)
    playing = np.flatnonzero(rows >= 0)
    first = int(playing[0]) if playing.size else 0
    row = rows[first]
    return (f"{who}, sessions {grid.session_ids[0]}-{grid.session_ids[-1]} at their coup "
            f"{t + 1} (session {grid.session_ids[first]}: shoe {coups.shoe[row]}, coup "
            f"{coups.coup[row]})")


def _where(run: _ConfigRun, grid: SessionGrid, coups: Coups, rows: np.ndarray,
           session: int) -> str:
    row = rows[session]
    if row < 0:
        return f"strategy {run.strategy.spec()!r}, session {grid.session_ids[session]}"
    return (f"strategy {run.strategy.spec()!r}, session {grid.session_ids[session]}, "
            f"shoe {coups.shoe[row]}, coup {coups.coup[row]}")


_NOT_A_STAKE, _UNSETTLED = 1, 3


@njit(cache=True)
def _settle_kernel(stakes, kinds, active, bankroll, classes, payouts, rules, limit_hits, net,
                   total, any_stake, short_ruin, below_stop):  # pragma: no cover - compiled
    """Apply the table rules to one step's stakes and settle them, all sessions in one pass.

    ``stakes`` (kinds x sessions) is replaced by the stakes actually placed, each as
    ``baccarat.session_play.table_stake`` places it under the policy row ``rules`` (a stake
    below the minimum under ``below_min="stop"`` sets ``below_stop``); stakes the
    bankroll cannot cover bust the session (``short_ruin``) or, under ``reduce``, are cut
    to it in proportion (``reduced_stake``). Returns (problem, kind row, session, how many
    sessions alike); problem 0 means none. Without a problem the second value is the
    number of sessions busted, the third the number stopped below the minimum.
    """
    n_kinds, n = stakes.shape
    chip = rules[R_CHIP]
    table_min = rules[R_TABLE_MIN]
    table_max = rules[R_TABLE_MAX]
    below = int(rules[R_BELOW])
    reduce = rules[R_REDUCE] > 0
    shorts = 0
    for k in range(n_kinds):  # every stake a finite non-negative number
        first = -1
        count = 0
        for i in range(n):
            if active[i] and not is_stake(stakes[k, i]):
                if first < 0:
                    first = i
                count += 1
        if first >= 0:
            return _NOT_A_STAKE, k, first, count
    stopped = 0
    for i in range(n):
        below_stop[i] = False
    for k in range(n_kinds):  # chips, table limits and minimum
        for i in range(n):
            s, capped, ends = table_stake(stakes[k, i] if active[i] else 0.0, chip, table_min,
                                          table_max, below)
            limit_hits[i] += capped
            stakes[k, i] = s
            if ends and not below_stop[i]:
                below_stop[i] = True
                stopped += 1
    if stopped:
        for i in range(n):
            if below_stop[i]:
                for k in range(n_kinds):
                    stakes[k, i] = 0.0
    for i in range(n):
        t = 0.0
        for k in range(n_kinds):
            t += stakes[k, i]
        total[i] = t
        short_ruin[i] = False
        if active[i] and short(t, bankroll[i]):  # the bankroll cannot cover the stakes
            small = True
            if reduce:
                scale = reduce_scale(t, bankroll[i])
                small = False
                reduced = 0.0
                for k in range(n_kinds):
                    s, too_small = reduced_stake(stakes[k, i], scale, chip, table_min)
                    stakes[k, i] = s
                    reduced += s
                    small = small or too_small
                total[i] = t * scale if chip <= 0 else reduced
            if small:
                short_ruin[i] = True
                shorts += 1
                for k in range(n_kinds):
                    stakes[k, i] = 0.0
                total[i] = 0.0
    for i in range(n):
        net[i] = 0.0
    for k in range(n_kinds):  # settle: one payout-table lookup per stake
        any_stake[k] = False
        for i in range(n):
            if stakes[k, i] != 0:
                any_stake[k] = True
                break
        if not any_stake[k]:
            continue
        column = kinds[k]
        for i in range(n):
            s = stakes[k, i]
            if s > 0:
                mult = payouts[classes[i], column]
                if np.isnan(mult):
                    return _UNSETTLED, k, i, 0
                net[i] += s * mult
    return 0, shorts, stopped, 0


def _play_step(run: _ConfigRun, t: int, rows: np.ndarray, dealt: np.ndarray,
               classes: np.ndarray, new_shoe: np.ndarray, coups: Coups,
               grid: SessionGrid) -> None:
    state = run.state
    n = state.n
    active = run.alive & dealt
    counts = run.counts
    if counts.shoes:
        counts.new_shoe(new_shoe, state.bankroll, run.alive, run.stop_reason)
        active &= ~counts.sitting
    state.set(active=active, new_shoe=new_shoe,
              shoe_coup=np.where(new_shoe, 0, state.shoe_coup))
    wager = _call(run, grid, coups, t, "wager", lambda: run.strategy.wager(run.table))
    names, stakes = _stake_matrix(run, wager, n, grid, coups, t)
    if wager.stop is not None:  # the strategy ends these sessions before the coup
        _end(run, _stop_mask(run, wager.stop, n, grid, coups, t), STRATEGY)
    kinds = _kind_columns(names)
    _check_offered(run, names, stakes, grid, coups, rows)
    net = np.empty(n)
    total = np.empty(n)
    any_stake = np.zeros(len(names), dtype=np.bool_)
    short_ruin, below_stop = run.short_ruin, run.below_stop
    problem, k, i, alike = _settle_kernel(
        stakes, kinds, state.active, state.bankroll, classes, run.payouts, run.policy_row,
        run.limit_hits, net, total, any_stake, short_ruin, below_stop)
    if problem:
        where = _where(run, grid, coups, rows, i)
        if problem == _NOT_A_STAKE:
            more_alike = f" ({alike - 1} more sessions alike)" if alike > 1 else ""
            value = float(stakes[k, i])
            said = (f"bet() returned {value!r} as the stake on {names[k]}"
                    if isinstance(run.strategy, SimpleStrategy)
                    else f"wager() staked {value!r} on {names[k]}")
            message = f"{said}; expected a finite number >= 0{more_alike}"
        else:
            message = (f"a stake on {names[k]} cannot be settled: the dataset lacks the cards "
                       f"(or totals) that bet needs under these rules")
        raise StrategyFault(f"{where}: {message}")
    if k:  # sessions busted: the bankroll cannot pay the stake asked for
        _end(run, short_ruin, BUSTED)
    if i:  # sessions stopped by a stake below the table minimum (below_min "stop")
        _end(run, below_stop, BELOW_MIN)
    playing = state.active
    for k, name in enumerate(names):
        if any_stake[k]:
            if name not in run.stakes:
                run.stakes[name] = np.zeros_like(run.net)
            run.stakes[name][t] = stakes[k]
    state.set(bankroll=state.bankroll + net)
    run.net[t] = net
    run.bankroll[t] = state.bankroll
    run.played[t] = playing
    run.step_net, run.step_staked, run.step_played = net, total, playing


def _stop_mask(run: _ConfigRun, stop: object, n: int, grid: SessionGrid, coups: Coups,
               t: int) -> np.ndarray:
    """A wager's ``stop`` as a boolean mask of the sessions, refusing anything else."""
    mask = np.asarray(stop)
    if mask.shape == () and mask.dtype == np.bool_:
        mask = np.full(n, bool(mask))
    if mask.dtype != np.bool_ or mask.shape != (n,):
        raise StrategyFault(f"{_at(run, grid, coups, t)}: wager() returned stop="
                            f"{describe_value(stop)}; expected a boolean array of shape "
                            f"({n},), True for the sessions to end")
    return mask


def _stake_matrix(run: _ConfigRun, wager: object, n: int, grid: SessionGrid, coups: Coups,
                  t: int) -> tuple[tuple[str, ...], np.ndarray]:
    """The wager's stakes as a (kinds, n) float matrix; anything that is not a stake
    (a string, None, an object, an array of another shape) is refused, saying what."""
    if not isinstance(wager, Wager):
        raise StrategyFault(f"{_at(run, grid, coups, t)}: wager() returned "
                            f"{describe_value(wager)}; expected a Wager (e.g. "
                            f"Wager.on(banker=stakes)){_defined(run.strategy, 'wager')}")
    if not isinstance(wager.stakes, dict):
        raise StrategyFault(f"{_at(run, grid, coups, t)}: wager() returned a Wager whose "
                            f"stakes are {describe_value(wager.stakes)}; expected a dict"
                            f"{_defined(run.strategy, 'wager')}")
    names = tuple(wager.stakes)
    stakes = np.empty((len(names), n))
    for k, (kind, stake) in enumerate(wager.stakes.items()):
        value = stake if isinstance(stake, np.ndarray) else (
            np.asarray(stake) if isinstance(stake, (int, float, np.number, list, tuple))
            else None)
        if (value is None or value.dtype.kind not in "iuf"
                or value.shape not in ((), (n,))):
            raise StrategyFault(
                f"{_at(run, grid, coups, t)}: wager() returned {describe_value(stake)} as "
                f"the stake on {kind}; expected a number or a numeric array of shape ({n},), "
                f"one stake per session{_defined(run.strategy, 'wager')}")
        stakes[k] = value
    return names, stakes


def _price_step(run: _ConfigRun, t: int, shared: _SharedView) -> None:
    """The exact expected net of this step's stakes, from the cards left in each shoe.

    Only sessions that staked are enumerated. A composition with fewer than six cards
    left (possible only after an extra coup past the cut card) cannot be enumerated as a
    whole coup; such a coup is priced by the full shoe.
    """
    assert run.exact_expected is not None and shared.seen is not None
    staking = np.flatnonzero(run.step_staked > 0)
    if staking.size == 0:
        return
    remaining = shared.remaining[staking]
    whole = (remaining.sum(axis=1) >= MIN_CARDS) & (remaining >= 0).all(axis=1)
    ev = np.empty((staking.size, len(BET_KINDS)))
    if whole.any():
        ev[whole] = expected_values_batch(remaining[whole], run.rules.model_copy(
            update={"decks": shared.decks}) if shared.decks != run.rules.decks else run.rules,
            validate=False, parallel=False, cache=CACHE, kinds=tuple(run.stakes))
    if not whole.all():
        shoe = full_shoe_ev(run.rules)
        ev[~whole] = [shoe[kind] for kind in BET_KINDS]
    expected = np.zeros(staking.size)
    for kind, grid in run.stakes.items():
        expected += grid[t, staking] * ev[:, KIND_INDEX[kind]]
    run.exact_expected[t, staking] = expected


def _check_offered(run: _ConfigRun, names: tuple[str, ...], stakes: np.ndarray,
                   grid: SessionGrid, coups: Coups, rows: np.ndarray) -> None:
    """Refuse a stake on a bet the table does not offer (e.g. Dragon 7 off an EZ table)."""
    for k, name in enumerate(names):
        if name in run.offered:
            continue
        staking = run.state.active & (stakes[k] != 0)
        if staking.any():
            i = int(np.flatnonzero(staking)[0])
            raise StrategyFault(
                f"{_where(run, grid, coups, rows, i)}: wager() staked on {name}, but {name} "
                f"is not offered under {run.rules.label()}; offered: "
                f"{', '.join(sorted(run.offered))}")


def _learn(run: _ConfigRun, t: int, dealt: np.ndarray, dealt_coup: Dealt, grid: SessionGrid,
           coups: Coups) -> None:
    net, total, playing = run.step_net, run.step_staked, run.step_played
    state = run.state
    result = Result(dealt=dealt_coup, net=net, staked=total, played=playing)
    state.set(coup=state.coup + playing, shoe_coup=state.shoe_coup + dealt)
    _call(run, grid, coups, t, "settle", lambda: run.strategy.settle(run.table, result))
    _apply_stop_rules(run, playing)


def _apply_stop_rules(run: _ConfigRun, playing: np.ndarray) -> None:
    state = run.state
    counts = run.counts
    active = state.active.copy()
    if _stops_kernel(run.policy_row, state.bankroll, playing, active, run.alive,
                     state.coup, run.step_net, run.step_staked, counts.peak, counts.losses,
                     counts.shoe_start, counts.shoe_peak, counts.shoe_losses,
                     counts.shoe_coups, counts.sitting, counts.shoe_stops, run.stop_reason,
                     run.ruined, run.ruin_coup):
        state.set(active=active)


@njit(cache=True)
def _stops_kernel(rules, bankroll, playing, active, alive, coup, net, staked, peak, losses,
                  shoe_start, shoe_peak, shoe_losses, shoe_coups, sitting, shoe_stops,
                  stop_reason, ruined, ruin_coup):  # pragma: no cover - compiled
    """The stop rules after a coup (``stop_after_coup``), for every session that played
    it: one that stops is no longer ``active``; it is no longer ``alive`` either unless
    a per-shoe rule stopped it (then it is ``sitting`` out the rest of its shoe, and the
    rule's count in ``shoe_stops`` moves). Returns
    how many sessions stopped."""
    stopped = 0
    for i in range(active.shape[0]):
        if not playing[i]:
            continue
        won = np.int64(staked[i] > 0) * np.int64(net[i] > 0)
        lost = np.int64(staked[i] > 0) * np.int64(net[i] < 0)
        reason, per_shoe, peak[i], losses[i], shoe_peak[i], shoe_losses[i], \
            shoe_coups[i] = stop_after_coup(rules, bankroll[i], coup[i], won, lost, peak[i],
                                            losses[i], shoe_start[i], shoe_peak[i],
                                            shoe_losses[i], shoe_coups[i])
        if reason < 0:
            continue
        stop_reason[i] = reason
        active[i] = False
        stopped += 1
        if per_shoe:
            sitting[i] = True
            shoe_stops[i, SHOE_STOP_SLOT[reason]] += 1
        else:
            alive[i] = False
            if reason == RUIN:
                ruined[i] = True
                ruin_coup[i] = coup[i]
    return stopped


_KIND_COLUMNS: dict[tuple[str, ...], np.ndarray] = {}


def _kind_columns(names: tuple[str, ...]) -> np.ndarray:
    """The payout-table columns of the bet kinds ``names`` (cached: a strategy stakes the
    same kinds step after step)."""
    columns = _KIND_COLUMNS.get(names)
    if columns is None:
        columns = _KIND_COLUMNS[names] = np.array([KIND_INDEX[k] for k in names], np.int64)
    return columns


def _end(run: _ConfigRun, mask: np.ndarray, reason: int, ruined: bool = False) -> None:
    state = run.state
    mask = mask & state.active
    if not mask.any():
        return
    run.stop_reason[mask] = reason
    if ruined:
        run.ruined |= mask
        run.ruin_coup[mask] = state.coup[mask]
    run.alive &= ~mask
    state.set(active=state.active & ~mask)


__all__ = ["BET_KINDS", "ConfigLedger", "RULE_FIELDS", "SessionGrid", "SessionPolicy",
           "StrategyFault", "config_policy", "replay", "session_grid"]
