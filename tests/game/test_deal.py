"""The drawing rules, worked by hand from docs/architecture.md ("The game"), and checked at scale.

Every expected hand below was worked out by hand from the printed rules:
- values: A = 1, 2-9 face value, 10/J/Q/K = 0; a total is the sum mod 10;
- deal order P, B, P, B; a two-card 8 or 9 on either hand is a natural and ends the coup;
- Player draws on 0-5, stands on 6-7;
- if Player stood, Banker draws on 0-5 and stands on 6-7;
- if Player drew a third card of value v, Banker with 0-2 draws; 3 draws unless v = 8;
  4 draws if v in 2-7; 5 draws if v in 4-7; 6 draws if v in 6-7; 7 stands.
"""

from __future__ import annotations

import numpy as np
import pytest
from baccarat.cards import NO_CARD, make_code, parse_card, rank_of
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.deal import (
    SHOE_OK,
    SHOE_SHORT,
    DealError,
    banker_draws,
    deal_one,
    deal_sequences,
    generate_coups,
)
from baccarat.errors import BaccaratError
from baccarat.rules import TableRules
from hypothesis import given, settings
from hypothesis import strategies as st

OUTCOME = {"B": BANKER, "P": PLAYER, "T": TIE}


def codes(text: str) -> list[int]:
    """Card codes of a space-separated list of spellings."""
    return [parse_card(word) for word in text.split()]


def value(code: int) -> int:
    """Baccarat value of a card code, from its rank alone (independent of the engine's table)."""
    rank = rank_of(code)
    return rank if 1 <= rank <= 9 else 0


# The printed Banker rule as a grid: rows are Banker's two-card total, columns are Player's
# third card ("-" when Player stood, then 0-9); D = Banker draws, S = Banker stands.
#                    -  0123456789
BANKER_GRID = {
    0: "D DDDDDDDDDD",
    1: "D DDDDDDDDDD",
    2: "D DDDDDDDDDD",
    3: "D DDDDDDDDSD",
    4: "D SSDDDDDDSS",
    5: "D SSSSDDDDSS",
    6: "S SSSSSSDDSS",
    7: "S SSSSSSSSSS",
}


def grid_says_draw(banker_total: int, player_third: int | None) -> bool:
    """Look up the printed grid: does Banker draw?"""
    row = BANKER_GRID[banker_total]
    return (row[0] if player_third is None else row[2 + player_third]) == "D"


