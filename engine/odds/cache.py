"""A process-wide cache of exact event probabilities per shoe composition.

Sessions replaying the same shoes reach the same compositions, and a card counter asks
for a composition's odds when it decides and the ledger asks again when it prices the
stake: both go through one cache, so each composition is enumerated once.
"""

from __future__ import annotations

import numpy as np

from .composition import N_VALUES, pack_compositions
from .enumeration import N_EVENTS, event_probabilities


class CompositionCache:
    """Exact event probabilities per composition, computed once and kept.

    Lookups are batched and vectorised: the distinct compositions of a call are found by
    ``np.unique`` on their packed keys, looked up together by ``np.searchsorted`` in a
    sorted index of the keys held, and the missing ones are enumerated in one kernel call
    (single-threaded: numba's threads are not fork-safe in worker processes). When
    ``max_entries`` are held the cache starts afresh: a replay moves forward through its
    shoes, so what is worth keeping is the current step's compositions, which every
    configuration of the run asks for in turn.
    """

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._events = np.empty((max_entries, N_EVENTS), dtype=np.float64)
        self._keys = np.empty(0, dtype=np.int64)   # sorted
        self._slots = np.empty(0, dtype=np.int64)  # row of _events of each key
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return int(self._keys.size)

    def clear(self) -> None:
        """Forget every composition (the hit and miss counts too)."""
        self._forget()
        self.hits = self.misses = 0

    def _forget(self) -> None:
        self._keys = np.empty(0, dtype=np.int64)
        self._slots = np.empty(0, dtype=np.int64)

    def events(self, counts: np.ndarray) -> np.ndarray:
        """Probabilities of :data:`engine.odds.EVENTS`, (m, N_EVENTS), of compositions (m, 10)."""
        counts = np.ascontiguousarray(counts, dtype=np.int64).reshape(-1, N_VALUES)
        if counts.shape[0] == 0:
            return np.empty((0, N_EVENTS))
        keys = pack_compositions(counts)
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        where = np.searchsorted(self._keys, unique)
        found = where < self._keys.size
        found[found] = self._keys[where[found]] == unique[found]
        result = np.empty((unique.size, N_EVENTS), dtype=np.float64)
        result[found] = self._events[self._slots[where[found]]]
        missing = ~found
        n_missing = int(missing.sum())
        self.hits += unique.size - n_missing
        self.misses += n_missing
        if n_missing:
            fresh = event_probabilities(counts[first[missing]], validate=False, parallel=False)
            result[missing] = fresh
            self._store(unique[missing], fresh)
        return result[inverse.reshape(-1)]

    def _store(self, keys: np.ndarray, events: np.ndarray) -> None:
        """Keep ``keys`` (sorted, none held yet) and their events, starting afresh when full."""
        if keys.size > self.max_entries:
            return
        if self._keys.size + keys.size > self.max_entries:
            self._forget()
        start = self._keys.size
        self._events[start:start + keys.size] = events
        at = np.searchsorted(self._keys, keys)
        self._keys = np.insert(self._keys, at, keys)
        self._slots = np.insert(self._slots, at, np.arange(start, start + keys.size))

#: The process-wide cache the counters and the exact pricing of the ledger share.
CACHE = CompositionCache()
