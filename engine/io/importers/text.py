"""Line-per-shoe text formats: outcome scorecards and full card sequences.

Each non-blank line that is not a comment (``#`` or ``//``) is one shoe, optionally
labelled: ``label: BPPTB...`` (everything before the last ``:`` is the label), or a first word that
is not itself outcomes (scorecards) or a card (sequences), such as ``S1 BPPTB``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import numpy as np

from ...cards import NO_CARD
from ...coups import BANKER, PLAYER, TIE
from .lines import is_comment
from .records import CoupRecords, ImportDataError, SequenceRecords, Source
from .tokens import CARD_SEPARATORS, clip, is_card, outcome_letters, parse_cards

_WORDS = re.compile(r"[\s,;|]+")
_LETTER_CODES = np.full(128, -1, dtype=np.int8)
_LETTER_CODES[ord("B")] = BANKER
_LETTER_CODES[ord("P")] = PLAYER
_LETTER_CODES[ord("T")] = TIE


def shoe_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, stripped line) of each line that holds a shoe."""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not is_comment(line):
            yield number, line


def split_label(line: str, is_body: Callable[[str], bool],
                separators: re.Pattern[str] = _WORDS) -> tuple[str | None, list[str]]:
    """The label of a shoe line (None if unlabelled) and the words after it."""
    if ":" in line:
        label, body = line.rsplit(":", 1)
        return label.strip() or None, [w for w in separators.split(body) if w]
    first, *rest = _WORDS.split(line, maxsplit=1)
    if not is_body(first):
        return first, [w for w in separators.split(rest[0] if rest else "") if w]
    return None, [w for w in separators.split(line) if w]


def _is_outcomes(word: str) -> bool:
    return outcome_letters(word) is not None


_FIELDS = re.compile(r"\s*[|\t]\s*")
#: What separates a label from the outcomes beside it, not part of the label ('S1, BPPB',
#: 'Shoe 4 - BPPB', 'BPPB - 6 Jan').
_AFTER_LABEL = ",; -\u2013\u2014"


def _outcome_words(text: str) -> list[str] | None:
    words = [w for w in _WORDS.split(text) if w]
    return words if words and all(_is_outcomes(w) for w in words) else None


def split_scorecard(line: str) -> tuple[str | None, list[str]]:
    """The label of a scorecard line (None if unlabelled) and its outcome words.

    The label may come before or after the outcomes: fields split by ``|`` or a tab
    (``BPPB|2026-04-06T00:25:57+09:00``, ``2026-04-06 00:25 | BPPB``), everything before
    the last ``:`` (``shoe-1: BPPB``), or words before or after a run of outcomes
    (``S1 BPPB``, ``BPPB 2026-04-06``). A label may hold ``:`` (timestamps).
    """
    if _outcome_words(line) is not None:
        return None, _outcome_words(line) or []
    fields = [f for f in _FIELDS.split(line) if f]
    if len(fields) > 1:
        body = [f for f in fields if _outcome_words(f) is not None]
        if len(body) == 1:
            return " | ".join(f for f in fields if f is not body[0]) or None, \
                _outcome_words(body[0]) or []
    if ":" in line:
        label, rest = line.rsplit(":", 1)
        words = _outcome_words(rest)
        if words is not None:
            return label.strip() or None, words
    words = [w for w in re.split(r"\s+", line) if w]
    outcome = [_is_outcomes(w.strip(",;")) for w in words]
    for cut in range(1, len(words)):
        if all(outcome[cut:]) and not any(outcome[:cut][-1:]):
            return " ".join(words[:cut]).rstrip(_AFTER_LABEL) or None, \
                _outcome_words(" ".join(words[cut:])) or []
        if all(outcome[:cut]) and not outcome[cut] and not any(outcome[cut:]):
            return " ".join(words[cut:]).lstrip(_AFTER_LABEL) or None, \
                _outcome_words(" ".join(words[:cut])) or []
    return split_label(line, _is_outcomes)


def _letters(words: list[str], source: Source, number: int) -> str:
    """The outcome letters of a scorecard's words (an error naming the first that is not)."""
    shoe = []
    for position, word in enumerate(words, 1):
        mapped = outcome_letters(word)
        if mapped is None:
            raise ImportDataError(
                f"{source.at(number)}: {word!r} (word {position} of the shoe) is not an "
                f"outcome: expected B, P, T letters or the words Banker, Player, Tie"
            )
        shoe.append(mapped)
    return "".join(shoe)


