"""A plugin whose hook is misspelt never plays silently.

A method named close to a hook of its family (``learns`` for ``learn``, ``setle`` for
``settle``, ``wagers``, ``reset_``) that the class does not define itself would never be
called: the plugin would play a run of zeros with exit 0. Such a class is refused as it
is loaded, with the hook it meant and its file and line; a configuration that places no
bet in a whole run is warned about beside the table; ``check-strategy`` checks that a
bet is placed.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from baccarat.cli import app
from baccarat.strategies import SimpleStrategy
from typer.testing import CliRunner

runner = CliRunner()

HEADER = "import numpy as np\nfrom baccarat.strategies import *\n"

#: (class source, the misspelt method, its line in the file, the hook it meant)
MISSPELT = [
    ('''class Plugin(SimpleStrategy):
    def bet(self, view):
        return {"banker": self.base}
    def learns(self, view, outcome, net):
        pass
''', "learns", 7, "learn"),
    ('''class Plugin(Strategy):
    def wager(self, table):
        return Wager.on(banker=self.base)
    def setle(self, table, result):
        pass
''', "setle", 7, "settle"),
    ('''class Plugin(Strategy):
    def start(self, table):
        pass
    def wagers(self, table):
        return Wager.on(banker=self.base)
''', "wagers", 7, "wager"),
    ('''class Plugin(SimpleStrategy):
    def reset_(self):
        self.n = 0
    def bet(self, view):
        return {"banker": self.base}
''', "reset_", 5, "reset"),
    ('''class Plugin(SimpleSelection):
    def pick(self, view):
        return "B"
    def learned(self, view, outcome):
        pass
''', "learned", 7, "learn"),
    ('''class Plugin(Staking):
    def stake(self, table, choice):
        return self.base
''', "stake", 5, "stakes"),
]


@pytest.mark.parametrize(("source", "method", "line", "hook"), MISSPELT)
def test_a_misspelt_hook_is_refused_with_the_hook_file_and_line(
        tmp_path: Path, source: str, method: str, line: int, hook: str):
    plugin = tmp_path / "plugin.py"
    plugin.write_text(HEADER + "\n" + source)
    result = runner.invoke(app, ["check-strategy", f"{plugin}:Plugin", "--shoes", "2",
                                 "--speed-shoes", "2"])
    assert result.exit_code == 2, result.output
    (message,) = [text for text in result.output.splitlines() if text.strip()]
    assert f"Plugin.{method}() (" in message
    assert f"plugin.py:{line}): did you mean {hook}()?" in message
    assert "Traceback" not in result.output


def test_a_helper_beside_the_hook_itself_and_exact_risk_declarations_are_kept():
    class Fine(SimpleStrategy):  # learn is defined: learns() is the plugin's own helper
        def bet(self, view):
            return {"banker": self.base}

        def learn(self, view, outcome, net):
            self.learns(outcome)

        def learns(self, outcome):
            self.last = outcome

        def initial_state(self):
            return 0

        def next_state(self, state, outcome, result):
            return 0

        def stakes_of(self, state):  # close to no hook of a strategy's but stakes
            return {"banker": self.base}

    assert Fine().name == "fine"


def test_a_plugin_that_never_bets_is_warned_beside_the_table_and_fails_check_strategy(
        tmp_path: Path):
    plugin = tmp_path / "never.py"
    plugin.write_text(HEADER + textwrap.dedent('''
        class Never(SimpleStrategy):
            def bet(self, view):
                return {}
    '''))
    result = runner.invoke(app, ["backtest", "--shoes", "3", "-s", f"{plugin}:Never",
                                 "-s", "flat", "--out", str(tmp_path / "run"), "--quiet"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.output
    assert "never placed no bet in the whole run" in warnings[0]
    checked = runner.invoke(app, ["check-strategy", f"{plugin}:Never", "--shoes", "2",
                                  "--speed-shoes", "2", "--json"])
    assert checked.exit_code == 1
    import json

    (placed,) = [c for c in json.loads(checked.stdout)["checks"] if c["name"] == "places a bet"]
    assert placed["passed"] is False and "no stake in 2 shoes" in placed["detail"]


def test_a_misspelt_attribute_is_named_with_the_one_meant(tmp_path: Path):
    """A newcomer's learn() reads self.player where reset() set self.players: the error
    names the line and the attribute that exists."""
    plugin = tmp_path / "mine.py"
    plugin.write_text(textwrap.dedent("""\
        from baccarat.strategies import SimpleSelection


        class AfterTwo(SimpleSelection):
            def reset(self):
                self.players = 0

            def pick(self, view):
                return "B" if self.players >= 2 else None

            def learn(self, view, outcome):
                self.players = self.player + 1 if outcome == "P" else 0
        """))
    result = CliRunner().invoke(app, ["backtest", "--shoes", "20", "-s",
                                      f"{plugin}:AfterTwo | martingale", "--out",
                                      str(tmp_path / "run")])
    assert result.exit_code != 0
    text = " ".join(result.output.split())
    assert "raised AttributeError in learn() at " in text and "mine.py:12:" in text
    assert "no attribute 'player' (did you mean 'players'?)" in text
    assert not (tmp_path / "run").exists()
