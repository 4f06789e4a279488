"""The report's "Are these shoes random?" section, from a ``baccarat analyze`` folder.

One table (a row per statistic: observed, reference mean and 95% range, z, adjusted p) and
one figure per statistic: the distribution of the statistic over the fair reference
datasets, with the observed value marked. ``baccarat report --analysis DIR`` adds it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ..errors import BaccaratError
from ..io.parquet import METADATA_KEY
from . import figures
from .drawing import FigureDrawer


def _draw_here(function: Callable[..., str], *args: Any) -> str:
    return function(*args)

ANALYSIS_FILE = "analysis.parquet"
REFERENCE_FILE = "reference.parquet"


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _number(value: float) -> str:
    return "" if not np.isfinite(value) else f"{value:.4g}"


def _p(value: float) -> str:
    if value == 0.0:
        return "<1e-300"
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


def load_analysis(folder: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """The analysis table, the reference samples and the metadata of an analyze folder."""
    folder = Path(folder)
    missing = [name for name in (ANALYSIS_FILE, REFERENCE_FILE) if not (folder / name).is_file()]
    if missing:
        raise BaccaratError(f"--analysis {folder}: no {missing[0]} there; write it with "
                            f"`baccarat analyze DATASET --out {folder}`")
    table = pq.read_table(folder / ANALYSIS_FILE)
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    meta = json.loads(raw) if raw else {}
    return table.to_pandas(), pd.read_parquet(folder / REFERENCE_FILE), meta


def analysis_section(folder: str | Path, drawer: FigureDrawer | None = None) -> str:
    """The HTML section for the analysis in ``folder`` (see the module docstring), its
    figures drawn by ``drawer`` (the report's, which fills them in) or here."""
    draw = drawer.draw if drawer is not None else _draw_here
    table, reference, meta = load_analysis(folder)
    rows = []
    for row in table.to_dict("records"):
        mark = ' class="warn"' if row["stands_out"] else ""
        rows.append(
            f"<tr{mark}><td>{_e(row['label'])}</td><td>{_number(row['observed'])}</td>"
            f"<td>{_number(row['reference_mean'])}</td>"
            f"<td>[{_number(row['reference_low'])}, {_number(row['reference_high'])}]</td>"
            f"<td>{row['z']:+.2f}</td><td>{_p(row['p_adjusted'])}</td>"
            f"<td>{'stands out' if row['stands_out'] else ''}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("statistic", "observed", "reference mean",
                                             "95% of reference", "z", "adjusted p", ""))
    figures_html = []
    for i, row in enumerate(table.to_dict("records")):
        svg = draw(figures.reference_figure,
                   reference[row["statistic"]].to_numpy(dtype=np.float64),
                   float(row["observed"]), str(row["label"]), f"an{i}", bool(row["stands_out"]))
        figures_html.append(f"<figure>{svg}<figcaption>{_e(row['label'])}: z "
                            f"{row['z']:+.2f}, adjusted p {_p(row['p_adjusted'])}"
                            f"</figcaption></figure>")
    datasets = ", ".join(str(d) for d in meta.get("datasets", []))
    notes = "".join(f"<p class=\"note\">{_e(n)}</p>" for n in meta.get("notes", []))
    return (
        '<section id="analysis"><h2>Are these shoes random?</h2>'
        f"<p><strong>{_e(meta.get('verdict', ''))}</strong></p>"
        f"<p class=\"note\">{_e(datasets)}: {meta.get('shoes', '?')} shoes, "
        f"{meta.get('coups', '?')} coups, each statistic against {meta.get('reference', '?')} "
        "datasets of the same shape dealt from fairly shuffled shoes (parametric bootstrap); "
        "p-values two-sided from the reference mean and spread, Holm-adjusted over the "
        "family.</p>" + notes
        + f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows) + "</tbody></table></div>"
        + '<div class="grid">' + "".join(figures_html) + "</div></section>")
