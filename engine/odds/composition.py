"""Shoe compositions: counts of the cards left, by baccarat value or by rank.

Two shapes are accepted everywhere in :mod:`baccarat.odds`:

- **values**: 10 counts, index = baccarat value (0 = 10/J/Q/K, 1 = ace, ..., 9);
- **ranks**: 13 counts, index = rank - 1 (A, 2, ..., 9, 10, J, Q, K).

The coup's outcome depends on values only. Pair bets need ranks (a 10 and a K are both
worth 0 but are not a pair). Given values only, the pair probability is still exact *given
what is known*: the zero-valued cards left are a random subset of the shoe's 10s, Js, Qs and
Ks (the deal does not look at their rank), so their split over the four ranks is
hypergeometric and E[sum of n_r (n_r - 1)] over those ranks is n0 (n0 - 1) (K - 1) / (M - 1)
with K = 4 x decks cards per rank and M = 4K. This needs the shoe's decks; for a full shoe
it equals the exact rank figure. (Splitting n0 evenly, n0/4 per rank, would be wrong, even
negative, for small n0.) Pass ranks when they are known.
"""

from __future__ import annotations

import numpy as np

from ..errors import BaccaratError

N_VALUES = 10
N_RANKS = 13
#: Fewest cards a composition must hold: a coup can take six.
MIN_CARDS = 6
MAX_DECKS = 8


class OddsError(BaccaratError):
    """A shoe composition that cannot be evaluated, with the place and what was expected."""


def shoe_counts(decks: int) -> np.ndarray:
    """Counts by value (10 ints) of a full shoe of ``decks`` 52-card decks."""
    _check_decks(decks)
    counts = np.full(N_VALUES, 4 * decks, dtype=np.int64)
    counts[0] = 16 * decks
    return counts


def shoe_rank_counts(decks: int) -> np.ndarray:
    """Counts by rank (13 ints, A..K) of a full shoe of ``decks`` decks."""
    _check_decks(decks)
    return np.full(N_RANKS, 4 * decks, dtype=np.int64)


def _check_decks(decks: int) -> None:
    if not 1 <= int(decks) <= MAX_DECKS or int(decks) != decks:
        raise OddsError(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks!r}")


def values_from_ranks(rank_counts: np.ndarray) -> np.ndarray:
    """Collapse rank counts (..., 13) into value counts (..., 10): 10/J/Q/K become value 0."""
    ranks = np.asarray(rank_counts, dtype=np.int64)
    values = np.empty(ranks.shape[:-1] + (N_VALUES,), dtype=np.int64)
    values[..., 0] = ranks[..., 9:].sum(axis=-1)
    values[..., 1:] = ranks[..., :9]
    return values


def max_counts(width: int, decks: int = MAX_DECKS) -> np.ndarray:
    """The most cards of each value (width 10) or rank (width 13) ``decks`` decks hold."""
    return shoe_counts(decks) if width == N_VALUES else shoe_rank_counts(decks)


def check_counts(counts: object, max_decks: int = MAX_DECKS, where: str = "") -> np.ndarray:
    """Validate compositions and return them as int64 of shape (10,), (13,), (n, 10) or (n, 13).

    Refuses: a last axis other than 10 or 13, non-integral or negative counts, more cards of
    a value or rank than ``max_decks`` decks hold, and fewer than six cards in all.
    ``where`` names the source for the message (e.g. "--remaining").
    """
    place = f" in {where}" if where else ""
    try:
        raw = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        raise OddsError(f"shoe composition{place} is not an array of numbers") from None
    if raw.ndim not in (1, 2) or raw.shape[-1] not in (N_VALUES, N_RANKS):
        raise OddsError(
            f"shoe composition{place} has shape {raw.shape}: expected 10 counts by value "
            f"(0 = 10/J/Q/K, 1 = ace, ..., 9) or 13 by rank (A..K), per row"
        )
    rows = raw.reshape(-1, raw.shape[-1])
    kind = "value" if raw.shape[-1] == N_VALUES else "rank"
    labels = _labels(raw.shape[-1])

    def row_name(i: int) -> str:
        return f" row {i}" if raw.ndim == 2 else ""

    bad = ~np.isfinite(rows) | (rows != np.round(rows))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise OddsError(
            f"shoe composition{place}{row_name(i)}: count of {kind} {labels[j]} is "
            f"{rows[i, j]!r}, expected a whole number"
        )
    ints = rows.astype(np.int64)
    neg = ints < 0
    if neg.any():
        i, j = np.argwhere(neg)[0]
        raise OddsError(
            f"shoe composition{place}{row_name(i)}: count of {kind} {labels[j]} is "
            f"{ints[i, j]}, expected 0 or more"
        )
    limit = max_counts(raw.shape[-1], max_decks)
    over = ints > limit
    if over.any():
        i, j = np.argwhere(over)[0]
        raise OddsError(
            f"shoe composition{place}{row_name(i)}: {ints[i, j]} cards of {kind} {labels[j]} "
            f"is more than {max_decks} deck(s) hold (at most {limit[j]})"
        )
    totals = ints.sum(axis=1)
    short = totals < MIN_CARDS
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise OddsError(
            f"shoe composition{place}{row_name(i)} holds {totals[i]} cards: a coup can take "
            f"{MIN_CARDS}, expected at least {MIN_CARDS}"
        )
    return ints.reshape(raw.shape)


