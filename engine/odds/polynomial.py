"""Exact tallies of chosen events as polynomials in the counts: a few matrix products.

How many ordered six-card sequences of a composition n (10 counts by value) give an event
is a polynomial of degree 6 in the counts. In the falling-factorial basis it reads

    tally_e(n) = sum over multisets k of 6 values of C_e[k] * prod over v of (n_v)_(k_v),
    (x)_j = x (x - 1) ... (x - j + 1), the falling factorial (0 when x < j),

where C_e[k] is the number of ordered sequences of six values with multiset k whose coup
(its first four to six cards, by the drawing rules) ends in event e: the cards a coup does
not use still count, as in :mod:`baccarat.odds.enumeration`, so the tallies of the three
outcomes sum to N (N - 1) ... (N - 5). The 5005 coefficients of each event are found once
per process (:func:`coefficients`, from the final state of every one of the 10**6 value
sequences, which :mod:`baccarat.odds.direct` already tabulates).

Each multiset splits into its part over values 0-4 (degree d) and over values 5-9 (degree
6 - d), so with a_d and b_d the falling-factorial monomials of degree d of each group (462
per group, one multiply each), ``tally_e = sum over d of a_d K_d b_(6-d)``: seven small
matrix products per block of compositions, done by BLAS, then one weighted sum. Only the
events asked for are computed (some 10,000 multiply-adds per composition and event): one
event takes about a third of the CPU of the grouped enumeration of all seven, the three
of an EZ Banker bet about half (``benchmarks/bench_odds.py``), which is what a counter
staking one bet kind needs.

Exact: every monomial, coefficient, product and partial sum is a whole number below 2**53
for compositions of up to 8 decks (all terms are counts of sequences, >= 0; a tally is at
most 416 * 415 * ... * 411 < 5.0e15, and a partial product a_d K_d at most 6!/d! * 256**d
< 3e14), so float64 holds each exactly in any order of summation: the tallies are the same
integers as the enumeration's, bit for bit (``tests/game/test_fast_enumeration.py``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np

from ..jit import njit
from .enumeration import EVENT_OF_STATE, N_EVENTS, event_probabilities, sequences_total

#: Values of the first group (the second is 5-9); each group's monomials have degree <= 6.
GROUP = 5
DEGREE = 6


def _group_monomials() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The multisets of at most 6 of 5 values, by degree then in lexicographic order.

    Returns each one's exponents (m, 5), the row of its parent (itself less its largest
    value), that value, how many of it the parent holds, and where each degree starts.
    """
    multisets: list[tuple[int, ...]] = []
    for degree in range(DEGREE + 1):
        multisets += itertools.combinations_with_replacement(range(GROUP), degree)
    row = {m: i for i, m in enumerate(multisets)}
    exponents = np.zeros((len(multisets), GROUP), dtype=np.int64)
    parent = np.zeros(len(multisets), dtype=np.int64)
    value = np.zeros(len(multisets), dtype=np.int64)
    held = np.zeros(len(multisets), dtype=np.float64)
    for i, m in enumerate(multisets):
        for v in m:
            exponents[i, v] += 1
        if m:
            parent[i], value[i], held[i] = row[m[:-1]], m[-1], m[:-1].count(m[-1])
    starts = np.searchsorted(exponents.sum(axis=1), np.arange(DEGREE + 2))
    return exponents, parent, value, held, starts


_EXPONENTS, _PARENT, _VALUE, _HELD, _STARTS = _group_monomials()
_MONOMIALS = _EXPONENTS.shape[0]  # 462
#: A multiset of values keyed by its counts in base 7 (a count is at most 6).
_BASE7 = 7 ** np.arange(2 * GROUP, dtype=np.int64)
#: Compositions per block: the monomials of a block stay in the core's cache (64 measured
#: fastest among 32-256, ``benchmarks/bench_odds.py``).
BLOCK = 64
#: OpenBLAS spreads a product over threads above m n k = 65536 * 4 (its default
#: threshold): more events per block would only compete with the other workers.
_ONE_THREAD_MNK = 65536 * 4
_LARGEST_BLOCK = max(int((_STARTS[d + 1] - _STARTS[d]) * (_STARTS[DEGREE - d + 1]
                                                          - _STARTS[DEGREE - d]))
                     for d in range(DEGREE + 1))  # 35 * 35


@functools.lru_cache(maxsize=1)
def coefficients() -> tuple[np.ndarray, np.ndarray]:
    """``(keys, C)``: the 5005 multisets of six values (base-7 keys of their counts, sorted)
    and ``C[k, e]``, how many ordered value sequences with multiset k end in event e.

    Every ordered sequence P1, B1, P2, B2, x5, x6 of values counts once, by the final states
    of :mod:`baccarat.odds.direct`. The coup's end depends on the first four values through
    their two totals only, so the 10**6 sequences are counted as 715 multisets of the first
    four by total pair, times 55 multisets of the last two by total pair and event: one
    small matrix product over the 100 total pairs (a few milliseconds).
    """
    from .direct import _STATES

    first = np.indices((10,) * 4).reshape(4, -1)  # P1, B1, P2, B2
    totals4 = (first[0] + first[2]) % 10 * 10 + (first[1] + first[3]) % 10
    keys4, multiset4 = np.unique(_BASE7[first].sum(axis=0), return_inverse=True)
    starts = np.zeros((100, keys4.size))  # [total pair, multiset of the first four]
    np.add.at(starts, (totals4, multiset4.reshape(-1)), 1.0)
    last = np.indices((10, 10)).reshape(2, -1)  # x5, x6
    keys2, multiset2 = np.unique(_BASE7[last].sum(axis=0), return_inverse=True)
    events = EVENT_OF_STATE[_STATES]  # (100 total pairs, 100 last two, N_EVENTS)
    ends = np.zeros((100, keys2.size, N_EVENTS))  # [total pair, multiset of the last two, e]
    for x in range(100):
        ends[:, multiset2[x]] += events[:, x]
    joint = (starts.T @ ends.reshape(100, -1)).reshape(keys4.size * keys2.size, N_EVENTS)
    keys, where = np.unique((keys4[:, None] + keys2[None, :]).ravel(), return_inverse=True)
    tallies = np.zeros((keys.size, N_EVENTS))
    np.add.at(tallies, where.reshape(-1), joint)
    return keys, tallies


