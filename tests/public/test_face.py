"""The public face, ``baccarat``, as a notebook or script uses it: only names in
``baccarat.__all__``, each result checked against a value worked out here (by a plain
enumeration of the coups, by hand, or by a confidence interval computed from raw rows).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from baccarat import BaccaratError, Run, Session, TableRules, backtest, import_files, odds

# ------------------------------------------------------------------ exact odds, enumerated here


def _banker_draws(banker: int, third: int) -> bool:
    """The Banker's drawing rule when the Player drew ``third`` (its value)."""
    return (banker <= 2 or (banker == 3 and third != 8) or (banker == 4 and 2 <= third <= 7)
            or (banker == 5 and 4 <= third <= 7) or (banker == 6 and third in (6, 7)))


def _outcome_probabilities(decks: int) -> dict[str, float]:
    """P(Banker wins), P(Player wins), P(tie) of the first coup of a full shoe: every deal
    of up to six cards by value (0 for tens and faces: 16 a deck, 4 a deck for each of
    1-9), each weighted by the chance of drawing it without replacement."""
    counts = [16 * decks] + [4 * decks] * 9
    total = 52 * decks
    won = {"B": 0.0, "P": 0.0, "T": 0.0}

    def draws(left: int):
        for value in range(10):
            if counts[value]:
                chance = counts[value] / left
                counts[value] -= 1
                yield value, chance
                counts[value] += 1

    def settle(player: int, banker: int, chance: float) -> None:
        won["B" if banker > player else "P" if player > banker else "T"] += chance

    for p1, q1 in draws(total):
        for b1, q2 in draws(total - 1):
            for p2, q3 in draws(total - 2):
                for b2, q4 in draws(total - 3):
                    q = q1 * q2 * q3 * q4
                    player, banker = (p1 + p2) % 10, (b1 + b2) % 10
                    if player >= 8 or banker >= 8:  # a natural: nobody draws
                        settle(player, banker, q)
                    elif player <= 5:  # the Player draws; the Banker by the table
                        for p3, q5 in draws(total - 4):
                            if _banker_draws(banker, p3):
                                for b3, q6 in draws(total - 5):
                                    settle((player + p3) % 10, (banker + b3) % 10, q * q5 * q6)
                            else:
                                settle((player + p3) % 10, banker, q * q5)
                    elif banker <= 5:  # the Player stands on 6 or 7; the Banker draws on 0-5
                        for b3, q6 in draws(total - 4):
                            settle(player, (banker + b3) % 10, q * q6)
                    else:
                        settle(player, banker, q)
    return won


@pytest.mark.parametrize(("decks", "commission", "tie_pays"),
                         [(8, 0.05, 8), (6, 0.05, 8), (1, 0.05, 8), (8, 0.04, 9)])
def test_odds_gives_the_edges_of_the_main_bets_enumerated_here(decks, commission, tie_pays):
    won = _outcome_probabilities(decks)
    assert sum(won.values()) == pytest.approx(1, abs=1e-12)
    # the expected loss per unit staked, a tie pushing the Banker and Player bets
    expected = {"banker": won["P"] - (1 - commission) * won["B"],
                "player": won["B"] - won["P"],
                "tie": (1 - won["T"]) - tie_pays * won["T"]}
    table = odds(TableRules(decks=decks, commission=commission, tie_pays=tie_pays))
    edges = table.set_index("bet")["house_edge"]
    for bet, edge in expected.items():
        assert edges[bet] == pytest.approx(edge, abs=1e-9), bet


def test_the_enumeration_gives_the_published_eight_deck_edges():
    """The enumeration above against the published 8-deck figures (Wizard of Odds):
    Banker 1.0579%, Player 1.2351%, tie at 8:1 14.3596%."""
    won = _outcome_probabilities(8)
    assert won["P"] - 0.95 * won["B"] == pytest.approx(0.010579, abs=5e-7)
    assert won["B"] - won["P"] == pytest.approx(0.012351, abs=5e-7)
    assert 1 - 9 * won["T"] == pytest.approx(0.143596, abs=5e-7)


# ------------------------------------------------- a long backtest realises the exact edges

Z = 3.29  # 99.9%: a fixed seed lands outside by chance one time in a thousand per check


@pytest.fixture(scope="module")
def flat_sessions() -> pd.DataFrame:
    """Flat 10 on Banker and on the tie, every coup of 10,000 generated shoes, one session
    a shoe (sessions are independent; coups within a shoe share its cards)."""
    result = backtest(None, ["flat", "flat:side=tie"], shoes=10_000, seed=2027,
                      session=Session(bankroll=1e9), run=Run(ledger=False))
    return result.sessions


def _ratio_interval(net: pd.Series, wagered: pd.Series) -> tuple[float, float, float]:
    """Net per unit staked over independent sessions, and its interval: the ratio of the
    sums, its standard error by the delta method over the sessions."""
    ratio = net.sum() / wagered.sum()
    residual = net - ratio * wagered
    n = len(net)
    se = math.sqrt((residual ** 2).sum() * n / (n - 1)) / wagered.sum()
    return ratio, ratio - Z * se, ratio + Z * se