def _labels(width: int) -> tuple[str, ...]:
    if width == N_VALUES:
        return ("0 (10/J/Q/K)", "1 (A)", "2", "3", "4", "5", "6", "7", "8", "9")
    return ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def smallest_decks(counts: np.ndarray) -> np.ndarray | int:
    """The fewest decks that can hold compositions (..., 10|13): a default shoe size."""
    c = np.asarray(counts, dtype=np.int64)
    per_card = np.maximum(c / max_counts(c.shape[-1], 1), 0).max(axis=-1)
    decks = np.maximum(np.ceil(np.maximum(per_card, c.sum(axis=-1) / 52)), 1).astype(np.int64)
    return int(decks) if decks.ndim == 0 else decks


def pair_probability(
    counts: np.ndarray, decks: int | np.ndarray | None = None
) -> np.ndarray | float:
    """P(the first two cards of a hand are the same rank) for compositions (..., 10 or 13).

    Any two positions of the deal are alike, so Player pair and Banker pair have the same
    probability: sum of n_r (n_r - 1) over ranks, divided by N (N - 1). With value counts the
    zero-valued ranks are taken in expectation over their hypergeometric split (see the
    module docstring), which needs the shoe's ``decks`` (default: the fewest that can hold
    the composition, right for a full shoe).
    """
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum(axis=-1)
    if c.shape[-1] == N_VALUES:
        per_rank = 4.0 * np.asarray(smallest_decks(c) if decks is None else decks, np.float64)
        zero = c[..., 0]
        same_zero = zero * (zero - 1.0) * (per_rank - 1.0) / (4.0 * per_rank - 1.0)
        same = (c[..., 1:] * (c[..., 1:] - 1.0)).sum(axis=-1) + same_zero
    else:
        same = (c * (c - 1.0)).sum(axis=-1)
    result = same / (total * (total - 1.0))
    return float(result) if np.ndim(result) == 0 else result


# Counts by value packed into one int64: value 0 (at most 128 cards in 8 decks) in 8 bits,
# values 1-9 (at most 32 each) in 6 bits each: 62 bits in all.
_SHIFTS = np.array([0] + [8 + 6 * i for i in range(9)], dtype=np.int64)
_MAX_PACKED = np.array([255] + [63] * 9, dtype=np.int64)
_PLACES = np.left_shift(1, _SHIFTS)  # packing is one integer dot product with these


def packable(counts: np.ndarray) -> bool:
    """Whether rows of 10 counts by value fit :func:`pack_compositions` (8 decks always do)."""
    c = np.asarray(counts)
    # A negative count is huge as an unsigned one: one comparison checks both bounds.
    return c.shape[-1] == N_VALUES and not bool(
        (c.astype(np.uint64) > _MAX_PACKED.astype(np.uint64)).any())


def pack_compositions(counts: np.ndarray) -> np.ndarray:
    """One int64 key per composition (rows of 10 counts by value, 0 <= counts, 8 decks max).

    Equal keys mean equal compositions, so ``np.unique`` on the keys finds the distinct
    compositions of a batch far faster than ``np.unique(..., axis=0)`` on the rows.
    """
    c = np.asarray(counts, dtype=np.int64)
    if not packable(c):
        raise ValueError("compositions to pack must be 10 non-negative counts by value "
                         "(at most 8 decks)")
    return np.asarray(c @ _PLACES)


def distinct_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(keys, return_index=True, return_inverse=True)`` for 1-d int64 keys (the
    distinct keys, the first index of each, each key's place among them), without its
    general-purpose overhead: this runs at every step of a replay."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.empty(keys.size, dtype=bool)
    starts[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    inverse = np.empty(keys.size, dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], order[starts], inverse


def distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of compositions (n, 10|13) and, per row, the index of its own.

    ``unique[inverse]`` gives ``counts`` back. Rows by value are told apart by their packed
    keys; rows by rank (or beyond packing) by ``np.unique(..., axis=0)``.
    """
    arr = np.asarray(counts, dtype=np.int64)
    if arr.shape[0] <= 1:
        return arr, np.zeros(arr.shape[0], dtype=np.intp)
    if packable(arr):
        _, first, inverse = distinct_keys(pack_compositions(arr))
        return arr[first], inverse
    unique, inverse = np.unique(arr, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)


def remaining_counts(seen: np.ndarray, decks: int, by_rank: bool = False) -> np.ndarray:
    """The cards left in a shoe of ``decks`` decks once the ``seen`` counts (..., 10|13) are out.

    ``seen`` may be one composition or one per session; no validation beyond the shape.
    """
    full = shoe_rank_counts(decks) if by_rank else shoe_counts(decks)
    return full - np.asarray(seen, dtype=np.int64)
