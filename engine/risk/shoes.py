"""How many coups a shoe holds, in exact risk's model of independent coups.

A shoe's length is set by the cards its coups take (4, 5 or 6 each), the burn and the
cut card: the dealer deals while the cut card has not come out, and the coup during
which it comes out is the last (or the one after it, with ``extra_coup_after_cut``),
exactly as ``baccarat.deal._deal_run`` deals. In the model each coup takes its cards
independently, with the full shoe's exact probabilities (:mod:`baccarat.risk.coups`), and
the length of a shoe is taken as independent of the coups' outcomes (in a real shoe it is
weakly tied to them: naturals take four cards). The simulation that ``baccarat risk``
runs beside the exact figures plays real shoes, so it measures what this costs.
"""

from __future__ import annotations

import functools

import numpy as np

from ..odds.composition import shoe_rank_counts
from ..rules import TableRules
from .coups import class_tallies


def burn_lengths(rules: TableRules) -> np.ndarray:
    """P(the burn takes b cards), b = 0, 1, ..., 11."""
    out = np.zeros(12)
    if rules.burn == "none":
        out[0] = 1.0
    elif rules.burn == "fixed":
        out = np.zeros(max(12, rules.burn_count + 1))
        out[rules.burn_count] = 1.0
    else:  # standard: the first card is shown and that many (10 for 10/J/Q/K) burned
        ranks = shoe_rank_counts(rules.decks).astype(np.float64)
        for rank, count in enumerate(ranks):  # rank 0..12 = A..K
            value = rank + 1 if rank < 9 else 10
            out[1 + value] += count / ranks.sum()
    return out


@functools.lru_cache(maxsize=32)
def shoe_lengths(rules: TableRules) -> np.ndarray:
    """P(a shoe holds L coups), L = 0, 1, ..., as an array (float64, summing to 1)."""
    n = rules.cards_in_shoe
    cut_index = n - rules.cut_card
    cards = class_tallies(rules.decks).cards_distribution()  # P(4), P(5), P(6) cards
    burn = burn_lengths(rules)
    extra = 1 if rules.extra_coup_after_cut else 0
    # dist[e, pos]: the next coup would start at card pos, e coups having been dealt
    # after the cut card came out.
    dist = np.zeros((extra + 1, n + 1))
    dist[0, : burn.size] = burn[: n + 1]
    lengths = []
    while dist.any():
        ended = 0.0
        # Before a coup: past the cut card the shoe ends, or deals an extra coup.
        for e in range(extra, -1, -1):
            past = dist[e, cut_index + 1:].copy()
            dist[e, cut_index + 1:] = 0.0
            if e == extra:
                ended += past.sum()
            else:
                dist[e + 1, cut_index + 1:] += past
        ended += dist[:, n:].sum()  # no card left
        dist[:, n:] = 0.0
        nxt = np.zeros_like(dist)
        for k, p in enumerate(cards):  # a coup that needs more cards than are left is
            c = 4 + k                  # not dealt: the shoe ends there
            nxt[:, c:] += p * dist[:, : n + 1 - c]
            ended += p * dist[:, n + 1 - c:].sum()
        lengths.append(ended)
        dist = nxt
        if len(lengths) > n:  # pragma: no cover - a coup takes 4 cards or more
            raise AssertionError("shoe length did not converge")
    out = np.array(lengths)
    return out / out.sum()


def session_lengths(rules: TableRules, shoes: int) -> np.ndarray:
    """P(a session of ``shoes`` shoes holds T coups), T = 0, 1, ...: shoe lengths added."""
    one = shoe_lengths(rules)
    out = np.array([1.0])
    for _ in range(shoes):
        out = np.convolve(out, one)
    return out


def hazards(pmf: np.ndarray) -> np.ndarray:
    """``h[t]`` = P(length = t | length >= t): the chance an age-t run ends right there."""
    survival = np.cumsum(pmf[::-1])[::-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(survival > 0, pmf / np.where(survival > 0, survival, 1.0), 1.0)
    return np.clip(h, 0.0, 1.0)


def fewest_coups(rules: TableRules) -> int:
    """The fewest coups a shoe of ``rules`` can hold."""
    return int(np.flatnonzero(shoe_lengths(rules) > 0)[0])


__all__ = ["burn_lengths", "fewest_coups", "hazards", "session_lengths", "shoe_lengths"]
