"""The statistics of a coups dataset, computed across shoes with numpy, one value per dataset.

Every function takes a :class:`ShoeFrame` (one dataset, or many reference datasets end to
end) and returns ``{statistic id: array of one value per dataset}``. The labels say what
each one measures; ``STATISTICS`` lists them in the order tables and reports show them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import VALUE_OF_CODE
from ..coups import BANKER, PLAYER, TIE
from ..roads import DERIVED_ROADS
from .frame import ShoeFrame, dealt_sequence

RUN_LENGTHS = (1, 2, 3, 4)
"""Run lengths given their own share; longer runs are pooled into one "5 or more" share."""


@dataclass(frozen=True)
class Statistic:
    """One statistic of the family: its id (a column name), what it measures, its group."""

    id: str
    label: str
    group: str


def _road_id(name: str) -> str:
    return "red_share_" + name.replace(" ", "_")


STATISTICS: tuple[Statistic, ...] = (
    Statistic("banker_share", "Banker share of coups", "outcomes"),
    Statistic("player_share", "Player share of coups", "outcomes"),
    Statistic("tie_share", "Tie share of coups", "outcomes"),
    Statistic("ties_per_shoe_sd", "ties per shoe, spread (sd across shoes)", "outcomes"),
    Statistic("coups_per_shoe", "coups per shoe (mean)", "outcomes"),
    Statistic("lag1_banker", "P(B after B) - P(B after P), ties skipped", "outcomes"),
    Statistic("runs_z", "number of runs, Wald-Wolfowitz z (ties skipped)", "outcomes"),
    *(Statistic(f"run_share_{k}", f"share of runs of length {k}", "outcomes")
      for k in RUN_LENGTHS),
    Statistic(f"run_share_{RUN_LENGTHS[-1] + 1}_plus",
              f"share of runs of length {RUN_LENGTHS[-1] + 1} or more", "outcomes"),
    Statistic("longest_run", "longest run per shoe (mean)", "outcomes"),
    Statistic("big_road_columns", "big road columns per shoe (mean)", "outcomes"),
    *(Statistic(_road_id(name), f"red share of the {name}", "outcomes")
      for name in DERIVED_ROADS.values()),
    Statistic("tenths_chi2", "B/P/T by tenth of shoe, chi-square of independence", "outcomes"),
    Statistic("banker_share_first_tenth", "Banker share, first tenth of the shoe", "outcomes"),
    Statistic("banker_share_last_tenth", "Banker share, last tenth of the shoe", "outcomes"),
    Statistic("values_chi2_per_shoe", "card values per shoe vs composition (mean chi-square)",
              "cards"),
    Statistic("values_chi2_pooled", "card values, all shoes, vs composition (chi-square)",
              "cards"),
    Statistic("natural_share", "coups with a natural (8 or 9 in two cards)", "cards"),
    Statistic("player_pair_share", "Player pairs (first two cards of one rank)", "cards"),
    Statistic("banker_pair_share", "Banker pairs (first two cards of one rank)", "cards"),
    Statistic("equal_adjacent_share", "adjacent cards of equal value (clumping)", "cards"),
    Statistic("carry_over_share",
              "adjacent cards that were adjacent in the table's previous shoe", "cards"),
)
BY_ID = {s.id: s for s in STATISTICS}

#: Share of each value (0-9) in a full shoe: 16 zero-valued cards a deck, 4 of each other.
VALUE_SHARES = np.array([16] + [4] * 9, dtype=np.float64) / 52


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1), np.nan)


def outcome_statistics(frame: ShoeFrame) -> dict[str, np.ndarray]:
    """Statistics of the outcomes alone (any source, recorded cards or not)."""
    out: dict[str, np.ndarray] = {}
    coups = frame.per_dataset(frame.shoe)
    for name, code in (("banker", BANKER), ("player", PLAYER), ("tie", TIE)):
        out[f"{name}_share"] = _ratio(frame.per_dataset(frame.shoe[frame.outcome == code]),
                                      coups)
    ties = np.bincount(frame.shoe[frame.outcome == TIE], minlength=frame.n_shoes)
    out["ties_per_shoe_sd"] = ties.reshape(frame.n_datasets, -1).std(axis=1)
    out["coups_per_shoe"] = frame.natural_length.reshape(frame.n_datasets, -1).mean(axis=1)
    out.update(_decision_statistics(frame))
    out.update(_tenth_statistics(frame))
    return out


def _decision_statistics(frame: ShoeFrame) -> dict[str, np.ndarray]:
    """Lag-1 dependence, runs and roads: all on the Banker/Player decisions, ties skipped."""
    decided = frame.outcome != TIE
    side = frame.outcome[decided]
    shoe = frame.shoe[decided]
    same_shoe = shoe[1:] == shoe[:-1]
    previous_b = side[:-1] == BANKER
    now_b = side[1:] == BANKER
    pair_shoe = shoe[1:]
    b_after_b = _ratio(frame.per_dataset(pair_shoe[same_shoe & previous_b & now_b]),
                       frame.per_dataset(pair_shoe[same_shoe & previous_b]))
    b_after_p = _ratio(frame.per_dataset(pair_shoe[same_shoe & ~previous_b & now_b]),
                       frame.per_dataset(pair_shoe[same_shoe & ~previous_b]))
    out = {"lag1_banker": b_after_b - b_after_p}

    starts = np.flatnonzero(np.r_[True, (side[1:] != side[:-1]) | ~same_shoe]) if side.size \
        else np.empty(0, dtype=np.int64)
    lengths = np.diff(np.r_[starts, side.size])
    run_shoe = shoe[starts]
    runs = np.bincount(run_shoe, minlength=frame.n_shoes).astype(np.float64)
    n1 = np.bincount(shoe[side == BANKER], minlength=frame.n_shoes).astype(np.float64)
    n = np.bincount(shoe, minlength=frame.n_shoes).astype(np.float64)
    n2 = n - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(n > 0, 1 + 2 * n1 * n2 / np.maximum(n, 1), 0.0)
        variance = np.where(n > 1, 2 * n1 * n2 * (2 * n1 * n2 - n)
                            / (np.maximum(n, 1) ** 2 * np.maximum(n - 1, 1)), 0.0)
    spread = np.sqrt(frame.shoe_sums(variance))
    out["runs_z"] = _ratio(frame.shoe_sums(runs - expected), spread)

    total_runs = frame.per_dataset(run_shoe)
    for k in RUN_LENGTHS:
        out[f"run_share_{k}"] = _ratio(frame.per_dataset(run_shoe[lengths == k]), total_runs)
    longer = lengths > RUN_LENGTHS[-1]
    out[f"run_share_{RUN_LENGTHS[-1] + 1}_plus"] = _ratio(
        frame.per_dataset(run_shoe[longer]), total_runs)

    longest = np.zeros(frame.n_shoes, dtype=np.float64)
    if lengths.size:
        first = np.flatnonzero(np.r_[True, run_shoe[1:] != run_shoe[:-1]])
        longest[run_shoe[first]] = np.maximum.reduceat(lengths, first)
    out["longest_run"] = longest.reshape(frame.n_datasets, -1).mean(axis=1)
    out["big_road_columns"] = runs.reshape(frame.n_datasets, -1).mean(axis=1)
    out.update(_road_statistics(frame, lengths, run_shoe))
    return out


def derived_road_marks(lengths: np.ndarray, run_shoe: np.ndarray, k: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Red and total marks of derived road ``k``, per big road column (flat, all shoes).

    From the logical column lengths alone (the rule of :func:`baccarat.roads.derived_road`):
    column c >= k adds a mark for each of its rows, except the very first cell (k, 0); the
    top row is red when columns c-1 and c-1-k are equally long; a lower row r is blue only
    when column c-k is exactly r long, which happens on one row of column c exactly when
    column c-k is shorter. Returns (red, marks, shoe) per column.
    """
    index = np.arange(lengths.size)
    first_of_shoe = np.r_[0, np.flatnonzero(run_shoe[1:] != run_shoe[:-1]) + 1]
    shoe_start = np.repeat(first_of_shoe, np.diff(np.r_[first_of_shoe, lengths.size]))
    column = index - shoe_start
    red = np.zeros(lengths.size, dtype=np.int64)
    marks = np.zeros(lengths.size, dtype=np.int64)
    lower = column >= k
    shorter_before = np.zeros(lengths.size, dtype=bool)
    shorter_before[k:] = lengths[:-k] < lengths[k:]
    red[lower] += lengths[lower] - 1 - shorter_before[lower]
    marks[lower] += lengths[lower] - 1
    top = column >= k + 1
    equal = np.zeros(lengths.size, dtype=bool)
    equal[k + 1:] = lengths[k:-1] == lengths[:-k - 1]
    red[top] += equal[top]
    marks[top] += 1
    return red, marks, run_shoe


