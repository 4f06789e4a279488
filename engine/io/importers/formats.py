"""The names of the recorded formats (the ``--format`` choices) and of the coups fields
(``--column FIELD=SOURCE``), on their own so the CLI's help text can list them without
importing the readers."""

from __future__ import annotations

#: Built-in format name -> what it is (the ``--format`` choices, documented in
#: data/README.md); ``readers.readers()`` adds the installed ones.
FORMATS: dict[str, str] = {
    "scorecard": "text, one shoe per line of outcomes: 'BPPTB...', 'B,P,P,T', words or "
                 "莊閒和, with a label before or after ('S1: BPPB', 'BPPB|2026-04-06')",
    "csv": "delimited text with a header: one coup per row (outcome, card columns or hand "
           "strings, totals, shoe), one outcome column under any header, or card "
           "sequences (card per row, or cards per shoe)",
    "json": "a JSON document or JSON lines: the one list of coup records anywhere in it "
            "(--records PATH among several), nested objects as dotted names",
    "messages": "live-table message logs: a JSON message per line, optionally behind a log "
                "prefix; shoe states (the shoe so far) or single coup results",
    "sequence": "text, one shoe per line: every card in dealing order, optionally after a "
                "shoe label",
    "parquet": "Parquet holding the columns of the csv format (coups.parquet included)",
    "xlsx": "an Excel workbook: one sheet (--sheet NAME) laid out like the csv format",
    "sqlite": "a SQLite database: one table (--table NAME) laid out like the csv format",
}

#: The fields of the coups table a source column can be mapped to (``--column``).
FIELD_NAMES: tuple[str, ...] = (
    "shoe", "label", "coup", "outcome", "player_total", "banker_total", "player_cards",
    "banker_cards", "player_card1", "player_card2", "player_card3", "banker_card1",
    "banker_card2", "banker_card3", "cards", "card", "coup_cards", "scorecard",
)
