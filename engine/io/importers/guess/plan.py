"""Which column is which field: content first, names second, the drawing rules to check.

Every column gets a content profile on a sample (``profile``). The fields of the coups
table are assigned to columns whose content fits them (outcome words, totals 0-9, cards,
card lists, scorecard strings, coup numbers), names breaking ties; where several
assignments fit (which totals column is the player's, which card columns are the
banker's), each is checked on the sample with the drawing rules and the recorded totals
and winner, and the one that holds is kept. Columns that hold one field and agree row by
row are one; name-matched columns that disagree are an error naming the rows. Only where
content, names and rules cannot decide is the user asked (``--column``), with what each
candidate holds. ``--column`` mappings are taken as they are.

A dotted name (flattened JSON) is matched by name only outside objects that hold no coup
(diagnostics, limits, multipliers, statistics): those columns are never fields unless a
``--column`` maps them.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from ....cards import NO_CARD, CardError, parse_card
from ..checks import OK, check_coups
from ..records import ImportDataError
from ..tables import RawTable
from ..tokens import CARD_SEPARATORS, MISSING, bit_codes, clip, listing, outcome_code
from .evidence import coded_outcomes
from .profile import MOSTLY, SAMPLE_ROWS, Profile, profile_column

CARD_ROLES = ("player_card1", "player_card2", "player_card3",
              "banker_card1", "banker_card2", "banker_card3")
HAND_ROLES = ("player_hand", "banker_hand")
TOTAL_ROLES = ("player_total", "banker_total")
#: Roles that make a row a coup.
COUP_CONTENT = ("outcome", *TOTAL_ROLES, *CARD_ROLES, *HAND_ROLES, "coup_cards")
#: Roles that make a row a shoe (card sequences, scorecard strings).
SHOE_CONTENT = ("sequence", "card", "scorecard")

#: Object names whose contents are never coup fields by name (normalised).
UNRELATED_OBJECTS = frozenset({
    "diagnostics", "diagnostic", "debug", "stats", "statistics", "limits", "limit",
    "betlimits", "multipliers", "multiplier", "payouts", "payout", "odds", "bets",
    "sidebets", "settings", "config", "configuration", "meta", "metadata",
    "sourcescores", "predictions", "prediction", "probabilities", "model", "models",
    "trends", "summary", "totals", "counts", "streaks", "history_stats", "historystats",
})
#: Characters of scorecards: letters, the Chinese characters, the scoreboard's circles.
_OUTCOME_CHARACTERS = frozenset("BPTbpt莊庄閒闲和\U0001F534\U0001F535\U0001F7E2 ,;|")
#: Most assignments tried against the rules before asking the user.
MAX_COMBINATIONS = 4096
#: Share of checked coups an assignment may find invalid and still hold (real recordings
#: have slips; a wrong assignment breaks far more). Among the assignments that hold,
#: names decide before the count of invalid coups: the rules overrule a name only when
#: the named assignment breaks many coups.
HOLDS = 0.1


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@lru_cache(maxsize=4096)
def unrelated(column: str) -> bool:
    """Whether a dotted name sits inside an object that holds no coup (diagnostics...)."""
    parts = column.split(".")
    return any(_normal(p) in UNRELATED_OBJECTS for p in parts[:-1])


def _fits(p: Profile, role: str, evidence: bool = True) -> bool:
    """Whether every sampled value of a column is content of ``role`` (with ``evidence``,
    digits and single cards only from ``MIN_EVIDENCE`` rows on)."""
    if evidence and role in (*TOTAL_ROLES, *CARD_ROLES, "card") and p.filled < MIN_EVIDENCE:
        return False
    if role == "outcome":
        return p.all("outcome")
    if role in TOTAL_ROLES:
        return p.all("total")
    if role in CARD_ROLES or role == "card":
        return p.all("card")
    if role in HAND_ROLES:
        return p.all("card_or_cards") and p.counts[1] <= 5 and 2 <= p.median_count <= 3
    if role == "coup_cards":
        return p.all("card_or_cards") and 4 <= p.median_count <= 6 and p.counts[1] <= 8
    if role == "sequence":
        return p.all("card_or_cards") and p.median_count >= 8
    if role == "scorecard":
        return p.all("outcome_or_outcomes") and p.longest_outcomes >= 2
    if role == "coup":
        return p.all("number")
    return False


_KIND_OF = {"outcome": "outcome", "player_total": "total", "banker_total": "total",
            **dict.fromkeys(CARD_ROLES, "card"), "card": "card",
            **dict.fromkeys(HAND_ROLES, "cards"), "coup_cards": "cards",
            "sequence": "cards", "scorecard": "outcome_or_outcomes",
            "coup": "number"}
_FAMILY = {"outcome": "outcome", **dict.fromkeys(TOTAL_ROLES, "totals"),
           **dict.fromkeys(CARD_ROLES, "cards"), "card": "cards",
           **dict.fromkeys(HAND_ROLES, "hands"), "coup_cards": "coup_cards"}
#: Fewest filled rows that make a column of digits or single cards convincing by content
#: alone (a column holding "3" once is anything).
MIN_EVIDENCE = 5
_CONTENT_ROLES = ("outcome", "player_total", "player_card1", "player_hand", "coup_cards",
                  "sequence", "scorecard")


def name_accepted(p: Profile, role: str) -> bool:
    """Whether a column named for ``role`` may be it: its content fits or mostly fits
    (odd values are then errors naming them), or fits no other field either (unknown
    words: the error lists them). A column named ``player`` that holds totals 0-9 is not
    the player's hand."""
    if role in ("shoe", "label") or p.empty:
        return True
    if role == "sequence":  # a whole shoe per row: a few cards are a coup's
        return _fits(p, role)
    if _fits(p, role) or p.mostly(_KIND_OF.get(role, "")):
        return True
    if any(_fits(p, other) for other in _CONTENT_ROLES):
        return False
    if role in (*TOTAL_ROLES, "coup"):  # a number out of range is an error naming it
        return not (p.all("timestamp") or p.all("boolean"))
    return not (p.all("decimal") or p.all("timestamp") or p.all("boolean"))


