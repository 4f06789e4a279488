"""``analyze_coups``: each statistic of a dataset against its distribution over fair datasets.

A parametric bootstrap: ``n_reference`` datasets of the observed shape (same number of
shoes, each cut to its observed shoe's coups, same rules) are dealt from fairly shuffled
shoes, every statistic is computed on each, and the observed value is placed in that
distribution. The family's p-values are Holm-adjusted, so "no evidence against a fair
shuffle" is wrong at most 5% of the time on fair data, whichever statistics are in it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from ..coups import Coups
from ..errors import BaccaratError
from ..odds.composition import pair_probability, shoe_counts
from ..odds.enumeration import outcome_probabilities
from ..rules import TableRules
from .frame import CardView, ShoeFrame, frame_of_coups
from .reference import reference_frames
from .significance import empirical_p, holm, normal_p, z_score
from .statistics import BY_ID, STATISTICS, card_statistics, outcome_statistics

#: Default number of reference datasets: the reference standard deviation to about 3%.
DEFAULT_REFERENCE = 500
#: A statistic is kept only if defined (finite) on at least this share of reference datasets.
MIN_DEFINED = 0.9
#: The family-wise level of the verdict.
LEVEL = 0.05


class AnalysisError(BaccaratError):
    """A dataset the analysis cannot work on."""


@dataclass
class Analysis:
    """The result: one row per statistic, the reference samples, and the verdict."""

    table: pd.DataFrame
    reference: pd.DataFrame
    shoes: int
    coups: int
    n_reference: int
    notes: list[str] = field(default_factory=list)

    @property
    def flagged(self) -> pd.DataFrame:
        """The statistics that stand out at the family-wise level, most extreme first."""
        rows = self.table[self.table["p_adjusted"] < LEVEL]
        return rows.sort_values("p_adjusted")

    @property
    def verdict(self) -> str:
        """One sentence: no evidence, or which statistics stand out and by how far."""
        flagged = self.flagged
        if flagged.empty:
            return (f"no evidence against a fair shuffle ({len(self.table)} statistics, "
                    f"Holm-adjusted, family-wise {LEVEL:.0%})")
        parts = [f"{row['label']}: {float(row['observed']):.4g} against "
                 f"{float(row['reference_mean']):.4g} ({float(row['z']):+.1f} sd, "
                 f"adjusted p {_p(float(row['p_adjusted']))})"
                 for row in flagged.to_dict("records")]
        return "stands out against a fair shuffle: " + "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON types."""
        rows = self.table.replace({np.nan: None}).to_dict(orient="records")
        return {"shoes": self.shoes, "coups": self.coups, "reference": self.n_reference,
                "verdict": self.verdict, "flagged": list(self.flagged["statistic"]),
                "notes": self.notes, "statistics": rows}


def _p(p: float) -> str:
    if p == 0.0:  # beyond what a double holds: the normal tail underflows
        return "below 1e-300"
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


@cache
def natural_probability(decks: int) -> float:
    """P(either two-card hand is a natural) on the first coup of a full shoe, enumerated.

    The four cards are dealt P, B, P, B from the shoe without replacement.
    """
    counts = shoe_counts(decks).astype(np.float64)
    total = counts.sum()
    natural = 0.0
    for cards in np.ndindex(10, 10, 10, 10):
        left = counts.copy()
        weight = 1.0
        for i, v in enumerate(cards):
            weight *= left[v] / (total - i)
            left[v] -= 1
        p1, b1, p2, b2 = cards
        if (p1 + p2) % 10 >= 8 or (b1 + b2) % 10 >= 8:
            natural += weight
    return natural


def exact_values(rules: TableRules) -> dict[str, float]:
    """Expected values known exactly for the reference's fixed shoe lengths.

    Each reference shoe is cut to a fixed number of coups, and the chance of a Banker win,
    a natural or a pair on the next coup, given the cards gone, is a martingale as cards
    come out, so its expectation is the full shoe's for every coup: the shares have these
    means exactly. Two adjacent cards of a uniform shuffle are two distinct positions,
    hence the share of equal adjacent values. The Wald-Wolfowitz z has mean 0 given each
    shoe's Banker and Player counts.
    """
    counts = shoe_counts(rules.decks)
    odds = outcome_probabilities(counts)
    n = float(counts.sum())
    equal = float((counts * (counts - 1.0)).sum() / (n * (n - 1.0)))
    pair = float(pair_probability(counts, rules.decks))
    return {"banker_share": odds.banker, "player_share": odds.player, "tie_share": odds.tie,
            "runs_z": 0.0, "player_pair_share": pair, "banker_pair_share": pair,
            "equal_adjacent_share": equal, "natural_share": natural_probability(rules.decks)}


