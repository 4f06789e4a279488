"""Checks of recorded coups: each coup re-dealt by the drawing rules, totals, winner, counts.

The drawing rules are not written again here: each recorded coup's cards are laid out in
dealing order (P1, B1, P2, B2, then the third cards) and dealt by ``baccarat.deal``'s
compiled ``_deal_coup``; a coup whose recorded hands differ from what the rules deal from
its own cards broke the rules. Everything else is column arithmetic over all coups at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...cards import (
    LABEL_OF_CODE,
    N_CODES,
    NO_CARD,
    RANK_LABELS,
    RANK_OF_CODE,
    UNKNOWN_SUIT,
    VALUE_OF_CODE,
    make_code,
)
from ...coups import BANKER, PLAYER, TIE
from ...deal import _deal_coup
from ...jit import njit
from .tokens import OUTCOME_NAMES

#: Problem kinds, one per coup (the first that applies); SLIP is a recorder's slip the
#: reader found (a hand of four cards); SPLIT a coup's cards in one list that split no one
#: way (``coupcards``).
OK, HAND, PLAYER_DRAW, BANKER_DRAW, TOTAL, WINNER, TOO_MANY, SLIP, SPLIT = range(9)
KIND_NAMES = ("ok", "incomplete hand", "player's drawing rule", "banker's drawing rule",
              "recorded total", "recorded winner", "too many cards of a kind",
              "recorder slip", "cards in one list split no one way")

#: A zero-valued card that pads a coup's cards so the rules never run out.
FILLER = make_code(0)

# Card-count buckets: ranks 1-13 (4 x decks each), the zero-valued cards together
# (10, J, Q, K and rank-unknown "0": 16 x decks), each suited card (decks each), and the
# ten-valued cards of each suit (10, J, Q, K and "0" of that suit: 4 x decks each), which
# is where a suited card of unknown rank ("0C") counts.
_ZERO_BUCKET = 14
_SUITED_BASE = 15
_TENS_SUIT_BASE = _SUITED_BASE + N_CODES
N_BUCKETS = _TENS_SUIT_BASE + 4


@njit(cache=True)
def _redeal_kernel(sequences, values, out_cards, out_pt, out_bt, out_outcome):
    for k in range(sequences.shape[0]):
        _deal_coup(sequences[k], 0, sequences.shape[1], values, out_cards, out_pt, out_bt,
                   out_outcome, k)


def rules_deal(cards: np.ndarray) -> np.ndarray:
    """What the drawing rules deal from each recorded coup's own cards, laid out like
    ``Coups.cards``; a recorded hand that stood where the rules draw gets the filler card.

    Rows whose first two cards of a hand are missing give meaningless results (they are
    caught by the hand check first).
    """
    n = cards.shape[0]
    present = cards >= 0
    safe = np.where(present, cards, FILLER).astype(np.int8)
    p3, b3 = present[:, 2], present[:, 5]
    order = np.empty((n, 6), dtype=np.int8)
    order[:, 0], order[:, 1] = safe[:, 0], safe[:, 3]
    order[:, 2], order[:, 3] = safe[:, 1], safe[:, 4]
    order[:, 4] = np.where(p3, safe[:, 2], np.where(b3, safe[:, 5], FILLER))
    order[:, 5] = np.where(p3 & b3, safe[:, 5], FILLER)
    out = np.full((n, 6), NO_CARD, dtype=np.int8)
    scratch = np.empty((3, n), dtype=np.int8)
    if n:
        _redeal_kernel(order, VALUE_OF_CODE, out, scratch[0], scratch[1], scratch[2])
    return out


def hand_totals(cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Player and banker totals of the cards present (sum of values mod 10)."""
    values = np.where(cards >= 0, VALUE_OF_CODE[np.where(cards >= 0, cards, 0)], 0)
    return ((values[:, :3].sum(axis=1) % 10).astype(np.int8),
            (values[:, 3:].sum(axis=1) % 10).astype(np.int8))


def winner(player_total: np.ndarray, banker_total: np.ndarray) -> np.ndarray:
    """The outcome code the totals make."""
    return np.where(banker_total > player_total, BANKER,
                    np.where(player_total > banker_total, PLAYER, TIE)).astype(np.int8)


