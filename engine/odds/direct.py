"""Exact tallies of one composition by numpy, over every ordered six-card start of the shoe.

The compiled enumeration (:mod:`baccarat.odds.enumeration`) needs numba, which takes about
half a second to load and look up its cached kernels: more than the whole of
``baccarat odds`` should take. This module gets the same integers without it, by brute
force over card values: every ordered sequence of six values (10**6 of them) is weighted
by how many ordered six-card sequences of the composition have those values, and dealt
as the table deals it (P1, B1, P2, B2, then the fifth card is Player's third card if
Player draws, else Banker's, and the sixth Banker's third card after Player's). The
event tallies are sums of those weights, so they are exact integers whose sum is
N (N-1) ... (N-5), the convention of :func:`baccarat.odds.enumeration.outcome_combinations`.

A different algorithm from the kernel's (no grouping, no unordered pairs), it also serves
as an independent check of it. Some 10-30 ms a composition: for a handful of
compositions in a process that has not loaded the kernel; batches go to the kernel.
"""

from __future__ import annotations

import time

import numpy as np

from ..deal import banker_draws
from ..jit import is_loaded
from .enumeration import EVENT_OF_STATE, N_EVENTS, N_STATES

_V = np.arange(10)


def _draw_table() -> np.ndarray:
    """``table[bt, p3 + 1]``: whether Banker draws on ``bt`` after Player's third ``p3``."""
    rule = getattr(banker_draws, "py_func", banker_draws)  # the rule itself, not compiled
    return np.array([[rule(bt, p3) for p3 in range(-1, 10)] for bt in range(10)], dtype=bool)


def _final_states() -> np.ndarray:
    """``state[pt4, bt4, x5, x6]``: the coup's end, coded ``((pt * 10 + bt) * 2 + player
    drew) * 2 + banker drew``, from the two-card totals and the next two cards' values."""
    draws = _draw_table()
    pt4, bt4, x5, x6 = np.ix_(_V, _V, _V, _V)
    natural = (pt4 >= 8) | (bt4 >= 8)
    player_drew = ~natural & (pt4 <= 5)
    p3 = np.where(player_drew, x5, -1)
    banker_drew = ~natural & draws[bt4, p3 + 1]
    banker_card = np.where(player_drew, x6, x5)
    pt = np.where(player_drew, (pt4 + x5) % 10, pt4)
    bt = np.where(banker_drew, (bt4 + banker_card) % 10, bt4)
    return (((pt * 10 + bt) * 2 + player_drew) * 2 + banker_drew).astype(np.intp)


_STATES = _final_states().reshape(100, 100)  # (pt4 * 10 + bt4, x5 * 10 + x6)
_FIRST_FOUR = np.ix_(_V, _V, _V, _V)  # P1, B1, P2, B2
#: The first four values (flattened) sorted by their two totals, pt4 * 10 + bt4: each
#: total pair's rows are one run of 100 (each pair of totals has 100 value sequences).
_ORDER = np.argsort(((_FIRST_FOUR[0] + _FIRST_FOUR[2]) % 10 * 10
                     + (_FIRST_FOUR[1] + _FIRST_FOUR[3]) % 10).ravel(), kind="stable")
_ONE_HOT = np.eye(10, dtype=np.int64)


def _weights_by_totals(c: np.ndarray) -> np.ndarray:
    """``m[pt4 * 10 + bt4, x5 * 10 + x6]``: how many ordered six-card sequences of ``c``
    start with two hands of those totals, then cards of values x5 and x6.

    A value sequence P1, B1, P2, B2, x5, x6 stands for the product, card by card, of the
    count of its value less the cards of that value dealt before it (zero once a value
    runs out). With w the first four cards' product and l the cards left after them, the
    last two factors are l[x5] (l[x6] - [x5 == x6]); summed over the first four values of
    each total pair, that is one small integer matrix product per pair.
    """
    cards = [np.broadcast_to(value, (10,) * 4) for value in _FIRST_FOUR]
    w4 = np.ones((10,) * 4, dtype=np.int64)
    for k, card in enumerate(cards):
        dealt_before = sum(((cards[j] == card).astype(np.int64) for j in range(k)),
                           start=np.zeros((10,) * 4, dtype=np.int64))
        w4 = w4 * (c[card] - dealt_before)
    left = c - sum((_ONE_HOT[card] for card in cards), start=np.zeros((10,) * 5, np.int64))
    # Rows grouped by total pair: (100 pairs, 100 first-four value sequences each, ...).
    w = w4.reshape(10_000)[_ORDER].reshape(100, 100)
    lft = left.reshape(10_000, 10)[_ORDER].reshape(100, 100, 10)
    wl = w[..., None] * lft
    m = np.matmul(wl.transpose(0, 2, 1), lft) - wl.sum(axis=1)[:, :, None] * _ONE_HOT
    return m.reshape(100, 100)


def direct_states(counts: np.ndarray) -> np.ndarray:
    """How many ordered six-card sequences end in each final state (``N_STATES`` int64, as
    :func:`baccarat.odds.enumeration.final_states` codes them) of one composition by value
    (10 counts of at least 6 cards in all, at most 8 decks' worth)."""
    by_state = np.zeros(N_STATES, dtype=np.int64)
    np.add.at(by_state, _STATES.ravel(), _weights_by_totals(
        np.asarray(counts, dtype=np.int64)).ravel())
    return by_state


def direct_tallies(counts: np.ndarray) -> np.ndarray:
    """Event tallies (``N_EVENTS`` int64, in the order of ``EVENTS``) of one composition
    by value, from :func:`direct_states`."""
    return direct_states(counts) @ EVENT_OF_STATE


#: Seconds of direct enumeration a process spends before it uses the compiled kernel:
#: about what loading numba and the cached kernel costs (compiling it, several seconds),
#: so a command that evaluates a few compositions never pays for it, and a long job
#: pays for it once.
DIRECT_BUDGET_S = 0.3
#: Batches larger than this always go to the compiled kernel.
DIRECT_MAX_ROWS = 4
_spent = 0.0


def use_direct(rows: int, kernel: object) -> bool:
    """Whether ``rows`` compositions are best enumerated here rather than by ``kernel``:
    while the kernel is not loaded in this process and the direct enumeration stays
    within its budget."""
    return rows <= DIRECT_MAX_ROWS and _spent < DIRECT_BUDGET_S and not is_loaded(kernel)


def direct_states_batch(values: np.ndarray) -> np.ndarray:
    """:func:`direct_states` of every row of ``values`` (n, 10), timed against the budget."""
    global _spent
    started = time.perf_counter()
    out = np.stack([direct_states(row) for row in values]) if len(values) else \
        np.zeros((0, N_STATES), dtype=np.int64)
    _spent += time.perf_counter() - started
    return out


def direct_tallies_batch(values: np.ndarray) -> np.ndarray:
    """:func:`direct_tallies` of every row of ``values`` (n, 10), timed against the budget."""
    out: np.ndarray = direct_states_batch(values) @ EVENT_OF_STATE
    return out.reshape(-1, N_EVENTS)
