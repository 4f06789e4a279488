"""The built-in staking plans (how much); importing this package registers them.

``progressions``: flat, the Martingale family, Paroli, Parlay, D'Alembert and
contra-D'Alembert, Fibonacci, Labouchere and reverse Labouchere, Oscar's Grind, 1-3-2-6,
1-3-2-4; ``bankroll``: a percentage of the bankroll, Kelly from the exact EV.
"""

from __future__ import annotations

from . import bankroll, progressions

__all__ = ["bankroll", "progressions"]
