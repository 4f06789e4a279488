"""Exact outcome probabilities by exhaustive enumeration of the card values of a coup.

The deal P1, B1, P2, B2 (then Player's and Banker's third cards by the drawing rules of
:func:`baccarat.deal.banker_draws`) is enumerated over card *values* drawn without
replacement. Every path is weighted by the number of ordered six-card sequences that start
with it (the cards a coup does not use still count), so the tallies are exact integers
whose sum is N (N-1) ... (N-5): the convention of the published tables (4,998,398,275,503,360
for eight decks).

The first four cards are enumerated (each hand's two cards as an unordered pair with a
multiplicity of 2 when the values differ, and each unordered pair of hands once: a deal and
the one with the hands swapped have the same weight and cards) but their third cards are
not dealt one deal at a time: the deals are grouped by their two totals, and since the
weight of any third card is a polynomial of degree at most 2 in the cards left, each
group's third cards follow exactly from three moments of its removed cards (see
:func:`_third_cards`). Which deal adds to which moment does not depend on the counts, so
up to :data:`LANES` compositions are enumerated together, the counts of each in one lane
of every scratch array, and every step is a short loop over the lanes that compiles to
vector instructions (float64 lanes, exact: see :func:`_tally_range`; fewer than
:data:`MIN_LANES` compositions go one at a time in int64, :func:`_tally_each`). The
result is the same integers as the path-by-path enumeration (kept in
:mod:`baccarat.odds.reference` and tested against it), some 50 times faster in batches
(`benchmarks/bench_odds.py` times both). One entry kernel, :func:`_tally_range`, compiled
for one signature: int64 (n, 10) counts in, int64 (n, 7) tallies out; the helpers it calls
are compiled with it. It releases the GIL, so big batches are spread over threads
(:func:`_tally_threads`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..deal import banker_draws
from ..jit import njit
from .composition import (
    MAX_DECKS,
    N_RANKS,
    check_counts,
    pair_probability,
    values_from_ranks,
)

#: The tallied events, in the order of the tally columns.
EVENTS = (
    "banker",               # Banker wins
    "player",               # Player wins
    "tie",
    "banker_three_card_7",  # Banker wins with a three-card 7 (Dragon 7; EZ Banker push)
    "player_three_card_8",  # Player wins with a three-card 8 (Panda 8)
    "banker_two_card_6",    # Banker wins with a two-card 6 (Super 6)
    "banker_three_card_6",  # Banker wins with a three-card 6 (Super 6)
)
E_BANKER, E_PLAYER, E_TIE, E_DRAGON7, E_PANDA8, E_SIX2, E_SIX3 = range(len(EVENTS))
N_EVENTS = len(EVENTS)
#: The final states of a coup: ``state = ((pt * 10 + bt) * 2 + player drew) * 2 + banker
#: drew`` with pt, bt the final totals (:func:`final_states` tallies them; every bet but
#: the pairs is settled by the state alone: :mod:`baccarat.odds.side_bets`).
N_STATES = 400


@njit(cache=True, inline="always")
def settle(pt, bt, player_drew, banker_drew, weight, out):
    """Add ``weight`` sequences ending with totals ``pt``/``bt`` to the event tallies."""
    if bt > pt:
        out[E_BANKER] += weight
        if banker_drew:
            if bt == 7:
                out[E_DRAGON7] += weight
            elif bt == 6:
                out[E_SIX3] += weight
        elif bt == 6:
            out[E_SIX2] += weight
    elif pt > bt:
        out[E_PLAYER] += weight
        if player_drew and pt == 8:
            out[E_PANDA8] += weight
    else:
        out[E_TIE] += weight


# The enumeration works on a block of compositions at once, one per *lane*: every scratch
# array has the lanes as its last axis, and every step of the enumeration is a short loop
# over them, which the compiler turns into vector instructions. Which four-card deal a step
# adds to which moment does not depend on the counts, only its weight does (a weight is 0
# for a deal a composition cannot deal), so one pass over the deals serves every lane.
# Per lane, the moments of the first four cards of one composition, by cell (lo, hi) of
# two-card totals lo <= hi (a deal and the one with the hands swapped have the same weight
# and cards, so cell (pt, bt) has the moments of cell (bt, pt)):
#   m0[lo, hi]          sum of w over the deals of the cell,
#   m1[lo, hi, v]       sum of w * r[v], r = how many of the four cards have value v,
#   p[cell, pair]       sum of w * (pairs of positions i < j whose values are the pair
#                       u <= v), for the cells where both hands can draw (pt <= 5, bt <= 6),
#                       numbered by _CELL[lo, hi] and _PAIR[u, v];
# then hist[pd, bd, fpt, fbt]: sequences ending on final totals, by who drew.

#: Compositions enumerated together (the lanes of one block).
LANES = 64
#: Blocks of fewer rows are enumerated one composition at a time.
MIN_LANES = 8
#: A block's lanes are a multiple of this: the compiled lane loops run whole vector
#: iterations of 16, and a remainder would run one lane at a time.
LANE_STEP = 16


def _index_tables() -> tuple[np.ndarray, np.ndarray, int]:
    """Row of p for each cell (lo, hi) where both can draw, and for each pair u <= v."""
    cell = np.full((10, 10), -1, dtype=np.int64)
    cells = 0
    for lo in range(6):
        for hi in range(lo, 7):
            cell[lo, hi] = cells
            cells += 1
    pair = np.full((10, 10), -1, dtype=np.int64)
    pairs = 0
    for u in range(10):
        for v in range(u, 10):
            pair[u, v] = pair[v, u] = pairs
            pairs += 1
    return cell, pair, cells


_CELL, _PAIR, _BOTH_DRAW_CELLS = _index_tables()


@njit(cache=True, inline="always")
def _add(dst, w):
    for k in range(w.shape[0]):
        dst[k] += w[k]


@njit(cache=True)
def _moments(c, m0, m1, p, w2, w3, w):
    """Fill the moments of the first four cards of the compositions ``c`` (10, lanes).

    Each unordered pair of hands {h1, h2} (each hand an unordered pair of values, times 2
    when they differ) is visited once, for both deals it gives: h1 to Player and h2 to
    Banker, and the reverse. w is the number of ordered four-card sequences P1, B1, P2,
    B2 of one of those deals. ``c`` is restored on return.
    """
    lanes = w.shape[0]
    for p1 in range(10):
        for k in range(lanes):
            c[p1, k] -= 1
        for p2 in range(p1, 10):
            mult = 1 if p2 == p1 else 2
            for k in range(lanes):
                w2[k] = (c[p1, k] + 1) * c[p2, k] * mult
                c[p2, k] -= 1
            t1 = p1 + p2 - (10 if p1 + p2 >= 10 else 0)
            for b1 in range(p1, 10):  # the second hand comes after the first: (b1, b2) >= (p1, p2)
                for k in range(lanes):
                    w3[k] = w2[k] * c[b1, k]
                    c[b1, k] -= 1
                for b2 in range(p2 if b1 == p1 else b1, 10):
                    t2 = b1 + b2 - (10 if b1 + b2 >= 10 else 0)
                    lo = min(t1, t2)
                    hi = max(t1, t2)
                    m = 1 if b2 == b1 else 2
                    if lo == hi and (b1 != p1 or b2 != p2):
                        m += m  # both deals of two different hands land in this cell
                    for k in range(lanes):
                        w[k] = w3[k] * c[b2, k] * m
                    _add(m0[lo, hi], w)
                    if hi < 8:
                        r = m1[lo, hi - lo]
                        _add(r[p1], w)
                        _add(r[p2], w)
                        _add(r[b1], w)
                        _add(r[b2], w)
                        if lo <= 5 and hi <= 6:  # both can draw, either way round
                            q = p[_CELL[lo, hi]]
                            _add(q[_PAIR[p1, p2]], w)
                            _add(q[_PAIR[p1, b1]], w)
                            _add(q[_PAIR[p1, b2]], w)
                            _add(q[_PAIR[p2, b1]], w)
                            _add(q[_PAIR[p2, b2]], w)
                            _add(q[_PAIR[b1, b2]], w)
                for k in range(lanes):
                    c[b1, k] += 1
            for k in range(lanes):
                c[p2, k] += 1
        for k in range(lanes):
            c[p1, k] += 1


@njit(cache=True)
def _third_cards(c, n, m0, m1, p, hist, left_w):
    """Deal the third cards of every group of four-card deals at once, into ``hist``.

    With r the four cards' values, the cards left are c - r, and every third-card weight
    is a polynomial of degree at most 2 in them, so the sums over the deals of a group
    come exactly from the group's moments: sum of w (c - r)[v] = c[v] m0 - m1[v], and
    sum of w (c - r)[u] (c - r)[v] = c[u] c[v] m0 - c[u] m1[v] - c[v] m1[u] + m2[u, v] with
    m2 = diag(m1) + p + p^T. Every lane at once; ``left_w`` is scratch (10, lanes).
    """
    lanes = n.shape[0]
    for pt in range(10):
        for bt in range(10):
            lo = min(pt, bt)
            hi = max(pt, bt)
            w = m0[lo, hi]
            if pt >= 8 or bt >= 8 or (pt >= 6 and not banker_draws(bt, -1)):
                h = hist[0, 0, pt, bt]  # nobody draws
                for k in range(lanes):
                    h[k] += w[k] * (n[k] - 4) * (n[k] - 5)
                continue
            r1 = m1[lo, hi - lo]
            for v in range(10):  # left_w[v] = sum of w (c - r)[v]
                cv = c[v]
                rv = r1[v]
                x = left_w[v]
                for k in range(lanes):
                    x[k] = cv[k] * w[k] - rv[k]
            if pt >= 6:  # Player stands, Banker draws
                for b3 in range(10):
                    h = hist[0, 1, pt, (bt + b3) % 10]
                    x = left_w[b3]
                    for k in range(lanes):
                        h[k] += (n[k] - 5) * x[k]
                continue
            q = p[_CELL[lo, hi]]
            for p3 in range(10):
                fpt = (pt + p3) % 10
                x = left_w[p3]
                if not banker_draws(bt, p3):
                    h = hist[1, 0, fpt, bt]
                    for k in range(lanes):
                        h[k] += x[k] * (n[k] - 5)
                    continue
                cp = c[p3]
                rp = r1[p3]
                row = hist[1, 1, fpt]
                for b3 in range(10):
                    cb = c[b3]
                    lb = left_w[b3]
                    h = row[(bt + b3) % 10]
                    if b3 == p3:  # m2 = 2 p[u, u] + m1[u], and one card fewer of p3
                        qq = q[_PAIR[p3, p3]]
                        for k in range(lanes):
                            h[k] += cp[k] * lb[k] - cb[k] * rp[k] + 2 * qq[k] + rp[k] - x[k]
                    else:
                        qq = q[_PAIR[p3, b3]]
                        for k in range(lanes):
                            h[k] += cp[k] * lb[k] - cb[k] * rp[k] + qq[k]


@njit(cache=True)
def _settle_lanes(hist, tallies):
    """Add every final state of ``hist`` to the event tallies (N_EVENTS, lanes), lanes at once."""
    lanes = tallies.shape[1]
    one = np.empty(N_EVENTS, dtype=np.int64)
    for pd in range(2):
        for bd in range(2):
            for fpt in range(10):
                for fbt in range(10):
                    one[:] = 0
                    settle(fpt, fbt, pd == 1, bd == 1, 1, one)
                    h = hist[pd, bd, fpt, fbt]
                    for e in range(N_EVENTS):
                        if one[e]:
                            t = tallies[e]
                            for k in range(lanes):
                                t[k] += h[k]


# One composition alone (a block of fewer than MIN_LANES rows): the same enumeration
# without lanes, every hand pair of the two hands in both orders (a short loop over lanes
# costs more than it saves). Its scratch arrays, allocated once per call:
#   m0[pt, bt], m1[pt, bt, v], p[pt, bt, u, v] (pt <= 5, bt <= 6), hist as below.
@njit(cache=True)
def _moments_one(c, m0, m1, p):
    """One composition's moments of its first four cards, ``c`` (10) restored on return.

    w is the number of ordered four-card sequences P1, B1, P2, B2 with those values (each
    hand's pair enumerated unordered, times 2 when its values differ).
    """
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
            pt = p1 + p2 - (10 if p1 + p2 >= 10 else 0)
            a0 = m0[pt]
            if pt >= 8:  # a natural: only the count of deals matters
                for b1 in range(10):
                    n3 = c[b1]
                    if n3 == 0:
                        continue
                    c[b1] = n3 - 1
                    w3 = w2 * n3
                    a0[2 * b1 - (10 if b1 >= 5 else 0)] += w3 * c[b1]
                    w3 += w3
                    for b2 in range(b1 + 1, 10):
                        a0[b1 + b2 - (10 if b1 + b2 >= 10 else 0)] += w3 * c[b2]
                    c[b1] = n3
                c[p2] = n2
                continue
            a1 = m1[pt]
            both = pt <= 5
            q = p[pt if both else 0]
            for b1 in range(10):
                n3 = c[b1]
                if n3 == 0:
                    continue
                c[b1] = n3 - 1
                w3 = w2 * n3
                for b2 in range(b1, 10):
                    n4 = c[b2]
                    if n4 == 0:
                        continue
                    w = w3 * n4
                    if b2 != b1:
                        w += w
                    bt = b1 + b2 - (10 if b1 + b2 >= 10 else 0)
                    a0[bt] += w
                    if bt < 8:
                        r = a1[bt]
                        r[p1] += w
                        r[p2] += w
                        r[b1] += w
                        r[b2] += w
                        if both and bt <= 6:  # both can draw (Banker 7 stands)
                            qq = q[bt]
                            qq[p1, p2] += w
                            qq[p1, b1] += w
                            qq[p1, b2] += w
                            qq[p2, b1] += w
                            qq[p2, b2] += w
                            qq[b1, b2] += w
                c[b1] = n3
            c[p2] = n2
        c[p1] = n1


@njit(cache=True)
def _third_cards_one(c, n, m0, m1, p, hist):
    """One composition's third cards, from the moments of its groups of deals, into ``hist``.

    With r the four cards' values, the cards left are c - r, and every third-card weight
    is a polynomial of degree at most 2 in them, so the sums over the deals of a group
    come exactly from the group's moments: sum of w (c - r)[v] = c[v] m0 - m1[v], and
    sum of w (c - r)[u] (c - r)[v] = c[u] c[v] m0 - c[u] m1[v] - c[v] m1[u] + m2[u, v] with
    m2 = diag(m1) + p + p^T.
    """
    left = n - 4
    for pt in range(10):
        for bt in range(10):
            w = m0[pt, bt]
            if w == 0:
                continue
            if pt >= 8 or bt >= 8 or (pt >= 6 and not banker_draws(bt, -1)):
                hist[0, 0, pt, bt] += w * left * (left - 1)  # nobody draws
                continue
            r1 = m1[pt, bt]
            if pt >= 6:  # Player stands, Banker draws
                for b3 in range(10):
                    hist[0, 1, pt, (bt + b3) % 10] += (left - 1) * (c[b3] * w - r1[b3])
                continue
            q = p[pt, min(bt, 6)]  # Banker on 7 never draws: q is read only for bt <= 6
            for p3 in range(10):
                x = c[p3] * w - r1[p3]  # sum of w (c - r)[p3]
                if x == 0:
                    continue
                fpt = (pt + p3) % 10
                if banker_draws(bt, p3):
                    for b3 in range(10):
                        m2 = q[p3, b3] + q[b3, p3]
                        if b3 == p3:
                            m2 += r1[p3] - x  # diag(m1), and one card fewer of p3
                        y = c[p3] * (c[b3] * w - r1[b3]) - c[b3] * r1[p3] + m2
                        hist[1, 1, fpt, (bt + b3) % 10] += y
                else:
                    hist[1, 0, fpt, bt] += x * (left - 1)


@njit(cache=True)
def _tally_each(counts, out, lo, hi):
    """Tally rows ``lo``..``hi`` one composition at a time (few rows: no lanes), in int64
    (exact: 416 * 415 * ... * 411 < 2**63, and no partial sum exceeds the total); by final
    state when ``out`` has :data:`N_STATES` columns."""
    c = np.empty(10, dtype=np.int64)
    m0 = np.empty((10, 10), dtype=np.int64)
    m1 = np.empty((10, 10, 10), dtype=np.int64)
    p = np.empty((6, 7, 10, 10), dtype=np.int64)
    hist = np.empty((2, 2, 10, 10), dtype=np.int64)
    for i in range(lo, hi):
        n = 0
        for v in range(10):
            c[v] = counts[i, v]
            n += c[v]
        m0[:] = 0
        m1[:] = 0
        p[:] = 0
        hist[:] = 0
        _moments_one(c, m0, m1, p)
        _third_cards_one(c, n, m0, m1, p, hist)
        row = out[i]
        if row.shape[0] == N_STATES:
            for pd in range(2):
                for bd in range(2):
                    for fpt in range(10):
                        for fbt in range(10):
                            row[((fpt * 10 + fbt) * 2 + pd) * 2 + bd] = hist[pd, bd, fpt, fbt]
            continue
        for pd in range(2):
            for bd in range(2):
                for fpt in range(10):
                    for fbt in range(10):
                        h = hist[pd, bd, fpt, fbt]
                        if h != 0:
                            settle(fpt, fbt, pd == 1, bd == 1, h, row)


@njit(cache=True, nogil=True)
def _tally_range(counts, out, lo, hi):
    """Tally rows ``lo``..``hi`` of ``counts`` (n, 10 value counts) into ``out`` (n, N_EVENTS),
    or, when ``out`` has :data:`N_STATES` columns, the sequences ending in each final state.

    ``out`` rows start at zero. Blocks of up to :data:`LANES` rows, as many in each, are
    enumerated together (spare lanes repeat the last row and are not read back). The
    lanes hold float64, exactly: every quantity is a whole number below 2**53 (about
    9.0e15). Up to 8 decks no tally, moment or partial sum exceeds the total
    416 * 415 * ... * 411 < 5.0e15 (every term added is a count of sequences, >= 0), and
    no product in the third-card formulas exceeds 128 * 128 * 416**4 < 5e14, so no
    rounding ever happens; float multiplies vectorise better than int64 ones. The scratch
    arrays are allocated once per call.
    """
    rows = max(hi - lo, 1)
    if rows < MIN_LANES:
        _tally_each(counts, out, lo, hi)
        return
    blocks = (rows + LANES - 1) // LANES
    lanes = (rows + blocks - 1) // blocks  # as many lanes in every block,
    lanes = (lanes + LANE_STEP - 1) // LANE_STEP * LANE_STEP  # whole vector loops
    c = np.empty((10, lanes), dtype=np.float64)
    n = np.empty(lanes, dtype=np.float64)
    m0 = np.empty((10, 10, lanes), dtype=np.float64)
    m1 = np.empty((8, 8, 10, lanes), dtype=np.float64)  # [lo, hi - lo]
    p = np.empty((_BOTH_DRAW_CELLS, 55, lanes), dtype=np.float64)
    hist = np.empty((2, 2, 10, 10, lanes), dtype=np.float64)
    tallies = np.empty((N_EVENTS, lanes), dtype=np.float64)
    scratch = np.empty((10, lanes), dtype=np.float64)
    w2 = np.empty(lanes, dtype=np.float64)
    w3 = np.empty(lanes, dtype=np.float64)
    w = np.empty(lanes, dtype=np.float64)
    for first in range(lo, hi, lanes):
        for k in range(lanes):
            i = min(first + k, hi - 1)
            total = 0
            for v in range(10):
                c[v, k] = counts[i, v]
                total += counts[i, v]
            n[k] = total
        m0[:] = 0
        m1[:] = 0
        p[:] = 0
        hist[:] = 0
        tallies[:] = 0
        _moments(c, m0, m1, p, w2, w3, w)
        _third_cards(c, n, m0, m1, p, hist, scratch)
        if out.shape[1] == N_STATES:
            for k in range(min(lanes, hi - first)):
                row = out[first + k]
                for pd in range(2):
                    for bd in range(2):
                        for fpt in range(10):
                            for fbt in range(10):
                                row[((fpt * 10 + fbt) * 2 + pd) * 2 + bd] = np.int64(
                                    hist[pd, bd, fpt, fbt, k])
            continue
        _settle_lanes(hist, tallies)
        for k in range(min(lanes, hi - first)):
            for e in range(N_EVENTS):
                out[first + k, e] += np.int64(tallies[e, k])


def _tally_threads(counts: np.ndarray, out: np.ndarray) -> None:
    """Tally every row of ``counts`` (n, 10) int64 into ``out`` (n, N_EVENTS) on numba's
    threads (``numba.get_num_threads()``), a run of whole blocks of lanes on each.

    :func:`_tally_range` releases the GIL, so Python threads run it side by side; a kernel
    compiled with ``parallel=True`` did the same but took some 30 CPU-seconds to compile.
    Every row's tallies are exact integers whatever block it falls in, so the result is
    the same as on one thread.
    """
    import numba

    n = counts.shape[0]
    blocks = -(-n // LANES)
    threads = max(1, min(numba.get_num_threads(), blocks))
    if threads == 1:
        _tally_range(counts, out, 0, n)
        return
    per_thread = -(-blocks // threads) * LANES
    edges = [(lo, min(n, lo + per_thread)) for lo in range(0, n, per_thread)]
    kernel = _tally_range.compiled()
    kernel(counts, out, *edges[0])  # compiled (or loaded) once, before the threads share it
    with ThreadPoolExecutor(len(edges) - 1) as pool:
        list(pool.map(lambda edge: kernel(counts, out, *edge), edges[1:]))


def _tally_rows(counts: np.ndarray, out: np.ndarray) -> None:
    """Tally every row of ``counts`` (n, 10) int64 into ``out`` (n, N_EVENTS) on this thread."""
    _tally_range(counts, out, 0, counts.shape[0])


#: Batches at least this large are spread over numba's threads by default.
PARALLEL_MIN_ROWS = 64


def sequences_total(n_cards: np.ndarray | int) -> np.ndarray | int:
    """N (N-1) (N-2) (N-3) (N-4) (N-5): the ordered six-card sequences of N cards."""
    if isinstance(n_cards, (int, np.integer)):
        total = 1
        for k in range(6):
            total *= int(n_cards) - k
        return total
    n = np.asarray(n_cards, dtype=np.int64)
    return n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)


def _as_values(counts: np.ndarray) -> np.ndarray:
    return values_from_ranks(counts) if counts.shape[-1] == N_RANKS else counts


def outcome_combinations(counts: object) -> dict[str, int]:
    """Exact tallies: how many ordered six-card sequences give each event, plus ``total``.

    ``counts`` is one composition by value (10) or rank (13). Integers, so the figures can
    be compared digit for digit with published combination tables.
    """
    values = np.ascontiguousarray(_as_values(check_counts(counts)), dtype=np.int64)
    if values.ndim != 1:
        raise ValueError("outcome_combinations takes one composition; use event_probabilities")
    out = np.zeros((1, N_EVENTS), dtype=np.int64)
    _tally_rows(values[None, :], out)
    result = {name: int(out[0, k]) for k, name in enumerate(EVENTS)}
    result["total"] = int(sequences_total(int(values.sum())))
    return result


def event_probabilities(
    counts: np.ndarray, validate: bool = True, parallel: bool | None = None
) -> np.ndarray:
    """Probabilities of :data:`EVENTS` for compositions (n, 10|13) -> (n, N_EVENTS) float64.

    The compiled batch path (a few rows in a process that has not loaded the kernel are
    enumerated by numpy instead, to the same integers: :mod:`baccarat.odds.direct`).
    ``validate=False`` skips the input checks for callers that
    validated already (every coup of a replay). ``parallel`` spreads the rows over numba's
    threads; by default only for batches of :data:`PARALLEL_MIN_ROWS` rows or more (pass
    False inside worker processes that already fill the cores).
    """
    arr = check_counts(counts) if validate else np.asarray(counts, dtype=np.int64)
    arr = np.atleast_2d(arr)
    values = np.ascontiguousarray(_as_values(arr), dtype=np.int64)
    from .direct import direct_tallies_batch, use_direct  # a few rows: no need for numba

    if use_direct(values.shape[0], _tally_range):
        out = direct_tallies_batch(values)
    else:
        out = np.zeros((values.shape[0], N_EVENTS), dtype=np.int64)
        if parallel is None:
            parallel = values.shape[0] >= PARALLEL_MIN_ROWS
        (_tally_threads if parallel else _tally_rows)(values, out)
    total = np.asarray(sequences_total(values.sum(axis=1)), dtype=np.float64)
    return out.astype(np.float64) / total[:, None]


def _event_of_state() -> np.ndarray:
    """``table[state, e]``: whether a coup ending in final ``state`` is event ``e``
    (by :func:`settle` itself, so the events have one definition)."""
    table = np.zeros((N_STATES, N_EVENTS), dtype=np.int64)
    rule = getattr(settle, "py_func", settle)  # the rule itself, not compiled
    for state in range(N_STATES):
        rest, banker_drew = divmod(state, 2)
        rest, player_drew = divmod(rest, 2)
        pt, bt = divmod(rest, 10)
        rule(pt, bt, bool(player_drew), bool(banker_drew), 1, table[state])
    return table


#: ``EVENT_OF_STATE[state, e]``: 1 when a coup ending in ``state`` is event ``e``.
EVENT_OF_STATE = _event_of_state()


def final_states(counts: np.ndarray, validate: bool = True,
                 parallel: bool | None = None) -> np.ndarray:
    """How many ordered six-card sequences of each composition (n, 10|13) end in each final
    state (n, :data:`N_STATES`) int64: the whole coup as the bets see it, pairs aside.

    The same kernel and the same integers as :func:`event_probabilities`
    (``final_states(c) @ EVENT_OF_STATE`` are its tallies); a few rows in a process that has
    not loaded the kernel are enumerated by numpy (:mod:`baccarat.odds.direct`).
    """
    arr = check_counts(counts) if validate else np.asarray(counts, dtype=np.int64)
    values = np.ascontiguousarray(_as_values(np.atleast_2d(arr)), dtype=np.int64)
    from .direct import direct_states_batch, use_direct

    if use_direct(values.shape[0], _tally_range):
        return direct_states_batch(values)
    out = np.zeros((values.shape[0], N_STATES), dtype=np.int64)
    if parallel is None:
        parallel = values.shape[0] >= PARALLEL_MIN_ROWS
    (_tally_threads if parallel else _tally_rows)(values, out)
    return out


@dataclass(frozen=True)
class OutcomeProbabilities:
    """Exact probabilities of one coup dealt from a composition.

    ``banker``/``player``/``tie`` partition the coup. The rest are joint events used by the
    variants and side bets. ``pair`` is P(Player pair) = P(Banker pair), exact when the
    composition was given by rank, else in expectation over the ranks of the zero-valued
    cards (see :func:`baccarat.odds.composition.pair_probability`).
    """

    banker: float
    player: float
    tie: float
    banker_three_card_7: float
    player_three_card_8: float
    banker_two_card_6: float
    banker_three_card_6: float
    pair: float

    @property
    def banker_six(self) -> float:
        """P(Banker wins with a total of 6, two or three cards)."""
        return self.banker_two_card_6 + self.banker_three_card_6

    def as_dict(self) -> dict[str, float]:
        """The probabilities by name, ``banker_six`` included."""
        values = {name: getattr(self, name) for name in EVENTS}
        return {**values, "banker_six": self.banker_six, "pair": self.pair}


def outcome_probabilities(counts: object, decks: int | None = None) -> OutcomeProbabilities:
    """Exact probabilities of every outcome for one composition (10 values or 13 ranks).

    ``decks`` (the shoe's size) only matters for the pair probability of a composition by
    value; by default the fewest decks that hold it.
    """
    arr = check_counts(counts, max_decks=decks or MAX_DECKS)
    if arr.ndim != 1:
        raise ValueError("outcome_probabilities takes one composition; use event_probabilities")
    probs = event_probabilities(arr, validate=False)[0]
    fields = {name: float(probs[k]) for k, name in enumerate(EVENTS)}
    return OutcomeProbabilities(**fields, pair=float(pair_probability(arr, decks)))
