"""The command line starts light: its help never loads the heavy libraries.

``baccarat --help`` and ``baccarat COMMAND --help`` should answer at once; most of a slow
start is importing pandas, pyarrow, numba (and numpy under them) or matplotlib. Each
check runs in a fresh interpreter, since this test process has imported them already.
The speed itself is measured by ``benchmarks/bench_startup.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Not one of these may be imported to show the help (see engine/cli/__init__.py). pydantic
#: is light next to the others but still a fifth of a second: typer checks option values
#: with it, which ``--help`` must not need (``baccarat.cli._no_flag_value``).
HEAVY = ("matplotlib", "numba", "pandas", "pyarrow", "numpy", "scipy", "dask", "pydantic",
         "textual")

_PROBE = """
import json, sys
from baccarat.cli import app
from typer.main import get_command
heavy = %r
on_import = [m for m in heavy if m in sys.modules]
commands = sorted(get_command(app).list_commands(None))
loaded = {}
for args in [["--help"]] + [[name, "--help"] for name in commands]:
    before = set(sys.modules)
    try:
        app(args, prog_name="baccarat", standalone_mode=True)
    except SystemExit as exit:
        assert exit.code in (0, None), (args, exit.code)
    loaded[" ".join(args)] = sorted(set(sys.modules) - before)
print(json.dumps({"commands": commands, "on_import": on_import,
                  "loaded": {k: [m for m in v if m.split(".")[0] in heavy]
                             for k, v in loaded.items()}}))
"""


def _probe(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def probe() -> dict:
    return _probe(_PROBE % (HEAVY,))


def test_importing_the_cli_loads_no_heavy_library(probe):
    assert probe["on_import"] == [], (
        f"importing baccarat.cli loaded {probe['on_import']}: import them inside the command "
        f"function that needs them (see engine/cli/__init__.py)")


def test_help_of_every_command_loads_no_heavy_library(probe):
    assert {"backtest", "generate", "import", "odds", "report", "demo", "roads",
            "strategies", "compare"} <= set(probe["commands"])
    offenders = {args: mods for args, mods in probe["loaded"].items() if mods}
    assert offenders == {}, (
        f"showing the help loaded heavy modules: {offenders}; import them inside the command "
        f"function that needs them (see engine/cli/__init__.py)")


def test_the_console_script_help_runs_light():
    """The installed ``baccarat`` script itself: every module it imports is listed by
    ``PYTHONPROFILEIMPORTTIME`` on stderr, and none of them is heavy."""
    script = Path(sys.executable).with_name("baccarat")
    if not script.exists():
        pytest.skip("the baccarat console script is not installed next to this Python")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPROFILEIMPORTTIME": "1"}
    for args in (["odds", "--help"],):
        done = subprocess.run([str(script), *args], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=120, check=True)
        assert "Usage: baccarat" in done.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                    if line.startswith("import time:")}
        assert "baccarat.cli" in imported
        assert sorted(m for m in imported if m.split(".")[0] in HEAVY) == [], args


def test_engine_modules_load_numba_only_when_a_kernel_runs():
    """``baccarat strategies`` and the engine's imports pay nothing for numba; the first
    kernel call loads it and deals the same shoes as ever."""
    code = (
        "import json, sys\n"
        "import baccarat.backtest, baccarat.replay, baccarat.deal, baccarat.metrics\n"
        "import baccarat.odds\n"
        "import baccarat.io.importers.checks, baccarat.shuffles\n"
        "from baccarat.strategies.registry import available_strategies\n"
        "names = sorted(available_strategies())\n"
        "before = 'numba' in sys.modules\n"
        "import numpy as np\n"
        "from baccarat.deal import generate_coups\n"
        "from baccarat.rules import TableRules\n"
        "coups = generate_coups(TableRules(), 7, np.arange(2))\n"
        "print(json.dumps({'before': before, 'after': 'numba' in sys.modules,\n"
        "                  'names': names, 'outcomes': coups.outcome[:12].tolist()}))\n")
    result = _probe(code)
    assert result["before"] is False and result["after"] is True
    assert {"flat", "martingale", "counter"} <= set(result["names"])
    import numpy as np
    from baccarat.deal import generate_coups
    from baccarat.rules import TableRules
    assert result["outcomes"] == generate_coups(TableRules(), 7, np.arange(2)).outcome[:12].tolist()


def test_the_group_help_lists_every_command_with_its_first_help_line():
    """``baccarat --help`` lists every command with the first paragraph of its own
    docstring, in the order the commands are registered."""
    code = (
        "import contextlib, importlib, inspect, io, json\n"
        "import baccarat.cli as cli\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        cli.app(['--help'], prog_name='baccarat')\n"
        "    except SystemExit:\n"
        "        pass\n"
        "docs = {}\n"
        "for info in cli.app.registered_commands:\n"
        "    name = info.name or info.callback.__name__.replace('_', '-')\n"
        "    text = info.help or inspect.getdoc(info.callback)\n"
        "    docs[name] = ' '.join(text.split('\\n\\n')[0].split())\n"
        "print(json.dumps({'help': out.getvalue(), 'docs': docs, 'order': list(docs)}))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "250"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    listed: dict[str, str] = {}
    panel = result["help"].split("Commands")[1]
    for line in panel.splitlines()[1:]:
        if not line.startswith("│ "):
            continue
        name, text = line[2:18].strip(), line[18:].strip(" │")
        if name:
            listed[name] = text
        else:  # the description goes on over the next line
            listed[list(listed)[-1]] += " " + text
    assert list(listed) == result["order"]
    assert listed == {name: result["docs"][name] for name in result["order"]}
