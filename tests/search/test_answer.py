"""The answer first: the bottom line's sentences and the one table, on hand-made results."""

from __future__ import annotations

import pandas as pd
from baccarat.answer import answer_table, bottom_line, edge_words
from rich.console import Console


def results(edges: list[float], halves: list[float], verdicts: list[str],
            busts: list[float]) -> pd.DataFrame:
    """Summary rows: each realized edge with its 95% interval's half width, the
    verdict counting every row (Holm), the bust rate; expected edge -1.06% for all."""
    return pd.DataFrame({
        "realized_edge": edges,
        "realized_edge_low": [e - h for e, h in zip(edges, halves, strict=True)],
        "realized_edge_high": [e + h for e, h in zip(edges, halves, strict=True)],
        "expected_edge": [-0.0106] * len(edges), "edge_verdict": verdicts,
        "edge_verdict_family": verdicts, "bust_rate": busts,
        "mean_net": [-5.0] * len(edges), "expected_net": [-6.0] * len(edges),
        "prob_profit": [0.45] * len(edges), "risk_of_ruin": [0.0] * len(edges)})


def test_systems_at_the_house_edge_say_so_counting_every_one() -> None:
    frame = results([-0.0112, -0.0108, -0.0114], [0.004] * 3, ["inside"] * 3,
                    [0.0, 0.38, 0.11])
    assert bottom_line(frame, ["flat", "martingale", "fibonacci"]) == (
        "All three systems lost about 1.1% of what they staked, as the house edge says; "
        "none beats it (counting 3 tried). Martingale busted 38% of its sessions.")
    assert edge_words(frame) == ["as expected"] * 3


def test_beats_only_where_the_family_verdict_flags_above_the_expected_edge() -> None:
    # outside above: beats; outside below: fell short; inside: as expected
    frame = results([0.02, -0.03, -0.011], [0.005] * 3, ["outside", "outside", "inside"],
                    [0.0, 0.0, 0.0])
    line = bottom_line(frame, ["follow", "chop", "flat"])
    assert line == ("All three systems ended between -3.0% and +2.0% of what they staked; "
                    "follow beats the house edge by more than luck explains (counting 3 "
                    "tried); chop fell short of it by more than luck explains. None busted "
                    "in any session.")
    assert edge_words(frame) == ["beats", "below", "as expected"]


def test_few_bets_give_the_interval_and_too_few_to_tell() -> None:
    # four shoes: +55.9% with an interval of +-40 points says nothing
    frame = results([0.559], [0.40], ["inside"], [0.0])
    assert bottom_line(frame, ["flat"]) == (
        "Realized edge flat +55.9% (95% interval +15.9% to +95.9%): too few bets to "
        "tell. It never busted.")
    assert edge_words(frame) == ["too few bets"]
    # the few-bet system is set apart; the others are judged
    frame = results([-0.011, 0.30], [0.003, 0.25], ["inside", "outside"], [0.0, 0.0])
    line = bottom_line(frame, ["flat", "streak:n=9"])
    assert line.startswith("Flat lost about 1.1% of what it staked, as the house edge "
                           "says; it does not beat it (counting 2 tried). ")
    assert "streak:n=9 +30.0% (95% interval +5.0% to +55.0%): too few bets to tell" in line
    assert "beats" not in line


def test_the_table_fits_80_columns() -> None:
    frame = results([-0.011] * 5, [0.003] * 5, ["inside"] * 5, [0.0] * 5)
    labels = ["flat", "martingale", "fibonacci", "paroli", "road:mode=red | martingale"]
    console = Console(width=80, record=True)
    console.print(answer_table(frame, labels, "Backtest (5 configurations tried)"))
    lines = console.export_text().splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    assert any("edge, Holm" in line for line in lines)