def side(column: str) -> str | None:
    """'player' or 'banker' when a column's name says which hand it is about."""
    from ..layout import role_of

    role = role_of(column)
    if role is not None and role.startswith(("player", "banker")):
        return role.split("_")[0]
    key = _normal(column.rsplit(".", 1)[-1])
    for hand in ("player", "banker"):
        if key.startswith(hand) or key.startswith(hand[0]) and len(key) <= 3:
            return hand
    return None


# ---------------------------------------------------------------- safe parsing of a sample

def _by_value(values: np.ndarray, parse: Callable[[str], object], empty: object) -> list:
    codes, unique = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=False)
    parsed = []
    for value in unique:
        text = "" if value is None or not isinstance(value, str | int | float) else str(value)
        parsed.append(empty if text.strip().upper() in MISSING else parse(text.strip()))
    return [parsed[c] for c in codes]


def _card(text: str) -> int:
    try:
        return parse_card(text)
    except CardError:
        return NO_CARD


def sample_outcomes(values: np.ndarray) -> np.ndarray:
    """Outcome codes, -1 where blank or unknown (never raises)."""
    def one(text: str) -> int:
        code = outcome_code(text)
        return -1 if code is None else code
    return np.asarray(_by_value(values, one, -1), dtype=np.int8)


def sample_totals(values: np.ndarray) -> np.ndarray:
    """Totals 0-9, -1 where blank or not a total."""
    def one(text: str) -> int:
        return int(text) if len(text) == 1 and text.isascii() and text.isdigit() else -1
    return np.asarray(_by_value(values, one, -1), dtype=np.int8)


def sample_cards(values: np.ndarray) -> np.ndarray:
    """Card codes, NO_CARD where blank or not a card."""
    return np.asarray(_by_value(values, _card, NO_CARD), dtype=np.int8)


