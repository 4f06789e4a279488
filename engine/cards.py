"""Card codes, parsing of recorded spellings, and baccarat values.

A card is held as one small integer so that whole shoes fit in ``int8`` arrays:
``code = rank * 5 + suit`` where ``rank`` is 1 (ace) to 13 (king), or 0 for a
zero-valued card of unknown rank (recorded as "0"), and ``suit`` is 0-3 for
spades, hearts, diamonds, clubs, or 4 when the source did not record the suit.
``NO_CARD`` (-1) marks an absent card (no third card, or a source without cards).
"""

from __future__ import annotations

import numpy as np

from .errors import BaccaratError

NO_CARD = -1
SUITS = "SHDC"
UNKNOWN_SUIT = 4
RANK_LABELS = ("0", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
N_CODES = 14 * 5

_SUIT_ALIASES = {
    "S": 0, "♠": 0, "♤": 0,
    "H": 1, "♥": 1, "♡": 1,
    "D": 2, "♦": 2, "♢": 2,
    "C": 3, "♣": 3, "♧": 3,
}
_RANK_ALIASES = {
    "0": 0, "A": 1, "1": 1, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13,
    **{str(r): r for r in range(2, 10)},
}


class CardError(BaccaratError):
    """A card spelling that is not a card."""


def make_code(rank: int, suit: int = UNKNOWN_SUIT) -> int:
    """The code of a card from its rank (0-13) and suit (0-3, or 4 for unknown)."""
    return rank * 5 + suit


def rank_of(code: int) -> int:
    """The rank (0-13) of a card code."""
    return code // 5


def suit_of(code: int) -> int:
    """The suit (0-3, 4 for unknown) of a card code."""
    return code % 5


def _build_value_table() -> np.ndarray:
    table = np.zeros(N_CODES, dtype=np.int8)
    for code in range(N_CODES):
        rank = code // 5
        table[code] = rank if rank < 10 else 0
    return table


#: Baccarat value (0-9) of every card code; index with a code array.
VALUE_OF_CODE = _build_value_table()
#: Rank (0-13) of every card code.
RANK_OF_CODE = (np.arange(N_CODES) // 5).astype(np.int8)
#: Printable label of every card code: "AS", "10H", "K" (rank only), "0".
LABEL_OF_CODE = tuple(
    RANK_LABELS[code // 5] + ("" if code % 5 == UNKNOWN_SUIT else SUITS[code % 5])
    for code in range(N_CODES)
)


def card_value(code: int) -> int:
    """Baccarat value of one card: A = 1, 2-9 face value, 10/J/Q/K = 0."""
    return int(VALUE_OF_CODE[code])


def parse_card(text: str, where: str = "") -> int:
    """Parse one recorded card spelling ("AS", "10h", "Th", "T", "K", "9♥", "0") into a code.

    ``where`` names the place the text came from, for the error message.
    """
    raw = text
    text = text.strip().upper()
    suit = UNKNOWN_SUIT
    if text and text[-1] in _SUIT_ALIASES and text[:-1] in _RANK_ALIASES:
        suit = _SUIT_ALIASES[text[-1]]
        text = text[:-1]
    rank = _RANK_ALIASES.get(text)
    if rank is None:
        place = f" at {where}" if where else ""
        raise CardError(
            f"unknown card {raw!r}{place}: expected a rank A,2-9,10/T,J,Q,K or 0, "
            f"optionally followed by a suit S,H,D,C or ♠♥♦♣ (e.g. 'AS', '10h', 'K')"
        )
    return make_code(rank, suit)


def card_label(code: int) -> str:
    """The printable label of a card code ("" for no card)."""
    return "" if code < 0 else LABEL_OF_CODE[code]


def full_deck_codes(decks: int) -> np.ndarray:
    """All card codes of a shoe of ``decks`` standard 52-card decks, in rank/suit order."""
    one_deck = [make_code(rank, suit) for rank in range(1, 14) for suit in range(4)]
    return np.tile(np.array(one_deck, dtype=np.int8), decks)


def value_counts(codes: np.ndarray) -> np.ndarray:
    """How many cards of each baccarat value 0-9 a code array holds (absent cards ignored)."""
    present = codes[codes >= 0]
    return np.bincount(VALUE_OF_CODE[present], minlength=10).astype(np.int64)
