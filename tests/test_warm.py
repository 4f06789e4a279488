"""``baccarat warm`` compiles every kernel of the engine, so a first run compiles nothing.

The kernels are found, not listed (``baccarat.warm.kernels``): the check below reads the
sources for ``@njit`` functions independently of that search. The warm-up's exercises
must reach every kernel found, with the types a first run then asks for. What a fresh
install saves by it is measured by ``benchmarks/bench_startup.py --first-run``.
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
    for folder, package in (("engine", "baccarat"), ("strategies", "baccarat.strategies")):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            module = ".".join((package, *path.relative_to(ROOT / folder).with_suffix("").parts))
            module = module.removesuffix(".__init__")
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and any(
                        "njit" in ast.unparse(d) for d in node.decorator_list):
                    found.add(f"{module}.{node.name}")
    return found


def test_the_search_finds_every_kernel_in_the_sources():
    from baccarat.warm import kernels, name_of

    in_sources = _njit_functions()
    assert {"baccarat.deal._generate_kernel", "baccarat.replay._settle_kernel",
            "baccarat.odds.enumeration._tally_range"} <= in_sources
    assert {name_of(k) for k in kernels()} == in_sources


_COVERAGE = """
import json, sys
from baccarat import warm
from baccarat.jit import is_reached
from baccarat.report.demo import run_demo
from baccarat import Run, backtest
for exercise in warm.EXERCISES.values():
    exercise()
found = [k for k in warm.kernels() if not warm.inlined(k)]
unreached = [warm.name_of(k) for k in found
             if not is_reached(k) and warm.name_of(k) not in warm.FIRST_USE]
before = {warm.name_of(k): sorted(map(str, k.signatures)) for k in found}
run_demo(sys.argv[1] + "/demo", shoes=20)
backtest(strategies=["counter"], shoes=2, seed=0, run=Run(out=sys.argv[1] + "/counter"))
backtest(strategies=["martingale"], shoes=2, seed=0,
         run=Run(out=sys.argv[1] + "/none", ledger=False))
after = {warm.name_of(k): sorted(map(str, k.signatures)) for k in found}
print(json.dumps({"unreached": unreached,
                  "new": {n: s for n, s in after.items() if s != before[n]}}))
"""


def test_the_exercises_reach_every_kernel_with_the_types_the_commands_use(tmp_path):
    """Every kernel found is reached by the warm-up's exercises, and a demo,
    a counter and a ``--ledger none`` run afterwards need no other specialisation: what
    ``baccarat warm`` puts in the cache is what a first run loads. (Signatures are compared
    in the process, so the check does not depend on what numba's cache held before.)"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", _COVERAGE, str(tmp_path)], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {"unreached": [], "new": {}}


def test_baccarat_warm_reports_every_kernel_cached(tmp_path):
    """The command itself (its exercises run in processes of their own when something is
    not cached yet): afterwards every kernel found is cached, none left out, and the
    modules' bytecode is written (even where Python would not write it as it imports)."""
    import importlib.util

    source = ROOT / "engine" / "report" / "figures.py"
    bytecode = Path(importlib.util.cache_from_source(str(source)))
    bytecode.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    warm = subprocess.run([sys.executable, "-m", "baccarat.cli", "warm", "--verbose"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    assert "not reached" not in warm.stdout and "not compiled" not in warm.stdout
    assert bytecode.exists()
    from baccarat.warm import FIRST_USE
    assert set(FIRST_USE) <= {line.strip().split(":")[0] for line in warm.stdout.splitlines()
                              if "no command runs it" in line or "already cached" in line}
    from baccarat.warm import inlined, kernels, name_of
    named = {line.strip().split(":")[0] for line in warm.stdout.splitlines()
             if line.startswith("  ")}
    assert named == {name_of(k) for k in kernels()}
    assert {name_of(k) for k in kernels() if inlined(k)} <= {
        line.strip().split(":")[0] for line in warm.stdout.splitlines()
        if line.endswith("compiled into their callers")}


def test_warm_says_how_many_kernels_are_in_the_cache_as_its_exercises_go(tmp_path,
                                                                          monkeypatch):
    """``progress(cached, total)`` moves kernel by kernel as the exercises fill numba's
    cache (the command's bar), not only at the end: two fresh kernels, one exercise each."""
    (tmp_path / "fresh_kernels.py").write_text(
        "from baccarat.jit import njit\n\n"
        "@njit(cache=True)\ndef one(x):\n    return x + 1\n\n"
        "@njit(cache=True)\ndef two(x):\n    return x * 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import fresh_kernels
    from baccarat import warm
    monkeypatch.setattr(warm, "kernels", lambda: [fresh_kernels.one, fresh_kernels.two])
    monkeypatch.setattr(warm, "PHASES", (("one",), ("two",)))
    monkeypatch.setattr(warm, "EXERCISES", {"one": lambda: fresh_kernels.one(1),
                                            "two": lambda: fresh_kernels.two(1)})
    monkeypatch.setattr(warm, "compile_bytecode", lambda: None)
    monkeypatch.setattr(warm.CacheCount, "EVERY", 0)
    calls: list[tuple[int, int]] = []
    report = warm.warm(processes=1, progress=lambda n, total: calls.append((n, total)))
    assert calls == [(1, 2), (2, 2), (2, 2)]
    assert sorted(report.compiled) == ["fresh_kernels.one", "fresh_kernels.two"]
