"""The staking systems on one side as whole strategies (presets of ``strategies.presets``:
``always`` on their ``side`` and the staking plan of ``strategies.staking.progressions``)."""

from __future__ import annotations

from ..presets import PRESETS
from ..staking.progressions import FIB as _FIB

Flat = PRESETS["flat"]
Martingale = PRESETS["martingale"]
GrandMartingale = PRESETS["grand_martingale"]
Paroli = PRESETS["paroli"]
DAlembert = PRESETS["dalembert"]
Fibonacci = PRESETS["fibonacci"]
Labouchere = PRESETS["labouchere"]
OscarsGrind = PRESETS["oscars_grind"]
OneThreeTwoSix = PRESETS["one_three_two_six"]

__all__ = ["DAlembert", "Fibonacci", "Flat", "GrandMartingale", "Labouchere", "Martingale",
           "OneThreeTwoSix", "OscarsGrind", "Paroli", "_FIB"]
