"""Exact outcome probabilities by exhaustive enumeration of the card values of a coup.

The deal P1, B1, P2, B2 (then Player's and Banker's third cards by the drawing rules of
:func:`engine.deal.banker_draws`) is enumerated over card *values* drawn without
replacement. Every path is weighted by the number of ordered six-card sequences that start
with it (the cards a coup does not use still count), so the tallies are exact integers
whose sum is N (N-1) ... (N-5): the convention of the published tables (4,998,398,275,503,360
for eight decks). Player's and Banker's first two cards are enumerated as unordered pairs
with a multiplicity of 2 when the values differ, which cuts the work about fourfold; a
composition costs well under a millisecond compiled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..deal import banker_draws
from ..jit import njit, prange
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


@njit(cache=True, inline="always")
def _settle(pt, bt, player_drew, banker_drew, weight, out):
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


@njit(cache=True, inline="always")
def _third_cards(c, left, pt, bt, weight, out):
    """Finish a coup whose first four cards are out (``left`` cards remain in ``c``)."""
    if pt >= 8 or bt >= 8:  # a natural: the coup ends on four cards
        _settle(pt, bt, False, False, weight * left * (left - 1), out)
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
                        _settle(final_pt, (bt + b3) % 10, True, True, w * c[b3], out)
            else:
                _settle(final_pt, bt, True, False, w * (left - 1), out)
            c[p3] = n3
    elif banker_draws(bt, -1):
        w = weight * (left - 1)
        for b3 in range(10):
            if c[b3] != 0:
                _settle(pt, (bt + b3) % 10, False, True, w * c[b3], out)
    else:
        _settle(pt, bt, False, False, weight * left * (left - 1), out)


@njit(cache=True)
def _tally(counts, out):
    """Tally the events of one composition (10 value counts) into ``out`` (int64, zeroed).

    Exact in int64 up to 8 decks: 416 * 415 * ... * 411 < 2**63 (hence the validation).
    """
    c = counts.copy()
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
                    _third_cards(c, n - 4, pt, (b1 + b2) % 10, w4, out)
                    c[b2] = n4
                c[b1] = n3
            c[p2] = n2
        c[p1] = n1


@njit(cache=True, parallel=True)
def _tally_batch(counts, out):
    """Tally every row of ``counts`` (n, 10) into ``out`` (n, N_EVENTS), rows in parallel."""
    for i in prange(counts.shape[0]):
        _tally(counts[i], out[i])


@njit(cache=True)
def _tally_rows(counts, out):
    """Tally every row of ``counts`` (n, 10) into ``out`` (n, N_EVENTS) on this thread."""
    for i in range(counts.shape[0]):
        _tally(counts[i], out[i])


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
    out = np.zeros(N_EVENTS, dtype=np.int64)
    _tally(values, out)
    result = {name: int(out[k]) for k, name in enumerate(EVENTS)}
    result["total"] = int(sequences_total(int(values.sum())))
    return result


def event_probabilities(
    counts: np.ndarray, validate: bool = True, parallel: bool | None = None
) -> np.ndarray:
    """Probabilities of :data:`EVENTS` for compositions (n, 10|13) -> (n, N_EVENTS) float64.

    The compiled batch path (a few rows in a process that has not loaded numba are
    enumerated by numpy instead, to the same integers: :mod:`engine.odds.direct`).
    ``validate=False`` skips the input checks for callers that
    validated already (every coup of a replay). ``parallel`` spreads the rows over numba's
    threads; by default only for batches of :data:`PARALLEL_MIN_ROWS` rows or more (pass
    False inside worker processes that already fill the cores).
    """
    arr = check_counts(counts) if validate else np.asarray(counts, dtype=np.int64)
    arr = np.atleast_2d(arr)
    values = np.ascontiguousarray(_as_values(arr), dtype=np.int64)
    from .direct import direct_tallies_batch, use_direct  # a few rows: no need for numba

    if use_direct(values.shape[0]):
        out = direct_tallies_batch(values)
    else:
        out = np.zeros((values.shape[0], N_EVENTS), dtype=np.int64)
        if parallel is None:
            parallel = values.shape[0] >= PARALLEL_MIN_ROWS
        (_tally_batch if parallel else _tally_rows)(values, out)
    total = np.asarray(sequences_total(values.sum(axis=1)), dtype=np.float64)
    return out.astype(np.float64) / total[:, None]


@dataclass(frozen=True)
class OutcomeProbabilities:
    """Exact probabilities of one coup dealt from a composition.

    ``banker``/``player``/``tie`` partition the coup. The rest are joint events used by the
    variants and side bets. ``pair`` is P(Player pair) = P(Banker pair), exact when the
    composition was given by rank, else in expectation over the ranks of the zero-valued
    cards (see :func:`engine.odds.composition.pair_probability`).
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
