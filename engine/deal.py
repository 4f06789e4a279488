"""The drawing rules: card sequences into coups, compiled and looped over whole shoes.

One compiled kernel deals a shoe coup by coup (P, B, P, B, then the third-card rules);
``generate_coups`` fuses the seeded shuffle with the deal so a chunk of shoes never
exists as Python objects.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .cards import NO_CARD, VALUE_OF_CODE, full_deck_codes
from .coups import BANKER, PLAYER, TIE, Coups
from .errors import BaccaratError
from .jit import njit
from .rules import TableRules
from .shoe import shuffle_with

BURN_NONE, BURN_STANDARD, BURN_FIXED = 0, 1, 2
_BURN_CODES = {"none": BURN_NONE, "standard": BURN_STANDARD, "fixed": BURN_FIXED}

#: Status of a dealt shoe.
SHOE_OK, SHOE_SHORT = 0, 1


@njit(cache=True, inline="always")
def banker_draws(banker_total: int, player_third_value: int) -> bool:
    """Whether Banker draws, given its two-card total and Player's third card (-1: none)."""
    if player_third_value < 0:
        return banker_total <= 5
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return player_third_value != 8
    if banker_total == 4:
        return 2 <= player_third_value <= 7
    if banker_total == 5:
        return 4 <= player_third_value <= 7
    if banker_total == 6:
        return 6 <= player_third_value <= 7
    return False


# The two kernels every dealer calls have one explicit signature each: numba would also
# compile them for the literal 0 its callers start counting from, a second specialisation
# that costs seconds on a first run and is never used.
_ARRAY = "int8[::1]"
_OUT = f"int8[:, ::1], {_ARRAY}, {_ARRAY}, {_ARRAY}"  # out_cards, out_pt, out_bt, out_outcome


@njit(f"Tuple((int64, int64, boolean))({_ARRAY}, int64, int64, {_ARRAY}, int64, int64, int64, "
      f"{_OUT}, int64)", cache=True)
def _deal_run(cards, pos, n, values, cut_index, extra_coups, max_coups,
              out_cards, out_pt, out_bt, out_outcome, k):
    """Deal coups from ``cards[pos:n]`` into rows ``k, k + 1, ...`` by the drawing rules.

    The one implementation of the rules: every other dealer goes through it. Before each coup
    it stops if the card at ``cut_index`` has been drawn (after ``extra_coups`` more coups),
    after ``max_coups`` coups, or when the cards are used up. Returns (coups dealt, position
    after them, whether the cards ran out in the middle of a coup). The coup is dealt inline,
    writing its row directly: a call per coup that writes into arrays it is passed costs
    several times the dealing itself.
    """
    dealt = 0
    while dealt < max_coups:
        if pos > cut_index:  # the cut card came out during the previous coup
            if extra_coups == 0:
                break
            extra_coups -= 1
        if pos >= n:
            break
        if pos + 4 > n:
            return dealt, pos, True
        p1, b1, p2, b2 = cards[pos], cards[pos + 1], cards[pos + 2], cards[pos + 3]
        at = pos + 4
        pt = (values[p1] + values[p2]) % 10
        bt = (values[b1] + values[b2]) % 10
        p3 = NO_CARD
        b3 = NO_CARD
        if pt < 8 and bt < 8:  # no natural
            third_value = -1
            if pt <= 5:
                if at >= n:
                    return dealt, pos, True
                p3 = cards[at]
                at += 1
                third_value = values[p3]
                pt = (pt + third_value) % 10
            if banker_draws(bt, third_value):
                if at >= n:
                    return dealt, pos, True
                b3 = cards[at]
                at += 1
                bt = (bt + values[b3]) % 10
        out_cards[k, 0] = p1
        out_cards[k, 1] = p2
        out_cards[k, 2] = p3
        out_cards[k, 3] = b1
        out_cards[k, 4] = b2
        out_cards[k, 5] = b3
        out_pt[k] = pt
        out_bt[k] = bt
        out_outcome[k] = BANKER if bt > pt else (PLAYER if pt > bt else TIE)
        k += 1
        dealt += 1
        pos = at
    return dealt, pos, False


@njit(cache=True)
def _deal_coup(cards, pos, n, values, out_cards, out_pt, out_bt, out_outcome, k):
    """Deal one coup from ``cards[pos:n]`` into row ``k``; returns the new position or -1."""
    dealt, new_pos, _ = _deal_run(cards, pos, n, values, n, 0, 1,
                                  out_cards, out_pt, out_bt, out_outcome, k)
    return new_pos if dealt == 1 else -1


