"""What a backtest result shows in a notebook, and its figures and curves for Python.

``BacktestResult`` takes these views from :class:`ResultViews`: ``_repr_html_`` (the
verdict table and a small figure of the mean bankroll by coup), ``plot()`` (matplotlib
figures: the bankroll fan, and the share of sessions ruined and busted by coup) and
``bankroll_curve()`` (the bankroll by coup as a DataFrame). Every curve is over all the
sessions at every coup: a session that stopped (ruined, busted, a stop rule, the end of
its shoes) keeps its final bankroll, so the sessions still playing are not a survivors'
sample (the pivot of the ledger that drops them put Martingale's median at 1,400 instead
of 1,265 in the demo).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import BaccaratError
from .extras import require

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

#: The verdict table: the columns a reader needs to judge a configuration.
VERDICT = ("sessions", "mean_net", "median_net", "prob_profit", "risk_of_ruin", "bust_rate",
           "realized_edge", "expected_edge", "edge_verdict", "house_edge")
QUANTILE_NAMES = {0.05: "p05", 0.25: "p25", 0.5: "median", 0.75: "p75", 0.95: "p95"}


class NoLedgerError(BaccaratError):
    """A curve by coup asked of a run that kept no ledger."""


class ResultViews:
    """Notebook display, figures and curves of a backtest result (mixed into
    ``baccarat.backtest.BacktestResult``)."""

    summary: pd.DataFrame

    if TYPE_CHECKING:
        @property
        def sessions(self) -> pd.DataFrame: ...

    def bankroll_curve(self) -> pd.DataFrame:
        """The bankroll by session coup of each configuration: one row per configuration
        and coup (0 = the start), with ``mean``, ``p05``, ``p25``, ``median``, ``p75`` and
        ``p95`` over all sessions; a stopped session keeps its final bankroll."""
        import pandas as pd

        fans = self._fans()
        rows = []
        for config, fan in fans.items():
            frame = pd.DataFrame({"config": config, "spec": self._spec(config),
                                  "coup": fan.coups, "mean": fan.mean})
            for q, name in QUANTILE_NAMES.items():
                frame[name] = fan.quantiles[q]
            rows.append(frame)
        return pd.concat(rows, ignore_index=True)

    def stopped_curves(self) -> pd.DataFrame:
        """The share of sessions ruined and busted by each session coup, per configuration
        (from the session rows; no ledger needed)."""
        import pandas as pd

        from .report.curves import ruin_curve

        sessions = self.sessions
        horizon = int(sessions["coups"].max()) if len(sessions) else 0
        frames = []
        configs = sessions["config"].to_numpy()
        for config in np.unique(configs):
            part = sessions[configs == config]
            busted = part["busted"].to_numpy(bool) if "busted" in part else \
                np.zeros(len(part), bool)
            frames.append(pd.DataFrame({
                "config": int(config), "spec": self._spec(int(config)),
                "coup": np.arange(horizon + 1),
                "ruined": ruin_curve(part["ruined"].to_numpy(bool),
                                     part["ruin_coup"].to_numpy(), horizon),
                "busted": ruin_curve(busted, part["coups"].to_numpy(), horizon)}))
        return pd.concat(frames, ignore_index=True)

    def plot(self) -> Figure:
        """A matplotlib figure: each configuration's mean and median bankroll by coup with
        the middle 50% and 90% of sessions shaded (needs the ledger), and the share of
        sessions ruined and busted by coup. Needs the ``[report]`` extra."""
        require("matplotlib", "plot()")
        has_ledger = self._has_ledger()
        figure = _figure_class()(figsize=(11, 3.6) if has_ledger else (7.5, 3.6),
                        layout="constrained")
        axes = figure.subplots(1, 3 if has_ledger else 2, squeeze=False)[0]
        colours = [f"C{i}" for i in range(10)]
        if has_ledger:
            fan_ax = axes[0]
            for i, (config, fan) in enumerate(self._fans().items()):
                colour = colours[i % 10]
                fan_ax.fill_between(fan.coups, fan.quantiles[0.05], fan.quantiles[0.95],
                                    color=colour, alpha=0.08, linewidth=0)
                fan_ax.fill_between(fan.coups, fan.quantiles[0.25], fan.quantiles[0.75],
                                    color=colour, alpha=0.18, linewidth=0)
                fan_ax.plot(fan.coups, fan.mean, color=colour, label=f"{self._spec(config)}"
                            " mean")
                fan_ax.plot(fan.coups, fan.median, color=colour, linestyle="--",
                            linewidth=0.9, label="median")
            fan_ax.set(title="Bankroll by coup (mean; median dashed)", xlabel="coup",
                       ylabel="bankroll")
            fan_ax.legend(fontsize="small")
        stopped = self.stopped_curves()
        for ax, column, title in ((axes[-2], "ruined", "Ruined by coup"),
                                  (axes[-1], "busted", "Busted by coup")):
            configs = stopped["config"].to_numpy()
            for i, config in enumerate(np.unique(configs)):
                part = stopped[configs == config]
                ax.plot(part["coup"], part[column] * 100, color=colours[i % 10],
                        label=self._spec(int(config)))
            ax.set(title=title, xlabel="coup", ylabel="% of sessions")
            ax.legend(fontsize="small")
        return figure

    def _repr_html_(self) -> str:
        from .metrics import SUMMARY_METRICS, format_metric

        metrics = [m for m in SUMMARY_METRICS if m.name in VERDICT and m.name in self.summary]
        head = "".join(f"<th>{html.escape(m.title)}</th>" for m in metrics)
        rows = "".join(
            "<tr><th>" + html.escape(str(row["spec"])) + "</th>" + "".join(
                f"<td>{html.escape(format_metric(m, row[m.name]))}</td>" for m in metrics)
            + "</tr>" for _, row in self.summary.iterrows())
        table = (f"<table><thead><tr><th>configuration</th>{head}</tr></thead>"
                 f"<tbody>{rows}</tbody></table>")
        return (f"<div><p><b>BacktestResult</b>: {len(self.summary)} configuration(s), "
                f"{html.escape(str(self._dataset()))}</p>{table}{self._small_figure()}</div>")

    # -- helpers ------------------------------------------------------------------------

    def _small_figure(self) -> str:
        if not self._has_ledger():
            return ("<p><i>No ledger kept (ledger=False): the bankroll figure needs "
                    "Run(ledger=True).</i></p>")
        if not has_figures():
            return _NO_FIGURES
        from matplotlib.figure import Figure

        from .report.figures import to_svg

        figure = Figure(figsize=(5.2, 2.4), layout="constrained")
        ax = figure.subplots()
        for i, (config, fan) in enumerate(self._fans().items()):
            ax.plot(fan.coups, fan.mean, color=f"C{i % 10}", label=self._spec(config))
        ax.set(title="Mean bankroll by coup", xlabel="coup")
        ax.legend(fontsize="small")
        return to_svg(figure, "nb")

    def _fans(self) -> dict[int, Any]:
        from .report.curves import bankroll_fans
        from .report.runs import Run

        if not self._has_ledger():
            raise NoLedgerError("this run kept no ledger (ledger=False); the bankroll by "
                                "coup needs it: run with run=Run(ledger=True)")
        run = Run.from_result(self)  # type: ignore[arg-type]
        columns = ["config", "session", "start_bankroll", "coups"]
        return bankroll_fans(run, self.sessions[columns], samples=0)

    def _has_ledger(self) -> bool:
        return getattr(self, "ledger_table", None) is not None

    def _spec(self, config: int) -> str:
        match = self.summary[self.summary["config"] == config]
        return str(match["spec"].iloc[0]) if len(match) else str(config)

    def _dataset(self) -> str:
        info = getattr(self, "info", {}) or {}
        dataset = info.get("dataset") or {}
        return str(dataset.get("description") or dataset.get("path") or "")


#: What a notebook shows where a figure would be, without the ``[report]`` extra.
_NO_FIGURES = ("<p><i>No figure: figures need the [report] extra (pip install "
               "'baccarat-backtest[report]').</i></p>")


def has_figures() -> bool:
    """Whether matplotlib is installed (the ``[report]`` extra) to draw figures."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _figure_class() -> type[Figure]:
    """A matplotlib ``Figure`` that a notebook shows as a picture on its own (one made
    without pyplot has no display unless ``%matplotlib inline`` has run)."""
    import io

    from matplotlib.figure import Figure

    class NotebookFigure(Figure):
        def _repr_png_(self) -> bytes:
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=90)
            return buffer.getvalue()

    return NotebookFigure
