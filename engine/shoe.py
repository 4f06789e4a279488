"""Seeded shuffles: a generated shoe is a pure function of (seed, shoe id).

Each shoe gets its own random stream, derived by hashing the seed and the shoe id,
so any chunking of shoe ids, in any process, produces the same shoes.
"""

from __future__ import annotations

import numpy as np

from .cards import full_deck_codes
from .jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit(cache=True, inline="always")
def _mix64(z: np.uint64) -> np.uint64:
    """SplitMix64 finaliser: a bijective avalanche of a 64-bit word."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def shoe_stream_state(seed: np.uint64, shoe_id: np.uint64) -> np.uint64:
    """The starting state of shoe ``shoe_id``'s random stream under ``seed``."""
    return _mix64(_mix64(seed + _GOLDEN) ^ _mix64(shoe_id * _GOLDEN + _MIX2))


@njit(cache=True, inline="always")
def _next_bounded(state: np.ndarray, bound: np.uint64) -> np.uint64:
    """An unbiased integer in [0, bound) (Lemire's method on 32 bits); advances ``state[0]``."""
    value, state[0] = _bounded_draw(state[0], bound)
    return value


@njit(cache=True, inline="always")
def _bounded_draw(state: np.uint64, bound: np.uint64) -> tuple[np.uint64, np.uint64]:
    """(an unbiased integer in [0, bound), the stream's next state) from ``state``."""
    while True:
        state += _GOLDEN
        word = _mix64(state) >> _S32
        product = word * bound
        low = product & _LOW32
        if low >= bound:
            return product >> _S32, state
        threshold = (np.uint64(0x100000000) - bound) % bound
        if low >= threshold:
            return product >> _S32, state


@njit(cache=True)
def shuffle_into(template: np.ndarray, out: np.ndarray, seed: np.uint64, shoe_id: np.uint64):
    """Write the shuffle of ``template`` for (seed, shoe_id) into ``out`` (Fisher-Yates)."""
    shuffle_with(template, out, seed, shoe_id, np.empty(template.shape[0], dtype=np.uint64))


@njit(cache=True)
def shuffle_with(template: np.ndarray, out: np.ndarray, seed: np.uint64, shoe_id: np.uint64,
                 scratch: np.ndarray):
    """``shuffle_into`` with a scratch array of ``template``'s length (uint64) that the
    caller reuses from shoe to shoe: what the dealers' loops call.

    Fisher-Yates draws place ``j`` in [0, i] for i = n - 1 down to 1, each from the next
    word of the shoe's stream (Lemire's method, ``_next_bounded``). The stream is a counter
    (word k is the mix of ``state + k * golden``), so every draw can be made at once, in a
    loop the compiler vectorizes, and the swaps follow: twice as fast as drawing and
    swapping in turn. A word Lemire's method may reject (about one shoe of 8 decks in
    50,000 has one) shifts every later draw by one word: such a shoe is drawn again one
    draw at a time (``_shuffle_in_turn``), so every shoe is the same either way.
    """
    n = template.shape[0]
    state = shoe_stream_state(seed, shoe_id)
    unsure = False
    for k in range(n - 1):
        word = _mix64(state + np.uint64(k + 1) * _GOLDEN) >> _S32
        bound = np.uint64(n - k)
        product = word * bound
        unsure |= (product & _LOW32) < bound  # _next_bounded's first test fails
        scratch[k] = product >> _S32
    if unsure:
        _shuffle_in_turn(template, out, state)
        return
    for i in range(n):
        out[i] = template[i]
    for k in range(n - 1):
        i = n - 1 - k
        j = scratch[k]
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp


@njit(cache=True)
def _shuffle_in_turn(template: np.ndarray, out: np.ndarray, start: np.uint64):
    """Fisher-Yates from the stream starting at ``start``, one draw after the other."""
    n = template.shape[0]
    for i in range(n):
        out[i] = template[i]
    state = start
    for i in range(n - 1, 0, -1):
        j, state = _bounded_draw(state, np.uint64(i + 1))
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp


@njit(cache=True)
def _shuffle_many(template: np.ndarray, seed: np.uint64, shoe_ids: np.ndarray) -> np.ndarray:
    out = np.empty((shoe_ids.shape[0], template.shape[0]), dtype=np.int8)
    scratch = np.empty(template.shape[0], dtype=np.uint64)
    for k in range(shoe_ids.shape[0]):
        shuffle_with(template, out[k], seed, np.uint64(shoe_ids[k]), scratch)
    return out


def shuffled_shoes(decks: int, seed: int, shoe_ids: np.ndarray) -> np.ndarray:
    """Card codes of the shuffled shoes ``shoe_ids`` (shape: shoes x cards), before any burn."""
    ids = np.asarray(shoe_ids, dtype=np.int64)
    if ids.size and ids.min() < 0:
        raise ValueError("shoe ids must be non-negative")
    return _shuffle_many(full_deck_codes(decks), np.uint64(seed), ids)
