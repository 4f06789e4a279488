"""Rich tables of metrics, laid out from the declarative metric table.

Wide tables are printed in blocks of columns that fit the terminal, the row label
repeated in each block, like a wide frame printed in parts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from rich.table import Table

from ..metrics import SUMMARY_METRICS, format_metric

#: The summary columns `baccarat backtest` prints (summary.parquet holds them all).
TERMINAL_SUMMARY = ("sessions", "mean_net", "median_net", "prob_profit", "risk_of_ruin",
                    "bust_rate", "realized_edge", "expected_edge", "edge_verdict",
                    "house_edge", "edge_gain", "mean_max_drawdown")

Column = tuple[str, list[str]]


def metric_columns(frame: pd.DataFrame, metrics: Sequence[str] | None = None) -> list[Column]:
    """(title, formatted cells) of each summary metric in table order (or those named)."""
    return [(metric.title, [format_metric(metric, v) for v in frame[metric.name]])
            for metric in SUMMARY_METRICS
            if (metrics is None or metric.name in metrics) and metric.name in frame]


def block_tables(labels: Sequence[str], columns: Sequence[Column], width: int, title: str,
                 label_title: str = "configuration") -> list[Table]:
    """Tables of ``columns`` split into blocks that fit ``width``, ``labels`` in each."""
    label_width = max([len(label_title), *map(len, labels)]) + 3

    def need(head: str, cells: list[str]) -> int:
        longest_word = max((len(w) for w in head.split()), default=0)
        header = max(longest_word, math.ceil(len(head) / 2))
        return max([header, *map(len, cells)]) + 3

    blocks: list[list[tuple[str, list[str], int]]] = [[]]
    used = label_width + 1
    for head, cells in columns:
        size = need(head, cells)
        if blocks[-1] and used + size > width:
            blocks.append([])
            used = label_width + 1
        blocks[-1].append((head, cells, size - 3))
        used += size
    tables = []
    for i, block in enumerate(blocks):
        part = f" ({i + 1}/{len(blocks)})" if len(blocks) > 1 else ""
        table = Table(title=title + part, header_style="bold", title_justify="left")
        table.add_column(label_title, no_wrap=True)
        for head, _, size in block:
            table.add_column(head, justify="right", max_width=size)
        for r, label in enumerate(labels):
            table.add_row(label, *[cells[r] for _, cells, _ in block])
        tables.append(table)
    return tables


#: The title of the family-wise edge verdict, printed beside the per-configuration one.
FAMILY_EDGE_TITLE = "Expected in, Holm?"


def family_edge_column(columns: list[Column], table: pd.DataFrame) -> list[Column]:
    """``columns`` with the family-wise (Holm) edge verdict right after the
    per-configuration one (``edge_verdict``), computed from the table when not there."""
    from ..search.family import family_edge_verdicts

    if "edge_verdict_family" in table:
        cells = [str(v) for v in table["edge_verdict_family"]]
    else:
        cells = family_edge_verdicts(table)[2]
    title = next((m.title for m in SUMMARY_METRICS if m.name == "edge_verdict"), "")
    out = []
    for column in columns:
        out.append(column)
        if column[0] == title:
            out.append((FAMILY_EDGE_TITLE, cells))
    return out


def summary_tables(summary: pd.DataFrame, width: int, title: str,
                   metrics: Sequence[str] = TERMINAL_SUMMARY) -> list[Table]:
    """A run's summary, one row per configuration (labelled with its rules when they
    differ). With several configurations the edge verdict has its family-wise (Holm)
    twin beside it, and the title says how many configurations were tried."""
    labels = [str(s) for s in summary["spec"]]
    if summary["rules"].nunique() > 1:
        labels = [f"{spec} @ {rules}" for spec, rules in zip(labels, summary["rules"],
                                                             strict=True)]
    columns = metric_columns(summary, metrics)
    if len(summary) > 1:
        from ..search.family import tried_phrase

        columns = family_edge_column(columns, summary)
        title = f"{title} ({tried_phrase(len(summary))})"
    return block_tables(labels, columns, width, title)