def _statistics(frame: ShoeFrame, with_cards: bool, pairs: bool) -> dict[str, np.ndarray]:
    values = outcome_statistics(frame)
    if with_cards:
        values.update(card_statistics(frame, pairs=pairs))
    return values


def analyze_coups(
    coups: Coups,
    rules: TableRules | None = None,
    *,
    n_reference: int = DEFAULT_REFERENCE,
    seed: int = 0,
    table_shoes: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Analysis:
    """Compare every statistic of ``coups`` with its distribution over fair datasets.

    ``rules`` are the table's (decks, burn, cut card: the reference is dealt by them);
    ``seed`` seeds the reference shoes; ``table_shoes`` says that consecutive shoes come
    in tables of that many, each shoe dealt from the previous one's cards (enables the
    carry-over statistic). ``progress(datasets)`` is called as reference batches finish.
    """
    rules = rules or TableRules()
    if n_reference < 20:
        raise AnalysisError(f"reference must be at least 20 datasets, got {n_reference}",
                            params=("reference",))
    if not len(coups):
        raise AnalysisError("the dataset has no coups")
    bad = np.flatnonzero((coups.outcome < 0) | (coups.outcome > 2))
    if bad.size:
        i = int(bad[0])
        raise AnalysisError(f"shoe {coups.shoe[i]}, coup {coups.coup[i]}: no outcome")
    observed_frame = frame_of_coups(coups, table_shoes)
    with_cards = observed_frame.cards is not None
    view = CardView.of(coups.cards) if with_cards else CardView()
    notes: list[str] = []
    if with_cards and not view.ranks:
        notes.append("pairs left out: the source records 10, J, Q and K all as 0")
    if with_cards and not (observed_frame.next_shoe >= 0).any():
        notes.append("carry-over left out: which shoes follow each other at a table is not "
                     "known (--table-shoes)")
    if not with_cards:
        notes.append("card statistics left out: the source has outcomes only")
    observed = _statistics(observed_frame, with_cards, view.ranks)

    samples: dict[str, list[np.ndarray]] = {key: [] for key in observed}
    lengths = observed_frame.lengths
    shortest: int | None = None
    for frame in reference_frames(rules, lengths, n_reference, seed, with_cards=with_cards,
                                  view=view, table_shoes=table_shoes, progress=progress):
        values = _statistics(frame, with_cards, view.ranks)
        for key in samples:
            samples[key].append(values[key])
        if shortest is None:  # the threshold reference_frames used
            shortest = frame.shortest
    partial = int((lengths < (shortest or 0)).sum())
    if partial:
        # Shoes recorded only in part are shorter than any cut card makes them: that says
        # how they were recorded, not how they were shuffled.
        del observed["coups_per_shoe"]
        notes.append(f"coups per shoe left out: {partial} of the {lengths.size} shoes are "
                     f"shorter than the rules' cut card makes shoes (partial recordings); "
                     f"their fair reference shoes are cut to the same number of coups")
    reference = pd.DataFrame({key: np.concatenate(parts) for key, parts in samples.items()})
    exact = exact_values(rules)
    reference = reference[[key for key in reference.columns if key in observed]]
    rows = []
    for statistic in STATISTICS:
        if statistic.id not in observed:
            continue
        value = float(observed[statistic.id][0])
        sample = reference[statistic.id].to_numpy()
        if not math.isfinite(value):
            notes.append(f"{statistic.label} left out: not defined for this dataset")
            continue
        finite = sample[np.isfinite(sample)]
        if finite.size < MIN_DEFINED * n_reference:
            notes.append(f"{statistic.label} left out: not defined for most datasets of "
                         "this shape")
            continue
        z = z_score(value, finite)
        rows.append({
            "statistic": statistic.id, "label": statistic.label, "group": statistic.group,
            "observed": value, "reference_mean": float(finite.mean()),
            "reference_sd": float(finite.std(ddof=1)),
            "reference_low": float(np.quantile(finite, 0.025)),
            "reference_high": float(np.quantile(finite, 0.975)),
            "exact_mean": exact.get(statistic.id, math.nan),
            "z": z, "p": normal_p(z), "p_empirical": empirical_p(value, finite),
        })
    table = pd.DataFrame(rows)
    table["p_adjusted"] = holm(table["p"].to_numpy())
    table["stands_out"] = table["p_adjusted"] < LEVEL
    reference = reference[list(table["statistic"])]
    return Analysis(table=table, reference=reference, shoes=observed_frame.n_shoes,
                    coups=len(coups), n_reference=n_reference, notes=notes)


__all__ = ["Analysis", "AnalysisError", "BY_ID", "DEFAULT_REFERENCE", "LEVEL", "analyze_coups",
           "exact_values", "natural_probability"]