# Every cell of the Banker table: 8 two-card totals x (Player stood, or third card 0-9).
# Each row: the cards in dealing order (P1 B1 P2 B2, then Player's third card if Player
# draws, then the next card, which Banker takes only if Banker draws), the expected Player
# and Banker hands, their totals and the winner. The next card is always written, so a row
# where Banker stands also proves Banker did not take it.
BANKER_TABLE = [
    # (cards in dealing order, player hand, banker hand, player total, banker total, winner)
    # Banker two-card total 0
    ("6D KH KS QD 5H", "6D KS", "KH QD 5H", 6, 5, "P"),
    ("10S KH 3H QD QC 5H", "10S 3H QC", "KH QD 5H", 3, 5, "B"),
    ("5S KH KC QD AD 5H", "5S KC AD", "KH QD 5H", 6, 5, "P"),
    ("2H KH 8S QD 2D 5H", "2H 8S 2D", "KH QD 5H", 2, 5, "B"),
    ("4H KH 7C QD 3D 5H", "4H 7C 3D", "KH QD 5H", 4, 5, "B"),
    ("6S KH 8H QD 4C 5H", "6S 8H 4C", "KH QD 5H", 8, 5, "P"),
    ("9H KH 6D QD 5C 5H", "9H 6D 5C", "KH QD 5H", 0, 5, "B"),
    ("3C KH JH QD 6H 5H", "3C JH 6H", "KH QD 5H", 9, 5, "P"),
    ("2S KH QH QD 7D 5H", "2S QH 7D", "KH QD 5H", 9, 5, "P"),
    ("AH KH 4S QD 8C 5H", "AH 4S 8C", "KH QD 5H", 3, 5, "B"),
    ("7S KH 7D QD 9S 5H", "7S 7D 9S", "KH QD 5H", 3, 5, "B"),
    # Banker two-card total 1
    ("3H 6C 4S 5D 8D", "3H 4S", "6C 5D 8D", 7, 9, "B"),
    ("10S 6C 3H 5D QC 8D", "10S 3H QC", "6C 5D 8D", 3, 9, "B"),
    ("5S 6C KC 5D AD 8D", "5S KC AD", "6C 5D 8D", 6, 9, "B"),
    ("2H 6C 8S 5D 2D 8D", "2H 8S 2D", "6C 5D 8D", 2, 9, "B"),
    ("4H 6C 7C 5D 3D 8D", "4H 7C 3D", "6C 5D 8D", 4, 9, "B"),
    ("6S 6C 8H 5D 4C 8D", "6S 8H 4C", "6C 5D 8D", 8, 9, "B"),
    ("9H 6C 6D 5D 5C 8D", "9H 6D 5C", "6C 5D 8D", 0, 9, "B"),
    ("3C 6C JH 5D 6H 8D", "3C JH 6H", "6C 5D 8D", 9, 9, "T"),
    ("2S 6C QH 5D 7D 8D", "2S QH 7D", "6C 5D 8D", 9, 9, "T"),
    ("AH 6C 4S 5D 8C 8D", "AH 4S 8C", "6C 5D 8D", 3, 9, "B"),
    ("7S 6C 7D 5D 9S 8D", "7S 7D 9S", "6C 5D 8D", 3, 9, "B"),
    # Banker two-card total 2
    ("6D AH KS AD 3C", "6D KS", "AH AD 3C", 6, 5, "P"),
    ("10S AH 3H AD QC 3C", "10S 3H QC", "AH AD 3C", 3, 5, "B"),
    ("5S AH KC AD AD 3C", "5S KC AD", "AH AD 3C", 6, 5, "P"),
    ("2H AH 8S AD 2D 3C", "2H 8S 2D", "AH AD 3C", 2, 5, "B"),
    ("4H AH 7C AD 3D 3C", "4H 7C 3D", "AH AD 3C", 4, 5, "B"),
    ("6S AH 8H AD 4C 3C", "6S 8H 4C", "AH AD 3C", 8, 5, "P"),
    ("9H AH 6D AD 5C 3C", "9H 6D 5C", "AH AD 3C", 0, 5, "B"),
    ("3C AH JH AD 6H 3C", "3C JH 6H", "AH AD 3C", 9, 5, "P"),
    ("2S AH QH AD 7D 3C", "2S QH 7D", "AH AD 3C", 9, 5, "P"),
    ("AH AH 4S AD 8C 3C", "AH 4S 8C", "AH AD 3C", 3, 5, "B"),
    ("7S AH 7D AD 9S 3C", "7S 7D 9S", "AH AD 3C", 3, 5, "B"),
    # Banker two-card total 3
    ("3H 9S 4S 4H 6S", "3H 4S", "9S 4H 6S", 7, 9, "B"),
    ("10S 9S 3H 4H QC 6S", "10S 3H QC", "9S 4H 6S", 3, 9, "B"),
    ("5S 9S KC 4H AD 6S", "5S KC AD", "9S 4H 6S", 6, 9, "B"),
    ("2H 9S 8S 4H 2D 6S", "2H 8S 2D", "9S 4H 6S", 2, 9, "B"),
    ("4H 9S 7C 4H 3D 6S", "4H 7C 3D", "9S 4H 6S", 4, 9, "B"),
    ("6S 9S 8H 4H 4C 6S", "6S 8H 4C", "9S 4H 6S", 8, 9, "B"),
    ("9H 9S 6D 4H 5C 6S", "9H 6D 5C", "9S 4H 6S", 0, 9, "B"),
    ("3C 9S JH 4H 6H 6S", "3C JH 6H", "9S 4H 6S", 9, 9, "T"),
    ("2S 9S QH 4H 7D 6S", "2S QH 7D", "9S 4H 6S", 9, 9, "T"),
    ("AH 9S 4S 4H 8C 6S", "AH 4S 8C", "9S 4H", 3, 3, "T"),
    ("7S 9S 7D 4H 9S 6S", "7S 7D 9S", "9S 4H 6S", 3, 9, "B"),
    # Banker two-card total 4
    ("6D 2C KS 2D 4D", "6D KS", "2C 2D 4D", 6, 8, "B"),
    ("10S 2C 3H 2D QC 4D", "10S 3H QC", "2C 2D", 3, 4, "B"),
    ("5S 2C KC 2D AD 4D", "5S KC AD", "2C 2D", 6, 4, "P"),
    ("2H 2C 8S 2D 2D 4D", "2H 8S 2D", "2C 2D 4D", 2, 8, "B"),
    ("4H 2C 7C 2D 3D 4D", "4H 7C 3D", "2C 2D 4D", 4, 8, "B"),
    ("6S 2C 8H 2D 4C 4D", "6S 8H 4C", "2C 2D 4D", 8, 8, "T"),
    ("9H 2C 6D 2D 5C 4D", "9H 6D 5C", "2C 2D 4D", 0, 8, "B"),
    ("3C 2C JH 2D 6H 4D", "3C JH 6H", "2C 2D 4D", 9, 8, "P"),
    ("2S 2C QH 2D 7D 4D", "2S QH 7D", "2C 2D 4D", 9, 8, "P"),
    ("AH 2C 4S 2D 8C 4D", "AH 4S 8C", "2C 2D", 3, 4, "B"),
    ("7S 2C 7D 2D 9S 4D", "7S 7D 9S", "2C 2D", 3, 4, "B"),
    # Banker two-card total 5
    ("3H JD 4S 5S 2H", "3H 4S", "JD 5S 2H", 7, 7, "T"),
    ("10S JD 3H 5S QC 2H", "10S 3H QC", "JD 5S", 3, 5, "B"),
    ("5S JD KC 5S AD 2H", "5S KC AD", "JD 5S", 6, 5, "P"),
    ("2H JD 8S 5S 2D 2H", "2H 8S 2D", "JD 5S", 2, 5, "B"),
    ("4H JD 7C 5S 3D 2H", "4H 7C 3D", "JD 5S", 4, 5, "B"),
    ("6S JD 8H 5S 4C 2H", "6S 8H 4C", "JD 5S 2H", 8, 7, "P"),
    ("9H JD 6D 5S 5C 2H", "9H 6D 5C", "JD 5S 2H", 0, 7, "B"),
    ("3C JD JH 5S 6H 2H", "3C JH 6H", "JD 5S 2H", 9, 7, "P"),
    ("2S JD QH 5S 7D 2H", "2S QH 7D", "JD 5S 2H", 9, 7, "P"),
    ("AH JD 4S 5S 8C 2H", "AH 4S 8C", "JD 5S", 3, 5, "B"),
    ("7S JD 7D 5S 9S 2H", "7S 7D 9S", "JD 5S", 3, 5, "B"),
    # Banker two-card total 6
    ("6D 7H KS 9C AC", "6D KS", "7H 9C", 6, 6, "T"),
    ("10S 7H 3H 9C QC AC", "10S 3H QC", "7H 9C", 3, 6, "B"),
    ("5S 7H KC 9C AD AC", "5S KC AD", "7H 9C", 6, 6, "T"),
    ("2H 7H 8S 9C 2D AC", "2H 8S 2D", "7H 9C", 2, 6, "B"),
    ("4H 7H 7C 9C 3D AC", "4H 7C 3D", "7H 9C", 4, 6, "B"),
    ("6S 7H 8H 9C 4C AC", "6S 8H 4C", "7H 9C", 8, 6, "P"),
    ("9H 7H 6D 9C 5C AC", "9H 6D 5C", "7H 9C", 0, 6, "B"),
    ("3C 7H JH 9C 6H AC", "3C JH 6H", "7H 9C AC", 9, 7, "P"),
    ("2S 7H QH 9C 7D AC", "2S QH 7D", "7H 9C AC", 9, 7, "P"),
    ("AH 7H 4S 9C 8C AC", "AH 4S 8C", "7H 9C", 3, 6, "B"),
    ("7S 7H 7D 9C 9S AC", "7S 7D 9S", "7H 9C", 3, 6, "B"),
    # Banker two-card total 7
    ("6D 3S KS 4C 8H", "6D KS", "3S 4C", 6, 7, "B"),
    ("10S 3S 3H 4C QC 8H", "10S 3H QC", "3S 4C", 3, 7, "B"),
    ("5S 3S KC 4C AD 8H", "5S KC AD", "3S 4C", 6, 7, "B"),
    ("2H 3S 8S 4C 2D 8H", "2H 8S 2D", "3S 4C", 2, 7, "B"),
    ("4H 3S 7C 4C 3D 8H", "4H 7C 3D", "3S 4C", 4, 7, "B"),
    ("6S 3S 8H 4C 4C 8H", "6S 8H 4C", "3S 4C", 8, 7, "P"),
    ("9H 3S 6D 4C 5C 8H", "9H 6D 5C", "3S 4C", 0, 7, "B"),
    ("3C 3S JH 4C 6H 8H", "3C JH 6H", "3S 4C", 9, 7, "P"),
    ("2S 3S QH 4C 7D 8H", "2S QH 7D", "3S 4C", 9, 7, "P"),
    ("AH 3S 4S 4C 8C 8H", "AH 4S 8C", "3S 4C", 3, 7, "B"),
    ("7S 3S 7D 4C 9S 8H", "7S 7D 9S", "3S 4C", 3, 7, "B"),
]

