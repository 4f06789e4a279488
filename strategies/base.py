"""The strategy contract: what a strategy sees, what it returns, and how it learns.

A ``Strategy`` plays *n* sessions at once on arrays of shape (n,); that is what makes
the built-ins fast. A ``SimpleStrategy`` is the same contract for one session with plain
Python numbers; the engine loops it over the sessions (slower, but a plugin is ten lines).

A strategy never sees the future: the ``Table`` it is shown holds only the coups already
dealt in each session, filled in by the engine after each coup is settled.
"""

from __future__ import annotations

import difflib
import functools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..bets import BET_KINDS
from ..coups import OUTCOME_LABELS, Coups
from ..errors import shown_path
from ..rules import TableRules
from .finite_state import DECLARATIONS
from .randomness import SessionRandom, TableRandom
from .readonly import (
    ReadOnlyError,
    frozen,
    frozen_source,
    read_only,
    read_only_message,
    view_of,
)

if TYPE_CHECKING:
    from ..roads import BigRoad, RoadState


class Table:
    """The read-only view a strategy gets of its sessions before and after each coup.

    Attributes are arrays of shape (n,) unless said otherwise:
    ``coup`` (coups already played in the session), ``shoe_coup`` (coups already dealt
    in the current shoe), ``new_shoe`` (this coup opens a shoe), ``bankroll``,
    ``start_bankroll``, ``active`` (the session is still playing), ``last_outcome``
    (0 Banker, 1 Player, 2 Tie, -1 none yet), ``history`` (n, coups so far: outcomes of
    the session, -1 padding), ``n``, ``step`` (coups dealt so far) and ``rules``.
    ``roads`` (a :class:`TableRoads`) is filled for strategies with ``needs_roads``;
    ``seen`` and ``remaining`` (n, 10: cards by value shown / not yet shown in the shoe,
    index 0 = tens and faces) for strategies with ``needs_cards``. ``rng`` (a
    :class:`~baccarat.strategies.randomness.TableRandom`) draws random numbers per session, the
    same for the same (seed, session) whatever the chunking: ``table.rng.random()``.

    Everything here is read-only: assigning an attribute or writing into an array raises
    :class:`~baccarat.strategies.readonly.ReadOnlyError` naming it. The engine keeps the writable
    originals (a :class:`TableState`) and shows fresh views after each coup, so an array
    kept from an earlier coup still holds that coup's values.
    """

    n: int
    rules: TableRules
    step: int
    start_bankroll: np.ndarray
    bankroll: np.ndarray
    coup: np.ndarray
    shoe_coup: np.ndarray
    new_shoe: np.ndarray
    active: np.ndarray
    last_outcome: np.ndarray
    roads: TableRoads | None
    seen: np.ndarray | None
    remaining: np.ndarray | None
    rng: TableRandom

    def __init__(self, n: int, rules: TableRules, start_bankroll: np.ndarray,
                 max_coups: int = 1, history: np.ndarray | None = None) -> None:
        """A table before the first coup (the engine makes its own through ``TableState``)."""
        TableState(n, rules, start_bankroll, max_coups, history, table=self)

    @property
    def history(self) -> np.ndarray:
        """Outcomes of the coups already played, shape (n, steps so far); -1 = no coup."""
        return self._history[:, : self.step]  # type: ignore[attr-defined, no-any-return]

    def __getattr__(self, name: str) -> Any:
        # The engine publishes read-only buffers; a frozen copy is made on first reading.
        sources = self.__dict__.get("_sources")
        if sources is not None and name in sources:
            view = view_of(sources[name], f"table.{name}")
            self.__dict__[name] = view
            return view
        raise AttributeError(_unknown_table_attribute(name, self.__dir__()))

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.__dict__.get("_sources", ())})

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(read_only_message(f"table.{name}"))

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError(read_only_message(f"table.{name}"))


def _unknown_table_attribute(name: str, names: list[str]) -> str:
    """The message for a name the table does not have: the closest one, and what it has."""
    shown = sorted(n for n in names if not n.startswith("_"))
    close = difflib.get_close_matches(name, shown, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"the table has no attribute {name!r}{hint}; it shows {', '.join(shown)} "
            f"(n is the number of sessions)")


