"""Recorded spellings to codes, a whole column at a time.

Each distinct spelling in a column is parsed once (``np.unique``) and the result scattered
back to every row, so a column of a million cards costs a few dozen calls of ``parse_card``.
An unknown spelling is an error naming the text and the file and line it came from.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...cards import NO_CARD, CardError, parse_card
from ...coups import BANKER, PLAYER, TIE
from .records import ImportDataError, Source, UnknownCardError

#: Cell contents that mean "no card here" (compared after strip and upper-case).
MISSING = frozenset({"", "NA", "N/A", "NAN", "NONE", "NULL", "-", "--"})
_MISSING_ARRAY = pa.array(sorted(MISSING), type=pa.string())

#: One-character outcome symbols that scorecards write in runs ("莊閒和", "🔴🔵🟢"): the
#: characters of Chinese tables (traditional and simplified) and the colours of a live
#: table's scoreboard (red Banker, blue Player, green Tie) as chat bots post them.
_SYMBOL_LETTERS = {"莊": "B", "庄": "B", "閒": "P", "闲": "P", "和": "T",
                   "\U0001F534": "B", "\U0001F535": "P", "\U0001F7E2": "T"}

#: Outcome spellings (compared after ``outcome_key``: NFC, strip, upper case, inner spaces
#: collapsed): letters, English words, the one-character symbols above, and the words of
#: Chinese, Vietnamese (with or without diacritics), Spanish, Portuguese, French, German,
#: Italian, Thai, Korean and Japanese tables.
OUTCOME_WORDS = {
    "B": BANKER, "BANKER": BANKER, "BANK": BANKER,
    "P": PLAYER, "PLAYER": PLAYER, "PLAY": PLAYER,
    "T": TIE, "TIE": TIE, "DRAW": TIE,
    "莊": BANKER, "庄": BANKER, "莊家": BANKER, "庄家": BANKER,
    "閒": PLAYER, "闲": PLAYER, "閒家": PLAYER, "闲家": PLAYER,
    "和": TIE, "和局": TIE,
    "NHÀ CÁI": BANKER, "CÁI": BANKER, "NHA CAI": BANKER, "CAI": BANKER,
    "NGƯỜI CHƠI": PLAYER, "CON": PLAYER, "NGUOI CHOI": PLAYER,
    "HÒA": TIE, "HOÀ": TIE, "HOA": TIE,
    "BANCA": BANKER, "BANCO": BANKER, "JUGADOR": PLAYER, "JOGADOR": PLAYER,
    "EMPATE": TIE,
    "BANQUIER": BANKER, "BANQUE": BANKER, "JOUEUR": PLAYER, "ÉGALITÉ": TIE, "EGALITE": TIE,
    "SPIELER": PLAYER, "UNENTSCHIEDEN": TIE, "GIOCATORE": PLAYER, "PAREGGIO": TIE,
    "เจ้ามือ": BANKER, "ผู้เล่น": PLAYER, "เสมอ": TIE,
    "뱅커": BANKER, "플레이어": PLAYER, "타이": TIE,
    "バンカー": BANKER, "プレイヤー": PLAYER, "タイ": TIE, "引き分け": TIE,
    **{symbol: "BPT".index(letter) for symbol, letter in _SYMBOL_LETTERS.items()},
    **{colour: code for code, colours in enumerate((("RED", "紅", "红"), ("BLUE", "藍", "蓝"),
                                                     ("GREEN", "綠", "绿")))
       for colour in colours},
}
#: Road colours, read by the scoreboard's convention (red Banker, blue Player, green Tie)
#: unless ``--words`` says otherwise (``--words player=red banker=blue``).
COLOUR_WORDS = frozenset({"RED", "紅", "红", "BLUE", "藍", "蓝", "GREEN", "綠", "绿"})
OUTCOME_NAMES = ("Banker", "Player", "Tie")
_SPACES = re.compile(r"\s+")
_JOINERS = re.compile(r"[_\-]+")
_WIN_SUFFIX = re.compile(r"(?<=\S) (?:WINS?|WON)$")
_EMOJI_STYLE = "\uFE0F"  # the variation selector some keyboards put after a symbol


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z0-9])")
_SIDE_PAIR = re.compile(r" (?:BANKER|PLAYER|BOTH) PAIRS?\b")
#: Flags a compound result word writes after the winner (``bankerSuper6``,
#: ``playerNatural``, ``tiePair``, ``TIE_BANKER_PAIR``): the winner is the outcome.
_FLAG_WORDS = frozenset({"NATURAL", "PAIR", "PAIRS", "SUPER", "6", "SUPER6"})


def outcome_key(text: str) -> str:
    """An outcome spelling as compared: NFC form, upper case, underscores, hyphens and
    camel case as spaces, one space inside, a trailing "win", "wins" or "won" dropped (bot
    exports write ``BANKER_WIN``, sheets "Player wins"), and the flags of a compound
    result word after the winner (``bankerSuper6``, ``tiePair``: ``_FLAG_WORDS``)."""
    key = _CAMEL.sub(" ", unicodedata.normalize("NFC", text).replace(_EMOJI_STYLE, ""))
    key = _SPACES.sub(" ", _JOINERS.sub(" ", key.upper())).strip()
    key = _WIN_SUFFIX.sub("", key)
    if " " in key and key.split(" ", 1)[0] in ("BANKER", "PLAYER", "TIE"):
        first, *flags = _SIDE_PAIR.sub(" PAIR", key).split(" ")
        if all(flag in _FLAG_WORDS for flag in flags):
            return first
    return key


#: A platform's own outcome words in force while reading (``--words``): key -> code.
_NO_WORDS: Mapping[str, int] = MappingProxyType({})
_EXTRA_WORDS: ContextVar[Mapping[str, int]] = ContextVar("extra_outcome_words",
                                                         default=_NO_WORDS)
#: The bit-coded results in force while reading (``--bits``), to say why a code is unread.
_BITS: ContextVar[BitCodes | None] = ContextVar("bit_codes", default=None)


@contextmanager
def using_words(words: Mapping[str, int] | None,
                bits: BitCodes | None = None) -> Iterator[None]:
    """Read ``words`` (an outcome key -> code, from ``parse_words``; with the codes of
    ``bits``, ``BitCodes.words``) as outcomes too, for the duration of the block: a
    platform's own glyphs (``--words banker=装,状``), a result column's codes."""
    token = _EXTRA_WORDS.set(dict(words or {}))
    bits_token = _BITS.set(bits)
    try:
        yield
    finally:
        _BITS.reset(bits_token)
        _EXTRA_WORDS.reset(token)


_SIDES = {"banker": BANKER, "b": BANKER, "player": PLAYER, "p": PLAYER, "tie": TIE,
          "t": TIE}


def _coded(spec: str) -> list[tuple[str, int]] | None:
    """``1=P,2=B,3=T`` (the codes of a result column, each = a side) as (code, side);
    None when ``spec`` is not written so."""
    pairs = [part.partition("=") for part in spec.split(",")]
    if not all(sep and word.strip() and side.strip().lower() in _SIDES
               for word, sep, side in pairs):
        return None
    return [(word.strip(), _SIDES[side.strip().lower()]) for word, _, side in pairs]


_NEXT_SIDE = re.compile(r",(?=(?:banker|player|tie|b|p|t)=)", re.IGNORECASE)


def parse_words(specs: list[str] | None) -> dict[str, int]:
    """``--words`` options (``banker=装,状``, ``player=现``, ``tie=合``, several in one
    option separated by spaces; or the codes of a result column, ``1=P,2=B,3=T``) as
    outcome key -> code. A road colour may be given another side than its default."""
    words: dict[str, int] = {}
    # "player=Spieler,tie=Unentschieden": a side named after a comma starts a new mapping
    # (a comma otherwise lists more spellings of the same side: banker=装,状)
    for spec in (side_spec for option in specs or [] for part in option.split()
                 for side_spec in _NEXT_SIDE.split(part)):
        side, sep, spellings = spec.partition("=")
        code = _SIDES.get(side.strip().lower())
        pairs = [(w.strip(), code) for w in spellings.split(",") if w.strip()] \
            if code is not None else _coded(spec)
        if not sep or not pairs:
            raise ImportDataError(f"--words {spec!r}: expected banker=WORD[,WORD...], "
                                  f"player=WORD[,...] or tie=WORD[,...] (e.g. banker=装,状), "
                                  f"or a result column's codes CODE=SIDE,... (e.g. "
                                  f"1=P,2=B,3=T)")
        for name, side_code in pairs:
            key = outcome_key(name)
            known = words.get(key, None if key in COLOUR_WORDS else OUTCOME_WORDS.get(key))
            if known is not None and known != side_code:
                raise ImportDataError(f"--words {spec!r}: {name!r} already means "
                                      f"{OUTCOME_NAMES[known]}")
            words[key] = side_code
    return words


#: The highest bit ``--bits`` may name (every code up to it is spelled out as a word).
TOP_BIT = 15
_BIT_ITEM = re.compile(r",(?=[A-Za-z_][A-Za-z0-9_]*=)")
_BIT_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


@dataclass(frozen=True)
class BitCodes:
    """Results packed in an integer's bits (``--bits``): the winner in some bits, read by
    the values given (``winner=0-1:1=B,2=P,3=T``), and flags in others, each named
    (``player_pair=2,banker_pair=3,natural=4``). A coups table keeps the winner; the
    flags are counted and left out (pairs and naturals follow from the cards when a file
    has them)."""

    low: int
    high: int
    #: value of the winner bits -> outcome code
    sides: dict[int, int]
    #: flag name -> its bit
    flags: dict[str, int]

    def winner_of(self, code: int) -> int:
        """The value of ``code``'s winner bits."""
        return (code >> self.low) & ((1 << (self.high - self.low + 1)) - 1)

    def named(self, code: int) -> bool:
        """Whether every bit set in ``code`` is the winner's or a named flag's."""
        mask = ((1 << (self.high + 1)) - (1 << self.low)) | sum(1 << b for b in self.flags.values())
        return code & ~mask == 0

    def words(self) -> dict[str, int]:
        """Every code the mapping reads, spelled as a word (``'17'``) -> outcome code,
        read like ``--words 17=B``."""
        top = max([self.high, *self.flags.values()])
        return {str(code): self.sides[self.winner_of(code)] for code in range(1 << (top + 1))
                if self.named(code) and self.winner_of(code) in self.sides}

    def flags_of(self, code: int) -> list[str]:
        """The flags set in ``code``."""
        return [name for name, bit in self.flags.items() if code >> bit & 1]

    def unread(self, code: int) -> str:
        """Why ``code`` is not read: a bit set that no name covers, or winner bits whose
        value is not mapped."""
        named = self.named(code)
        if not named:
            bits = [b for b in range(code.bit_length()) if code >> b & 1
                    and not self.low <= b <= self.high and b not in self.flags.values()]
            return (f"bit{'s' if len(bits) > 1 else ''} {', '.join(map(str, bits))} "
                    f"{'are' if len(bits) > 1 else 'is'} set, which --bits does not name")
        span = f"{self.low}-{self.high}" if self.high > self.low else str(self.low)
        return (f"its winner bits {span} hold {self.winner_of(code)}, which --bits does not "
                f"map (it maps {', '.join(map(str, sorted(self.sides)))})")


