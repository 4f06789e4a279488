"""Flat stakes on any bet kind, side bets included, and what a table offers.

``side_bet`` stakes ``base`` on one bet kind of :data:`engine.bets.BET_KINDS` every coup:
the yardstick for the side bets (pairs, Dragon 7, Panda 8, Super 6), whose realized edge
over many shoes must match the exact house edge. A side bet is settled from the cards of
each coup, so it needs a card-level dataset: on outcomes only the replay refuses the stake
(``StrategyFault``) at the first coup it cannot settle.

Bets the table's variant does not offer (Dragon 7 and Panda 8 outside EZ, the Super 6 side
bet outside Super 6; see :func:`engine.odds.bets_offered`) are refused when the session
starts, naming the variants that do offer them.
"""

from __future__ import annotations

from typing import ClassVar, Literal, get_args

import numpy as np
from pydantic import Field

from engine.bets import BET_KINDS
from engine.odds import bets_offered
from engine.rules import TableRules

from ..base import Strategy, Table, Wager
from ..registry import StrategyError, register

#: Every bet kind a strategy can stake on, as a parameter type (validated, listed in help).
BetKind = Literal["banker", "player", "tie", "player_pair", "banker_pair", "dragon7", "panda8",
                  "super6"]
assert get_args(BetKind) == BET_KINDS, "BetKind must list engine.bets.BET_KINDS in order"

_VARIANTS = ("standard", "ez", "super6")


def check_offered(strategy: Strategy, kind: str, rules: TableRules) -> None:
    """Refuse a bet the table does not offer under ``rules``, naming the variants that do."""
    if kind in bets_offered(rules):
        return
    offering = [v for v in _VARIANTS
                if kind in bets_offered(rules.model_copy(update={"variant": v}))]
    raise StrategyError(
        f"strategy {strategy.spec()!r}: the {kind} bet is not offered at a table with "
        f"{rules.label()}; tables with variant={' or '.join(offering)} offer it"
    )


def win_payout(rules: TableRules, kind: str) -> float:
    """What a winning unit stake on ``kind`` nets under ``rules`` (b in a b:1 bet).

    Banker pays 1 less the commission actually charged (none under EZ and Super 6; the
    Super 6 half-paid Banker 6 and the EZ pushed Banker three-card 7 are not counted here).
    """
    pays = {
        "banker": 1.0 - rules.banker_commission,
        "player": 1.0,
        "tie": float(rules.tie_pays),
        "player_pair": rules.pair_pays,
        "banker_pair": rules.pair_pays,
        "dragon7": rules.dragon7_pays,
        "panda8": rules.panda8_pays,
        "super6": rules.super6_pays,
    }
    return pays[kind]


@register
class SideBet(Strategy):
    """The same stake on one bet kind every coup, side bets included.

    Stakes ``base`` on ``bet`` (banker, player, tie, player_pair, banker_pair, dragon7,
    panda8 or super6) on every coup of the session, whatever happened before. Side bets
    need a card-level dataset and a table that offers them (dragon7 and panda8: EZ;
    super6: Super 6).
    """

    name: ClassVar[str] = "side_bet"

    bet: BetKind = Field("player_pair", description="the bet every stake goes on: "
                         + ", ".join(BET_KINDS))

    _stake: np.ndarray

    def start(self, table: Table) -> None:
        check_offered(self, self.bet, table.rules)
        self._stake = np.full(table.n, self.base)

    def wager(self, table: Table) -> Wager:
        return Wager.side(self.bet, self._stake)

    def initial_state(self) -> None:
        """One state: the same stake every coup (exact risk, strategies/finite_state.py)."""
        return None

    def stakes_of(self, state: None) -> dict[str, float]:
        """``base`` on ``bet``, always."""
        return {self.bet: self.base}

    def next_state(self, state: None, outcome: str, result: str) -> None:
        """Nothing changes."""
        return None
