"""Plugins are kept to the past and to themselves while they play.

Each plugin below tries, from a hook, what a determined author finds in minutes: walking
the call stack back to the replay, listing the garbage collector's objects, replacing the
engine's settling kernel, exiting the command, forking. Each attempt ends the run with
one line naming what was tried and the plugin's file and line (caught by the plugin or
not), nothing of the engine's is left changed, and ``check-strategy`` reports it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import baccarat.replay
import pytest
from baccarat.errors import StrategyFault
from baccarat.testing import play

HEADER = textwrap.dedent('''\
    import gc
    import os
    import sys

    import numpy as np

    import baccarat.replay
    from baccarat.strategies import SimpleStrategy, Strategy, Wager


    ''')

#: (class source, the line of the attempt in the file, what the message says was tried)
ATTEMPTS = {
    "frame": ('''class Plugin(SimpleStrategy):
    def bet(self, view):
        frame = sys._getframe(1)
        return {"banker": self.base}
''', 13, "frame introspection (sys._getframe)"),
    "swallowed": ('''class Plugin(Strategy):
    def wager(self, table):
        try:
            gc.get_objects()
        except Exception:
            pass
        return Wager.on(banker=self.base)
''', 14, "garbage-collector introspection (gc.get_objects)"),
    "traceback": ('''class Plugin(Strategy):
    def wager(self, table):
        try:
            raise ValueError
        except ValueError as exc:
            exc.__traceback__.tb_frame
        return Wager.on(banker=self.base)
''', 16, "frame introspection (tb_frame)"),
    "kernel": ('''class Plugin(Strategy):
    def start(self, table):
        baccarat.replay._settle_kernel = lambda *args: (0, 0, 0, False)
    def wager(self, table):
        return Wager.on(banker=self.base)
''', None, "replacing the engine's baccarat.replay._settle_kernel (put back)"),
    "exit": ('''class Plugin(SimpleStrategy):
    def bet(self, view):
        sys.exit(0)
''', 13, "raised SystemExit in bet()"),
    "generator_exit": ('''class Plugin(Strategy):
    def wager(self, table):
        raise GeneratorExit
''', 13, "raised GeneratorExit in wager()"),
    "base_exception": ('''class Stop(BaseException):
    pass


class Plugin(Strategy):
    def settle(self, table, result):
        raise Stop("enough")
    def wager(self, table):
        return Wager.on(banker=self.base)
''', 17, "raised Stop in settle()"),
    "fork": ('''class Plugin(Strategy):
    def wager(self, table):
        if os.fork() == 0:
            os._exit(0)
        return Wager.on(banker=self.base)
''', 13, "forking (os.fork)"),
}


@pytest.fixture
def plugin_file(tmp_path: Path):
    def write(name: str) -> Path:
        path = tmp_path / "plugin.py"
        path.write_text(HEADER + ATTEMPTS[name][0])
        return path
    return write


@pytest.mark.parametrize("name", [n for n in ATTEMPTS if n != "fork"])
def test_each_attempt_ends_the_play_with_one_line_naming_it(plugin_file, name: str):
    _, line, said = ATTEMPTS[name]
    kernel = baccarat.replay._settle_kernel
    with pytest.raises(StrategyFault) as caught:
        play(f"{plugin_file(name)}:Plugin", "BPBPBBPP")
    message = str(caught.value)
    assert "\n" not in message
    assert said in message
    if line is not None:
        assert f"plugin.py:{line}" in message
    assert baccarat.replay._settle_kernel is kernel  # put back


def test_an_honest_plugin_still_plays_and_may_read_its_own_code():
    from baccarat.strategies import SimpleStrategy

    class Honest(SimpleStrategy):
        def bet(self, view):
            self.code = type(self).bet.__code__.co_name  # reading code is no frame
            return {"banker": self.base}

    assert play(Honest(), "BPB")["banker"].tolist() == [10.0, 10.0, 10.0]


@pytest.mark.parametrize("name", ["fork", "exit", "frame"])
def test_the_command_exits_non_zero_in_one_line_and_leaves_no_process(plugin_file,
                                                                      tmp_path: Path,
                                                                      name: str):
    _, line, said = ATTEMPTS[name]
    done = subprocess.run(
        [sys.executable, "-m", "baccarat.cli", "backtest", "--shoes", "2", "--quiet",
         "-s", f"{plugin_file(name)}:Plugin", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=120)
    assert done.returncode not in (0, 130), done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert said in lines[0] and f"plugin.py:{line}" in lines[0]
    assert "Traceback" not in done.stderr


def test_check_strategy_reports_the_attempt(plugin_file):
    from baccarat.cli import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["check-strategy", f"{plugin_file('swallowed')}:Plugin",
                                      "--shoes", "2", "--speed-shoes", "2"])
    assert result.exit_code == 1
    assert "garbage-collector" in result.output and "FAIL" in result.output


def test_kernels_the_engine_binds_as_it_compiles_are_not_taken_for_a_plugins(monkeypatch):
    """A plugin calling the engine may make it compile a kernel, which binds the kernels
    it calls (and ``prange``) to numba's in its module: that is not a replacement."""
    import types

    from baccarat.plugin_guard import plugin_code

    probe = types.ModuleType("baccarat._guard_probe")
    exec(textwrap.dedent('''
        from baccarat.jit import njit, prange

        @njit
        def inner(x):
            return x + 1

        @njit
        def outer(n):
            total = 0
            for i in prange(n):
                total += inner(i)
            return total
    '''), probe.__dict__)
    monkeypatch.setitem(sys.modules, probe.__name__, probe)
    inner = probe.inner
    with plugin_code():
        assert probe.outer(3) == 6
    assert probe.inner is not inner  # bound to its dispatcher, and left so


def test_a_module_unloaded_since_is_no_replacement():
    import types

    from baccarat.plugin_guard import plugin_code

    gone = types.ModuleType("baccarat._guard_gone")
    exec("def a():\n    pass\n\n\ndef b():\n    pass\n", gone.__dict__)
    sys.modules[gone.__name__] = gone
    try:
        with plugin_code():
            pass  # its functions are in the snapshot now
    finally:
        del sys.modules[gone.__name__]
    # another module in its place (as a plugin file loads one): as many modules as before
    sys.modules["guard_test_other"] = types.ModuleType("guard_test_other")
    try:
        with plugin_code():  # refused "replacing baccarat._guard_gone.a" before the fix
            pass
    finally:
        del sys.modules["guard_test_other"]
