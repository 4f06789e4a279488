"""The strategy contract: what a strategy sees, what it returns, and how it learns.

A ``Strategy`` plays *n* sessions at once on arrays of shape (n,); that is what makes
the built-ins fast. A ``SimpleStrategy`` is the same contract for one session with plain
Python numbers; the engine loops it over the sessions (slower, but a plugin is ten lines).

A strategy never sees the future: the ``Table`` it is shown holds only the coups already
dealt in each session, filled in by the engine after each coup is settled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.bets import BET_KINDS
from engine.coups import Coups
from engine.rules import TableRules

if TYPE_CHECKING:
    from engine.roads import RoadState


class Table:
    """The read-only view a strategy gets of its sessions before and after each coup.

    Attributes are arrays of shape (n,) unless said otherwise:
    ``coup`` (coups already played in the session), ``shoe_coup`` (coups already dealt
    in the current shoe), ``new_shoe`` (this coup opens a shoe), ``bankroll``, ``active``
    (the session is still playing), ``last_outcome`` (0 Banker, 1 Player, 2 Tie, -1 none
    yet), ``history`` (n, coups so far: outcomes of the session, -1 padding), ``rules``.
    ``roads`` (a ``RoadState``) is filled for strategies with ``needs_roads``; ``seen``
    and ``remaining`` (n, 10: cards by value shown / not yet shown in the shoe) for
    strategies with ``needs_cards``.
    """

    def __init__(self, n: int, rules: TableRules, start_bankroll: np.ndarray,
                 max_coups: int, history: np.ndarray | None = None) -> None:
        self.n = n
        self.rules = rules
        self.start_bankroll = start_bankroll
        self.bankroll = start_bankroll.copy()
        self.coup = np.zeros(n, dtype=np.int64)
        self.shoe_coup = np.zeros(n, dtype=np.int64)
        self.new_shoe = np.ones(n, dtype=bool)
        self.active = np.ones(n, dtype=bool)
        self.last_outcome = np.full(n, -1, dtype=np.int8)
        # The engine passes one history buffer shared by every configuration's table.
        self._history = (history if history is not None
                         else np.full((n, max(max_coups, 1)), -1, dtype=np.int8))
        self.step = 0
        self.roads: RoadState | None = None
        self.seen: np.ndarray | None = None
        self.remaining: np.ndarray | None = None

    @property
    def history(self) -> np.ndarray:
        """Outcomes of the coups already played, shape (n, steps so far); -1 = no coup."""
        return self._history[:, : self.step]

    def advance(self, outcome: np.ndarray, dealt: np.ndarray) -> None:
        """Engine only: move past the coup just settled (its outcome is in ``history``)."""
        self.last_outcome = np.where(dealt, outcome, self.last_outcome).astype(np.int8)
        self.step += 1


class Wager:
    """The stakes for the coup about to be dealt: one array of shape (n,) per bet kind.

    Kinds not given are not bet. ``Wager.on(banker=stakes)`` (an array of shape (n,) or a
    scalar per kind) or ``Wager.side(side, stake)`` build one.
    """

    __slots__ = ("stakes",)

    def __init__(self, stakes: dict[str, np.ndarray]) -> None:
        unknown = set(stakes) - set(BET_KINDS)
        if unknown:
            raise KeyError(f"unknown bet kind(s) {sorted(unknown)}; known: {list(BET_KINDS)}")
        self.stakes = stakes

    @classmethod
    def on(cls, **stakes: np.ndarray | float) -> Wager:
        """A wager from keyword stakes (arrays or scalars of numbers; text is refused)."""
        return cls({k: _stake_array(k, v) for k, v in stakes.items()})

    @classmethod
    def side(cls, side: str | np.ndarray, stake: np.ndarray) -> Wager:
        """Stake ``stake`` on ``side``: one kind name for all sessions, or an array of names.

        With an array, each session's stake goes on its own side (e.g. pattern followers).
        """
        if isinstance(side, str):
            return cls({side: np.asarray(stake, dtype=np.float64)})
        stakes = {}
        for kind in np.unique(side):
            if kind:
                stakes[str(kind)] = np.where(side == kind, stake, 0.0)
        return cls(stakes)


def _stake_array(kind: str, stake: object) -> np.ndarray:
    """``stake`` as float64, refusing what is not a number ("10", None, True) rather than
    letting numpy turn it into one."""
    array = np.asarray(stake)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"the stake on {kind} is {stake!r}, not a number (expected an int "
                        f"or float, or an array of them)")
    return array.astype(np.float64, copy=False)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) \
        and not isinstance(value, bool | np.bool_)


class Dealt:
    """The coup just dealt to each session, shared by every configuration.

    It holds copies of this coup's values only, never the coups table, so nothing
    reachable from a ``Result`` reveals a later coup. The cards are gathered only when
    some strategy of the run declares ``needs_cards``.
    """

    __slots__ = ("outcome", "player_total", "banker_total", "_cards")

    def __init__(self, coups: Coups, rows: np.ndarray, with_cards: bool) -> None:
        self.outcome = coups.outcome[rows]
        self.player_total = coups.player_total[rows]
        self.banker_total = coups.banker_total[rows]
        self._cards = np.take(coups.cards, rows, axis=0) if with_cards else None

    @property
    def cards(self) -> np.ndarray:
        """(n, 6) card codes: player 1-3, banker 1-3; -1 where absent."""
        if self._cards is None:
            raise AttributeError("the cards are only passed to strategies that declare "
                                 "`needs_cards = True`")
        return self._cards


@dataclass
class Result:
    """What happened on the coup just dealt, per session, and what this strategy netted.

    ``outcome`` (0 B, 1 P, 2 T), ``player_total`` and ``banker_total`` (-1 unknown),
    ``cards`` (n, 6: player 1-3, banker 1-3 card codes, -1 absent), ``net`` (this
    strategy's result), ``staked`` (total staked), ``played`` (a coup was dealt to the
    session and it was active).
    """

    dealt: Dealt
    net: np.ndarray
    staked: np.ndarray
    played: np.ndarray

    @property
    def outcome(self) -> np.ndarray:
        """0 Banker, 1 Player, 2 Tie."""
        return self.dealt.outcome

    @property
    def player_total(self) -> np.ndarray:
        """Player's final total (-1 unknown)."""
        return self.dealt.player_total

    @property
    def banker_total(self) -> np.ndarray:
        """Banker's final total (-1 unknown)."""
        return self.dealt.banker_total

    @property
    def cards(self) -> np.ndarray:
        """(n, 6) card codes of the coup."""
        return self.dealt.cards

    @property
    def won(self) -> np.ndarray:
        """Sessions whose bets netted more than nothing."""
        return self.played & (self.staked > 0) & (self.net > 0)

    @property
    def lost(self) -> np.ndarray:
        """Sessions whose bets netted less than nothing."""
        return self.played & (self.staked > 0) & (self.net < 0)

    @property
    def pushed(self) -> np.ndarray:
        """Sessions that staked and got their stake back (e.g. a tie on Banker/Player)."""
        return self.played & (self.staked > 0) & (self.net == 0)