@functools.lru_cache(maxsize=64)
def _products(events: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """``K_d`` for d = 0..6, transposed: rows (monomial of degree 6 - d of values 5-9,
    event), columns the monomials of degree d of values 0-4; the coefficients of
    ``events`` in that order."""
    keys, tallies = coefficients()
    chosen = tallies[:, list(events)]
    key_a = _EXPONENTS @ _BASE7[:GROUP]
    key_b = _EXPONENTS @ _BASE7[GROUP:]
    blocks = []
    for d in range(DEGREE + 1):
        rows = slice(_STARTS[DEGREE - d], _STARTS[DEGREE - d + 1])
        cols = slice(_STARTS[d], _STARTS[d + 1])
        pair_keys = key_b[rows, None] + key_a[None, cols]
        block = chosen[np.searchsorted(keys, pair_keys)]  # (rows, cols, events)
        blocks.append(np.ascontiguousarray(block.transpose(0, 2, 1).reshape(
            -1, block.shape[1]), dtype=np.float64))
    return tuple(blocks)


@njit("void(int64[:, ::1], int64[::1], int64[::1], float64[::1], float64[:, ::1], "
      "float64[:, ::1])", cache=True)
def _monomials(counts, parent, value, held, a, b):
    """Falling-factorial monomials of each group, one composition per column of ``a``
    (values 0-4) and ``b`` (values 5-9), (462, n): each one multiply from its parent,
    across the compositions at once."""
    n = counts.shape[0]
    left = np.empty((10, n))
    for v in range(10):
        for k in range(n):
            left[v, k] = counts[k, v]
    for k in range(n):
        a[0, k] = 1.0
        b[0, k] = 1.0
    for j in range(1, parent.shape[0]):
        off = held[j]
        p = parent[j]
        v = value[j]
        for k in range(n):
            a[j, k] = a[p, k] * (left[v, k] - off)
        for k in range(n):
            b[j, k] = b[p, k] * (left[v + 5, k] - off)


def event_tallies(counts: np.ndarray, events: Sequence[int]) -> np.ndarray:
    """Exact tallies (n, len(events)) int64 of ``events`` (indices into
    :data:`baccarat.odds.enumeration.EVENTS`) for compositions (n, 10) by value.

    Rows must be valid compositions (counts >= 0 within 8 decks, six cards or more): this
    is a per-coup path and does not check. The same integers as the enumeration's.
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64).reshape(-1, 10)
    chosen = tuple(int(e) for e in events)
    out = np.zeros((counts.shape[0], len(chosen)), dtype=np.int64)
    if not chosen or counts.shape[0] == 0:
        return out
    products = _products(chosen)
    width = len(chosen)
    step = max(min(BLOCK, (_ONE_THREAD_MNK - 1) // (_LARGEST_BLOCK * width)), 1)
    for first in range(0, counts.shape[0], step):
        block = counts[first:first + step]
        n = block.shape[0]
        a = np.empty((_MONOMIALS, n))
        b = np.empty((_MONOMIALS, n))
        _monomials(block, _PARENT, _VALUE, _HELD, a, b)
        # K_d^T a_d for every degree d, by (monomial of values 5-9, event) and composition.
        partial = np.empty((_MONOMIALS * width, n))
        for d in range(DEGREE + 1):
            rows = slice(_STARTS[DEGREE - d] * width, _STARTS[DEGREE - d + 1] * width)
            np.matmul(products[d], a[_STARTS[d]:_STARTS[d + 1]], out=partial[rows])
        tallies = np.einsum("jn,jen->ne", b, partial.reshape(_MONOMIALS, width, n))
        out[first:first + n] = tallies.astype(np.int64)
    return out


#: Up to this many events the polynomial is cheaper than enumerating all seven at once
#: (measured: one event about a third of the grouped enumeration's CPU, three a half, four
#: two thirds, five about the same; ``benchmarks/bench_odds.py``).
MAX_CHOSEN = 4


def chosen_probabilities(counts: np.ndarray, events: Sequence[int]) -> np.ndarray:
    """Probabilities (n, N_EVENTS) of compositions (n, 10) by value, valid and unchecked:
    the columns ``events`` exactly, the others NaN when computing them would cost more.

    Up to :data:`MAX_CHOSEN` events come from :func:`event_tallies`; more, and all seven
    come from the grouped enumeration (:func:`baccarat.odds.enumeration.event_probabilities`).
    Either way the same integer tallies over the same total: the same floats.
    """
    chosen = tuple(sorted(set(int(e) for e in events)))
    if len(chosen) > MAX_CHOSEN:
        return event_probabilities(counts, validate=False, parallel=False)
    values = np.ascontiguousarray(counts, dtype=np.int64).reshape(-1, 10)
    out = np.full((values.shape[0], N_EVENTS), np.nan)
    if chosen:
        total = np.asarray(sequences_total(values.sum(axis=1)), dtype=np.float64)
        out[:, list(chosen)] = event_tallies(values, chosen).astype(np.float64) / total[:, None]
    return out
