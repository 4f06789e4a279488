"""What the columns of a table mean, and the coups or card sequences they hold.

Column names are matched after lower-casing and dropping everything but letters and
digits ("Player Card 1", "player_card1", "P1" are the same column). One coup per row:
card columns, or one hand string per hand, and/or the outcome and totals. One card per
row (``card``) or one shoe per row (``cards``/``sequence``): full card sequences.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd

from ...cards import NO_CARD
from .formats import FIELD_NAMES
from .guess.evidence import coded_outcomes
from .guess.plan import Plan, make_plan, sample_outcomes
from .records import CoupRecords, ImportDataError, SequenceRecords, run_starts
from .tables import RawTable
from .tokens import (
    CARD_SEPARATORS,
    MISSING,
    clip,
    is_missing,
    listing,
    parse_cards,
    parse_hands,
    parse_outcomes,
    parse_totals,
    text_array,
)

_ROLES: tuple[tuple[str, str], ...] = (
    # English names, then the Spanish, Portuguese, French, German and Italian ones.
    ("shoe", r"shoe|shoeid|shoeno|shoenum|shoenumber|shoeindex|shoekey|zapato|sapato|sabot"
             r"|schuh|schuhnr"),
    ("label", r"label|shoelabel|shoename"),
    ("coup", r"coup|coupid|coupno|coupnum|coupnumber|hand|handno|handnum|handnumber"
             r"|round|roundno|roundnum|roundnumber|game|gameno|gamenum|gamenumber"
             r"|coupindex|handindex|roundindex|mano|ronda|mao|rodada|manche|runde|partita"),
    ("outcome", r"outcome|winner|result|win|decision|gameoutcome|gameresult|winningoutcome"
                r"|resultofhand|handresult|roundresult|coupresult|winningside|outcomes"
                r"|ganador|resultado|vencedor|gagnant|resultat|ergebnis|gewinner|sieger"
                r"|risultato|vincitore|esito"),
    ("player_total", r"(?:player|p)(?:hand)?(?:total|score|points|pts|value)"),
    ("banker_total", r"(?:banker|b)(?:hand)?(?:total|score|points|pts|value)"),
    ("player_card1", r"(?:player|p)(?:card)?1"),
    ("player_card2", r"(?:player|p)(?:card)?2"),
    ("player_card3", r"(?:player|p)(?:card)?3"),
    ("banker_card1", r"(?:banker|b)(?:card)?1"),
    ("banker_card2", r"(?:banker|b)(?:card)?2"),
    ("banker_card3", r"(?:banker|b)(?:card)?3"),
    ("player_hand", r"player|(?:player|p)(?:cards|hand|handcards)"),
    ("banker_hand", r"banker|(?:banker|b)(?:cards|hand|handcards)"),
    ("card", r"card"),
    ("sequence", r"cards|sequence|shoecards"),
    ("coup_cards", r"coupcards|roundcards|allcards|dealtcards|cardsdealt"),
    ("scorecard", r"scorecard|scoreboard|beadroad|beadplate|road|shoeresults|shoeoutcomes"),
)
_PATTERNS = tuple((role, re.compile(pattern)) for role, pattern in _ROLES)

CARD_ROLES = ("player_card1", "player_card2", "player_card3",
              "banker_card1", "banker_card2", "banker_card3")
HAND_ROLES = ("player_hand", "banker_hand")
#: Roles whose presence makes a record a coup (or a card sequence), not just a shoe.
COUP_ROLES = (*CARD_ROLES, *HAND_ROLES, "outcome", "player_total", "banker_total",
              "card", "sequence", "coup_cards", "scorecard")
#: ``--column FIELD=SOURCE``: the field names, and the role each one fills.
FIELDS: dict[str, str] = {
    "shoe": "shoe", "label": "label", "coup": "coup", "outcome": "outcome",
    "player_total": "player_total", "banker_total": "banker_total",
    "player_cards": "player_hand", "banker_cards": "banker_hand",
    **{name: name for name in CARD_ROLES},
    "cards": "sequence", "card": "card", "coup_cards": "coup_cards",
    "scorecard": "scorecard",
}
EXPECTED = ("a column of outcomes (B/P/T or words), cards (one per column, hand strings, a "
            "coup's cards in one list), totals 0-9, scorecard strings (a shoe per row), or "
            "card sequences (a card per row, or a shoe per row); or map columns with "
            "--column FIELD=SOURCE")
#: The largest recorded coup number kept (coup numbers are stored as int32).
MAX_COUP_NUMBER = 2**31 - 1
_KEY_SEPARATOR = "/"
_MAX_SLIPS = 1000  # slips described in full (the rest are counted)


def normalise(name: str) -> str:
    """A column name as matched: lower case, accents dropped ("Résultat" is "resultat"),
    letters and digits only."""
    plain = unicodedata.normalize("NFKD", name.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", plain)


def _match(key: str) -> str | None:
    for role, pattern in _PATTERNS:
        if pattern.fullmatch(key):
            return role
    return None


def role_of(name: str) -> str | None:
    """The role a column name plays (None: not a known column).

    A dotted name (flattened JSON: ``gameData.bankerHand.score``) is matched whole, then
    without its leading parts, longest first (``bankerHand.score``, ``score``).
    """
    parts = name.split(".")
    for i in range(len(parts)):
        role = _match(normalise("".join(parts[i:])))
        if role is not None:
            return role
    return None


def parse_mapping(specs: list[str] | None) -> dict[str, list[str]]:
    """``--column FIELD=SOURCE[,SOURCE...]`` options as field -> source columns."""
    mapping: dict[str, list[str]] = {}
    for spec in specs or []:
        field_name, sep, sources = spec.partition("=")
        field_name = field_name.strip().lower()
        names = [n.strip() for n in sources.split(",") if n.strip()]
        if not sep or not names:
            raise ImportDataError(f"--column {spec!r}: expected FIELD=SOURCE (e.g. "
                                  f"outcome='Winning Outcome', shoe=tableId,shoe)")
        if field_name not in FIELDS:
            raise ImportDataError(f"--column {spec!r}: unknown field {field_name!r}; the "
                                  f"fields are {', '.join(FIELDS)}")
        if field_name in mapping:
            raise ImportDataError(f"--column {field_name}= is given twice")
        if len(names) > 1 and field_name not in ("shoe", "label"):
            raise ImportDataError(f"--column {spec!r}: only shoe and label may be built "
                                  f"from several columns")
        mapping[field_name] = names
    return mapping


def find_column(columns: list[str], name: str) -> str | None:
    """The column called ``name``: exactly, else the one whose normalised name (or dotted
    tail) matches it."""
    if name in columns:
        return name
    key = normalise(name)
    hits = [c for c in columns if normalise(c) == key]
    if not hits:
        hits = [c for c in columns if normalise(c.rsplit(".", 1)[-1]) == key]
    return hits[0] if len(hits) == 1 else None


def _mapped(table: RawTable, mapping: dict[str, list[str]]) -> dict[str, str]:
    """Role -> column for the mapped fields (a column joined from several for shoe keys)."""
    roles: dict[str, str] = {}
    names = list(table.columns)
    for field_name, sources in mapping.items():
        found = []
        for source in sources:
            column = find_column(names, source)
            if column is None:
                raise ImportDataError(
                    f"{table.source.path}: --column {field_name}={source}: no column "
                    f"{source!r} (columns: {', '.join(repr(n) for n in names) or 'none'})")
            found.append(column)
        if len(found) == 1:
            roles[FIELDS[field_name]] = found[0]
            continue
        joined = _KEY_SEPARATOR.join(found)
        parts = [text_array(table.columns[c]) for c in found]
        value = parts[0].astype(object)
        for part in parts[1:]:
            value = value + _KEY_SEPARATOR + part.astype(object)
        table.columns[joined] = value
        roles[FIELDS[field_name]] = joined
    return roles


def plan_table(table: RawTable, mapping: dict[str, list[str]] | None = None) -> Plan:
    """Which column is which field: the ``mapping`` (field -> source columns) as given,
    the rest by content, names and the drawing rules (see ``plan``)."""
    fixed = _mapped(table, mapping or {})
    taken = set(fixed.values()) | {c for sources in (mapping or {}).values() for c in sources}
    plan = make_plan(table, fixed, taken)
    plan.why.update(table.why)
    used = {*plan.roles.values(), *taken, *(duplicate for _, _, duplicate in plan.same)}
    left = [repr(c) for c in table.columns if c not in used]
    read = table.why.get("left out")  # by the reader: a JSON record's own lists of records
    parts = ([f"{listing(left)} (read into no field)"] if left else []) + ([read] if read else [])
    if parts:
        plan.why["left out"] = "; ".join(parts)
    return plan


def assign_roles(table: RawTable, mapping: dict[str, list[str]] | None = None) -> dict[str, str]:
    """Role -> column name of ``plan_table``."""
    return plan_table(table, mapping).roles


def _field_of(role: str) -> str:
    return next(f for f, r in FIELDS.items() if r == role)


def table_records(table: RawTable, mapping: dict[str, list[str]] | None = None,
                  plan: Plan | None = None) -> CoupRecords | SequenceRecords:
    """The coups or the card sequences a table holds, by its columns (and ``mapping``);
    ``plan`` (made on an earlier block of the same file) is reused as it is."""
    if not len(table):
        raise ImportDataError(f"{table.source.path}: no rows")
    if plan is None:
        plan = plan_table(table, mapping)
    else:
        _mapped(table, mapping or {})  # joined shoe keys
    roles = plan.roles
    check_duplicates(table, plan)
    shoe_roles = [r for r in ("card", "sequence", "scorecard") if r in roles]
    coup_roles = [r for r in (*CARD_ROLES, *HAND_ROLES, "outcome", "player_total",
                              "banker_total", "coup_cards") if r in roles]
    found = [repr(n) for n in table.columns]
    if not shoe_roles and not coup_roles:
        raise ImportDataError(
            f"{table.source.path}: no column this importer knows (columns: "
            f"{listing(found) or 'none'}); expected {EXPECTED}"
        )
    if len(shoe_roles) > 1 or (shoe_roles and coup_roles):
        names = ", ".join(repr(roles[r]) for r in (*shoe_roles, *coup_roles))
        shoe_column = roles[shoe_roles[0]]
        example = f"--column shoe={shoe_column!r}"
        others = [*shoe_roles[1:], *coup_roles]
        if others:  # a scorecard column beside a shoe number holds one outcome a row
            field = "outcome" if others[0] == "scorecard" else _field_of(others[0])
            example += f" --column {field}={roles[others[0]]!r}"
        raise ImportDataError(
            f"{table.source.path}: columns {names} mix whole shoes (card sequences or "
            f"scorecards) with coups; a file holds either coups (one per row) or shoes. "
            f"If {shoe_column!r} holds something else (a shoe number, a note), say what "
            f"each column holds, e.g. {example}"
        )
    card_kinds = [kind for kind, members in (("card columns", CARD_ROLES),
                                             ("hand strings", HAND_ROLES),
                                             ("a coup's cards in one list", ("coup_cards",)))
                  if any(r in roles for r in members)]
    if len(card_kinds) > 1:
        columns = ", ".join(repr(roles[r]) for r in (*CARD_ROLES, *HAND_ROLES, "coup_cards")
                            if r in roles)
        raise ImportDataError(
            f"{table.source.path}: both {' and '.join(card_kinds)} ({columns}); keep one, "
            f"or choose with --column")
    if "sequence" in roles:
        sequences = _whole_shoes(table, roles)
        sequences.mapping, sequences.why = dict(roles), dict(plan.why)
        return sequences
    if "scorecard" in roles:
        scorecards = _scorecards(table, roles)
        scorecards.why = dict(plan.why)
        return scorecards
    table, shoe, labels, number = _shoes(table, roles)
    if "card" in roles:
        sequences = _card_per_row(table, roles, shoe, labels)
        sequences.mapping, sequences.why = dict(roles), dict(plan.why)
        return sequences
    records = _coups(table, roles, shoe, labels)
    records.recorded_coup = number
    records.why = dict(plan.why)
    return records


#: Rows that differ, named in an error about two columns that should agree.
_SHOWN_ROWS = 3


def check_duplicates(table: RawTable, plan: Plan) -> None:
    """Every pair of columns the plan found to hold one field must agree on every row:
    where they do not, an error names the first rows that differ."""
    for role, kept, other in plan.same:
        if kept not in table.columns or other not in table.columns:
            continue
        a, b = table.columns[kept], table.columns[other]
        if role in ("outcome",):
            differ = sample_outcomes(a) != sample_outcomes(b)
        else:
            differ = text_array(a) != text_array(b)
            if role in (*CARD_ROLES, *HAND_ROLES, "player_total", "banker_total"):
                differ &= ~np.char.equal(np.char.upper(np.char.replace(
                    np.char.strip(text_array(a)), " ", "")), np.char.upper(np.char.replace(
                        np.char.strip(text_array(b)), " ", "")))
        rows = np.flatnonzero(differ)
        if not rows.size:
            continue
        shown = ", ".join(f"{table.source.at(int(table.lines[r]))} ({clip(str(a[r]), 20)!r} vs "
                          f"{clip(str(b[r]), 20)!r})" for r in rows[:_SHOWN_ROWS].tolist())
        more = f" and {rows.size - _SHOWN_ROWS:,} more rows" if rows.size > _SHOWN_ROWS else ""
        raise ImportDataError(
            f"{table.source.path}: columns {kept!r} and {other!r} both hold the "
            f"{role.replace('_', ' ')} and agree on the first rows, but not on {shown}{more}; "
            f"keep one, or choose with --column {_field_of(role)}=NAME")


def _scorecards(table: RawTable, roles: dict[str, str]) -> CoupRecords:
    """One shoe per row: a scorecard string of outcomes (``PBBPTB...``, ``莊 閒 莊``), the
    shoe named by its shoe or label column (else file and row)."""
    from .text import scorecard_codes

    values = _column(table, roles, "scorecard")
    label_column = next((_column(table, roles, r) for r in ("label", "shoe") if r in roles),
                        None)
    codes: list[np.ndarray] = []
    labels: list[str] = []
    lines: list[int] = []
    for i, value in enumerate(values):
        text = "" if value is None else str(value).strip()
        if is_missing(text):
            continue
        line = int(table.lines[i])
        codes.append(scorecard_codes(text, table.source, line))
        label = None
        if label_column is not None and label_column[i] is not None:
            label = str(label_column[i]).strip() or None
        if label is None and table.group is not None and table.group[i] >= 0:
            label = table.group_labels[int(table.group[i])]
        labels.append(label if label is not None else table.source.default_label(line))
        lines.append(line)
    if not codes:
        raise ImportDataError(f"{table.source.path}: no scorecard in column "
                              f"{roles['scorecard']!r}")
    counts = [c.size for c in codes]
    shoe = np.repeat(np.arange(len(codes)), counts)
    outcome = np.concatenate(codes).astype(np.int8)
    n = outcome.size
    return CoupRecords(
        source=table.source, line=np.asarray(lines, dtype=np.int64)[shoe], shoe=shoe,
        labels=labels, cards=np.full((n, 6), NO_CARD, dtype=np.int8),
        player_total=np.full(n, -1, dtype=np.int8), banker_total=np.full(n, -1, dtype=np.int8),
        outcome=outcome, mapping=dict(roles))


def _column(table: RawTable, roles: dict[str, str], role: str) -> np.ndarray:
    return table.columns[roles[role]]


def _reordered(table: RawTable, order: np.ndarray) -> RawTable:
    return RawTable(source=table.source,
                    columns={k: v[order] for k, v in table.columns.items()},
                    lines=table.lines[order],
                    group=None if table.group is None else table.group[order],
                    group_labels=table.group_labels, group_lines=table.group_lines)


def _shoes(table: RawTable, roles: dict[str, str]
           ) -> tuple[RawTable, np.ndarray, list[str], np.ndarray]:
    """The table with each shoe's rows together, each row's shoe (0, 1, ...), each
    shoe's label, and each row's recorded coup number (-1: none).

    With a shoe key (shoe or label column, or a JSON shoe object) the rows of a shoe are
    gathered wherever they are in the file (several tables logged in time order), shoes in
    order of their first row; a coup number that falls back to 0 or 1 starts the key's
    next shoe. With no key, a coup number that does not go up starts a new shoe.
    """
    composite = row_keys(table, roles)
    n = len(table)
    number = (coup_numbers(table, roles) if "coup" in roles
              else np.full(n, -1, dtype=np.int64))
    if composite is not None:
        key_id, _ = pd.factorize(composite)
        key_id = np.asarray(key_id, dtype=np.int64)
        segment = np.zeros(n, dtype=np.int64)
        if "coup" in roles:
            segment = _restarts(table, key_id, number)
        shoe_key = key_id * (int(segment.max()) + 1 if n else 1) + segment
        first_seen, shoe = np.unique(shoe_key, return_inverse=True)
        # number shoes by their first row, and keep each shoe's rows in file order
        first_row = np.full(first_seen.size, n, dtype=np.int64)
        np.minimum.at(first_row, shoe, np.arange(n))
        rank = np.empty(first_seen.size, dtype=np.int64)
        rank[np.argsort(first_row, kind="stable")] = np.arange(first_seen.size)
        shoe = rank[shoe]
        order = np.argsort(shoe, kind="stable")
        if not (order == np.arange(n)).all():
            table, shoe, number = _reordered(table, order), shoe[order], number[order]
    elif "coup" in roles:
        a, b = number[:-1], number[1:]
        same = np.r_[False, (b > a) | (a < 0) | (b < 0)]
        shoe = np.cumsum(~same) - 1
    else:
        shoe = np.zeros(n, dtype=np.int64)
    starts = run_starts(shoe)
    labels: list[str] = []
    label_column = next((_column(table, roles, r) for r in ("label", "shoe") if r in roles),
                        None)
    for start in starts:
        text = None
        if label_column is not None and label_column[start] is not None:
            text = str(label_column[start]).strip() or None
        if text is None and table.group is not None and table.group[start] >= 0:
            text = table.group_labels[int(table.group[start])]
        labels.append(text if text is not None
                      else table.source.default_label(int(table.lines[start])))
    return table, shoe, labels, number


def row_keys(table: RawTable, roles: dict[str, str]) -> np.ndarray | None:
    """Each row's shoe key (its shoe and label columns, and JSON shoe object), or None
    when the table has none."""
    keys = [text_array(_column(table, roles, r)) for r in ("shoe", "label") if r in roles]
    if table.group is not None:
        keys.append(table.group.astype(str))
    if not keys:
        return None
    composite = keys[0].astype(object)
    for key in keys[1:]:
        composite = composite + "\x1f" + key.astype(object)
    return np.asarray(composite, dtype=object)


def coup_numbers(table: RawTable, roles: dict[str, str]) -> np.ndarray:
    """The recorded coup numbers (whole numbers up to ``MAX_COUP_NUMBER``; -1 blank)."""
    raw = _column(table, roles, "coup")
    text = np.char.strip(text_array(raw))
    blank = np.isin(np.char.upper(text), list(MISSING))
    whole = np.char.isdigit(text) & (np.char.str_len(text) <= 10)
    bad = ~(whole | blank)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ImportDataError(
            f"{table.source.at(int(table.lines[i]))}: coup number {clip(str(text[i]))!r} is "
            f"not a whole number up to {MAX_COUP_NUMBER:,}"
        )
    number = np.full(text.shape[0], -1, dtype=np.int64)
    number[whole] = text[whole].astype(np.int64)
    if (number > MAX_COUP_NUMBER).any():
        i = int(np.flatnonzero(number > MAX_COUP_NUMBER)[0])
        raise ImportDataError(
            f"{table.source.at(int(table.lines[i]))}: coup number {number[i]:,} is past "
            f"the limit of {MAX_COUP_NUMBER:,}"
        )
    return number


def _restarts(table: RawTable, key_id: np.ndarray, number: np.ndarray) -> np.ndarray:
    """Per row, which shoe of its key it belongs to: a key's coup number that falls back
    to 0 or 1 starts its next shoe; one that goes down otherwise (or repeats) is an error.
    """
    n = key_id.size
    order = np.argsort(key_id, kind="stable")
    k, num = key_id[order], number[order]
    same_key = np.r_[False, k[1:] == k[:-1]]
    known = np.r_[False, (num[1:] >= 0) & (num[:-1] >= 0)]
    down = same_key & known & np.r_[False, num[1:] <= num[:-1]]
    restart = down & (num <= 1)
    wrong = down & ~restart
    if wrong.any():
        j = int(np.flatnonzero(wrong)[0])
        row, previous = int(order[j]), int(order[j - 1])
        raise ImportDataError(
            f"{table.source.at(int(table.lines[row]))}: coup {num[j]} follows coup "
            f"{num[j - 1]} (line {table.lines[previous]}) in the same shoe; each shoe's "
            f"coup numbers must go up (a shoe restarts at coup 1)"
        )
    segment_sorted = np.cumsum(restart) - np.maximum.accumulate(
        np.where(~same_key, np.cumsum(restart), 0))
    segment = np.empty(n, dtype=np.int64)
    segment[order] = segment_sorted
    return segment


def _coups(table: RawTable, roles: dict[str, str], shoe: np.ndarray,
           labels: list[str]) -> CoupRecords:
    source, lines, n = table.source, table.lines, len(table)
    cards = np.full((n, 6), NO_CARD, dtype=np.int8)
    for j, role in enumerate(CARD_ROLES):
        if role in roles:
            cards[:, j] = parse_cards(_column(table, roles, role), lines, source)
    slips: dict[int, str] = {}
    for j, role in enumerate(HAND_ROLES):
        if role in roles:
            hand = role.split("_")[0]
            values = _column(table, roles, role)
            cards[:, 3 * j:3 * j + 3], counts = parse_hands(values, lines, source, hand)
            for row in np.flatnonzero(counts > 3)[:_MAX_SLIPS].tolist():
                slips.setdefault(row, f"the {hand} hand {clip(str(values[row]))!r} has "
                                      f"{counts[row]} cards; a hand has 2 or 3")
            for row in np.flatnonzero(counts > 3)[_MAX_SLIPS:].tolist():
                slips.setdefault(row, f"the {hand} hand has {counts[row]} cards")
    missing = np.full(n, -1, dtype=np.int8)
    player_total = (parse_totals(_column(table, roles, "player_total"), lines, source,
                                 "player") if "player_total" in roles else missing.copy())
    banker_total = (parse_totals(_column(table, roles, "banker_total"), lines, source,
                                 "banker") if "banker_total" in roles else missing.copy())
    outcome = (parse_outcomes(_column(table, roles, "outcome"), lines, source,
                              roles["outcome"]) if "outcome" in roles else missing.copy())
    unsplit: dict[int, str] = {}
    if "coup_cards" in roles:
        from .coupcards import split_coup_cards

        lists, counts = parse_hands(_column(table, roles, "coup_cards"), lines, source,
                                    "coup", width=6)
        split = split_coup_cards(lists, counts, player_total, banker_total, outcome)
        cards, unsplit = split.cards, split.problems
    known = (cards >= 0).any(axis=1) | (outcome >= 0) | ((player_total >= 0)
                                                         & (banker_total >= 0))
    known[list(unsplit)] = True  # reported as what it is, not as an empty row
    return CoupRecords(source=source, line=lines.copy(), shoe=shoe, labels=labels,
                       cards=cards, player_total=player_total, banker_total=banker_total,
                       outcome=outcome, slips=slips, no_outcome=~known,
                       mapping={r: roles[r] for r in roles}, unsplit=unsplit,
                       codes=coded_outcomes(_column(table, roles, "outcome"))
                       if "outcome" in roles else {})


def _card_per_row(table: RawTable, roles: dict[str, str], shoe: np.ndarray,
                  labels: list[str]) -> SequenceRecords:
    codes = parse_cards(_column(table, roles, "card"), table.lines, table.source)
    blank = np.flatnonzero(codes == NO_CARD)
    if blank.size:
        raise ImportDataError(
            f"{table.source.at(int(table.lines[blank[0]]))}: no card; a sequence lists every "
            f"card dealt, one per row"
        )
    starts = run_starts(shoe)
    cut = starts[1:]
    return SequenceRecords(
        source=table.source, sequences=np.split(codes, cut),
        lines=[int(table.lines[s]) for s in starts], labels=labels,
        card_lines=np.split(table.lines, cut),
    )


def _whole_shoes(table: RawTable, roles: dict[str, str]) -> SequenceRecords:
    words: list[str] = []
    counts: list[int] = []
    for value in _column(table, roles, "sequence"):
        cards = [w for w in CARD_SEPARATORS.split(str(value or "").strip()) if w]
        words.extend(cards)
        counts.append(len(cards))
    lines = table.lines
    empty = np.flatnonzero(np.asarray(counts) == 0)
    if empty.size:
        raise ImportDataError(f"{table.source.at(int(lines[empty[0]]))}: a shoe with no cards")
    word_lines = np.repeat(lines, counts)
    codes = parse_cards(np.asarray(words, dtype=object), word_lines, table.source)
    blank = np.flatnonzero(codes == NO_CARD)
    if blank.size:
        raise ImportDataError(
            f"{table.source.at(int(word_lines[blank[0]]))}: {words[blank[0]]!r} is not a "
            f"card; a sequence lists every card dealt, in order"
        )
    label_column = next((_column(table, roles, r) for r in ("label", "shoe") if r in roles),
                        None)
    labels = []
    for i, line in enumerate(lines):
        text = None if label_column is None or label_column[i] is None else str(
            label_column[i]).strip() or None
        if text is None and table.group is not None and table.group[i] >= 0:
            text = table.group_labels[int(table.group[i])]
        labels.append(text if text is not None else table.source.default_label(int(line)))
    return SequenceRecords(source=table.source,
                           sequences=np.split(codes, np.cumsum(counts)[:-1]),
                           lines=[int(x) for x in lines], labels=labels)


assert tuple(FIELDS) == FIELD_NAMES, "formats.FIELD_NAMES lists the fields of layout.FIELDS"
