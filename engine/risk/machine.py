"""A system's declared states, numbered, with what each stakes and where each coup leads.

:class:`Machine` reads a strategy (or a selection and a staking part) through the
finite-state declaration of ``strategies/finite_state.py`` and numbers its states as the
session reaches them. For each state it keeps the stakes asked for, cut to the table
maximum as the replay cuts them (``baccarat.replay._settle_kernel``), in exact fractions,
and, per class of coup, the state the declaration moves to. The chain
(:mod:`baccarat.risk.chain`) asks for a state's row only once mass reaches it, so a
progression that could grow without bound costs only what a session can reach.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..bets import BET_KINDS
from ..errors import BaccaratError
from ..rules import TableRules
from ..strategies.finite_state import (
    END_SESSION,
    LOST,
    NO_STAKE,
    PUSHED,
    WON,
    limited_state,
    not_finite_reason,
    shoe_state,
)
from .coups import exact


class RiskError(BaccaratError):
    """A system exact risk cannot follow, or a question it cannot answer, and why."""


class TooManyStates(RiskError):
    """The session reaches more states than the limit: exact risk stops there."""


@dataclass(frozen=True)
class ComposedSystem:
    """A selection part and a staking part played together as one finite system.

    The state is the pair of the parts' states; both learn every coup (outcome and the
    stake's result), as the composed strategy's parts do.
    """

    selection: Any
    staking: Any

    def initial_state(self) -> Hashable:
        return (self.selection.initial_state(), self.staking.initial_state())

    def shoe_state(self, state: tuple[Any, Any]) -> Hashable:
        return (shoe_state(self.selection, state[0]), shoe_state(self.staking, state[1]))

    def next_state(self, state: tuple[Any, Any], outcome: str, result: str) -> Hashable:
        return (self.selection.next_state(state[0], outcome, result),
                self.staking.next_state(state[1], outcome, result))

    def stakes_of(self, state: tuple[Any, Any]) -> Mapping[str, float]:
        kind = bet_kind(self.selection.bet_of(state[0]))
        if kind is None or kind == END_SESSION:
            return {}
        return {kind: self.staking.stake_of(state[1])}

    def limited_state(self, state: tuple[Any, Any],
                      cut: Callable[[float], bool]) -> Hashable:
        return (state[0], limited_state(self.staking, state[1], cut))

    def ends_before(self, state: tuple[Any, Any]) -> bool:
        """Whether the selection ends the session before the coup."""
        return bet_kind(self.selection.bet_of(state[0])) == END_SESSION


def bet_kind(choice: Any) -> str | None:
    """A selection's choice as a bet kind name, None (no bet) or ``END_SESSION``."""
    if choice is None:
        return None
    if isinstance(choice, str):
        return choice
    code = int(choice)
    if code == -1:
        return None
    if code == -2:
        return END_SESSION
    if 0 <= code < len(BET_KINDS):
        return BET_KINDS[code]
    raise RiskError(f"a selection chose {choice!r}: expected a bet kind, its index in "
                    f"BET_KINDS, None (-1) or 'end' (-2)")


def finite_system(strategy: Any) -> Any:
    """The object whose declared states exact risk follows for ``strategy``.

    A whole strategy that declares its state is its own system; a composed strategy whose
    parts declare theirs is the pair of them. Anything else is refused, with the reason
    the strategy gives (``not_finite``) or the methods it lacks.
    """
    parts = strategy.parts() if callable(getattr(strategy, "parts", None)) else None
    if parts is None and callable(getattr(strategy, "core", None)):
        core = strategy.core()  # a whole strategy with session rules of its own
        if core is not None:
            return finite_system(core)
    if parts is not None:  # a composed strategy: its selection and staking plan
        selection, staking = parts[0], parts[1]
        for part in (selection, staking):
            reason = not_finite_reason(part)
            if reason:
                raise RiskError(f"{_label(strategy)}: exact risk cannot follow its part "
                                f"{_label(part)}: {reason}")
        return ComposedSystem(selection, staking)
    reason = not_finite_reason(strategy)
    if reason:
        raise RiskError(f"{_label(strategy)}: exact risk cannot follow it: {reason}")
    return strategy


