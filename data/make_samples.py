"""Regenerate the sample files of this folder (run from the repository root).

Every card-level sample is real dealing: seeded shoes shuffled and dealt by
``engine.deal.generate_coups`` under the default 8-deck rules, then written out the way a
recorder would have written them. ``generated-8deck-200.parquet`` is made by the CLI:

    baccarat generate --shoes 200 --seed 2026 --decks 8 --out data/generated-8deck-200.parquet

Usage: python data/make_samples.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.coups import Coups
from engine.deal import generate_coups
from engine.io.importers import writers
from engine.rules import TableRules

HERE = Path(__file__).resolve().parent
SEED = 2026
RULES = TableRules.model_validate({})


def dealt(first: int, shoes: int, names: str = "shoe-{}") -> Coups:
    """Shoes ``first .. first + shoes - 1`` of SEED, labelled from 1 within the file."""
    coups = generate_coups(RULES, SEED, np.arange(first, first + shoes))
    coups.label = np.array([names.format(s - first + 1) for s in coups.shoe], dtype=object)
    return coups


def scorecard() -> None:
    """Four shoes, in every scorecard spelling: labelled strings, labelled comma-separated
    letters, words, and a bare unlabelled string."""
    coups = dealt(100, 4)
    letters = np.array(["B", "P", "T"])[coups.outcome]
    words = np.array(["Banker", "player", "TIE"])[coups.outcome]
    rows = [np.flatnonzero(coups.shoe == s) for s in np.unique(coups.shoe)]
    lines = [
        "# outcome scorecard: one shoe per line (see data/README.md)",
        "shoe-1: " + "".join(letters[rows[0]]),
        "shoe-2," + ",".join(letters[rows[1]]),
        "shoe-3: " + ", ".join(words[rows[2]]),
        "".join(letters[rows[3]]),
    ]
    (HERE / "scorecard.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    """Write every sample file."""
    scorecard()
    writers.write_csv(dealt(200, 3), HERE / "outcomes.csv", "outcomes", words=True,
                      coup=True)
    writers.write_csv(dealt(300, 3), HERE / "coups-cards.csv", "cards", missing="NA",
                      coup=True)
    writers.write_csv(dealt(400, 3), HERE / "coups-hands.csv", "hands", totals=False)
    writers.write_json(dealt(500, 3), HERE / "coups.json")
    sequences = dealt(600, 3)
    writers.write_sequences(writers.dealing_order(sequences), HERE / "sequences.txt",
                            labels=["shoe-1", "shoe-2", "shoe-3"])


if __name__ == "__main__":
    main()