@njit(cache=True)
def _burn_length(cards, n, values, burn_mode, burn_count):
    """How many cards the burn takes from the top of the shoe."""
    if burn_mode == BURN_STANDARD:
        shown = values[cards[0]]
        return 1 + (10 if shown == 0 else shown)
    if burn_mode == BURN_FIXED:
        return burn_count
    return 0


@njit(f"UniTuple(int64, 2)({_ARRAY}, int64, {_ARRAY}, int64, int64, int64, boolean, {_OUT}, "
      "int64)", cache=True)
def _deal_shoe(cards, n, values, burn_mode, burn_count, cut_from_end, extra_coup,
               out_cards, out_pt, out_bt, out_outcome, k):
    """Deal one shoe into rows from ``k``; returns (rows written, status).

    ``cut_from_end`` < 0 means no cut card: deal until the cards run out.
    """
    pos = _burn_length(cards, n, values, burn_mode, burn_count)
    cut_index = n - cut_from_end if cut_from_end >= 0 else n + 1
    dealt, _, short = _deal_run(cards, pos, n, values, cut_index, 1 if extra_coup else 0, n,
                                out_cards, out_pt, out_bt, out_outcome, k)
    return dealt, (SHOE_SHORT if short and cut_from_end < 0 else SHOE_OK)


def max_coups_per_shoe(n_cards: int) -> int:
    """An upper bound on the coups one shoe of ``n_cards`` can give (four cards a coup)."""
    return n_cards // 4 + 1


@njit(cache=True)
def _generate_kernel(template, seed, shoe_ids, values, burn_mode, burn_count, cut_from_end,
                     extra_coup, out_cards, out_pt, out_bt, out_outcome, out_shoe, out_coup,
                     out_burn_shown, out_counts):
    n = template.shape[0]
    buf = np.empty(n, dtype=np.int8)
    scratch = np.empty(n, dtype=np.uint64)
    k = 0
    for s in range(shoe_ids.shape[0]):
        shuffle_with(template, buf, seed, np.uint64(shoe_ids[s]), scratch)
        out_burn_shown[s] = buf[0] if burn_mode == BURN_STANDARD else NO_CARD
        dealt, _ = _deal_shoe(buf, n, values, burn_mode, burn_count, cut_from_end, extra_coup,
                              out_cards, out_pt, out_bt, out_outcome, k)
        for j in range(dealt):
            out_shoe[k + j] = shoe_ids[s]
            out_coup[k + j] = j + 1
        out_counts[s] = dealt
        k += dealt
    return k


def _allocate(rows: int) -> tuple[np.ndarray, ...]:
    return (
        np.empty((rows, 6), dtype=np.int8),
        np.empty(rows, dtype=np.int8),
        np.empty(rows, dtype=np.int8),
        np.empty(rows, dtype=np.int8),
        np.empty(rows, dtype=np.int64),
        np.empty(rows, dtype=np.int16),
    )


def _trim(columns: tuple[np.ndarray, ...], rows: int) -> tuple[np.ndarray, ...]:
    """The first ``rows`` rows of columns from ``_allocate``, as views rather than copies.

    The columns are allocated for the most coups the shoes could give (about a quarter more
    than they do give). Copying out the rows dealt costs a pass over the chunk and, while
    both exist, memory for two; shrinking in place (``ndarray.resize``) fragments the heap
    so that peak memory creeps up with the number of chunks. A view keeps the unused tail
    until the chunk is dropped, which costs less than either.
    """
    return tuple(column[:rows] for column in columns)


def generate_coups(rules: TableRules, seed: int, shoe_ids: np.ndarray, *,
                   deal_to_end: bool = False) -> Coups:
    """Shuffle and deal the generated shoes ``shoe_ids`` under ``rules`` into coups.

    ``deal_to_end`` ignores the cut card and deals every whole coup the cards hold (the
    analysis takes each reference shoe's first coups up to an observed shoe's length).
    """
    ids = np.ascontiguousarray(shoe_ids, dtype=np.int64)
    if ids.size and ids.min() < 0:
        raise ValueError("shoe ids must be non-negative")
    template = full_deck_codes(rules.decks)
    columns = _allocate(ids.size * max_coups_per_shoe(template.size))
    cards, pt, bt, outcome, shoe, coup = columns
    burn_shown = np.empty(ids.size, dtype=np.int8)
    counts = np.empty(ids.size, dtype=np.int64)
    rows = _generate_kernel(
        template, np.uint64(seed), ids, VALUE_OF_CODE, _BURN_CODES[rules.burn], rules.burn_count,
        -1 if deal_to_end else rules.cut_card, rules.extra_coup_after_cut, cards, pt, bt,
        outcome, shoe, coup, burn_shown, counts,
    )
    cards, pt, bt, outcome, shoe, coup = _trim(columns, rows)
    return Coups(
        shoe=shoe, coup=coup, cards=cards, player_total=pt, banker_total=bt, outcome=outcome,
        burn_shown=np.repeat(burn_shown, counts),
    )


