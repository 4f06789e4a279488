"""Ledgers of the built-in strategies through the real backtest API, worked out by hand.

Each test backtests short recorded outcome sequences (ties included) and compares the
ledger's stake, net and bankroll columns with values computed by hand in the comments:
a Banker win pays 0.95 under the default 5% commission, a Player win 1, a tie pushes
Banker and Player bets. Base stake 10, bankroll 1000, one shoe per session unless said.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from baccarat import Session, backtest
from baccarat.coups import coups_from_outcomes
from baccarat.rules import TableRules
from baccarat.strategies.presets import MartingalePreset as Martingale
from keywords import backtest_with
from test_strategies import ScalarMartingale


def ledger_of(shoes: list[str], spec: str, **kwargs: object) -> pd.DataFrame:
    """The ledger of one configuration over the given shoes."""
    result = backtest_with(coups=coups_from_outcomes(shoes), strategies=[spec], bankroll=1000,
                      **kwargs)  # type: ignore[arg-type]
    return result.ledger


def check(ledger: pd.DataFrame, rows: list[tuple[str, float, float, float]],
          kind: str = "banker") -> None:
    """Compare (outcome, stake on ``kind``, net, bankroll) row by row."""
    assert len(ledger) == len(rows)
    assert ledger["outcome"].astype(str).tolist() == [r[0] for r in rows]
    np.testing.assert_allclose(ledger[kind].to_numpy(), [r[1] for r in rows], rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(ledger["net"].to_numpy(), [r[2] for r in rows], rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(ledger["bankroll"].to_numpy(), [r[3] for r in rows], rtol=0,
                               atol=1e-9)
    others = [k for k in ("banker", "player", "tie") if k != kind]
    assert (ledger[others].to_numpy() == 0).all()


def test_martingale_ledger() -> None:
    ledger = ledger_of(["PPTBPPPBTB", "TBP"], "martingale:base=10")
    assert ledger["session"].tolist() == [0] * 10 + [1] * 3
    assert ledger["shoe"].tolist() == [0] * 10 + [1] * 3
    assert ledger["coup"].tolist() == list(range(1, 11)) + [1, 2, 3]
    check(ledger, [
        ("P", 10, -10, 990),     # lose 10
        ("P", 20, -20, 970),     # doubled, lose
        ("T", 40, 0, 970),       # doubled; tie pushes, stake stays 40
        ("B", 40, 38, 1008),     # win 40 * 0.95 = 38; back to 10
        ("P", 10, -10, 998),
        ("P", 20, -20, 978),
        ("P", 40, -40, 938),
        ("B", 80, 76, 1014),     # 80 * 0.95 = 76: the series nets +10 less commission
        ("T", 10, 0, 1014),
        ("B", 10, 9.5, 1023.5),
        # shoe 1 is a new session: fresh bankroll, fresh progression
        ("T", 10, 0, 1000),
        ("B", 10, 9.5, 1009.5),
        ("P", 10, -10, 999.5),
    ])


def test_martingale_carries_across_the_shoes_of_a_session() -> None:
    # Two shoes per session: the progression runs on over the shoe boundary.
    check(ledger_of(["PP", "PB"], "martingale", session_shoes=2), [
        ("P", 10, -10, 990), ("P", 20, -20, 970), ("P", 40, -40, 930), ("B", 80, 76, 1006),
    ])
    # One shoe per session: the second shoe starts again at 10.
    check(ledger_of(["PP", "PB"], "martingale"), [
        ("P", 10, -10, 990), ("P", 20, -20, 970), ("P", 10, -10, 990), ("B", 20, 19, 1009),
    ])


def test_martingale_stake_over_the_table_maximum_is_capped_by_the_engine() -> None:
    # Table max 50: the strategy asks 80 and 160, the engine stakes 50; the progression
    # itself goes on (the win at the capped stake resets it to 10).
    ledger = ledger_of(["PPPPBP"], "martingale", rules=TableRules(table_max=50))
    check(ledger, [
        ("P", 10, -10, 990), ("P", 20, -20, 970), ("P", 40, -40, 930),
        ("P", 50, -50, 880),       # asked 80
        ("B", 50, 47.5, 927.5),    # asked 160
        ("P", 10, -10, 917.5),
    ])


def test_martingale_that_cannot_cover_its_stake_is_stopped_by_the_engine() -> None:
    # Bankroll 300: 10 + 20 + 40 + 80 lost leaves 150, short of the next stake of 160.
    result = backtest(coups_from_outcomes(["PPPPPB"]), ["martingale"],
                      session=Session(bankroll=300))
    check(result.ledger, [("P", 10, -10, 290), ("P", 20, -20, 270), ("P", 40, -40, 230),
                          ("P", 80, -80, 150)])
    # 150 still covers the table minimum: the session is busted, not ruined
    row = result.sessions.iloc[0]
    assert (bool(row["busted"]), bool(row["ruined"]), row["stop_reason"]) == (
        True, False, "busted")


def test_fibonacci_ledger() -> None:
    check(ledger_of(["PPPTBPBBT"], "fibonacci:base=10"), [
        ("P", 10, -10, 990),      # F = 1, 1, 2, 3, 5: step 0
        ("P", 10, -10, 980),      # step 1
        ("P", 20, -20, 960),      # step 2
        ("T", 30, 0, 960),        # step 3, push
        ("B", 30, 28.5, 988.5),   # win: two steps back, to step 1
        ("P", 10, -10, 978.5),    # step 1, lose: step 2
        ("B", 20, 19, 997.5),     # win: back to step 0
        ("B", 10, 9.5, 1007),     # win at step 0 stays at step 0
        ("T", 10, 0, 1007),
    ])


def test_labouchere_ledger() -> None:
    check(ledger_of(["PTBPBBTP"], "labouchere:base=10"), [
        ("P", 50, -50, 950),      # line 1 2 3 4: 1 + 4 = 5 units, lost: 1 2 3 4 5
        ("T", 60, 0, 950),        # 1 + 5, push
        ("B", 60, 57, 1007),      # won: 2 3 4
        ("P", 60, -60, 947),      # 2 + 4, lost: 2 3 4 6
        ("B", 80, 76, 1023),      # won: 3 4
        ("B", 70, 66.5, 1089.5),  # won: line empty, cycle complete (+10 units less 5%)
        ("T", 50, 0, 1089.5),     # new line 1 2 3 4
        ("P", 50, -50, 1039.5),
    ])


def test_labouchere_on_player_ledger() -> None:
    check(ledger_of(["BPTPP"], "labouchere:line=1-1,side=player"), [
        ("B", 20, -20, 980),      # 1 + 1, lost: 1 1 2
        ("P", 30, 30, 1010),      # 1 + 2, won: 1
        ("T", 10, 0, 1010),       # one number: stake it
        ("P", 10, 10, 1020),      # won: empty, new line 1 1
        ("P", 20, 20, 1040),
    ], kind="player")


def test_one_three_two_six_ledger() -> None:
    check(ledger_of(["BBTBBPBTBBBB"], "one_three_two_six:base=10"), [
        ("B", 10, 9.5, 1009.5),   # 1 unit
        ("B", 30, 28.5, 1038),    # 3 units
        ("T", 20, 0, 1038),       # 2 units, push
        ("B", 20, 19, 1057),
        ("B", 60, 57, 1114),      # 6 units won: cycle done
        ("P", 10, -10, 1104),     # lose at 1
        ("B", 10, 9.5, 1113.5),
        ("T", 30, 0, 1113.5),
        ("B", 30, 28.5, 1142),
        ("B", 20, 19, 1161),
        ("B", 60, 57, 1218),
        ("B", 10, 9.5, 1227.5),
    ])
    check(ledger_of(["PPBP"], "one_three_two_six:side=player"), [
        ("P", 10, 10, 1010), ("P", 30, 30, 1040), ("B", 20, -20, 1020), ("P", 10, 10, 1030),
    ], kind="player")


def test_follow_and_road_through_the_engine() -> None:
    # follow, two shoes per session: per_shoe forgets at the new shoe, otherwise the last
    # decision of shoe 0 (P) is followed into shoe 1.
    result = backtest(coups_from_outcomes(["BP", "PB"]), ["follow", "follow:per_shoe=false"],
                      session=Session(session_shoes=2))
    per_shoe = result.ledger[result.ledger["config"] == 0]
    carried = result.ledger[result.ledger["config"] == 1]
    assert per_shoe["banker"].tolist() == [0, 10, 0, 0]
    assert per_shoe["player"].tolist() == [0, 0, 0, 10]
    assert per_shoe["net"].tolist() == [0, -10, 0, -10]
    assert carried["banker"].tolist() == [0, 10, 0, 0]
    assert carried["player"].tolist() == [0, 0, 10, 10]
    assert carried["net"].tolist() == [0, -10, 10, -10]
    # road: big road P P (T) | B | P P P | B, columns 2, 1, 3, 1. Column 1 has one cell,
    # so the big eye boy starts at (2, 0): coup 5, 1 vs 2 -> blue; coup 6 (2, 1), column 1
    # is 1 long -> blue; coup 7 (2, 2) -> red; coup 8 (3, 0), 3 vs 1 -> blue. Before coup 6
    # (blue): P at (2, 1) -> blue: bet P, won. Before 7 (blue): B at (3, 0), 2 vs 1 ->
    # blue: bet B, lost. Before 8 (red): P at (2, 3), column 1 not 3 long -> red: bet P,
    # lost to B. Shoe 1 (B P B) has no mark before its last coup.
    ledger = ledger_of(["PPTBPPPB", "BPB"], "road")
    assert ledger["player"].tolist() == [0, 0, 0, 0, 0, 10, 0, 10, 0, 0, 0]
    assert ledger["banker"].tolist() == [0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0]
    assert ledger["net"].tolist() == [0, 0, 0, 0, 0, 10, -10, -10, 0, 0, 0]


@pytest.mark.parametrize("params", [{}, {"max_doublings": 4, "side": "player"}])
def test_scalar_and_array_martingale_give_identical_ledgers(params: dict[str, object]
                                                            ) -> None:
    """The SimpleStrategy Martingale and the array one, side by side on generated shoes."""
    result = backtest(None, [Martingale(**params),  # type: ignore[arg-type]
                             ScalarMartingale(**params)], shoes=30, seed=11,
                      session=Session(bankroll=2000, session_shoes=3))
    ledger = result.ledger
    array = ledger[ledger["config"] == 0].reset_index(drop=True)
    scalar = ledger[ledger["config"] == 1].reset_index(drop=True)
    assert len(array) > 500
    columns = ["session", "shoe", "coup", "banker", "player", "tie", "net", "bankroll"]
    pd.testing.assert_frame_equal(array[columns], scalar[columns])
    # Not a degenerate run: the progression doubled several times.
    side = str(params.get("side", "banker"))
    assert array[side].max() >= 80
