"""The strategy contract, made safe: a read-only table, checked stakes, errors that point
at the plugin's own line, and runs that fail cleanly (no retry, nothing left behind)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from baccarat import Run, backtest
from baccarat.backtest import play
from baccarat.cli import app
from baccarat.coups import coups_from_outcomes
from baccarat.deal import generate_coups
from baccarat.errors import BaccaratError, ChunkFailed, StrategyFault
from baccarat.job import BacktestJob
from baccarat.replay import SessionPolicy, replay
from baccarat.rules import TableRules
from baccarat.strategies.base import (
    Dealt,
    Result,
    SessionView,
    SimpleStrategy,
    Strategy,
    Table,
    TableRoads,
    Wager,
)
from baccarat.strategies.readonly import ReadOnlyError
from typer.testing import CliRunner

runner = CliRunner()

# --------------------------------------------------------------------------- read-only


def reachable(obj: Any, path: str) -> list[tuple[str, Any]]:
    """Every public value reachable from ``obj`` (through roads, results, the dealt coup),
    the roads' queries called for each derived road."""
    found: list[tuple[str, Any]] = []
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except AttributeError:  # e.g. the cards of an outcome-only dataset
            continue
        where = f"{path}.{name}"
        if isinstance(obj, TableRoads) and name in ("last_colour", "mark_count"):
            found += [(f"{where}({k})", value(k)) for k in (1, 2, 3)]
        elif isinstance(obj, TableRoads) and name == "colour_if":
            found += [(f"{where}({k}, 0)", value(k, 0)) for k in (1, 2, 3)]
        elif callable(value):
            continue
        elif isinstance(value, (TableRoads, Dealt)):
            found.append((where, value))
            found += reachable(value, where)
        else:
            found.append((where, value))
    return found


def writes(array: np.ndarray) -> list[tuple[str, Any]]:
    """Every way a strategy might write into an array."""
    def setitem() -> None:
        array[...] = 0

    def in_place() -> None:
        view = array
        view += 1

    def out() -> None:
        np.add(array, 1, out=array)

    def at() -> None:
        np.add.at(array, 0, 1)

    def fill() -> None:
        array.fill(0)

    def flag() -> None:
        array.flags.writeable = True

    def copyto() -> None:
        np.copyto(array, 0)

    return [("setitem", setitem), ("in-place", in_place), ("out=", out), ("at", at),
            ("fill", fill), ("flag", flag), ("copyto", copyto)]


class Tamper(Strategy):
    """Flat 10 on Banker that, before each wager and settle, tries to write everything."""

    name = "tamper"
    needs_roads = True
    needs_cards = True
    tamper: bool = True

    def start(self, table: Table) -> None:
        self.attempts: list[tuple[str, str, type]] = []

    def _try_all(self, obj: Any, path: str) -> None:
        for where, value in reachable(obj, path):
            if isinstance(value, np.ndarray):
                for how, write in writes(value):
                    self._attempt(where, how, write)
            owner_path, _, attribute = where.rpartition(".")
            owner = obj if owner_path == path else None
            if owner is not None and "(" not in attribute:
                self._attempt(where, "assign", lambda o=owner, a=attribute: setattr(o, a, 0))

    def _attempt(self, where: str, how: str, write: Any) -> None:
        try:
            write()
        except Exception as exc:
            self.attempts.append((where, how, type(exc)))
            if how not in ("flag", "copyto"):  # the error names what was written
                assert f"{where.split('(')[0].rsplit('.', 1)[-1]}" in str(exc), (where, exc)
            return
        self.attempts.append((where, how, type(None)))

    def wager(self, table: Table) -> Wager:
        if self.tamper:
            self._try_all(table, "table")
        return Wager.on(banker=np.full(table.n, 10.0))

    def settle(self, table: Table, result: Result) -> None:
        if self.tamper:
            self._try_all(table, "table")
            self._try_all(result, "result")


