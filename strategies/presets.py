"""The systems a lone name stands for: ``-s martingale``, ``-s streak:n=4``, ``-s counter``.

A name given alone is a whole system of two parts with one flat set of parameters
(``baccarat.strategies.system.preset``): a staking plan bets its ``side`` every coup
(``martingale:side=player`` is ``always:side=player | martingale``), a selection stakes
``base`` flat (``streak:n=4`` is ``streak:n=4 | flat``), ``flat`` is ``always | flat`` on
Banker, Player or Tie, ``side_bet`` is ``always | flat`` on any bet kind and ``counter`` is
``count | kelly``. These are the names the README's first commands use; ``a | b`` writes
any other composition.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from ..bets import BET_KINDS
from .base import Table
from .kinds import BetKind, MainBet
from .registry import register
from .selections.basic import Always
from .selections.counting import Count
from .selections.patterns import Chop, Follow, Streak
from .selections.roads import Road
from .staking.bankroll import Kelly
from .staking.progressions import (
    DAlembert,
    Fibonacci,
    Flat,
    GrandMartingale,
    Labouchere,
    Martingale,
    OneThreeTwoSix,
    OscarsGrind,
    Paroli,
)
from .system import Preset, preset

_SIDE = (Literal["banker", "player"],
         Field("banker", description="the side every stake goes on: banker or player"))


def _on_one_side(name: str, staking: type) -> type[Preset]:
    """A staking plan on Banker or Player every coup, as the progressions were."""
    return preset(name, staking.__doc__ or "", Always, staking, fields={"side": _SIDE},
                  class_name=staking.__name__)


def _flat_on(name: str, selection: type, **options: Any) -> type[Preset]:
    """A selection staking ``base`` flat, as the pattern followers were."""
    return preset(name, selection.__doc__ or "", selection, Flat,
                  class_name=selection.__name__, **options)


def _counter_last_ev(self: Any) -> np.ndarray:
    """The EV estimate behind the last wager, per session (NaN where none was made)."""
    return self._live.selection.last_ev  # type: ignore[no-any-return]


def _counter_estimate(self: Any, table: Table) -> np.ndarray:
    """The EV per unit of ``bet`` the counter sees before the coup, NaN where it does not
    look (see ``baccarat.strategies.selections.counting.Count.estimate``)."""
    return self._live.selection.estimate(table)  # type: ignore[no-any-return]


FlatPreset = preset(
    "flat", """The same stake on the same side every coup.

    Stakes ``base`` on ``side`` (banker, player or tie) on every coup of the session,
    whatever happened before: the yardstick every progression is compared with.
    """, Always, Flat, fields={"side": (MainBet, Field(
        "banker", description="the side every stake goes on: banker, player or tie"))})
MartingalePreset = _on_one_side("martingale", Martingale)
GrandMartingalePreset = _on_one_side("grand_martingale", GrandMartingale)
ParoliPreset = _on_one_side("paroli", Paroli)
DAlembertPreset = _on_one_side("dalembert", DAlembert)
FibonacciPreset = _on_one_side("fibonacci", Fibonacci)
LabouchrePreset = _on_one_side("labouchere", Labouchere)
OscarsGrindPreset = _on_one_side("oscars_grind", OscarsGrind)
OneThreeTwoSixPreset = _on_one_side("one_three_two_six", OneThreeTwoSix)
FollowPreset = _flat_on("follow", Follow)
ChopPreset = _flat_on("chop", Chop)
StreakPreset = _flat_on("streak", Streak)
RoadPreset = _flat_on("road", Road, hidden=("mode",))
SideBetPreset = preset(
    "side_bet", """The same stake on one bet kind every coup, side bets included.

    Stakes ``base`` on ``bet`` (banker, player, tie, player_pair, banker_pair, dragon7,
    panda8 or super6) on every coup of the session, whatever happened before. Side bets
    need a card-level dataset and a table that offers them (dragon7 and panda8: EZ;
    super6: Super 6).
    """, Always, Flat, rename={"side": "bet"}, fields={"bet": (BetKind, Field(
        "player_pair", description="the bet every stake goes on: " + ", ".join(BET_KINDS)))})
CounterPreset = preset(
    "counter",
    """Count the cards: bet one kind only when its EV on the cards left beats a threshold.

    Before each coup, per session, estimates the EV per unit of ``bet`` on the cards not yet
    seen in the shoe (the shown burn card counts as seen): by the true count of its exact
    effects of removal (``method=true_count``; ``max_tag`` rounds the tags to integers), or
    exactly by enumerating the next coup (``method=exact``, screened by the count, see
    ``screen``). It bets only when the estimate is above ``threshold`` and at least
    ``min_depth`` cards have been seen, staking ``kelly`` x bankroll x EV / b for a bet
    paying b:1 (Kelly's fraction), never less than ``base`` and never more than
    ``max_stake``. Needs a card-level dataset: it is ``count | kelly``.
    """, Count, Kelly, rename={"fraction": "kelly"}, fields={
        "bet": (BetKind, Field("tie", description="the bet kind counted and staked on")),
        "method": (Literal["exact", "true_count"], Field(
            "exact", description="exact: enumerate the next coup over the cards left; "
            "true_count: linear estimate from the effect-of-removal count")),
        "threshold": (float, Field(0.0, ge=-1.0, description="bet only when the EV per unit "
                                   "staked is above this (0: only positive expectation)")),
    }, namespace={"last_ev": property(_counter_last_ev), "estimate": _counter_estimate},
    order=("base", "bet", "method", "threshold", "kelly", "max_stake", "min_depth", "screen",
           "max_tag"))

#: Every preset by name.
PRESETS: dict[str, type[Preset]] = {cls.name: cls for cls in (
    FlatPreset, MartingalePreset, GrandMartingalePreset, ParoliPreset, DAlembertPreset,
    FibonacciPreset, LabouchrePreset, OscarsGrindPreset, OneThreeTwoSixPreset, FollowPreset,
    ChopPreset, StreakPreset, RoadPreset, SideBetPreset, CounterPreset)}
for _cls in PRESETS.values():
    register(_cls)
    globals()[_cls.__qualname__] = _cls  # importable by module and name (pickle)

__all__ = ["PRESETS"]