@pytest.mark.parametrize(("config", "bet"), [(0, "banker"), (1, "tie")])
def test_flat_stakes_realise_minus_the_house_edge_of_odds(flat_sessions, config, bet):
    rows = flat_sessions[flat_sessions["config"] == config]
    assert len(rows) == 10_000 and (rows["bets"] == rows["coups"]).all()  # every coup staked
    assert (rows["wagered"] == 10 * rows["coups"]).all()
    assert (rows[f"wagered_{bet}"] == rows["wagered"]).all()
    edge = odds().set_index("bet").loc[bet, "house_edge"]
    realised, low, high = _ratio_interval(rows["net"], rows["wagered"])
    assert low <= -edge <= high, (realised, low, high, -edge)
    # tight enough to tell a wrong payout: Banker at 1:1 (-0.0124) or at 0.90 (+0.0335),
    # the tie at 9:1 (-0.0484) all fall outside
    assert high - low < (0.008 if bet == "banker" else 0.025)


def test_flat_banker_pushes_and_wins_as_often_as_the_enumeration_says(flat_sessions):
    rows = flat_sessions[flat_sessions["config"] == 0]
    won = _outcome_probabilities(8)
    decided = rows["wins"] + rows["losses"]
    assert (decided + rows["pushes"] == rows["coups"]).all()
    # a full shoe's chances hold for its later coups too, up to effects (the cut card's)
    # far inside these intervals: ties push, Banker wins win
    _, low, high = _ratio_interval(rows["pushes"], rows["coups"])
    assert low <= won["T"] <= high
    _, low, high = _ratio_interval(rows["wins"], decided)
    assert low <= won["B"] / (won["B"] + won["P"]) <= high
    assert high - low < 0.005


# ------------------------------------------------- both engines, and a Martingale by hand


def test_both_engines_give_the_same_martingale_run():
    replayed = backtest(None, ["martingale", "martingale:max_doublings=3"], shoes=300, seed=5,
                        run=Run(engine="replay"))
    compiled = backtest(None, ["martingale", "martingale:max_doublings=3"], shoes=300, seed=5,
                        run=Run(engine="compiled"))
    assert [c["engine"] for c in replayed.info["configs"]] == ["replay", "replay"]
    assert [c["engine"] for c in compiled.info["configs"]] == ["compiled", "compiled"]
    pd.testing.assert_frame_equal(replayed.summary, compiled.summary)
    pd.testing.assert_frame_equal(replayed.sessions, compiled.sessions)
    pd.testing.assert_frame_equal(replayed.ledger, compiled.ledger)
    assert replayed.summary["sessions"].tolist() == [300, 300]


def test_a_martingale_over_recorded_outcomes_by_hand(tmp_path: Path):
    """Martingale on Banker, base 10, from 1,000; a Banker win pays 0.95, a tie pushes
    (nothing moves: the stake stays). By hand, coup by coup:
      P  10 lost  -10        B  10 won   +9.5       T  20 push    0
      P  20 lost  -20        P  10 lost  -10        P  20 lost  -20
      P  40 lost  -40                               B  40 won   +38
      B  80 won   +76
    net +23.5 over 9 coups, 250 staked."""
    recorded = tmp_path / "shoe.csv"
    recorded.write_text("shoe,coup,winner\n" + "".join(
        f"s1,{coup},{word}\n" for coup, word in enumerate(
            ["Player", "Player", "Player", "Banker", "Banker", "Player", "Tie", "Player",
             "Banker"], start=1)))
    coups = import_files(recorded)
    for engine in ("replay", "compiled"):
        result = backtest(coups, ["martingale"], session=Session(bankroll=1000),
                          run=Run(engine=engine))
        ledger = result.ledger
        assert ledger["banker"].tolist() == [10, 20, 40, 80, 10, 10, 20, 20, 40], engine
        assert ledger["net"].tolist() == [-10, -20, -40, 76, 9.5, -10, 0, -20, 38], engine
        assert ledger["bankroll"].iloc[-1] == 1023.5
        session = result.sessions.iloc[0]
        assert (session["net"], session["wagered"], session["wins"], session["losses"],
                session["pushes"]) == (23.5, 250, 3, 5, 1)


# ---------------------------------------------------------------------- errors in its words


@pytest.mark.parametrize(("spec", "said"), [
    ("martingal", "unknown strategy 'martingal' (did you mean 'martingale'?)"),
    ("martingale:max_doubling=3", "has no parameter 'max_doubling' (did you mean "
                                  "'max_doublings'?)"),
])
def test_a_misspelt_strategy_is_refused_with_the_name_meant(spec, said):
    with pytest.raises(BaccaratError) as caught:
        backtest(None, [spec], shoes=2, seed=1)
    assert said in str(caught.value)