def parse_bits(specs: list[str] | None) -> BitCodes | None:
    """``--bits winner=0-1:1=B,2=P,3=T,player_pair=2,banker_pair=3,natural=4`` (options
    given several times are one mapping) as a ``BitCodes``; None when not given."""
    if not specs:
        return None
    spec = ",".join(s.strip().strip(",") for s in specs)
    usage = ("expected winner=LOW-HIGH:VALUE=SIDE,... then a NAME=BIT per flag, e.g. "
             "winner=0-1:1=B,2=P,3=T,player_pair=2,banker_pair=3,natural=4")
    winner: tuple[int, int, dict[int, int]] | None = None
    flags: dict[str, int] = {}
    for item in _BIT_ITEM.split(spec):
        name, _, value = item.partition("=")
        name = name.strip().lower()
        bits, colon, values = value.partition(":")
        span = _BIT_RANGE.fullmatch(bits.strip())
        if name == "winner" and span and colon and winner is None and (pairs := _coded(values)):
            low, high = int(span[1]), int(span[2] or span[1])
            width = high - low + 1
            sides = {int(code): side for code, side in pairs
                     if code.isdigit() and int(code) < 1 << max(width, 0)}
            if len(sides) < len(pairs) and width > 0:
                raise ImportDataError(f"--bits {item!r}: each value of bits {low}-{high} once, "
                                      f"0 to {(1 << width) - 1}")
            winner = (low, high, sides)
        elif name and name != "winner" and name not in flags and value.strip().isdigit():
            flags[name] = int(value)
        else:
            raise ImportDataError(f"--bits {item!r}: {usage}")
    if winner is None:
        raise ImportDataError(f"--bits {spec!r}: no winner bits; {usage}")
    low, high, sides = winner
    used = [*range(low, high + 1), *flags.values()]
    if low > high or max(used) > TOP_BIT or len(set(used)) < len(used):
        raise ImportDataError(f"--bits {spec!r}: each bit named once, from 0 to {TOP_BIT} "
                              f"(the winner's from LOW up to HIGH)")
    return BitCodes(low, high, sides, flags)