def test_every_array_a_strategy_is_shown_is_read_only_and_tampering_changes_nothing():
    rules = TableRules()
    coups = generate_coups(rules, 5, np.arange(3))
    coups.decks = rules.decks
    honest, tamper = Tamper(tamper=False), Tamper()
    _, (plain, tampered) = replay(coups, [honest, tamper], rules,
                                  SessionPolicy(session_shoes=1))
    assert np.array_equal(plain.net, tampered.net)
    assert np.array_equal(plain.bankroll, tampered.bankroll)
    assert np.array_equal(plain.played, tampered.played)
    paths = {where for where, _, _ in tamper.attempts}
    for expected in ("table.active", "table.bankroll", "table.coup", "table.history",
                     "table.seen", "table.remaining", "table.roads.side",
                     "table.roads.last_colour(2)", "result.net", "result.outcome",
                     "result.cards", "result.dealt.outcome", "result.won", "table.rules"):
        assert expected in paths, expected
    # Not one write went through, whatever the way.
    assert [a for a in tamper.attempts if a[2] is type(None)] == []
    named = [a for a in tamper.attempts if a[1] in ("setitem", "in-place", "out=", "at",
                                                     "fill")]
    assert named and all(kind is ReadOnlyError for _, _, kind in named)


def test_assigning_a_table_attribute_names_it_and_says_read_only():
    table = Table(2, TableRules(), np.full(2, 100.0))
    with pytest.raises(ReadOnlyError, match=r"^table\.active is read-only"):
        table.active = np.zeros(2, dtype=bool)
    with pytest.raises(ReadOnlyError, match=r"^table\.bankroll is read-only"):
        table.bankroll[0] = 5
    with pytest.raises(ReadOnlyError, match=r"^table\.coup is read-only"):
        table.coup += 1
    # A strategy's own copy is an ordinary array.
    mine = table.bankroll.copy()
    mine[0] = 5
    assert type(mine) is np.ndarray and table.bankroll[0] == 100.0


PLUGIN_WRITES_ACTIVE = textwrap.dedent('''
    import numpy as np
    from baccarat.strategies.base import Strategy, Wager

    class Sloppy(Strategy):
        """Means to skip the coup after a tie, but writes into the table."""
        name = "sloppy"

        def wager(self, table):
            table.active[table.last_outcome == 2] = False
            return Wager.on(banker=np.full(table.n, self.base))
''')


def test_a_plugin_writing_table_active_is_stopped_at_its_line(tmp_path: Path):
    path = tmp_path / "sloppy.py"
    path.write_text(PLUGIN_WRITES_ACTIVE)
    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["BPTB"]), [f"{path}:Sloppy"])
    message = str(err.value)
    assert message.startswith("strategy 'sloppy', session 0, shoe 0, coup 1: wrote into its "
                              "table in wager() at ")
    assert f"sloppy.py:{_line(path, 'table.active[')}: table.active is read-only" in message


# --------------------------------------------------------------------------- stakes


class ReturnsStake(Strategy):
    """Returns ``what`` (built by ``make(n)``) as the Banker stake from the third coup on."""

    name = "returns"
    what: str = "-"

    def wager(self, table: Table) -> Wager:
        if table.step < 2:
            return Wager.on(banker=np.full(table.n, 10.0))
        return Wager({"banker": BAD_STAKES[self.what](table.n)})


BAD_STAKES: dict[str, Any] = {
    "shape": lambda n: np.full(n + 1, 10.0),
    "2d": lambda n: np.full((n, 1), 10.0),
    "string": lambda n: "10",
    "string_array": lambda n: np.array(["10"] * n),
    "none": lambda n: None,
    "object": lambda n: object(),
    "bool": lambda n: np.ones(n, dtype=bool),
}