def limits_states(system: Any) -> bool:
    """Whether ``system`` (from :func:`finite_system`) forgets what the table maximum
    makes irrelevant (``limited_state``)."""
    limiting = system.staking if isinstance(system, ComposedSystem) else system
    return callable(getattr(limiting, "limited_state", None))


def _label(thing: Any) -> str:
    spec = getattr(thing, "spec", None)
    if callable(spec):
        try:
            return repr(spec())
        except Exception:  # noqa: BLE001 - only a label for a message
            pass
    return type(thing).__name__


@dataclass
class StateRow:
    """What the machine knows of one state: its stakes (cut to the table maximum)."""

    state: Hashable
    stakes: dict[str, Fraction]     # kind -> stake placed if the bankroll covers it
    asked: dict[str, Fraction]      # kind -> stake asked for
    limit_hits: int                 # kinds cut to the table maximum
    ends: str                       # "": plays on; else the stop reason that ends the
                                    # session before the next coup (strategy, below_min)
    shoe_next: int = -1             # the state when a new shoe opens
    moves: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def total(self) -> Fraction:
        """All the stakes placed on the coup."""
        return sum(self.stakes.values(), Fraction(0))


def chip_rounded(stake: Fraction, chip: Fraction | None) -> Fraction:
    """``stake`` rounded to the nearest multiple of ``chip`` (halves up), as the replay's
    settle kernel rounds it; unchanged without a chip."""
    return math.floor(stake / chip + Fraction(1, 2)) * chip if chip else stake


@dataclass(frozen=True)
class TableCut:
    """Whether the table maximum cuts a stake (after chip rounding): a stake it cuts, and
    every larger one, is placed alike, at the maximum with a limit hit. Passed to a
    system's ``limited_state``; equal for equal tables (so a part may cache on it)."""

    table_max: Fraction
    chip: Fraction | None

    def __call__(self, stake: float) -> bool:
        return chip_rounded(exact(stake), self.chip) > self.table_max


