"""Selections that need no pattern: always one kind, after the first coups, after ties.

``always`` is what a staking plan written alone bets on (``martingale:side=player`` is
``always:side=player | martingale``). ``skip_first`` waits out the first coups of each
shoe; ``after_ties`` bets once enough ties have come in the last coups of the shoe.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field, model_validator

from ...bets import KIND_INDEX
from ...coups import TIE as TIE_OUTCOME
from ..base import Result, Table
from ..compiled import SELECTIONS, PartForm
from ..kinds import BetKind
from ..parts import Selection, register_part


@register_part
class Always(Selection):
    """Bet the same kind on every coup.

    Chooses ``side`` (banker, player, tie or a side bet) on every coup of the session: a
    staking plan written alone bets this way (``martingale:side=player``).
    """

    name: ClassVar[str] = "always"

    side: BetKind = Field("banker", description="the bet kind every coup: banker, player, "
                          "tie or a side bet")

    def kinds(self) -> tuple[str, ...]:
        return (self.side,)

    def choose(self, table: Table) -> int:
        return KIND_INDEX[self.side]

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["always"], (float(KIND_INDEX[self.side]),))  # side

    # The finite-state declaration (strategies/finite_state.py): one state.
    def initial_state(self) -> None:
        """One state: the same bet every coup (exact risk)."""
        return None

    def bet_of(self, state: None) -> str:
        """``side``, always."""
        return self.side

    def next_state(self, state: None, outcome: str, result: str) -> None:
        """Nothing changes."""
        return None


@register_part
class SkipFirst(Selection):
    """Sit out the first coups of each shoe, then bet the same side on every coup.

    No bet on the first ``n`` coups dealt in each shoe; from coup n+1 on, ``side`` on every
    coup to the end of the shoe.
    """

    name: ClassVar[str] = "skip_first"

    n: int = Field(10, ge=0, description="coups of each shoe to sit out")
    side: BetKind = Field("banker", description="the bet kind once they are dealt")

    def kinds(self) -> tuple[str, ...]:
        return (self.side,)

    def choose(self, table: Table) -> np.ndarray:
        return np.asarray(table.shoe_coup) >= self.n

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["skip_first"],
                        (float(self.n), float(KIND_INDEX[self.side])))  # n, side

    # The finite-state declaration: the coups of the shoe so far, counted up to n.
    def initial_state(self) -> int:
        """Coups dealt in the shoe so far, up to ``n`` (exact risk)."""
        return 0

    def shoe_state(self, state: int) -> int:
        """A new shoe starts the count again."""
        return 0

    def next_state(self, state: int, outcome: str, result: str) -> int:
        """One coup more."""
        return min(state + 1, self.n)

    def bet_of(self, state: int) -> str | None:
        """``side`` once ``n`` coups of the shoe are dealt."""
        return self.side if state >= self.n else None


@register_part
class AfterTies(Selection):
    """Bet when ties have come often: at least n ties among the last m coups of the shoe.

    Before each coup counts the ties among the last ``m`` coups dealt in the current shoe
    (fewer at its start) and bets ``side`` (default: tie) when there are at least ``n``.
    """

    name: ClassVar[str] = "after_ties"

    n: int = Field(2, ge=1, description="ties needed")
    m: int = Field(10, ge=1, description="among this many last coups of the shoe")
    side: BetKind = Field("tie", description="the bet kind then")

    _recent: np.ndarray  # (n, m) 1 where that coup was a tie, as a ring
    _ties: np.ndarray
    _at: np.ndarray

    @model_validator(mode="after")
    def _window(self) -> AfterTies:
        if self.n > self.m:
            raise ValueError(f"n ({self.n}) ties cannot come in m ({self.m}) coups")
        return self

    def kinds(self) -> tuple[str, ...]:
        return (self.side,)

    def start(self, table: Table) -> None:
        self._recent = np.zeros((table.n, self.m), dtype=np.int64)
        self._ties = np.zeros(table.n, dtype=np.int64)
        self._at = np.zeros(table.n, dtype=np.int64)

    def choose(self, table: Table) -> np.ndarray:
        fresh = np.asarray(table.new_shoe, dtype=bool)
        if fresh.any():
            self._recent[fresh] = 0
            self._ties = np.where(fresh, 0, self._ties)
        return self._ties >= self.n

    def settle(self, table: Table, result: Result) -> None:
        played = np.flatnonzero(result.played)
        if played.size == 0:
            return
        tie = (result.outcome[played] == TIE_OUTCOME).astype(np.int64)
        at = self._at[played]
        self._ties[played] += tie - self._recent[played, at]
        self._recent[played, at] = tie
        self._at[played] = (at + 1) % self.m

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["after_ties"], (float(self.n), float(self.m),
                                                   float(KIND_INDEX[self.side])))  # n, m, side

    # The finite-state declaration: which of the last m coups of the shoe were ties.
    def initial_state(self) -> tuple[bool, ...]:
        """The last ``m`` coups of the shoe, True for a tie (exact risk)."""
        return ()

    def shoe_state(self, state: tuple[bool, ...]) -> tuple[bool, ...]:
        """A new shoe forgets the ties."""
        return ()

    def next_state(self, state: tuple[bool, ...], outcome: str,
                   result: str) -> tuple[bool, ...]:
        """The coup joins the window, the oldest leaves it."""
        return (*state, outcome == "T")[-self.m:]

    def bet_of(self, state: tuple[bool, ...]) -> str | None:
        """``side`` when ``n`` of them were ties."""
        return self.side if sum(state) >= self.n else None


__all__ = ["AfterTies", "Always", "SkipFirst"]
