"""Bet kinds and what each pays on each coup, under the table's rules.

Every coup falls in one of a few *coup classes* (outcome, the special hands the variants
care about, the two pair flags). What a unit stake on each bet kind nets depends only on
the class and the rules, so settlement is one table lookup per coup for all bets at once.
"""

from __future__ import annotations

import functools

import numpy as np

from .cards import RANK_OF_CODE
from .coups import BANKER, PLAYER, TIE, Coups
from .jit import njit
from .rules import TableRules

#: Every bet a strategy can stake on, in the order of stake columns everywhere.
BET_KINDS = ("banker", "player", "tie", "player_pair", "banker_pair", "dragon7", "panda8",
             "super6")
MAIN_BETS = ("banker", "player", "tie")
SIDE_BETS = tuple(kind for kind in BET_KINDS if kind not in MAIN_BETS)
KIND_INDEX = {kind: i for i, kind in enumerate(BET_KINDS)}

# The special hand of a coup, as far as any bet cares. UNKNOWN: no totals (outcomes only);
# BANKER_7_UNSURE / PLAYER_8_UNSURE: totals without cards, so whether that winning 7 / 8
# took three cards is not known (only the bets that care about it cannot settle).
PLAIN, BANKER_3CARD_7, PLAYER_3CARD_8, BANKER_6, UNKNOWN, BANKER_7_UNSURE, PLAYER_8_UNSURE = (
    range(7))
N_SPECIAL = 7
# Whether a hand's first two cards are a pair: unknown without the cards, or when a
# zero-valued card was recorded without its rank ("0": a 10 and a K are not a pair).
NO_PAIR, PAIR, PAIR_UNKNOWN = range(3)
N_PAIR_STATES = 3
N_CLASSES = 3 * N_SPECIAL * N_PAIR_STATES * N_PAIR_STATES


def coup_class(outcome: np.ndarray, special: np.ndarray, player_pair: np.ndarray,
               banker_pair: np.ndarray) -> np.ndarray:
    """The class index of each coup (see ``payout_table``); pair flags are the pair states."""
    return (((outcome.astype(np.int16) * N_SPECIAL + special) * N_PAIR_STATES + player_pair)
            * N_PAIR_STATES + banker_pair).astype(np.int16)


def classify_coups(coups: Coups) -> np.ndarray:
    """The class of every coup in a coups table (what each bet needs to know about it).

    With totals but no cards, the number of cards is unknown: a winning Banker 7 or Player 8
    is ambiguous, so those coups cannot settle Dragon 7 (and the EZ Banker bet) or Panda 8;
    every other bet but the pairs settles from the totals. Without the cards, or
    with two zero-valued cards one of which was recorded without its rank ("0"), whether a
    hand is a pair is unknown: the pair bets cannot be settled on that coup.
    """
    out = np.empty(len(coups.outcome), dtype=np.int16)
    _classify(np.ascontiguousarray(coups.cards), np.ascontiguousarray(coups.outcome),
              np.ascontiguousarray(coups.player_total),
              np.ascontiguousarray(coups.banker_total), RANK_OF_CODE, out)
    return out


@njit(cache=True, inline="always")
def _pair_state(rank_of, first, second):  # pragma: no cover - compiled
    """NO_PAIR, PAIR, or PAIR_UNKNOWN when a card's rank is not known (code rank 0 = "0")."""
    r1 = rank_of[first]
    r2 = rank_of[second]
    if r1 == 0 or r2 == 0:
        # A rank-less zero-valued card pairs with no 1-9, but may pair with a 10/J/Q/K.
        if (r1 == 0 or r1 >= 10) and (r2 == 0 or r2 >= 10):
            return PAIR_UNKNOWN
        return NO_PAIR
    return PAIR if r1 == r2 else NO_PAIR


@njit(cache=True)
def _classify(cards, outcome, player_total, banker_total, rank_of, out):  # pragma: no cover
    """Write each coup's class into ``out``."""
    for i in range(outcome.shape[0]):
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
        elif bt < 0 or pt < 0:
            special = UNKNOWN
        elif o == BANKER and bt == 7:
            special = BANKER_7_UNSURE
        elif o == PLAYER and pt == 8:
            special = PLAYER_8_UNSURE
        ppair = PAIR_UNKNOWN
        bpair = PAIR_UNKNOWN
        if has_cards:
            ppair = _pair_state(rank_of, cards[i, 0], cards[i, 1])
            bpair = _pair_state(rank_of, cards[i, 3], cards[i, 4])
        out[i] = ((o * N_SPECIAL + special) * N_PAIR_STATES + ppair) * N_PAIR_STATES + bpair


def payout_table(rules: TableRules) -> np.ndarray:
    """Net result of a unit stake, shape (N_CLASSES, len(BET_KINDS)); NaN = cannot settle.

    A stake on a NaN cell means the dataset lacks what that bet needs (cards, totals).
    Built once per rules (some 3 ms, asked for by every replay): a copy is returned.
    """
    return _payout_table(rules).copy()


@functools.lru_cache(maxsize=64)
def _payout_table(rules: TableRules) -> np.ndarray:
    table = np.full((N_CLASSES, len(BET_KINDS)), np.nan)
    for outcome in (BANKER, PLAYER, TIE):
        for special in range(N_SPECIAL):
            for ppair in range(N_PAIR_STATES):
                for bpair in range(N_PAIR_STATES):
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
        if (not known and rules.variant != "standard") or (
                special == BANKER_7_UNSURE and rules.variant == "ez"):
            banker = nan
        player, tie = -1.0, -1.0
    elif outcome == PLAYER:
        banker, player, tie = -1.0, 1.0, -1.0
    else:
        banker, player, tie = 0.0, 0.0, float(rules.tie_pays)
    pairs = [nan if pair == PAIR_UNKNOWN else (rules.pair_pays if pair == PAIR else -1.0)
             for pair in (ppair, bpair)]
    special_bets = [
        rules.dragon7_pays if special == BANKER_3CARD_7
        else nan if special == BANKER_7_UNSURE else -1.0,
        rules.panda8_pays if special == PLAYER_3CARD_8
        else nan if special == PLAYER_8_UNSURE else -1.0,
        rules.super6_pays if special == BANKER_6 else -1.0,
    ]
    if not known:
        special_bets = [nan] * len(special_bets)
    return [banker, player, tie, *pairs, *special_bets]
