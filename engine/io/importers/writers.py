"""Coups written out in the recorded formats: the sample files in data/ and round-trip tests.

The inverse of the importers, for coups that came from anywhere (generated shoes most
often): what a table's recorder would have written down, in each format.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ...cards import LABEL_OF_CODE
from ...coups import CARD_COLUMNS, OUTCOME_LABELS, Coups
from ...extras import require
from ..parquet import atomic_path
from .records import run_starts
from .tokens import OUTCOME_NAMES

Layout = Literal["cards", "hands", "outcomes"]
_LABELS = np.array([*LABEL_OF_CODE, ""], dtype=object)  # index -1 (NO_CARD) -> ""


def card_text(codes: np.ndarray) -> np.ndarray:
    """Spellings ("AS", "10H", "K") of card codes; "" for NO_CARD."""
    return _LABELS[np.asarray(codes, dtype=np.int64)]


def shoe_labels(coups: Coups) -> np.ndarray:
    """Each row's shoe label: the recorded label, or the shoe id as text."""
    if coups.label is not None:
        return np.asarray(coups.label, dtype=object)
    return coups.shoe.astype(str).astype(object)


def _shoe_slices(coups: Coups) -> list[slice]:
    starts = run_starts(coups.shoe)
    ends = np.r_[starts[1:], len(coups)]
    return [slice(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def dealing_order(coups: Coups) -> list[np.ndarray]:
    """Each shoe's cards in the order they were dealt (P1, B1, P2, B2, P3, B3 per coup)."""
    ordered = coups.cards[:, [0, 3, 1, 4, 2, 5]]
    out = []
    for rows in _shoe_slices(coups):
        cards = ordered[rows].reshape(-1)
        out.append(cards[cards >= 0])
    return out


def coups_frame(coups: Coups, layout: Layout, *, words: bool = False, missing: str = "",
                totals: bool = True, winner: bool = True, shoe: bool = True,
                coup: bool = False, hand_separator: str = "-") -> pd.DataFrame:
    """One row per coup: ``cards`` (six card columns), ``hands`` (one string per hand) or
    ``outcomes`` (the winner only), with optional shoe label, coup number, totals and
    winner (``words``: Banker/Player/Tie rather than B/P/T)."""
    frame: dict[str, Any] = {}
    if shoe:
        frame["shoe"] = shoe_labels(coups)
    if coup:
        frame["coup"] = coups.coup
    text = card_text(coups.cards)
    if layout == "cards":
        for j, name in enumerate(CARD_COLUMNS):
            frame[name] = np.where(text[:, j] == "", missing, text[:, j])
    elif layout == "hands":
        sep = hand_separator
        spelled = text.astype(str)
        for name, cols in (("player", spelled[:, :3]), ("banker", spelled[:, 3:])):
            joined = np.char.add(np.char.add(cols[:, 0], sep),
                                 np.char.add(cols[:, 1], np.char.add(sep, cols[:, 2])))
            frame[name] = np.char.rstrip(joined, sep).astype(object)
    if totals and layout != "outcomes":
        frame["player_total"] = coups.player_total
        frame["banker_total"] = coups.banker_total
    if winner or layout == "outcomes":
        names = np.array(OUTCOME_NAMES if words else OUTCOME_LABELS, dtype=object)
        frame["winner"] = names[coups.outcome]
    return pd.DataFrame(frame)


def write_csv(coups: Coups, path: str | Path, layout: Layout, *, delimiter: str = ",",
              **options: Any) -> Path:
    """The coups as a CSV with a header (see ``coups_frame`` for the options)."""
    frame = coups_frame(coups, layout, **options)
    with atomic_path(path) as temp:
        frame.to_csv(temp, index=False, sep=delimiter)
    return Path(path)


def write_parquet(coups: Coups, path: str | Path, layout: Layout, **options: Any) -> Path:
    """The coups as a plain Parquet table of the csv layout (not the coups schema)."""
    frame = coups_frame(coups, layout, **options)
    with atomic_path(path) as temp:
        frame.to_parquet(temp, index=False)
    return Path(path)


def write_json(coups: Coups, path: str | Path, *, nested: bool = True,
               totals: bool = True) -> Path:
    """The coups as JSON: shoes holding coups with card lists per hand (``nested``), or a
    flat array of coup records with a shoe label and hand strings."""
    if nested:
        text = card_text(coups.cards)
        labels = shoe_labels(coups)
        shoes = []
        for rows in _shoe_slices(coups):
            records = []
            for k in range(rows.start, rows.stop):
                record: dict[str, Any] = {
                    "player": [c for c in text[k, :3] if c],
                    "banker": [c for c in text[k, 3:] if c],
                }
                if totals:
                    record["player_total"] = int(coups.player_total[k])
                    record["banker_total"] = int(coups.banker_total[k])
                record["winner"] = OUTCOME_LABELS[int(coups.outcome[k])]
                records.append("    " + json.dumps(record, ensure_ascii=False))
            shoes.append(f'  {{"shoe": {json.dumps(str(labels[rows.start]))}, "coups": [\n'
                         + ",\n".join(records) + "\n  ]}")
        document = '{"shoes": [\n' + ",\n".join(shoes) + "\n]}\n"
    else:
        frame = coups_frame(coups, "hands", totals=totals)
        lines = [json.dumps(r, ensure_ascii=False, default=int)
                 for r in frame.to_dict(orient="records")]
        document = "[\n" + ",\n".join(lines) + "\n]\n"
    with atomic_path(path) as temp:
        temp.write_text(document, encoding="utf-8")
    return Path(path)


def write_scorecard(coups: Coups, path: str | Path, *,
                    style: Literal["string", "letters", "words"] = "string",
                    labels: bool = True) -> Path:
    """Outcomes, one shoe per line: "label: BPPTB" (string), "label,B,P,P" (letters) or
    "label,Banker,Player" (words)."""
    names = np.array(OUTCOME_NAMES if style == "words" else OUTCOME_LABELS, dtype=object)
    outcome = names[coups.outcome]
    shoe = shoe_labels(coups)
    lines = []
    for rows in _shoe_slices(coups):
        if style == "string":
            body = "".join(outcome[rows])
            lines.append(f"{shoe[rows.start]}: {body}" if labels else body)
        else:
            body = ",".join(outcome[rows])
            lines.append(f"{shoe[rows.start]},{body}" if labels else body)
    with atomic_path(path) as temp:
        temp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)


def write_sequences(sequences: list[np.ndarray], path: str | Path,
                    labels: list[str] | None = None, separator: str = " ") -> Path:
    """Full shoes, one per line: "label: 9H KS 3D ..." (every card in dealing order)."""
    lines = []
    for i, cards in enumerate(sequences):
        body = separator.join(card_text(cards))
        lines.append(f"{labels[i]}: {body}" if labels is not None else body)
    with atomic_path(path) as temp:
        temp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)


