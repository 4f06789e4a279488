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
    while True:
        state[0] += _GOLDEN
        word = _mix64(state[0]) >> _S32
        product = word * bound
        low = product & _LOW32
        if low >= bound:
            return product >> _S32
        threshold = (np.uint64(0x100000000) - bound) % bound
        if low >= threshold:
            return product >> _S32


@njit(cache=True)
def shuffle_into(template: np.ndarray, out: np.ndarray, seed: np.uint64, shoe_id: np.uint64):
    """Write the shuffle of ``template`` for (seed, shoe_id) into ``out`` (Fisher-Yates)."""
    n = template.shape[0]
    for i in range(n):
        out[i] = template[i]
    state = np.empty(1, dtype=np.uint64)
    state[0] = shoe_stream_state(seed, shoe_id)
    for i in range(n - 1, 0, -1):
        j = _next_bounded(state, np.uint64(i + 1))
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp


@njit(cache=True)
def _shuffle_many(template: np.ndarray, seed: np.uint64, shoe_ids: np.ndarray) -> np.ndarray:
    out = np.empty((shoe_ids.shape[0], template.shape[0]), dtype=np.int8)
    for k in range(shoe_ids.shape[0]):
        shuffle_into(template, out[k], seed, np.uint64(shoe_ids[k]))
    return out


def shuffled_shoes(decks: int, seed: int, shoe_ids: np.ndarray) -> np.ndarray:
    """Card codes of the shuffled shoes ``shoe_ids`` (shape: shoes x cards), before any burn."""
    ids = np.asarray(shoe_ids, dtype=np.int64)
    if ids.size and ids.min() < 0:
        raise ValueError("shoe ids must be non-negative")
    return _shuffle_many(full_deck_codes(decks), np.uint64(seed), ids)
