"""The simple form: a strategy, a selection or a staking plan written for one session.

Plain Python values, one session at a time; the engine makes one copy per session and
loops over them (slower than the array form, but a new trigger is ten lines)::

    class AfterTwoPlayers(SimpleSelection):
        \"\"\"Bet Banker after two Player wins in a row.\"\"\"

        def reset(self):
            self.players = 0

        def pick(self, view):
            return "B" if self.players >= 2 else None

        def learn(self, view, outcome):
            self.players = self.players + 1 if outcome == "P" else 0

and ``-s "after_two.py:AfterTwoPlayers | martingale | stop:win=50"`` plays it with any
staking plan and any session rule. ``view`` is the session's
:class:`~baccarat.strategies.base.SessionView` (bankroll, history, roads, cards, odds, ``rng``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from ..bets import BET_KINDS, MAIN_BETS
from ..coups import OUTCOME_LABELS
from .base import (
    STOP,
    Result,
    SessionFault,
    SessionView,
    SimpleStrategy,
    Table,
    _is_number,
    _session_copies,
    describe_value,
    kind_hint,
    missing_method,
)
from .derived_state import Unread, derived, kind_of_pick, net_of, staking_hook
from .parts import END, NO_BET, Choice, Selection, Staking

#: The letters a simple selection may pick by (the outcomes' labels), and the bet kind of
#: each (the main bets, in the same order).
LETTER_KINDS = dict(zip(OUTCOME_LABELS, MAIN_BETS, strict=True))
_LETTERS = "".join(OUTCOME_LABELS)


class _PerSession:
    """The per-session copies of a simple part during a run, with their views."""

    __slots__ = ("copies", "views", "table")

    def __init__(self, part: Any, table: Table, reset: str) -> None:
        self.copies: list[Any] = _session_copies(part, table.n)
        self.table = table
        self.views = [SessionView(table, i) for i in range(table.n)]
        for i, copy in enumerate(self.copies):
            try:
                getattr(copy, reset)()
            except Exception as exc:
                raise SessionFault(i, reset) from exc


class SimpleSelection(Selection):
    """A selection for one session: ``pick(view)`` the bet for the next coup.

    ``pick`` returns "B", "P" or "T" (or a bet kind's name: "banker", "dragon7", ...),
    None for no bet, or ``STOP`` to end the session (stop_reason "strategy"). ``reset()``
    starts a session; ``learn(view, outcome)`` sees each coup the session played ("B",
    "P" or "T"). ``bets`` names the kinds ``pick`` may return (Banker, Player, Tie unless
    said otherwise).
    """

    bets: ClassVar[tuple[str, ...]] = ("banker", "player", "tie")
    hooks: ClassVar[tuple[str, ...]] = ("reset", "pick", "learn", "kinds")

    def reset(self) -> None:
        """Start a new session (clear any state kept on ``self``)."""

    def pick(self, view: SessionView) -> str | None:
        """The bet for the next coup in this session ("B", "P", "T", a kind, None, STOP)."""
        raise NotImplementedError(missing_method(
            type(self), "pick", purpose="the method that picks the session's bet",
            role="picks the bet"))

    def learn(self, view: SessionView, outcome: str) -> None:
        """Learn the outcome ("B", "P" or "T") of a coup the session played."""

    def kinds(self) -> tuple[str, ...]:
        return self.bets

    # Exact risk without a declaration: the state is what reset() and learn() keep on
    # self, while pick() reads nothing else (strategies/derived_state.py).
    def initial_state(self) -> Hashable:
        return derived(self).initial_state()

    def bet_of(self, state: Any) -> str | None:
        return kind_of_pick(derived(self).call(state, "pick", Unread("view", "pick")))

    def next_state(self, state: Any, outcome: str, result: str) -> Hashable:
        return derived(self).moved(state, "learn", Unread("view", "learn"), outcome)

    # The array contract, by looping the scalar one over the sessions.
    def start(self, table: Table) -> None:
        self._seats: _PerSession | None = None  # a previous run's copies are not copied
        self._seats = _PerSession(self, table, "reset")
        self._codes = {**{letter: BET_KINDS.index(kind)
                          for letter, kind in LETTER_KINDS.items() if kind in self.bets},
                       **{kind: BET_KINDS.index(kind) for kind in self.bets}}

    def choose(self, table: Table) -> np.ndarray:
        seats = self._seats
        assert seats is not None
        codes = np.full(table.n, NO_BET, dtype=np.int64)
        picks = [copy.pick for copy in seats.copies]
        for i in np.flatnonzero(table.active).tolist():
            try:
                picked = picks[i](seats.views[i])
            except Exception as exc:
                raise SessionFault(i, "pick") from exc
            if picked is None:
                continue
            if picked is STOP:
                codes[i] = END
                continue
            code = self._codes.get(picked) if isinstance(picked, str) else None
            if code is None:
                raise SessionFault(i, "pick", _bad_pick(picked, self.bets))
            codes[i] = code
        return codes

    def settle(self, table: Table, result: Result) -> None:
        seats = self._seats
        assert seats is not None
        outcome = result.outcome.tolist()
        for i in np.flatnonzero(result.played).tolist():
            try:
                seats.copies[i].learn(seats.views[i], _LETTERS[outcome[i]])
            except Exception as exc:
                raise SessionFault(i, "learn") from exc


def _bad_pick(picked: Any, bets: tuple[str, ...]) -> str:
    hint = kind_hint(picked) if isinstance(picked, str) else ""
    letters = "/".join(letter for letter, kind in LETTER_KINDS.items() if kind in bets)
    return (f"pick() returned {picked!r}{hint}; expected {letters}, one of its bets "
            f"({', '.join(bets)}), None for no bet or STOP")


class SimpleStaking(Staking):
    """A staking plan for one session: ``stake(view)`` the amount of the next bet.

    ``reset()`` starts a session; ``won(view, net)`` and ``lost(view, net)`` are called
    after a bet the session won or lost (a push and a coup without a bet call neither: what
    every staking plan does on them).
    """

    hooks: ClassVar[tuple[str, ...]] = ("reset", "stake", "won", "lost")

    def reset(self) -> None:
        """Start a new session (clear any state kept on ``self``)."""

    def stake(self, view: SessionView) -> float:
        """The amount of the next bet in this session."""
        raise NotImplementedError(missing_method(
            type(self), "stake", purpose="the method that sizes the session's bet",
            role="sizes the bet"))

    def won(self, view: SessionView, net: float) -> None:
        """The session's bet won ``net``."""

    def lost(self, view: SessionView, net: float) -> None:
        """The session's bet lost (``net`` is negative)."""

    # Exact risk without a declaration: the state is what reset(), won() and lost() keep
    # on self, while stake() reads nothing else and they do not read the net.
    def initial_state(self) -> Hashable:
        return derived(self).initial_state()

    def stake_of(self, state: Any) -> float:
        return float(derived(self).call(state, "stake", Unread("view", "stake")))

    def next_state(self, state: Any, outcome: str, result: str) -> Hashable:
        hook = staking_hook(result)
        if hook is None:  # a push or no bet: neither hook is called
            return state  # type: ignore[no-any-return]
        return derived(self).moved(state, hook, Unread("view", hook), net_of(result, hook))

    # The array contract, by looping the scalar one over the sessions.
    def start(self, table: Table) -> None:
        self._seats: _PerSession | None = None
        self._seats = _PerSession(self, table, "reset")

    def stakes(self, table: Table, choice: Choice) -> np.ndarray:
        seats = self._seats
        assert seats is not None
        amounts = np.zeros(table.n)
        betting = choice.betting(table.n) & np.asarray(table.active, dtype=bool)
        for i in np.flatnonzero(betting).tolist():
            try:
                amount = seats.copies[i].stake(seats.views[i])
            except Exception as exc:
                raise SessionFault(i, "stake") from exc
            # NaN, infinite and negative amounts are the engine's to refuse, as a bet()'s.
            try:
                if type(amount) is not float and type(amount) is not int and \
                        not _is_number(amount):
                    raise TypeError
                amounts[i] = amount
            except (TypeError, OverflowError):
                raise SessionFault(i, "stake", f"stake() returned {describe_value(amount)}; "
                                   f"expected a finite number >= 0") from None
        return amounts

    def settle(self, table: Table, result: Result) -> None:
        seats = self._seats
        assert seats is not None
        net = result.net.tolist()
        for method, mask in (("won", result.won), ("lost", result.lost)):
            for i in np.flatnonzero(mask).tolist():
                try:
                    getattr(seats.copies[i], method)(seats.views[i], net[i])
                except Exception as exc:
                    raise SessionFault(i, method) from exc


__all__ = ["STOP", "SessionView", "SimpleSelection", "SimpleStaking", "SimpleStrategy"]
