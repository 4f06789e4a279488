"""What a column holds, told from its values: the content profile that assigns fields.

A profile looks at a sample of a column's values (each distinct value once, weighed by
how often it occurs) and says which kinds of recorded content they are: outcome letters
or words, totals 0-9, single cards, lists of cards (a hand, a whole coup, a whole shoe),
scorecard strings (a shoe of outcomes), coup numbers, ids, timestamps, booleans.
``plan`` assigns the coups table's fields to columns from these profiles first, and
from the column names second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..tokens import CARD_SEPARATORS, MISSING, clip, is_card, outcome_code, outcome_letters

#: Rows of a column a profile looks at.
SAMPLE_ROWS = 2000
#: Share of a column's filled rows that must fit a kind for the column to "mostly" hold it
#: (a column named for a field that mostly fits is that field; its odd values are errors).
MOSTLY = 0.5

_WHOLE = re.compile(r"[0-9]{1,10}")
_DECIMAL = re.compile(r"-?[0-9]*\.[0-9]+|-?[0-9]+")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}([ T]\d{1,2}:\d{2}(:\d{2})?.*)?"
                        r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}( .*)?|\d{1,2}:\d{2}(:\d{2})?")
_BOOLEAN = frozenset({"TRUE", "FALSE", "YES", "NO"})
_OUTCOME_SEPARATORS = re.compile(r"[\s,;|]+")


@dataclass(frozen=True)
class Profile:
    """A column's content on a sample: how many rows, how many filled, and for each kind
    the share of filled rows whose value is of that kind (1.0: every one).

    Kinds: ``outcome`` (one outcome), ``total`` (0-9), ``number`` (a whole number),
    ``decimal``, ``card`` (one card), ``cards`` (a list of 2 or more cards; ``counts`` has
    their fewest and most), ``outcomes`` (a scorecard string: 2 or more outcomes in a
    row), ``boolean``, ``timestamp``; text that differs on every row, or runs in blocks
    of rows, reads as ids (``kind_words``).
    """

    rows: int
    filled: int
    distinct: int
    share: dict[str, float] = field(default_factory=dict)
    #: fewest and most cards of the values that are card lists (0, 0: none)
    counts: tuple[int, int] = (0, 0)
    #: the median number of cards of the values that are card lists
    median_count: float = 0.0
    #: the most outcomes in one value (scorecard strings)
    longest_outcomes: int = 0
    #: a few distinct values, for messages
    examples: tuple[str, ...] = ()
    #: whether the values run in blocks (each value in one run of rows), as a shoe key does
    runs: bool = False
    #: share of consecutive filled rows whose whole number goes up by one (coup numbers)
    counting: float = 0.0

    def all(self, kind: str) -> bool:
        """Whether every filled value is of ``kind`` (and there is one at least)."""
        return self.filled > 0 and self.share.get(kind, 0.0) >= 1.0

    def mostly(self, kind: str) -> bool:
        """Whether most filled values are of ``kind``."""
        return self.filled > 0 and self.share.get(kind, 0.0) >= MOSTLY

    @property
    def empty(self) -> bool:
        """Whether the sample holds nothing in this column."""
        return self.filled == 0

    def describe(self) -> str:
        """What the column holds, in words, with examples: 'totals 0-9 (5, 7, 0)'."""
        if self.empty:
            return "nothing (every sampled row blank)"
        what = self.kind_words()
        shown = ", ".join(repr(e) for e in self.examples)
        return f"{what} ({shown})" if shown else what

    def kind_words(self) -> str:
        """The kind of content, in words."""
        if self.all("outcome"):
            return "outcomes"
        if self.all("total"):
            return "totals 0-9"
        if self.all("card"):
            return "single cards"
        if self.all("cards") or (self.all("card_or_cards") and self.counts[1] >= 2):
            low, high = self.counts
            span = f"{low}" if low == high else f"{low}-{high}"
            return f"lists of {span} cards"
        if self.all("outcomes"):
            return f"scorecard strings (up to {self.longest_outcomes} outcomes)"
        if self.all("number"):
            return "coup numbers" if self.counting >= 0.5 else "whole numbers"
        if self.all("decimal"):
            return "numbers"
        if self.all("timestamp"):
            return "timestamps"
        if self.all("boolean"):
            return "booleans"
        if self.distinct == self.filled and self.filled > 1:
            return "ids (one per row)"
        if self.runs:
            return "ids in blocks of rows"
        return f"text ({self.distinct:,} distinct value{'s' if self.distinct > 1 else ''})"


def _card_count(text: str) -> int:
    """How many cards a value is (1 for one card, n for a list of n), 0 if not cards."""
    words = [w for w in CARD_SEPARATORS.split(text) if w]
    if not words or len(words) > 1000:
        return 0
    if len(words) == 1:
        return 1 if is_card(words[0]) else 0
    return len(words) if all(is_card(w) for w in words) else 0


def _outcome_count(text: str) -> int:
    """How many outcomes a value spells (a scorecard string), 0 if it is not outcomes."""
    words = [w for w in _OUTCOME_SEPARATORS.split(text) if w]
    if not words:
        return 0
    letters = [outcome_letters(w) for w in words]
    if any(x is None for x in letters):
        return 0
    return sum(len(x or "") for x in letters)


def value_kinds(text: str) -> tuple[set[str], int, int]:
    """The kinds one value is, its number of cards and its number of outcomes."""
    kinds: set[str] = set()
    key = text.strip()
    upper = key.upper()
    if outcome_code(key) is not None:
        kinds.add("outcome")
    if _WHOLE.fullmatch(key):
        kinds.add("number")
        if len(key) == 1:
            kinds.add("total")
    if _DECIMAL.fullmatch(key):
        kinds.add("decimal")
    if upper in _BOOLEAN:
        kinds.add("boolean")
    if _TIMESTAMP.fullmatch(key):
        kinds.add("timestamp")
    cards = _card_count(key)
    if cards == 1:
        kinds.add("card")
    if cards >= 2:
        kinds.add("cards")
    if cards >= 1:
        kinds.add("card_or_cards")
    outcomes = _outcome_count(key)
    if outcomes >= 2:
        kinds.add("outcomes")
    if outcomes >= 1:
        kinds.add("outcome_or_outcomes")
    return kinds, cards, outcomes


def profile_column(values: np.ndarray) -> Profile:
    """The profile of a column (its first ``SAMPLE_ROWS`` values)."""
    sample = np.asarray(values[:SAMPLE_ROWS], dtype=object)
    text = np.array(["" if v is None else str(v).strip() for v in sample], dtype=object)
    filled = np.array([t.upper() not in MISSING for t in text], dtype=bool)
    codes, unique = pd.factorize(text[filled])
    counts = np.bincount(codes, minlength=len(unique)) if len(unique) else np.zeros(0, int)
    n_filled = int(filled.sum())
    share: dict[str, float] = {}
    card_counts: list[tuple[int, int]] = []
    longest = 0
    for value, count in zip(unique, counts.tolist(), strict=True):
        kinds, cards, outcomes = value_kinds(str(value))
        for kind in kinds:
            share[kind] = share.get(kind, 0.0) + count
        if cards >= 1:
            card_counts.append((cards, count))
        longest = max(longest, outcomes)
    share = {k: v / n_filled for k, v in share.items()} if n_filled else {}
    if card_counts:
        numbers = np.repeat([c for c, _ in card_counts], [n for _, n in card_counts])
        low, high, median = int(numbers.min()), int(numbers.max()), float(np.median(numbers))
    else:
        low = high = 0
        median = 0.0
    filled_codes = codes if n_filled else np.zeros(0, dtype=np.int64)
    runs = bool(n_filled > 1 and len(unique) < n_filled
                and int((np.diff(filled_codes) != 0).sum()) + 1 == len(unique))
    counting = 0.0
    if share.get("number", 0.0) >= 1.0 and n_filled > 1:
        numbers = np.array([int(v) for v in text[filled]], dtype=np.int64)
        counting = float((np.diff(numbers) == 1).mean())
    examples = tuple(clip(str(u), 24) for u in unique[:3])
    return Profile(rows=int(text.size), filled=n_filled, distinct=len(unique), share=share,
                   counts=(low, high), median_count=median, longest_outcomes=longest,
                   examples=examples, runs=runs, counting=counting)
