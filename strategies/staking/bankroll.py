"""Staking plans sized by the bankroll: a percentage of it, and Kelly from the exact EV.

Both stake from the session's bankroll before the coup (``table.bankroll``), never less
than ``base``. Kelly stakes the fraction of the bankroll that maximises its growth for the
bet's expected value: the EV the selection priced its bet at (a count trigger by exact
EV or by the effect-of-removal estimate), or else the exact EV of the bet chosen on the
cards left in the shoe.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

import numpy as np
from pydantic import Field, model_validator

from ...bets import BET_KINDS
from ..base import Table
from ..compiled import STAKINGS, PartForm
from ..kinds import win_payout
from ..parts import Choice, Staking, register_part
from ..registry import StrategyError
from .progressions import NoneWord


def kelly_fraction(ev: np.ndarray, payout: float | np.ndarray) -> np.ndarray:
    """Kelly's bankroll fraction for a bet paying ``payout``:1 with expected value ``ev``.

    For a bet won with probability p and lost with q = 1 - p, the growth rate
    p log(1 + b f) + q log(1 - f) is largest at f* = (b p - q) / b = EV / b. Pushes (a tie
    on Banker or Player) are ignored, which slightly under-stakes those two bets.
    """
    return np.asarray(ev, dtype=np.float64) / payout


@register_part
class Percent(Staking):
    """Stake a fixed percentage of the bankroll on every bet, never less than the base.

    The stake is ``percent`` % of the session's bankroll before the coup (it grows as the
    bankroll grows and shrinks as it shrinks), and at least ``base``.
    """

    name: ClassVar[str] = "percent"
    not_finite: ClassVar[str] = ("its stake follows the bankroll, which is not a state of its "
                                 "own: exact risk does not follow it")

    percent: float = Field(2.0, gt=0, le=100, description="percentage of the bankroll staked")

    def stakes(self, table: Table, choice: Choice) -> np.ndarray:
        return np.maximum(self.percent / 100.0 * np.asarray(table.bankroll), self.base)

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["percent"], (self.base, self.percent))  # base, percent


@register_part
class Kelly(Staking):
    """Kelly stakes from the exact EV: fraction x bankroll x EV / b for a bet paying b:1.

    Stakes ``fraction`` x bankroll x EV / b (Kelly's fraction of the bankroll for that
    EV), never less than ``base`` and never more than ``max_stake``. The EV is the one the
    selection priced its bet at (``count``), or else the exact EV of the bet chosen on the
    cards left in the shoe. Needs a card-level dataset.
    """

    name: ClassVar[str] = "kelly"
    needs_cards: ClassVar[bool] = True
    not_finite: ClassVar[str] = ("it stakes from the bankroll and the cards left in the shoe, "
                                 "which exact risk's model of independent coups does not have")

    fraction: float = Field(0.5, ge=0.0, le=1.0, description="fraction of the Kelly stake "
                            "(0: always the base stake)")
    max_stake: Annotated[float | None, NoneWord] = Field(
        None, gt=0, description="largest stake (none: the table maximum)")

    _payouts: np.ndarray
    _decks: int

    @model_validator(mode="after")
    def _stake_bounds(self) -> Kelly:
        if self.max_stake is not None and self.max_stake < self.base:
            raise ValueError(f"max_stake ({self.max_stake:g}) is below base ({self.base:g})")
        return self

    def start(self, table: Table) -> None:
        if table.remaining is None or table.seen is None:
            raise StrategyError(f"{self.kind} {self.spec()!r} needs the cards left in the "
                                f"shoe (table.remaining): run it on card-level coups")
        self._payouts = np.array([win_payout(table.rules, kind) for kind in BET_KINDS])
        full = np.asarray(table.seen[:1] + table.remaining[:1]).sum() if table.n else 0
        self._decks = max(int(full) // 52, 1) if table.n else table.rules.decks

    def stakes(self, table: Table, choice: Choice) -> np.ndarray:
        side = choice.side
        if not isinstance(side, np.ndarray) or side.shape != (table.n,):
            side = np.broadcast_to(np.asarray(side), (table.n,))
        one = choice.kinds[0] if len(choice.kinds) == 1 else None  # one kind: one payout
        if side.dtype == np.bool_:  # a selection of one kind: True bets it
            good = side
            if choice.ev is None or one is None:  # the codes are needed below
                side = np.where(good, BET_KINDS.index(one or "banker"), -1)
        else:
            good = side >= 0
        ev = choice.ev if choice.ev is not None else self._exact_ev(table, side, good)
        payout = (self._payouts[BET_KINDS.index(one)] if one is not None
                  else self._payouts[np.maximum(side, 0)])
        stake = self.fraction * table.bankroll * kelly_fraction(np.where(good, ev, 0.0),
                                                                payout)
        stake = np.maximum(stake, self.base)
        if self.max_stake is not None:
            stake = np.minimum(stake, self.max_stake)
        return stake

    def _exact_ev(self, table: Table, side: np.ndarray, good: np.ndarray) -> np.ndarray:
        """The exact EV on the cards left of each session's chosen kind (0 where it cannot
        be enumerated: fewer than six cards left; Kelly then stakes the base)."""
        from ..selections.counting import exact_ev

        remaining = np.asarray(table.remaining)
        whole = good & (remaining.sum(axis=1) >= 6) & (remaining >= 0).all(axis=1)
        ev = np.zeros(table.n)
        for code in np.unique(side[whole]):
            rows = np.flatnonzero(whole & (side == code))
            ev[rows] = exact_ev(remaining[rows], table.rules, BET_KINDS[int(code)],
                                self._decks)
        return ev

    def compiled_form(self) -> PartForm:
        # base, fraction, max_stake (-1: none)
        return PartForm(STAKINGS["kelly"], (self.base, self.fraction,
                                            -1.0 if self.max_stake is None else self.max_stake))


__all__ = ["Kelly", "Percent", "kelly_fraction"]
