"""Rich tables of metrics, laid out from the declarative metric table.

Wide tables are printed in blocks of columns that fit the terminal, the row label
repeated in each block, like a wide frame printed in parts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from rich.console import Console
from rich.table import Table

from ..metrics import SUMMARY_METRICS, format_metric
from .common import WIDE_LABEL_SHARE, console, print_table, vertical

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

    def least(head: str, cells: list[str]) -> int:  # the header wraps at its spaces only
        return max([*(len(w) for w in head.split()), *map(len, cells), 1])

    def need(head: str, cells: list[str]) -> int:
        return max(least(head, cells), math.ceil(len(head) / 2)) + 3

    blocks: list[list[tuple[str, list[str]]]] = [[]]
    used = label_width + 1
    for head, cells in columns:
        size = need(head, cells)
        if blocks[-1] and used + size > width:
            blocks.append([])
            used = label_width + 1
        blocks[-1].append((head, cells))
        used += size
    tables = []
    for i, block in enumerate(blocks):
        part = f" ({i + 1}/{len(blocks)})" if len(blocks) > 1 else ""
        table = Table(title=title + part, header_style="bold", title_justify="left")
        table.add_column(label_title, no_wrap=True)
        for head, cells in block:
            # the header may wrap at its spaces; a cell never does (its width is kept)
            table.add_column(head, justify="right", overflow="fold",
                             width=need(head, cells) - 3)
        for r, label in enumerate(labels):
            table.add_row(label, *[cells[r] for _, cells in block])
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


def print_metric_table(labels: Sequence[str], columns: Sequence[Column], title: str,
                       out: Console | None = None, label_title: str = "configuration") -> None:
    """Print one row per label and a column per metric so that it fits the console: one
    table if it fits, else blocks of columns with the labels repeated, else (labels too
    long for blocks of more than a column or two) a block per label, a line per metric."""
    out = out or console
    width = out.width
    label_width = max([len(label_title), *map(len, labels)]) + 3
    if label_width > width * WIDE_LABEL_SHARE:
        (whole,) = block_tables(labels, columns, 10**6, title, label_title)
        whole.title = None
        out.print(title, highlight=False, overflow="fold")
        out.print(vertical(whole, out=out), highlight=False)
        return
    for table in block_tables(labels, columns, width, title, label_title):
        print_table(table, out=out)


def summary_labels(summary: pd.DataFrame) -> list[str]:
    """A run's configurations as its tables label them (with their rules when they differ)."""
    labels = [str(s) for s in summary["spec"]]
    if summary["rules"].nunique() > 1:
        labels = [f"{spec} @ {rules}" for spec, rules in zip(labels, summary["rules"],
                                                             strict=True)]
    return labels


def print_summary(summary: pd.DataFrame, title: str, out: Console | None = None,
                  metrics: Sequence[str] = TERMINAL_SUMMARY) -> None:
    """A run's summary, one row per configuration, fitted to the console. With several
    configurations the edge verdict has its family-wise (Holm) twin beside it, and the
    title says how many configurations were tried."""
    columns = metric_columns(summary, metrics)
    if len(summary) > 1:
        from ..search.family import tried_phrase

        columns = family_edge_column(columns, summary)
        title = f"{title} ({tried_phrase(len(summary))})"
    print_metric_table(summary_labels(summary), columns, title, out)