@njit(cache=True)
def _deal_sequences_kernel(cards, lengths, values, burn_mode, burn_count, cut_from_end, extra,
                           out_cards, out_pt, out_bt, out_outcome, out_shoe, out_coup,
                           out_status):
    k = 0
    for s in range(cards.shape[0]):
        dealt, status = _deal_shoe(cards[s], lengths[s], values, burn_mode, burn_count,
                                   cut_from_end, extra, out_cards, out_pt, out_bt, out_outcome, k)
        for j in range(dealt):
            out_shoe[k + j] = s
            out_coup[k + j] = j + 1
        out_status[s] = status
        k += dealt
    return k


class DealError(BaccaratError):
    """A card sequence that cannot be dealt into whole coups."""


def deal_sequences(
    sequences: list[np.ndarray],
    rules: TableRules,
    *,
    use_cut_card: bool = False,
) -> tuple[Coups, np.ndarray]:
    """Deal recorded card sequences (one per shoe, in dealing order) into coups.

    The shoe column holds each sequence's index. Without ``use_cut_card`` every card is
    dealt; a sequence that ends in the middle of a coup gets status ``SHOE_SHORT``.
    Returns the coups and the per-sequence status.
    """
    lengths = np.array([len(s) for s in sequences], dtype=np.int64)
    width = int(lengths.max()) if lengths.size else 0
    cards = np.full((len(sequences), max(width, 1)), NO_CARD, dtype=np.int8)
    for i, seq in enumerate(sequences):
        cards[i, : len(seq)] = seq
    columns = _allocate(max(int(sum(max_coups_per_shoe(int(n)) for n in lengths)), 1))
    out_cards, pt, bt, outcome, shoe, coup = columns
    status = np.zeros(len(sequences), dtype=np.int8)
    rows = _deal_sequences_kernel(
        cards, lengths, VALUE_OF_CODE, _BURN_CODES[rules.burn], rules.burn_count,
        rules.cut_card if use_cut_card else -1, rules.extra_coup_after_cut,
        out_cards, pt, bt, outcome, shoe, coup, status,
    )
    out_cards, pt, bt, outcome, shoe, coup = _trim(columns, rows)
    burn_shown = cards[:, 0] if rules.burn == "standard" else np.full(len(sequences), NO_CARD)
    coups = Coups(
        shoe=shoe, coup=coup, cards=out_cards, player_total=pt, banker_total=bt,
        outcome=outcome, burn_shown=burn_shown[shoe].astype(np.int8),
    )
    return coups, status


def deal_one(cards: list[int] | np.ndarray) -> tuple[list[int], list[int], int, int, int]:
    """Deal a single coup from the top of ``cards`` (codes): (player, banker, pt, bt, outcome).

    A convenience for tests, examples and checking recorded hands.
    """
    seq = np.asarray(cards, dtype=np.int8)
    out_cards, pt, bt, outcome, _, _ = _allocate(1)
    if _deal_coup(seq, 0, seq.size, VALUE_OF_CODE, out_cards, pt, bt, outcome, 0) < 0:
        raise DealError(f"{seq.size} cards are not enough for this coup")
    row = [int(c) for c in out_cards[0]]
    player = [c for c in row[:3] if c >= 0]
    banker = [c for c in row[3:] if c >= 0]
    return player, banker, int(pt[0]), int(bt[0]), int(outcome[0])


def iter_generated(
    rules: TableRules, seed: int, shoes: int, chunk_shoes: int = 50_000, first_shoe: int = 0
) -> Iterator[Coups]:
    """Generated coups for shoe ids ``first_shoe .. first_shoe + shoes - 1``, chunk by chunk.

    Memory is bounded by the chunk size, whatever the number of shoes.
    """
    for start in range(first_shoe, first_shoe + shoes, chunk_shoes):
        stop = min(start + chunk_shoes, first_shoe + shoes)
        coups = generate_coups(rules, seed, np.arange(start, stop, dtype=np.int64))
        coups.decks = rules.decks
        yield coups
