"""The coup as exact risk sees it: every class of coup with its exact probability.

Exact risk models a session as independent coups, each dealt from a full shoe of the
rules' decks (the "infinite shoe"). A coup's *class* (``baccarat.bets.coup_class``: the
outcome, the special hand the variants pay on, the two pair flags) fixes what every bet
pays, so the model needs the probability of each class, jointly, and the number of cards
the coup takes (for the length of a shoe, :mod:`baccarat.risk.shoes`).

:func:`class_tallies` enumerates them exactly: the first four cards by rank (the pairs
need ranks) and the two possible third cards by value, every ordered six-card sequence
counted once, as :func:`baccarat.odds.outcome_combinations` counts them, so its sums are the
same integers (``tests/risk/test_risk_coups.py`` compares them). :func:`exact_payouts` is the
payout table of :func:`baccarat.bets.payout_table` in exact fractions, read from the rules
as they are written (a 5% commission is 19/20 exactly, not the float nearest 0.95).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..bets import (
    BANKER_3CARD_7,
    BANKER_6,
    BET_KINDS,
    N_PAIR_STATES,
    N_SPECIAL,
    NO_PAIR,
    PAIR,
    PLAIN,
    PLAYER_3CARD_8,
)
from ..coups import BANKER, OUTCOME_LABELS, PLAYER, TIE
from ..odds.composition import shoe_rank_counts
from ..odds.direct import _STATES
from ..rules import TableRules

#: Cards a coup can take.
CARDS_PER_COUP = (4, 5, 6)

# Rank index 0..12 (A..K) -> baccarat value.
_RANK_VALUE = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], dtype=np.int64)


@dataclass(frozen=True)
class CoupClasses:
    """Every class of coup a full shoe can deal, with exact tallies.

    ``classes[k]`` is the engine's class index (``baccarat.bets.coup_class``), ``outcome[k]``
    0/1/2 (Banker, Player, Tie), ``tallies[k, n]`` how many ordered six-card sequences give
    class k with ``CARDS_PER_COUP[n]`` cards used (exact integers), ``total`` their sum.
    """

    classes: np.ndarray
    outcome: np.ndarray
    special: np.ndarray
    player_pair: np.ndarray
    banker_pair: np.ndarray
    tallies: np.ndarray
    total: int

    @property
    def probabilities(self) -> np.ndarray:
        """P(class k), float64."""
        return self.tallies.sum(axis=1).astype(np.float64) / float(self.total)

    def cards_distribution(self) -> np.ndarray:
        """P(a coup takes 4, 5, 6 cards)."""
        return self.tallies.sum(axis=0).astype(np.float64) / float(self.total)


@functools.lru_cache(maxsize=8)
def class_tallies(decks: int) -> CoupClasses:
    """Exact joint tallies of (coup class, cards used) for a full shoe of ``decks`` decks."""
    ranks = shoe_rank_counts(decks)
    values = np.zeros(10, dtype=np.int64)
    np.add.at(values, _RANK_VALUE, ranks)
    r1, r2, r3, r4 = np.meshgrid(*(np.arange(13),) * 4, indexing="ij")
    cards = [r.ravel() for r in (r1, r2, r3, r4)]  # P1, B1, P2, B2 by rank
    w4 = np.ones(cards[0].size, dtype=np.int64)
    left = np.tile(values, (cards[0].size, 1))
    rows = np.arange(cards[0].size)
    for k, card in enumerate(cards):
        before = sum((cards[j] == card).astype(np.int64) for j in range(k)) if k else 0
        w4 *= ranks[card] - before
        left[rows, _RANK_VALUE[card]] -= 1
    keep = w4 > 0
    w4, left = w4[keep], left[keep]
    p1, b1, p2, b2 = (c[keep] for c in cards)
    totals = ((_RANK_VALUE[p1] + _RANK_VALUE[p2]) % 10) * 10 \
        + (_RANK_VALUE[b1] + _RANK_VALUE[b2]) % 10
    pairs = (p1 == p2).astype(np.int64) * 2 + (b1 == b2)
    group = totals * 4 + pairs  # 400 groups
    # Per group, the weight of the next two cards having values (x5, x6) is the sum over
    # its first fours of w4 left[x5] (left[x6] - [x5 == x6]): one small product per group.
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(401))
    wl = (w4[:, None] * left)[order].astype(np.float64)
    lf = left[order].astype(np.float64)
    products = np.zeros((400, 10, 10))
    for g in range(400):  # whole numbers below 2**53: float products and sums are exact
        lo, hi = starts[g], starts[g + 1]
        if hi > lo:
            products[g] = wl[lo:hi].T @ lf[lo:hi] - np.diag(wl[lo:hi].sum(axis=0))
    by_group = products.reshape(400, 100)
    total = 1
    for k in range(6):
        total *= int(ranks.sum()) - k
    if int(round(by_group.sum())) != total or total >= 2**53:
        raise AssertionError("the class enumeration does not add up")  # pragma: no cover
    state = _STATES[np.arange(400) // 4][:, :]  # (group, x5x6) -> final state
    pair_of_group = np.arange(400) % 4
    banker_drew = state % 2
    player_drew = (state // 2) % 2
    pt = (state // 4) // 10
    bt = (state // 4) % 10
    outcome = np.where(bt > pt, BANKER, np.where(pt > bt, PLAYER, TIE))
    special = np.full(state.shape, PLAIN)
    special = np.where((outcome == BANKER) & (bt == 6), BANKER_6, special)
    special = np.where((outcome == BANKER) & (bt == 7) & (banker_drew == 1), BANKER_3CARD_7,
                       special)
    special = np.where((outcome == PLAYER) & (pt == 8) & (player_drew == 1), PLAYER_3CARD_8,
                       special)
    ppair = np.broadcast_to((pair_of_group // 2)[:, None], state.shape)
    bpair = np.broadcast_to((pair_of_group % 2)[:, None], state.shape)
    ppair = np.where(ppair == 1, PAIR, NO_PAIR)
    bpair = np.where(bpair == 1, PAIR, NO_PAIR)
    klass = ((outcome * N_SPECIAL + special) * N_PAIR_STATES + ppair) * N_PAIR_STATES + bpair
    used = player_drew + banker_drew  # 0, 1, 2 -> 4, 5, 6 cards
    tallied = np.zeros((klass.max() + 1, 3))
    np.add.at(tallied, (klass.ravel(), used.ravel()), by_group.ravel())
    found = np.flatnonzero(tallied.sum(axis=1) > 0)
    return CoupClasses(
        classes=found.astype(np.int64),
        outcome=(found // (N_SPECIAL * N_PAIR_STATES * N_PAIR_STATES)).astype(np.int64),
        special=((found // (N_PAIR_STATES * N_PAIR_STATES)) % N_SPECIAL).astype(np.int64),
        player_pair=((found // N_PAIR_STATES) % N_PAIR_STATES).astype(np.int64),
        banker_pair=(found % N_PAIR_STATES).astype(np.int64),
        tallies=np.rint(tallied[found]).astype(np.int64),
        total=total,
    )


def exact(value: float | int) -> Fraction:
    """A rule or parameter as the number it is written as: ``0.05`` is 1/20 exactly."""
    return Fraction(repr(float(value))) if not isinstance(value, int) else Fraction(value)


def exact_payouts(rules: TableRules, coups: CoupClasses) -> list[dict[str, Fraction]]:
    """What a unit stake on each bet kind nets on each class of ``coups``, exactly.

    The same table as ``baccarat.bets.payout_table`` (which the tests compare it with), for
    the classes a full shoe deals (cards known, so every bet settles).
    """
    lose = Fraction(-1)
    commission = exact(rules.banker_commission)
    out = []
    for o, sp, pp, bp in zip(coups.outcome, coups.special, coups.player_pair,
                             coups.banker_pair, strict=True):
        if o == BANKER:
            banker = 1 - commission
            if rules.variant == "ez" and sp == BANKER_3CARD_7:
                banker = Fraction(0)
            elif rules.variant == "super6" and sp == BANKER_6:
                banker = Fraction(1, 2)
            player, tie = lose, lose
        elif o == PLAYER:
            banker, player, tie = lose, Fraction(1), lose
        else:
            banker, player, tie = Fraction(0), Fraction(0), Fraction(rules.tie_pays)
        pair = exact(rules.pair_pays)
        row = {
            "banker": banker, "player": player, "tie": tie,
            "player_pair": pair if pp == PAIR else lose,
            "banker_pair": pair if bp == PAIR else lose,
            "dragon7": exact(rules.dragon7_pays) if sp == BANKER_3CARD_7 else lose,
            "panda8": exact(rules.panda8_pays) if sp == PLAYER_3CARD_8 else lose,
            "super6": exact(rules.super6_pays) if (o == BANKER and sp == BANKER_6) else lose,
        }
        assert tuple(row) == BET_KINDS
        out.append(row)
    return out


def outcome_letter(outcome: int) -> str:
    """"B", "P" or "T"."""
    return OUTCOME_LABELS[int(outcome)]


__all__ = ["CARDS_PER_COUP", "CoupClasses", "class_tallies", "exact", "exact_payouts",
           "outcome_letter"]
