"""Datasets with a known departure from a fair shuffle, to show what the analysis can find.

Used by the tests and the benchmarks (and handy in a notebook): outcomes from a streaky
chain, and shoes whose card values clump. Shoes from riffled discards come from
``baccarat.shuffles`` (``generate --shuffle riffle:K``).
"""

from __future__ import annotations

import numpy as np

from ..cards import VALUE_OF_CODE, full_deck_codes
from ..coups import BANKER, PLAYER, TIE, Coups
from ..deal import deal_sequences
from ..rules import TableRules


def streaky_outcomes(shoes: int, coups: int, p_same: float, seed: int = 0,
                     p_tie: float = 0.095156) -> Coups:
    """Outcome-only shoes of ``coups`` coups from a chain: each decision repeats the last
    one with probability ``p_same`` (ties skipped, and drawn independently with ``p_tie``).
    """
    rng = np.random.default_rng(seed)
    outcome = np.empty(shoes * coups, dtype=np.int8)
    for s in range(shoes):
        last = BANKER if rng.random() < 0.5 else PLAYER
        for c in range(coups):
            if rng.random() < p_tie:
                outcome[s * coups + c] = TIE
                continue
            if rng.random() >= p_same:
                last = PLAYER if last == BANKER else BANKER
            outcome[s * coups + c] = last
    n = outcome.size
    return Coups(
        shoe=np.repeat(np.arange(shoes, dtype=np.int64), coups),
        coup=np.tile(np.arange(1, coups + 1, dtype=np.int16), shoes),
        cards=np.full((n, 6), -1, dtype=np.int8), player_total=np.full(n, -1, np.int8),
        banker_total=np.full(n, -1, np.int8), outcome=outcome,
        burn_shown=np.full(n, -1, np.int8))


def clumped_order(decks: int, p_clump: float, rng: np.random.Generator) -> np.ndarray:
    """A shoe's card order in which, with probability ``p_clump``, each card is followed by
    one of equal value (taken from further down the shoe, if one is left), the rest uniform.
    """
    order = rng.permutation(full_deck_codes(decks))
    values = VALUE_OF_CODE[order]
    for i in range(1, order.size - 1):
        if rng.random() < p_clump and values[i] != values[i - 1]:
            later = np.flatnonzero(values[i + 1:] == values[i - 1])
            if later.size:
                j = i + 1 + int(later[rng.integers(later.size)])
                order[[i, j]] = order[[j, i]]
                values[[i, j]] = values[[j, i]]
    return order


def clumped_shoes(shoes: int, p_clump: float, seed: int = 0,
                  rules: TableRules | None = None) -> Coups:
    """Card-level shoes from :func:`clumped_order`, dealt to the cut card under ``rules``."""
    rules = rules or TableRules()
    rng = np.random.default_rng(seed)
    orders = [clumped_order(rules.decks, p_clump, rng) for _ in range(shoes)]
    coups, _ = deal_sequences(orders, rules, use_cut_card=True)
    coups.decks = rules.decks
    return coups
