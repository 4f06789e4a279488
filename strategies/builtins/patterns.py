"""Pattern followers: a flat stake on the side a pattern in the past decisions points to.

A *decision* is a Banker or a Player win; ties are not decisions (they neither start nor
break a pattern). Each follower stakes ``base`` on the side it picks, or nothing when its
pattern says nothing. The choice is made per session with numpy (0 Banker, 1 Player, -1 no
bet) and turned into Banker and Player stake arrays.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from engine.coups import BANKER, PLAYER

from ..base import Result, Strategy, Table, Wager
from ..registry import StrategyError, register

NO_BET = -1


def side_wager(choice: np.ndarray, base: float) -> Wager:
    """Stake ``base`` on Banker where ``choice`` is 0, Player where 1, nothing where -1."""
    return Wager.on(banker=np.where(choice == BANKER, base, 0.0),
                    player=np.where(choice == PLAYER, base, 0.0))


class DecisionPattern(Strategy):
    """Shared state of the followers of the decision sequence: last decision, its run.

    ``per_shoe`` (default) forgets the pattern when a new shoe opens, as the scoreboard
    is wiped; otherwise the pattern runs on across the shoes of a session.
    """

    per_shoe: bool = Field(True, description="forget the pattern when a new shoe opens "
                           "(false: carry it across the shoes of a session)")

    _last: np.ndarray
    _run: np.ndarray

    def start(self, table: Table) -> None:
        self._last = np.full(table.n, NO_BET, dtype=np.int64)
        self._run = np.zeros(table.n, dtype=np.int64)

    def wager(self, table: Table) -> Wager:
        if self.per_shoe:
            fresh = np.asarray(table.new_shoe, dtype=bool)
            self._last = np.where(fresh, NO_BET, self._last)
            self._run = np.where(fresh, 0, self._run)
        return side_wager(self._choose(), self.base)

    def settle(self, table: Table, result: Result) -> None:
        outcome = result.outcome.astype(np.int64)
        decided = result.played & ((outcome == BANKER) | (outcome == PLAYER))
        repeat = decided & (outcome == self._last)
        self._run = np.where(repeat, self._run + 1, np.where(decided, 1, self._run))
        self._last = np.where(decided, outcome, self._last)

    def _choose(self) -> np.ndarray:
        raise NotImplementedError

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

    def stakes_of(self, state: tuple[str | None, int]) -> dict[str, float]:
        """``base`` on the side the pattern picks, nothing when it picks none."""
        side = self._side_of(state)
        return {} if side is None else {side: self.base}

    def _run_limit(self) -> int:
        """How far the declared state counts the run (the choice reads no further)."""
        return 1

    def _side_of(self, state: tuple[str | None, int]) -> str | None:
        raise NotImplementedError


@register
class Follow(DecisionPattern):
    """Bet on the side of the last decision (ties skipped).

    Stakes ``base`` on the winner of the last Banker/Player decision; a tie is skipped, so
    after B, T the bet is still Banker. No bet before the first decision of the shoe
    (``per_shoe``, the default) or of the session (``per_shoe=false``).
    """

    name: ClassVar[str] = "follow"

    def _choose(self) -> np.ndarray:
        return self._last

    def _side_of(self, state: tuple[str | None, int]) -> str | None:
        return _SIDE_NAME.get(state[0])


@register
class Chop(DecisionPattern):
    """Bet against the last decision (ties skipped): expect the chop.

    Stakes ``base`` on the side that lost the last Banker/Player decision; a tie is
    skipped. No bet before the first decision of the shoe (``per_shoe``, the default) or
    of the session (``per_shoe=false``).
    """

    name: ClassVar[str] = "chop"

    def _choose(self) -> np.ndarray:
        return np.where(self._last >= 0, 1 - self._last, NO_BET)

    def _side_of(self, state: tuple[str | None, int]) -> str | None:
        return _SIDE_NAME.get(_OTHER.get(state[0]))


@register
class Streak(DecisionPattern):
    """Bet the side of a run once it reaches n decisions in a row, while it lasts.

    Counts the current run of the same decision (ties do not break it nor count in it);
    once it is ``n`` long, stakes ``base`` on that side on every coup until the other side
    wins. Runs start afresh with each shoe (``per_shoe``, the default) or carry across the
    shoes of a session (``per_shoe=false``).
    """

    name: ClassVar[str] = "streak"

    n: int = Field(3, ge=1, description="run length (decisions in a row) that starts the bets")

    def _choose(self) -> np.ndarray:
        return np.where(self._run >= self.n, self._last, NO_BET)

    def _run_limit(self) -> int:
        return self.n

    def _side_of(self, state: tuple[str | None, int]) -> str | None:
        return _SIDE_NAME.get(state[0]) if state[1] >= self.n else None


_SIDE_NAME: dict[str | None, str] = {"B": "banker", "P": "player"}
_OTHER: dict[str | None, str] = {"B": "P", "P": "B"}

_ROAD_K = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


@register
class Road(Strategy):
    """Follow a derived road's colour: bet the side that would repeat its last mark.

    Reads derived road ``road`` (big eye boy, small road or cockroach pig) of the current
    shoe. A Banker win and a Player win would each add a mark of opposite colours; the
    stake ``base`` goes on the side whose mark would equal the road's latest colour. No
    bet while the road has no mark yet, nor when the next decision would add no mark. A
    tie adds no mark and changes nothing.
    """

    name: ClassVar[str] = "road"
    needs_roads: ClassVar[bool] = True
    not_finite: ClassVar[str] = ("it follows a derived road, whose next mark depends on the "
                                 "whole big road of the shoe so far: its state is not finite")

    road: Literal["big_eye_boy", "small_road", "cockroach_pig"] = Field(
        "big_eye_boy", description="derived road to follow: big_eye_boy, small_road or "
        "cockroach_pig")

    def wager(self, table: Table) -> Wager:
        roads = table.roads
        if roads is None:
            raise StrategyError(
                "the road strategy needs the derived roads (table.roads), which the replay "
                "engine fills for strategies with needs_roads"
            )
        k = _ROAD_K[self.road]
        last = roads.last_colour(k)
        if_banker = roads.colour_if(k, BANKER)
        if_player = roads.colour_if(k, PLAYER)
        banker = (last != 0) & (if_banker == last)
        player = (last != 0) & ~banker & (if_player == last)
        choice = np.where(banker, BANKER, np.where(player, PLAYER, NO_BET))
        return side_wager(choice, self.base)


__all__ = ["Chop", "DecisionPattern", "Follow", "NO_BET", "Road", "Streak", "side_wager"]