class TableState:
    """The engine's writable originals behind a :class:`Table` (engine and test rigs only).

    The engine changes a value with :meth:`set` (or changes an array in place and calls
    :meth:`publish`); the table then shows a read-only view of it. Nothing reachable from
    the table leads back here, so a strategy cannot change the engine's state.
    """

    ARRAYS = ("start_bankroll", "bankroll", "coup", "shoe_coup", "new_shoe", "active",
              "last_outcome")

    def __init__(self, n: int, rules: TableRules, start_bankroll: np.ndarray,
                 max_coups: int = 1, history: np.ndarray | None = None,
                 table: Table | None = None, rng: TableRandom | None = None) -> None:
        self.n = n
        self.rules = rules
        self.start_bankroll = np.array(start_bankroll, dtype=np.float64)
        self.bankroll = self.start_bankroll.copy()
        self.coup = np.zeros(n, dtype=np.int64)
        self.shoe_coup = np.zeros(n, dtype=np.int64)
        self.new_shoe = np.ones(n, dtype=bool)
        self.active = np.ones(n, dtype=bool)
        self.last_outcome = np.full(n, -1, dtype=np.int8)
        # The engine passes one history buffer shared by every configuration's table.
        self.history = (history if history is not None
                        else np.full((n, max(max_coups, 1)), -1, dtype=np.int8))
        self.step = 0
        self.roads: RoadState | None = None
        self.seen: np.ndarray | None = None
        self.remaining: np.ndarray | None = None
        self.table = table if table is not None else Table.__new__(Table)
        put = object.__setattr__
        put(self.table, "n", n)
        put(self.table, "rules", rules)
        put(self.table, "step", 0)
        put(self.table, "_history", read_only(self.history, "table.history"))
        put(self.table, "roads", None)
        put(self.table, "seen", None)
        put(self.table, "remaining", None)
        self.rng = rng if rng is not None else TableRandom(0, np.arange(n))
        put(self.table, "rng", self.rng)
        put(self.table, "_sources", {})
        self.publish(*self.ARRAYS)

    def set(self, **arrays: np.ndarray) -> None:
        """Replace engine arrays (``active=...``) and show the table read-only views of them."""
        for name, value in arrays.items():
            setattr(self, name, value)
        self.publish(*arrays)

    def publish(self, *names: str) -> None:
        """Show the table read-only copies of the named engine arrays (made when a
        strategy first reads them: most coups most strategies read few)."""
        shown = self.table.__dict__
        sources = shown["_sources"]
        for name in names:
            sources[name] = frozen_source(getattr(self, name))
            shown.pop(name, None)

    def follow(self, *names: str) -> None:
        """Show the table read-only windows onto the named engine arrays, which the engine
        updates in place (a window follows them: made once, not at every coup)."""
        shown = self.table.__dict__
        sources = shown["_sources"]
        for name in names:
            sources[name] = read_only(getattr(self, name), "")
            shown.pop(name, None)

    def attach_roads(self, roads: RoadState) -> None:
        """Keep these roads for the sessions; the table shows them through ``TableRoads``."""
        self.roads = roads
        object.__setattr__(self.table, "roads", TableRoads(roads))

    def attach_cards(self, seen: np.ndarray, remaining: np.ndarray) -> None:
        """Show these card counts (updated in place by the engine) on the table."""
        self.seen, self.remaining = seen, remaining
        self.follow("seen", "remaining")

    def advance(self, outcome: np.ndarray, dealt: np.ndarray) -> None:
        """Move past the coup just settled (its outcome is already in ``history``)."""
        self.set(last_outcome=np.where(dealt, outcome, self.last_outcome).astype(np.int8))
        self.step += 1
        object.__setattr__(self.table, "step", self.step)
        self.rng.at_step(self.step)


class TableRoads:
    """The roads of every session, read-only: what ``table.roads`` shows a strategy.

    The same queries as :class:`baccarat.roads.RoadState` (``last_colour(k)``,
    ``colour_if(k, outcome)``, ``ask(k)``, ``mark_count(k)``, ``side``, ``streak``,
    ``columns``, ``ties``, ``leading_ties``), each answering with a read-only array of
    shape (n,) (``ask``: (n, 2), the Banker and Player ask marks).
    ``k`` is 1 (big eye boy), 2 (small road) or 3 (cockroach pig); marks are 1 red,
    -1 blue, 0 none. The engine resets them when a shoe starts.
    """

    __slots__ = ("_state",)
    _state: RoadState

    def __init__(self, state: RoadState) -> None:
        object.__setattr__(self, "_state", state)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(read_only_message(f"table.roads.{name}"))

    @property
    def n_sessions(self) -> int:
        """How many sessions the roads are kept for."""
        return int(self._state.n_sessions)

    def last_colour(self, k: int) -> np.ndarray:
        """Latest mark of derived road ``k`` per session: 1 red, -1 blue, 0 none yet."""
        return frozen(self._state.last_colour(k), "table.roads.last_colour()")

    def colour_if(self, k: int, outcome: int | np.ndarray) -> np.ndarray:
        """The mark ``outcome`` (0 Banker, 1 Player, 2 Tie) would add to derived road ``k``."""
        return frozen(self._state.colour_if(k, outcome), "table.roads.colour_if()")

    def ask(self, k: int) -> np.ndarray:
        """The ask marks of derived road ``k`` (what the scoreboard predicts): (n, 2), column
        0 the mark a Banker win would add, column 1 a Player win's (1 red, -1 blue, 0 none)."""
        return frozen(self._state.ask(k), "table.roads.ask()")

    def mark_count(self, k: int) -> np.ndarray:
        """How many marks derived road ``k`` holds per session."""
        return frozen(self._state.mark_count(k), "table.roads.mark_count()")

    @property
    def side(self) -> np.ndarray:
        """The current big road column's side (0 Banker, 1 Player), -1 before any."""
        return frozen(self._state.side, "table.roads.side")

    @property
    def streak(self) -> np.ndarray:
        """The current big road column's length (0 before any decision)."""
        return frozen(self._state.streak, "table.roads.streak")

    @property
    def columns(self) -> np.ndarray:
        """The number of big road columns so far in the shoe."""
        return frozen(self._state.columns, "table.roads.columns")

    @property
    def ties(self) -> np.ndarray:
        """Ties counted on the latest big road cell."""
        return frozen(self._state.ties, "table.roads.ties")

    @property
    def leading_ties(self) -> np.ndarray:
        """Ties before the first decision of the shoe."""
        return frozen(self._state.leading_ties, "table.roads.leading_ties")


