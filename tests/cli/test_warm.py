"""``baccarat warm`` fills numba's cache, so a first run afterwards compiles nothing.

What a fresh install saves by it is measured by ``benchmarks/bench_startup.py
--first-run``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A demo, a counter and a ``--ledger none`` run in a fresh process: how many kernel
#: specialisations numba compiled and how many it loaded from its cache.
_FIRST_RUN = """
import json, sys
from baccarat import Run, backtest
from baccarat.report.demo import run_demo
from baccarat.warm import kernel_counts
run_demo(sys.argv[1] + "/demo", shoes=20)
backtest(strategies=["counter"], shoes=2, seed=0, run=Run(out=sys.argv[1] + "/counter"))
backtest(strategies=["martingale"], shoes=2, seed=0,
         run=Run(out=sys.argv[1] + "/none", ledger=False))
print(json.dumps(kernel_counts()))
"""


def test_after_baccarat_warm_a_first_run_compiles_nothing(tmp_path):
    """The command runs its tiny runs and says what numba did; a demo, a counter and a
    ``--ledger none`` run in a new process then load every kernel from numba's cache."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    warm = subprocess.run([sys.executable, "-m", "baccarat.cli", "warm", "--verbose"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert "7 tiny runs" in warm.stdout and "loaded from numba's cache" in warm.stdout
    runs = [line.split(":")[0].strip() for line in warm.stdout.splitlines()
            if line.startswith("  ")]
    assert sorted(runs) == ["cards", "deal", "models", "no-ledger", "odds", "replay", "risk"]
    run = subprocess.run([sys.executable, "-c", _FIRST_RUN, str(tmp_path)], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    compiled, loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert compiled == 0 and loaded > 0


def test_warm_writes_the_bytecode_where_python_would_not(tmp_path):
    """The modules' bytecode is written even where Python would not write it as it imports
    (``PYTHONDONTWRITEBYTECODE``), so no command compiles the sources again."""
    import importlib.util

    from baccarat.warm import compile_bytecode

    source = ROOT / "engine" / "report" / "figures.py"
    bytecode = Path(importlib.util.cache_from_source(str(source)))
    bytecode.unlink(missing_ok=True)
    compile_bytecode()
    assert bytecode.exists()