def unread_codes(values: list[str], rows: list[int], column: str | None) -> str | None:
    """What an error says of the whole numbers ``values`` (each in ``rows`` rows) left
    unread in a column of result codes the user mapped (``--words 1=P,2=B``, ``--bits``);
    None when they are not such codes."""
    mapped = sorted((k for k in _EXTRA_WORDS.get() if k.isdigit()), key=int)
    if not mapped or not all(v.strip().isdigit() for v in values):
        return None
    where = f" in column {column!r}" if column else ""
    codes = [f"{v.strip()} ({n:,} row{'s' if n > 1 else ''})" for v, n in zip(values, rows,
                                                                        strict=True)]
    bits = _BITS.get()
    if bits is not None:  # the codes grouped by why each is unread
        why: dict[str, list[str]] = {}
        for code, value in zip(codes, values, strict=True):
            why.setdefault(bits.unread(int(value)), []).append(code)
        return "; ".join(f"code{'s' if len(found) > 1 else ''} {listing(found)}{where}: "
                         f"{reason}" for reason, found in why.items())
    plural = len(values) > 1
    return (f"code{'s' if plural else ''} {listing(codes)}{where} {'are' if plural else 'is'} "
            f"not mapped by --words (it maps {listing(mapped)}); add "
            + " or ".join(f"{values[0].strip()}={side}" for side in "BPT"))


