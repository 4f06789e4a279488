"""The pattern and road followers as whole strategies (presets of ``strategies.presets``:
the selections of ``strategies.selections`` staking ``base`` flat)."""

from __future__ import annotations

from ..parts import NO_BET
from ..presets import PRESETS

Follow = PRESETS["follow"]
Chop = PRESETS["chop"]
Streak = PRESETS["streak"]
Road = PRESETS["road"]

__all__ = ["Chop", "Follow", "NO_BET", "Road", "Streak"]
