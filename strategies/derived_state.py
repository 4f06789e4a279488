"""A simple-form system's finite state, read from its own methods: exact risk, undeclared.

A part or strategy written in the simple form keeps its state in plain attributes set by
``reset()`` and moved by its hooks. When its choices read nothing but that state (not
the view: the history, the roads, the cards, the bankroll, the random numbers), the state
*is* those attributes, and the declaration exact risk needs (``strategies/finite_state.py``)
follows from the methods themselves:

- ``initial_state()``: a fresh copy, ``reset()``, its attributes as a sorted tuple;
- ``bet_of`` / ``stake_of`` / ``stakes_of(state)``: the attributes set back, and ``pick``,
  ``stake`` or ``bet`` asked;
- ``next_state(state, outcome, result)``: the attributes set back, and ``learn``, ``won``
  or ``lost`` told what happened, as the replay tells them.

What such a method cannot know stands in as :class:`Unread`, which refuses every use: a
hook that reads the view, or a bet's net the declaration does not carry (a win's amount),
stops exact risk with the hook and what it read; the command then simulates. The chain
numbers states as a session reaches them, so a counter that grows with the coups is
fine (the session's length bounds it; past ``--state-limit`` exact risk says so). Before
trusting it, ``baccarat risk`` plays the derived declaration against the plugin's own
play over generated shoes, as it does a hand-written one.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Hashable
from typing import Any

from ..bets import BET_KINDS
from .finite_state import END_SESSION, LOST, NO_STAKE, PUSHED, WON


def _not_finite(message: str) -> Exception:
    from ..risk.machine import RiskError  # exact risk's error: it simulates instead

    return RiskError(message)


class Unread:
    """What a derived declaration cannot give a hook (the view, a win's net): every use
    of it ends exact risk, naming the hook and what it read."""

    __slots__ = ("_what", "_hook")

    def __init__(self, what: str, hook: str) -> None:
        object.__setattr__(self, "_what", what)
        object.__setattr__(self, "_hook", hook)

    def _refuse(self, used: str) -> Exception:
        return _not_finite(
            f"{self._hook}() reads {used}, so its choices depend on more than its own "
            f"attributes: exact risk cannot follow its state (declare one, see "
            f"docs/strategies.md, Exact risk)")

    def __getattr__(self, name: str) -> Any:
        raise self._refuse(f"{self._what}.{name}")

    def __repr__(self) -> str:
        return f"<{self._what}, not known to exact risk>"


def _refuse_use(self: Unread, *args: Any) -> Any:
    raise self._refuse(self._what)


for _op in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
            "rfloordiv", "mod", "rmod", "pow", "rpow", "neg", "pos", "abs", "lt", "le", "gt",
            "ge", "eq", "ne", "bool", "float", "int", "index", "round", "hash", "iter",
            "getitem", "len", "contains", "format", "setattr"):
    setattr(Unread, f"__{_op}__", _refuse_use)


class SignOnly(Unread):
    """A win's or a loss's net: its sign is known (``net > 0``, ``net < 0`` against zero,
    ``bool(net)``), its amount is not (any other use ends exact risk)."""

    __slots__ = ("_sign",)

    def __init__(self, sign: int, hook: str) -> None:
        super().__init__("net", hook)
        object.__setattr__(self, "_sign", sign)

    def _against(self, other: Any) -> int:
        if type(other) in (int, float) and other == 0:
            return self._sign
        raise self._refuse(f"net (compared with {other!r})")

    def __lt__(self, other: Any) -> bool:
        return self._against(other) < 0

    def __le__(self, other: Any) -> bool:
        return self._against(other) <= 0

    def __gt__(self, other: Any) -> bool:
        return self._against(other) > 0

    def __ge__(self, other: Any) -> bool:
        return self._against(other) >= 0

    def __eq__(self, other: Any) -> bool:  # type: ignore[override]
        return self._against(other) == 0

    def __ne__(self, other: Any) -> bool:  # type: ignore[override]
        return self._against(other) != 0

    def __bool__(self) -> bool:
        return self._sign != 0

    __hash__ = None  # type: ignore[assignment]


class DerivedState:
    """The declaration of one simple-form part or strategy (``owner``), derived."""

    def __init__(self, owner: Any) -> None:
        self.scratch = copy.deepcopy(owner)
        self.scratch.clear_state()
        self.configured = frozenset(self.scratch.__dict__)  # parameters, not state

    def initial_state(self) -> Hashable:
        self._set(())
        self.scratch.reset()
        return self._state("reset")

    def call(self, state: Hashable, hook: str, *args: Any) -> Any:
        """``hook(*args)`` on the scratch copy holding ``state``."""
        self._set(state)
        return getattr(self.scratch, hook)(*args)

    def moved(self, state: Hashable, hook: str, *args: Any) -> Hashable:
        """The state after ``hook(*args)``."""
        self.call(state, hook, *args)
        return self._state(hook)

    def _set(self, state: Any) -> None:
        values = self.scratch.__dict__
        for name in [name for name in values if name not in self.configured]:
            del values[name]
        values.update(state)

    def _state(self, hook: str) -> Hashable:
        values = self.scratch.__dict__
        state = tuple(sorted((name, value) for name, value in values.items()
                             if name not in self.configured))
        for name, value in state:
            try:
                hash(value)
            except TypeError:
                raise _not_finite(
                    f"{hook}() keeps self.{name} = {type(value).__name__}: exact risk "
                    f"follows states of numbers, strings and tuples") from None
        return state


#: Each instance's derived declaration, made once (by ``id``, with a weak reference to
#: tell a new instance at a freed address): nothing is kept on the instance itself, whose
#: attributes are its state.
_DERIVED: dict[int, tuple[weakref.ref[Any], DerivedState]] = {}


def derived(owner: Any) -> DerivedState:
    """``owner``'s derived declaration."""
    found = _DERIVED.get(id(owner))
    if found is None or found[0]() is not owner:
        for key in [key for key, (ref, _) in _DERIVED.items() if ref() is None]:
            del _DERIVED[key]
        found = _DERIVED[id(owner)] = (weakref.ref(owner), DerivedState(owner))
    return found[1]


def kind_of_pick(picked: Any, hook: str = "pick") -> str | None:
    """A simple selection's pick as ``bet_of`` gives it: a kind, None or END_SESSION."""
    from .base import STOP
    from .simple import LETTER_KINDS

    if picked is None:
        return None
    if picked is STOP:
        return END_SESSION
    kind = LETTER_KINDS.get(picked, picked) if isinstance(picked, str) else None
    if kind not in BET_KINDS:
        raise _not_finite(f"{hook}() returned {picked!r}, not a bet")
    return kind


def net_of(result: str, hook: str) -> float | Unread:
    """The net a hook told of a coup is given: nothing staked or pushed nets 0; of a win
    or a loss the declaration knows the sign, not the amount."""
    if result in (NO_STAKE, PUSHED):
        return 0.0
    return SignOnly(1 if result == WON else -1, hook)


def staking_hook(result: str) -> str | None:
    """The simple staking plan's hook for a result: ``won``, ``lost`` or none."""
    return {WON: "won", LOST: "lost"}.get(result)

__all__ = ["DerivedState", "SignOnly", "Unread", "derived", "kind_of_pick", "net_of",
           "staking_hook"]