NATURALS = [
    # Two spare cards follow each coup: a natural ends the coup, so neither hand takes them.
    # Player natural 9 against Banker 0 (Banker would otherwise draw).
    ("4S KD 5H 10C 2C 3D", "4S 5H", "KD 10C", 9, 0, "P"),
    # Player natural 8 against Banker 3.
    ("AS 2H 7D AH 5C 6C", "AS 7D", "2H AH", 8, 3, "P"),
    # Player natural 8 from 9 + 9 = 18 against Banker 2.
    ("9H 7S 9C 5S 3C 3H", "9H 9C", "7S 5S", 8, 2, "P"),
    # Banker natural 9 against Player 0 (Player would otherwise draw).
    ("JS 9C QS KC 4D 4H", "JS QS", "9C KC", 0, 9, "B"),
    # Banker natural 8 against Player 5.
    ("2D 6H 3S 2C 7S 7H", "2D 3S", "6H 2C", 5, 8, "B"),
    # Banker natural 8 against Player 7.
    ("7C 4H KS 4C AS 2S", "7C KS", "4H 4C", 7, 8, "B"),
    # Both natural: Player 9 beats Banker 8.
    ("6S 5D 3C 3H 9D 9H", "6S 3C", "5D 3H", 9, 8, "P"),
    # Both natural: Banker 9 beats Player 8.
    ("8H AD QH 8D 2S 2H", "8H QH", "AD 8D", 8, 9, "B"),
    # Natural tie 8-8.
    ("3D 10D 5S 8S 4C 4S", "3D 5S", "10D 8S", 8, 8, "T"),
    # Natural tie 9-9.
    ("9S 2S 10H 7C 6C 6D", "9S 10H", "2S 7C", 9, 9, "T"),
]


