"""``baccarat check-strategy``: each broken plugin is caught by its check; correct ones pass.

The plugins are written as a newcomer writes them, each with one mistake: state kept on
the class (so every session shares it), a random stake, a negative stake meant as "bet
the other side", a write into the table, a bet the table does not offer, a stake that
is not a number per session.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from baccarat.cli import app
from baccarat.rules import TableRules
from baccarat.strategies.base import snake_case
from baccarat.strategy_check import Check, check_strategy
from baccarat.testing import make_one_strategy
from test_parts import TEN_LINES
from typer.testing import CliRunner

runner = CliRunner()
SMALL = {"shoes": 8, "speed_shoes": 8, "speed_repeat": 1}

HEADER = textwrap.dedent('''
    import random
    from typing import ClassVar

    import numpy as np

    from baccarat.strategies.base import SimpleStrategy, Strategy, Wager
''')

PLUGINS = {
    # Correct: Banker after two Players, as the README's simple example.
    "Good": '''
class Good(SimpleStrategy):
    """Bet Banker after two Player wins."""
    def reset(self):
        self.players = 0
    def bet(self, view):
        return {"banker": self.base} if self.players >= 2 else {}
    def learn(self, view, outcome, net):
        if outcome == "P":
            self.players += 1
        elif outcome == "B":
            self.players = 0
''',
    # The losses list lives on the class: every session (and every run) adds to it.
    "SharedLosses": '''
class SharedLosses(SimpleStrategy):
    """Raise the stake with the losses so far."""
    losses: ClassVar[list] = []
    def bet(self, view):
        return {"banker": self.base * (1 + len(self.losses) % 3)}
    def learn(self, view, outcome, net):
        if net < 0:
            self.losses.append(net)
''',
    # Array form, state on the class as a numpy array shared by every instance.
    "SharedCount": '''
class SharedCount(Strategy):
    """Bet Player once Banker has won three times."""
    bankers: ClassVar[list] = [0]
    def wager(self, table):
        return Wager.on(player=np.full(table.n, self.base if self.bankers[0] >= 3 else 0.0))
    def settle(self, table, result):
        self.bankers[0] += int((result.outcome == 0).sum())
''',
    # A class-level "memory" of the last outcome: each session reads what the session
    # settled just before it wrote, so the result depends on which sessions play together.
    "SharedMemory": '''
class SharedMemory(SimpleStrategy):
    """Follow the last outcome."""
    memory: ClassVar[dict] = {}
    def bet(self, view):
        if view.last is None:
            return {}
        return {"banker" if self.memory["last"] == "B" else "player": self.base}
    def learn(self, view, outcome, net):
        self.memory["last"] = outcome
''',
    "RandomStake": '''
class RandomStake(SimpleStrategy):
    """A random stake of one or two units."""
    def bet(self, view):
        return {"banker": self.base * random.choice([1, 2])}
''',
    # "A negative Banker stake is a Player bet", thinks the newcomer.
    "NegativeStake": '''
class NegativeStake(SimpleStrategy):
    """Follow the last decision."""
    def bet(self, view):
        return {"banker": -self.base if view.last == "P" else self.base}
''',
    # Stops a session once ahead by writing into the table.
    "WritesTable": '''
class WritesTable(Strategy):
    """Flat Banker, stop once 20 ahead."""
    def wager(self, table):
        return Wager.on(banker=np.full(table.n, self.base))
    def settle(self, table, result):
        table.active[table.bankroll > table.start_bankroll + 20] = False
''',
    # A typo: self.bse for self.base.
    "Typo": '''
class Typo(SimpleStrategy):
    """Flat Banker."""
    def bet(self, view):
        return {"banker": self.bse}
''',
    "Dragon": '''
class Dragon(SimpleStrategy):
    """Dragon 7 every coup."""
    def bet(self, view):
        return {"dragon7": self.base}
''',
    # One stake instead of one per session (and a list of the wrong length).
    "WrongShape": '''
class WrongShape(Strategy):
    """Flat Banker with a stake array of the wrong length."""
    def wager(self, table):
        return Wager({"banker": np.full(table.n + 1, self.base)})
''',
}


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plugins")
    for name, source in PLUGINS.items():
        (folder / f"{name.lower()}.py").write_text(HEADER + source)
    return folder


def spec(plugins: Path, name: str) -> str:
    return f"{plugins / (name.lower() + '.py')}:{name}"


def checks_of(plugins: Path, name: str, **options) -> dict[str, Check]:
    found, _ = check_strategy(lambda: make_one_strategy(spec(plugins, name)),
                              **{**SMALL, **options})
    return {check.name: check for check in found}


def verdicts(checks: dict[str, Check]) -> dict[str, bool | None]:
    return {name: check.passed for name, check in checks.items()}


ALL_PASS = {
    "plays without an error": True, "places a bet": True, "no writes to the table": True,
    "stakes are finite, non-negative numbers": True,
    "stakes only on bets the table offers": True, "same ledger whatever the chunking": True,
    "same ledger whatever the order of the sessions": True,
    "same ledger on a second run": True, "speed": True,
}


@pytest.mark.parametrize("name", ["Good"])
def test_a_correct_plugin_passes_every_check(plugins: Path, name: str):
    checks = checks_of(plugins, name)
    assert verdicts(checks) == ALL_PASS
    assert "coups/s" in checks["speed"].detail


@pytest.mark.parametrize("target", [
    "examples/banker_after_players.py:BankerAfterPlayers",
    "examples/simple_banker_after_players.py:SimpleBankerAfterPlayers",
])
def test_the_examples_and_built_ins_pass(target: str):
    found, figures = check_strategy(lambda: make_one_strategy(target), **SMALL)
    assert all(check.passed for check in found), found
    assert figures["coups_per_second"] > 0


@pytest.mark.parametrize("name", ["SharedLosses", "SharedCount"])
def test_state_shared_between_sessions_and_runs_is_caught(plugins: Path, name: str):
    checks = checks_of(plugins, name)
    assert checks["plays without an error"].passed
    assert checks["same ledger whatever the chunking"].passed is False
    assert checks["same ledger on a second run"].passed is False
    assert "in the first run" in checks["same ledger on a second run"].detail


def test_state_that_depends_on_the_order_of_the_sessions_is_caught(plugins: Path):
    # The memory is rewritten before it is read again, so a second run gives the same
    # ledger: only playing the sessions in another order or other groups shows the bug.
    checks = checks_of(plugins, "SharedMemory")
    assert checks["same ledger on a second run"].passed
    assert checks["same ledger whatever the order of the sessions"].passed is False
    assert checks["same ledger whatever the chunking"].passed is False


def test_a_random_stake_is_not_deterministic(plugins: Path):
    checks = checks_of(plugins, "RandomStake")
    assert checks["same ledger on a second run"].passed is False
    assert checks["stakes are finite, non-negative numbers"].passed


def test_a_negative_stake_is_caught_and_the_other_checks_still_run(plugins: Path):
    checks = checks_of(plugins, "NegativeStake")
    stakes = checks["stakes are finite, non-negative numbers"]
    assert stakes.passed is False
    assert "stake -10 on banker" in stakes.detail
    assert checks["same ledger on a second run"].passed  # run with that stake left out
    assert checks["speed"].passed is None


def test_a_write_into_the_table_is_caught(plugins: Path):
    checks = checks_of(plugins, "WritesTable")
    writes = checks["no writes to the table"]
    assert writes.passed is False
    assert "active" in writes.detail or "read-only" in writes.detail.lower()


def test_a_bet_the_table_does_not_offer(plugins: Path):
    checks = checks_of(plugins, "Dragon")
    offered = checks["stakes only on bets the table offers"]
    assert offered.passed is False
    assert "dragon7" in offered.detail and "standard 5%" in offered.detail
    assert verdicts(checks_of(plugins, "Dragon", rules=TableRules(variant="ez"))) == ALL_PASS


def test_a_stake_array_of_the_wrong_shape(plugins: Path):
    checks = checks_of(plugins, "WrongShape")
    stakes = checks["stakes are finite, non-negative numbers"]
    assert stakes.passed is False
    assert "expected a number per session (8,)" in stakes.detail


def test_a_plugin_that_raises_fails_the_first_check_and_the_rest_do_not_run(plugins: Path):
    checks = checks_of(plugins, "Typo")
    assert checks["plays without an error"].passed is False
    assert "bse" in checks["plays without an error"].detail
    assert [c.passed for c in checks.values()][1:] == [None] * 8


def test_cli_exit_status_and_report(plugins: Path):
    small = ["--shoes", "8", "--speed-shoes", "8"]
    good = runner.invoke(app, ["check-strategy", spec(plugins, "Good"), *small])
    assert good.exit_code == 0, good.output
    assert "all 9 checks passed" in good.stdout
    bad = runner.invoke(app, ["check-strategy", spec(plugins, "RandomStake"), *small,
                              "--json"])
    assert bad.exit_code == 1
    data = json.loads(bad.stdout)
    assert data["passed"] is False
    failed = [c["name"] for c in data["checks"] if c["passed"] is False]
    assert "same ledger on a second run" in failed


def test_cli_unknown_strategy_is_bad_input():
    result = runner.invoke(app, ["check-strategy", "martingail"])
    assert result.exit_code == 2
    assert "did you mean 'martingale'" in result.stderr
    assert result.stdout == ""


# --------------------------------------------------- the quick check before a backtest


@pytest.mark.parametrize("name", ["SharedLosses", "SharedCount", "SharedMemory",
                                  "RandomStake"])
def test_backtest_refuses_a_plugin_whose_ledger_depends_on_the_chunking(
        tmp_path: Path, name: str):
    # A file of its own: a module loaded afresh, as in the process a user's backtest runs.
    (tmp_path / f"{name.lower()}.py").write_text(HEADER + PLUGINS[name])
    plugin = spec(tmp_path, name)
    result = runner.invoke(app, ["backtest", "-s", plugin, "--shoes", "20",
                                 "--out", str(tmp_path / "run"), "-q", "--no-table"])
    assert result.exit_code == 2, result.output
    assert f"strategy '{snake_case(name)}'" in result.output.replace("\n", "")
    assert "depends on how the run is cut into chunks" in result.output.replace("\n", "")
    assert "--unchecked" in result.output.replace("\n", "")
    assert not (tmp_path / "run").exists()
    forced = runner.invoke(app, ["backtest", "-s", plugin, "--shoes", "20",
                                 "--out", str(tmp_path / "run"), "-q", "--no-table",
                                 "--unchecked"])
    assert forced.exit_code == 0, forced.output


def test_a_plugin_that_passes_is_remembered_and_not_checked_again(plugins: Path,
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    from baccarat import backtest, strategy_check

    monkeypatch.setenv("BACCARAT_CACHE_DIR", str(tmp_path / "cache"))
    checked: list[str] = []
    quick = strategy_check.quick_check

    def counting(config, rules, *args):  # type: ignore[no-untyped-def]
        checked.append(config.spec())
        return quick(config, rules, *args)

    monkeypatch.setattr(strategy_check, "quick_check", counting)
    backtest(None, [spec(plugins, "Good"), "martingale"], shoes=10, seed=1)
    assert checked == ["good"]  # the plugin, not the built-in
    backtest(None, [spec(plugins, "Good")], shoes=10, seed=2)
    assert checked == ["good"]  # remembered by its source
    (tmp_path / "changed.py").write_text(HEADER + PLUGINS["Good"] + "\n# edited\n")
    backtest(None, [f"{tmp_path / 'changed.py'}:Good"], shoes=10, seed=2)
    assert len(checked) == 2  # another source: checked again
    assert (tmp_path / "cache" / "checked-plugins.json").is_file()




def test_a_composed_spec_with_a_plugin_selection_is_checked_and_its_backtest_projected(
        tmp_path: Path):
    path = tmp_path / "after_two.py"
    path.write_text(TEN_LINES)  # tests/parts/test_parts.py's ten-line selection
    out = runner.invoke(app, ["check-strategy",
                              f"{path}:AfterTwoPlayers | dalembert | stop:win=50",
                              "--shoes", "6", "--speed-shoes", "8", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["passed"] is True
    # 10,000 shoes of the measured shoes' length (about 81 coups at 8 decks), at the
    # measured rate.
    coups_per_shoe = data["projected_seconds"] * data["coups_per_second"] / 10_000
    assert 60 < coups_per_shoe < 90
    speed = next(c for c in data["checks"] if c["name"] == "speed")
    assert "a 10,000-shoe backtest takes" in speed["detail"]


@pytest.mark.parametrize(("spec", "engine", "exact"), [
    ("martingale", "compiled", "yes"),
    ("examples/simple_martingale.py:SimpleMartingale", "replay", "yes"),
    ("tests/data/simple_systems.py:ReadsHistory | flat", "replay",
     "no: pick() reads view.history")])
def test_check_strategy_says_which_path_plays_it_and_whether_exact_risk_follows(
        spec: str, engine: str, exact: str) -> None:
    import json

    from baccarat.cli import app
    from typer.testing import CliRunner

    root = Path(__file__).parents[2]
    path, _, rest = spec.partition(":")
    target = f"{root / path}:{rest}" if rest else spec
    result = CliRunner().invoke(app, ["check-strategy", target, "--shoes", "6",
                                      "--speed-shoes", "6", "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["engine"].startswith(engine) and found["exact_risk"].startswith(exact)