def kind_hint(kind: str) -> str:
    """' (did you mean 'player'?)' for a misspelt bet kind ("Player", "banekr"), or ""."""
    close = difflib.get_close_matches(kind.lower(), BET_KINDS, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Wager:
    """The stakes for the coup about to be dealt: one array of shape (n,) per bet kind.

    Kinds not given are not bet. ``Wager(banker=stakes)`` or ``Wager.on(banker=stakes)``
    (an array of shape (n,) or a scalar per kind), ``Wager({"banker": stakes})`` or
    ``Wager.side(side, stake)`` build one. The engine refuses anything else (a string,
    None, an array of another shape) at the coup it comes.

    ``stop`` (a boolean array of shape (n,), or ``Wager.end(mask)``) ends those sessions
    before this coup: they stake nothing on it and play no more, and the sessions table
    records ``stop_reason`` "strategy" (a stop-win or stop-loss the system itself keeps).
    """

    __slots__ = ("stakes", "stop")

    def __init__(self, stakes: dict[str, np.ndarray] | None = None, *,
                 stop: np.ndarray | None = None, **by_kind: np.ndarray | float) -> None:
        stakes = dict(stakes or {})
        stakes.update({k: _stake_array(k, v) for k, v in by_kind.items()})
        unknown = sorted(set(stakes) - set(BET_KINDS))
        if unknown:
            raise KeyError(f"unknown bet kind(s) {unknown}{kind_hint(unknown[0])}; known: "
                           f"{list(BET_KINDS)}")
        self.stakes = stakes
        self.stop = stop

    @classmethod
    def end(cls, sessions: np.ndarray) -> Wager:
        """End the sessions where ``sessions`` is True before this coup (no stake on it);
        their ``stop_reason`` is "strategy"."""
        return cls({}, stop=np.asarray(sessions, dtype=bool))

    @classmethod
    def on(cls, **stakes: np.ndarray | float) -> Wager:
        """A wager from keyword stakes (arrays or scalars of numbers; text is refused)."""
        return cls({kind: _stake_array(kind, stake) for kind, stake in stakes.items()})

    @classmethod
    def side(cls, side: str | np.ndarray, stake: np.ndarray | float) -> Wager:
        """Stake ``stake`` on ``side``: one kind name for all sessions, or an array of names.

        With an array, each session's stake goes on its own side (e.g. pattern followers).
        """
        if isinstance(side, str):
            return cls({side: np.asarray(stake)})
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


class Dealt:
    """The coup just dealt to each session, shared by every configuration.

    It holds read-only copies of this coup's values only, never the coups table, so
    nothing reachable from a ``Result`` reveals a later coup or can change what another
    configuration sees. The cards are gathered only when some strategy of the run
    declares ``needs_cards``.
    """

    __slots__ = ("outcome", "player_total", "banker_total", "_cards")
    outcome: np.ndarray
    player_total: np.ndarray
    banker_total: np.ndarray
    _cards: np.ndarray | None

    def __init__(self, coups: Coups, rows: np.ndarray, with_cards: bool) -> None:
        put = object.__setattr__
        put(self, "outcome", frozen(coups.outcome[rows], "result.outcome"))
        put(self, "player_total", frozen(coups.player_total[rows], "result.player_total"))
        put(self, "banker_total", frozen(coups.banker_total[rows], "result.banker_total"))
        put(self, "_cards", frozen(np.take(coups.cards, rows, axis=0), "result.cards")
            if with_cards else None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(read_only_message(f"result.{name}"))

    @property
    def cards(self) -> np.ndarray:
        """(n, 6) card codes: player 1-3, banker 1-3; -1 where absent."""
        if self._cards is None:
            raise AttributeError("the cards are only passed to strategies that declare "
                                 "`needs_cards = True`")
        return self._cards


class Result:
    """What happened on the coup just dealt, per session, and what this strategy netted.

    ``outcome`` (0 B, 1 P, 2 T), ``player_total`` and ``banker_total`` (-1 unknown),
    ``cards`` (n, 6: player 1-3, banker 1-3 card codes, -1 absent), ``net`` (this
    strategy's result), ``staked`` (total staked), ``played`` (a coup was dealt to the
    session and it was active). Read-only, like the table.
    """

    __slots__ = ("dealt", "_sources", "_views")
    dealt: Dealt
    _sources: tuple[Any, Any, Any]
    _views: list[np.ndarray | None]

    def __init__(self, dealt: Dealt, net: np.ndarray, staked: np.ndarray,
                 played: np.ndarray) -> None:
        put = object.__setattr__
        put(self, "dealt", dealt)
        put(self, "_sources", (frozen_source(net), frozen_source(staked),
                               frozen_source(played)))
        put(self, "_views", [None, None, None])

    def _view(self, k: int, name: str) -> np.ndarray:
        view = self._views[k]
        if view is None:
            view = self._views[k] = view_of(self._sources[k], name)
        return view

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(read_only_message(f"result.{name}"))

    @property
    def net(self) -> np.ndarray:
        """This strategy's net on the coup, per session."""
        return self._view(0, "result.net")

    @property
    def staked(self) -> np.ndarray:
        """The total staked on the coup, per session."""
        return self._view(1, "result.staked")

    @property
    def played(self) -> np.ndarray:
        """The session was dealt the coup and was active."""
        return self._view(2, "result.played")

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
        return frozen(self.played & (self.staked > 0) & (self.net > 0), "result.won")

    @property
    def lost(self) -> np.ndarray:
        """Sessions whose bets netted less than nothing."""
        return frozen(self.played & (self.staked > 0) & (self.net < 0), "result.lost")

    @property
    def pushed(self) -> np.ndarray:
        """Sessions that staked and got their stake back (e.g. a tie on Banker/Player)."""
        return frozen(self.played & (self.staked > 0) & (self.net == 0), "result.pushed")


#: The modules of the contract's own base classes (named by their subclasses, not by them).
_CONTRACT_MODULES = frozenset({__name__, "baccarat.strategies.parts", "baccarat.strategies.system",
                               "baccarat.strategies.simple"})


class Configured(BaseModel):
    """A configurable piece of a system: a whole strategy or one of its parts.

    Parameters are the class's annotated pydantic fields (validated, stored in every
    output, written in the SPEC); anything else set on ``self`` while playing is per-run
    state (never validated, stored or shown), cleared by the engine before each run.
    ``name`` is the registry name; a plugin without one is labelled by its class name.
    """

    # defer_build: a class's validator is built when it is first used, not when it is
    # defined, so listing the strategies (or loading a plugin file) builds none of them.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False,
                              defer_build=True)

    name: ClassVar[str] = ""
    #: The methods the engine calls on this family (what a plugin defines); a plugin
    #: method whose name is close to one it does not define is refused as misspelt.
    hooks: ClassVar[tuple[str, ...]] = ()
    #: Why exact risk cannot follow this class's state ("": it declares one, or says
    #: nothing; see ``strategies/finite_state.py``).
    not_finite: ClassVar[str] = ""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.__module__ in _CONTRACT_MODULES:  # the contract's own base classes
            return
        if not cls.name:  # a plugin without a name is labelled by its class
            cls.name = snake_case(cls.__name__)
        _label_path_plugin(cls)
        if not cls.__module__.startswith(_PACKAGE_PREFIXES):
            _refuse_misspelt_hooks(cls)

    @classmethod
    def _builtin_named(cls, name: str) -> type | None:
        """The built-in of this family already called ``name`` (None if there is none)."""
        from .registry import builtin_strategies

        return builtin_strategies().get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        if name in _STATE_NAMES.get(cls, ()):  # the hot path: a state name seen before
            # Straight into the instance's dict: the name has no class attribute (no
            # descriptor to call), and object.__setattr__ on a model costs four times more.
            self.__dict__[name] = value
            return
        if (name in cls.__pydantic_fields__ or name in cls.__private_attributes__
                or name.startswith("__")):
            super().__setattr__(name, value)  # a parameter (validated), private or Python's
            return
        declared = getattr(cls, name, None)
        if declared is not None and not hasattr(declared, "__set__"):
            what = ("a class setting" if name in cls.__class_vars__ else "a method")
            raise AttributeError(
                f"{cls.__name__}.{name} is {what} of the {_family(cls)}, not state: keep "
                f"the state under another name (e.g. self.{name.lstrip('_')}_state = ...)")
        object.__setattr__(self, name, value)  # the strategy's own per-run state
        if declared is None:  # a descriptor (a property's setter) is called every time
            _STATE_NAMES.setdefault(cls, set()).add(name)

    def clear_state(self) -> None:
        """Forget the per-run state: every attribute set since the engine first saw this
        instance that is not a parameter (what ``__init__`` set is configuration, kept)."""
        values = self.__dict__
        kept = values.get(_CONFIGURED)
        if kept is None:  # the first run: whatever is here now came with the instance
            values[_CONFIGURED] = frozenset(values)
            return
        fields = type(self).__pydantic_fields__
        for key in [k for k in values if k not in kept and k not in fields]:
            del values[key]

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


class Strategy(Configured):
    """A betting system that plays many sessions at once on arrays.

    Subclasses declare their parameters as pydantic fields and implement ``start``,
    ``wager`` and ``settle``. ``name`` is the registry name; the class docstring's first
    line is the one-line description shown by ``baccarat strategies``.

    State: ``self.anything = value`` in ``start``, ``wager`` or ``settle`` keeps the
    strategy's own per-run state (not a parameter: it is never validated, stored in the
    outputs or shown in the SPEC). The engine clears it before each run calls ``start``,
    so nothing leaks from one run or chunk into the next; what ``__init__`` set stays.
    """

    needs_cards: ClassVar[bool] = False
    needs_roads: ClassVar[bool] = False
    hooks: ClassVar[tuple[str, ...]] = ("start", "wager", "settle")

    base: float = Field(10.0, gt=0, description="base stake in table units")

    def component_classes(self) -> tuple[type, ...]:
        """The classes whose code plays this configuration (a composed system's parts
        too): an error is located in the innermost frame of their files."""
        return (type(self),)

    def session_rules(self) -> dict[str, Any]:
        """The session rules this configuration brings (``SessionPolicy`` fields): none
        for a plain strategy; a composed system's rule parts (``stop:win=50``) set some."""
        return {}

    def start(self, table: Table) -> None:
        """Allocate per-session state for ``table.n`` sessions."""

    def wager(self, table: Table) -> Wager:
        """The stakes for the coup about to be dealt."""
        raise NotImplementedError

    def settle(self, table: Table, result: Result) -> None:
        """Learn what happened on the coup just dealt."""


_CONFIGURED = "_configured_attributes_"
#: Per class, the names already accepted as plain state (no class attribute of that name:
#: checked once, then set directly in the instance's dict).
_STATE_NAMES: dict[type, set[str]] = {}


def snake_case(name: str) -> str:
    """``PlayerAfterBanker`` -> ``player_after_banker``, ``EVCounter`` -> ``ev_counter``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _family(cls: type) -> str:
    """What a class is, for messages: "strategy", or the kind of part ("selection", ...)."""
    return str(getattr(cls, "kind", "") or "strategy")


def _label_path_plugin(cls: type[Configured]) -> None:
    """A strategy (or part) from a file loaded by path whose name a built-in already has is
    labelled ``name@file.py``, so its outputs cannot be taken for the built-in's. It
    happens as the class is made, so every process that loads the file gives it the same
    label."""
    if not cls.__module__.startswith("baccarat_plugin_"):
        return
    taken = cls._builtin_named(cls.name)
    if taken is not None and taken is not cls:
        file = getattr(sys.modules.get(cls.__module__), "__file__", None) or "plugin"
        cls.name = f"{cls.name}@{Path(file).name}"


def _constructible(cls: type[BaseModel]) -> bool:
    return all(not f.is_required() for f in cls.model_fields.values())


class _Stop:
    """What a simple strategy's ``bet()`` (or a simple selection's ``pick()``) returns to
    end its session before the coup: ``return STOP``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "STOP"

    def __reduce__(self) -> str:
        return "STOP"  # one object, also in another process


