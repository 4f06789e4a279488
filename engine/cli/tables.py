"""Rich tables of metrics, laid out from the declarative metric table."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from rich.table import Table

from ..metrics import SUMMARY_METRICS, Metric

#: The summary columns shown in the terminal (all are in summary.parquet).
TERMINAL_SUMMARY = ("sessions", "mean_net", "median_net", "prob_profit", "risk_of_ruin",
                    "realized_edge", "house_edge", "mean_max_drawdown")


def format_value(metric: Metric, value: object) -> str:
    """A metric value as printed in tables ("-" for missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    try:
        return metric.fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def summary_table(summary: pd.DataFrame, title: str = "Summary",
                  metrics: Sequence[str] = TERMINAL_SUMMARY,
                  label_columns: Sequence[str] = ("spec",)) -> Table:
    """A rich table: one row per configuration, the chosen metrics in table order."""
    by_name = {m.name: m for m in SUMMARY_METRICS}
    chosen = [by_name[name] for name in metrics if name in by_name and name in summary]
    table = Table(title=title, header_style="bold")
    for column in label_columns:
        table.add_column(column, overflow="fold")
    for metric in chosen:
        table.add_column(metric.title, justify="right")
    for _, row in summary.iterrows():
        table.add_row(*[str(row[c]) for c in label_columns],
                      *[format_value(m, row[m.name]) for m in chosen])
    return table
