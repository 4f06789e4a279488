"""Rules about kinds of evidence in records, each answering one question by content."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....cards import CardError, parse_card


def _is_card(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > 4:
        return False
    try:
        parse_card(value)
    except CardError:
        return False
    return True


def card_of(record: Any) -> str | None:
    """The card an object stands for (``{"card": "Qc", "value": 0}``): its one text value
    that is a card spelling, or among several the one under a key naming a card; None
    when the object is not a card."""
    if not isinstance(record, dict) or not record:
        return None
    cards = [(k, v) for k, v in record.items() if _is_card(v)]
    if len(cards) > 1:
        cards = [(k, v) for k, v in cards if "card" in str(k).lower()]
    if len(cards) != 1 or any(isinstance(v, dict | list) for v in record.values()):
        return None
    return str(cards[0][1])


def card_objects(value: Any) -> list[str] | None:
    """The cards of a list of card objects (a hand written as ``[{"card": "Qc", "value":
    0}, {"card": "3h", "value": 3}]``), None when ``value`` is not such a list. Such a list
    is a hand's cards, never the list of coups."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return None
    cards = [card_of(v) for v in value]
    return None if any(c is None for c in cards) else [str(c) for c in cards]


def coup_evidence(roles: dict[str, str], why: dict[str, str]) -> list[str]:
    """The coup fields a plan found by their content (``plan.COUP_CONTENT``: the outcome,
    totals, cards, hands, a coup's cards; then scorecards and card sequences): the more of
    them a table's columns hold, the more its rows are coups. A field given by a name
    whose content does not fit it is no evidence."""
    from .plan import COUP_CONTENT, SHOE_CONTENT

    return [role for role in (*COUP_CONTENT, *SHOE_CONTENT) if role in roles
            and why.get(role, "").startswith("content:") and "odd for" not in why[role]]


def table_of_coups(evidence: dict[str, list[str]]) -> tuple[str | None, str]:
    """Of several tables (or sheets), by name, each with its ``coup_evidence``: the one
    whose rows are coups (strictly the most coup fields found by content), and why; None
    when no table, or several equally, hold them."""
    ranked = sorted(evidence, key=lambda name: -len(evidence[name]))
    if not ranked or not evidence[ranked[0]]:
        return None, ""
    best = ranked[0]
    if len(ranked) > 1 and len(evidence[ranked[1]]) == len(evidence[best]):
        return None, ""
    others = "; ".join(f"{name!r}: {', '.join(evidence[name]) or 'none'}"
                       for name in ranked[1:])
    return best, (f"{best!r}, its rows holding {', '.join(evidence[best])} by content"
                  + (f" (the others fewer: {others})" if others else ""))


def colour_convention(values: Any) -> str | None:
    """How a column's road colours are read, when it holds any (red Banker, blue Player,
    green Tie by default; ``--words`` may say otherwise), to be stated in the plan; None
    when it holds no colour word."""
    from ..tokens import COLOUR_WORDS, OUTCOME_NAMES, OUTCOME_WORDS, outcome_code, outcome_key

    seen = sorted({outcome_key(str(v)) for v in values if v is not None} & COLOUR_WORDS,
                  key=lambda w: (OUTCOME_WORDS[w], w))
    if not seen:
        return None
    codes = {word: outcome_code(word) for word in seen}
    read = ", ".join(f"{word.lower()} = {OUTCOME_NAMES[code]}" for word, code in codes.items()
                     if code is not None)
    default = all(code == OUTCOME_WORDS[word] for word, code in codes.items())
    return f"road colours read {read}" + (
        " (the scoreboard's convention; --words to read them otherwise)" if default
        else " (as --words says)")


def coded_outcomes(values: Any) -> dict[tuple[str, int], int]:
    """How many rows hold each spelling the user mapped with ``--words`` (``1=P,2=B``),
    by (spelling, outcome code); empty when the column holds none. A column whose every
    value is so mapped is the outcome: the user said what the codes are."""
    import pandas as pd

    from ..tokens import is_missing, outcome_key, user_words

    words = user_words()
    if not words:
        return {}
    counts = pd.Series(np.asarray(values, dtype=object)).value_counts(dropna=True)
    return {(str(v), words[outcome_key(str(v))]): int(n) for v, n in counts.items()
            if not is_missing(str(v)) and outcome_key(str(v)) in words}
