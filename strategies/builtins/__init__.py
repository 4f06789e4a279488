"""The built-in strategies: importing this package registers every one of them by name.

``progressions`` holds the staking systems on one side (flat, Martingale, Grand
Martingale, Paroli, D'Alembert, Fibonacci, Labouchere, Oscar's Grind, 1-3-2-6);
``patterns`` the pattern followers (follow, chop, streak, road).
"""

from __future__ import annotations

from . import counter, patterns, progressions, side_bets

__all__ = ["counter", "patterns", "progressions", "side_bets"]