#: Return it from ``bet()`` to end the session (``stop_reason`` "strategy").
STOP = _Stop()


class SessionFault(Exception):
    """Raised by the simple form's loop: which session (index in the table) went wrong in
    which method, and why (``message``) or from which exception (``__cause__``)."""

    def __init__(self, session: int, method: str, message: str = "") -> None:
        super().__init__(message)
        self.session = session
        self.method = method
        self.message = message


class HookReturnError(ValueError):
    """What a plugin's hook returned and the contract cannot take (a string where codes or
    stakes go, an array of another shape): ``method`` names the hook (``choose``,
    ``stakes``, ``kinds``), so that the engine's error names where the plugin defines it."""

    def __init__(self, method: str, message: str) -> None:
        super().__init__(message)
        self.method = method


_KINDS = frozenset(BET_KINDS)

#: The letters of the outcome codes (0 Banker, 1 Player, 2 Tie), as bytes.
_OUTCOME_LETTERS = np.frombuffer("".join(OUTCOME_LABELS).encode("ascii"), dtype=np.uint8)


def _letters(outcomes: np.ndarray) -> str:
    """Outcome codes as letters ("BBPTB"), the coups not played yet (-1) left out: one
    array lookup, since a plugin may ask at every coup for a history as long as the
    session (letter by letter in Python that was most of a SimpleStrategy's time)."""
    codes = outcomes.view(np.ndarray)
    return _OUTCOME_LETTERS[codes[codes >= 0]].tobytes().decode("ascii")


