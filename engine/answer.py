"""The answer first: one table of what a player asks of each system, and a bottom line.

``baccarat demo``, ``backtest`` and ``compare`` print :func:`answer_table` (each system's
mean net against its expected net, P(ahead), bust and ruin, and its realized edge's
verdict, Holm-adjusted over the systems when there are several) under the
:func:`bottom_line`, one or two sentences a player reads first. The full set of figures
is in ``summary.parquet``, the report and ``baccarat compare --all``.

A realized edge whose 95% interval is wider than :data:`TOO_WIDE` either side (about
3,500 even-money bets of one unit: fewer bets than that cannot tell a system's edge
from the house edge, which is about 1%) is shown with its interval and the words "too
few bets to tell", never with a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from rich import box
from rich.table import Table

from .metrics import OUTSIDE

#: Half the width of the realized edge's 95% interval above which it tells nothing.
TOO_WIDE = 0.01

BEATS, SHORT, AS_EXPECTED, TOO_FEW = "beats", "below", "as expected", "too few bets"
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
          "ten")


def _count(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else f"{n:,}"


def _verdict_column(frame: pd.DataFrame) -> str:
    """The verdict the table and the sentences read: Holm over the rows when several."""
    return "edge_verdict_family" if len(frame) > 1 and "edge_verdict_family" in frame \
        else "edge_verdict"


def too_wide(row: pd.Series) -> bool:
    """Whether the row's realized edge is too uncertain to judge (or unknown)."""
    low, high = float(row["realized_edge_low"]), float(row["realized_edge_high"])
    return not (math.isfinite(low) and math.isfinite(high)) or (high - low) / 2 > TOO_WIDE


def edge_words(frame: pd.DataFrame) -> list[str]:
    """Each row's verdict on its realized edge: beats (above its expected edge by more
    than luck explains, counting every row), below, as expected, or too few bets."""
    column = _verdict_column(frame)
    words = []
    for _, row in frame.iterrows():
        if too_wide(row):
            words.append(TOO_FEW)
        elif str(row[column]) == OUTSIDE:
            words.append(BEATS if row["realized_edge"] > row["expected_edge"] else SHORT)
        else:
            words.append(AS_EXPECTED)
    return words


def _first_up(sentence: str) -> str:
    """The sentence with a capital, unless it opens with a spec (``after_ties | flat``),
    which is written as the user types it."""
    first = sentence.split(" ", 1)[0]
    return sentence[:1].upper() + sentence[1:] if first.isalpha() else sentence


def _percent(value: float) -> str:
    return f"{abs(value) * 100:.1f}%"


def _edge_clause(edges: Sequence[float]) -> str:
    """``lost about 1.1% of what they staked`` / ``lost 0.9% to 1.3%`` / ``made ...``."""
    low, high = min(edges), max(edges)
    if round(low, 3) == round(high, 3):
        verb = "lost" if low < 0 else "made"
        return f"{verb} about {_percent(low)} of what {'it' if len(edges) == 1 else 'they'} " \
               f"staked"
    if high < 0:
        return f"lost {_percent(high)} to {_percent(low)} of what they staked"
    if low > 0:
        return f"made {_percent(low)} to {_percent(high)} of what they staked"
    return f"ended between -{_percent(low)} and +{_percent(high)} of what they staked"


def bottom_line(frame: pd.DataFrame, labels: Sequence[str]) -> str:
    """One or two sentences a player reads first: what the systems made of what they
    staked against the house edge, whether any beats it (counting every one tried), and
    the worst bust rate. ``frame`` is a summary or a comparison, one row per system."""
    words = edge_words(frame)
    k = len(frame)
    judged = [i for i, w in enumerate(words) if w != TOO_FEW]
    sentences = []
    if judged:
        edges = [float(frame["realized_edge"].iloc[i]) for i in judged]
        who = (labels[judged[0]] if len(judged) == 1 else
               f"All {_count(k)} systems" if len(judged) == k else
               f"{_count(len(judged)).capitalize()} of the {_count(k)} systems")
        beats = [labels[i] for i in judged if words[i] == BEATS]
        short = [labels[i] for i in judged if words[i] == SHORT]
        counted = f" (counting {k:,} tried)" if k > 1 else ""
        if not beats and not short:
            tail = (f", as the house edge says; none beats it{counted}" if len(judged) > 1
                    else f", as the house edge says; it does not beat it{counted}")
        else:
            parts = []
            if beats:
                parts.append(f"{', '.join(beats)} beat{'s' if len(beats) == 1 else ''} "
                             f"the house edge by more than luck explains{counted}")
            if short:
                parts.append(f"{', '.join(short)} fell short of it by more than luck "
                             f"explains{counted if not beats else ''}")
            tail = "; " + "; ".join(parts)
        sentences.append(_first_up(f"{who} {_edge_clause(edges)}{tail}."))
    wide = [i for i, w in enumerate(words) if w == TOO_FEW]
    if wide:
        shown = []
        for i in wide[:2]:
            row = frame.iloc[i]
            interval = (f" (95% interval {float(row['realized_edge_low']):+.1%} to "
                        f"{float(row['realized_edge_high']):+.1%})"
                        if math.isfinite(float(row["realized_edge_low"])) else "")
            shown.append(f"{labels[i]} {float(row['realized_edge']):+.1%}{interval}")
        more = f" and {len(wide) - 2} more" if len(wide) > 2 else ""
        sentences.append(f"Realized edge {'; '.join(shown)}{more}: too few bets to tell.")
    bust = frame["bust_rate"].to_numpy(dtype=float)
    if k and bust.max() > 0:
        worst = int(bust.argmax())
        sentences.append(_first_up(f"{labels[worst]} busted {bust[worst]:.0%} of its "
                                   f"sessions."))
    elif k:
        sentences.append("None busted in any session." if k > 1 else
                         "It never busted.")
    return " ".join(sentences)


def answer_table(frame: pd.DataFrame, labels: Sequence[str], title: str) -> Table:
    """One row per system: mean net against expected net, P(ahead), bust and ruin, and
    the realized edge's verdict (Holm when several). Fits 80 columns."""
    several = len(frame) > 1
    table = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left",
                  padding=(0, 1), pad_edge=False, collapse_padding=True)
    table.add_column("system", overflow="fold", ratio=1, min_width=12)
    for head in ("mean net", "expected", "P(ahead)", "bust", "ruin"):
        table.add_column(head, justify="right", no_wrap=True)
    table.add_column("edge, Holm" if several else "edge", no_wrap=True)
    for (_, row), label, word in zip(frame.iterrows(), labels, edge_words(frame),
                                     strict=True):
        table.add_row(label, f"{float(row['mean_net']):+,.2f}",
                      f"{float(row['expected_net']):+,.2f}",
                      f"{float(row['prob_profit']):.0%}", f"{float(row['bust_rate']):.0%}",
                      f"{float(row['risk_of_ruin']):.0%}", word)
    table.caption = ("net per session in units; edge: the realized edge against the "
                     "expected" + (", Holm over the systems" if several else "")
                     + "; every figure: summary.parquet, compare --all")
    return table


__all__ = ["TOO_WIDE", "answer_table", "bottom_line", "edge_words", "too_wide"]
