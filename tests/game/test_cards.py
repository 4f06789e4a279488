"""Card codes, the spellings recorded shoes use, and baccarat card values."""

from __future__ import annotations

import numpy as np
import pytest
from baccarat.cards import (
    LABEL_OF_CODE,
    N_CODES,
    NO_CARD,
    RANK_OF_CODE,
    VALUE_OF_CODE,
    CardError,
    card_label,
    card_value,
    full_deck_codes,
    make_code,
    parse_card,
    rank_of,
    suit_of,
    value_counts,
)
from baccarat.errors import BaccaratError

# Ranks: 0 = zero-valued card of unknown rank, 1 = ace ... 13 = king.
# Suits: 0 spades, 1 hearts, 2 diamonds, 3 clubs, 4 not recorded.
# The code is rank * 5 + suit (engine/cards.py), written out here by hand.
SPELLINGS = [
    # text,  rank, suit, code
    ("AS", 1, 0, 5),
    ("As", 1, 0, 5),
    ("as", 1, 0, 5),
    ("A", 1, 4, 9),
    ("1", 1, 4, 9),
    ("10h", 10, 1, 51),
    ("10H", 10, 1, 51),
    ("Th", 10, 1, 51),
    ("tH", 10, 1, 51),
    ("T", 10, 4, 54),
    ("10", 10, 4, 54),
    ("K", 13, 4, 69),
    ("k", 13, 4, 69),
    ("KC", 13, 3, 68),
    ("Qd", 12, 2, 62),
    ("J♣", 11, 3, 58),
    ("9♥", 9, 1, 46),
    ("9♡", 9, 1, 46),
    ("2♠", 2, 0, 10),
    ("5♦", 5, 2, 27),
    ("0", 0, 4, 4),
    ("7", 7, 4, 39),
    (" 8d ", 8, 2, 42),
]


@pytest.mark.parametrize(("text", "rank", "suit", "code"), SPELLINGS)
def test_every_spelling_parses_to_its_rank_and_suit(text: str, rank: int, suit: int, code: int):
    parsed = parse_card(text)
    assert parsed == code
    assert (rank_of(parsed), suit_of(parsed)) == (rank, suit)
    assert make_code(rank, suit) == code


@pytest.mark.parametrize(
    ("text", "value"),
    [("A", 1), ("2H", 2), ("3", 3), ("4S", 4), ("5", 5), ("6C", 6), ("7", 7), ("8D", 8),
     ("9", 9), ("10S", 0), ("T", 0), ("J", 0), ("QH", 0), ("K", 0), ("0", 0)],
)
def test_baccarat_values(text: str, value: int):
    assert card_value(parse_card(text)) == value


@pytest.mark.parametrize(
    "text", ["1Z", "", "   ", "11", "AX", "S", "♥", "10HH", "B", "Ace", "A S", "-1"]
)
def test_unknown_spellings_name_the_text_and_the_place(text: str):
    with pytest.raises(CardError) as info:
        parse_card(text, where="shoes.csv row 12, column player_card1")
    message = str(info.value)
    assert repr(text) in message
    assert "shoes.csv row 12, column player_card1" in message
    assert "expected" in message


def test_card_error_is_a_baccarat_error_without_place():
    with pytest.raises(BaccaratError, match="unknown card '1Z'"):
        parse_card("1Z")


def test_every_label_parses_back_to_its_code():
    for code in range(N_CODES):
        assert parse_card(LABEL_OF_CODE[code]) == code
        assert card_label(code) == LABEL_OF_CODE[code]
    assert card_label(NO_CARD) == ""
    assert card_label(parse_card("10h")) == "10H"
    assert card_label(parse_card("k")) == "K"


def test_lookup_tables_agree_with_the_printed_values():
    for code in range(N_CODES):
        rank = code // 5
        assert RANK_OF_CODE[code] == rank
        assert VALUE_OF_CODE[code] == (rank if 1 <= rank <= 9 else 0)


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_full_deck_holds_every_card_once_per_deck(decks: int):
    shoe = full_deck_codes(decks)
    assert shoe.dtype == np.int8
    assert shoe.size == 52 * decks
    counts = np.bincount(shoe, minlength=N_CODES)
    for code in range(N_CODES):
        real_card = 1 <= code // 5 <= 13 and code % 5 < 4
        assert counts[code] == (decks if real_card else 0)
    # Sixteen zero-valued cards (10, J, Q, K) and four of each value 1-9 per deck.
    assert value_counts(shoe).tolist() == [16 * decks] + [4 * decks] * 9


def test_value_counts_ignore_absent_cards(codes):
    cards = np.array([*codes("AS"), NO_CARD, *codes("KD A 9H 10C"), NO_CARD], dtype=np.int8)
    assert value_counts(cards).tolist() == [2, 2, 0, 0, 0, 0, 0, 0, 0, 1]