def _road_statistics(frame: ShoeFrame, lengths: np.ndarray, run_shoe: np.ndarray
                     ) -> dict[str, np.ndarray]:
    out = {}
    for k, name in DERIVED_ROADS.items():
        red, marks, shoe = derived_road_marks(lengths, run_shoe, k)
        out[_road_id(name)] = _ratio(frame.per_dataset(shoe, red), frame.per_dataset(shoe, marks))
    return out


def _tenth_statistics(frame: ShoeFrame) -> dict[str, np.ndarray]:
    """How the outcomes spread over the tenths of each shoe (early against late)."""
    lengths = frame.lengths
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    position = np.arange(frame.shoe.size) - starts[frame.shoe]
    tenth = (10 * position) // np.maximum(lengths[frame.shoe], 1)
    dataset = frame.dataset_of_shoe(frame.shoe)
    table = np.bincount((dataset * 10 + tenth) * 3 + frame.outcome,
                        minlength=frame.n_datasets * 30).reshape(frame.n_datasets, 10, 3)
    table = table.astype(np.float64)
    total = table.sum(axis=(1, 2), keepdims=True)
    expected = table.sum(axis=2, keepdims=True) * table.sum(axis=1, keepdims=True) / \
        np.maximum(total, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cells = np.where(expected > 0, (table - expected) ** 2 / np.maximum(expected, 1e-300), 0)
    in_tenth = table.sum(axis=2)
    return {
        "tenths_chi2": cells.sum(axis=(1, 2)),
        "banker_share_first_tenth": _ratio(table[:, 0, BANKER], in_tenth[:, 0]),
        "banker_share_last_tenth": _ratio(table[:, 9, BANKER], in_tenth[:, 9]),
    }


def card_statistics(frame: ShoeFrame, pairs: bool = True) -> dict[str, np.ndarray]:
    """Statistics of the cards, for card-level data (``frame.cards`` set).

    ``pairs`` is False when the source lost the ranks of zero-valued cards, so that a pair
    of them cannot be told from a 10 and a king.
    """
    assert frame.cards is not None
    out: dict[str, np.ndarray] = {}
    codes, shoe = dealt_sequence(frame)
    values = VALUE_OF_CODE[codes].astype(np.int64)
    counts = np.bincount(shoe * 10 + values, minlength=frame.n_shoes * 10)
    counts = counts.reshape(frame.n_shoes, 10).astype(np.float64)
    expected = counts.sum(axis=1, keepdims=True) * VALUE_SHARES
    with np.errstate(invalid="ignore", divide="ignore"):
        chi2 = np.where(expected > 0, (counts - expected) ** 2 / np.maximum(expected, 1e-300), 0)
    out["values_chi2_per_shoe"] = chi2.sum(axis=1).reshape(frame.n_datasets, -1).mean(axis=1)
    pooled = counts.reshape(frame.n_datasets, -1, 10).sum(axis=1)
    pooled_expected = pooled.sum(axis=1, keepdims=True) * VALUE_SHARES
    out["values_chi2_pooled"] = ((pooled - pooled_expected) ** 2
                                 / np.maximum(pooled_expected, 1e-300)).sum(axis=1)

    cards = frame.cards
    value = VALUE_OF_CODE[np.where(cards >= 0, cards, 0)].astype(np.int64)
    player_two = (value[:, 0] + value[:, 1]) % 10
    banker_two = (value[:, 3] + value[:, 4]) % 10
    coups = frame.per_dataset(frame.shoe)
    natural = (player_two >= 8) | (banker_two >= 8)
    out["natural_share"] = _ratio(frame.per_dataset(frame.shoe[natural]), coups)
    if pairs:
        rank = cards // 5
        out["player_pair_share"] = _ratio(
            frame.per_dataset(frame.shoe[rank[:, 0] == rank[:, 1]]), coups)
        out["banker_pair_share"] = _ratio(
            frame.per_dataset(frame.shoe[rank[:, 3] == rank[:, 4]]), coups)

    same_shoe = shoe[1:] == shoe[:-1]
    equal = same_shoe & (values[1:] == values[:-1])
    out["equal_adjacent_share"] = _ratio(frame.per_dataset(shoe[1:][equal]),
                                         frame.per_dataset(shoe[1:][same_shoe]))
    if (frame.next_shoe >= 0).any():
        out["carry_over_share"] = _carry_over(frame, codes, shoe, same_shoe)
    return out


_BIGRAMS = 128 * 128


def _carry_over(frame: ShoeFrame, codes: np.ndarray, shoe: np.ndarray,
                same_shoe: np.ndarray) -> np.ndarray:
    """Share of a shoe's adjacent card pairs that were also adjacent in the previous shoe.

    A riffle keeps each packet's cards in their old order, so after a few riffles many
    neighbours of the last shoe's discard order are still neighbours; after a fair shuffle
    a pair recurs only by chance (about 15% of pairs at 8 decks, by card code). Only dealt
    cards are compared: recorded data never shows the burn or the cards behind the cut.
    """
    bigram = codes[:-1].astype(np.int64) * 128 + codes[1:]
    first_shoe = shoe[:-1]
    inside = same_shoe
    follower = frame.next_shoe[first_shoe]
    # Pairs of shoe s, keyed by the shoe that follows s at its table ...
    before = np.sort(follower[inside & (follower >= 0)] * _BIGRAMS
                     + bigram[inside & (follower >= 0)])
    # ... looked up among the pairs of every shoe that has a previous shoe.
    has_previous = np.zeros(frame.n_shoes, dtype=bool)
    has_previous[frame.next_shoe[frame.next_shoe >= 0]] = True
    candidate = inside & has_previous[first_shoe]
    keys = first_shoe[candidate] * _BIGRAMS + bigram[candidate]
    kept = _found_in(before, keys)
    return _ratio(frame.per_dataset(first_shoe[candidate][kept]),
                  frame.per_dataset(first_shoe[candidate]))


#: Shoes whose bigrams :func:`_found_in` marks in one table (256 x 16,384 flags: 4 MB).
_SHOES_PER_TABLE = 256


def _found_in(table: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in ``table`` (sorted), both of the form
    ``shoe * _BIGRAMS + bigram``.

    A binary search of every key in the whole table jumps about memory; marking the table's
    keys of a few hundred shoes at a time in an array of flags and reading the keys of
    those shoes from it gives the same answer about ten times sooner.
    """
    found = np.zeros(keys.size, dtype=bool)
    if not table.size or not keys.size:
        return found
    shoes = keys // _BIGRAMS
    order = None
    if (np.diff(shoes) < 0).any():  # keys not in shoe order: put them in it
        order = np.argsort(shoes, kind="stable")
        keys, shoes = keys[order], shoes[order]
    table_shoes = table // _BIGRAMS
    flags = np.zeros(_SHOES_PER_TABLE * _BIGRAMS, dtype=bool)
    for shoe in range(int(min(table_shoes[0], shoes[0])), int(max(table_shoes[-1], shoes[-1])) + 1,
                      _SHOES_PER_TABLE):
        bounds = [shoe, shoe + _SHOES_PER_TABLE]
        t0, t1 = np.searchsorted(table_shoes, bounds)
        k0, k1 = np.searchsorted(shoes, bounds)
        if t0 == t1 or k0 == k1:
            continue
        low = shoe * _BIGRAMS
        flags[table[t0:t1] - low] = True
        found[k0:k1] = flags[keys[k0:k1] - low]
        flags[table[t0:t1] - low] = False
    if order is not None:
        unordered = np.empty_like(found)
        unordered[order] = found
        return unordered
    return found
