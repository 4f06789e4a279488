"""A process-wide cache of exact event probabilities per shoe composition.

Sessions replaying the same shoes reach the same compositions, and a card counter asks
for a composition's odds when it decides and the ledger asks again when it prices the
stake: both go through one cache, so each composition is enumerated once. A caller that
needs some events only (a counter of one bet kind) asks for those: they are computed
alone (:func:`baccarat.odds.polynomial.chosen_probabilities`) and the others stay unknown (NaN)
until someone asks for them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .composition import N_VALUES, distinct_keys, pack_compositions
from .enumeration import N_EVENTS
from .polynomial import chosen_probabilities

_ALL_EVENTS = tuple(range(N_EVENTS))


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

    def events(self, counts: np.ndarray, needed: Sequence[int] | None = None) -> np.ndarray:
        """Probabilities of :data:`baccarat.odds.EVENTS`, (m, N_EVENTS), of compositions (m, 10).

        ``needed`` (indices into ``EVENTS``; default all) are the columns the caller reads:
        those are filled; the others may be NaN (not computed yet). A composition counts as
        a miss when any needed event of it had to be computed.
        """
        counts = np.ascontiguousarray(counts, dtype=np.int64).reshape(-1, N_VALUES)
        if counts.shape[0] == 0:
            return np.empty((0, N_EVENTS))
        columns = _ALL_EVENTS if needed is None else tuple(sorted(set(needed)))
        if not columns:
            return np.full((counts.shape[0], N_EVENTS), np.nan)
        unique, first, inverse = distinct_keys(pack_compositions(counts))
        where = np.searchsorted(self._keys, unique)
        found = where < self._keys.size
        found[found] = self._keys[where[found]] == unique[found]
        result = np.full((unique.size, N_EVENTS), np.nan)
        slots = self._slots[where[found]]
        result[found] = self._events[slots]
        known = ~np.isnan(result[:, list(columns)]).any(axis=1)
        missing = ~known
        n_missing = int(missing.sum())
        self.hits += unique.size - n_missing
        self.misses += n_missing
        if n_missing:
            # Compute what the caller needs, and keep whatever was known already.
            fresh = chosen_probabilities(counts[first[missing]], columns)
            merged = np.where(np.isnan(fresh), result[missing], fresh)
            result[missing] = merged
            held = found[missing]
            self._events[slots[~known[found]]] = merged[held]
            self._store(unique[missing][~held], merged[~held])
        return result[inverse]

    def _store(self, keys: np.ndarray, events: np.ndarray) -> None:
        """Keep ``keys`` (sorted, none held yet) and their events, starting afresh when full."""
        if keys.size == 0 or keys.size > self.max_entries:
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
