"""The report's figures, drawn with matplotlib (Agg) and returned as inline SVG text.

Every figure is self-contained SVG: text stays text (no embedded font, no external font
either: the viewer's sans-serif draws it), and element ids are prefixed per figure so that
many figures can live in one HTML page without their clip paths colliding.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

if TYPE_CHECKING:  # the figures' workers load matplotlib and numpy only
    from .curves import BankrollFan

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f")
#: The look of every figure (typed loosely: matplotlib types rc keys as literals).
STYLE: Any = {
    "svg.fonttype": "none",
    "svg.hashsalt": "baccarat-report",
    "font.size": 9,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
SIZE = (6.0, 3.4)
#: The analysis section's figures: smaller, as there is one per statistic.
SMALL_SIZE = (4.2, 2.4)
MAX_BINS = 60
_ID = re.compile(r'(\bid="|href="#|url\(#)')


def colour(i: int) -> str:
    """The colour of the i-th configuration, the same in every figure."""
    return PALETTE[i % len(PALETTE)]


_HEADER = re.compile(r'width="[^"]*" height="[^"]*" viewBox="[^"]*"')
_BACKGROUND = re.compile(r'(<g id="patch_1">\s*<path d=")[^"]*(")')


def _points(value: float) -> str:
    """A length as matplotlib's SVG writer formats it (``%f``, trailing zeros dropped)."""
    return f"{value:f}".rstrip("0").rstrip(".")


