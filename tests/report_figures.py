"""How many figures a report of some run folders holds, counted from their session rows:
shared by the report tests and the examples' test (tests/cli/, tests/docs/)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def expected_figures(*folders: Path) -> int:
    """The figures a report of these run folders holds, counted from their session rows:
    per configuration the fan (with a ledger), final net and drawdown, and the ruin and
    bust curves of a configuration that has any; with several configurations the bankroll
    overlay (with a ledger) and the ruin and bust overlays that have anything on them."""
    frames = [pd.read_parquet(folder / "sessions.parquet") for folder in folders]
    ledger = all((folder / "ledger.parquet").exists() for folder in folders)
    per = [(bool(part["ruined"].any()), bool(part["busted"].any()))
           for frame in frames for _, part in frame.groupby("config")]
    count = sum(int(ledger) + 2 + ruined + busted for ruined, busted in per)
    if len(per) > 1:
        count += int(ledger) + any(r for r, _ in per) + any(b for _, b in per)
    return count
