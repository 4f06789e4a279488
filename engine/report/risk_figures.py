"""The exact-risk section's figures (numpy and matplotlib only, as every report figure).

- :func:`distribution_figure`: a configuration's exact distribution of the final net,
  binned, with the check's simulated sessions drawn over it in the same bins;
- :func:`bankroll_figure`: risk of ruin (and of ruin or a bust) against the starting
  bankroll, one colour per configuration.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import PercentFormatter

from .figures import SIZE, STYLE, colour, to_svg


def distribution_figure(net: np.ndarray, probability: np.ndarray, simulated: np.ndarray,
                        sessions: int, prefix: str, colour_: str, unit: float) -> str:
    """The exact distribution of net (filled) and the simulated share of sessions in the
    same bins (outline; none when ``simulated`` is all NaN)."""
    net = np.asarray(net, dtype=np.float64)
    probability = np.asarray(probability, dtype=np.float64)
    simulated = np.asarray(simulated, dtype=np.float64)
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        held = probability > 0
        if held.any():
            edges = _edges(net, probability, unit)
            exact, _ = np.histogram(net, bins=edges, weights=probability)
            ax.stairs(exact, edges, fill=True, color=colour_, alpha=0.55, label="exact")
            if np.isfinite(simulated).any():
                shares, _ = np.histogram(net, bins=edges, weights=np.nan_to_num(simulated))
                ax.stairs(shares, edges, color="black", lw=1.0,
                          label=f"{sessions:,} simulated sessions")
            mean = float((net * probability).sum())
            ax.axvline(mean, color="black", lw=1.0, ls="--", label=f"mean {mean:,.2f}")
            ax.axvline(0.0, color="#777777", lw=0.8)
            ax.legend(loc="upper left", fontsize=7, frameon=False)
            ax.set_xlim(edges[0], edges[-1])
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("net result of a session")
        ax.set_ylabel("share of sessions")
        return to_svg(fig, prefix)


#: The share of sessions each end of the distribution's figure may leave out of view.
TAIL = 0.0005
BINS = 50


def _edges(net: np.ndarray, probability: np.ndarray, unit: float) -> np.ndarray:
    """Bins over the nets holding all but ``TAIL`` of the mass at either end (the far tails,
    improbable but possible, would squeeze the rest into a few bins), each a multiple of
    the money unit wide."""
    cdf = np.cumsum(probability)
    lo = float(net[min(int(np.searchsorted(cdf, TAIL)), net.size - 1)])
    hi = float(net[min(int(np.searchsorted(cdf, 1 - TAIL)), net.size - 1)])
    if hi <= lo:
        return np.array([lo - unit, hi + unit])
    width = unit * max(1, math.ceil((hi - lo) / BINS / unit - 1e-9))
    start = width * math.floor(lo / width) - width / 2
    return start + width * np.arange(math.ceil((hi - start) / width) + 2)


def bankroll_figure(labels: Sequence[str], bankrolls: Sequence[np.ndarray],
                    ruin: Sequence[np.ndarray], either: Sequence[np.ndarray], start: float,
                    prefix: str) -> str:
    """Risk against the starting bankroll: ruin (solid) and ruin or a bust (dashed)."""
    with matplotlib.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        for i, label in enumerate(labels):
            c = colour(i)
            x = np.asarray(bankrolls[i], dtype=np.float64)
            ax.plot(x, np.asarray(ruin[i]), color=c, lw=1.4, label=f"{label}: ruin")
            if np.any(np.asarray(either[i]) != np.asarray(ruin[i])):
                ax.plot(x, np.asarray(either[i]), color=c, lw=1.0, ls="--",
                        label=f"{label}: ruin or bust")
        ax.axvline(start, color="#777777", lw=0.8)
        ax.set_ylim(0, 1.0)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("starting bankroll")
        ax.set_ylabel("risk")
        ax.legend(loc="upper right", fontsize=7, frameon=False)
        return to_svg(fig, prefix)


__all__ = ["bankroll_figure", "distribution_figure"]
