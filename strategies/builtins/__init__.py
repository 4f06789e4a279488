"""The built-in whole strategies under their first-wave module names (kept so that code
importing them goes on working): each is now a preset of ``strategies.presets``, a
selection and a staking plan (``strategies.selections``, ``strategies.staking``)."""

from __future__ import annotations

from . import counter, patterns, progressions, side_bets

__all__ = ["counter", "patterns", "progressions", "side_bets"]
