"""Pattern selections: the side a pattern in the past decisions points to.

A *decision* is a Banker or a Player win; ties are not decisions (they neither start nor
break a pattern), except in a pattern table written with ``ties=keep``. Each selection
chooses per session with numpy (``BANKER``, ``PLAYER`` or ``NO_BET``). With ``per_shoe``
(the default) a pattern is forgotten when a new shoe opens, as the scoreboard is wiped;
otherwise it runs on across the shoes of a session.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from ...coups import BANKER as B_OUTCOME
from ...coups import PLAYER as P_OUTCOME
from ...coups import TIE as T_OUTCOME
from ..base import Result, Table
from ..compiled import SELECTIONS, PartForm
from ..parts import BANKER, NO_BET, PLAYER, TIE, Selection, register_part

assert (B_OUTCOME, P_OUTCOME, T_OUTCOME) == (BANKER, PLAYER, TIE)


class DecisionPattern(Selection):
    """Shared state of the followers of the decision sequence: the last decision and the
    run of equal decisions it ends."""

    per_shoe: bool = Field(True, description="forget the pattern when a new shoe opens "
                           "(false: carry it across the shoes of a session)")

    _last: np.ndarray
    _run: np.ndarray

    def start(self, table: Table) -> None:
        self._last = np.full(table.n, NO_BET, dtype=np.int64)
        self._run = np.zeros(table.n, dtype=np.int64)

    def choose(self, table: Table) -> np.ndarray:
        if self.per_shoe:
            fresh = np.asarray(table.new_shoe, dtype=bool)
            self._last = np.where(fresh, NO_BET, self._last)
            self._run = np.where(fresh, 0, self._run)
        return self._choose()

    def settle(self, table: Table, result: Result) -> None:
        outcome = result.outcome.astype(np.int64)
        decided = result.played & ((outcome == BANKER) | (outcome == PLAYER))
        repeat = decided & (outcome == self._last)
        self._run = np.where(repeat, self._run + 1, np.where(decided, 1, self._run))
        self._last = np.where(decided, outcome, self._last)

    def _choose(self) -> np.ndarray:
        raise NotImplementedError

    def _shoe(self) -> float:
        return 1.0 if self.per_shoe else 0.0

    # The finite-state declaration (strategies/finite_state.py): (the last decision, its
    # run), the run counted only as far as the choice reads it.
    def initial_state(self) -> tuple[str | None, int]:
        """(the last decision "B"/"P" or None, the length of its run) (exact risk)."""
        return (None, 0)

    def shoe_state(self, state: tuple[str | None, int]) -> tuple[str | None, int]:
        """A new shoe forgets the pattern (``per_shoe``) or keeps it."""
        return (None, 0) if self.per_shoe else state

    def next_state(self, state: tuple[str | None, int], outcome: str,
                   result: str) -> tuple[str | None, int]:
        """A decision extends or restarts the run; a tie changes nothing."""
        if outcome == "T":
            return state
        last, run = state
        return (outcome, min(run + 1, self._run_limit()) if outcome == last else 1)

    def bet_of(self, state: tuple[str | None, int]) -> str | None:
        """The side the pattern picks, None when it picks none."""
        return _SIDE_NAME.get(self._letter_of(state))

    def _run_limit(self) -> int:
        """How far the declared state counts the run (the choice reads no further)."""
        return 1

    def _letter_of(self, state: tuple[str | None, int]) -> str | None:
        raise NotImplementedError


_SIDE_NAME: dict[str | None, str] = {"B": "banker", "P": "player", "T": "tie"}
_OTHER: dict[str | None, str] = {"B": "P", "P": "B"}


@register_part
class Follow(DecisionPattern):
    """Bet on the side of the last decision (ties skipped).

    Chooses the winner of the last Banker/Player decision; a tie is skipped, so after B, T
    the bet is still Banker. No bet before the first decision of the shoe (``per_shoe``,
    the default) or of the session (``per_shoe=false``).
    """

    name: ClassVar[str] = "follow"

    def _choose(self) -> np.ndarray:
        return self._last

    def _letter_of(self, state: tuple[str | None, int]) -> str | None:
        return state[0]

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["follow"], (self._shoe(),))  # per_shoe


@register_part
class Chop(DecisionPattern):
    """Bet against the last decision (ties skipped): expect the chop.

    Chooses the side that lost the last Banker/Player decision; a tie is skipped. No bet
    before the first decision of the shoe (``per_shoe``, the default) or of the session
    (``per_shoe=false``).
    """

    name: ClassVar[str] = "chop"

    def _choose(self) -> np.ndarray:
        return np.where(self._last >= 0, 1 - self._last, NO_BET)

    def _letter_of(self, state: tuple[str | None, int]) -> str | None:
        return _OTHER.get(state[0])

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["chop"], (self._shoe(),))  # per_shoe


@register_part
class Streak(DecisionPattern):
    """Bet the side of a run once it reaches n decisions in a row, while it lasts.

    Counts the current run of the same decision (ties do not break it nor count in it);
    once it is ``n`` long, chooses that side on every coup until the other side wins. Runs
    start afresh with each shoe (``per_shoe``, the default) or carry across the shoes of a
    session (``per_shoe=false``).
    """

    name: ClassVar[str] = "streak"

    n: int = Field(3, ge=1, description="run length (decisions in a row) that starts the bets")

    def _choose(self) -> np.ndarray:
        return np.where(self._run >= self.n, self._last, NO_BET)

    def _run_limit(self) -> int:
        return self.n

    def _letter_of(self, state: tuple[str | None, int]) -> str | None:
        return state[0] if state[1] >= self.n else None

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["streak"], (float(self.n), self._shoe()))  # n, per_shoe


@register_part
class PingPong(DecisionPattern):
    """Bet the chop to go on after n alternations in a row (ties skipped).

    Counts the alternations of the decisions (each decision unlike the one before: B P B
    P is three); once there are ``n`` in a row, chooses the side that lost the last
    decision on every coup until two decisions in a row are alike. Ties neither count nor
    break the run; the count starts afresh with each shoe (``per_shoe``) or not.
    """

    name: ClassVar[str] = "ping_pong"

    n: int = Field(3, ge=1, description="alternations in a row that start the bets")

    _alternations: np.ndarray

    def start(self, table: Table) -> None:
        super().start(table)
        self._alternations = np.zeros(table.n, dtype=np.int64)

    def choose(self, table: Table) -> np.ndarray:
        if self.per_shoe:
            self._alternations = np.where(np.asarray(table.new_shoe, dtype=bool), 0,
                                          self._alternations)
        return super().choose(table)

    def settle(self, table: Table, result: Result) -> None:
        outcome = result.outcome.astype(np.int64)
        decided = result.played & ((outcome == BANKER) | (outcome == PLAYER))
        switch = decided & (self._last >= 0) & (outcome != self._last)
        self._alternations = np.where(switch, self._alternations + 1,
                                      np.where(decided, 0, self._alternations))
        super().settle(table, result)

    def _choose(self) -> np.ndarray:
        return np.where(self._alternations >= self.n, 1 - self._last, NO_BET)

    # The declared state: (the last decision, the alternations in a row, up to n).
    def next_state(self, state: tuple[str | None, int], outcome: str,
                   result: str) -> tuple[str | None, int]:
        """A decision unlike the last adds an alternation, one like it ends the run."""
        if outcome == "T":
            return state
        last, alternations = state
        if last is not None and outcome != last:
            return (outcome, min(alternations + 1, self.n))
        return (outcome, 0)

    def _letter_of(self, state: tuple[str | None, int]) -> str | None:
        return _OTHER.get(state[0]) if state[1] >= self.n else None

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["ping_pong"], (float(self.n), self._shoe()))  # n, per_shoe


_PATTERN_KEY = re.compile(r"^[BPT]+$")
_SIDE_LETTERS = {"B": BANKER, "P": PLAYER, "T": TIE}


@register_part
class Pattern(Selection):
    """Bet by a pattern table: when the last outcomes read BBP, bet P; when PPB, bet B.

    Each entry of ``table`` maps a pattern of the latest outcomes (oldest first) to the
    side to bet next, written in the SPEC as ``pattern:BBP=P,PPB=B``. Ties are skipped
    (``ties=skip``, the default: the patterns read the decisions) or kept as outcomes
    (``ties=keep``: a pattern may hold T, and T may be bet). When several patterns match,
    the longest wins. Patterns are read within the shoe (``per_shoe``) or across it.
    """

    name: ClassVar[str] = "pattern"
    #: Keys of a SPEC that are not fields go into this field (the patterns).
    spec_entries: ClassVar[str] = "table"

    table: dict[str, str] = Field(default_factory=lambda: {"BBP": "P", "PPB": "B"},
                                  description="pattern -> side to bet (written BBP=P,PPB=B)")
    ties: Literal["skip", "keep"] = Field("skip", description="skip: ties are not part of "
                                          "the patterns; keep: they are")
    per_shoe: bool = Field(True, description="read the patterns within the shoe only")

    _recent: np.ndarray  # (n, longest pattern) the latest outcomes, oldest first; -1 none
    _codes: list[tuple[np.ndarray, int]]

    @field_validator("table", mode="before")
    @classmethod
    def _letters(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k).strip().upper(): str(v).strip().upper()[:1] if isinstance(v, str)
                    else v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _entries(self) -> Pattern:
        if not self.table:
            raise ValueError("the pattern table is empty; write entries like BBP=P,PPB=B")
        for key, side in self.table.items():
            if not _PATTERN_KEY.match(key):
                raise ValueError(f"pattern {key!r}: write the outcomes as letters B, P, T "
                                 f"(e.g. BBP=P)")
            if "T" in key and self.ties == "skip":
                raise ValueError(f"pattern {key!r} holds a tie, but ties are skipped: add "
                                 f"ties=keep")
            if side not in _SIDE_LETTERS:
                raise ValueError(f"pattern {key}={side}: the side to bet must be B, P or T")
        return self

    def kinds(self) -> tuple[str, ...]:
        sides = {self.table[k] for k in self.table}
        return tuple(kind for kind, letter in (("banker", "B"), ("player", "P"), ("tie", "T"))
                     if letter in sides)

    def spec(self) -> str:
        entries = ",".join(f"{k}={v}" for k, v in self.table.items())
        rest = {k: v for k, v in self.params().items() if k != "table"}
        defaults = {"ties": "skip", "per_shoe": True}
        changed = "".join(f",{k}={v}" for k, v in rest.items() if defaults[k] != v)
        return f"{self.name}:{entries}{changed}"

    def start(self, table: Table) -> None:
        width = max(len(k) for k in self.table)
        self._recent = np.full((table.n, width), -1, dtype=np.int64)
        # Longest first: the first match wins.
        self._codes = [(np.array([_SIDE_LETTERS[c] for c in key]), _SIDE_LETTERS[side])
                       for key, side in sorted(self.table.items(), key=lambda kv: -len(kv[0]))]

    def choose(self, table: Table) -> np.ndarray:
        if self.per_shoe:
            fresh = np.asarray(table.new_shoe, dtype=bool)
            if fresh.any():
                self._recent[fresh] = -1
        choice = np.full(table.n, NO_BET, dtype=np.int64)
        width = self._recent.shape[1]
        for codes, side in self._codes:
            match = (self._recent[:, width - codes.size:] == codes).all(axis=1)
            choice = np.where((choice == NO_BET) & match, side, choice)
        return choice

    def settle(self, table: Table, result: Result) -> None:
        outcome = result.outcome.astype(np.int64)
        counted = result.played & (outcome != TIE) if self.ties == "skip" else result.played
        rows = np.flatnonzero(counted)
        if rows.size:
            self._recent[rows, :-1] = self._recent[rows, 1:]
            self._recent[rows, -1] = outcome[rows]

    # The finite-state declaration: the latest outcomes the patterns read, as letters.
    def initial_state(self) -> tuple[str, ...]:
        """The latest outcomes counted (ties left out unless kept), oldest first (exact
        risk)."""
        return ()

    def shoe_state(self, state: tuple[str, ...]) -> tuple[str, ...]:
        """A new shoe forgets them (``per_shoe``) or keeps them."""
        return () if self.per_shoe else state

    def next_state(self, state: tuple[str, ...], outcome: str,
                   result: str) -> tuple[str, ...]:
        """The outcome joins the latest (a tie only with ``ties=keep``)."""
        if outcome == "T" and self.ties == "skip":
            return state
        return (*state, outcome)[-max(len(k) for k in self.table):]

    def bet_of(self, state: tuple[str, ...]) -> str | None:
        """The side of the longest pattern the latest outcomes end with."""
        for key, side in sorted(self.table.items(), key=lambda kv: -len(kv[0])):
            if len(state) >= len(key) and "".join(state[-len(key):]) == key:
                return _SIDE_NAME[side]
        return None

    def compiled_form(self) -> PartForm:
        # The numbers: ties kept (1/0), per shoe (1/0), then each entry as its length, its
        # outcomes as codes, and the side's code, longest first (the kernel's first match).
        numbers: list[float] = [1.0 if self.ties == "keep" else 0.0,
                                1.0 if self.per_shoe else 0.0]
        for key, side in sorted(self.table.items(), key=lambda kv: -len(kv[0])):
            numbers += [float(len(key)), *(float(_SIDE_LETTERS[c]) for c in key),
                        float(_SIDE_LETTERS[side])]
        return PartForm(SELECTIONS["pattern"], tuple(numbers))


__all__ = ["Chop", "DecisionPattern", "Follow", "Pattern", "PingPong", "Streak"]
