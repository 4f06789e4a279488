"""Family-wise verdicts for a table of several configurations: Holm beside each verdict.

``backtest`` and ``compare`` judge each configuration alone at 95%: its realized edge's
interval holds its expected edge or not ("inside"/"outside"), and its difference from the
baseline is significant or not. With many configurations one of them is "outside" by
chance alone; these functions add the verdict that counts every configuration in the
table (Holm's step-down at 5%, valid whatever the dependence between them), from the
columns the table already holds.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..analysis.significance import holm
from ..metrics import INSIDE, OUTSIDE, Z95
from .adjust import LEVEL


def edge_p_values(table: pd.DataFrame) -> np.ndarray:
    """Two-sided p-value of "the realized edge differs from the expected edge" of each
    row: the test whose 95% verdict is ``edge_verdict`` (p below 5% exactly where it says
    outside), its ``edge_p`` column. NaN where the verdict is unknown. A row without it (a
    run folder of an older version, whose interval was the delta method's, symmetric) has
    it worked back from its interval."""
    stored = table["edge_p"].to_numpy(dtype=np.float64) if "edge_p" in table.columns \
        else np.full(len(table), np.nan)
    realized = table["realized_edge"].to_numpy(dtype=np.float64)
    half = (table["realized_edge_high"].to_numpy(dtype=np.float64)
            - table["realized_edge_low"].to_numpy(dtype=np.float64)) / 2
    expected = table["expected_edge"].to_numpy(dtype=np.float64)
    out = np.full(realized.size, np.nan)
    for i, (r, h, e) in enumerate(zip(realized, half, expected, strict=True)):
        if any(math.isnan(v) for v in (r, h, e)):
            continue
        if h <= 0:
            out[i] = 1.0 if r == e else 0.0
            continue
        out[i] = math.erfc(abs(r - e) / (h / Z95) / math.sqrt(2.0))
    return np.where(np.isnan(stored), out, stored)


def holm_with_gaps(p: np.ndarray) -> np.ndarray:
    """Holm's adjustment over the known p-values (NaN stays NaN and is not counted)."""
    out = np.full(p.size, np.nan)
    known = ~np.isnan(p)
    if known.any():
        out[known] = holm(p[known])
    return out


def family_edge_verdicts(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Each row's edge p-value, its Holm-adjusted p over the table's rows, and the
    family-wise verdict ("outside" where the adjusted p is below 5%, "" unknown)."""
    p = edge_p_values(table)
    adjusted = holm_with_gaps(p)
    verdict = ["" if math.isnan(a) else (OUTSIDE if a < LEVEL else INSIDE) for a in adjusted]
    return p, adjusted, verdict


def tried_phrase(count: int) -> str:
    """``39 configurations tried`` for a title."""
    return f"{count:,} configuration{'s' if count != 1 else ''} tried"


__all__ = ["edge_p_values", "family_edge_verdicts", "holm_with_gaps", "tried_phrase"]