class Strategy(BaseModel):
    """A betting system that plays many sessions at once on arrays.

    Subclasses declare their parameters as pydantic fields and implement ``start``,
    ``wager`` and ``settle``. ``name`` is the registry name; the class docstring's first
    line is the one-line description shown by ``baccarat strategies``.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)

    name: ClassVar[str] = ""
    needs_cards: ClassVar[bool] = False
    needs_roads: ClassVar[bool] = False

    base: float = Field(10.0, gt=0, description="base stake in table units")

    def start(self, table: Table) -> None:
        """Allocate per-session state for ``table.n`` sessions."""

    def wager(self, table: Table) -> Wager:
        """The stakes for the coup about to be dealt."""
        raise NotImplementedError

    def settle(self, table: Table, result: Result) -> None:
        """Learn what happened on the coup just dealt."""

    def params(self) -> dict[str, Any]:
        """The parameters of this configuration, as stored in every output."""
        return self.model_dump()

    def spec(self) -> str:
        """The configuration written as a --strategy SPEC (name:key=value,...)."""
        defaults = type(self)().model_dump() if _constructible(type(self)) else {}
        changed = {k: v for k, v in self.params().items() if defaults.get(k) != v}
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in changed.items())


def _constructible(cls: type[BaseModel]) -> bool:
    return all(not f.is_required() for f in cls.model_fields.values())


class SimpleStrategy(Strategy):
    """A betting system written for one session with plain Python numbers.

    Implement ``bet(view) -> dict[str, float]`` (kind -> stake; {} for no bet) and
    optionally ``reset()`` (called at the start of each session) and
    ``learn(view, outcome, net)``. ``view`` is a ``SessionView`` with this session's
    bankroll, outcome history (as letters "B", "P", "T") and last result. The engine
    makes one copy per session and loops over them: slower than the array form.
    Session state can be kept in plain attributes (``self.stake = ...``).
    """

    model_config = ConfigDict(extra="allow", validate_assignment=False)

    @model_validator(mode="before")
    @classmethod
    def _only_declared_parameters(cls, values: Any) -> Any:
        # Extra attributes are for session state set in reset(), not for parameters.
        if isinstance(values, dict):
            unknown = [k for k in values if k not in cls.model_fields]
            if unknown:
                raise ValueError(f"unknown parameter(s) {unknown}; "
                                 f"parameters: {list(cls.model_fields)}")
        return values

    def reset(self) -> None:
        """Start a new session (clear any state kept on ``self``)."""

    def bet(self, view: SessionView) -> dict[str, float]:
        """The stakes for the next coup in this session."""
        raise NotImplementedError

    def learn(self, view: SessionView, outcome: str, net: float) -> None:
        """Learn the outcome ("B", "P" or "T") of the coup and this session's net on it."""

    # The array contract, implemented by looping the scalar one over the sessions.
    def start(self, table: Table) -> None:
        self._players: list[SimpleStrategy] = []  # a previous run's copies are not copied
        self._players = [self.model_copy(deep=True) for _ in range(table.n)]
        for player in self._players:
            player.reset()

    def wager(self, table: Table) -> Wager:
        stakes: dict[str, np.ndarray] = {}
        for i in np.flatnonzero(table.active):
            for kind, stake in self._players[i].bet(SessionView(table, int(i))).items():
                if not _is_number(stake):
                    raise TypeError(f"bet() of session {i} returned the stake {stake!r} on "
                                    f"{kind}, not a number (expected an int or float)")
                if kind not in stakes:
                    stakes[kind] = np.zeros(table.n)
                stakes[kind][i] = stake
        return Wager(stakes)

    def settle(self, table: Table, result: Result) -> None:
        for i in np.flatnonzero(result.played):
            self._players[i].learn(SessionView(table, int(i)),
                                   "BPT"[int(result.outcome[i])], float(result.net[i]))


class SessionView:
    """One session's slice of the table, in plain Python values, for ``SimpleStrategy``."""

    __slots__ = ("_table", "_i")

    def __init__(self, table: Table, i: int) -> None:
        self._table = table
        self._i = i

    @property
    def bankroll(self) -> float:
        """Bankroll before the coup about to be dealt."""
        return float(self._table.bankroll[self._i])

    @property
    def coup(self) -> int:
        """Coups already played in this session."""
        return int(self._table.coup[self._i])

    @property
    def new_shoe(self) -> bool:
        """Whether the coup about to be dealt opens a new shoe."""
        return bool(self._table.new_shoe[self._i])

    @property
    def history(self) -> str:
        """Outcomes so far in this session as letters, e.g. "BBPTB"."""
        row = self._table.history[self._i]
        return "".join("BPT"[o] for o in row[row >= 0])

    @property
    def last(self) -> str | None:
        """The last outcome ("B", "P", "T"), or None before the first coup."""
        o = int(self._table.last_outcome[self._i])
        return None if o < 0 else "BPT"[o]

    @property
    def rules(self) -> TableRules:
        """The table rules."""
        return self._table.rules
