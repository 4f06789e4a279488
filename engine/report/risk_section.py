"""The report's "Exact risk" section, from a ``baccarat risk --out FILE`` file.

Per configuration, the exact figures beside the check's (with their intervals) and the
exact distribution of the final net with the simulated sessions drawn over it; for all
configurations, risk of ruin against the starting bankroll. ``baccarat report --risk
FILE`` adds it (alone, or after the runs' sections).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import BaccaratError
from ..io.parquet import read_metadata
from . import risk_figures
from .drawing import FigureDrawer

#: Figures shown in the section's tables, in order: (key, label, kind).
ROWS = (("mean_net", "mean net", "money"), ("std_net", "std dev of net", "money"),
        ("q05_net", "5% net", "money"), ("q50_net", "median net", "money"),
        ("q95_net", "95% net", "money"), ("p_ahead", "P(ahead)", "share"),
        ("risk_of_ruin", "risk of ruin", "share"), ("bust_rate", "busted", "share"),
        ("p_win_goal", "P(win goal)", "share"), ("p_stop_loss", "P(stop loss)", "share"),
        ("expected_coups", "coups played", "count"),
        ("expected_wagered", "amount staked", "money"), ("expected_edge", "edge", "edge"))


def _draw_here(function: Callable[..., str], *args: Any) -> str:
    return function(*args)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _fmt(kind: str, value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if kind == "money":
        return f"{value:,.2f}"
    if kind == "share":
        return f"{value:.4%}" if value >= 1e-6 or value == 0 else f"{value:.2e}"
    if kind == "edge":
        return f"{value:+.4%}"
    return f"{value:,.2f}"


def load_risk(path: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The distributions and the document of a risk file."""
    path = Path(path)
    if not path.is_file():
        raise BaccaratError(f"--risk {path}: no such file; write it with `baccarat risk -s "
                            f"SPEC --out {path}`")
    meta = read_metadata(path)
    if meta.get("kind") != "risk":
        raise BaccaratError(f"--risk {path}: not a file written by `baccarat risk --out`")
    return pd.read_parquet(path), meta


def risk_section(path: str | Path, drawer: FigureDrawer | None = None) -> str:
    """The HTML section for the risk file at ``path``, its figures drawn by ``drawer``."""
    draw = drawer.draw if drawer is not None else _draw_here
    frame, meta = load_risk(path)
    policy = meta.get("policy", {})
    coups = meta.get("coups")
    length = (f"sessions of {coups:,} coups" if coups else
              f"sessions of {policy.get('session_shoes', 1)} shoe(s)")
    check = meta.get("check", {})
    parts = ['<section id="risk"><h2>Exact risk</h2>',
             f"<p>{_e(meta.get('rules_label', ''))}; bankroll "
             f"{policy.get('bankroll', 0):,g}; {_e(length)}. Exact for the model of "
             f"{_e(meta.get('model', 'independent coups'))}"
             + (f"; beside it, {check['sessions']:,} sessions of generated real shoes "
                f"(seed {check.get('seed')}) with {check.get('level', 0.95):.0%} intervals"
                if check.get("sessions") else "") + ".</p>"]
    curves = []
    for config, doc in enumerate(meta.get("configurations", [])):
        parts.append(f"<h3>{_e(doc['spec'])}</h3>")
        if doc.get("exact") is None:
            parts.append(f'<p class="note">No exact figures: {_e(doc.get("not_exact"))}</p>')
            continue
        parts.append(_table(doc))
        rows = frame[frame["config"] == config]
        svg = draw(risk_figures.distribution_figure, rows["net"].to_numpy(np.float64),
                   rows["probability"].to_numpy(np.float64),
                   rows["simulated"].to_numpy(np.float64), int(check.get("sessions") or 0),
                   f"risk{config}", risk_figures.colour(config), _unit(doc))
        parts.append(f"<figure>{svg}<figcaption>The exact distribution of the final net "
                     f"(filled) and the share of the simulated sessions in the same bins "
                     f"(outline).</figcaption></figure>")
        if "curve" in doc:
            curves.append((doc["spec"], doc["curve"]))
    if curves:
        svg = draw(risk_figures.bankroll_figure, [c[0] for c in curves],
                   [np.array(c[1]["bankroll"]) for c in curves],
                   [np.array(c[1]["ruin"]) for c in curves],
                   [np.array(c[1]["ruin_or_bust"]) for c in curves],
                   float(policy.get("bankroll", 0)), "riskbank")
        parts.append(f"<figure>{svg}<figcaption>Risk of ruin (solid) and of ruin or a bust "
                     f"(dashed) against the starting bankroll, exact; the grey line is the "
                     f"bankroll played.</figcaption></figure>")
    parts.append("</section>")
    return "\n".join(parts)


def _unit(doc: dict[str, Any]) -> float:
    from fractions import Fraction

    return float(Fraction(doc.get("unit", "1")))


def _table(doc: dict[str, Any]) -> str:
    exact = doc["exact"]
    sim = doc.get("simulated")
    head = "<tr><th>figure</th><th>exact</th>" + (
        "<th>simulated</th><th>interval</th><th></th>" if sim else "") + "</tr>"
    rows = []
    for key, label, kind in ROWS:
        if key in ("p_win_goal", "p_stop_loss") and not exact.get(key):
            continue
        cells = [f"<td>{_e(label)}</td>", f"<td>{_fmt(kind, exact.get(key))}</td>"]
        if sim:
            e = sim.get(key, {})
            holds = e.get("holds_exact")
            interval = ("" if e.get("low") is None else
                        f"{_fmt(kind, e['low'])} to {_fmt(kind, e['high'])}")
            cells += [f"<td>{_fmt(kind, e.get('value'))}</td>", f"<td>{interval}</td>",
                      f"<td>{'' if holds is None else ('in' if holds else 'outside')}</td>"]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>{head}{''.join(rows)}</table>"


__all__ = ["load_risk", "risk_section"]