@dataclass
class CoupCheck:
    """The checks of a set of recorded coups: a problem kind per coup and what is needed to
    say what went wrong."""

    kind: np.ndarray
    cards: np.ndarray
    dealt: np.ndarray
    player_total: np.ndarray
    banker_total: np.ndarray
    recorded_player_total: np.ndarray
    recorded_banker_total: np.ndarray
    recorded_outcome: np.ndarray
    excess: CountCheck
    decks: int

    @property
    def invalid(self) -> np.ndarray:
        """Mask of the coups with a problem."""
        return self.kind != OK

    def describe(self, row: int) -> str:
        """What is wrong with coup ``row``, in words."""
        kind = int(self.kind[row])
        cards = [int(c) for c in self.cards[row]]
        hands = f"player {_hand(cards[:3])}, banker {_hand(cards[3:])}"
        if kind == HAND:
            for name, hand in (("player", cards[:3]), ("banker", cards[3:])):
                if hand[0] < 0 or hand[1] < 0:
                    return (f"the {name} hand ({_hand(hand, gaps=True)}) is incomplete: a "
                            f"hand has cards 1 and 2, and maybe a third ({hands})")
        if kind in (PLAYER_DRAW, BANKER_DRAW):
            return self._drawing(row, cards) + f" ({hands})"
        if kind == TOTAL:
            for name, recorded, made in (
                ("player", self.recorded_player_total, self.player_total),
                ("banker", self.recorded_banker_total, self.banker_total),
            ):
                if recorded[row] >= 0 and recorded[row] != made[row]:
                    hand = cards[:3] if name == "player" else cards[3:]
                    return (f"recorded {name} total {recorded[row]} but the {name} cards "
                            f"{_hand(hand)} make {made[row]}")
        if kind == WINNER:
            pt, bt = int(self.player_total[row]), int(self.banker_total[row])
            winning = OUTCOME_NAMES[int(winner(np.array([pt]), np.array([bt]))[0])]
            basis = "cards" if cards[0] >= 0 else "recorded totals"
            return (f"recorded winner {OUTCOME_NAMES[int(self.recorded_outcome[row])]} but "
                    f"the {basis} make player {pt}, banker {bt}: {winning}")
        if kind == TOO_MANY:
            return self.excess.describe_row(row, self.decks)
        return "no problem"

    def _drawing(self, row: int, cards: list[int]) -> str:
        values = [int(VALUE_OF_CODE[c]) if c >= 0 else 0 for c in cards]
        pt2, bt2 = (values[0] + values[1]) % 10, (values[3] + values[4]) % 10
        natural = None
        if pt2 >= 8 or bt2 >= 8:
            natural = f"player's natural {pt2}" if pt2 >= 8 else f"banker's natural {bt2}"
        rule_p3, rule_b3 = self.dealt[row, 2] >= 0, self.dealt[row, 5] >= 0
        if int(self.kind[row]) == PLAYER_DRAW:
            if rule_p3:
                return f"player draws on {pt2} but stood"
            if natural:
                return f"a {natural} ends the coup, but player drew a third card"
            return f"player stands on {pt2} but drew a third card"
        after = (f"after player's third card {LABEL_OF_CODE[cards[2]]} (value {values[2]})"
                 if cards[2] >= 0 else "when player stands")
        if rule_b3:
            return f"banker draws on {bt2} {after}, but stood"
        if natural:
            return f"a {natural} ends the coup, but banker drew a third card"
        return f"banker stands on {bt2} {after}, but drew a third card"


def _hand(cards: list[int], gaps: bool = False) -> str:
    shown = [LABEL_OF_CODE[c] if c >= 0 else "_" for c in cards]
    if not gaps:
        shown = [s for s in shown if s != "_"]
    return "-".join(shown) if any(s != "_" for s in shown) else "no cards"


@dataclass
class CountCheck:
    """Cards beyond what the decks hold, per shoe: for each card (in dealing order) the
    bucket it is one too many of (-1: none), with its shoe and its coup (or position)."""

    codes: np.ndarray
    bucket: np.ndarray
    shoe: np.ndarray
    row: np.ndarray

    @property
    def excess(self) -> np.ndarray:
        """Mask of the cards that are one too many."""
        return self.bucket >= 0

    def shoe_total(self, index: int) -> int:
        """How many cards of card ``index``'s bucket its whole shoe holds."""
        bucket = int(self.bucket[index])
        codes = self.codes[(self.shoe == self.shoe[index]) & (self.codes >= 0)]
        if bucket < _ZERO_BUCKET:
            return int((RANK_OF_CODE[codes] == bucket).sum())
        if bucket == _ZERO_BUCKET:
            return int((VALUE_OF_CODE[codes] == 0).sum())
        if bucket >= _TENS_SUIT_BASE:
            return int(((VALUE_OF_CODE[codes] == 0)
                        & (codes % 5 == bucket - _TENS_SUIT_BASE)).sum())
        return int((codes == bucket - _SUITED_BASE).sum())

    def describe(self, index: int, decks: int) -> str:
        """Card ``index``'s excess in words."""
        return describe_bucket(int(self.bucket[index]), self.shoe_total(index), decks)

    def describe_row(self, row: int, decks: int) -> str:
        """The first excess card at coup ``row`` in words."""
        i = int(np.flatnonzero(self.excess & (self.row == row))[0])
        return self.describe(i, decks) + "; this coup holds one too many"


def bucket_limit(bucket: int, decks: int) -> int:
    """How many cards of a bucket a shoe of ``decks`` decks holds."""
    if bucket < _ZERO_BUCKET or bucket >= _TENS_SUIT_BASE:
        return 4 * decks
    return 16 * decks if bucket == _ZERO_BUCKET else decks


