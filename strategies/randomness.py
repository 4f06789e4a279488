"""Seeded random numbers for strategies: ``table.rng`` (array form), ``view.rng`` (simple).

A random system must draw from these, never from ``random`` or an unseeded numpy
generator: the numbers depend only on (the run's seed, the session, the coup, the draw),
a session being known by its first shoe, so a session draws the same numbers whatever
the chunking, the number of workers, the order of the sessions or the other
configurations of the run (two configurations draw the same numbers in the same session:
their comparison is paired).

The numbers come from a counter: the k-th draw at the t-th coup of the session whose
first shoe is s is SplitMix64's finalizer applied to a key made of (seed, s, t, k), the
top 53 bits giving a float in [0, 1). The array form's draw is one number per session;
the simple form's, one for its own session, counted per session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / (1 << 53)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer, element-wise on uint64 (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


class TableRandom:
    """One configuration's random numbers for its sessions (the engine advances ``step``).

    ``random()`` (n,) floats in [0, 1); ``integers(low, high)`` (n,) integers in [low,
    high); ``choice(options)`` (n,) picks; ``session(i)`` the simple form's view of one
    session. Draws are counted per session within each coup.
    """

    __slots__ = ("_keys", "_step", "_drawn")

    def __init__(self, seed: int, session_ids: np.ndarray) -> None:
        """``session_ids``: what tells the sessions apart (the engine: their first shoes)."""
        with np.errstate(over="ignore"):
            base = _mix(np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))[0]
            self._keys = _mix(base ^ (np.asarray(session_ids, dtype=np.uint64) * _GOLDEN))
        self._step = 0
        self._drawn = np.zeros(len(session_ids), dtype=np.uint64)

    def at_step(self, step: int) -> None:
        """The engine: the coup about to be dealt is the session's ``step``-th (from 0)."""
        if step != self._step:
            self._step = step
            self._drawn[:] = 0

    def _words(self, rows: np.ndarray | slice) -> np.ndarray:
        keys = self._keys[rows]
        drawn = self._drawn[rows]
        with np.errstate(over="ignore"):
            words = _mix(keys + np.uint64(self._step << 24) * _GOLDEN + drawn * _M2)
        self._drawn[rows] += np.uint64(1)
        return words

    @property
    def n(self) -> int:
        """The number of sessions."""
        return int(self._keys.size)

    def random(self) -> np.ndarray:
        """One float in [0, 1) per session."""
        return (self._words(slice(None)) >> np.uint64(11)).astype(np.float64) * _TO_UNIT

    def integers(self, low: int, high: int) -> np.ndarray:
        """One integer in [low, high) per session."""
        if high <= low:
            raise ValueError(f"integers({low}, {high}): high must be above low")
        return low + np.floor(self.random() * (high - low)).astype(np.int64)

    def choice(self, options: Sequence[Any]) -> np.ndarray:
        """One of ``options`` per session (an array of them)."""
        values = np.asarray(options)
        if values.size == 0:
            raise ValueError("choice() of no options")
        return values[self.integers(0, values.size)]

    def session(self, i: int) -> SessionRandom:
        """Session ``i``'s own draws, in plain Python values (the simple form's
        ``view.rng``)."""
        return SessionRandom(self, i)


class SessionRandom:
    """One session's random numbers in plain Python values: ``random()``, ``randint(a,
    b)`` (both ends included, as ``random.randint``), ``choice(seq)``, ``uniform(a,
    b)``."""

    __slots__ = ("_table", "_i")

    def __init__(self, table: TableRandom, i: int) -> None:
        self._table = table
        self._i = i

    def random(self) -> float:
        """A float in [0, 1)."""
        word = self._table._words(np.array([self._i]))[0]
        return float(int(word) >> 11) * _TO_UNIT

    def uniform(self, a: float, b: float) -> float:
        """A float between ``a`` and ``b``."""
        return a + (b - a) * self.random()

    def randint(self, a: int, b: int) -> int:
        """An integer from ``a`` to ``b``, both included."""
        if b < a:
            raise ValueError(f"randint({a}, {b}): b must be at least a")
        return a + int(self.random() * (b - a + 1))

    def choice(self, seq: Sequence[Any]) -> Any:
        """One element of ``seq``."""
        if not len(seq):
            raise IndexError("choice() of an empty sequence")
        return seq[int(self.random() * len(seq))]


__all__ = ["SessionRandom", "TableRandom"]