@pytest.mark.parametrize("what, said", [
    ("shape", "an array of shape (3,) and dtype float64"),
    ("2d", "an array of shape (2, 1) and dtype float64"),
    ("string", "the string '10'"),
    ("string_array", "an array of shape (2,) and dtype <U2"),
    ("none", "None"),
    ("object", "(object)"),
    ("bool", "an array of shape (2,) and dtype bool"),
])
def test_a_stake_that_is_not_one_is_refused_at_its_coup(what: str, said: str):
    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["BBBB", "PPPP"]), [ReturnsStake(what=what)])
    message = str(err.value)
    assert message.startswith(f"strategy 'returns:what={what}', sessions 0-1 at their coup 3 "
                              f"(session 0: shoe 0, coup 3): wager() returned ")
    assert said in message
    line = ReturnsStake.wager.__code__.co_firstlineno  # where the plugin's wager() is
    assert message.endswith("as the stake on banker; expected a number or a numeric array "
                            f"of shape (2,), one stake per session (wager() at "
                            f"tests/parts/test_contract.py:{line})")


class SimpleReturns(SimpleStrategy):
    """Returns ``what`` from bet() in session 1 at its second coup."""

    name = "simple_returns"
    what: str = "-"

    def bet(self, view: SessionView) -> Any:
        if view.coup == 1 and view.history == "P":
            return SIMPLE_BAD[self.what]
        return {"banker": 10}


SIMPLE_BAD: dict[str, Any] = {
    "string": {"banker": "10"},
    "none_stake": {"banker": None},
    "nan": {"banker": float("nan")},
    "inf": {"player": float("inf")},
    "negative": {"banker": -10},
    "bool": {"banker": True},
    "none": None,
    "list": [("banker", 10)],
    "kind": {"bankr": 10},
    "dragon": {"dragon7": 10},
}


@pytest.mark.parametrize("what, said", [
    ("string", "bet() returned the string '10' as the stake on banker; expected a finite "
               "number >= 0"),
    ("none_stake", "bet() returned None as the stake on banker; expected a finite number"),
    ("nan", "bet() returned nan as the stake on banker"),
    ("inf", "bet() returned inf as the stake on player"),
    ("negative", "bet() returned -10.0 as the stake on banker"),
    ("bool", "bet() returned True as the stake on banker"),
    ("none", "bet() returned None; expected a dict of bet kind -> stake, {} for no bet"),
    ("list", "bet() returned [('banker', 10)] (list); expected a dict"),
    ("kind", "bet() returned a stake on 'bankr', which is not a bet kind (did you mean "
             "'banker'?); known: banker,"),
])
def test_a_simple_stake_that_is_not_one_is_refused_naming_the_session(what: str, said: str):
    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["BBBB", "PBBB"]), [SimpleReturns(what=what)])
    message = str(err.value)
    assert message.startswith(f"strategy 'simple_returns:what={what}', session 1, shoe 1, "
                              f"coup 2: {said}")


def test_a_stake_on_a_bet_the_table_does_not_offer_names_the_coup():
    with pytest.raises(StrategyFault, match=r"^strategy 'simple_returns:what=dragon', "
                       r"session 1, shoe 1, coup 2: wager\(\) staked on dragon7, but dragon7 "
                       r"is not offered under 8 decks, standard 5%"):
        backtest(coups_from_outcomes(["BBBB", "PBBB"]), [SimpleReturns(what="dragon")])


# --------------------------------------------------------------------------- plugin errors

PLUGIN_RAISES = textwrap.dedent('''
    from baccarat.strategies.base import SessionView, SimpleStrategy


    def ratio(wins, losses):
        return wins / losses


    class Ratio(SimpleStrategy):
        """Stakes more when it has won more than lost (divides by zero on the way)."""
        name = "ratio"

        def reset(self):
            self.wins = 0
            self.losses = 0

        def bet(self, view: SessionView):
            if view.coup >= 2:
                return {"banker": self.base * ratio(self.wins, self.losses)}
            return {"banker": self.base}

        def learn(self, view, outcome, net):
            self.wins += net > 0
            self.losses += net < 0
''')


