"""The ten common systems written as a newcomer would, and every mistake on the way.

The ten systems are the issue's (Banker every coup; after four in a row the streak's side;
the opposite after three alternations; big eye boy red; the Dragon 7 count; flat,
Martingale, D'Alembert, 1-3-2-6, Labouchere; a stop per shoe, a trailing stop, three
losses in a row). Each mistake a newcomer makes writing them (a misspelt part, a wrong
parameter, a staking plan where the selection goes, a plugin part that writes into the
table) must end in one line naming what is wrong, with the closest right word where one
is close.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from baccarat import backtest
from baccarat.backtest import play as play_job
from baccarat.coups import coups_from_outcomes
from baccarat.errors import BaccaratError
from baccarat.job import BacktestJob
from baccarat.strategies.registry import expand_spec
from baccarat.testing import play

#: The ten systems, as they are written right.
TEN_SYSTEMS = [
    "always:side=banker",
    "streak:n=4 | dalembert | stop:win=50,loss=200,per=shoe",
    "ping_pong:n=3 | martingale",
    "road:road=big_eye_boy,mode=red | martingale:max_doublings=5",
    "count:method=dragon7 | kelly",
    "follow | one_three_two_six | stop:losses=3",
    "chop | labouchere:line=1-2-3",
    "pattern:BBP=P,PPB=B | flat:base=5 | stop:trailing=100",
    "skip_first:n=10 | paroli | stop:win=100",
    "after_ties:n=2,m=10 | fibonacci | stop:coups=40",
]


@pytest.mark.parametrize("spec", TEN_SYSTEMS)
def test_the_ten_systems_are_one_configuration_each(spec: str):
    (config,) = expand_spec(spec)
    assert expand_spec(config.spec())[0].params() == config.params()


def test_the_streak_system_plays_dalembert_on_the_streaks_side():
    # Four Players in a row: bet Player (10, lost to B). The run is broken, no bet, until
    # four Bankers: D'Alembert is one unit up after the loss, 20 on Banker, won +19.
    ledger = play(TEN_SYSTEMS[1], "PPPPBBBBB")
    assert ledger["player"].tolist() == [0, 0, 0, 0, 10, 0, 0, 0, 0]
    assert ledger["banker"].tolist() == [0, 0, 0, 0, 0, 0, 0, 0, 20]
    assert ledger["net"].tolist() == [0, 0, 0, 0, -10, 0, 0, 0, 19]


#: (what the newcomer wrote, the one line they get): the whole line, start to end.
MISTAKES = [
    ("banker", r"unknown strategy 'banker' \(did you mean 'always:side=banker'\?\); "
               r"`baccarat strategies` lists every strategy and part"),
    ("streaks:n=4 | dalembert", r"unknown strategy 'streaks' \(did you mean 'streak'\?\); "
                                r"`baccarat strategies` lists every strategy and part"),
    ("pingpong:n=3 | martingale", r"unknown strategy 'pingpong' \(did you mean "
                                  r"'ping_pong'\?\).*"),
    ("follow | 1326", r"unknown strategy '1326' \(did you mean 'one_three_two_six'\?\).*"),
    ("dragon7 | kelly", r"unknown strategy 'dragon7' \(did you mean "
                        r"'count:method=dragon7'\?\).*"),
    ("streak:length=4 | dalembert", r"selection 'streak' has no parameter 'length'; "
                                    r"parameters: per_shoe, n"),
    ("streak:n=4 | dalembert | stop:win=50,lose=200",
     r"rules 'stop' has no parameter 'lose' \(did you mean 'loss(es)?'\?\); parameters: .*"),
    ("streak:n=4 | dalembert | stop:win=50,per=shoes",
     r"invalid parameters in 'stop:win=50,per=shoes': per: Input should be 'session' or "
     r"'shoe' \(did you mean 'shoe'\?\)"),
    ("road:road=bigeye,mode=red | martingale",
     r"invalid parameters in 'road:road=bigeye,mode=red': road: .* \(did you mean "
     r"'big_eye_boy'\?\)"),
    ("always:side=bankers", r".*side: Input should be .* \(did you mean 'banker'\?\)"),
    ("chop | labouchere:line=1,2,3",
     r"parameter '2' in 'labouchere:line=1,2,3' is not key=value; commas separate "
     r"parameters \(is it part of line's value\?.*"),
    ("streak:n=[2,3 | flat", r"'\[2,3 \| flat' \(n in 'streak:n=\[2,3 \| flat'\) opens a "
                             r"list with \[ and does not close it.*"),
    ("martingale | dalembert", r"'martingale \| dalembert' has two staking parts .*; a "
                               r"system has one staking: write a selection \(always, "
                               r"follow, streak, \.\.\.\) with one staking plan"),
    ("streak:n=3 | [flat,paroli]", r"'\[flat,paroli\]': a list of parts is not a grid; .*"),
    ("streak:n=3 | martingale:side=player", r".*the selection picks the side in a system.*"),
    ("stop:trailing=100", r"'stop:trailing=100' has session rules only; join them to a "
                          r"system \(e\.g\. 'martingale \| stop:trailing=100'\)"),
]


@pytest.mark.parametrize("spec, line", MISTAKES)
def test_each_mistake_in_a_spec_is_one_line_with_the_closest_word(spec: str, line: str):
    with pytest.raises(BaccaratError) as err:
        expand_spec(spec)
    message = str(err.value)
    assert "\n" not in message
    assert len(message) < 400, message
    assert re.fullmatch(line, message), message


def test_a_missing_plugin_file_gets_the_closest_file(tmp_path: Path, monkeypatch):
    (tmp_path / "after_two.py").write_text("")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BaccaratError, match=r"^strategy file after_tow.py does not exist "
                                            r"\(did you mean 'after_two.py'\?\)$"):
        expand_spec("after_tow.py:AfterTwo | martingale")


PLUGINS = '''
import numpy as np
from baccarat.strategies.parts import BANKER, Selection
from baccarat.strategies.simple import SimpleSelection


class Greedy(Selection):
    """Bet Banker, and give the sessions money."""

    def choose(self, table):
        table.bankroll[:] = 1e9
        return np.full(table.n, BANKER)


class SimpleGreedy(SimpleSelection):
    """Bet Banker, and give the session money."""

    def pick(self, view):
        view.bankroll = 1e9
        return "B"


class Letters(Selection):
    """The simple form's letters from the array form."""

    def choose(self, table):
        return "B"