def assert_deals(seq: str, player: str, banker: str, pt: int, bt: int, winner: str) -> None:
    """deal_one on ``seq`` gives exactly the written hands, totals and winner."""
    got = deal_one(codes(seq))
    assert got == (codes(player), codes(banker), pt, bt, OUTCOME[winner])


@pytest.mark.parametrize(("seq", "player", "banker", "pt", "bt", "winner"), BANKER_TABLE)
def test_banker_table_worked_by_hand(seq, player, banker, pt, bt, winner):
    assert_deals(seq, player, banker, pt, bt, winner)


@pytest.mark.parametrize(("seq", "player", "banker", "pt", "bt", "winner"), NATURALS)
def test_naturals_worked_by_hand(seq, player, banker, pt, bt, winner):
    assert_deals(seq, player, banker, pt, bt, winner)


def test_hand_worked_rows_cover_every_cell_and_every_natural_case():
    cells = set()
    for _, player, banker, *_ in BANKER_TABLE:
        p, b = codes(player), codes(banker)
        third = value(p[2]) if len(p) == 3 else None
        cells.add((sum(value(c) for c in b[:2]) % 10, third))
    assert cells == {(bt, v) for bt in range(8) for v in [None, *range(10)]}
    assert len(BANKER_TABLE) == 88

    kinds = set()
    for *_, pt, bt, _winner in NATURALS:
        kinds.add((pt >= 8, bt >= 8, (pt, bt)))
    assert any(p and not b for p, b, _ in kinds)  # Player natural only
    assert any(b and not p for p, b, _ in kinds)  # Banker natural only
    pairs = {totals for _, _, totals in kinds}
    assert {(8, 9), (9, 8), (8, 8), (9, 9)} <= pairs  # both; 8 vs 9 each way; natural ties


