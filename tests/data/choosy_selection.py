"""A user's selection written as a plugin (tests/play/test_fused.py): the replay plays it."""

from typing import ClassVar

import numpy as np
from baccarat.strategies.base import Table
from baccarat.strategies.parts import BANKER, NO_BET, Selection


class EveryOther(Selection):
    """Bet Banker on every other coup of the shoe (the first, the third, ...)."""

    name: ClassVar[str] = "every_other"

    def choose(self, table: Table) -> np.ndarray:
        return np.where(np.asarray(table.shoe_coup) % 2 == 0, BANKER, NO_BET)
