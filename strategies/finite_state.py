"""How a strategy, or a part of one, declares a finite state: what exact risk reads.

``baccarat risk`` (:mod:`baccarat.risk`) computes the whole distribution of a session's
result without simulation, as a Markov chain over (the system's state, the bankroll). It
needs the system's state spelled out: a value that says everything the system's next
stakes depend on, and how each coup moves it. A strategy or a part that can say so
defines these methods (plain Python on plain values, one session at a time; the engine
never calls them during a backtest):

``initial_state() -> Hashable``
    The state before a session's first coup.
``next_state(state, outcome, result) -> Hashable``
    The state after a coup the session played, whether it bet or not. ``outcome`` is
    ``"B"``, ``"P"`` or ``"T"``; ``result`` is what the configuration's stakes on the coup
    did: ``"won"`` (netted more than nothing), ``"lost"`` (less), ``"pushed"`` (staked and
    got it back: a tie on Banker or Player, the EZ Banker three-card 7) or ``"none"`` (no
    stake). These are ``result.won`` / ``lost`` / ``pushed`` of the array form.
``shoe_state(state) -> Hashable`` (optional; default: the state unchanged)
    The state when a new shoe opens, before its first coup (the session's first shoe
    included): a pattern that forgets the scoreboard at each shoe resets here.

``limited_state(state, cut) -> Hashable`` (optional; default: the state unchanged)
    The state with what the table maximum makes irrelevant forgotten. ``cut(stake)`` is
    true when the table maximum cuts that stake (after the chip's rounding): such a stake,
    and every larger one, is placed alike. Two states this maps to the same state must
    play alike at this table. Labouchere writes every number whose stake is cut as the
    smallest such number: a line that grows without bound then has few states.

and, by what the class is, what its state means for the next coup:

``stakes_of(state) -> Mapping[str, float]``
    a whole strategy: the stake on each bet kind (kinds left out, or 0, are not bet);
``bet_of(state) -> str | int | None``
    a selection part: the bet kind it picks, by name or by its index in
    ``baccarat.bets.BET_KINDS`` (None or -1: no bet; ``"end"`` or -2: the selection ends
    the session before this coup, stop reason ``strategy``);
``stake_of(state) -> float``
    a staking part: the amount, before the table's limits.

States are compared by equality and hashed, so use tuples, numbers, strings, None (not
lists or arrays); two states that are equal must behave alike from then on. The number
of states a session can reach must be finite: a progression that grows without bound is
fine (the bankroll and the session's length bound it; past ``baccarat.risk``'s state limit
the command says so and gives the simulation instead), a state holding the whole history
or the scoreboard is not. A class whose state is not finite says why in ``not_finite``
(a class attribute, text), and exact risk reports that reason.

The table's limits, the bankroll and the stop rules are not the system's business: the
engine applies them (a stake above the table maximum is cut to it, and so on) exactly as
a backtest does. ``baccarat risk`` checks a declaration against the class's own play
over generated shoes before trusting it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Protocol, runtime_checkable

#: What ``bet_of`` returns to end the session before the coup.
END_SESSION = "end"
#: ``result`` values passed to ``next_state``.
WON, LOST, PUSHED, NO_STAKE = "won", "lost", "pushed", "none"
RESULTS = (WON, LOST, PUSHED, NO_STAKE)
#: ``outcome`` values passed to ``next_state``: Banker, Player, Tie.
OUTCOME_LETTERS = ("B", "P", "T")
#: Every method a class may define to declare its state (the protocols below, and the
#: optional ``shoe_state`` and ``limited_state``).
DECLARATIONS = ("initial_state", "next_state", "stakes_of", "bet_of", "stake_of",
                "shoe_state", "limited_state")


@runtime_checkable
class FiniteState(Protocol):
    """A strategy or part that declares its state (see the module docstring)."""

    def initial_state(self) -> Hashable:
        """The state before a session's first coup."""
        ...  # pragma: no cover

    def next_state(self, state: Any, outcome: str, result: str) -> Hashable:
        """The state after a coup the session played."""
        ...  # pragma: no cover


@runtime_checkable
class FiniteStrategy(FiniteState, Protocol):
    """A whole strategy with a finite state: its stakes follow from the state alone."""

    def stakes_of(self, state: Any) -> Mapping[str, float]:
        """The stake on each bet kind for the next coup."""
        ...  # pragma: no cover


@runtime_checkable
class FiniteSelection(FiniteState, Protocol):
    """A selection part with a finite state: which bet, if any, for the next coup."""

    def bet_of(self, state: Any) -> str | int | None:
        """The bet kind for the next coup (name or BET_KINDS index), None for no bet,
        ``"end"`` to end the session."""
        ...  # pragma: no cover


@runtime_checkable
class FiniteStaking(FiniteState, Protocol):
    """A staking part with a finite state: how much for the next bet."""

    def stake_of(self, state: Any) -> float:
        """The stake for the next bet, before the table's limits."""
        ...  # pragma: no cover


def shoe_state(part: Any, state: Any) -> Hashable:
    """``part.shoe_state(state)`` if the part defines it, else ``state`` unchanged."""
    method = getattr(part, "shoe_state", None)
    return state if method is None else method(state)


def limited_state(part: Any, state: Any, cut: Callable[[float], bool]) -> Hashable:
    """``part.limited_state(state, cut)`` if the part defines it, else ``state``."""
    method = getattr(part, "limited_state", None)
    return state if method is None else method(state, cut)


def not_finite_reason(part: Any) -> str | None:
    """Why ``part`` has no finite state (its ``not_finite`` text, or a plain reason when
    it declares nothing); None when it declares one."""
    reason = getattr(type(part) if not isinstance(part, type) else part, "not_finite", None)
    if reason:
        return str(reason)
    cls = part if isinstance(part, type) else type(part)
    missing = [name for name in ("initial_state", "next_state")
               if not callable(getattr(cls, name, None))]
    if not missing and not any(callable(getattr(cls, name, None))
                               for name in ("stakes_of", "bet_of", "stake_of")):
        missing = ["stakes_of"]
    if missing:
        return (f"it does not declare a finite state (no {', '.join(missing)}; see "
                f"docs/strategies.md, Exact risk)")
    return None


__all__ = ["END_SESSION", "FiniteSelection", "FiniteStaking", "FiniteState", "FiniteStrategy",
           "LOST", "NO_STAKE", "OUTCOME_LETTERS", "PUSHED", "RESULTS", "WON",
           "limited_state", "not_finite_reason", "shoe_state"]
