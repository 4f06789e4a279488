"""Road followers: the side a derived road of the scoreboard points to.

The derived roads (big eye boy, small road, cockroach pig) mark each new big road entry
red (the pattern repeats) or blue (it breaks). Before each decision a Banker win and a
Player win would add marks of opposite colours (the ask marks a table shows), so a
follower picks the side by the colour it wants next.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from ..base import Table
from ..compiled import SELECTIONS, PartForm
from ..parts import BANKER, NO_BET, PLAYER, Selection, register_part
from ..registry import StrategyError

ROAD_K = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}
_MODES = {"colour": 0, "red": 1, "blue": -1}


@register_part
class Road(Selection):
    """Follow a derived road: bet the side whose mark would repeat its last colour.

    Reads derived road ``road`` (big eye boy, small road or cockroach pig) of the current
    shoe. A Banker win and a Player win would each add a mark of opposite colours; with
    ``mode=colour`` (the default) the bet goes on the side whose mark would equal the
    road's latest colour (no bet while the road has no mark yet); with ``mode=red`` or
    ``mode=blue``, on the side whose next mark would be that colour. No bet when the next
    decision would add no mark. A tie adds no mark and changes nothing.
    """

    name: ClassVar[str] = "road"
    needs_roads: ClassVar[bool] = True
    not_finite: ClassVar[str] = ("it follows a derived road, whose next mark depends on the "
                                 "whole big road of the shoe so far: its state is not finite")

    road: Literal["big_eye_boy", "small_road", "cockroach_pig"] = Field(
        "big_eye_boy", description="derived road to follow: big_eye_boy, small_road or "
        "cockroach_pig")
    mode: Literal["colour", "red", "blue"] = Field(
        "colour", description="colour: repeat the road's last colour; red/blue: bet the "
        "side whose next mark is that colour")

    def choose(self, table: Table) -> np.ndarray:
        roads = table.roads
        if roads is None:
            raise StrategyError(
                "the road selection needs the derived roads (table.roads), which the replay "
                "engine fills for strategies with needs_roads"
            )
        k = ROAD_K[self.road]
        if_banker = roads.colour_if(k, BANKER)
        if_player = roads.colour_if(k, PLAYER)
        if self.mode == "colour":
            wanted = roads.last_colour(k)
        else:
            wanted = np.full(table.n, _MODES[self.mode], dtype=np.int8)
        banker = (wanted != 0) & (if_banker == wanted)
        player = (wanted != 0) & ~banker & (if_player == wanted)
        return np.where(banker, BANKER, np.where(player, PLAYER, NO_BET))

    def compiled_form(self) -> PartForm:
        return PartForm(SELECTIONS["road"],
                        (float(ROAD_K[self.road]), float(_MODES[self.mode])))  # k, mode


__all__ = ["ROAD_K", "Road"]
