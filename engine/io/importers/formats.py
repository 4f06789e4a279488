"""The names of the recorded formats (the ``--format`` choices), on their own so the CLI's
help text can list them without importing the readers."""

from __future__ import annotations

#: Format name -> what it is (the ``--format`` choices, documented in data/README.md).
FORMATS: dict[str, str] = {
    "scorecard": "text, one shoe per line of outcomes: 'BPPTB...', 'B,P,P,T' or words, "
                 "optionally after a shoe label",
    "csv": "delimited text with a header: one coup per row (outcome, card columns or hand "
           "strings, totals, shoe), or card sequences (card per row, or cards per shoe)",
    "json": "JSON or JSON lines holding the records of the csv format, optionally nested "
            "in shoe objects",
    "sequence": "text, one shoe per line: every card in dealing order, optionally after a "
                "shoe label",
    "parquet": "Parquet holding the columns of the csv format (coups.parquet included)",
}
