"""The report's "Searching without fooling yourself" section, from a ``baccarat search``
folder: its verdict in words, the observed best against the best of N on fair datasets,
every configuration's metric where chosen against where checked (the regression to the
mean a search always shows), and its best configurations with their p-values before and
after counting the tries. ``baccarat report --search DIR`` adds it.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..search.result import BEATS, SearchResult, ranked_by
from . import figures
from .drawing import FigureDrawer

#: Configurations listed in the section's table (all are in search.parquet).
TOP = 20


def _draw_here(function: Callable[..., str], *args: Any) -> str:
    return function(*args)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _p(value: float) -> str:
    return f"{value:.3f}" if value >= 0.001 else f"{value:.0e}"


def search_section(folder: str | Path, drawer: FigureDrawer | None = None) -> str:
    """The HTML section for the search in ``folder``, its figures drawn by ``drawer`` (the
    report's, which fills them in) or here."""
    draw = drawer.draw if drawer is not None else _draw_here
    result = SearchResult.load(folder)
    document, table = result.document, result.table
    metric = document["metric"]
    fmt = metric["fmt"]
    percent = "%" in fmt
    label = str(metric["title"])
    sentences = [str(s) for s in document["sentences"]]
    lead = 3 if result.null is not None else 1
    parts = ['<section id="search"><h2>Searching without fooling yourself</h2>',
             f"<p><strong>{_e(' '.join(sentences[:lead]))}</strong></p>"]
    rest = sentences[lead:]
    parts += [f"<p>{_e(s)}</p>" for s in rest]
    from ..search.result import fold_lines

    folds = fold_lines(document["split"], metric)
    if folds:
        parts.append("<ul>" + "".join(f"<li>{_e(line)}</li>" for line in folds) + "</ul>")
    dataset = document.get("dataset", {})
    space = document.get("space", {})
    parts.append(
        f'<p class="note">{_e(dataset.get("description", ""))}: {dataset.get("shoes", "?"):,} '
        f"shoes in {dataset.get('sessions', '?'):,} sessions; {space.get('tried', 0):,} "
        f"configurations tried of a space of {space.get('size', 0):,}"
        + (f" (a sample drawn with seed {space.get('seed')})" if space.get("sample") else "")
        + f"; best by {_e(ranked_by(metric))}; {_e(document['split']['description'])}; "
        f"p-values of \"its realized edge "
        f"beats its expected edge\" over all shoes, adjusted by Holm and by a Romano-Wolf "
        f"step-down over {document['family']['reps']:,} bootstrap samples of whole "
        f"sessions.</p>")
    grid = []
    if result.null is not None:
        null = document["null"]
        svg = draw(figures.best_of_null_figure,
                   result.null["best_z"].to_numpy(dtype=np.float64),
                   float(null["observed"]),
                   "standard errors above expected edge (z)", "search-null", False)
        grid.append(f"<figure>{svg}<figcaption>The best z of {space.get('tried', 0):,} "
                    f"configurations on each of {null['datasets']:,} fair datasets of the "
                    f"same shape, and the best here ({null['observed']:+.1f}): "
                    f"p = {null['p']:.3f}.</figcaption></figure>")
    else:
        parts.append('<p class="note">No fair datasets were played: run the search with '
                     "<code>--null N</code> to see what the best of this many gives by "
                     "chance.</p>")
    checked = np.isfinite(table["metric_out"].to_numpy(dtype=np.float64))
    if checked.any():
        svg = draw(figures.in_out_figure, table["metric_in"].to_numpy(dtype=np.float64),
                   table["metric_out"].to_numpy(dtype=np.float64),
                   table["chosen"].astype(bool).to_numpy(), label, "search-in-out", percent)
        grid.append(f"<figure>{svg}<figcaption>Every configuration: where chosen against "
                    f"where checked. The best where chosen fall back towards the rest where "
                    f"checked (a slope below 1): much of what made them best was luck."
                    f"</figcaption></figure>")
    if grid:
        parts.append('<div class="grid">' + "".join(grid) + "</div>")
    parts.append(_table(table, fmt, TOP))
    parts.append("</section>")
    return "".join(parts)


def _table(table: Any, fmt: str, top: int) -> str:
    """The best configurations where chosen, with their p-values before and after
    counting every configuration tried."""
    rows = table.sort_values("rank").head(top)
    head = ("#", "configuration", "where chosen", "where checked", "all shoes", "p",
            "Holm p", "step-down p", "verdict", "chosen in")
    body = []
    for row in rows.to_dict("records"):
        mark = ' class="warn"' if row["verdict"] == BEATS else ""
        cells = [str(row["rank"]), f"<code>{_e(row['spec'])}</code>",
                 *(_value(row[c], fmt) for c in ("metric_in", "metric_out", "metric_all")),
                 _p(row["p_raw"]), _p(row["p_holm"]), _p(row["p_stepdown"]),
                 _e(row["verdict"]), _e(row["chosen"])]
        body.append(f"<tr{mark}>" + "".join(
            f'<td style="text-align:left">{c}</td>' if i == 1 else f"<td>{c}</td>"
            for i, c in enumerate(cells)) + "</tr>")
    more = len(table) - len(rows)
    note = (f'<p class="note">{more:,} more configurations in search.parquet.</p>'
            if more > 0 else "")
    return ('<div class="wide"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(body) + "</tbody></table></div>" + note)


def render_sections_page(sections: list[str], drawer: FigureDrawer | None = None,
                         title: str = "Baccarat search report",
                         source: str = "a stored search") -> str:
    """A report page of ``sections`` alone (a search's or an exact risk's, with no run
    folders named), styled and marked as the full report is."""
    import datetime as _dt

    from .. import __version__
    from ..io.parquet import HTML_GENERATOR
    from .html import STYLE

    body = "\n".join(sections)
    if drawer is not None:
        body = drawer.fill(body)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"{HTML_GENERATOR}<title>{_e(title)}</title><style>{STYLE}</style>"
            f"</head><body>\n<header><h1>{_e(title)}</h1></header>\n" + body
            + f'\n<footer class="note"><p>Written by baccarat-backtest {_e(__version__)} on '
            f'{_dt.datetime.now().strftime("%Y-%m-%d %H:%M")} from {_e(source)}; nothing '
            "was re-run.</p></footer>\n</body></html>\n")


def _value(value: float, fmt: str) -> str:
    return "-" if value != value else _e(fmt.format(value))


__all__ = ["render_sections_page", "search_section"]
