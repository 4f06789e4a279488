"""A plugin returning the wrong type gets an error with its file and line.

The engine refuses what a hook returned after the hook has returned, so no frame of the
plugin is in the traceback: the error names where the plugin defines the hook.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from baccarat.errors import StrategyFault
from baccarat.testing import play

PLUGINS = {
    "simple": ('''
        class Plugin(SimpleStrategy):
            def bet(self, view):
                return ["banker", 10]
    ''', "bet"),
    "array": ('''
        class Plugin(Strategy):
            def wager(self, table):
                return {"banker": 10}
    ''', "wager"),
}


@pytest.mark.parametrize("name", list(PLUGINS))
def test_the_refusal_names_the_hooks_file_and_line(tmp_path: Path, name: str):
    source, method = PLUGINS[name]
    plugin = tmp_path / "plugin.py"
    plugin.write_text("from baccarat.strategies import *\n\n\n"
                      + textwrap.dedent(source).lstrip("\n"))
    with pytest.raises(StrategyFault) as caught:
        play(f"{plugin}:Plugin", "BPB")
    assert str(caught.value).endswith(f"({method}() at {plugin}:5)"), str(caught.value)
