"""Which shoes a search chooses on, and which it checks the choice on.

Sessions are taken in the dataset's order (recorded shoes: file order, then the recorded
time where the dataset has one); a split never shuffles them, so "the first half" is the
first half as dealt. Three schemes:

- hold-out (``--holdout F``): choose on the first sessions, check on the last fraction F;
- walk-forward (``--folds K --walk-forward``): the sessions in K + 1 consecutive blocks;
  fold i (1..K) is chosen on blocks 0..i-1 and checked on block i (scikit-learn's
  ``TimeSeriesSplit``), so a choice never sees a shoe dealt after the ones it is checked on;
- cross-validation (``--folds K``): K consecutive blocks; each is checked with the choice
  made on the other K - 1 (for shoes whose order carries nothing, as fair shoes).

Whatever the scheme, a fold never chooses on a session it evaluates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import BaccaratError

HOLDOUT, WALK_FORWARD, CROSS_VALIDATION, NONE = ("hold-out", "walk-forward",
                                                 "cross-validation", "none")

#: The fewest sessions a part may hold (an interval needs two).
MIN_PART = 2


@dataclass(frozen=True)
class Fold:
    """One choice and its check: positions (in session order) of each side."""

    name: str
    choose: np.ndarray
    evaluate: np.ndarray


@dataclass(frozen=True)
class Split:
    """A scheme's folds over ``sessions`` sessions."""

    scheme: str
    sessions: int
    folds: tuple[Fold, ...]
    holdout: float = 0.0

    @property
    def evaluated(self) -> np.ndarray:
        """Every position some fold evaluates, in order."""
        if not self.folds:
            return np.empty(0, dtype=np.int64)
        return np.sort(np.concatenate([f.evaluate for f in self.folds]))

    def describe(self) -> str:
        """One phrase for the outputs."""
        if self.scheme == HOLDOUT:
            return f"hold-out of the last {self.holdout:.0%} of the sessions"
        if self.scheme == WALK_FORWARD:
            return f"walk-forward over {len(self.folds)} folds"
        if self.scheme == CROSS_VALIDATION:
            return f"cross-validation over {len(self.folds)} folds"
        return "no hold-out: chosen and judged on every session"


def holdout_split(sessions: int, fraction: float) -> Split:
    """Choose on the first ``1 - fraction`` of the sessions, check on the rest (0: none)."""
    if not 0.0 <= fraction < 1.0:
        raise BaccaratError(f"holdout {fraction:g}: the fraction of the shoes held back; "
                            f"expected at least 0 and below 1 (0: no hold-out)",
                            params=("holdout",))
    everything = np.arange(sessions, dtype=np.int64)
    if fraction == 0.0:
        return Split(NONE, sessions, (Fold("all", everything, everything[:0]),))
    held = int(round(sessions * fraction))
    chosen = sessions - held
    if held < MIN_PART or chosen < MIN_PART:
        raise BaccaratError(
            f"holdout {fraction:g} of {sessions:,} sessions leaves {chosen:,} to choose "
            f"on and {held:,} to check on; each needs at least {MIN_PART}: use more shoes "
            f"or another fraction", params=("holdout",))
    return Split(HOLDOUT, sessions, (Fold("hold-out", everything[:chosen],
                                          everything[chosen:]),), holdout=fraction)


def fold_split(sessions: int, folds: int, walk_forward: bool) -> Split:
    """K walk-forward folds (K + 1 blocks) or K cross-validation folds (K blocks)."""
    blocks_wanted = folds + 1 if walk_forward else folds
    if folds < (1 if walk_forward else 2):
        raise BaccaratError(f"folds {folds}: expected at least "
                            f"{1 if walk_forward else 2}", params=("folds",))
    if sessions < MIN_PART * blocks_wanted:
        raise BaccaratError(
            f"folds {folds}: {sessions:,} sessions cut into {blocks_wanted} blocks leave "
            f"fewer than {MIN_PART} in a block; use fewer folds or more shoes", params=("folds",))
    blocks = np.array_split(np.arange(sessions, dtype=np.int64), blocks_wanted)
    if walk_forward:
        made = tuple(Fold(f"fold {i}", np.concatenate(blocks[:i]), blocks[i])
                     for i in range(1, blocks_wanted))
        return Split(WALK_FORWARD, sessions, made)
    made = tuple(Fold(f"fold {i + 1}",
                      np.concatenate([b for j, b in enumerate(blocks) if j != i]), blocks[i])
                 for i in range(blocks_wanted))
    return Split(CROSS_VALIDATION, sessions, made)


def id_ranges(ids: np.ndarray) -> list[list[int]]:
    """Runs of consecutive ids as [first, last] pairs, in the order given."""
    ids = np.asarray(ids, dtype=np.int64)
    if ids.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    starts = np.r_[0, breaks]
    ends = np.r_[breaks - 1, ids.size - 1]
    return [[int(ids[s]), int(ids[e])] for s, e in zip(starts, ends, strict=True)]


def name_ids(ids: np.ndarray, most: int = 6) -> str:
    """Shoe ids as a reader replays them: ``0-149``, ``3, 7-9``; long lists abridged
    (the JSON output and search.parquet's metadata keep every range)."""
    ranges = id_ranges(ids)
    words = [f"{a}" if a == b else f"{a}-{b}" for a, b in ranges]
    if len(words) > most:
        words = [*words[:most - 1], f"... ({len(words) - most + 1} more runs)", words[-1]]
    return ", ".join(words) if words else "none"


__all__ = ["CROSS_VALIDATION", "HOLDOUT", "NONE", "WALK_FORWARD", "Fold", "Split",
           "fold_split", "holdout_split", "id_ranges", "name_ids"]