def test_banker_draws_matches_the_printed_grid():
    for bt in range(8):
        assert banker_draws(bt, -1) == grid_says_draw(bt, None)
        for v in range(10):
            assert banker_draws(bt, v) == grid_says_draw(bt, v), (bt, v)


def test_the_grid_matches_the_hand_worked_rows():
    # The hand-worked rows and the transcribed grid are two readings of the same rules.
    for _, player, banker, *_ in BANKER_TABLE:
        p, b = codes(player), codes(banker)
        third = value(p[2]) if len(p) == 3 else None
        assert (len(b) == 3) == grid_says_draw(sum(value(c) for c in b[:2]) % 10, third)


@pytest.mark.parametrize("seq", ["AS KD 5H", "2S KD 3H QD", "2S KD 3H QD 4C", "AS"])
def test_too_few_cards_for_the_coup(seq: str):
    with pytest.raises(DealError, match="not enough") as info:
        deal_one(codes(seq))
    assert isinstance(info.value, BaccaratError)


# --- an independent implementation of the rules, for the properties --------------------

def reference_coup(cards: list[int]) -> tuple[list[int], list[int], int, int, int] | None:
    """Deal one coup from the top of ``cards`` by the printed rules; None if cards run out."""
    if len(cards) < 4:
        return None
    player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
    rest = list(cards[4:])

    def total(hand: list[int]) -> int:
        return sum(value(c) for c in hand) % 10

    if total(player) < 8 and total(banker) < 8:
        third: int | None = None
        if total(player) <= 5:
            if not rest:
                return None
            player.append(rest.pop(0))
            third = value(player[2])
        if grid_says_draw(total(banker), third):
            if not rest:
                return None
            banker.append(rest.pop(0))
    pt, bt = total(player), total(banker)
    winner = BANKER if bt > pt else PLAYER if pt > bt else TIE
    return player, banker, pt, bt, winner


def test_reference_agrees_with_the_hand_worked_rows():
    for seq, player, banker, pt, bt, winner in BANKER_TABLE + NATURALS:
        assert reference_coup(codes(seq)) == (codes(player), codes(banker), pt, bt,
                                              OUTCOME[winner])


# Any card code a source can hold: every rank 0-13 with a suit 0-3 or no suit (drawn as
# one choice among the 70 codes: the same cards as building each from a rank and a suit,
# and quicker to draw).
card_codes = st.sampled_from([make_code(rank, suit) for rank in range(14) for suit in range(5)])


@settings(max_examples=2000, deadline=None)
@given(st.lists(card_codes, min_size=6, max_size=9))
def test_deal_one_follows_the_rules(seq: list[int]):
    player, banker, pt, bt, outcome = deal_one(seq)
    # Deal order P, B, P, B, then Player's third card, then Banker's.
    assert player[:2] == [seq[0], seq[2]]
    assert banker[:2] == [seq[1], seq[3]]
    if len(player) == 3:
        assert player[2] == seq[4]
    if len(banker) == 3:
        assert banker[2] == seq[4 + (len(player) == 3)]
    assert 0 <= pt <= 9 and 0 <= bt <= 9
    assert 4 <= len(player) + len(banker) <= 6
    assert (player, banker, pt, bt, outcome) == reference_coup(seq)


