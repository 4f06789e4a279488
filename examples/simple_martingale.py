"""A Martingale written the simple way: one session, plain Python numbers.

Run it with:

    baccarat backtest --shoes 1000 --strategy examples/simple_martingale.py:SimpleMartingale
"""

from baccarat.strategies import SessionView, SimpleStrategy


class SimpleMartingale(SimpleStrategy):
    """Martingale on Banker, one session at a time: double after a loss, reset after a win."""

    name = "simple_martingale"

    def reset(self) -> None:
        self.stake = self.base

    def bet(self, view: SessionView) -> dict[str, float]:
        return {"banker": self.stake}

    def learn(self, view: SessionView, outcome: str, net: float) -> None:
        if net < 0:
            self.stake *= 2
        elif net > 0:
            self.stake = self.base