def bit_codes() -> BitCodes | None:
    """The bit-coded results in force (``--bits``), if any."""
    return _BITS.get()


def user_words() -> Mapping[str, int]:
    """The outcome spellings the user gave (``--words``) in force: key -> code."""
    return _EXTRA_WORDS.get()


def outcome_words() -> Mapping[str, int]:
    """Every outcome spelling in force: the built-in ones and any ``using_words``."""
    extra = _EXTRA_WORDS.get()
    return {**OUTCOME_WORDS, **extra} if extra else OUTCOME_WORDS


def outcome_code(text: str) -> int | None:
    """The outcome code of one recorded spelling (None: not an outcome)."""
    key = outcome_key(text)
    code = _EXTRA_WORDS.get().get(key)
    return code if code is not None else OUTCOME_WORDS.get(key)

#: What separates cards in a hand string ("A-5", "K 4 9", "AS,5H") or a shoe sequence,
#: and a JSON list of cards kept as text in a database column (``["5S", "JC"]``).
CARD_SEPARATORS = re.compile(r"[\s,;|/+\-\[\]\"']+")
_OUTCOME_RUN = re.compile(r"[BPT]+")


def card_at(text: str, where: str) -> int:
    """``parse_card`` of a spelling read at ``where`` (an ``UnknownCardError`` if unknown)."""
    try:
        return parse_card(text, where=where)
    except CardError:
        pass
    try:  # the message quotes the text: a long one is cut (it is no card either way)
        return parse_card(clip(text), where=where)
    except CardError as exc:
        raise UnknownCardError(str(exc)) from None


def is_missing(text: str) -> bool:
    """Whether a cell means "nothing recorded" (blank, NA, None, '-')."""
    return text.strip().upper() in MISSING