def _svg_text(fig: Figure, **options: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, **options)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def to_svg(fig: Figure, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element cropped to what it draws, as ``savefig``'s
    ``bbox_inches="tight"`` crops it, its ids prefixed with ``prefix``.

    ``bbox_inches="tight"`` draws a figure twice, once to find the extent of its artists
    and once to write it: some 40% of a figure's time. Here it is drawn once, the extent is
    measured at the end of that draw with the same renderer, and the SVG's viewport and
    its background are set to that extent (padded as ``savefig`` pads it): the same
    picture, in the same size, with coordinates not shifted to start at zero. A figure
    this cannot be done for (no background rectangle found) is drawn the two-pass way.
    """
    extents = []

    def measure(event: Any) -> None:  # the figure's dpi is the SVG's here, as savefig sets it
        extents.append(fig.get_tightbbox(event.renderer).frozen())

    listening = fig.canvas.mpl_connect("draw_event", measure)
    try:
        text = _svg_text(fig)
    finally:
        fig.canvas.mpl_disconnect(listening)
    box = extents[-1].padded(matplotlib.rcParams["savefig.pad_inches"]) if extents else None
    if box is not None and _BACKGROUND.search(text):
        height = fig.get_size_inches()[1]
        x0, x1 = box.x0 * 72, box.x1 * 72
        top, bottom = (height - box.y1) * 72, (height - box.y0) * 72  # SVG's y runs down
        w, h = _points(x1 - x0), _points(bottom - top)
        text = _HEADER.sub(f'width="{w}pt" height="{h}pt" viewBox="{_points(x0)} '
                           f'{_points(top)} {w} {h}"', text, count=1)
        corners = [(x0, bottom), (x1, bottom), (x1, top), (x0, top)]
        path = "".join(f"{'M' if i == 0 else 'L'} {_points(x)} {_points(y)} \n"
                       for i, (x, y) in enumerate(corners)) + "z\n"
        text = _BACKGROUND.sub(lambda m: f"{m.group(1)}{path}{m.group(2)}", text, count=1)
    else:
        text = _svg_text(fig, bbox_inches="tight")
    plt.close(fig)
    return _ID.sub(lambda m: f"{m.group(1)}{prefix}-", text).strip()


def fan_chart(fan: BankrollFan, prefix: str, start: float, colour_: str = PALETTE[0]) -> str:
    """Bankroll percentiles (5-95%, 25-75%, median) by coup, with sample sessions over it."""
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        q = fan.quantiles
        ax.fill_between(fan.coups, q[0.05], q[0.95], color=colour_, alpha=0.15, lw=0,
                        label="5-95%")
        ax.fill_between(fan.coups, q[0.25], q[0.75], color=colour_, alpha=0.35, lw=0,
                        label="25-75%")
        ax.plot(fan.coups, q[0.5], color=colour_, lw=2, label="median")
        for i, path in enumerate(fan.samples.values()):
            ax.plot(np.arange(path.size), path, color="#333333", lw=0.7, alpha=0.75,
                    label="sample sessions" if i == 0 else None)
            ax.plot(path.size - 1, path[-1], "o", color="#333333", ms=2.5, alpha=0.75)
        ax.axhline(start, color="black", lw=0.8, ls="--")
        ax.set_xlabel("coup in session")
        ax.set_ylabel("bankroll (units)")
        ax.set_xlim(0, fan.coups[-1] if fan.coups.size > 1 else 1)
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=7, frameon=False,
                  ncol=4)  # above the axes, clear of the fan
        return to_svg(fig, prefix)


def bin_edges(values: np.ndarray, unit: float | None = None) -> np.ndarray:
    """Histogram bin edges: numpy's "auto" width, widened to a multiple of ``unit``.

    Session results cluster on multiples of the base stake; bins whose width is not a
    multiple of it catch one cluster or two in turn and draw a false comb.
    """
    values = np.asarray(values, dtype=np.float64)
    lo, hi = float(values.min()), float(values.max())
    if hi <= lo:
        return np.array([lo - 0.5, hi + 0.5])
    width = float(np.diff(np.histogram_bin_edges(values, bins="auto")[:2])[0])
    width = max(width, (hi - lo) / MAX_BINS)
    if unit is not None and unit > 0:
        width = unit * math.ceil(width / unit - 1e-9)
        lo = unit * math.floor(lo / unit)
    count = max(1, math.ceil((hi - lo) / width + 1e-9))
    if lo + count * width <= hi:
        count += 1
    return lo + width * np.arange(count + 1)


def step_histogram(ax: Any, values: np.ndarray, bins: Any, **style: Any) -> None:
    """Draw the histogram of ``values`` on ``ax`` as one filled outline.

    It looks the same as ``ax.hist``'s bars (adjacent, no edges: the same counts, the same
    limits) but is one patch instead of one per bin, which makes the figure several times
    quicker to draw.
    """
    counts, edges = np.histogram(values, bins=bins)
    ax.stairs(counts, edges, fill=True, **style)


def histogram(values: np.ndarray, prefix: str, xlabel: str, colour_: str = PALETTE[0],
              zero_line: bool = True, unit: float | None = None) -> str:
    """A histogram with the mean marked (and zero, for results that can be either sign)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        if values.size:
            edges = bin_edges(values, unit)
            step_histogram(ax, values, edges, color=colour_, alpha=0.75)
            ax.axvline(float(values.mean()), color="black", lw=1.2, ls="--",
                       label=f"mean {values.mean():,.1f}")
            if zero_line:
                ax.axvline(0.0, color="#777777", lw=0.8)
            ax.legend(loc="upper right", fontsize=7, frameon=False)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("sessions")
        return to_svg(fig, prefix)


def ruin_chart(curves: Mapping[str, np.ndarray], prefix: str,
               colours: Mapping[str, str] | None = None,
               ylabel: str = "sessions ruined") -> str:
    """Share of sessions stopped (ruined, or busted with ``ylabel``) by each coup: one
    curve per configuration. Callers leave the chart out when every curve is zero."""
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        top = 0.0
        for i, (label, curve) in enumerate(curves.items()):
            c = (colours or {}).get(label, colour(i))
            ax.step(np.arange(curve.size), curve, where="post", color=c, lw=1.6, label=label)
            top = max(top, float(curve.max()) if curve.size else 0.0)
        ax.set_ylim(0, max(top * 1.1, 0.01))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("coup in session")
        ax.set_ylabel(ylabel)
        if len(curves) > 1:
            ax.legend(loc="upper left", fontsize=7, frameon=False)
        return to_svg(fig, prefix)


