"""A coup's cards recorded as one list ("3,0,8,5,9"): split into the two hands.

Recorders write the cards of a coup either in dealing order (P, B, P, B, then the third
cards) or hand by hand (the player's, then the banker's), with no separator between the
hands. Each way of splitting is tried on every coup and kept only where the drawing rules
deal those hands and the recorded totals and winner agree (``checks.check_coups``). The
recorder's way is the one the coups that only one way fits agree on; a coup that fits
more than one split (or none) is an invalid coup, reported with its cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...cards import LABEL_OF_CODE, NO_CARD
from .checks import OK, check_coups

#: The two ways a coup's cards are written in one list.
DEALT, HANDS = "dealing order (P, B, P, B, then third cards)", "hand by hand (player, banker)"
_NO_COUNT = 1_000_000  # decks for the split's check: card counts are checked later, per shoe


def _layouts(lists: np.ndarray, counts: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Every candidate split of each coup, as (way, (n, 6) cards laid out like
    ``Coups.cards``); a split that does not apply to a coup's number of cards is all
    NO_CARD for that coup."""
    n = lists.shape[0]
    out: list[tuple[str, np.ndarray]] = []
    c = [lists[:, j] for j in range(6)]
    none = np.full(n, NO_CARD, dtype=np.int8)

    def layout(mask: np.ndarray, columns: list[np.ndarray]) -> np.ndarray:
        cards = np.full((n, 6), NO_CARD, dtype=np.int8)
        cards[mask] = np.stack(columns, axis=1)[mask]
        return cards

    four, five, six = counts == 4, counts == 5, counts == 6
    dealt = layout(four, [c[0], c[2], none, c[1], c[3], none])
    dealt[six] = np.stack([c[0], c[2], c[4], c[1], c[3], c[5]], axis=1)[six]
    dealt_player_third = dealt.copy()
    dealt_player_third[five] = np.stack([c[0], c[2], c[4], c[1], c[3], none], axis=1)[five]
    dealt_banker_third = layout(five, [c[0], c[2], none, c[1], c[3], c[4]])
    out += [(DEALT, dealt_player_third), (DEALT, dealt_banker_third)]
    hands = layout(four, [c[0], c[1], none, c[2], c[3], none])
    hands[six] = np.stack([c[0], c[1], c[2], c[3], c[4], c[5]], axis=1)[six]
    hands_player_third = hands.copy()
    hands_player_third[five] = np.stack([c[0], c[1], c[2], c[3], c[4], none], axis=1)[five]
    hands_banker_third = layout(five, [c[0], c[1], none, c[2], c[3], c[4]])
    out += [(HANDS, hands_player_third), (HANDS, hands_banker_third)]
    return out


@dataclass
class Split:
    """The coups' cards split into hands, the way the file writes them (None: no coup
    told), and per coup what was wrong (row -> text) where no one split fits."""

    cards: np.ndarray
    way: str | None
    problems: dict[int, str]


def _spell(cards: np.ndarray) -> str:
    player = "-".join(LABEL_OF_CODE[c] for c in cards[:3] if c >= 0)
    banker = "-".join(LABEL_OF_CODE[c] for c in cards[3:] if c >= 0)
    return f"player {player}, banker {banker}"


def split_coup_cards(lists: np.ndarray, counts: np.ndarray, player_total: np.ndarray,
                     banker_total: np.ndarray, outcome: np.ndarray) -> Split:
    """Split each coup's list of cards (``lists``: (n, 6) codes in recorded order,
    ``counts`` how many each holds) into the player's and the banker's hands."""
    n = lists.shape[0]
    candidates = _layouts(lists, counts)
    stacked = np.concatenate([cards for _, cards in candidates])
    reps = len(candidates)
    check = check_coups(stacked, np.zeros(n * reps, dtype=np.int64), np.tile(player_total, reps),
                        np.tile(banker_total, reps), np.tile(outcome, reps), _NO_COUNT)
    usable = ((check.kind == OK) & (stacked >= 0).any(axis=1)).reshape(reps, n)
    ways = np.array([way for way, _ in candidates], dtype=object)
    dealt_fits = usable[ways == DEALT].any(axis=0)
    hands_fits = usable[ways == HANDS].any(axis=0)
    dealt_votes = int((dealt_fits & ~hands_fits).sum())
    hands_votes = int((hands_fits & ~dealt_fits).sum())
    way = None
    if dealt_votes and not hands_votes:
        way = DEALT
    elif hands_votes and not dealt_votes:
        way = HANDS
    chosen = usable
    if way is not None:
        theirs = usable & (ways == way)[:, None]
        chosen = np.where(theirs.any(axis=0)[None, :], theirs, usable)
    layouts = np.stack([cards for _, cards in candidates])  # (reps, n, 6)
    first = np.argmax(chosen, axis=0)
    cards = layouts[first, np.arange(n)]
    problems: dict[int, str] = {}
    cards[counts == 0] = NO_CARD  # an outcome-only coup
    for row in np.flatnonzero((chosen.sum(axis=0) != 1) & (counts > 0)).tolist():
        options = np.flatnonzero(chosen[:, row]).tolist()
        distinct = {layouts[i, row].tobytes(): i for i in options}
        if len(distinct) == 1:
            continue
        recorded = "-".join(LABEL_OF_CODE[c] for c in lists[row, :counts[row]] if c >= 0)
        if counts[row] < 4 or counts[row] > 6:
            problems[row] = (f"the coup's cards {recorded or '(none)'} are {counts[row]} "
                             f"cards; a coup has 4 to 6")
        elif not options:
            problems[row] = (f"the coup's cards {recorded} fit no split: neither in "
                             f"{DEALT} nor {HANDS} do the drawing rules deal them as "
                             f"recorded (totals and winner)")
        else:
            told = "; or ".join(f"{_spell(layouts[i, row])} ({ways[i]})"
                                for i in distinct.values())
            problems[row] = (f"the coup's cards {recorded} split more than one way: {told}; "
                             f"record the totals or the winner to tell them apart")
    return Split(cards=cards, way=way, problems=problems)
