"""The coups table: one row per coup, the hub every source lands in.

In memory a ``Coups`` holds plain numpy columns (cards as codes, outcome as 0/1/2);
on disk the cards and the outcome are dictionary-encoded strings ("AS", "B"), so a file
reads naturally in pandas or DuckDB and stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from .cards import LABEL_OF_CODE, N_CODES, NO_CARD

if TYPE_CHECKING:  # pyarrow is imported by the storage conversions only (it is slow to load)
    import pandas as pd
    import pyarrow as pa

BANKER, PLAYER, TIE = 0, 1, 2
OUTCOME_LABELS = ("B", "P", "T")
CARD_COLUMNS = ("player_card1", "player_card2", "player_card3",
                "banker_card1", "banker_card2", "banker_card3")



@cache
def _dictionary(labels: tuple[str, ...]) -> pa.Array:
    """The string dictionary of a dictionary-encoded column (built once per label set)."""
    import pyarrow as pa

    return pa.array(labels, type=pa.string())


@dataclass
class Coups:
    """Columns of a coups table, grouped by shoe and ordered by coup within each shoe.

    ``cards`` has shape (rows, 6): player 1-3 then banker 1-3, ``NO_CARD`` where absent
    (every card absent for outcome-only sources). ``burn_shown`` is the burn card shown
    face up at the start of the row's shoe, ``NO_CARD`` if none. ``label`` keeps a recorded
    source's own shoe labels; ``valid`` is False for recorded coups kept despite a problem.
    ``recorded_coup`` is the coup number a recorded source gave (-1: none), and
    ``after_gap`` marks a coup whose recorded number skips one or more (imports only).
    ``coup`` is stored as int32: shoes are refused long before it could wrap.
    """

    shoe: np.ndarray
    coup: np.ndarray
    cards: np.ndarray
    player_total: np.ndarray
    banker_total: np.ndarray
    outcome: np.ndarray
    burn_shown: np.ndarray
    label: np.ndarray | None = None
    valid: np.ndarray | None = None
    decks: int | None = field(default=None)
    recorded_coup: np.ndarray | None = None
    after_gap: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.shoe.shape[0])

    @property
    def has_cards(self) -> bool:
        """Whether the source recorded the cards (not just the outcomes)."""
        return bool(len(self)) and bool((self.cards[:, 0] >= 0).all())

    @property
    def has_totals(self) -> bool:
        """Whether the hand totals are known (cards or recorded totals)."""
        return bool(len(self)) and bool((self.player_total >= 0).all())

    def __repr__(self) -> str:
        return f"Coups({self.describe()})"

    def describe(self) -> str:
        """One line: how many coups and shoes, the decks, cards or outcomes only."""
        shoes = int(np.count_nonzero(np.r_[True, self.shoe[1:] != self.shoe[:-1]])) \
            if len(self) else 0
        decks = f", {self.decks} decks" if self.decks else ""
        kind = "with cards" if self.has_cards else "outcomes only"
        flagged = (f", {int(np.count_nonzero(~self.valid)):,} flagged invalid"
                   if self.valid is not None and not self.valid.all() else "")
        return f"{len(self):,} coups in {shoes:,} shoes{decks}, {kind}{flagged}"

    def to_pandas(self) -> pd.DataFrame:
        """The table as a DataFrame with the columns of a coups Parquet file (``shoe``,
        ``coup``, the six card columns, the totals, ``outcome``, ...)."""
        return self.to_arrow().to_pandas()

    def _repr_html_(self) -> str:
        import html

        head = self.take(slice(0, 10)).to_pandas()
        return (f"<div><p><b>Coups</b>: {html.escape(self.describe())}</p>"
                f"{head.to_html(index=False)}"
                f"{'<p>...</p>' if len(self) > 10 else ''}</div>")

    def shoe_ids(self) -> np.ndarray:
        """The distinct shoe ids in table order."""
        if not len(self):
            return np.empty(0, dtype=np.int64)
        starts = np.flatnonzero(np.r_[True, self.shoe[1:] != self.shoe[:-1]])
        return self.shoe[starts]

    def take(self, rows: np.ndarray | slice) -> Coups:
        """The coups at ``rows`` (an index array, mask or slice)."""
        def pick(column: np.ndarray | None) -> np.ndarray | None:
            return None if column is None else column[rows]
        return replace(
            self, shoe=self.shoe[rows], coup=self.coup[rows], cards=self.cards[rows],
            player_total=self.player_total[rows], banker_total=self.banker_total[rows],
            outcome=self.outcome[rows], burn_shown=self.burn_shown[rows],
            label=pick(self.label), valid=pick(self.valid),
            recorded_coup=pick(self.recorded_coup), after_gap=pick(self.after_gap),
        )

    @staticmethod
    def concat(parts: list[Coups]) -> Coups:
        """One table from several, in order."""
        if not parts:
            return empty_coups()
        def cat(name: str) -> np.ndarray | None:
            columns = [getattr(p, name) for p in parts]
            if all(c is None for c in columns):
                return None
            return np.concatenate([c for c in columns if c is not None])
        return Coups(
            shoe=np.concatenate([p.shoe for p in parts]),
            coup=np.concatenate([p.coup for p in parts]),
            cards=np.concatenate([p.cards for p in parts]),
            player_total=np.concatenate([p.player_total for p in parts]),
            banker_total=np.concatenate([p.banker_total for p in parts]),
            outcome=np.concatenate([p.outcome for p in parts]),
            burn_shown=np.concatenate([p.burn_shown for p in parts]),
            label=cat("label"), valid=cat("valid"), decks=parts[0].decks,
            recorded_coup=cat("recorded_coup"), after_gap=cat("after_gap"),
        )

    def to_arrow(self) -> pa.Table:
        """The table in its storage form (see ``COUPS_SCHEMA``)."""
        import pyarrow as pa

        columns: dict[str, pa.Array] = {
            "shoe": pa.array(self.shoe, type=pa.int64()),
            "coup": pa.array(self.coup.astype(np.int32), type=pa.int32()),
        }
        for i, name in enumerate(CARD_COLUMNS):
            columns[name] = _codes_to_dictionary(self.cards[:, i])
        columns["player_total"] = _nullable_int8(self.player_total)
        columns["banker_total"] = _nullable_int8(self.banker_total)
        columns["outcome"] = pa.DictionaryArray.from_arrays(
            pa.array(self.outcome, type=pa.int8()), _dictionary(OUTCOME_LABELS)
        )
        columns["burn_shown"] = _codes_to_dictionary(self.burn_shown)
        if self.label is not None:
            columns["label"] = pa.array(self.label.astype(str), type=pa.string())
        if self.valid is not None:
            columns["valid"] = pa.array(self.valid, type=pa.bool_())
        if self.recorded_coup is not None:
            missing = self.recorded_coup < 0
            columns["recorded_coup"] = pa.array(
                np.where(missing, 0, self.recorded_coup).astype(np.int32), mask=missing,
                type=pa.int32())
        if self.after_gap is not None:
            columns["after_gap"] = pa.array(self.after_gap, type=pa.bool_())
        return pa.table(columns)

    @staticmethod
    def from_arrow(table: pa.Table) -> Coups:
        """Read a table in storage form back into columns."""
        names = set(table.column_names)
        cards = np.stack([_dictionary_to_codes(table.column(c)) for c in CARD_COLUMNS], axis=1)
        outcome = _labels_to_index(table.column("outcome"), OUTCOME_LABELS)
        burn = (_dictionary_to_codes(table.column("burn_shown")) if "burn_shown" in names
                else np.full(table.num_rows, NO_CARD, dtype=np.int8))
        return Coups(
            shoe=table.column("shoe").to_numpy().astype(np.int64, copy=False),
            coup=table.column("coup").to_numpy().astype(np.int32, copy=False),
            cards=cards,
            player_total=_int8_with_missing(table.column("player_total")),
            banker_total=_int8_with_missing(table.column("banker_total")),
            outcome=outcome,
            burn_shown=burn,
            label=(np.asarray(table.column("label").to_pylist(), dtype=object)
                   if "label" in names else None),
            valid=(table.column("valid").to_numpy(zero_copy_only=False).astype(bool)
                   if "valid" in names else None),
            recorded_coup=(table.column("recorded_coup").fill_null(-1).to_numpy()
                           .astype(np.int64) if "recorded_coup" in names else None),
            after_gap=(table.column("after_gap").to_numpy(zero_copy_only=False).astype(bool)
                       if "after_gap" in names else None),
        )


def empty_coups() -> Coups:
    """A coups table with no rows."""
    return Coups(
        shoe=np.empty(0, np.int64), coup=np.empty(0, np.int32),
        cards=np.empty((0, 6), np.int8), player_total=np.empty(0, np.int8),
        banker_total=np.empty(0, np.int8), outcome=np.empty(0, np.int8),
        burn_shown=np.empty(0, np.int8),
    )


def _codes_to_dictionary(codes: np.ndarray) -> pa.DictionaryArray:
    import pyarrow as pa

    missing = codes < 0
    indices = pa.array(np.where(missing, 0, codes).astype(np.int8), mask=missing,
                       type=pa.int8())
    return pa.DictionaryArray.from_arrays(indices, _dictionary(LABEL_OF_CODE))


def _labels_to_index(column: pa.ChunkedArray, labels: tuple[str, ...]) -> np.ndarray:
    import pyarrow as pa

    lookup = {label: i for i, label in enumerate(labels)}
    values = column.combine_chunks()
    if pa.types.is_dictionary(values.type):
        dictionary = values.dictionary.to_pylist()
        remap = np.array([lookup.get(v, -1) if v is not None else -1 for v in dictionary]
                         + [-1], dtype=np.int8)
        idx = values.indices.fill_null(0).to_numpy().astype(np.int64)  # int64: room for the
        if values.null_count:                                          # null marker below
            idx[values.is_null().to_numpy(zero_copy_only=False)] = len(dictionary)
        return remap[idx]
    return np.array([lookup.get(v, -1) for v in values.to_pylist()], dtype=np.int8)


def _dictionary_to_codes(column: pa.ChunkedArray) -> np.ndarray:
    return _labels_to_index(column, LABEL_OF_CODE)


def _nullable_int8(values: np.ndarray) -> pa.Array:
    import pyarrow as pa

    missing = values < 0
    return pa.array(np.where(missing, 0, values).astype(np.int8), mask=missing, type=pa.int8())


def _int8_with_missing(column: pa.ChunkedArray) -> np.ndarray:
    return column.fill_null(-1).to_numpy().astype(np.int8, copy=False)


assert len(LABEL_OF_CODE) == N_CODES


def coups_from_outcomes(shoes: list[str]) -> Coups:
    """An outcome-only coups table from letter strings, one per shoe (e.g. ["BPPTB", "PPB"]).

    Handy for tests, examples and notebooks; recorded files go through the importers.
    """
    lookup = {letter: i for i, letter in enumerate(OUTCOME_LABELS)}
    outcome = []
    shoe = []
    coup = []
    for s, letters in enumerate(shoes):
        for c, letter in enumerate(letters.upper()):
            if letter not in lookup:
                raise ValueError(f"shoe {s}: {letter!r} at position {c + 1} is not B, P or T")
            outcome.append(lookup[letter])
            shoe.append(s)
            coup.append(c + 1)
    n = len(outcome)
    return Coups(
        shoe=np.array(shoe, dtype=np.int64), coup=np.array(coup, dtype=np.int32),
        cards=np.full((n, 6), NO_CARD, dtype=np.int8),
        player_total=np.full(n, -1, dtype=np.int8), banker_total=np.full(n, -1, dtype=np.int8),
        outcome=np.array(outcome, dtype=np.int8), burn_shown=np.full(n, NO_CARD, dtype=np.int8),
    )