def sample_card_lists(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Lists of cards as (n, width) codes (the first ``width``) and how many each holds."""
    def one(text: str) -> tuple[int, ...]:
        return tuple(_card(w) for w in CARD_SEPARATORS.split(text) if w)
    lists = _by_value(values, one, ())
    out = np.full((len(lists), width), NO_CARD, dtype=np.int8)
    counts = np.zeros(len(lists), dtype=np.int64)
    for i, cards in enumerate(lists):
        counts[i] = len(cards)
        out[i, :min(width, len(cards))] = cards[:width]
    return out, counts


# ---------------------------------------------------------------- the plan

@dataclass
class Plan:
    """Role -> column, why each was chosen, and the duplicate columns that must agree
    with the one kept on every row (role, kept, duplicate)."""

    roles: dict[str, str]
    why: dict[str, str] = field(default_factory=dict)
    same: list[tuple[str, str, str]] = field(default_factory=list)
    #: how the coup cards of one list are written (set when they are split)
    way: str | None = None


@dataclass
class _Sample:
    """The sample rows of a table, each candidate column parsed as each content it may be."""

    table: RawTable
    rows: int
    profiles: dict[str, Profile]
    cache: dict[tuple[str, str], Any] = field(default_factory=dict)

    def values(self, column: str) -> np.ndarray:
        return self.table.columns[column][:self.rows]

    def parsed(self, column: str, kind: str) -> Any:
        key = (column, kind)
        if key not in self.cache:
            values = self.values(column)
            if kind == "outcome":
                self.cache[key] = sample_outcomes(values)
            elif kind == "total":
                self.cache[key] = sample_totals(values)
            elif kind == "card":
                self.cache[key] = sample_cards(values)
            elif kind == "hand":
                self.cache[key] = sample_card_lists(values, 3)
            elif kind == "coup_cards":
                self.cache[key] = sample_card_lists(values, 6)
            else:
                self.cache[key] = np.asarray(["" if v is None else str(v).strip()
                                              for v in values], dtype=object)
        return self.cache[key]


def _kind(role: str) -> str:
    if role == "outcome":
        return "outcome"
    if role in TOTAL_ROLES:
        return "total"
    if role in CARD_ROLES or role == "card":
        return "card"
    if role in HAND_ROLES:
        return "hand"
    if role == "coup_cards":
        return "coup_cards"
    return "text"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.array_equal(a, b))


def _differing_rows(sample: _Sample, first: str, second: str, kind: str) -> list[int]:
    a, b = sample.parsed(first, kind), sample.parsed(second, kind)
    if isinstance(a, tuple):
        differ = (a[0] != b[0]).any(axis=1) | (a[1] != b[1])
    else:
        differ = np.asarray(a != b)
    return np.flatnonzero(differ).tolist()


def _describe(sample: _Sample, column: str) -> str:
    return f"{column!r} ({sample.profiles[column].describe()})"


class _Planner:
    """Builds the plan of one table (see the module docstring)."""

    def __init__(self, table: RawTable, fixed: dict[str, str], taken: set[str]) -> None:
        from ..layout import role_of

        self.table = table
        self.fixed = fixed
        self.order = {c: i for i, c in enumerate(table.columns)}
        free = [c for c in table.columns if c not in taken and not unrelated(c)]
        rows = min(len(table), SAMPLE_ROWS)
        self.sample = _Sample(table, rows, {c: profile_column(table.columns[c][:rows])
                                            for c in table.columns if c not in taken})
        self.free = free
        self.names: dict[str, str | None] = {}
        for c in free:
            role = role_of(c)
            if role is not None and not name_accepted(self.sample.profiles[c], role):
                role = None
            self.names[c] = role
        #: columns whose values are mostly codes the user mapped (--words 1=P,2=B, --bits),
        #: not named for another field nor counting up or running in blocks (coup numbers, a
        #: shoe key): the outcome (a code left unmapped is an error naming it)
        self.coded: set[str] = set()
        for c in free:
            values = [v for v in self.sample.values(c) if v is not None and str(v).strip()]
            mapped = sum(coded_outcomes(values).values())
            if values and mapped >= MOSTLY * len(values) and self.names[c] in (None, "outcome") \
                    and not self._counting(c) and not self.sample.profiles[c].runs:
                self.names[c] = "outcome"
                self.coded.add(c)
        self.why: dict[str, str] = {}
        self.same: list[tuple[str, str, str]] = []

    # -- candidates

    def candidates(self, roles: tuple[str, ...]) -> list[str]:
        """Free columns whose content fits one of ``roles`` or whose name is one of them,
        duplicates that agree row by row merged into the first (name-matched first)."""
        found = [c for c in self.free if self.names[c] in roles
                 or self.names[c] is None and not self._counting(c)
                 and any(_fits(self.sample.profiles[c], r) for r in roles)]
        found.sort(key=lambda c: (self.names[c] not in roles, self.order[c]))
        kind = _kind(roles[0])
        kept: list[str] = []
        for column in found:
            twin = next((k for k in kept
                         if _same(self.sample.parsed(k, kind), self.sample.parsed(column, kind))
                         and not self.sample.profiles[column].empty), None)
            if twin is None:
                kept.append(column)
            else:
                self.same.append((roles[0], twin, column))
        self._disagreeing(kept, roles, kind)
        kept.sort(key=lambda c: self.order[c])
        return kept

    def _cell(self, column: str, row: int) -> str:
        return clip(str(self.sample.values(column)[row]), 20)

    def _counting(self, column: str) -> bool:
        """Whether a column counts up by one from row to row (coup numbers, not cards)."""
        p = self.sample.profiles[column]
        return p.all("number") and p.filled >= 3 and p.counting >= 0.6

    def _disagreeing(self, kept: list[str], roles: tuple[str, ...], kind: str) -> None:
        """Two columns named for one field that hold different values: an error naming
        the first rows that differ."""
        for role in roles:
            named = [c for c in kept if self.names[c] == role]
            if len(named) < 2 or role in self.fixed:
                continue
            first, second = named[:2]
            rows = _differing_rows(self.sample, first, second, kind)
            lines = self.table.lines
            shown = ", ".join(
                f"{self.table.source.at(int(lines[r]))} ({self._cell(first, r)!r} vs "
                f"{self._cell(second, r)!r})" for r in rows[:3])
            more = f" and {len(rows) - 3:,} more rows" if len(rows) > 3 else ""
            raise ImportDataError(
                f"{self.table.source.path}: columns {first!r} and {second!r} both hold the "
                f"{role.replace('_', ' ')} but disagree: {shown}{more}; keep one, or "
                f"choose with --column {_field_of(role)}=NAME")

    # -- options per group

    def _paired(self, roles: tuple[str, str], columns: list[str]) -> list[dict[str, str]]:
        options: list[dict[str, str]] = [{}]
        free_roles = [r for r in roles if r not in self.fixed]
        if len(free_roles) == 2:
            options += [{roles[0]: a, roles[1]: b}
                        for a, b in itertools.permutations(columns, 2)]
        for role in free_roles:
            hand = role.split("_")[0]
            other_fixed = len(free_roles) == 1
            options += [{role: c} for c in columns
                        if other_fixed or side(c) == hand or self.names[c] == role]
        return options

    def _card_options(self, columns: list[str], hands: list[str]) -> list[dict[str, str]]:
        options: list[dict[str, str]] = [{}]
        free_roles = [r for r in CARD_ROLES if r not in self.fixed]
        named = {str(self.names[c]): c for c in columns if self.names[c] in free_roles}
        if named:
            options.append(named)
        if len(columns) == 1 and not hands and not any(r in self.fixed for r in CARD_ROLES):
            options.append({"card": columns[0]})
        # digits are cards too: a column of totals only competes when it must
        letters = [c for c in columns if not self.sample.profiles[c].all("total")]
        if len(letters) >= 4:
            columns = letters
        if len(free_roles) == 6 and 4 <= len(columns) <= 6:
            full = [c for c in columns
                    if (self.sample.parsed(c, "card") >= 0).all()]
            partial = [c for c in columns if c not in full]
            if len(full) == 4 and len(partial) <= 2:
                thirds = list(itertools.permutations([*partial, None, None][:2]))
                for player in itertools.combinations(full, 2):
                    banker = [c for c in full if c not in player]
                    for p3, b3 in dict.fromkeys(thirds):
                        option = {"player_card1": player[0], "player_card2": player[1],
                                  "banker_card1": banker[0], "banker_card2": banker[1]}
                        if p3 is not None:
                            option["player_card3"] = p3
                        if b3 is not None:
                            option["banker_card3"] = b3
                        options.append(option)
        return options

    # -- scoring

    def _arrays(self, roles: dict[str, str]) -> tuple[np.ndarray, ...] | None:
        """The sample's coups under an assignment: cards, totals, outcome, and the rows
        whose coup cards split no one way (None: nothing in it to check)."""
        n = self.sample.rows
        cards = np.full((n, 6), NO_CARD, dtype=np.int8)
        checked = False
        for j, role in enumerate(CARD_ROLES):
            if role in roles:
                cards[:, j] = self.sample.parsed(roles[role], "card")
                checked = True
        for j, role in enumerate(HAND_ROLES):
            if role in roles:
                cards[:, 3 * j:3 * j + 3] = self.sample.parsed(roles[role], "hand")[0]
                checked = True
        pt = (self.sample.parsed(roles["player_total"], "total") if "player_total" in roles
              else np.full(n, -1, np.int8))
        bt = (self.sample.parsed(roles["banker_total"], "total") if "banker_total" in roles
              else np.full(n, -1, np.int8))
        outcome = (self.sample.parsed(roles["outcome"], "outcome") if "outcome" in roles
                   else np.full(n, -1, np.int8))
        unsplit = np.zeros(n, dtype=bool)
        if "coup_cards" in roles:
            from ..coupcards import split_coup_cards

            lists, counts = self.sample.parsed(roles["coup_cards"], "coup_cards")
            split = split_coup_cards(lists, counts, pt, bt, outcome)
            cards = split.cards
            unsplit[list(split.problems)] = True
            checked = True
        if not checked and not ("outcome" in roles and "player_total" in roles
                                and "banker_total" in roles):
            return None
        return cards, pt, bt, outcome, unsplit

    def _score(self, roles: dict[str, str]) -> tuple[int, int]:
        """(invalid coups, coups checked) of the sample under an assignment."""
        arrays = self._arrays(roles)
        if arrays is None:
            return 0, 0
        cards, pt, bt, outcome, unsplit = arrays
        check = check_coups(cards, np.zeros(len(cards), dtype=np.int64), pt, bt, outcome,
                            1_000_000)
        judged = (cards >= 0).any(axis=1) | (outcome >= 0) | (pt >= 0)
        invalid = ((check.kind != OK) | unsplit) & judged
        return int(invalid.sum()), int(judged.sum())

    def _signature(self, roles: dict[str, str]) -> bytes:
        """What an assignment makes of the sample, blind to the order of a hand's first two
        cards (the rules cannot see it, and neither can anything else)."""
        arrays = self._arrays(roles)
        parts = []
        if arrays is None:
            n = self.sample.rows
            for role in ("outcome", *TOTAL_ROLES):
                parts.append(self.sample.parsed(roles[role], _kind(role)) if role in roles
                             else np.full(n, -2, np.int8))
        else:
            cards, pt, bt, outcome, _ = arrays
            first_two = np.sort(np.stack([cards[:, [0, 1]], cards[:, [3, 4]]], axis=1), axis=2)
            parts += [first_two, cards[:, [2, 5]], pt, bt, outcome]
        return b"".join(np.ascontiguousarray(p).tobytes() for p in parts)

    def _named(self, roles: dict[str, str]) -> int:
        """How many columns an assignment uses that are named for a field of the family
        they are given (outcome, totals, hands, card columns): named columns are always
        used, the rules only decide which is which."""
        return sum(1 for role, column in roles.items()
                   if _FAMILY.get(self.names.get(column) or "") == _FAMILY.get(role))

    def _name_score(self, roles: dict[str, str]) -> float:
        score = 0.0
        for role, column in roles.items():
            if self.names.get(column) == role:
                score += 1
            elif role.startswith(("player", "banker")) and side(column) == role.split("_")[0]:
                score += 0.5
        return score

    # -- the whole plan

    def plan(self) -> Plan:
        outcome = self.candidates(("outcome",)) if "outcome" not in self.fixed else []
        totals = self.candidates(TOTAL_ROLES)
        hands = self.candidates(HAND_ROLES)
        cards = self.candidates((*CARD_ROLES, "card"))
        coup_cards = self.candidates(("coup_cards",)) if "coup_cards" not in self.fixed else []
        groups: list[list[dict[str, str]]] = [
            [{}] + [{"outcome": c} for c in outcome],
            self._paired(TOTAL_ROLES, totals),
            self._paired(HAND_ROLES, hands),
            self._card_options(cards, hands),
            [{}] + [{"coup_cards": c} for c in coup_cards],
        ]
        best = self._choose(groups)
        roles = dict(self.fixed)
        roles.update(best)
        if not any(r in roles for r in COUP_CONTENT):
            self._shoe_content(roles)
        self._keys(roles)
        self.same = [(r, kept, dup) for r, kept, dup in self.same
                     if roles.get(r) == kept or (r in TOTAL_ROLES + HAND_ROLES + CARD_ROLES
                                                 and kept in roles.values())]
        for role, column in roles.items():
            self.why.setdefault(role, self._reason(role, column))
        if "outcome" in roles:
            from .evidence import colour_convention

            columns = [roles["outcome"], *(dup for r, _, dup in self.same if r == "outcome")]
            colours = colour_convention(np.concatenate([self.sample.values(c)
                                                        for c in columns]))
            if colours is not None:
                self.why["outcome"] += f"; {colours}"
        return Plan(roles=roles, why=self.why, same=self.same)

    def _choose(self, groups: list[list[dict[str, str]]]) -> dict[str, str]:
        combos: list[dict[str, str]] = []
        for parts in itertools.product(*groups):
            merged: dict[str, str] = {}
            columns: list[str] = []
            for part in parts:
                merged.update(part)
                columns += part.values()
            if len(set(columns)) == len(columns) and not (
                    "card" in merged and any(r in merged for r in COUP_CONTENT)):
                combos.append(merged)
            if len(combos) > MAX_COMBINATIONS:
                break
        prior = [(-self._named(c), -len(c), -self._name_score(c),
                  tuple(self.order.get(c[r], 0) for r in sorted(c))) for c in combos]
        ranked = sorted(range(len(combos)), key=lambda i: (prior[i], i))
        scores: dict[int, tuple[int, int]] = {}

        def score(i: int) -> tuple[int, int]:
            if i not in scores:
                roles = {**self.fixed, **combos[i]}
                scores[i] = self._score(roles) if len(combos) > 1 else (0, 0)
            return scores[i]

        def holds(i: int) -> bool:
            invalid, checked = score(i)
            return invalid <= max(2, HOLDS * checked)

        # names first: when the best-named assignment holds, only its ties (and the next
        # one, for the report) need the rules; otherwise every assignment is checked
        top = ranked[0]
        if holds(top):
            pool = [i for i in ranked if prior[i][:3] == prior[top][:3]]
            pool += [i for i in ranked if i not in pool][:1]
        else:
            pool = ranked
        scored = []
        for i in pool:
            invalid, checked = score(i)
            named, explained, name_score, order = prior[i]
            scored.append(((named, not holds(i), explained, name_score, invalid, order, i),
                           combos[i], invalid, checked))
        scored.sort(key=lambda item: item[0])
        key, best, invalid, checked = scored[0]
        tied = [item for item in scored[1:] if item[0][:5] == key[:5]]
        if tied:
            mine = self._signature({**self.fixed, **best})
            rivals = [item[1] for item in tied
                      if self._signature({**self.fixed, **item[1]}) != mine]
            if rivals:
                self._ambiguous(best, rivals)
        runner_up = next((item for item in scored[1:] if len(item[1]) == len(best)
                          and item[1] != best and item[2] > invalid), None)
        if checked and len(scored) > 1:
            rules = f"{checked - invalid:,} of {checked:,} sampled coups hold"
            if runner_up is not None:
                rules += (f"; the next best assignment breaks {runner_up[2]:,}")
            self.why["rules"] = rules
            for role in best:
                self.why[role] = self._reason(role, best[role], "rules check")
        return best

    def _ambiguous(self, best: dict[str, str], rivals: list[dict[str, str]]) -> None:
        differ = sorted({r for rival in rivals for r in set(best) | set(rival)
                         if best.get(r) != rival.get(r)}, key=lambda r: COUP_CONTENT.index(r)
                        if r in COUP_CONTENT else 99)
        columns = sorted(dict.fromkeys(c for combo in (best, *rivals)
                                       for r, c in combo.items() if r in differ),
                         key=lambda c: self.order[c])
        held = listing([_describe(self.sample, c) for c in columns])
        fields = " and ".join(_field_of(r).replace("_", " ") for r in differ)
        choose = " ".join(f"--column {_field_of(r)}=NAME" for r in differ)
        raise ImportDataError(
            f"{self.table.source.path}: cannot tell which column is the {fields}: the "
            f"candidates are {held}; neither their content, their names nor the drawing "
            f"rules decide; choose with {choose}")

    def _shoe_content(self, roles: dict[str, str]) -> None:
        """A table of shoes: card sequences (one shoe per row or one card per row) or
        scorecard strings, by content (names break ties)."""
        for role in ("sequence", "scorecard", "card"):
            if role in self.fixed:
                return
        for role in ("sequence", "scorecard"):
            found = [c for c in self.free if c not in roles.values()
                     and (_fits(self.sample.profiles[c], role) or self.names[c] == role)
                     and name_accepted(self.sample.profiles[c], role)]
            found.sort(key=lambda c: (self.names[c] != role, self.order[c]))
            if found:
                roles[role] = found[0]
                return
        self._shoes_with_slips(roles)

    def _shoes_with_slips(self, roles: dict[str, str]) -> None:
        """Nothing fits whole: a column of shoes with a typo in one (``BPXB``, a card
        misspelt) is still that column, so that reading it names the bad word."""
        from ..layout import role_of

        free = [c for c in self.free if c not in roles.values()]
        for column in free:
            values = [str(v) for v in self.sample.values(column) if v is not None]
            letters = "".join(v.strip() for v in values)
            outcome_share = (sum(ch in _OUTCOME_CHARACTERS for ch in letters) / len(letters)
                             if letters else 0.0)
            p = self.sample.profiles[column]
            if p.mostly("outcome_or_outcomes") or (outcome_share >= 0.8
                                                   and p.longest_outcomes != 1
                                                   and len(letters) > len(values)):
                roles["scorecard"] = column
                return
            if p.mostly("cards") and (p.median_count >= 8 or role_of(column) == "sequence"):
                roles["sequence"] = column
                return
        named = [c for c in free if role_of(c) in ("sequence", "scorecard")]
        if named:
            roles[str(role_of(named[0]))] = named[0]

    def _keys(self, roles: dict[str, str]) -> None:
        """The coup number, shoe and label columns: by name, else by content."""
        used = set(roles.values())
        for role in ("coup", "shoe", "label"):
            if role in roles:
                continue
            named = [c for c in self.free if c not in used and self.names[c] == role]
            if named:
                roles[role] = named[0]
                used.add(named[0])
        if "coup" not in roles:
            counting = [c for c in self.free if c not in used
                        and self.sample.profiles[c].all("number")
                        and self.sample.profiles[c].counting >= 0.6]
            if counting:
                roles["coup"] = counting[0]
                used.add(counting[0])
        # a shoe key by content; beside coup numbers only one that changes where they
        # restart: a column that merely runs in blocks (a dealer's id) must not gather
        # rows across restarts
        if "shoe" not in roles and "label" not in roles:
            keys = [c for c in self.free if c not in used and self._key_like(c)
                    and ("coup" not in roles or self._changes_at_restarts(c, roles["coup"]))]
            if keys:
                best = max(keys, key=lambda c: (self.sample.profiles[c].distinct,
                                                -self.order[c]))
                roles["shoe"] = best
                self.why["shoe"] = "content: values in blocks of rows, as a shoe key's are"

    def _changes_at_restarts(self, column: str, coup: str) -> bool:
        """Whether a column's value changes only where the coup numbers start again."""
        text = self.sample.parsed(column, "text")
        numbers = [int(v) if str(v).strip().isdigit() and len(str(v).strip()) <= 10 else -1
                   for v in self.sample.values(coup)]
        for row in range(1, len(text)):
            if text[row] != text[row - 1] and not (0 <= numbers[row] <= numbers[row - 1]
                                                    or 0 <= numbers[row] <= 1):
                return False
        return True

    def _key_like(self, column: str) -> bool:
        """Whether a column looks like a shoe key: filled on every row, each value in one
        run of rows, ids with a digit (``shoe-3``, ``41``), not times."""
        p = self.sample.profiles[column]
        with_digit = any(ch.isdigit() for e in p.examples for ch in e)
        return (p.runs and p.filled == self.sample.rows and with_digit
                and not p.all("timestamp") and not (p.all("decimal") and not p.all("number")))

    def _reason(self, role: str, column: str, extra: str = "") -> str:
        if role in self.fixed:
            return "--column"
        p = self.sample.profiles.get(column)
        parts = []
        if p is not None and role not in ("shoe", "label", "coup"):
            fits = _fits(p, role, evidence=False)
            parts.append(f"content: {p.kind_words()}" if fits else
                         f"content: {p.kind_words()}, odd for a {_field_of(role)} column")
        elif p is not None and role == "coup":
            parts.append("content: whole numbers" if p.all("number") else
                         f"content: {p.kind_words()}")
        if column in self.coded:
            parts.append("--bits" if bit_codes() is not None else "--words")
        elif self.names.get(column) == role:
            parts.append("name")
        if extra:
            parts.append(extra)
        return "; ".join(parts)


def _field_of(role: str) -> str:
    from ..layout import FIELDS

    return next((f for f, r in FIELDS.items() if r == role), role)


def make_plan(table: RawTable, fixed: dict[str, str], taken: set[str]) -> Plan:
    """The plan of ``table``: ``fixed`` roles (from ``--column``) as they are, the rest by
    content, names and the rules (``taken``: columns the mapping used)."""
    return _Planner(table, fixed, taken).plan()
