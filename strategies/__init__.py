"""The plugin kit: everything a strategy file imports, from one place.

A system in the simple form, one session at a time with plain Python values::

    from baccarat.strategies import SimpleStrategy

    class BankerAfterPlayers(SimpleStrategy):
        name = "banker_after_players"

        def bet(self, view):
            return ("B", 10) if view.history[-2:] == ["P", "P"] else None

A part (``Selection``, ``Staking``, or their simple forms) composes with the built-in
parts in a SPEC (``"myfile.py:MySelection | martingale"``). ``BANKER``, ``PLAYER`` and
``TIE`` are both a selection's picks and a coup's outcome codes; ``NO_BET`` and ``END``
are picks only.
"""

from __future__ import annotations

from .base import Result, SessionView, SimpleStrategy, Strategy, Table, TableState, Wager
from .parts import BANKER, END, NO_BET, PLAYER, TIE, Choice, Selection, Staking
from .simple import STOP, SimpleSelection, SimpleStaking

__all__ = ["BANKER", "END", "NO_BET", "PLAYER", "STOP", "TIE", "Choice", "Result",
           "Selection", "SessionView", "SimpleSelection", "SimpleStaking", "SimpleStrategy",
           "Staking", "Strategy", "Table", "TableState", "Wager"]