def scorecard_codes(text: str, source: Source, number: int) -> np.ndarray:
    """The outcome codes of one scorecard string (a table's cell: ``PBBPTB``, ``莊 閒 莊``,
    ``B,P,P``; no label, the shoe has its own column), an error naming the place and the
    first word, or letter, that is not an outcome."""
    words = [w for w in _WORDS.split(text.strip()) if w]
    letters = []
    for position, word in enumerate(words, 1):
        mapped = outcome_letters(word)
        if mapped is None:
            bad = next((i for i, ch in enumerate(word) if outcome_letters(ch) is None), None)
            what = (f"{word[bad]!r} (character {bad + 1} of {clip(word)!r})"
                    if len(words) == 1 and bad is not None and len(word) > 1 else
                    f"{clip(word)!r} (word {position} of the shoe)")
            raise ImportDataError(f"{source.at(number)}: {what} is not an outcome: expected "
                                  f"B, P, T letters or the words Banker, Player, Tie")
        letters.append(mapped)
    joined = "".join(letters)
    if not joined:
        raise ImportDataError(f"{source.at(number)}: a shoe with no outcomes")
    return _LETTER_CODES[np.frombuffer(joined.encode("ascii"), dtype=np.uint8)]


def read_scorecard(source: Source, text: str) -> CoupRecords:
    """A scorecard: one shoe per line, "BPPTB..." or "B,P,P,T" or words, optionally labelled."""
    letters: list[str] = []
    counts: list[int] = []
    lines: list[int] = []
    labels: list[str] = []
    for number, line in shoe_lines(text):
        label, words = split_scorecard(line)
        joined = _letters(words, source, number)
        if not joined:
            if ":" not in line:  # the only word was taken for a label
                raise ImportDataError(
                    f"{source.at(number)}: {line!r} is not a line of outcomes: expected B, P, "
                    f"T letters or the words Banker, Player, Tie, after an optional 'label:'"
                )
            raise ImportDataError(f"{source.at(number)}: shoe {label} has no outcomes")
        letters.append(joined)
        counts.append(len(joined))
        lines.append(number)
        labels.append(label if label is not None else source.default_label(number))
    if not counts:
        raise ImportDataError(f"{source.path}: no shoes found (one shoe per line expected)")
    outcome = _LETTER_CODES[np.frombuffer("".join(letters).encode("ascii"), dtype=np.uint8)]
    shoe_of_row = np.repeat(np.arange(len(counts)), counts)
    n = outcome.size
    return CoupRecords(
        source=source, line=np.asarray(lines, dtype=np.int64)[shoe_of_row], shoe=shoe_of_row,
        labels=labels, cards=np.full((n, 6), NO_CARD, dtype=np.int8),
        player_total=np.full(n, -1, dtype=np.int8), banker_total=np.full(n, -1, dtype=np.int8),
        outcome=outcome.astype(np.int8),
    )


def read_sequence_text(source: Source, text: str) -> SequenceRecords:
    """Full shoes: one shoe per line, every card in dealing order, optionally labelled."""
    words: list[str] = []
    counts: list[int] = []
    lines: list[int] = []
    labels: list[str] = []
    for number, line in shoe_lines(text):
        label, cards = split_label(line, is_card, CARD_SEPARATORS)
        if not cards:
            raise ImportDataError(f"{source.at(number)}: shoe {label or line!r} has no cards")
        words.extend(cards)
        counts.append(len(cards))
        lines.append(number)
        labels.append(label if label is not None else source.default_label(number))
    if not counts:
        raise ImportDataError(f"{source.path}: no shoes found (one shoe per line expected)")
    word_lines = np.repeat(np.asarray(lines, dtype=np.int64), counts)
    codes = parse_cards(np.asarray(words, dtype=object), word_lines, source)
    missing = np.flatnonzero(codes == NO_CARD)
    if missing.size:
        i = int(missing[0])
        raise ImportDataError(
            f"{source.at(int(word_lines[i]))}: {words[i]!r} is not a card; a sequence lists "
            f"every card dealt, in order"
        )
    return SequenceRecords(source=source, sequences=np.split(codes, np.cumsum(counts)[:-1]),
                           lines=lines, labels=labels)