def text_array(values: np.ndarray | list[str | None]) -> np.ndarray:
    """A column as a numpy string array (None becomes "None", which reads as missing)."""
    return np.asarray(values, dtype=object).astype(str)


def _distinct(values: np.ndarray | list[str | None]) -> tuple[list[str], np.ndarray]:
    """The distinct texts of a column ("" for None) and each row's index into them."""
    inverse, unique = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=False)
    return [u if isinstance(u, str) else "" for u in unique], np.asarray(inverse)


def _first_row(inverse: np.ndarray, index: int) -> int:
    return int(np.flatnonzero(inverse == index)[0])


def parse_cards(values: np.ndarray | list[str | None], lines: np.ndarray,
                source: Source) -> np.ndarray:
    """Card codes of a column of spellings (NO_CARD where blank or NA)."""
    unique, inverse = _distinct(values)
    codes = np.empty(len(unique), dtype=np.int8)
    for i, text in enumerate(unique):
        if is_missing(text):
            codes[i] = NO_CARD
            continue
        try:
            codes[i] = parse_card(text)
        except CardError:
            line = int(lines[_first_row(inverse, i)])
            card_at(text, source.at(line))  # raises with the place in the message
    return codes[inverse] if unique else np.empty(0, dtype=np.int8)


#: The outcome spellings an unknown-outcome error recalls.
KNOWN_OUTCOMES = ("B, P or T, Banker, Player or Tie (any case, \"Banker win\" too), 莊/閒/和, "
                  "バンカー/プレイヤー/タイ, Nhà cái/Người chơi/Hòa, Banca/Jugador/Empate, "
                  "Banquier/Joueur/Égalité, Bank/Spieler/Unentschieden, Banco/Giocatore/Pareggio, "
                  "เจ้ามือ/ผู้เล่น/เสมอ, the scoreboard's 🔴/🔵/🟢 or a road's "
                  "red/blue/green (紅/藍/綠)")
#: Distinct values an error lists (the rest are counted).
SHOWN_VALUES = 10


def listing(items: list[str], total: int | None = None, limit: int = SHOWN_VALUES,
            sep: str = ", ") -> str:
    """The first ``limit`` items joined by ``sep``, then how many more there are (of
    ``total`` when the items shown are a sample)."""
    total = len(items) if total is None else total
    shown = sep.join(items[:limit])
    rest = total - min(limit, len(items))
    return f"{shown}{sep}and {rest:,} more" if rest > 0 else shown


def parse_outcomes(values: np.ndarray | list[str | None], lines: np.ndarray,
                   source: Source, column: str | None = None) -> np.ndarray:
    """Outcome codes (BANKER, PLAYER, TIE) of a column of letters or words; -1 where blank.

    Unknown spellings are one error listing every distinct one with its count (the most
    frequent first), so a platform's own glyphs can be named with ``--words`` at once.
    """
    unique, inverse = _distinct(values)
    codes = np.empty(len(unique), dtype=np.int8)
    words = outcome_words()
    unknown: list[int] = []
    for i, text in enumerate(unique):
        key = outcome_key(text)
        if key in MISSING:
            codes[i] = -1
        elif key in words:
            codes[i] = words[key]
        else:
            unknown.append(i)
    if unknown:
        counts = np.bincount(inverse, minlength=len(unique))
        unknown.sort(key=lambda i: (-counts[i], _first_row(inverse, i)))
        first = min(_first_row(inverse, i) for i in unknown)
        by_row = sorted(unknown, key=lambda i: _first_row(inverse, i))  # the error's line first
        coded = unread_codes([unique[i] for i in by_row], counts[by_row].tolist(), column)
        if coded is not None:
            raise ImportDataError(f"{source.at(int(lines[first]))}: {coded}")
        shown = [f"{clip(unique[i], 30)!r} ({counts[i]:,} row{'s' if counts[i] > 1 else ''})"
                 for i in unknown]
        where = f" in column {column!r}" if column else ""
        what = (f"unknown outcome {shown[0]}{where}" if len(unknown) == 1 else
                f"{len(unknown):,} unknown outcomes{where}: {listing(shown)}")
        raise ImportDataError(
            f"{source.at(int(lines[first]))}: {what}; expected "
            f"{KNOWN_OUTCOMES}; name a platform's own words with --words "
            f"banker=WORD,... player=WORD tie=WORD")
    return codes[inverse] if unique else np.empty(0, dtype=np.int8)


