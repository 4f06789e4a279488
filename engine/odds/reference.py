"""The original enumeration of a coup, path by path: the reference the fast kernel is tested on.

:mod:`baccarat.odds.enumeration` computes the same integer tallies by grouping the deals by
the totals of the first four cards. This module keeps the direct enumeration it replaced:
every P1, P2, B1, B2 (each hand's two cards as an unordered pair with a multiplicity of 2
when the values differ), then every third card by the drawing rules, each path weighted by
the ordered six-card sequences that start with it. It is some 50 times slower and serves
the tests and ``benchmarks/bench_odds.py`` as an independent check of every figure.
"""

from __future__ import annotations

import numpy as np

from ..deal import banker_draws
from ..jit import njit
from .composition import N_RANKS, check_counts, values_from_ranks
from .enumeration import N_EVENTS, settle


@njit(cache=True)
def _third_cards(c, left, pt, bt, weight, out):
    """Finish a coup whose first four cards are out (``left`` cards remain in ``c``)."""
    if pt >= 8 or bt >= 8:  # a natural: the coup ends on four cards
        settle(pt, bt, False, False, weight * left * (left - 1), out)
        return
    if pt <= 5:
        for p3 in range(10):
            n3 = c[p3]
            if n3 == 0:
                continue
            c[p3] = n3 - 1
            final_pt = (pt + p3) % 10
            w = weight * n3
            if banker_draws(bt, p3):
                for b3 in range(10):
                    if c[b3] != 0:
                        settle(final_pt, (bt + b3) % 10, True, True, w * c[b3], out)
            else:
                settle(final_pt, bt, True, False, w * (left - 1), out)
            c[p3] = n3
    elif banker_draws(bt, -1):
        w = weight * (left - 1)
        for b3 in range(10):
            if c[b3] != 0:
                settle(pt, (bt + b3) % 10, False, True, w * c[b3], out)
    else:
        settle(pt, bt, False, False, weight * left * (left - 1), out)


@njit(cache=True)
def _reference_rows(counts, out):
    """Tally every row of ``counts`` (n, 10) into ``out`` (n, N_EVENTS), path by path."""
    for i in range(counts.shape[0]):
        c = counts[i].copy()
        n = 0
        for v in range(10):
            n += c[v]
        for p1 in range(10):
            n1 = c[p1]
            if n1 == 0:
                continue
            c[p1] = n1 - 1
            for p2 in range(p1, 10):
                n2 = c[p2]
                if n2 == 0:
                    continue
                c[p2] = n2 - 1
                w2 = n1 * n2 * (1 if p2 == p1 else 2)
                pt = (p1 + p2) % 10
                for b1 in range(10):
                    n3 = c[b1]
                    if n3 == 0:
                        continue
                    c[b1] = n3 - 1
                    for b2 in range(b1, 10):
                        n4 = c[b2]
                        if n4 == 0:
                            continue
                        c[b2] = n4 - 1
                        w4 = w2 * n3 * n4 * (1 if b2 == b1 else 2)
                        _third_cards(c, n - 4, pt, (b1 + b2) % 10, w4, out[i])
                        c[b2] = n4
                    c[b1] = n3
                c[p2] = n2
            c[p1] = n1


def reference_tallies(counts: object) -> np.ndarray:
    """Event tallies (n, N_EVENTS) int64 of compositions (n, 10|13) by the direct enumeration."""
    arr = np.atleast_2d(check_counts(counts))
    values = values_from_ranks(arr) if arr.shape[-1] == N_RANKS else arr
    out = np.zeros((values.shape[0], N_EVENTS), dtype=np.int64)
    _reference_rows(np.ascontiguousarray(values, dtype=np.int64), out)
    return out