def _line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_plugin_exception_names_strategy_file_line_method_session_shoe_and_coup(
        tmp_path: Path):
    path = tmp_path / "ratio.py"
    path.write_text(PLUGIN_RAISES)
    # Session 1 (shoe 1) wins twice: 0 losses at its third coup. Session 0 loses once.
    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["PBBB", "BBBB"]), [f"{path}:Ratio"])
    message = str(err.value)
    # The innermost frame in the plugin's file: the helper, not the bet() that called it.
    assert message.startswith(
        f"strategy 'ratio', session 1, shoe 1, coup 3: raised ZeroDivisionError in bet() at "
        f"{path}:{_line(path, 'return wins / losses')}: division by zero")
    assert "Traceback" in (err.value.detail or "") and "ratio.py" in (err.value.detail or "")


def test_cli_prints_one_line_and_debug_prints_the_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "ratio.py"
    path.write_text(PLUGIN_RAISES)
    out = tmp_path / "run"
    args = ["backtest", "--shoes", "30", "--seed", "3", "--strategy", f"{path}:Ratio",
            "--out", str(out), "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    text = " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr and lines[0].startswith("error: strategy 'ratio'")
    assert f"ZeroDivisionError in bet() at {path}:{_line(path, 'wins / losses')}" in text
    assert text.endswith(f"nothing was left at {out} (--debug or BACCARAT_DEBUG=1 prints the "
                         f"full traceback)")
    assert not out.exists()  # nothing left that blocks the next run to the same folder

    debug = runner.invoke(app, [*args, "--debug"])
    assert debug.exit_code == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert "return wins / losses" in debug.stderr
    monkeypatch.setenv("BACCARAT_DEBUG", "1")
    env = runner.invoke(app, args)
    assert env.exit_code == 2 and "return wins / losses" in env.stderr
    assert not out.exists()


class CountsStarts(Strategy):
    """Returns a stake array of the wrong shape; counts how often a chunk was started."""

    name = "counts_starts"
    marker: str = ""

    def start(self, table: Table) -> None:
        with open(self.marker, "a") as f:
            f.write("x")

    def wager(self, table: Table) -> Wager:
        return Wager.on(banker=np.full(table.n + 1, 10.0))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_strategy_error_is_never_retried_and_leaves_no_folder(tmp_path: Path, workers: int):
    marker = tmp_path / "starts"
    out = tmp_path / "run"
    with pytest.raises(StrategyFault) as err:
        play(BacktestJob(None, [CountsStarts(marker=str(marker))], shoes=20, seed=1,
                         run=Run(out=out, chunk_shoes=10, workers=workers), unchecked=True))
    assert not isinstance(err.value, ChunkFailed)
    assert "counts_starts" in str(err.value) and "chunk" not in str(err.value)
    assert 1 <= len(marker.read_text()) <= workers  # each chunk started once at most
    assert not out.exists()
    # The same folder takes the next run.
    backtest(None, ["flat"], shoes=20, seed=1, run=Run(out=out, chunk_shoes=10))
    assert (out / "run.json").exists()


def test_strategy_faults_are_bad_input():
    assert issubclass(StrategyFault, BaccaratError)


RESUMABLE_PLUGIN = '''
import numpy as np
from baccarat.strategies.base import Strategy, Wager


class Flatish(Strategy):
    """Flat on Banker."""
    name = "flatish"

    def wager(self, table):
        return Wager.on(banker=np.full(table.n, self.base{bug}))
'''


def forget_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("baccarat_plugin_")]:
        monkeypatch.delitem(sys.modules, name)


