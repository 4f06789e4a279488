"""Bet kinds and what each pays on each coup, under the table's rules.

Every coup falls in one of a few *coup classes* (outcome, the special hands the variants
care about, the two pair flags). What a unit stake on each bet kind nets depends only on
the class and the rules, so settlement is one table lookup per coup for all bets at once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import RANK_OF_CODE
from .coups import BANKER, PLAYER, TIE, Coups
from .rules import TableRules

#: Every bet a strategy can stake on, in the order of stake columns everywhere.
BET_KINDS = ("banker", "player", "tie", "player_pair", "banker_pair", "dragon7", "panda8",
             "super6")
MAIN_BETS = ("banker", "player", "tie")
SIDE_BETS = tuple(kind for kind in BET_KINDS if kind not in MAIN_BETS)
KIND_INDEX = {kind: i for i, kind in enumerate(BET_KINDS)}

# The special hand of a coup, as far as any bet cares.
PLAIN, BANKER_3CARD_7, PLAYER_3CARD_8, BANKER_6, UNKNOWN = range(5)
N_SPECIAL = 5
N_CLASSES = 3 * N_SPECIAL * 4


def coup_class(outcome: np.ndarray, special: np.ndarray, player_pair: np.ndarray,
               banker_pair: np.ndarray) -> np.ndarray:
    """The class index of each coup (see ``payout_table``)."""
    return (((outcome.astype(np.int16) * N_SPECIAL + special) * 2 + player_pair) * 2
            + banker_pair).astype(np.int16)


def classify_coups(coups: Coups) -> np.ndarray:
    """The class of every coup in a coups table (UNKNOWN special where cards are missing).

    With totals but no cards, the number of cards is unknown: a Banker 7 or a Player 8
    is ambiguous, so those coups cannot settle the EZ bets either.
    """
    return _classify(coups.cards, coups.outcome, coups.player_total, coups.banker_total,
                     RANK_OF_CODE)


@njit(cache=True)
def _classify(cards, outcome, player_total, banker_total, rank_of):  # pragma: no cover
    n = outcome.shape[0]
    out = np.empty(n, dtype=np.int16)
    for i in range(n):
        o = outcome[i]
        pt = player_total[i]
        bt = banker_total[i]
        has_cards = cards[i, 0] >= 0
        special = PLAIN
        if o == BANKER and bt == 6:
            special = BANKER_6
        if has_cards:
            if o == BANKER and bt == 7 and cards[i, 5] >= 0:
                special = BANKER_3CARD_7
            elif o == PLAYER and pt == 8 and cards[i, 2] >= 0:
                special = PLAYER_3CARD_8
        elif bt < 0 or (o == BANKER and bt == 7) or (o == PLAYER and pt == 8):
            special = UNKNOWN
        ppair = 0
        bpair = 0
        if has_cards:
            ppair = 1 if rank_of[cards[i, 0]] == rank_of[cards[i, 1]] else 0
            bpair = 1 if rank_of[cards[i, 3]] == rank_of[cards[i, 4]] else 0
        out[i] = ((o * N_SPECIAL + special) * 2 + ppair) * 2 + bpair
    return out


def payout_table(rules: TableRules) -> np.ndarray:
    """Net result of a unit stake, shape (N_CLASSES, len(BET_KINDS)); NaN = cannot settle.

    A stake on a NaN cell means the dataset lacks what that bet needs (cards, totals).
    """
    table = np.full((N_CLASSES, len(BET_KINDS)), np.nan)
    for outcome in (BANKER, PLAYER, TIE):
        for special in range(N_SPECIAL):
            for ppair in (0, 1):
                for bpair in (0, 1):
                    row = coup_class(np.array([outcome]), np.array([special]),
                                     np.array([ppair]), np.array([bpair]))[0]
                    table[row] = _unit_results(rules, outcome, special, ppair, bpair)
    return table


def _unit_results(rules: TableRules, outcome: int, special: int, ppair: int,
                  bpair: int) -> list[float]:
    known = special != UNKNOWN
    nan = float("nan")
    if outcome == BANKER:
        banker = 1.0 - rules.banker_commission
        if rules.variant == "ez" and special == BANKER_3CARD_7:
            banker = 0.0
        elif rules.variant == "super6" and special == BANKER_6:
            banker = 0.5
        if not known and rules.variant != "standard":
            banker = nan
        player, tie = -1.0, -1.0
    elif outcome == PLAYER:
        banker, player, tie = -1.0, 1.0, -1.0
    else:
        banker, player, tie = 0.0, 0.0, float(rules.tie_pays)
    side = [
        rules.pair_pays if ppair else -1.0,
        rules.pair_pays if bpair else -1.0,
        rules.dragon7_pays if special == BANKER_3CARD_7 else -1.0,
        rules.panda8_pays if special == PLAYER_3CARD_8 else -1.0,
        rules.super6_pays if special == BANKER_6 else -1.0,
    ]
    if not known:
        side = [nan] * len(side)
    return [banker, player, tie, *side]
