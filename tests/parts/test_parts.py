"""Systems as parts: the SPEC grammar, composed systems by hand, and today's specs unchanged.

Hand-worked ledgers use the standard table (Banker pays 0.95, Player 1, a tie pushes both)
and a bankroll of 1,000; the working is in the comments.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from baccarat import Run, backtest
from baccarat.backtest import play as play_job
from baccarat.coups import coups_from_outcomes
from baccarat.deal import generate_coups
from baccarat.job import BacktestJob
from baccarat.replay import SessionPolicy
from baccarat.rules import TableRules
from baccarat.strategies.base import Strategy, Table, Wager
from baccarat.strategies.registry import StrategyError, expand_spec, spec_space
from baccarat.strategies.system import System
from baccarat.testing import play
from keywords import backtest_with
from ledger_fingerprints import fingerprints

DATA = Path(__file__).parents[1] / "data"


def test_every_spec_of_before_the_parts_plays_the_same_ledger():
    # tests/data/ledgers_before_parts.json was written by tests/ledger_fingerprints.py run
    # with the code before the parts: 40 configurations of every built-in, four session
    # policies, standard and EZ tables. Ledger rows, session rows and labels all agree.
    before = json.loads((DATA / "ledgers_before_parts.json").read_text())
    assert fingerprints() == before


# --------------------------------------------------------------------------- the grammar


def test_parts_join_with_a_bar_spaces_optional():
    (a,) = expand_spec("streak:n=4 | dalembert | stop:win=50,loss=200,per=shoe")
    (b,) = expand_spec("streak:n=4|dalembert|stop:win=50,loss=200,per=shoe")
    assert isinstance(a, System) and a.spec() == b.spec()
    assert a.name == "streak|dalembert|stop"
    assert a.session_rules() == {"shoe_win_goal": 50.0, "shoe_stop_loss": 200.0}


@pytest.mark.parametrize("spec, values", [
    ("streak:n=2..4", [2, 3, 4]),
    ("streak:n=[1..3,7]", [1, 2, 3, 7]),
    ("streak:n=8..2:-3", [8, 5, 2]),
    ("streak:n=2..7:2", [2, 4, 6]),
])
def test_ranges_count_both_ends_and_step(spec: str, values: list[int]):
    assert [c.n for c in expand_spec(spec)] == values  # type: ignore[attr-defined]


def test_a_decimal_range_gives_the_values_written_not_float_sums():
    units = [c.unit for c in expand_spec("dalembert:unit=0.1..0.5:0.1")]  # type: ignore
    assert units == [0.1, 0.2, 0.3, 0.4, 0.5]


def test_lists_and_ranges_multiply_across_parts_in_product_order():
    spec = "streak:n=[2,3] | martingale:max_doublings=1..3 | stop:win=[50,100]"
    space = spec_space(spec)
    assert len(space) == 12
    configs = expand_spec(spec)
    assert [c.spec() for c in configs] == [space[i].spec() for i in range(12)]
    # The first part varies slowest, the last key fastest.
    assert configs[0].spec() == "streak:n=2 | martingale:max_doublings=1 | stop:win=50.0"
    assert configs[1].spec() == "streak:n=2 | martingale:max_doublings=1 | stop:win=100.0"
    assert configs[-1].spec() == "streak | martingale:max_doublings=3 | stop:win=100.0"
    assert space[-1].spec() == configs[-1].spec()


def test_a_huge_space_is_counted_without_being_built():
    space = spec_space("martingale:base=1..100000,max_doublings=0..999")
    assert len(space) == 100_000 * 1000
    assert space[12_345_789].params() == {"base": 12346.0, "side": "banker",
                                          "max_doublings": 789}


@pytest.mark.parametrize("spec", [
    "streak:n=3 | dalembert:unit=2.5 | stop:win=50,per=shoe",
    "martingale:side=player | stop:loss=100", "parlay:side=player,target_wins=2",
    "pattern:BBP=P,PPB=B,ties=keep", "road:road=small_road,mode=red,base=25",
    "counter:bet=dragon7 | stop:trailing=40,losses=4", "follow | one_three_two_four",
    "always:side=tie | percent:percent=5 | stop:coups=30",
])
def test_composed_specs_round_trip(spec: str):
    for config in expand_spec(spec):
        (again,) = expand_spec(config.spec())
        assert again.params() == config.params()
        assert again.spec() == config.spec()


@pytest.mark.parametrize("spec, message", [
    ("streak | follow", "two selection parts \\('streak' and 'follow'\\)"),
    ("martingale | dalembert", "two staking parts"),
    ("streak | martingale:side=player", "the selection picks the side in a system"),
    ("streak:base=20 | martingale", "the base stake is the staking plan's"),
    ("stop:win=50", "session rules only"),
    ("counter | martingale", "'counter' is a whole strategy"),
    ("streek | martingale", "unknown strategy 'streek' \\(did you mean 'streak'\\?\\)"),
    ("martingale | stop:win=50 | stop:win=60", "win_goal is set twice"),
    ("streak:n=5..2", "holds no value: 5 to 2 by 1 \\(to count down write 5..2:-1\\)"),
    ("streak:n=1..4:0", "the step is 0"),
    ("streak:n=[]", "lists no value"),
    ("streak:n=2 || martingale", "has an empty part"),
    ("pattern:BBX=P", "write the outcomes as letters B, P, T"),
    ("pattern:BTP=P", "holds a tie, but ties are skipped: add ties=keep"),
    ("after_ties:n=5,m=3", "n \\(5\\) ties cannot come in m \\(3\\) coups"),
    ("stop:wins=50 | flat", "no parameter 'wins' \\(did you mean 'win'\\?\\)"),
])
def test_bad_composed_specs_are_one_clear_error(spec: str, message: str):
    with pytest.raises(StrategyError, match=message):
        expand_spec(spec)


def test_two_stop_parts_may_set_different_rules():
    (config,) = expand_spec("martingale | stop:win=50,per=shoe | stop:loss=500")
    assert config.session_rules() == {"shoe_win_goal": 50.0, "stop_loss": 500.0}


# --------------------------------------------------------------------------- by hand


def stakes(ledger, kind: str) -> list[float]:
    return ledger[kind].tolist()


def test_streak_then_martingale_by_hand():
    # B, B: a run of 2 from coup 3 on. coup 3 P: B 10 lost (k=1); coup 4 B: the run is 1,
    # no bet, k stays 1; coup 5 B: run 1, no bet; coup 6 B: run 2, B 20 won +19 (k=0);
    # coup 7 P: B 10 lost.
    ledger = play("streak:n=2 | martingale", "BBPBBBP")
    assert stakes(ledger, "banker") == [0, 0, 10, 0, 0, 20, 10]
    assert stakes(ledger, "net") == [0, 0, -10, 0, 0, 19, -10]


def test_chop_then_dalembert_by_hand():
    # coup 1: nothing to chop. 2 P: bet P 10 won (steps stay 0). 3 T: bet B (against P)
    # 10, pushed. 4 P: bet B 10 lost (steps 1). 5 B: bet B 20 won +19.
    ledger = play("chop | dalembert", "BPTPB")
    assert stakes(ledger, "banker") == [0, 0, 10, 10, 20]
    assert stakes(ledger, "player") == [0, 10, 0, 0, 0]
    assert stakes(ledger, "net") == [0, 10, 0, -10, 19]


def test_ping_pong_after_two_alternations_by_hand():
    # B P B: two alternations, bet P at coup 4 (against B); B comes: lost, and two alike
    # end the ping-pong: no bet at coup 5.
    ledger = play("ping_pong:n=2", "BPBBP")
    assert stakes(ledger, "player") == [0, 0, 0, 10, 0]
    assert stakes(ledger, "net") == [0, 0, 0, -10, 0]


def test_pattern_table_by_hand():
    # Ties skipped. After B B P the table says P (won +10); after B P P nothing; after P P
    # B it says B: T pushes (ties skipped, the pattern stays P P B), then B again: P lost.
    ledger = play("pattern:BBP=P,PPB=B", "BBPPBTP")
    assert stakes(ledger, "player") == [0, 0, 0, 10, 0, 0, 0]
    assert stakes(ledger, "banker") == [0, 0, 0, 0, 0, 10, 10]
    assert stakes(ledger, "net") == [0, 0, 0, 10, 0, 0, -10]


def test_skip_first_and_after_ties_by_hand():
    assert stakes(play("skip_first:n=2", "BPB"), "banker") == [0, 0, 10]
    # One tie among the last two coups: bet Tie at coups 2 and 3 (both lost); at coup 4
    # the last two are B P: no bet.
    ledger = play("after_ties:n=1,m=2", "TBPB")
    assert stakes(ledger, "tie") == [0, 10, 10, 0]
    assert stakes(ledger, "net") == [0, -10, -10, 0]


def ends(spec: str, shoes: list[str], **policy: object) -> list[tuple[int, str, float]]:
    """(coups played, stop reason, net) of each session of ``spec`` over ``shoes``."""
    from baccarat.coups import coups_from_outcomes

    result = backtest_with(coups_from_outcomes(shoes), [spec], **policy)  # type: ignore[arg-type]
    sessions = result.sessions
    return list(zip(sessions["coups"].tolist(), sessions["stop_reason"].tolist(),
                    sessions["net"].tolist(), strict=True))


def test_a_win_goal_part_ends_the_session_by_hand():
    # Paroli on Player: P +10 (stake 20 next), P +20: 30 ahead >= 25, the session stops.
    ledger = play("always:side=player | paroli | stop:win=25", "PPPB")
    assert stakes(ledger, "player") == [10, 20]
    assert ends("always:side=player | paroli | stop:win=25", ["PPPB"]) == [
        (2, "win_goal", 30.0)]


def test_a_per_shoe_loss_limit_sits_out_the_shoe_and_plays_the_next_by_hand():
    # One session of two shoes. Shoe 1: B 10 lost, B 20 lost: 30 behind the shoe's start
    # >= 25, so the rest of shoe 1 is sat out. Shoe 2: the Martingale goes on at 40 (won
    # +38), 10 lost, 20 won +19.
    ledger = play("martingale | stop:loss=25,per=shoe", ["PPPB", "BPB"], session_shoes=2)
    assert ledger["coup"].tolist() == [1, 2, 1, 2, 3]
    assert stakes(ledger, "banker") == [10, 20, 40, 10, 20]
    assert stakes(ledger, "net") == [-10, -20, 38, -10, 19]
    # Played to the end of its last shoe: the session's reason is "end" (-30 + 47).
    assert ends("martingale | stop:loss=25,per=shoe", ["PPPB", "BPB"],
                session_shoes=2) == [(5, "end", 17.0)]
    # The last shoe cut short too (its first coup: 40 lost, 40 behind the shoe's start):
    # its rule is the session's reason.
    assert ends("martingale | stop:loss=25,per=shoe", ["PPPB", "PPB"],
                session_shoes=2) == [(3, "stop_loss", -70.0)]


def test_losses_in_a_row_and_a_trailing_stop_by_hand():
    # Flat Banker: lost, lost, won (the run starts again), a tie (no count, no break),
    # lost x3: stop after coup 7.
    assert ends("flat | stop:losses=3", ["PPBTPPPB"]) == [(7, "losses_in_row", -40.5)]
    # Paroli Banker: +9.5 (1,009.5), +19 (1,028.5, the highest), 40 lost (988.5): 40
    # below the highest >= 15, the session stops after coup 3.
    ledger = play("paroli | stop:trailing=15", "BBPB")
    assert stakes(ledger, "banker") == [10, 20, 40]
    assert ends("paroli | stop:trailing=15", ["BBPB"]) == [(3, "trailing_stop", -11.5)]
    # The same rules as flags, for every configuration of the run.
    assert ends("paroli", ["BBPB"], session=SessionPolicy(trailing_stop=15.0)) == [
        (3, "trailing_stop", -11.5)]


def test_a_preset_and_its_parts_play_the_same_ledger():
    coups = generate_coups(TableRules(), 3, np.arange(40))
    for preset, parts in [("martingale:side=player,max_doublings=4",
                           "always:side=player | martingale:max_doublings=4"),
                          ("streak:n=2,base=15", "streak:n=2 | flat:base=15"),
                          ("labouchere:line=1-1-2", "always | labouchere:line=1-1-2"),
                          ("road:road=small_road", "road:road=small_road | flat")]:
        a = play(preset, coups).drop(columns=[])
        b = play(parts, coups)
        assert a.equals(b), preset



# --------------------------------------------------------------------------- progress


class Sleepy(Strategy):
    """Flat Banker, slowly: a chunk of a few shoes takes a second."""

    name = "sleepy"

    def wager(self, table: Table) -> Wager:
        time.sleep(0.004)
        return Wager.on(banker=np.full(table.n, self.base))


def test_progress_moves_with_the_sessions_of_a_chunk_played_here():
    # One chunk of 12 shoes, played in this process: the progress callback hears of the
    # sessions as the steps go (at most every tenth of a second), not once at the end, and
    # the parts add up to the whole.
    calls: list[tuple[float, int, int]] = []
    started = time.perf_counter()
    result = play_job(BacktestJob(None, [Sleepy()], shoes=12, seed=3, unchecked=True, run=Run(
        workers=1, progress=lambda coups, sessions: calls.append(
            (time.perf_counter() - started, coups, sessions)))))
    assert len(calls) >= 3
    assert sum(c[2] for c in calls) == 12
    assert sum(c[1] for c in calls) == result.info["counts"]["coups"]
    assert calls[0][2] < 12  # some sessions were reported before the chunk ended


# --------------------------------------------------------------------------- plugins

TEN_LINES = '''
from baccarat.strategies.simple import SimpleSelection


class AfterTwoPlayers(SimpleSelection):
    """Bet Banker after two Player wins in a row."""

    def reset(self):
        self.players = 0

    def pick(self, view):
        return "B" if self.players >= 2 else None

    def learn(self, view, outcome):
        if outcome != "T":
            self.players = self.players + 1 if outcome == "P" else 0
'''


@pytest.mark.parametrize("staking, stakes, nets", [
    # The selection bets Banker at coups 3 (won), 6 (lost), 7 (won), 11 (a tie: pushed)
    # and 12 (won): after P P, after P P P (still two in a row and more), after P P T.
    ("flat", [10, 10, 10, 10, 10], [9.5, -10, 9.5, 0, 9.5]),
    # Martingale: 10 won; 10 lost (k=1); 20 won (k=0); the push leaves k at 0.
    ("martingale", [10, 10, 20, 10, 10], [9.5, -10, 19, 0, 9.5]),
    # Paroli: 10 won (w=1); 20 lost (w=0); 10 won (w=1); 20 pushed (w stays 1); 20 won.
    ("paroli", [10, 20, 10, 20, 20], [9.5, -20, 9.5, 0, 19]),
])
def test_a_ten_line_selection_with_three_staking_plans_by_hand(tmp_path: Path, staking: str,
                                                              stakes: list[float],
                                                              nets: list[float]):
    (tmp_path / "after_two.py").write_text(TEN_LINES)
    ledger = play(f"{tmp_path / 'after_two.py'}:AfterTwoPlayers | {staking}",
                  "PPBPPPBBPPTB")
    bets = ledger[ledger["banker"] > 0]
    assert bets["coup"].tolist() == [3, 6, 7, 11, 12]
    assert bets["banker"].tolist() == stakes
    assert bets["net"].tolist() == nets
    assert (ledger["player"] == 0).all() and (ledger["tie"] == 0).all()


def test_a_plugin_selection_that_ends_its_session_and_one_that_picks_nonsense(
        tmp_path: Path):
    (tmp_path / "quitter.py").write_text('''
from baccarat.strategies.simple import STOP, SimpleSelection


class QuitAhead(SimpleSelection):
    """Banker every coup; stop the session once 15 ahead."""

    def pick(self, view):
        return STOP if view.bankroll >= 1015 else "B"


class Nonsense(SimpleSelection):
    def pick(self, view):
        return "Banker!"
''')
    # +9.5, +9.5 (1,019 >= 1,015): the third coup is not played; stop_reason "strategy".
    assert ends(f"{tmp_path / 'quitter.py'}:QuitAhead | flat", ["BBBB"]) == [
        (2, "strategy", 19.0)]
    with pytest.raises(Exception, match="pick\\(\\) returned 'Banker!'.*expected B/P/T"):
        play(f"{tmp_path / 'quitter.py'}:Nonsense", "BB")


# --------------------------------------------------------------------------- exact risk

FINITE_SYSTEMS = [
    "always:side=tie | contra_dalembert", "ping_pong:n=2 | reverse_labouchere",
    "pattern:BP=B,PB=P,BBB=P | one_three_two_four", "pattern:TB=T,ties=keep | flat",
    "skip_first:n=4 | fibonacci", "after_ties:n=1,m=5 | paroli",
    "streak:n=2,per_shoe=false | grand_martingale:max_doublings=3",
    "always:side=player_pair | dalembert:unit=5", "follow | oscars_grind",
]


@pytest.mark.parametrize("variant", ["standard", "ez"])
def test_every_finite_part_declares_the_states_it_plays(variant: str):
    # The declared states (strategies/finite_state.py), walked along the same coups as the
    # composed system's play, give the stakes it placed (baccarat.risk's own check).
    from baccarat.risk.verify import declaration_mismatches

    configs = [expand_spec(spec)[0] for spec in FINITE_SYSTEMS]
    found = declaration_mismatches(configs, TableRules(variant=variant), shoes=24)
    assert dict(zip(FINITE_SYSTEMS, found, strict=True)) == dict.fromkeys(FINITE_SYSTEMS)


def test_strategies_lists_the_parts_by_kind_and_their_state():
    from baccarat.cli import app
    from typer.testing import CliRunner

    text = CliRunner().invoke(app, ["strategies"], env={"COLUMNS": "100"}).output
    for title in ("Strategies (one name each", "Selections: when and what to bet",
                  "Staking plans: how much", "Session rules: when to stop"):
        assert title in text
    for name in ("ping_pong", "skip_first", "after_ties", "parlay", "reverse_labouchere",
                 "contra_dalembert", "one_three_two_four", "percent", "kelly", "stop"):
        assert f"│ {name} " in text
    assert text.count("exact risk: no") >= 6  # road, counter, count, parlay, ...


def test_a_short_last_session_is_kept_by_default_or_dropped():
    # Seven shoes in sessions of three: two full sessions and one of a single shoe.
    shoes = coups_from_outcomes(["BPB", "PPB", "BBB", "PBP", "BBP", "PPP", "BPP"])
    kept = backtest(shoes, ["flat"], session=SessionPolicy(session_shoes=3))
    assert len(kept.sessions) == 3
    assert kept.info["short_last_session"] == {"shoes": 1, "of": 3, "kept": True}
    dropped = backtest(shoes, ["flat"],
                       session=SessionPolicy(session_shoes=3, last_session="drop"))
    assert len(dropped.sessions) == 2
    assert dropped.info["short_last_session"] == {"shoes": 1, "of": 3, "kept": False}
    # The six shoes of the full sessions: 9 Banker wins (+9.5) and 9 losses (-10).
    assert len(dropped.ledger) == 18
    assert dropped.sessions["net"].sum() == pytest.approx(9 * 9.5 - 9 * 10)
