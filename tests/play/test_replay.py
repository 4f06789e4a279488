"""The replay engine: table rules, bankroll policy, stop rules, faults, look-ahead."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from baccarat import backtest
from baccarat.coups import coups_from_outcomes
from baccarat.replay import SessionPolicy, StrategyFault
from baccarat.rules import TableRules
from baccarat.strategies.base import Strategy, Table, Wager
from hypothesis import given, settings
from hypothesis import strategies as st
from keywords import backtest_with


class Scripted(Strategy):
    """Test double: stakes[i] on `kind` at the i-th coup of each session (0 after the list)."""

    name = "scripted"
    stakes: list[float] = [10.0]
    kind: str = "banker"

    def wager(self, table: Table) -> Wager:
        i = table.coup
        script = np.array(self.stakes + [0.0])
        return Wager.on(**{self.kind: script[np.minimum(i, len(self.stakes))]})


def run(outcomes: list[str], stakes: list[float], kind: str = "banker", **kwargs):
    return backtest_with(coups_from_outcomes(outcomes), [Scripted(stakes=stakes, kind=kind)],
                    **kwargs)


def test_payouts_standard_rules_by_hand():
    # B pays 0.95, P pays 1, tie pushes: 10 on banker over B P T B -> +9.5 -10 0 +9.5
    res = run(["BPTB"], [10, 10, 10, 10])
    assert res.ledger["net"].tolist() == [9.5, -10.0, 0.0, 9.5]
    assert res.ledger["bankroll"].tolist() == [1009.5, 999.5, 999.5, 1009.0]
    row = res.sessions.iloc[0]
    assert (row.wins, row.losses, row.pushes, row.bets) == (2, 1, 1, 4)
    assert row.final_bankroll == 1009.0
    assert row.realized_edge == pytest.approx(9.0 / 40.0)


def test_tie_pays_by_rules():
    res = run(["TB"], [10, 10], kind="tie")
    assert res.ledger["net"].tolist() == [80.0, -10.0]
    res9 = run(["TB"], [10, 10], kind="tie", rules=TableRules(tie_pays=9))
    assert res9.ledger["net"].tolist() == [90.0, -10.0]


def test_table_maximum_caps_and_counts():
    # stakes 10, 20, 40 -> capped to 30 (hit), 80 -> 30 (hit); B wins the last: +28.5
    res = run(["PPPB"], [10, 20, 40, 80], rules=TableRules(table_max=30))
    assert res.ledger["banker"].tolist() == [10, 20, 30, 30]
    assert res.ledger["net"].tolist() == [-10, -20, -30, 28.5]
    assert res.sessions.iloc[0].limit_hits == 2
    assert res.sessions.iloc[0].max_stake == 30


def test_a_stake_below_the_table_minimum_is_raised_to_it_by_default():
    # 5 on Banker at a 10 minimum is raised to 10: B wins 9.5 twice (no abort of the run)
    res = run(["BB"], [5, 5])
    assert res.ledger["banker"].tolist() == [10, 10]
    assert res.ledger["net"].tolist() == [9.5, 9.5]


def test_a_stake_below_the_minimum_skipped_or_ending_the_session():
    # skip: the coups are played without a bet; stop: the session ends before its first
    # coup, recorded as below_min
    skipped = run(["BPB"], [5, 20, 5], session=SessionPolicy(below_min="skip"))
    assert skipped.ledger["banker"].tolist() == [0, 20, 0]
    assert skipped.ledger["net"].tolist() == [0, -20, 0]
    assert skipped.sessions.iloc[0].bets == 1
    stopped = run(["BPB"], [20, 5, 20], session=SessionPolicy(below_min="stop"))
    row = stopped.sessions.iloc[0]
    assert stopped.ledger["banker"].tolist() == [20]  # won 19, then 5 < 10 ends it
    assert (row.coups, row.stop_reason, row.final_bankroll) == (1, "below_min", 1019.0)


def test_stakes_are_rounded_to_the_chip():
    # chip 5: 12 -> 10, 13 -> 15, 2 -> 0 (no bet; not below the minimum), 7.5 -> 10
    # (half up); P B P B: -10, +14.25, 0, +9.5
    res = run(["PBPB"], [12, 13, 2, 7.5], session=SessionPolicy(chip=5.0))
    assert res.ledger["banker"].tolist() == [10, 15, 0, 10]
    assert res.ledger["net"].tolist() == [-10, 14.25, 0, 9.5]


def test_short_bankroll_stop_means_busted_not_ruined():
    # bankroll 50: lose 10 (40), lose 20 (20), next stake 40 cannot be paid -> busted; the
    # 20 left still covers the table minimum of 10, so the session is not ruined
    res = run(["PPPB"], [10, 20, 40, 80], bankroll=50)
    row = res.sessions.iloc[0]
    assert len(res.ledger) == 2
    assert (row.busted, row.ruined, row.ruin_coup, row.stop_reason, row.final_bankroll) == (
        True, False, -1, "busted", 20.0)


def test_bankroll_below_the_table_minimum_is_ruin():
    # bankroll 25: lose 10 (15), lose 10 (5): 5 is below the minimum of 10 -> ruined at 2
    res = run(["PPPB"], [10, 10, 10, 10], bankroll=25)
    row = res.sessions.iloc[0]
    assert (row.ruined, row.busted, row.ruin_coup, row.stop_reason, row.final_bankroll) == (
        True, False, 2, "ruin", 5.0)
    assert res.summary.iloc[0].risk_of_ruin == 1.0
    assert res.summary.iloc[0].bust_rate == 0.0


def test_short_bankroll_reduce_bets_what_is_left():
    # stake 40 reduced to the 20 left; it loses -> bankroll 0 < minimum -> ruined after coup 3
    res = run(["PPPB"], [10, 20, 40, 80], bankroll=50, when_short="reduce")
    assert res.ledger["banker"].tolist() == [10, 20, 20]
    row = res.sessions.iloc[0]
    assert (row.ruined, row.ruin_coup, row.final_bankroll) == (True, 3, 0.0)


@pytest.mark.parametrize("strategy", ["scripted", "martingale:base=10"])
def test_a_reduced_stake_is_in_whole_chips(strategy):
    # bankroll 50, chip 5: B wins 9.5 (59.5), P loses 10 (49.5), P loses 20 (29.5); the 40
    # asked for is cut to what is left, 29.5, in whole chips: 25, which B pays 23.75 ->
    # 53.25 (a 29.5 stake would have made 57.525). The scripted plugin takes the replay,
    # the built-in Martingale the compiled path.
    chosen = Scripted(stakes=[10, 10, 20, 40]) if strategy == "scripted" else strategy
    res = backtest(coups_from_outcomes(["BPPB"]), [chosen],
                   session=SessionPolicy(bankroll=50.0, chip=5.0, when_short="reduce"))
    assert res.ledger["banker"].tolist() == [10, 10, 20, 25]
    assert res.ledger["net"].tolist() == [9.5, -10, -20, 23.75]
    assert res.sessions.iloc[0].final_bankroll == 53.25


@pytest.mark.parametrize(
    ("outcomes", "policy", "coups", "reason"),
    [
        ("PPPB", {"stop_loss": 25}, 3, "stop_loss"),   # -10, -20, -30 <= -25
        ("BBBB", {"win_goal": 15}, 2, "win_goal"),     # 9.5, 19 >= 15
        ("BBBB", {"max_coups": 2}, 2, "max_coups"),
        ("BBBB", {}, 4, "end"),
    ],
)
def test_stop_rules(outcomes, policy, coups, reason):
    res = run([outcomes], [10] * 4, **policy)
    row = res.sessions.iloc[0]
    assert (row.coups, row.stop_reason) == (coups, reason)
    assert len(res.ledger) == coups


def test_session_shoes_joins_consecutive_shoes():
    res = run(["BP", "TB", "PP"], [10] * 6, session_shoes=2)
    assert res.sessions["session"].tolist() == [0, 1]
    assert res.sessions["coups"].tolist() == [4, 2]
    assert res.ledger["shoe"].tolist() == [0, 0, 1, 1, 2, 2]
    assert res.ledger["session_coup"].tolist() == [1, 2, 3, 4, 1, 2]


class BadStake(Strategy):
    name = "bad_stake"
    value: float = float("nan")

    def wager(self, table: Table) -> Wager:
        stake = np.full(table.n, 10.0)
        stake[table.coup == 2] = self.value
        return Wager.on(banker=stake)


class Raises(Strategy):
    name = "raises"

    def wager(self, table: Table) -> Wager:
        if table.step == 1:
            raise RuntimeError("boom")
        return Wager.on(banker=np.full(table.n, 10.0))


@pytest.mark.parametrize("value", [float("nan"), -5.0, float("inf")])
def test_impossible_stake_names_strategy_session_shoe_and_coup(value):
    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["BBBB", "PPPP"]), [BadStake(value=value)])
    message = str(err.value)
    assert "'bad_stake" in message and "session 0" in message
    assert "shoe 0" in message and "coup 3" in message and "1 more" in message


def test_strategy_exception_is_reported_with_where():
    lines, first = inspect.getsourcelines(Raises.wager)
    line = first + next(i for i, text in enumerate(lines) if "raise RuntimeError" in text)
    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["BBBB"]), [Raises()])
    assert str(err.value).startswith(
        f"strategy 'raises', session 0, shoe 0, coup 2: raised RuntimeError in wager() at "
        f"tests/play/test_replay.py:{line}: boom")


def test_side_bet_on_outcome_only_data_is_refused():
    with pytest.raises(StrategyFault, match="player_pair cannot be settled"):
        run(["BB"], [10, 10], kind="player_pair")


class CardCounter(Strategy):
    name = "needs_cards_test"
    needs_cards = True

    def wager(self, table: Table) -> Wager:
        return Wager.on(banker=np.full(table.n, 10.0))


def test_strategy_needing_cards_refused_on_outcome_only_data():
    with pytest.raises(StrategyFault, match="needs the cards.*outcomes only"):
        backtest(coups_from_outcomes(["BB"]), [CardCounter()])


SNAPSHOTS: list = []


class Spy(Strategy):
    """Records everything it can reach at each wager, to prove no future coup is visible."""

    name = "spy"

    def start(self, table: Table) -> None:
        SNAPSHOTS.clear()

    def wager(self, table: Table) -> Wager:
        SNAPSHOTS.append((table.step, table.history.copy(), table._history.copy(),
                               table.last_outcome.copy()))
        return Wager.on(banker=np.zeros(table.n))

    def settle(self, table, result) -> None:
        SNAPSHOTS.append(("settle", result.outcome.copy(), None, None))


def test_no_look_ahead_a_planted_future_coup_is_unreadable():
    # The only tie of the dataset is planted as the last coup of session 0.
    backtest(coups_from_outcomes(["BPBPBPBPT", "PBPBPBPBB"]), [Spy()])
    wagers = [s for s in SNAPSHOTS if s[0] != "settle"]
    assert len(wagers) == 9
    for step, history, buffer, last in wagers:
        assert history.shape == (2, step)
        assert (buffer[:, step:] == -1).all(), "the history buffer holds a future coup"
        assert not (buffer == 2).any() and not (last == 2).any(), "the planted tie leaked"
    settles = [s for s in SNAPSHOTS if s[0] == "settle"]
    assert settles[-1][1].tolist() == [2, 0]  # seen only after it was dealt


@settings(max_examples=60, deadline=None)
@given(
    shoes=st.lists(st.text(alphabet="BPT", min_size=1, max_size=30), min_size=1, max_size=5),
    stakes=st.lists(st.sampled_from([0.0, 10.0, 15.0, 25.0, 40.0, 200.0]), min_size=1,
                    max_size=30),
    kind=st.sampled_from(["banker", "player", "tie"]),
    bankroll=st.sampled_from([30.0, 100.0, 1000.0]),
    when_short=st.sampled_from(["stop", "reduce"]),
)
def test_conservation_and_ledger_reproduces_sessions(shoes, stakes, kind, bankroll,
                                                     when_short):
    res = run(shoes, stakes, kind=kind, bankroll=bankroll, when_short=when_short,
              rules=TableRules(table_max=100))
    ledger, sessions = res.ledger, res.sessions
    for _, row in sessions.iterrows():
        rows = ledger[ledger["session"] == row.session]
        total = rows["net"].sum()
        assert row.final_bankroll == pytest.approx(bankroll + total, rel=1e-9, abs=1e-9)
        assert row.net == pytest.approx(total, rel=1e-9, abs=1e-9)
        if len(rows):
            assert rows["bankroll"].iloc[-1] == pytest.approx(row.final_bankroll, rel=1e-9)
            running = bankroll + rows["net"].cumsum()
            assert np.allclose(running, rows["bankroll"], rtol=1e-9)
        staked = rows[["banker", "player", "tie"]].sum(axis=1)
        assert row.wagered == pytest.approx(staked.sum())
        assert row.bets == int((staked > 0).sum())
        assert row.wins == int(((staked > 0) & (rows["net"] > 0)).sum())
        assert row.losses == int(((staked > 0) & (rows["net"] < 0)).sum())
        assert row.coups == len(rows)
        assert row.max_stake <= 100
        assert (rows["bankroll"] >= -1e-9).all(), "a bankroll went below zero"


def test_many_configurations_play_the_same_shoes_independently():
    coups = coups_from_outcomes(["BPTBBP", "PPPB"])
    one = backtest(coups, [Scripted(stakes=[10, 20])])
    both = backtest(coups, [Scripted(stakes=[30] * 6, kind="player"),
                            Scripted(stakes=[10, 20])])
    second = both.ledger[both.ledger["config"] == 1].drop(columns="config")
    first = one.ledger.drop(columns="config")
    assert second.reset_index(drop=True).equals(first.reset_index(drop=True))


def test_rule_variants_side_by_side_over_the_same_shoes():
    from baccarat.replay import replay

    coups = coups_from_outcomes(["TBT"])
    configs = [Scripted(stakes=[10] * 3, kind="tie"), Scripted(stakes=[10] * 3, kind="tie")]
    _, ledgers = replay(coups, configs, TableRules(),
                        config_rules=[TableRules(tie_pays=8), TableRules(tie_pays=9)])
    assert ledgers[0].net[0].tolist() == [80.0, -10.0, 80.0]
    assert ledgers[1].net[0].tolist() == [90.0, -10.0, 90.0]


def test_a_bet_the_table_does_not_offer_is_refused():
    from baccarat.deal import generate_coups

    coups = generate_coups(TableRules(), 1, np.arange(2))
    with pytest.raises(StrategyFault, match="dragon7 is not offered under 8 decks, standard"):
        backtest(coups, [Scripted(stakes=[10] * 5, kind="dragon7")])
    ez = backtest(coups, [Scripted(stakes=[10] * 5, kind="dragon7")],
                  rules=TableRules(variant="ez"))
    assert ez.summary.loc[0, "house_edge"] > 0.07