def describe_value(value: Any) -> str:
    """A short description of what a strategy returned, for error messages."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return describe_value(value.item())
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if value is None or isinstance(value, (bool, int, float, np.number)):
        return repr(value)
    if isinstance(value, str):
        return f"the string {value!r}"
    text = repr(value)
    return f"{text if len(text) <= 60 else text[:57] + '...'} ({type(value).__name__})"


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)))


#: The array form's hooks a simple strategy must not replace, and the simple form's own.
_SIMPLE_HOOKS = {"start": "reset(self)", "wager": "bet(self, view)",
                 "settle": "learn(self, view, outcome, net)"}


_PACKAGE_PREFIXES = ("baccarat.",)


def _refuse_array_hooks(cls: type) -> None:
    """Refuse a simple strategy that defines the array form's start/wager/settle: those
    are how the engine plays its per-session copies, so defining them breaks the copies
    with an error about the engine's internals rather than the plugin's mistake."""
    for hook, simple in _SIMPLE_HOOKS.items():
        method = cls.__dict__.get(hook)
        if method is None or getattr(method, "__module__", "").startswith(_PACKAGE_PREFIXES):
            continue  # none, or the engine's own wrapper (check-strategy watches the hooks)
        code = getattr(method, "__code__", None)
        where = f" ({shown_path(code.co_filename)}:{code.co_firstlineno})" if code else ""
        raise TypeError(
            f"{cls.__name__}.{hook}(){where}: a SimpleStrategy plays one session through "
            f"reset(self) (a new session), bet(self, view) and learn(self, view, outcome, "
            f"net); {hook}() belongs to the array form: write it as {simple}")


def _own_methods(cls: type) -> dict[str, Any]:
    """The public methods the plugin's own classes (not this package's, not pydantic's)
    define, by name, the most derived first."""
    own: dict[str, Any] = {}
    for klass in cls.__mro__:
        if klass.__module__.startswith(_PACKAGE_PREFIXES) or klass.__module__ in (
                "pydantic.main", "builtins"):
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_") and callable(getattr(value, "__func__", value)):
                own.setdefault(name, value)
    return own


def _refuse_misspelt_hooks(cls: type) -> None:
    """Refuse a plugin class defining a method whose name is close to one of its family's
    hooks (``learns`` for ``learn``, ``setle`` for ``settle``) while not defining that hook:
    the engine would never call it, and the plugin would play silently without it."""
    hooks: tuple[str, ...] = getattr(cls, "hooks", ())
    own = _own_methods(cls)
    for name, value in own.items():
        if name in hooks or name in DECLARATIONS:  # a hook, or exact risk's
            continue
        close = [hook for hook in difflib.get_close_matches(name.lower(), hooks, n=3,
                                                             cutoff=0.8) if hook not in own]
        if not close:
            continue
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        where = f" ({shown_path(code.co_filename)}:{code.co_firstlineno})" if code else ""
        raise TypeError(
            f"{cls.__name__}.{name}(){where}: did you mean {close[0]}()? The engine calls "
            f"{', '.join(f'{hook}()' for hook in hooks)} on a {_family(cls)} and never "
            f"{name}(); rename it")


def missing_method(cls: type, method: str = "bet", signature: str = "self, view",
                   purpose: str = "the method the engine calls before each coup for the "
                   "session's stakes", role: str = "decides the stakes") -> str:
    """What to say of a simple strategy or part that does not define ``method``: the
    methods it does define instead are the likely misnamed one."""
    hooks: tuple[str, ...] = getattr(cls, "hooks", ())
    own = sorted(name for name in _own_methods(cls) if name not in hooks)
    hint = (f"; it defines {', '.join(f'{name}()' for name in own)}: the one that {role} "
            f"must be named {method}" if own else "")
    return f"{cls.__name__} does not define {method}({signature}), {purpose}{hint}"


class SimpleStrategy(Strategy):
    """A betting system written for one session with plain Python numbers.

    Implement ``bet(view) -> dict[str, float]`` (kind -> stake; {} for no bet) and
    optionally ``reset()`` (called at the start of each session) and
    ``learn(view, outcome, net)``. ``view`` is a ``SessionView``: this session's slice of
    the same table the array form sees (bankroll, history, roads, cards and odds). The
    engine makes one copy per session and loops over them: slower than the array form.
    Session state can be kept in plain attributes (``self.stake = ...``).
    """

    hooks: ClassVar[tuple[str, ...]] = ("reset", "bet", "learn")

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _refuse_array_hooks(cls)

    def reset(self) -> None:
        """Start a new session (clear any state kept on ``self``)."""

    def bet(self, view: SessionView) -> dict[str, float]:
        """The stakes for the next coup in this session ({} for no bet; ``STOP`` ends the
        session before the coup, recorded as ``stop_reason`` "strategy")."""
        raise NotImplementedError(missing_method(type(self)))

    def learn(self, view: SessionView, outcome: str, net: float) -> None:
        """Learn the outcome ("B", "P" or "T") of the coup and this session's net on it."""

    # Exact risk without a declaration: the state is what reset() and learn() keep on
    # self, while bet() reads nothing else and learn() reads the net only of a coup
    # without a win or a loss (strategies/derived_state.py).
    def initial_state(self) -> Any:
        from .derived_state import derived

        return derived(self).initial_state()

    def stakes_of(self, state: Any) -> dict[str, float]:
        stakes = self._derived_bet(state)
        return {} if stakes is STOP else dict(stakes)

    def ends_before(self, state: Any) -> bool:
        return self._derived_bet(state) is STOP

    def next_state(self, state: Any, outcome: str, result: str) -> Any:
        from .derived_state import Unread, derived, net_of

        return derived(self).moved(state, "learn", Unread("view", "learn"), outcome,
                                   net_of(result, "learn"))

    def _derived_bet(self, state: Any) -> Any:
        from .derived_state import Unread, derived

        return derived(self).call(state, "bet", Unread("view", "bet"))

    # The array contract, implemented by looping the scalar one over the sessions.
    def start(self, table: Table) -> None:
        self._seats: _Seats | None = None  # a previous run's copies are not copied
        players = _session_copies(self, table.n)
        for i, player in enumerate(players):
            try:
                player.reset()
            except Exception as exc:
                raise SessionFault(i, "reset") from exc
        self._seats = _Seats(players, table)

    def wager(self, table: Table) -> Wager:
        n = table.n
        rows: dict[str, list[Any]] = {}
        ended: list[int] = []
        seats = self._seated(table)
        bets, views = seats.bets, seats.views
        for i in np.flatnonzero(table.active).tolist():
            try:
                stakes = bets[i](views[i])
            except Exception as exc:
                raise SessionFault(i, "bet") from exc
            if stakes is STOP:
                ended.append(i)
                continue
            if type(stakes) is not dict and not isinstance(stakes, Mapping):
                raise SessionFault(i, "bet", f"bet() returned {describe_value(stakes)}; "
                                   f"expected a dict of bet kind -> stake, {{}} for no bet")
            for kind, stake in stakes.items():
                row = rows.get(kind)
                if row is None:
                    if kind not in _KINDS:
                        raise SessionFault(i, "bet", f"bet() returned a stake on {kind!r}, "
                                           f"which is not a bet kind{kind_hint(str(kind))}; "
                                           f"known: {', '.join(BET_KINDS)}")
                    row = rows[kind] = [0.0] * n
                # NaN, infinite and negative stakes are the engine's to refuse (or a
                # checker's to leave out), as they are for the array form.
                if (type(stake) is not float and type(stake) is not int
                        and not _is_number(stake)):
                    raise SessionFault(i, "bet", f"bet() returned {describe_value(stake)} as "
                                       f"the stake on {kind}; expected a finite number >= 0")
                row[i] = stake
        stop = None
        if ended:
            stop = np.zeros(n, dtype=bool)
            stop[ended] = True
        return Wager({kind: _stake_row(row) for kind, row in rows.items()}, stop=stop)

    def settle(self, table: Table, result: Result) -> None:
        seats = self._seated(table)
        learns, views = seats.learns, seats.views
        # Plain Python values once per coup, rather than a NumPy scalar per session.
        outcome = result.outcome.tolist()
        net = result.net.tolist()
        for i in np.flatnonzero(result.played).tolist():
            try:
                learns[i](views[i], _LETTERS[outcome[i]], net[i])
            except Exception as exc:
                raise SessionFault(i, "learn") from exc

    def _seated(self, table: Table) -> _Seats:
        """The sessions' copies, seen through ``table`` (views made again for another
        table object than the one the run started with)."""
        seats = self.__dict__.get("_seats")
        if seats is None:
            raise AttributeError("the simple form plays its sessions from start(): call "
                                 "start(table) first")
        if seats.table is not table:
            seats = self._seats = _Seats(seats.players, table)
        return seats


