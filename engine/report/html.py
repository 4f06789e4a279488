"""The HTML report: one self-contained file from stored runs (no scripts, no network).

The page opens with what a reader came for, on one screen: the verdict table (each
configuration's realized edge against its expected edge, beside the full-shoe house edge,
risk of ruin, busted, mean net and the paired difference from the baseline) and, with
several configurations, the mean (and median) bankroll, ruin and bust overlays. Then the
summary table
(metrics in ``SUMMARY_METRICS`` order); the rules, dataset, session policy and
configurations, each shown once when the runs share it; then per configuration the
bankroll fan chart, the distribution of final net and of max drawdown, and the share of
sessions ruined and busted by coup (a chart with nothing on it is a line of text instead).

Each section is a function of one ``Report`` (the runs, the comparison, the
configurations); ``SECTIONS`` lists them in page order, so a new section is one function
and one entry there.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..io.owner import claim_output
from ..io.parquet import HTML_GENERATOR
from ..metrics import SUMMARY_METRICS, format_metric
from ..search.family import tried_phrase
from . import figures
from .compare import UNPAIRED, compare
from .curves import BankrollFan, bankroll_fans, ruin_curve
from .drawing import FigureDrawer
from .runs import Run, Runs, load_runs

SESSION_COLUMNS = ["config", "session", "start_bankroll", "net", "max_drawdown", "ruined",
                   "ruin_coup", "coups", "busted"]
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


@dataclass
class Report:
    """What every section reads: the runs, their comparison and the configurations."""

    runs: list[Run]
    comparison: pd.DataFrame
    items: list[_Item]
    counter: _Counter
    drawer: FigureDrawer


def render_report(runs: Runs, *, samples: int = 5,
                  progress: Progress | None = None, sections: Sequence[str] = (),
                  drawer: FigureDrawer | None = None) -> str:
    """The HTML report of ``runs`` (folders, results or runs) as one self-contained string.

    ``samples`` sample sessions are drawn over each fan chart; ``progress(done, total)``
    is called as the report is built; ``sections`` (HTML) go after the configurations.
    The figures are drawn by ``drawer`` (default: a new one, on the cores there are).
    """
    if drawer is None:
        with FigureDrawer() as own:
            return render_report(runs, samples=samples, progress=progress,
                                 sections=sections, drawer=own)
    opened = load_runs(runs)
    counter = _Counter(report_steps(opened), progress)
    comparison = compare(opened)
    report = Report(opened, comparison, _items(opened, comparison, samples), counter, drawer)
    counter.step()
    body = [section(report) for section in SECTIONS]
    counter.step()
    drawn_by = []  # how many figures are handed out once each configuration's section is
    for i, item in enumerate(report.items):
        body.append(_config_section(i, item, report))
        drawn_by.append(drawer.submitted)
    for count in drawn_by:
        drawer.wait(count)
        counter.step()
    body.extend(sections)
    body.append(f'<footer class="note"><p>Written by baccarat-backtest {_e(__version__)} on '
                f'{_dt.datetime.now().strftime("%Y-%m-%d %H:%M")} from stored runs; '
                f"nothing was re-run.</p></footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"{HTML_GENERATOR}"
            "<title>Baccarat backtest report</title>"
            f"<style>{STYLE}</style></head><body>\n" + drawer.fill("\n".join(body))
            + "\n</body></html>\n")


def write_report(runs: Runs, out: str | Path, *, force: bool = False,
                 samples: int = 5, progress: Progress | None = None,
                 sections: Sequence[str] = (), drawer: FigureDrawer | None = None) -> Path:
    """Render the report of ``runs`` and write it to ``out``, which it owns while it
    renders (``baccarat.io.owner.claim_output``); returns the path."""
    target = Path(out)
    with claim_output(target, force=force, what="report") as claim:
        text = render_report(runs, samples=samples, progress=progress, sections=sections,
                             drawer=drawer)
        claim.temp.write_text(text, encoding="utf-8")
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


def _header(report: Report) -> str:
    runs, items = report.runs, report.items
    names = ", ".join(f"<code>{_e(run.shown or run.label)}</code>" for run in runs)
    links = "".join(f'<a href="#config-{i}">{_e(item.label)}</a>'
                    for i, item in enumerate(items))
    return (f"<header><h1>Baccarat backtest report</h1>"
            f'<p class="note">{len(runs)} run{"s" if len(runs) != 1 else ""}: {names}; '
            f"{len(items)} configuration{'s' if len(items) != 1 else ''}.</p>"
            f'<nav><a href="#verdict">Verdict</a><a href="#summary">Summary</a>'
            f'<a href="#setup">Setup</a>{links}</nav></header>')


_METRIC = {m.name: m for m in SUMMARY_METRICS}


def _fmt(name: str, value: object) -> str:
    return _e(format_metric(_METRIC[name], value))


def _interval(name: str, low: object, high: object) -> str:
    return f'<span class="note">[{_fmt(name, low)}, {_fmt(name, high)}]</span>'


def _verdict_word(verdict: object) -> str:
    if verdict == "inside":
        return '<span class="yes">yes</span>'
    if verdict == "outside":
        return '<span class="warn">no</span>'
    return "-"


def _difference_cell(row: pd.Series) -> str:
    if row["pairing"] == "baseline":
        return "(baseline)"
    low, high = float(row["diff_low"]), float(row["diff_high"])
    interval = "" if math.isnan(low) else (f' <span class="note">[{low:+,.2f}, '
                                           f"{high:+,.2f}]</span>")
    pairing = "" if row["pairing"] == "paired" else ' <span class="warn">unpaired</span>'
    return f"{float(row['diff_mean_net']):+,.2f}{interval}{pairing}"


def _verdict_section(report: Report) -> str:
    """The verdict table: what a reader came for, one row per configuration."""
    comparison = report.comparison
    baseline = str(comparison["baseline"].iloc[0]) if len(comparison) else ""
    family = len(comparison) > 1  # the family-wise twin counts every configuration
    rows = []
    for item, (_, row) in zip(report.items, comparison.iterrows(), strict=True):
        rows.append([
            _swatch(item),
            _fmt("realized_edge", row["realized_edge"]) + " "
            + _interval("realized_edge", row["realized_edge_low"], row["realized_edge_high"]),
            _fmt("expected_edge", row["expected_edge"]),
            _verdict_word(row["edge_verdict"]),
            *([_verdict_word(row["edge_verdict_family"])] if family else []),
            _fmt("house_edge", row["house_edge"]),
            _fmt("edge_gain", row["edge_gain"]),
            _fmt("risk_of_ruin", row["risk_of_ruin"]) + " "
            + _interval("risk_of_ruin", row["risk_of_ruin_low"], row["risk_of_ruin_high"]),
            _fmt("bust_rate", row["bust_rate"]),
            _fmt("mean_net", row["mean_net"]),
            _difference_cell(row),
        ])
    unpaired = bool((comparison["pairing"] == UNPAIRED).any())
    tried = f" ({tried_phrase(len(comparison))})" if family else ""
    holm = (" The column beside it asks the same of every configuration at once (Holm's "
            f"step-down at 5% over the {len(comparison)} tried): with many configurations "
            "one is outside by chance alone, which this column allows for."
            if family else "")
    from ..answer import bottom_line

    line = bottom_line(comparison, [item.label for item in report.items])
    return (f'<section id="verdict"><h2>Verdict{tried}</h2>'
            f'<p class="bottom-line"><strong>{_e(line)}</strong></p>'
            + _table(["configuration", "realized edge [95%]", "expected edge",
                      "expected inside 95%?",
                      *(["expected inside, Holm (all tried)?"] if family else []),
                      "full-shoe house edge", "gain over full shoe",
                      "risk of ruin [95%]", "busted", "mean net",
                      f"mean net: configuration - {_e(baseline)} [95%]"], rows, "verdict")
            + '<p class="note">Realized edge: total net / total wagered, the player\'s '
            "return per unit staked, with its 95% interval over sessions. Expected edge: the "
            "exact expected net of the bets actually made / total wagered (priced from the "
            "cards left in the shoe for strategies that see the cards, from the full shoe "
            "otherwise); a fair simulation's interval holds it about 19 times in 20."
            + holm + " Gain "
            "over full shoe: expected edge + full-shoe house edge, what choosing when to "
            "bet is worth (0 for a strategy that ignores the cards). Ruined: the bankroll "
            "fell below the table minimum; busted: it could not pay the stake the strategy "
            "asked for. The last column is each configuration's mean net per session minus "
            "the baseline's, paired session by session on the same shoes"
            + ("; unpaired (Welch) where the shoes differ" if unpaired else "")
            + ".</p></section>")


def _overlay_section(report: Report) -> str:
    """The mean (and median) bankroll, and the ruin and bust curves, of every
    configuration on one chart each; a chart with nothing on it is left out, said in words."""
    items, counter, draw = report.items, report.counter, report.drawer.draw
    if len(items) < 2:
        return ""
    colours = {item.label: item.colour for item in items}
    out = ['<section id="overlays"><div class="grid">']
    fans = {item.label: item.fan for item in items if item.fan is not None}
    starts = {float(item.sessions["start_bankroll"].iloc[0]) for item in items
              if len(item.sessions)}
    if fans:
        svg = draw(figures.bankroll_overlay, fans, counter.prefix(),
                   starts.pop() if len(starts) == 1 else None, colours)
        out.append(_figure(svg, "Mean bankroll by coup (solid) and median (dashed); a "
                                "stopped session keeps its final bankroll."))
    else:
        out.append('<p class="note">No run kept its ledger, so there is no bankroll '
                   "overlay.</p>")
    out += _stop_figures(report, {item.label: _ruin(item) for item in items},
                         {item.label: _bust(item) for item in items}, colours)
    out.append("</div></section>")
    return "".join(out)


def _stop_figures(report: Report, ruined: dict[str, np.ndarray],
                  busted: dict[str, np.ndarray], colours: dict[str, str]) -> list[str]:
    """The ruin chart and the bust chart side by side; an empty one is a line of text."""
    out = []
    for curves, what, words in ((ruined, "sessions ruined",
                                 "ruined (bankroll below the table minimum)"),
                                (busted, "sessions busted",
                                 "busted (could not pay the stake asked for)")):
        if not any(curve.size and curve.max() > 0 for curve in curves.values()):
            out.append(f'<p class="note">No session {words.split(" (")[0]}.</p>')
            continue
        svg = report.drawer.draw(figures.ruin_chart, curves, report.counter.prefix(),
                                 colours, what)
        out.append(_figure(svg, f"Share of sessions {words} by coup."))
    return out


def _summary_section(report: Report) -> str:
    comparison, items = report.comparison, report.items
    head = ["metric"] + [_swatch(item) for item in items]
    rows = []
    for metric in SUMMARY_METRICS:
        title = _e(metric.title) + (f' <span class="note">({_e(metric.unit)})</span>'
                                    if metric.unit in ("units", "coups") else "")
        rows.append([title] + [_e(format_metric(metric, v)) for v in comparison[metric.name]])
    return ('<section id="summary"><h2>Summary</h2>'
            '<p class="note">One column per configuration; the metrics in the order of the '
            "metric table (the same names as <code>summary.parquet</code> and "
            "<code>baccarat compare</code>).</p>"
            f'<div class="wide">{_table(head, rows, "summary")}</div></section>')


#: Each field of ``TableRules`` as the report's rules table names it.
RULE_WORDS = {
    "decks": "decks in the shoe", "burn": "burn procedure",
    "burn_count": "cards burned (fixed burn)", "cut_card": "cards behind the cut card",
    "extra_coup_after_cut": "one more coup after the cut card",
    "commission": "Banker commission", "tie_pays": "Tie pays (to 1)",
    "variant": "variant (standard, EZ, Super 6)", "pair_pays": "pairs pay (to 1)",
    "table_min": "table minimum stake", "table_max": "table maximum stake",
}


def rule_words(field: str) -> str:
    """A rules field in words (a field added later: its description, or its name spaced)."""
    from ..rules import TableRules

    if field in RULE_WORDS:
        return RULE_WORDS[field]
    described = TableRules.model_fields.get(field)
    return (described.description if described is not None and described.description
            else field.replace("_", " "))


def _config_rules(run: Run) -> list[dict[str, object]]:
    """The table rules each configuration of ``run`` played (the run's, unless per config)."""
    rules = run.info.get("rules") or {}
    return [c.get("table_rules") or rules for c in run.info.get("configs") or []] or [rules]


def _dataset_facts(run: Run) -> list[tuple[str, object]]:
    info = run.info
    dataset = info.get("dataset") or {}
    counts = info.get("counts") or {}
    policy = info.get("policy") or {}
    return [
        ("dataset", dataset.get("description")),
        ("fingerprint", dataset.get("fingerprint")),
        ("seed", dataset.get("seed")),
        ("shoes", dataset.get("shoes")),
        ("coups", counts.get("coups")),
        ("sessions", counts.get("sessions")),
        *((f"policy: {k}", v) for k, v in policy.items()),
        ("expected net priced by", info.get("expected", "auto")),
    ]


def _setup_section(report: Report) -> str:
    """Rules, dataset, policy and configurations: each shown once when the runs share it."""
    runs = report.runs
    out = ['<section id="setup"><h2>Rules, dataset and configurations</h2>']
    rule_sets: list[dict[str, object]] = []
    for run in runs:
        for rules in _config_rules(run):
            if rules not in rule_sets:
                rule_sets.append(rules)
    names = list(dict.fromkeys(k for r in rule_sets for k in r))
    head = ["rule"] + ([f"set {i + 1}" for i in range(len(rule_sets))]
                       if len(rule_sets) > 1 else ["value"])
    out.append('<div class="grid"><div><h3>Table rules</h3>' + _table(
        head, [[_e(rule_words(k))] + [_e(r.get(k)) for r in rule_sets] for k in names])
        + "</div>")
    facts = [_dataset_facts(run) for run in runs]
    if all(f == facts[0] for f in facts):
        out.append("<div><h3>Dataset and sessions</h3>" + _table(
            ["item", "value"], [[_e(k), _e(v)] for k, v in facts[0] if v is not None])
            + "</div></div>")
    else:
        out.append("</div>")
        for run, run_facts in zip(runs, facts, strict=True):
            where = f" <code>{_e(run.shown)}</code>" if run.shown and run.shown != run.label \
                else ""
            out.append(f"<h3>Run {_e(run.label)}{where}</h3>" + _table(
                ["item", "value"], [[_e(k), _e(v)] for k, v in run_facts if v is not None]))
    rows = []
    for item in report.items:
        config: dict[str, Any] = next((c for c in item.run.info.get("configs") or []
                                       if c.get("config") == item.config), {})
        rules = config.get("table_rules") or item.run.info.get("rules") or {}
        rows.append([_swatch(item), _e(config.get("strategy")),
                     f"<code>{_e(config.get('spec'))}</code>",
                     _e(json.dumps(config.get("params"), sort_keys=True)),
                     _e(f"set {rule_sets.index(rules) + 1}" if len(rule_sets) > 1
                        else config.get("rules", ""))])
    out.append("<h3>Configurations</h3>" + _table(
        ["configuration", "strategy", "spec", "parameters", "rules"], rows))
    commands = list(dict.fromkeys(str(run.info.get("command")) for run in runs
                                  if run.info.get("command")))
    out.append('<p class="note">' + "<br>".join(
        f"<code>{_e(c)}</code>" for c in commands) + f"<br>baccarat-backtest "
        f"{_e(', '.join(sorted({str(r.info.get('version')) for r in runs})))}</p>")
    out.append("</section>")
    return "".join(out)


def _swatch(item: _Item) -> str:
    return f'<span class="swatch" style="background:{item.colour}"></span>{_e(item.label)}'


#: The page's sections after the header, in order (the configurations' own follow).
SECTIONS: list[Callable[[Report], str]] = [
    _header, _verdict_section, _overlay_section, _summary_section, _setup_section,
]


def _horizon(item: _Item) -> int:
    return int(item.sessions["coups"].max()) if len(item.sessions) else 0


def _ruin(item: _Item) -> np.ndarray:
    s = item.sessions
    return ruin_curve(s["ruined"].to_numpy(), s["ruin_coup"].to_numpy(), _horizon(item))


def _bust(item: _Item) -> np.ndarray:
    """Share of sessions busted by each coup (a busted session stopped after its last)."""
    s = item.sessions
    busted = s["busted"].to_numpy(bool) if "busted" in s else np.zeros(len(s), bool)
    return ruin_curve(busted, s["coups"].to_numpy(), _horizon(item))


def _base_stake(item: _Item) -> float | None:
    """The configuration's base stake, when its parameters have one (bins align to it)."""
    for config in item.run.info.get("configs") or []:
        if config.get("config") == item.config:
            base = (config.get("params") or {}).get("base")
            return float(base) if isinstance(base, int | float) and base > 0 else None
    return None


def _config_section(index: int, item: _Item, report: Report) -> str:
    counter, draw = report.counter, report.drawer.draw
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
        out.append(_figure(draw(figures.fan_chart, fan, counter.prefix(), start, item.colour),
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
    out.append(_figure(draw(figures.histogram, s["net"].to_numpy(), counter.prefix(),
                            "final net (units)", item.colour, unit=unit),
                       f"Final net of each session (mean {mean_net:+,.2f})."))
    out.append(_figure(draw(figures.histogram, s["max_drawdown"].to_numpy(), counter.prefix(),
                            "max drawdown (units)", item.colour, zero_line=False, unit=unit),
                       "Max drawdown of each session (largest fall from a peak)."))
    ruined = int(s["ruined"].sum()) if n else 0
    busted = int(s["busted"].sum()) if n and "busted" in s else 0
    out += _stop_figures(report, {item.label: _ruin(item)}, {item.label: _bust(item)},
                         {item.label: item.colour})
    out.append(f'<p class="note">Ruined: {ruined:,} of {n:,} sessions '
               f"({ruined / max(n, 1):.1%}); busted: {busted:,} ({busted / max(n, 1):.1%})."
               "</p>")
    out.append("</div></section>")
    return "".join(out)


def figure_count(text: str) -> int:
    """How many figures a rendered report holds (for checks)."""
    return text.count("<figure>")


__all__ = ["SECTIONS", "Report", "render_report", "write_report", "report_steps",
           "format_metric", "figure_count"]
