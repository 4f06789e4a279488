"""The same system as ``banker_after_players.py``, written the simple way.

A ``SimpleStrategy`` is written for one session with plain Python values: ``reset`` starts
a session, ``bet`` returns the stakes for the next coup, ``learn`` sees the outcome ("B",
"P" or "T") and this session's net. The engine runs one copy per session: slower than the
array form, but the easiest way to try an idea. Both forms give identical ledgers.

Run it from the repository root with:

    baccarat backtest --shoes 500 --out simple \
        --strategy examples/simple_banker_after_players.py:SimpleBankerAfterPlayers
"""

from __future__ import annotations

from baccarat.strategies import SessionView, SimpleStrategy


class SimpleBankerAfterPlayers(SimpleStrategy):
    """Bet Banker after a run of Player wins (ties skipped) until Banker wins."""

    name = "simple_banker_after_players"

    streak: int = 2

    def reset(self) -> None:
        self.players = 0  # Player wins in a row in this session

    def bet(self, view: SessionView) -> dict[str, float]:
        return {"banker": self.base} if self.players >= self.streak else {}

    def learn(self, view: SessionView, outcome: str, net: float) -> None:
        if outcome == "P":
            self.players += 1
        elif outcome == "B":
            self.players = 0