def parse_totals(values: np.ndarray | list[str | None], lines: np.ndarray, source: Source,
                 hand: str) -> np.ndarray:
    """Hand totals 0-9 of a column; -1 where blank."""
    unique, inverse = _distinct(values)
    totals = np.empty(len(unique), dtype=np.int8)
    for i, text in enumerate(unique):
        key = text.strip()
        if key.upper() in MISSING:
            totals[i] = -1
        elif key.isascii() and key.isdigit() and len(key) <= 2 and int(key) <= 9:
            totals[i] = int(key)
        else:
            line = int(lines[_first_row(inverse, i)])
            raise ImportDataError(
                f"{source.at(line)}: {hand} total {clip(text)!r} is not a hand total: "
                f"expected 0-9"
            )
    return totals[inverse] if unique else np.empty(0, dtype=np.int8)


def parse_hands(values: np.ndarray | list[str | None], lines: np.ndarray, source: Source,
                hand: str, width: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """The cards of a column of hand strings ("A-5", "K-4-9", "AS 5H"): (rows, ``width``)
    codes, and how many cards each string held (a hand of four is a slip the checks
    report; ``width`` 6 reads a coup's cards in one list).

    A blank cell is a hand without cards (an outcome-only coup). The strings are split by
    Arrow's compute kernels and only the distinct card spellings are parsed.
    """
    text = pc.utf8_trim_whitespace(
        pa.array(np.asarray(values, dtype=object), type=pa.string(), from_pandas=True))
    missing = pc.fill_null(pc.is_in(pc.utf8_upper(text), value_set=_MISSING_ARRAY), True)
    words = pc.split_pattern_regex(pc.if_else(missing, pa.scalar(None, pa.string()), text),
                                   CARD_SEPARATORS.pattern)
    parent = pc.list_parent_indices(words).to_numpy()
    flat = pc.list_flatten(words)
    keep = pc.not_equal(flat, "").to_numpy(zero_copy_only=False)
    parent = parent[keep]
    tokens = flat.filter(pa.array(keep)).to_numpy(zero_copy_only=False)
    n = len(text)
    counts = np.bincount(parent, minlength=n)
    extra = position_in_row(parent, counts) >= width
    if extra.any():  # a recorder's slip: the row is flagged, its first three cards kept
        parent, tokens = parent[~extra], tokens[~extra]
    position = position_in_row(parent, np.bincount(parent, minlength=n))
    table = np.full((n, width), NO_CARD, dtype=np.int8)
    table[parent, position] = parse_cards(tokens, lines[parent], source)
    return table, counts


def position_in_row(parent: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each item's position within its row, for items grouped by row (``parent``)."""
    return np.arange(parent.size) - (np.cumsum(counts) - counts)[parent]


def outcome_letters(token: str) -> str | None:
    """The outcome letters a scorecard token stands for ("Banker" -> "B", "bpt" -> "BPT",
    "莊閒和" or "🔴🔵🟢" -> "BPT", "Hòa" -> "T")."""
    key = outcome_key(token)
    if _OUTCOME_RUN.fullmatch(key):
        return key
    code = outcome_code(key)
    if code is not None:
        return "BPT"[code]
    if key and all(c in _SYMBOL_LETTERS for c in key):
        return "".join(_SYMBOL_LETTERS[c] for c in key)
    extra = _EXTRA_WORDS.get()
    if key and extra and all(c in _SYMBOL_LETTERS or len(c) == 1 and c in extra for c in key):
        return "".join(_SYMBOL_LETTERS.get(c) or "BPT"[extra[c]] for c in key)
    return None


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for a message ("..." marks the cut)."""
    return text if len(text) <= limit else text[:limit] + "..."


def is_card(token: str) -> bool:
    """Whether a token is a card spelling."""
    try:
        parse_card(token)
    except CardError:
        return False
    return True