_LETTERS = OUTCOME_LABELS
_ATOMS = (int, float, complex, str, bytes, bool, type(None))


def _session_copies(strategy: SimpleStrategy, n: int) -> list[SimpleStrategy]:
    """``n`` deep copies of ``strategy``, one per session.

    When everything the instance holds is immutable (numbers, strings, tuples of them: a
    plugin's parameters), a shallow copy is a deep one, made in a quarter of the time.
    """
    cls = type(strategy)
    shallow = (cls.__copy__ is BaseModel.__copy__ and cls.__deepcopy__ is BaseModel.__deepcopy__
               and not strategy.__pydantic_extra__
               and all(_immutable(v) for v in strategy.__dict__.values())
               and all(_immutable(v) for v in (strategy.__pydantic_private__ or {}).values()))
    return [strategy.model_copy(deep=not shallow) for _ in range(n)]


def _immutable(value: Any) -> bool:
    """Whether ``value`` can hold nothing that changes (its exact type, not a subclass)."""
    kind = type(value)
    if kind in _ATOMS:
        return True
    return (kind is tuple or kind is frozenset) and all(_immutable(v) for v in value)


class _Seats:
    """A simple strategy's per-session copies during a run, with what the loop calls:
    each copy's bound ``bet``/``learn`` and its session's view (made once per run: a view
    reads the table at each access, so it always shows the coup about to be dealt)."""

    __slots__ = ("players", "table", "views", "bets", "learns")

    def __init__(self, players: list[SimpleStrategy], table: Table) -> None:
        self.players = players
        self.table = table
        self.views = [SessionView(table, i) for i in range(len(players))]
        self.bets = [player.bet for player in players]
        self.learns = [player.learn for player in players]