class Decides(Selection):
    """Its choose() misnamed."""

    def decide(self, table):
        return BANKER


class Outcomes(SimpleSelection):
    """Reads the outcomes under a name the view does not have."""

    def pick(self, view):
        return "B" if view.outcomes[-2:] == "BB" else None


class BetInstead(SimpleSelection):
    """A simple strategy's bet() for a selection's pick()."""

    def bet(self, view):
        return "B"
'''


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("newcomer") / "mistakes.py"
    path.write_text(textwrap.dedent(PLUGINS))
    return path


@pytest.mark.parametrize("part, line", [
    ("Greedy", r"strategy 'greedy \| martingale', sessions 0-1 at their coup 1 .*: wrote into "
               r"its table in choose\(\) at .*mistakes\.py:11: table\.bankroll is read-only.*"),
    ("SimpleGreedy", r"strategy 'simple_greedy \| martingale', session 0, shoe 0, coup 1: "
                     r"wrote into its table in pick\(\).*: view\.bankroll is read-only.*"),
    ("Letters", r".*choose\(\) returned 'B'; expected an integer code per session, shape "
                r"\(2,\) \(or one code for all\); letters are the simple form's "
                r"\(SimpleSelection\.pick\).*"),
    ("Decides", r".*raised NotImplementedError in choose\(\): Decides does not define "
                r"choose\(self, table\), .*; it defines decide\(\): the one that picks the "
                r"bets must be named choose.*"),
    ("BetInstead", r".*raised NotImplementedError in pick\(\): BetInstead does not define "
                   r"pick\(self, view\), .*; it defines bet\(\): the one that picks the bet "
                   r"must be named pick.*"),
    ("Outcomes", r".*raised AttributeError in pick\(\) at .*mistakes\.py:\d+: the view has no "
                 r"'outcomes'; did you mean view\.history\? \(it has: bankroll, coup, "
                 r"history, .*\).*"),
])
def test_a_plugin_part_with_a_mistake_is_one_line_naming_its_method(plugins: Path, part: str,
                                                                    line: str):
    with pytest.raises(BaccaratError) as err:
        play_job(BacktestJob(coups_from_outcomes(["BPPB", "PBBP"]),
                         [f"{plugins}:{part} | martingale"], unchecked=True))
    message = str(err.value)
    assert "\n" not in message
    assert re.fullmatch(line, message), message


def test_a_misspelt_session_rule_choice_gets_the_closest_one():
    from baccarat.replay import SessionPolicy

    with pytest.raises(BaccaratError, match=r"'raised': expected raise or skip or stop "
                                            r"\(did you mean 'raise'\?\)$"):
        backtest(coups_from_outcomes(["BPB"]), ["flat"],
                 session=SessionPolicy(below_min="raised"))  # type: ignore[arg-type]


def test_a_plugin_importing_the_kit_from_a_wrong_module_is_shown_where_it_is(tmp_path: Path):
    path = tmp_path / "guess.py"
    path.write_text("from engine.strategies import Selection\n")
    with pytest.raises(BaccaratError, match=r"^strategy file .*guess\.py failed to import: No "
                                            r"module named 'engine\.strategies' \(the plugin "
                                            r"kit is one import: from baccarat\.strategies "
                                            r"import SimpleStrategy, Strategy, Selection, "
                                            r"Staking.*`baccarat new-strategy NAME` writes"):
        expand_spec(f"{path}:Guess | martingale")
