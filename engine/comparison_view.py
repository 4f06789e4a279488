"""What a comparison shows in a notebook: ``engine.compare``'s table as a DataFrame that
displays itself as its verdict table and a small figure of the mean bankroll by coup.

``Comparison`` is the comparison's DataFrame (every column of
``baccarat.report.compare.compare``); what is taken from it (a selection of columns, a
sort) is a plain DataFrame again and displays as one.
"""

from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd

#: The verdict columns, in the order a reader judges a configuration against the baseline.
VERDICT = ("sessions", "mean_net", "bust_rate", "realized_edge", "expected_edge",
           "edge_verdict")


class Comparison(pd.DataFrame):
    """The comparison table of ``engine.compare``; in a notebook, its verdict table (each
    configuration against the baseline, the 95% interval of the difference, whether it
    is significant and how it was paired) and the mean bankroll by coup of each."""

    _metadata = ["_runs"]
    _runs: Any  # what was compared: results, run folders, or a mapping of labels to them

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame  # a part of the table is a plain frame

    @classmethod
    def of(cls, frame: pd.DataFrame, runs: Any) -> Comparison:
        """``frame`` (a comparison table) shown with the figure of ``runs``."""
        comparison = cls(frame)
        comparison._runs = runs
        return comparison

    def _repr_html_(self) -> str:  # type: ignore[override]
        return (f"<div><p><b>Comparison</b>: {len(self)} configuration(s) against "
                f"{html.escape(str(self['baseline'].iloc[0]))}</p>{self._verdict_table()}"
                f"{self._small_figure()}</div>")

    def _verdict_table(self) -> str:
        from .metrics import SUMMARY_METRICS, format_metric

        metrics = [m for m in SUMMARY_METRICS if m.name in VERDICT and m.name in self]
        head = "".join(f"<th>{html.escape(m.title)}</th>" for m in metrics)
        head += "<th>Difference in mean net</th><th>95% interval</th><th>Significant</th>" \
                "<th>Pairing</th>"
        rows = []
        for _, row in self.iterrows():
            cells = [format_metric(m, row[m.name]) for m in metrics]
            low, high = row["diff_low"], row["diff_high"]
            interval = "" if math.isnan(low) else f"[{low:+,.2f}, {high:+,.2f}]"
            cells += [f"{row['diff_mean_net']:+,.2f}", interval,
                      "yes" if row["significant"] else "no", str(row["pairing"])]
            rows.append(f"<tr><th>{html.escape(str(row['label']))}</th>"
                        + "".join(f"<td>{html.escape(cell)}</td>" for cell in cells)
                        + "</tr>")
        return (f"<table><thead><tr><th>configuration</th>{head}</tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>")

    def _small_figure(self) -> str:
        from .notebook import _NO_FIGURES, has_figures

        if not has_figures():
            return _NO_FIGURES
        from matplotlib.figure import Figure

        from .report.compare import configurations
        from .report.curves import bankroll_fans
        from .report.figures import to_svg
        from .report.runs import load_runs

        items = configurations(load_runs(self._runs))
        if not all(item.run.has_ledger for item in items):
            return "<p><i>The bankroll figure needs every run's ledger.</i></p>"
        fans: dict[int, dict[int, Any]] = {}
        figure = Figure(figsize=(5.2, 2.4), layout="constrained")
        ax = figure.subplots()
        for i, item in enumerate(items):
            run = item.run
            if id(run) not in fans:
                fans[id(run)] = bankroll_fans(
                    run, run.sessions(["config", "session", "start_bankroll", "coups"]),
                    samples=0)
            fan = fans[id(run)][item.config]
            ax.plot(fan.coups, fan.mean, color=f"C{i % 10}", label=item.label)
        ax.set(title="Mean bankroll by coup", xlabel="coup")
        ax.legend(fontsize="small")
        return to_svg(figure, "cmp")