def describe_bucket(bucket: int, count: int, decks: int) -> str:
    """'too many cards of rank 7: 33 in the shoe, where 8 decks hold 32'."""
    if bucket < _ZERO_BUCKET:
        what = f"cards of rank {RANK_LABELS[bucket]}"
    elif bucket == _ZERO_BUCKET:
        what = "zero-valued cards (10, J, Q, K or 0)"
    elif bucket >= _TENS_SUIT_BASE:
        suit = "SHDC"[bucket - _TENS_SUIT_BASE]
        what = f"ten-valued cards of one suit (10{suit}, J{suit}, Q{suit}, K{suit} or 0{suit})"
    else:
        what = f"copies of {LABEL_OF_CODE[bucket - _SUITED_BASE]}"
    deck_word = "deck holds" if decks == 1 else "decks hold"
    return (f"too many {what}: {count} in the shoe, where {decks} {deck_word} "
            f"{bucket_limit(bucket, decks)}")


@njit(cache=True)
def _count_kernel(codes, shoe, values, decks, zero_bucket, suited_base, tens_suit_base,
                  n_buckets, out):
    counts = np.zeros(n_buckets, dtype=np.int64)
    current = -1
    for i in range(codes.shape[0]):
        if shoe[i] != current:
            counts[:] = 0
            current = shoe[i]
        out[i] = -1
        code = codes[i]
        if code < 0:
            continue
        rank = code // 5
        if rank >= 1:
            counts[rank] += 1
            if counts[rank] > 4 * decks:
                out[i] = rank
        if values[code] == 0:
            counts[zero_bucket] += 1
            if counts[zero_bucket] > 16 * decks and out[i] < 0:
                out[i] = zero_bucket
        suit = code % 5
        if suit != UNKNOWN_SUIT:
            if rank >= 1:  # a suited card of unknown rank ("0C") is not one card
                bucket = suited_base + code
                counts[bucket] += 1
                if counts[bucket] > decks and out[i] < 0:
                    out[i] = bucket
            if values[code] == 0:
                bucket = tens_suit_base + suit
                counts[bucket] += 1
                if counts[bucket] > 4 * decks and out[i] < 0:
                    out[i] = bucket


def count_check(codes: np.ndarray, shoe: np.ndarray, row: np.ndarray, decks: int) -> CountCheck:
    """Find cards beyond what ``decks`` decks hold, per shoe, in dealing order.

    ``codes`` are the cards (absent ones skipped), grouped by ``shoe`` in dealing order;
    ``row`` is the coup (or position) each belongs to. Limits: 4 x decks of a rank,
    16 x decks zero-valued cards, decks of each suited card.
    """
    codes = np.ascontiguousarray(codes, dtype=np.int8)
    shoe = np.ascontiguousarray(shoe, dtype=np.int64)
    bucket = np.empty(codes.size, dtype=np.int16)
    _count_kernel(codes, shoe, VALUE_OF_CODE, decks, _ZERO_BUCKET, _SUITED_BASE,
                  _TENS_SUIT_BASE, N_BUCKETS, bucket)
    return CountCheck(codes=codes, bucket=bucket, shoe=shoe, row=np.asarray(row))


def check_coups(cards: np.ndarray, shoe: np.ndarray, player_total: np.ndarray,
                banker_total: np.ndarray, outcome: np.ndarray, decks: int) -> CoupCheck:
    """Check recorded coups (grouped by shoe, in dealing order): hands, drawing rules,
    recorded totals and winner against the cards, and cards per rank against the decks."""
    n = cards.shape[0]
    present = cards >= 0
    has_cards = present.any(axis=1)
    complete = present[:, 0] & present[:, 1] & present[:, 3] & present[:, 4]
    dealt = rules_deal(cards)
    pt, bt = hand_totals(cards)
    no_cards = ~has_cards
    pt = np.where(no_cards, player_total, pt).astype(np.int8)
    bt = np.where(no_cards, banker_total, bt).astype(np.int8)
    player_wrong = (dealt[:, 2] >= 0) != present[:, 2]
    banker_wrong = (dealt[:, 5] >= 0) != present[:, 5]
    total_wrong = has_cards & (((player_total >= 0) & (player_total != pt))
                               | ((banker_total >= 0) & (banker_total != bt)))
    judged = (pt >= 0) & (bt >= 0)
    winner_wrong = judged & (outcome >= 0) & (outcome != winner(pt, bt))
    rows = np.arange(n)
    counts = count_check(cards.reshape(-1), np.repeat(shoe, 6), np.repeat(rows, 6), decks)
    too_many = np.zeros(n, dtype=bool)
    too_many[counts.row[counts.excess]] = True
    kind = np.full(n, OK, dtype=np.int8)
    # the first problem that applies wins: fill from the last kind to the first
    kind[too_many] = TOO_MANY
    kind[winner_wrong] = WINNER
    kind[total_wrong] = TOTAL
    kind[has_cards & complete & banker_wrong & ~player_wrong] = BANKER_DRAW
    kind[has_cards & complete & player_wrong] = PLAYER_DRAW
    kind[has_cards & ~complete] = HAND
    return CoupCheck(kind=kind, cards=cards, dealt=dealt, player_total=pt, banker_total=bt,
                     recorded_player_total=player_total, recorded_banker_total=banker_total,
                     recorded_outcome=outcome, excess=counts, decks=decks)