class Machine:
    """The states of one configuration's system, numbered as the session reaches them.

    ``limit`` bounds how many states may be numbered (:class:`TooManyStates` past it).
    """

    def __init__(self, strategy: Any, rules: TableRules, policy: Any = None,
                 limit: int = 100_000) -> None:
        self.strategy = strategy
        self.system = finite_system(strategy)
        self.rules = rules
        self.limit = limit
        self.table_min = exact(rules.table_min)
        self.table_max = exact(rules.table_max)
        chip = getattr(policy, "chip", None)
        self.chip = exact(chip) if chip else None
        self.below_min = getattr(policy, "below_min", "raise")
        self._limits_states = limits_states(self.system)
        self._cut = TableCut(self.table_max, self.chip)
        self.rows: list[StateRow] = []
        self._index: dict[Hashable, int] = {}
        self.kinds: list[str] = []   # every kind some state stakes on, in BET_KINDS order
        self.initial = self.intern(self._call("initial_state"))
        self.start = self.shoe(self.initial)

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.system, method)(*args)
        except (RiskError, BaccaratError):
            raise
        except Exception as exc:
            raise RiskError(f"{_label(self.strategy)}: its declared state raised "
                            f"{type(exc).__name__} in {method}(): {exc}") from None

    def intern(self, state: Hashable) -> int:
        """The number of ``state``, given one if new (its stakes read and checked)."""
        try:
            found = self._index.get(state)
        except TypeError:
            raise RiskError(f"{_label(self.strategy)}: its declared state {state!r} is not "
                            f"hashable; use tuples, numbers and strings") from None
        if found is not None:
            return found
        if self._limits_states:
            state = self._call("limited_state", state, self._cut)
            found = self._index.get(state)
            if found is not None:
                return found
        if len(self.rows) >= self.limit:
            raise TooManyStates(f"{_label(self.strategy)}: the session reaches more than "
                                f"{self.limit:,} states of the system")
        asked = self._stakes(state)
        stakes, hits, below = self.placed(asked)
        for kind in stakes:
            if kind not in self.kinds:
                self.kinds = [k for k in BET_KINDS if k in self.kinds or k == kind]
        ends = getattr(self.system, "ends_before", None)
        end = ""
        if ends is not None and ends(state):
            end, stakes = "strategy", {}
        elif below:
            end, stakes = "below_min", {}
        row = StateRow(state, stakes, asked, hits, end)
        self.rows.append(row)
        self._index[state] = len(self.rows) - 1
        return len(self.rows) - 1

    def placed(self, asked: dict[str, Fraction]) -> tuple[dict[str, Fraction], int, bool]:
        """The stakes placed for the stakes ``asked``, as the replay's settle kernel places
        them: each rounded to the nearest multiple of the chip (halves up; 0 is no bet),
        cut to the table maximum (a limit hit), and one below the minimum raised to it,
        left out, or stopping the session (``below_min``). Returns (stakes, limit hits,
        stopped below the minimum)."""
        out: dict[str, Fraction] = {}
        hits = 0
        below = False
        for kind, stake in asked.items():
            stake = chip_rounded(stake, self.chip)
            if stake > self.table_max:
                hits += 1
                stake = self.table_max
            if 0 < stake < self.table_min:
                if self.below_min == "raise":
                    stake = self.table_min
                elif self.below_min == "skip":
                    stake = Fraction(0)
                else:
                    below = True
            if stake > 0:
                out[kind] = stake
        return out, hits, below

    def _stakes(self, state: Hashable) -> dict[str, Fraction]:
        raw = self._call("stakes_of", state)
        if not isinstance(raw, Mapping):
            raise RiskError(f"{_label(self.strategy)}: stakes_of({state!r}) returned "
                            f"{type(raw).__name__}; expected a mapping of bet kind to stake")
        out: dict[str, Fraction] = {}
        for kind, value in raw.items():
            if kind not in BET_KINDS:
                raise RiskError(f"{_label(self.strategy)}: stakes_of({state!r}) names "
                                f"{kind!r}, which is not a bet kind ({', '.join(BET_KINDS)})")
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise RiskError(f"{_label(self.strategy)}: stakes_of({state!r}) gave "
                                f"{value!r} on {kind}; expected a number") from None
            if not number == number or number < 0 or number == float("inf"):
                raise RiskError(f"{_label(self.strategy)}: stakes_of({state!r}) gave "
                                f"{value!r} on {kind}; expected a finite number >= 0")
            if number > 0:
                out[kind] = exact(number)
        return out

    def shoe(self, s: int) -> int:
        """The state a new shoe leaves state ``s`` in."""
        row = self.rows[s]
        if row.shoe_next < 0:
            row.shoe_next = self.intern(self._call("shoe_state", row.state)
                                        if hasattr(self.system, "shoe_state") else row.state)
        return row.shoe_next

    def move(self, s: int, outcome: str, result: str) -> int:
        """The state after a coup of ``outcome`` whose stakes ``result``."""
        row = self.rows[s]
        key = (outcome, result)
        found = row.moves.get(key)
        if found is None:
            found = row.moves[key] = self.intern(
                self._call("next_state", row.state, outcome, result))
        return found

    def shoe_sensitive(self, states: Sequence[int]) -> bool:
        """Whether a new shoe changes any of these states."""
        return any(self.shoe(s) != s for s in states)


def result_of(net: Fraction, staked: Fraction) -> str:
    """won / lost / pushed / none, as ``Result.won`` etc. read a coup."""
    if staked <= 0:
        return NO_STAKE
    return WON if net > 0 else LOST if net < 0 else PUSHED


__all__ = ["ComposedSystem", "Machine", "RiskError", "StateRow", "TableCut", "TooManyStates",
           "bet_kind", "chip_rounded", "finite_system", "limits_states", "result_of"]
