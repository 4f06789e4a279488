"""The card counter as a whole strategy (``counter``: the ``count`` selection of
``strategies.selections.counting`` with ``kelly`` staking)."""

from __future__ import annotations

from ..presets import PRESETS
from ..selections.counting import (
    DEFAULT_SCREEN,
    EXACT_BELOW,
    CompositionCache,
    curvature,
    exact_ev,
)
from ..staking.bankroll import kelly_fraction

Counter = PRESETS["counter"]

__all__ = ["CompositionCache", "Counter", "DEFAULT_SCREEN", "EXACT_BELOW", "curvature",
           "exact_ev", "kelly_fraction"]
