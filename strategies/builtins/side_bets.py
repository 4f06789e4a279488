"""Flat stakes on any bet kind as a whole strategy (``side_bet``: ``always`` on its
``bet`` staking ``base`` flat); the bet kinds' helpers live in ``strategies.kinds``."""

from __future__ import annotations

from ..kinds import BetKind, check_offered, win_payout
from ..presets import PRESETS

SideBet = PRESETS["side_bet"]

__all__ = ["BetKind", "SideBet", "check_offered", "win_payout"]
