"""Bet kinds as parts see them: the parameter type, what a table offers, what a win pays.

``BetKind`` lists every kind of :data:`baccarat.bets.BET_KINDS` (main bets and side bets)
as a validated parameter type. A side bet is settled from the cards of each coup, so it
needs a card-level dataset; bets the table's variant does not offer (Dragon 7 and Panda 8
outside EZ, the Super 6 side bet outside Super 6; see :func:`baccarat.odds.bets_offered`)
are refused when the session starts, naming the variants that do offer them.
"""

from __future__ import annotations

from typing import Literal, get_args

from ..bets import BET_KINDS
from ..odds import bets_offered
from ..rules import TableRules
from .registry import StrategyError

#: Every bet kind a strategy can stake on, as a parameter type (validated, listed in help).
BetKind = Literal["banker", "player", "tie", "player_pair", "banker_pair", "dragon7", "panda8",
                  "super6"]
assert get_args(BetKind) == BET_KINDS, "BetKind must list baccarat.bets.BET_KINDS in order"

#: The main bets, as a parameter type.
MainBet = Literal["banker", "player", "tie"]

_VARIANTS = ("standard", "ez", "super6")


def check_offered(who: str, kind: str, rules: TableRules) -> None:
    """Refuse a bet the table does not offer under ``rules``, naming the variants that do
    (``who``: the strategy's spec, for the message)."""
    if kind in bets_offered(rules):
        return
    offering = [v for v in _VARIANTS
                if kind in bets_offered(rules.model_copy(update={"variant": v}))]
    raise StrategyError(
        f"strategy {who!r}: the {kind} bet is not offered at a table with "
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


__all__ = ["BetKind", "MainBet", "check_offered", "win_payout"]
