"""The HTML report: one self-contained file from stored runs (no scripts, no network).

Sections: the rules, dataset, session policy and configurations of each run; the summary
table (metrics in ``SUMMARY_METRICS`` order) with the realized edge beside the exact house
edge; with several configurations, overlays of the median bankroll and of the ruin curve
and the paired comparison table; then per configuration the bankroll fan chart, the
distribution of final net and of max drawdown, and the share of sessions ruined by coup.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..io.parquet import atomic_path, check_output_free
from ..metrics import SUMMARY_METRICS, format_metric
from . import figures
from .compare import UNPAIRED, compare, differences
from .curves import BankrollFan, bankroll_fans, ruin_curve
from .runs import Run, Runs, load_runs

SESSION_COLUMNS = ["config", "session", "start_bankroll", "net", "max_drawdown", "ruined",
                   "ruin_coup", "coups"]
#: All pairs are listed up to this many configurations; beyond, each against the first.
MAX_ALL_PAIRS = 10
Progress = Callable[[int, int], None]


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """An HTML table; cells are escaped by the caller's choice (pass already-escaped)."""
    out = [f'<table class="{cls}">' if cls else "<table>", "<thead><tr>"]
    out += [f"<th>{h}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{caption}</figcaption></figure>"


@dataclass
class _Item:
    """One configuration in the report."""

    run: Run
    config: int
    label: str
    colour: str
    sessions: pd.DataFrame
    fan: BankrollFan | None


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
margin:0 auto;max-width:1240px;padding:16px 24px;color:#222;background:#fff;line-height:1.4}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.3em;margin-top:1.6em;
border-bottom:2px solid #ddd;padding-bottom:.2em}h3{font-size:1.05em;margin:1em 0 .4em}
table{border-collapse:collapse;font-size:.85em;margin:.4em 0 1em}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f3f4f6}td:first-child,th:first-child{text-align:left}
.wide{overflow-x:auto}.note{color:#555;font-size:.9em}.warn{color:#8a4b00}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:12px}
figure{margin:0;border:1px solid #eee;padding:6px;background:#fff}
figure svg{width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#444;margin-top:4px}
.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.4em}
.yes{color:#0a6b2b;font-weight:600}.no{color:#666}
code{font-size:.9em;background:#f5f5f5;padding:0 3px}
nav a{margin-right:1em}
"""


class _Counter:
    def __init__(self, total: int, progress: Progress | None) -> None:
        self.n = 0
        self.total = total
        self.progress = progress
        self.figures = 0

    def prefix(self) -> str:
        self.figures += 1
        return f"fig{self.figures}"

    def step(self) -> None:
        self.n += 1
        if self.progress is not None:
            self.progress(self.n, self.total)


def report_steps(runs: Sequence[Run]) -> int:
    """How many steps ``render_report`` reports progress for (configurations + overall)."""
    return sum(len(run.summary) for run in runs) + 2


def render_report(runs: Runs, *, samples: int = 5,
                  progress: Progress | None = None) -> str:
    """The HTML report of ``runs`` (folders, results or runs) as one self-contained string.

    ``samples`` sample sessions are drawn over each fan chart; ``progress(done, total)``
    is called as the report is built.
    """
    opened = load_runs(runs)
    counter = _Counter(report_steps(opened), progress)
    comparison = compare(opened)
    items = _items(opened, comparison, samples)
    counter.step()
    body = [
        _header(opened, items),
        _setup_section(opened, comparison),
        _summary_section(comparison, items),
    ]
    if len(items) > 1:
        body.append(_comparison_section(opened, items, counter))
    counter.step()
    for i, item in enumerate(items):
        body.append(_config_section(i, item, counter))
        counter.step()
    body.append(f'<footer class="note"><p>Written by baccarat-backtest {_e(__version__)} on '
                f'{_dt.datetime.now().strftime("%Y-%m-%d %H:%M")} from stored runs; '
                f"nothing was re-run.</p></footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>Baccarat backtest report</title>"
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_report(runs: Runs, out: str | Path, *, force: bool = False,
                 samples: int = 5, progress: Progress | None = None) -> Path:
    """Render the report of ``runs`` and write it to ``out`` atomically; returns the path."""
    target = Path(out)
    check_output_free(target, force)
    text = render_report(runs, samples=samples, progress=progress)
    with atomic_path(target) as temp:
        temp.write_text(text, encoding="utf-8")
    return target


def _items(runs: list[Run], comparison: pd.DataFrame, samples: int) -> list[_Item]:
    items: list[_Item] = []
    labels = iter(comparison["label"].tolist())
    for run in runs:
        sessions = run.sessions(SESSION_COLUMNS)
        fans = bankroll_fans(run, sessions, samples=samples)
        for config in run.summary["config"].astype(int):
            items.append(_Item(run, int(config), next(labels), figures.colour(len(items)),
                               sessions[sessions["config"] == config], fans.get(int(config))))
    return items


def _header(runs: list[Run], items: list[_Item]) -> str:
    names = ", ".join(f"<code>{_e(run.shown or run.label)}</code>" for run in runs)
    links = "".join(f'<a href="#config-{i}">{_e(item.label)}</a>'
                    for i, item in enumerate(items))
    compare_link = '<a href="#comparison">Comparison</a>' if len(items) > 1 else ""
    return (f"<header><h1>Baccarat backtest report</h1>"
            f'<p class="note">{len(runs)} run{"s" if len(runs) != 1 else ""}: {names}; '
            f"{len(items)} configuration{'s' if len(items) != 1 else ''}.</p>"
            f'<nav><a href="#setup">Setup</a><a href="#summary">Summary</a>{compare_link}'
            f"{links}</nav></header>")


def _setup_section(runs: list[Run], comparison: pd.DataFrame) -> str:
    out = ['<section id="setup"><h2>Rules, dataset and configurations</h2>']
    for run in runs:
        info = run.info
        if len(runs) > 1:
            where = f" <code>{_e(run.shown)}</code>" if run.shown and run.shown != run.label \
                else ""
            out.append(f"<h3>Run {_e(run.label)}{where}</h3>")
        rules = info.get("rules") or {}
        dataset = info.get("dataset") or {}
        counts = info.get("counts") or {}
        policy = info.get("policy") or {}
        out.append('<div class="grid">')
        out.append("<div><h3>Table rules</h3>" + _table(
            ["rule", "value"], [[_e(k), _e(v)] for k, v in rules.items()]) + "</div>")
        facts = [
            ("dataset", dataset.get("description")),
            ("fingerprint", dataset.get("fingerprint")),
            ("seed", dataset.get("seed")),
            ("shoes", dataset.get("shoes")),
            ("coups", counts.get("coups")),
            ("sessions", counts.get("sessions")),
            *((f"policy: {k}", v) for k, v in policy.items()),
            ("command", info.get("command")),
            ("version", info.get("version")),
        ]
        out.append("<div><h3>Dataset and sessions</h3>" + _table(
            ["item", "value"], [[_e(k), _e(v)] for k, v in facts if v is not None]) + "</div>")
        out.append("</div>")
        configs = info.get("configs") or []
        out.append("<h3>Configurations</h3>" + _table(
            ["#", "strategy", "spec", "parameters"],
            [[_e(c.get("config")), _e(c.get("strategy")), f"<code>{_e(c.get('spec'))}</code>",
              _e(json.dumps(c.get("params"), sort_keys=True))] for c in configs]))
    out.append("</section>")
    return "".join(out)


def _swatch(item: _Item) -> str:
    return f'<span class="swatch" style="background:{item.colour}"></span>{_e(item.label)}'


def _summary_section(comparison: pd.DataFrame, items: list[_Item]) -> str:
    head = ["metric"] + [_swatch(item) for item in items]
    rows = []
    for metric in SUMMARY_METRICS:
        title = _e(metric.title) + (f' <span class="note">({_e(metric.unit)})</span>'
                                    if metric.unit in ("units", "coups") else "")
        rows.append([title] + [_e(format_metric(metric, v)) for v in comparison[metric.name]])
    edge_rows = []
    edge = {m.name: m for m in SUMMARY_METRICS}
    for item, (_, row) in zip(items, comparison.iterrows(), strict=True):
        house = float(row["house_edge"])
        low, high = float(row["realized_edge_low"]), float(row["realized_edge_high"])
        inside = (low <= -house <= high) if not math.isnan(low + high + house) else None
        edge_rows.append([
            _swatch(item),
            _e(format_metric(edge["realized_edge"], row["realized_edge"])),
            _e(f"[{format_metric(edge['realized_edge_low'], low)}, "
               f"{format_metric(edge['realized_edge_high'], high)}]"),
            _e(format_metric(edge["realized_edge"], -house)),
            _e(format_metric(edge["house_edge"], house)),
            "-" if inside is None else ("yes" if inside else '<span class="warn">no</span>'),
        ])
    return ('<section id="summary"><h2>Summary</h2>'
            '<p class="note">One column per configuration; the metrics in the order of the '
            "metric table (the same names as <code>summary.parquet</code> and "
            "<code>baccarat compare</code>).</p>"
            f'<div class="wide">{_table(head, rows, "summary")}</div>'
            "<h3>Realized edge beside the exact house edge</h3>"
            '<p class="note">The realized edge is the player\'s return per unit staked '
            "(total net / total wagered, 95% interval over sessions); a fair simulation "
            "lands near minus the exact house edge of the bets made, its interval covering "
            "it about 19 times in 20.</p>"
            + _table(["configuration", "realized edge", "95% interval",
                      "expected (- house edge)", "exact house edge", "expected inside?"],
                     edge_rows, "edges")
            + "</section>")


def _comparison_section(runs: list[Run], items: list[_Item], counter: _Counter) -> str:
    colours = {item.label: item.colour for item in items}
    out = ['<section id="comparison"><h2>Comparison</h2><div class="grid">']
    fans = {item.label: item.fan for item in items if item.fan is not None}
    starts = {float(item.sessions["start_bankroll"].iloc[0]) for item in items
              if len(item.sessions)}
    if fans:
        svg = figures.median_overlay(fans, counter.prefix(),
                                     starts.pop() if len(starts) == 1 else None, colours)
        out.append(_figure(svg, "Median bankroll by coup (stopped sessions keep their final "
                                "bankroll)."))
    else:
        out.append('<p class="note">No run kept its ledger, so there is no median bankroll '
                   "overlay.</p>")
    curves = {item.label: _ruin(item) for item in items}
    out.append(_figure(figures.ruin_chart(curves, counter.prefix(), colours),
                       "Share of sessions ruined by coup."))
    out.append("</div>")
    pairs = "all" if len(items) <= MAX_ALL_PAIRS else "baseline"
    table = differences(runs, pairs=pairs)
    rows = []
    for _, row in table.iterrows():
        sig = '<span class="yes">yes</span>' if row["significant"] else '<span class="no">no'\
              "</span>"
        interval = ("-" if math.isnan(row["diff_low"]) else
                    f"[{row['diff_low']:+,.2f}, {row['diff_high']:+,.2f}]")
        rows.append([_e(row["a"]), _e(row["b"]), _e(row["pairing"]), f"{row['sessions']:,}",
                     f"{row['diff_mean_net']:+,.2f}", interval, sig])
    unpaired = bool((table["pairing"] == UNPAIRED).any())
    out.append("<h3>Difference in mean net</h3>"
               '<p class="note">Mean net of A minus mean net of B, in units per session, '
               "with a 95% interval. Configurations that played the same shoes are paired "
               "session by session (t interval on the per-session differences)"
               + ("; the others are compared unpaired (Welch)" if unpaired else "")
               + ". Significant: the interval excludes 0.</p>")
    out.append(_table(["A", "B", "pairing", "sessions", "mean net A - B", "95% interval",
                       "significant"], rows, "pairs"))
    out.append("</section>")
    return "".join(out)


def _horizon(item: _Item) -> int:
    return int(item.sessions["coups"].max()) if len(item.sessions) else 0


def _ruin(item: _Item) -> np.ndarray:
    s = item.sessions
    return ruin_curve(s["ruined"].to_numpy(), s["ruin_coup"].to_numpy(), _horizon(item))


def _base_stake(item: _Item) -> float | None:
    """The configuration's base stake, when its parameters have one (bins align to it)."""
    for config in item.run.info.get("configs") or []:
        if config.get("config") == item.config:
            base = (config.get("params") or {}).get("base")
            return float(base) if isinstance(base, int | float) and base > 0 else None
    return None


def _config_section(index: int, item: _Item, counter: _Counter) -> str:
    s = item.sessions
    n = len(s)
    params = item.run.summary.loc[item.run.summary["config"] == item.config, "params"]
    out = [f'<section id="config-{index}" class="config">'
           f"<h2>{_swatch(item)}</h2>"]
    if len(params):
        out.append(f'<p class="note">parameters: <code>{_e(params.iloc[0])}</code>; '
                   f"{n:,} sessions</p>")
    out.append('<div class="grid">')
    start = float(s["start_bankroll"].iloc[0]) if n else 0.0
    if item.fan is not None:
        fan = item.fan
        used = ("" if fan.sessions_used == fan.sessions_total else
                f" (percentiles over {fan.sessions_used:,} of {fan.sessions_total:,} "
                "evenly spaced sessions)")
        out.append(_figure(figures.fan_chart(fan, counter.prefix(), start, item.colour),
                           f"Bankroll by coup: 5, 25, 50, 75 and 95% of sessions{used}"
                           + (f"; {len(fan.samples)} sample sessions drawn over it (a dot "
                              "where each stopped)" if fan.samples else "")
                           + ". A stopped session keeps its final bankroll."))
    else:
        out.append('<p class="warn">This run was written without a ledger '
                   "(<code>--ledger none</code>), so there is no bankroll fan chart; the "
                   "figures below come from the session rows.</p>")
    mean_net = float(s["net"].mean()) if n else math.nan
    unit = _base_stake(item)
    out.append(_figure(figures.histogram(s["net"].to_numpy(), counter.prefix(),
                                         "final net (units)", item.colour, unit=unit),
                       f"Final net of each session (mean {mean_net:+,.2f})."))
    out.append(_figure(figures.histogram(s["max_drawdown"].to_numpy(), counter.prefix(),
                                         "max drawdown (units)", item.colour,
                                         zero_line=False, unit=unit),
                       "Max drawdown of each session (largest fall from a peak)."))
    curve = _ruin(item)
    ruined = int(s["ruined"].sum()) if n else 0
    out.append(_figure(figures.ruin_chart({item.label: curve}, counter.prefix(),
                                          {item.label: item.colour}),
                       f"Share of sessions ruined by coup: {ruined:,} of {n:,} "
                       f"({ruined / max(n, 1):.1%}) in all."))
    out.append("</div></section>")
    return "".join(out)


def figure_count(text: str) -> int:
    """How many figures a rendered report holds (for checks)."""
    return text.count("<figure>")


__all__ = ["render_report", "write_report", "report_steps", "format_metric", "figure_count"]