def bankroll_overlay(fans: Mapping[str, BankrollFan], prefix: str, start: float | None,
                     colours: Mapping[str, str] | None = None) -> str:
    """The mean bankroll by coup of several configurations on one chart (solid), their
    median dashed: the mean is what a system returns, the median what most sessions see
    (a Martingale's median climbs while its mean falls)."""
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        for i, (label, fan) in enumerate(fans.items()):
            c = (colours or {}).get(label, colour(i))
            ax.plot(fan.coups, fan.mean if fan.mean.size else fan.median, color=c, lw=1.6,
                    label=f"{label} (mean)")
            ax.plot(fan.coups, fan.median, color=c, lw=0.9, ls="--")
        if start is not None:
            ax.axhline(start, color="black", lw=0.8, ls=":")
        ax.set_xlabel("coup in session")
        ax.set_ylabel("bankroll (units): mean, median dashed")
        ax.legend(loc="best", fontsize=7, frameon=False)
        return to_svg(fig, prefix)


def reference_figure(sample: np.ndarray, observed: float, label: str, prefix: str,
                     stands_out: bool) -> str:
    """The reference distribution of one statistic with the observed value marked."""
    sample = sample[np.isfinite(sample)]
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SMALL_SIZE)
        step_histogram(ax, sample, min(40, max(10, sample.size // 15)), color=PALETTE[0],
                       alpha=0.7, label="fair reference")
        low, high = np.quantile(sample, [0.025, 0.975])
        ax.axvspan(float(low), float(high), color="#999999", alpha=0.12, lw=0)
        ax.axvline(observed, color=PALETTE[1] if stands_out else "black", lw=1.6,
                   label=f"observed {observed:.4g}")
        ax.legend(loc="upper right", fontsize=7, frameon=False)
        ax.set_xlabel(label, fontsize=8)
        ax.set_ylabel("datasets")
        return to_svg(fig, prefix)


def best_of_null_figure(best: np.ndarray, observed: float, label: str, prefix: str,
                        percent: bool) -> str:
    """The best configuration's metric in each fair dataset, with the observed best marked
    and the share of fair datasets at least as good shaded: what chance gives a search."""
    best = best[np.isfinite(best)]
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        if best.size:
            edges = np.histogram_bin_edges(np.r_[best, observed] if np.isfinite(observed)
                                           else best, bins=min(40, max(10, best.size // 8)))
            step_histogram(ax, best, edges, color=PALETTE[0], alpha=0.7,
                           label="best on a fair dataset")
            median = float(np.median(best))
            ax.axvline(median, color="#555555", lw=1.0, ls="--",
                       label="median: half the fair datasets do better")
        if np.isfinite(observed):
            ax.axvline(observed, color=PALETTE[1], lw=1.8, label="the best here")
        if percent:
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.legend(loc="upper right", fontsize=7, frameon=False)
        ax.set_xlabel(label)
        ax.set_ylabel("fair datasets")
        return to_svg(fig, prefix)


def in_out_figure(inside: np.ndarray, outside: np.ndarray, chosen: np.ndarray, label: str,
                  prefix: str, percent: bool) -> str:
    """Each configuration's metric where the choice was made against where it was checked:
    the regression to the mean of a search (the best where chosen fall back where checked).
    """
    keep = np.isfinite(inside) & np.isfinite(outside)
    x, y, pick = inside[keep], outside[keep], chosen[keep]
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        if x.size:
            ax.scatter(x[~pick], y[~pick], s=14, color=PALETTE[0], alpha=0.7,
                       label="configuration", linewidths=0)
            if pick.any():
                ax.scatter(x[pick], y[pick], s=46, color=PALETTE[1], marker="D",
                           label="chosen", linewidths=0)
            low = float(min(x.min(), y.min()))
            high = float(max(x.max(), y.max()))
            ax.plot([low, high], [low, high], color="#777777", lw=0.8, ls="--",
                    label="as good where checked")
            if x.size > 2 and float(np.std(x)) > 0:
                slope, intercept = np.polyfit(x, y, 1)
                ax.plot([low, high], [intercept + slope * low, intercept + slope * high],
                        color="black", lw=1.2, label=f"fitted line, slope {slope:.2f}")
        if percent:
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel(f"{label}, where chosen")
        ax.set_ylabel(f"{label}, where checked")
        ax.legend(loc="best", fontsize=7, frameon=False)
        return to_svg(fig, prefix)