def _stake_row(row: list[Any]) -> np.ndarray:
    """One bet kind's stakes (Python or NumPy numbers) as float64, converted as assigning
    each into a float64 array would (which also raises what that raises)."""
    try:
        return np.array(row, dtype=np.float64)
    except (OverflowError, TypeError, ValueError):
        stakes = np.zeros(len(row))
        for i, stake in enumerate(row):
            stakes[i] = stake
        return stakes


class SessionView:
    """One session's slice of the table, in plain Python values, for ``SimpleStrategy``.

    It reads the same read-only arrays as the array form's ``Table`` (at this session's
    index), so the two forms see exactly the same thing.
    """

    __slots__ = ("_table", "_i")
    _table: Table
    _i: int

    def __init__(self, table: Table, i: int) -> None:
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_i", i)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(read_only_message(f"view.{name}"))

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError(read_only_message(f"view.{name}"))

    def __getattr__(self, name: str) -> Any:
        # reached for a name the view does not have (a plugin's guess), and for a
        # property whose own AttributeError must stand (view.roads undeclared)
        if hasattr(type(self), name):
            return object.__getattribute__(self, name)
        raise AttributeError(_missing_view_name(name))

    @property
    def bankroll(self) -> float:
        """Bankroll before the coup about to be dealt."""
        return float(self._table.bankroll[self._i])

    @property
    def coup(self) -> int:
        """Coups already played in this session."""
        return int(self._table.coup[self._i])

    @property
    def shoe_coup(self) -> int:
        """Coups already dealt in the current shoe."""
        return int(self._table.shoe_coup[self._i])

    @property
    def new_shoe(self) -> bool:
        """Whether the coup about to be dealt opens a new shoe."""
        return bool(self._table.new_shoe[self._i])

    @property
    def history(self) -> str:
        """Outcomes so far in this session as letters, e.g. "BBPTB"."""
        return _letters(self._table.history[self._i])

    @property
    def last(self) -> str | None:
        """The last outcome ("B", "P", "T"), or None before the first coup."""
        o = int(self._table.last_outcome[self._i])
        return None if o < 0 else "BPT"[o]

    @property
    def rules(self) -> TableRules:
        """The table rules."""
        return self._table.rules

    @property
    def rng(self) -> SessionRandom:
        """This session's random numbers (``random()``, ``randint(a, b)``, ``choice(seq)``,
        ``uniform(a, b)``): the same for the same (seed, session) whatever the chunking."""
        return self._table.rng.session(self._i)

    @property
    def roads(self) -> SessionRoads:
        """This session's roads (strategies with ``needs_roads = True``)."""
        roads = self._table.roads
        if roads is None:
            raise AttributeError("view.roads is only kept for strategies that declare "
                                 "`needs_roads = True`")
        return SessionRoads(roads, self._table, self._i)

    @property
    def seen(self) -> np.ndarray:
        """Cards by value shown so far in this shoe (10 counts, index 0 = tens and faces),
        the shown burn card included; read-only (strategies with ``needs_cards = True``)."""
        return self._cards("seen")[self._i]

    @property
    def remaining(self) -> np.ndarray:
        """Cards by value not yet shown in this shoe (10 counts, index 0 = tens and faces)."""
        return self._cards("remaining")[self._i]

    def odds(self) -> CardOdds:
        """Exact odds of the next coup dealt from the cards remaining in this shoe.

        The probabilities of Banker, Player and Tie and the expected net per unit staked
        of every bet the table offers, by exact enumeration (:mod:`baccarat.odds`) of the
        ``remaining`` composition; computed once per composition and kept.
        """
        remaining = self.remaining
        decks = max(int(remaining.sum() + self.seen.sum()) // 52, 1)
        return card_odds(tuple(int(c) for c in remaining), self._table.rules, decks)

    def _cards(self, name: str) -> np.ndarray:
        counts = getattr(self._table, name)
        if counts is None:
            raise AttributeError(f"view.{name} is only kept for strategies that declare "
                                 f"`needs_cards = True`, on datasets with the cards")
        return counts  # type: ignore[no-any-return]


_COLOURS = {1: "red", -1: "blue"}


#: What newcomers call a view's attributes, and the attribute they mean.
_VIEW_SYNONYMS = {"outcomes": "history", "results": "history", "winners": "history",
                  "balance": "bankroll", "shoe": "new_shoe", "cards": "seen"}


def _missing_view_name(name: str) -> str:
    """The error for ``view.NAME`` that is not there: the closest name and every name."""
    names = sorted(n for n in dir(SessionView) if not n.startswith("_"))
    close = _VIEW_SYNONYMS.get(name) or next(iter(difflib.get_close_matches(name, names, 1)),
                                             None)
    hint = f"; did you mean view.{close}?" if close else ""
    return f"the view has no {name!r}{hint} (it has: {', '.join(names)})"


def _road_k(k: int) -> int:
    if k not in (1, 2, 3):
        from ..roads import _check_k

        _check_k(k)  # raises the roads' own message
    return k
_SIDE_CODES = {"B": 0, "P": 1, "T": 2}


class SessionRoads:
    """One session's roads, with the same meaning as ``table.roads`` at its index.

    Sides are "B"/"P", marks "red"/"blue" (None: no mark yet). The derived roads are
    ``k`` = 1 big eye boy, 2 small road, 3 cockroach pig; ``bead_plate`` and
    ``big_road`` draw this shoe's roads in full (:mod:`baccarat.roads`).
    """

    __slots__ = ("_roads", "_table", "_i")

    def __init__(self, roads: TableRoads, table: Table, i: int) -> None:
        self._roads = roads
        self._table = table
        self._i = i

    @property
    def _state(self) -> RoadState:
        return self._roads._state

    @property
    def side(self) -> str | None:
        """The current big road column's side ("B" or "P"), None before any decision."""
        side = int(self._state._side[self._i])
        return None if side < 0 else "BPT"[side]

    @property
    def streak(self) -> int:
        """The current big road column's length (0 before any decision)."""
        return int(self._state._lengths[self._i, 0])

    @property
    def columns(self) -> int:
        """The number of big road columns so far in the shoe."""
        return int(self._state._columns[self._i])

    @property
    def ties(self) -> int:
        """Ties counted on the latest big road cell."""
        return int(self._state._ties[self._i])

    @property
    def leading_ties(self) -> int:
        """Ties before the first decision of the shoe."""
        return int(self._state._leading[self._i])

    # Scalar reads of RoadState's per-session arrays (its own queries copy all sessions).
    def last_colour(self, k: int) -> str | None:
        """Latest mark of derived road ``k``: "red", "blue" or None."""
        return _COLOURS.get(int(self._state._last[self._i, _road_k(k) - 1]))

    def colour_if(self, k: int, outcome: str) -> str | None:
        """The mark ``outcome`` ("B", "P" or "T") would add to derived road ``k``.

        As ``RoadState.colour_if``: a repeat of the current side adds red unless column
        C-k is as long as the current one; the other side adds the opposite colour; a tie,
        or too few big road columns yet, adds none.
        """
        k = _road_k(k)
        code = _SIDE_CODES.get(outcome)
        if code is None:
            raise ValueError(f"outcome must be 'B', 'P' or 'T', got {outcome!r}")
        state, i = self._state, self._i
        if code == 2 or state._columns[i] <= k:
            return None
        same = 1 if state._lengths[i, k] != state._lengths[i, 0] else -1
        return _COLOURS[same if code == state._side[i] else -same]

    def ask(self, k: int) -> dict[str, str | None]:
        """The ask marks of derived road ``k``: ``{"B": "red", "P": "blue"}``, the mark a
        Banker win and a Player win would add (None for both before the road starts)."""
        return {side: self.colour_if(k, side) for side in ("B", "P")}

    def mark_count(self, k: int) -> int:
        """How many marks derived road ``k`` holds."""
        return int(self._state._marks[self._i, _road_k(k) - 1])

    @property
    def big_eye_boy(self) -> str | None:
        """Latest big eye boy mark ("red", "blue" or None)."""
        return self.last_colour(1)

    @property
    def small_road(self) -> str | None:
        """Latest small road mark ("red", "blue" or None)."""
        return self.last_colour(2)

    @property
    def cockroach_pig(self) -> str | None:
        """Latest cockroach pig mark ("red", "blue" or None)."""
        return self.last_colour(3)

    @property
    def bead_plate(self) -> str:
        """This shoe's outcomes so far as letters, ties included (the bead plate's order)."""
        table = self._table
        row = table.history[self._i]
        shoe = row[len(row) - int(table.shoe_coup[self._i]):] if table.step else row[:0]
        return _letters(shoe)

    @property
    def big_road(self) -> BigRoad:
        """This shoe's big road (columns, ties and the six-row display)."""
        from ..roads import big_road, outcomes_from_labels

        return big_road(outcomes_from_labels(self.bead_plate))


@dataclass(frozen=True)
class CardOdds:
    """Exact odds of the next coup from a shoe's remaining cards.

    ``banker``, ``player``, ``tie``: probabilities of the outcome; ``ev``: expected net
    per unit staked of each bet kind the table offers (e.g. ``ev["banker"]``).
    """

    banker: float
    player: float
    tie: float
    ev: Mapping[str, float]


@functools.lru_cache(maxsize=4096)
def card_odds(remaining: tuple[int, ...], rules: TableRules, decks: int) -> CardOdds:
    """The exact odds of a composition of 10 counts by value, in a shoe of ``decks``."""
    from ..odds import bets_offered, expected_values, outcome_probabilities

    shoe_rules = rules if rules.decks == decks else rules.model_copy(update={"decks": decks})
    probs = outcome_probabilities(remaining, decks)
    ev = expected_values(remaining, shoe_rules)
    offered = bets_offered(shoe_rules)
    return CardOdds(probs.banker, probs.player, probs.tie,
                    MappingProxyType({kind: ev[kind] for kind in offered}))
