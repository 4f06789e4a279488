"""``baccarat warm`` compiles every kernel of the engine, so a first run compiles nothing.

The kernels are found, not listed (``engine.warm.kernels``): the check below reads the
sources for ``@njit`` functions independently of that search. The warm-up runs for real
into an empty numba cache of its own (``NUMBA_CACHE_DIR``), then a small demo and a
card-counting backtest in fresh processes must not compile a single kernel.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _njit_functions() -> set[str]:
    """module.function of every module-level function decorated with ``njit``, by the AST."""
    found = set()
    for package in ("engine", "strategies"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            module = module.removesuffix(".__init__")
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and any(
                        "njit" in ast.unparse(d) for d in node.decorator_list):
                    found.add(f"{module}.{node.name}")
    return found


def test_the_search_finds_every_kernel_in_the_sources():
    from engine.warm import kernels, name_of

    in_sources = _njit_functions()
    assert {"engine.deal._generate_kernel", "engine.replay._settle_kernel",
            "engine.odds.enumeration._tally_range"} <= in_sources
    assert {name_of(k) for k in kernels()} == in_sources


_COUNT_COMPILES = """
import json, sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Count())
from engine.report.demo import run_demo
from engine.backtest import backtest
run_demo(sys.argv[1] + "/demo", shoes=20)
backtest(strategies=["counter"], shoes=2, seed=0, out=sys.argv[1] + "/counter")
print(json.dumps(compiled))
"""


def test_after_warm_a_first_run_compiles_nothing(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    warm = subprocess.run([sys.executable, "-m", "engine.cli", "warm"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    assert "not reached" not in warm.stdout, warm.stdout
    assert " 0 already cached" in warm.stdout and "kernels compiled" in warm.stdout
    run = subprocess.run([sys.executable, "-c", _COUNT_COMPILES, str(tmp_path)], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []
