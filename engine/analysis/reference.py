"""Reference datasets: the same shape as the observed one, dealt from fairly shuffled shoes.

Reference dataset ``b`` holds one fair shoe for every observed shoe ``i`` (generated shoe
id ``b * shoes + i`` under the reference seed, by the fast generator of
:mod:`baccarat.deal`). An observed shoe as long as the rules' shoes are (dealt
to the cut card) gets reference shoes dealt to the cut card too, so that the cards left
behind it are alike; a shorter one (stopped early) gets reference shoes cut to its number
of coups from shoes dealt to the end of their cards. Either way the reference carries the
finite shoe's weak dependence between coups and the observed shoe lengths; its
``natural_length`` is how many coups the rules' cut card gives, the reference for the
coups-per-shoe statistic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from ..cards import VALUE_OF_CODE
from ..coups import Coups
from ..deal import generate_coups
from ..rules import TableRules
from .frame import CardView, ShoeFrame, table_links

#: Reference shoes dealt per batch (bounds memory: about 100 bytes a coup).
BATCH_SHOES = 20_000
#: A batch is measured in frames of at most 1/MIN_FRAMES of the datasets, so a progress
#: bar of datasets moves as they are measured (a small dataset's 100 references fit one
#: batch: the bar sat at 0/100 until the end).
MIN_FRAMES = 20


def natural_lengths(cards: np.ndarray, counts: np.ndarray, burn_shown: np.ndarray,
                    rules: TableRules) -> np.ndarray:
    """Coups each fully dealt shoe would have held under the rules' cut card.

    ``cards`` are the coups of shoes dealt to the end, ``counts`` the coups per shoe and
    ``burn_shown`` each shoe's shown burn card. The dealer stops before a coup once the card
    ``cut_card`` from the end has come out (after one more coup with
    ``extra_coup_after_cut``): the same rule as :func:`baccarat.deal._deal_run`.
    """
    used = 4 + (cards[:, 2] >= 0).astype(np.int64) + (cards[:, 5] >= 0)
    ends = np.cumsum(used)
    first = first_rows(counts)
    offset = np.where(first > 0, ends[np.maximum(first - 1, 0)], 0)
    if rules.burn == "standard":
        value = VALUE_OF_CODE[np.maximum(burn_shown, 0)].astype(np.int64)
        burn = 1 + np.where(value == 0, 10, value)
    elif rules.burn == "fixed":
        burn = np.full(counts.size, rules.burn_count, dtype=np.int64)
    else:
        burn = np.zeros(counts.size, dtype=np.int64)
    cut_index = rules.cards_in_shoe - rules.cut_card
    shoe_of_coup = np.repeat(np.arange(counts.size), counts)
    # Position of the first card of each coup, counted from the top of its shoe.
    start = ends - used - np.repeat(offset - burn, counts)
    before_cut = np.bincount(shoe_of_coup[start <= cut_index], minlength=counts.size)
    extra = 1 if rules.extra_coup_after_cut else 0
    return np.minimum(before_cut + extra, counts)


def shortest_shoe(natural: np.ndarray) -> int:
    """The fewest coups a shoe dealt to the cut card had, among a batch of fair shoes.

    An observed shoe at least this long is taken to have been dealt to the cut card, and
    its reference shoes are too; a shorter one was stopped early (a partial recording), and
    its reference shoes are cut to its coups. Over a first batch of thousands of fair shoes,
    a fair shoe is shorter than all of them only rarely.
    """
    return int(natural.min()) if natural.size else 0


def first_rows(counts: np.ndarray) -> np.ndarray:
    """The first row of each shoe in a table of ``counts`` rows per shoe."""
    return np.r_[0, np.cumsum(counts)[:-1]].astype(np.int64)


def reference_coups(rules: TableRules, lengths: np.ndarray, first: int, count: int,
                    seed: int, complete: np.ndarray | None = None,
                    ) -> tuple[Coups, np.ndarray, np.ndarray]:
    """The coups of reference datasets ``first`` to ``first + count - 1`` shaped like
    ``lengths`` (dataset ``b``'s shoe ``i`` has id ``b * shoes + i``), with each shoe's
    natural length and which observed shoes count as dealt to the cut card (``complete``,
    decided on this batch when not given).

    A shoe dealt to the cut card is the generator's shoe as ``generate`` deals it; a
    shorter one is cut to its coups from a shoe dealt to the end of its cards.
    """
    shoes = int(lengths.size)
    ids = np.arange(first * shoes, (first + count) * shoes, dtype=np.int64)
    coups = generate_coups(rules, seed, ids, deal_to_end=True)
    counts = np.bincount(coups.shoe - ids[0], minlength=ids.size)
    first_row = first_rows(counts)
    natural = natural_lengths(coups.cards, counts, coups.burn_shown[first_row], rules)
    if complete is None:
        complete = lengths >= shortest_shoe(natural)
    wanted = np.where(np.tile(complete, count), natural, np.tile(lengths, count))
    position = np.arange(len(coups)) - np.repeat(first_row, counts)
    cut = coups.take(position < np.repeat(wanted, counts))
    cut.decks = rules.decks
    return cut, natural, complete


def reference_frames(
    rules: TableRules,
    lengths: np.ndarray,
    n_reference: int,
    seed: int,
    *,
    with_cards: bool,
    view: CardView,
    table_shoes: int | None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[ShoeFrame]:
    """Frames of ``n_reference`` fair datasets shaped like ``lengths``: dealt a batch at a
    time, each batch yielded in frames of a few datasets (``progress(datasets)`` after
    each). The datasets and every statistic of them are the same whatever the frames."""
    shoes = int(lengths.size)
    complete: np.ndarray | None = None
    shortest: int | None = None
    per_batch = max(1, BATCH_SHOES // max(shoes, 1))
    per_frame = max(1, min(per_batch, -(-n_reference // MIN_FRAMES)))
    for first in range(0, n_reference, per_batch):
        count = min(per_batch, n_reference - first)
        coups, natural, complete = reference_coups(rules, lengths, first, count, seed,
                                                   complete)
        if shortest is None:
            shortest = shortest_shoe(natural)
        shoe = coups.shoe - first * shoes
        for start in range(0, count, per_frame):
            n = min(per_frame, count - start)
            low, high = start * shoes, (start + n) * shoes
            rows = slice(*np.searchsorted(shoe, [low, high]))  # coups are in shoe order
            yield ShoeFrame(
                outcome=coups.outcome[rows], shoe=shoe[rows] - low, n_datasets=n,
                shoes_per_dataset=shoes, natural_length=natural[low:high],
                next_shoe=table_links(shoes, n, table_shoes),
                cards=view.apply(coups.cards[rows]) if with_cards else None,
                shortest=shortest,
            )
            if progress is not None:
                progress(n)