def test_a_strategy_error_in_a_resumed_run_keeps_it_resumable_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from baccarat.parallel import FAULT_ENV

    path = tmp_path / "flatish.py"
    path.write_text(RESUMABLE_PLUGIN.replace("{bug}", ""))
    out = tmp_path / "run"
    spec = f"{path}:Flatish"
    monkeypatch.setenv(FAULT_ENV, "1:raise")  # the disk fills up at the second chunk
    with pytest.raises(ChunkFailed):
        backtest(None, [spec], shoes=30, seed=2, run=Run(chunk_shoes=10, out=out))
    monkeypatch.delenv(FAULT_ENV)
    path.write_text(RESUMABLE_PLUGIN.replace("{bug}", " / 0"))  # an edit goes wrong
    forget_plugins(monkeypatch)  # as a new process would, read the file again
    with pytest.raises(StrategyFault, match=r"raised ZeroDivisionError in wager\(\) at .*"
                       r"flatish.py:11: .*; .*run keeps its finished chunks: fix the strategy "
                       r"and finish the run with --resume$"):
        backtest(None, [spec], shoes=30, seed=2, run=Run(chunk_shoes=10, out=out, resume=True))
    assert (out / "_plan.json").exists()
    path.write_text(RESUMABLE_PLUGIN.replace("{bug}", ""))
    forget_plugins(monkeypatch)
    backtest(None, [spec], shoes=30, seed=2, run=Run(chunk_shoes=10, out=out, resume=True))
    assert (out / "run.json").exists()


# --------------------------------------------------------------------------- state

STATEFUL_PLUGIN = textwrap.dedent('''
    import numpy as np
    from baccarat.strategies.base import Strategy, Wager

    class LossCounter(Strategy):
        """Banker, doubling the stake per loss in a row (state kept as plain attributes)."""
        name = "loss_counter"

        def start(self, table):
            self.losses = np.zeros(table.n, dtype=np.int64)
            self.calls = 0

        def wager(self, table):
            self.calls += 1
            if not hasattr(self, "first_seen"):
                self.first_seen = table.step  # set lazily: must not survive into a next run
            return Wager.on(banker=self.base * 2.0 ** self.losses)

        def settle(self, table, result):
            self.losses = np.where(result.lost, self.losses + 1,
                                   np.where(result.won, 0, self.losses))
''')


def test_array_form_state_as_plain_attributes_just_works_and_never_leaks(tmp_path: Path):
    from baccarat.strategies.registry import expand_spec

    path = tmp_path / "loss_counter.py"
    path.write_text(STATEFUL_PLUGIN)
    (strategy,) = expand_spec(f"{path}:LossCounter")
    coups = coups_from_outcomes(["PPBPB"])
    rules = TableRules()
    _, (first,) = replay(coups, [strategy], rules)
    # By hand: 10 lost, 20 lost, 40 won (+38), 10 lost, 20 won (+19).
    assert first.net[0].tolist() == [-10, -20, 38, -10, 19]
    assert strategy.calls == 5 and strategy.first_seen == 0
    assert strategy.params() == {"base": 10.0}  # state is not a parameter
    assert strategy.spec() == "loss_counter"
    object.__setattr__(strategy, "first_seen", 99)  # left over from an earlier run
    _, (second,) = replay(coups, [strategy], rules)
    assert second.net[0].tolist() == first.net[0].tolist()
    assert strategy.calls == 5 and strategy.first_seen == 0
    # Through backtest (chunks, worker copies): the same ledger.
    res = backtest(coups, [f"{path}:LossCounter"])
    assert res.ledger["net"].tolist() == [-10, -20, 38, -10, 19]


def test_state_under_a_method_or_setting_name_is_refused_in_one_line():
    class Shadows(SimpleStrategy):
        name = "shadows"

        def reset(self) -> None:
            self.bet = 10  # type: ignore[assignment, method-assign]

    with pytest.raises(StrategyFault, match=r"^strategy 'shadows', session 0, before its first "
                       r"coup: raised AttributeError in reset\(\) at .*: Shadows\.bet is a "
                       r"method of the strategy, not state: keep the state under another name"):
        backtest(coups_from_outcomes(["B"]), [Shadows()])

    class Setting(Strategy):
        name = "setting"

        def start(self, table: Table) -> None:
            self.needs_cards = True  # type: ignore[misc]

    with pytest.raises(StrategyFault, match=r"Setting\.needs_cards is a class setting of the "
                                            r"strategy, not state"):
        backtest(coups_from_outcomes(["B"]), [Setting()])


