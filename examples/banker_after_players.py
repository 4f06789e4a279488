"""A plugin strategy in one file, array form: bet Banker after two Player wins in a row.

The system: wait until Player has won ``streak`` decisions in a row (ties neither count
nor break the run), then stake ``base`` on Banker on every coup until Banker wins.

The array form plays every session at once: its state is one numpy array with one entry
per session, and ``wager``/``settle`` are called once per coup for all sessions together.
That is what makes it fast. The same system written the simple way (one session, plain
Python numbers) is in ``simple_banker_after_players.py``; both give the same ledger.

Run it from the repository root with (the second line tries streaks of 2 and 3):

    baccarat backtest --shoes 2000 --out mine \
        --strategy examples/banker_after_players.py:BankerAfterPlayers
    baccarat backtest --shoes 2000 --out grid \
        --strategy "examples/banker_after_players.py:BankerAfterPlayers:streak=[2,3]"

It also declares its state (the last three methods), so `baccarat risk` gives its exact
session distribution:

    baccarat risk -s examples/banker_after_players.py:BankerAfterPlayers
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from baccarat.coups import BANKER, PLAYER
from baccarat.strategies import Result, Strategy, Table, Wager
from pydantic import Field


class BankerAfterPlayers(Strategy):
    """Bet Banker after a run of Player wins (ties skipped) until Banker wins."""

    name: ClassVar[str] = "banker_after_players"

    streak: int = Field(2, ge=1, description="Player wins in a row before betting Banker")

    _players: np.ndarray  # per session: Player wins in a row so far

    def start(self, table: Table) -> None:
        self._players = np.zeros(table.n, dtype=np.int64)

    def wager(self, table: Table) -> Wager:
        return Wager.on(banker=np.where(self._players >= self.streak, self.base, 0.0))

    def settle(self, table: Table, result: Result) -> None:
        player = result.played & (result.outcome == PLAYER)
        banker = result.played & (result.outcome == BANKER)
        self._players = np.where(player, self._players + 1,
                                 np.where(banker, 0, self._players))

    # Exact risk (`baccarat risk`): the state is the Player run, counted as far as the
    # choice reads it (docs/strategies.md, "Exact risk: declaring a finite state").
    def initial_state(self) -> int:
        return 0

    def stakes_of(self, players: int) -> dict[str, float]:
        return {"banker": self.base} if players >= self.streak else {}

    def next_state(self, players: int, outcome: str, result: str) -> int:
        if outcome == "P":
            return min(players + 1, self.streak)
        return 0 if outcome == "B" else players