def write_xlsx(coups: Coups, path: str | Path, layout: Layout, *, sheet: str = "coups",
               notes: bool = True, **options: Any) -> Path:
    """The coups as an .xlsx workbook: a sheet of the csv layout (openpyxl), after a
    sheet of notes as recorders keep (``notes``)."""
    require("openpyxl", "writing .xlsx")
    from openpyxl import Workbook

    frame = coups_frame(coups, layout, **options)
    book = Workbook()
    first = book.active
    assert first is not None
    if notes:
        first.title = "Notes"
        first.append(["recorded at the table; see the next sheet"])
        data = book.create_sheet(sheet)
    else:
        first.title = sheet
        data = first
    data.append(list(frame.columns))
    for row in frame.itertuples(index=False):
        data.append([v.item() if isinstance(v, np.generic) else v for v in row])
    with atomic_path(path) as temp:
        book.save(temp)
    return Path(path)


def write_sqlite(coups: Coups, path: str | Path, layout: Layout, *, table: str = "rounds",
                 **options: Any) -> Path:
    """The coups as a SQLite table of the csv layout, beside a table of something else."""
    import sqlite3

    frame = coups_frame(coups, layout, **options)
    with atomic_path(path) as temp:
        with sqlite3.connect(temp) as db:
            db.execute("CREATE TABLE players (name TEXT, joined TEXT)")
            frame.to_sql(table, db, index=False)
        db.close()
    return Path(path)


def _message_record(coups: Coups, k: int, text: np.ndarray) -> dict[str, Any]:
    record: dict[str, Any] = {
        "winner": OUTCOME_NAMES[int(coups.outcome[k])],
        "playerScore": int(coups.player_total[k]), "bankerScore": int(coups.banker_total[k]),
    }
    if coups.has_cards:
        record["playerHand"] = {"cards": [c for c in text[k, :3] if c]}
        record["bankerHand"] = {"cards": [c for c in text[k, 3:] if c]}
    return record


def write_messages(coups: Coups, path: str | Path, *, table: str = "T1",
                   prefix: str = "[{time}] ", chatter: bool = True) -> Path:
    """The coups as a live-table message log: after each coup a shoe state (the shoe so
    far) behind a log ``prefix``, with connection lines and chat between them."""
    text = card_text(coups.cards)
    lines = []
    second = 8 * 3600
    for rows in _shoe_slices(coups):
        history: list[str] = []
        lines.append(prefix.format(time=_clock(second)) + f"connected to table {table}")
        for k in range(rows.start, rows.stop):
            second += 27
            history.append(json.dumps(_message_record(coups, k, text), ensure_ascii=False))
            state = (f'{{"type": "baccarat.history", "args": {{"tableId": "{table}", '
                     f'"shoe": {json.dumps(str(shoe_labels(coups)[rows.start]))}, '
                     f'"history_v2": [{", ".join(history)}]}}}}')
            lines.append(prefix.format(time=_clock(second)) + state)
            if chatter and k % 7 == 3:
                lines.append(prefix.format(time=_clock(second + 1))
                             + '{"type": "chat", "args": {"text": "gl all"}}')
    with atomic_path(path) as temp:
        temp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)


def _clock(second: int) -> str:
    return f"{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