def test_what_init_sets_is_configuration_and_survives_every_run():
    class Tabled(Strategy):
        """Stakes from a table built once, when the strategy is made."""

        name = "tabled"

        def __init__(self, **params: Any) -> None:
            super().__init__(**params)
            self.stakes = [self.base, 2 * self.base]  # configuration, not per-run state

        def start(self, table: Table) -> None:
            self.k = np.zeros(table.n, dtype=np.int64)

        def wager(self, table: Table) -> Wager:
            return Wager.on(banker=np.asarray(self.stakes)[self.k % 2])

        def settle(self, table: Table, result: Result) -> None:
            self.k = self.k + 1

    strategy = Tabled()
    coups = coups_from_outcomes(["BBP"])
    for _ in range(2):
        _, (ledger,) = replay(coups, [strategy], TableRules())
        assert ledger.net[0].tolist() == [9.5, 19, -10]
    assert backtest(coups, [strategy]).ledger["net"].tolist() == [9.5, 19, -10]


def test_newcomer_mistakes_on_the_table_and_the_wager_read_plainly():
    """A misspelt table attribute names the closest one and what the table shows;
    ``Wager(banker=...)`` works like ``Wager.on``; an unknown kind hints the closest."""
    from baccarat.strategies.base import Table, TableState

    table = TableState(3, TableRules(), np.full(3, 100.0)).table
    with pytest.raises(AttributeError, match=r"no attribute 'histroy' \(did you mean "
                                             r"'history'\?\); it shows .*bankroll"):
        _ = table.histroy
    with pytest.raises(AttributeError, match=r"n is the number of sessions"):
        _ = table.sessions
    assert isinstance(table, Table)
    wager = Wager(banker=np.array([10.0, 0.0, 5.0]), tie=1)
    assert wager.stakes["banker"].tolist() == [10.0, 0.0, 5.0]
    assert float(wager.stakes["tie"]) == 1.0
    assert Wager.on(player=2).stakes["player"] == 2.0
    with pytest.raises(KeyError, match=r"did you mean 'banker'"):
        Wager(bankr=10)
    with pytest.raises(TypeError, match="not a number"):
        Wager(banker="10")


NEWCOMER_FIBONACCI = '''\
from baccarat.strategies.base import SimpleStrategy


class MyFibonacci(SimpleStrategy):
    """Fibonacci on Player, written with the array form's hook names."""

    name = "my_fib"

    def start(self, view):
        self.i = 0

    def bet(self, view):
        return {"Player": self.base}

    def settle(self, view, result):
        self.i += 1
'''


def test_a_simple_strategy_with_the_array_forms_hooks_is_told_the_simple_names(
        tmp_path: Path) -> None:
    """start()/settle() in a SimpleStrategy would replace the engine's per-session copies
    (the error was about a private attribute of the engine): refused where it is defined,
    naming the file, the line and the hook to write instead."""
    plugin = tmp_path / "my_fib.py"
    plugin.write_text(NEWCOMER_FIBONACCI)
    result = CliRunner().invoke(app, ["backtest", "-s", f"{plugin}:MyFibonacci", "--shoes", "2",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "MyFibonacci.start() (" in result.output and "my_fib.py:9)" in result.output
    assert "write it as reset(self)" in result.output
    assert "_players" not in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_a_capitalised_bet_kind_gets_the_kind_it_meant(tmp_path: Path) -> None:
    plugin = tmp_path / "my_fib.py"
    plugin.write_text(NEWCOMER_FIBONACCI.replace("def start(self, view)", "def reset(self)")
                      .replace("def settle(self, view, result)",
                               "def learn(self, view, outcome, net)"))
    result = CliRunner().invoke(app, ["backtest", "-s", f"{plugin}:MyFibonacci", "--shoes", "2",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert ("bet() returned a stake on 'Player', which is not a bet kind (did you mean "
            "'player'?)") in " ".join(result.output.split())
    with pytest.raises(KeyError, match=r"did you mean 'banker'"):
        Wager.on(Banker=10.0)