def reference_shoe(cards: list[int]) -> tuple[list[tuple], bool]:
    """All coups of a sequence dealt to the end (no burn, no cut card), and whether it ran out
    in the middle of a coup."""
    coups, pos = [], 0
    while pos < len(cards):
        coup = reference_coup(cards[pos:])
        if coup is None:
            return coups, True
        coups.append(coup)
        pos += len(coup[0]) + len(coup[1])
    return coups, False


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(card_codes, max_size=60), min_size=1, max_size=4))
def test_deal_sequences_deals_every_card_in_order(sequences: list[list[int]]):
    rules = TableRules(burn="none")
    coups, status = deal_sequences([np.array(s, dtype=np.int8) for s in sequences], rules)
    for index, seq in enumerate(sequences):
        expected, short = reference_shoe(seq)
        rows = np.flatnonzero(coups.shoe == index)
        assert status[index] == (SHOE_SHORT if short else SHOE_OK)
        assert coups.coup[rows].tolist() == list(range(1, len(expected) + 1))
        for row, (player, banker, pt, bt, winner) in zip(rows, expected, strict=True):
            cards = coups.cards[row].tolist()
            assert [c for c in cards[:3] if c != NO_CARD] == player
            assert [c for c in cards[3:] if c != NO_CARD] == banker
            assert (coups.player_total[row], coups.banker_total[row]) == (pt, bt)
            assert coups.outcome[row] == winner
        # Consecutive coups use consecutive cards: their cards in dealing order are the
        # sequence itself, up to where it ran out.
        dealt: list[int] = []
        for player, banker, *_ in expected:
            dealt += [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
        assert dealt == seq[: len(dealt)]
        assert short or len(dealt) == len(seq)


# --- a million generated coups against the exact 8-deck probabilities ------------------

EXACT_8_DECKS = {BANKER: 0.458597, PLAYER: 0.446247, TIE: 0.095156}  # published


@pytest.fixture(scope="module")
def million_coups():
    coups = generate_coups(TableRules(), seed=20240601, shoe_ids=np.arange(13_000))
    assert len(coups) >= 1_000_000
    return coups


def test_generated_coups_obey_the_rules(million_coups):
    # A vectorised re-check of every generated coup by the printed rules.
    c = million_coups
    value_of = np.array([value(code) for code in range(70)], dtype=np.int64)
    present = c.cards >= 0
    values = np.where(present, value_of[np.where(present, c.cards, 0)], 0)
    assert (present[:, [0, 1, 3, 4]]).all()
    p2 = (values[:, 0] + values[:, 1]) % 10
    b2 = (values[:, 3] + values[:, 4]) % 10
    natural = (p2 >= 8) | (b2 >= 8)
    player_draws = ~natural & (p2 <= 5)
    assert (present[:, 2] == player_draws).all()
    grid = np.array([[row[0] == "D"] + [ch == "D" for ch in row[2:]]
                     for _, row in sorted(BANKER_GRID.items())] + [[False] * 11] * 2)
    column = np.where(player_draws, 1 + values[:, 2], 0)
    assert (present[:, 5] == (~natural & grid[b2, column])).all()
    pt = values[:, :3].sum(axis=1) % 10
    bt = values[:, 3:].sum(axis=1) % 10
    assert (c.player_total == pt).all() and (c.banker_total == bt).all()
    winner = np.where(bt > pt, BANKER, np.where(pt > bt, PLAYER, TIE))
    assert (c.outcome == winner).all()
    assert set(np.unique(c.outcome).tolist()) == {BANKER, PLAYER, TIE}


@pytest.mark.parametrize("outcome", [BANKER, PLAYER, TIE])
def test_a_million_coups_agree_with_the_exact_probabilities(million_coups, outcome):
    # Coups of one shoe are not independent (they share its cards), so the standard error
    # treats shoes as the independent unit: the ratio estimator p = sum(y_s) / sum(n_s),
    # with y_s the shoe's count of this outcome and n_s its coups, has variance
    # sum((y_s - p n_s)^2) / (m (m - 1) mean(n)^2) over the m shoes.
    c = million_coups
    shoes, starts, n = np.unique(c.shoe, return_index=True, return_counts=True)
    y = np.add.reduceat((c.outcome == outcome).astype(np.int64), starts)
    m = shoes.size
    p = y.sum() / n.sum()
    se = np.sqrt(((y - p * n) ** 2).sum() / (m * (m - 1))) / n.mean()
    assert m == 13_000
    assert se < 0.0006  # a million coups pin each probability to well under a tenth of 1%
    assert abs(p - EXACT_8_DECKS[outcome]) < 4 * se, (p, se)
