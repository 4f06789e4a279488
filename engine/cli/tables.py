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


def print_answer(frame: pd.DataFrame, labels: Sequence[str], title: str,
                 out: Console | None = None) -> None:
    """The bottom line, then one table of what a player asks of each system (every
    figure is in summary.parquet, the report and ``compare --all``)."""
    from ..answer import answer_table, bottom_line

    out = out or console
    if len(frame) > 1:
        from ..search.family import tried_phrase

        title = f"{title} ({tried_phrase(len(frame))})"
    out.print(bottom_line(frame, labels), highlight=False)
    out.print(answer_table(frame, labels, title), highlight=False)
