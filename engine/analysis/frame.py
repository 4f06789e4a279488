"""Shoes laid end to end as flat arrays: what every statistic of the analysis reads.

One ``ShoeFrame`` holds one dataset (the observed one) or a batch of reference datasets of
the same shape, one after another: shoe ``s`` belongs to dataset ``s // shoes_per_dataset``.
Statistics are computed with numpy across all the shoes at once and reduced per dataset, so
a thousand reference datasets cost a few array passes, not a thousand Python loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import NO_CARD, UNKNOWN_SUIT
from ..coups import Coups

#: Columns of ``Coups.cards`` in the order the dealer draws them: P1, B1, P2, B2, P3, B3.
DEALING_ORDER = (0, 3, 1, 4, 2, 5)


@dataclass(frozen=True)
class CardView:
    """How a source recorded its cards, so that fair reference cards can be recorded alike.

    A source without suits stores every card with the unknown suit; one that writes a
    zero-valued card as "0" loses the rank of 10/J/Q/K. Reference shoes are dealt with
    full cards and then seen through the same view, so a statistic that looks at codes
    (pairs, carry-over) compares like with like.
    """

    suits: bool = True
    ranks: bool = True

    @staticmethod
    def of(cards: np.ndarray) -> CardView:
        """The view of recorded card codes (absent cards ignored)."""
        present = cards[cards >= 0]
        return CardView(suits=bool((present % 5 != UNKNOWN_SUIT).all()),
                        ranks=bool((present // 5 != 0).all()))

    def apply(self, cards: np.ndarray) -> np.ndarray:
        """Full card codes as this source would have recorded them."""
        if self.suits and self.ranks:
            return cards
        rank = cards // 5
        suit = cards % 5
        if not self.ranks:
            rank = np.where(rank >= 10, 0, rank)
        if not self.suits:
            suit = np.full_like(suit, UNKNOWN_SUIT)
        return np.where(cards >= 0, rank * 5 + suit, NO_CARD).astype(np.int8)


@dataclass
class ShoeFrame:
    """Coups of ``n_datasets * shoes_per_dataset`` shoes, grouped by shoe, as flat columns.

    ``shoe`` numbers the shoes 0, 1, ... in order (one value per coup); ``natural_length``
    is how many coups each shoe holds under the rules' cut card (for the observed dataset,
    the coups recorded); ``next_shoe`` is the index of the following shoe at the same table,
    -1 when it is not known or there is none; ``cards`` is None for outcome-only data.
    """

    outcome: np.ndarray
    shoe: np.ndarray
    n_datasets: int
    shoes_per_dataset: int
    natural_length: np.ndarray
    next_shoe: np.ndarray
    cards: np.ndarray | None = None
    #: Of reference frames: the fewest coups of a shoe of the first batch dealt, the
    #: threshold below which an observed shoe counts as partial (``shortest_shoe``).
    shortest: int | None = None

    @property
    def n_shoes(self) -> int:
        """Shoes in the frame, all datasets together."""
        return self.n_datasets * self.shoes_per_dataset

    @property
    def lengths(self) -> np.ndarray:
        """Coups per shoe in the frame."""
        return np.bincount(self.shoe, minlength=self.n_shoes)

    def dataset_of_shoe(self, shoe: np.ndarray) -> np.ndarray:
        """The dataset each of ``shoe`` (indices) belongs to."""
        return np.asarray(shoe) // self.shoes_per_dataset

    def per_dataset(self, shoe: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Sum of ``weights`` (1 each by default) over items whose shoe is ``shoe``, by dataset."""
        per_shoe = np.bincount(shoe, weights=weights, minlength=self.n_shoes)
        return self.shoe_sums(per_shoe.astype(np.float64, copy=False))

    def shoe_sums(self, per_shoe: np.ndarray) -> np.ndarray:
        """A per-shoe array summed within each dataset."""
        return per_shoe.reshape(self.n_datasets, self.shoes_per_dataset).sum(axis=1)


def frame_of_coups(coups: Coups, table_shoes: int | None = None) -> ShoeFrame:
    """The observed dataset as a one-dataset frame (shoes renumbered in table order).

    ``table_shoes`` groups consecutive shoes into tables of that many shoes (dealt one
    after the other from the same cards); None when the tables are not known.
    """
    starts = np.flatnonzero(np.r_[True, coups.shoe[1:] != coups.shoe[:-1]])
    lengths = np.diff(np.r_[starts, len(coups)])
    shoe = np.repeat(np.arange(starts.size, dtype=np.int64), lengths)
    n = int(starts.size)
    return ShoeFrame(
        outcome=coups.outcome.astype(np.int8, copy=False), shoe=shoe, n_datasets=1,
        shoes_per_dataset=n, natural_length=lengths.astype(np.int64),
        next_shoe=table_links(n, 1, table_shoes),
        cards=coups.cards if coups.has_cards else None,
    )


def table_links(shoes_per_dataset: int, n_datasets: int, table_shoes: int | None) -> np.ndarray:
    """``next_shoe`` for datasets whose shoes come in tables of ``table_shoes`` in a row."""
    n = shoes_per_dataset * n_datasets
    links = np.full(n, -1, dtype=np.int64)
    if not table_shoes or table_shoes < 2:
        return links
    local = np.arange(n) % shoes_per_dataset
    has_next = ((local + 1) % table_shoes != 0) & (local + 1 < shoes_per_dataset)
    links[has_next] = np.flatnonzero(has_next) + 1
    return links


def dealt_sequence(frame: ShoeFrame) -> tuple[np.ndarray, np.ndarray]:
    """Every card in the order it was dealt, and its shoe: (codes, shoe) flat arrays."""
    assert frame.cards is not None
    codes = frame.cards[:, DEALING_ORDER].ravel()
    shoe = np.repeat(frame.shoe, len(DEALING_ORDER))
    keep = codes >= 0
    return codes[keep], shoe[keep]
