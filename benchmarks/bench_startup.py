"""Start-up and first-run times of the ``baccarat`` command, whole process.

Each command is run ``--repeat`` times in a fresh process; the script prints the median
wall time, the median CPU time (user + system: what load on a shared machine distorts
least) and the median peak resident memory of each, against the targets:

- ``baccarat --help`` and ``baccarat COMMAND --help``: under 0.3 s and 80 MB;
- ``baccarat odds`` (8 decks, exact) and ``baccarat strategies``: under 0.6 s;

plus ``import baccarat.cli`` timed inside the interpreter. ``--first-run`` also times the
first ``baccarat demo`` of a fresh install: the package sources are copied to a temporary
folder without any compiled cache (numba's ``*.nbi``/``*.nbc`` files live in
``__pycache__`` next to the sources, with Python's own ``*.pyc``: a fresh clone has
neither), the demo is run there once (compiling every kernel it needs) and then again
(loading them from the cache); then, in another fresh copy, ``baccarat warm`` (the
install step that compiles every kernel ahead of time) and the first demo after it.
Target: first demo under 8 s.

    python benchmarks/bench_startup.py                 # start-up, medians of 5
    python benchmarks/bench_startup.py --first-run     # and the first demo (slow)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("backtest", "generate", "import", "odds", "report", "compare", "demo", "roads",
            "strategies", "trace", "check-strategy", "new-strategy", "analyze", "warm")
TARGETS = {"--help": (0.3, 80), "odds": (0.6, None), "strategies": (0.6, None)}


def command() -> list[str]:
    """The installed ``baccarat`` script next to this Python, else ``python -m baccarat.cli``."""
    script = Path(sys.executable).with_name("baccarat")
    return [str(script)] if script.exists() else [sys.executable, "-m", "baccarat.cli"]


def run_once(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one run of ``baccarat ARGS`` in a fresh process."""
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        child = subprocess.Popen([*command(), *args], env=env, cwd=cwd,
                                 stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            stderr.seek(0)
            raise SystemExit(f"baccarat {' '.join(args)} failed ({child.returncode}): "
                             f"{stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def medians(args: list[str], repeat: int, env: dict[str, str], cwd: Path) -> dict[str, float]:
    """Medians over ``repeat`` runs, after one unmeasured run (numba's cache filled)."""
    run_once(args, env, cwd)
    runs = [run_once(args, env, cwd) for _ in range(repeat)]
    return {"wall": statistics.median(r[0] for r in runs),
            "cpu": statistics.median(r[1] for r in runs),
            "rss": statistics.median(r[2] for r in runs)}


def import_seconds(repeat: int, env: dict[str, str]) -> float:
    """Median seconds of ``import baccarat.cli`` inside a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import baccarat.cli; " \
           "print(time.perf_counter() - t)"
    return statistics.median(
        float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout) for _ in range(repeat))


def available(env: dict[str, str]) -> list[str]:
    code = ("from baccarat.cli import app; from typer.main import get_command; "
            "print(' '.join(get_command(app).list_commands(None)))")
    names = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    return [c for c in COMMANDS if c in names]


def fresh_copy(target: Path) -> Path:
    """The package sources under ``target`` with no compiled cache: a fresh install."""
    for package in ("engine", "strategies"):
        shutil.copytree(ROOT / package, target / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return target


def first_run(env: dict[str, str]) -> dict[str, dict[str, float]]:
    """The first and second demo of a fresh copy; then, in another fresh copy, the
    ``baccarat warm`` install step and the first demo after it. CPU times include the
    helper processes (the demo's and warm's), which the command waits for."""
    result = {}
    for steps in ((("first demo", "demo"), ("second demo", "demo")),
                  (("baccarat warm", "warm"), ("first demo after warm", "demo"))):
        with tempfile.TemporaryDirectory() as tmp:
            copy = fresh_copy(Path(tmp) / "src")
            fresh_env = {**env, "PYTHONPATH": str(copy)}
            fresh_env.pop("NUMBA_CACHE_DIR", None)
            out = Path(tmp)
            for i, (name, step) in enumerate(steps):
                args = ["demo", "--out", str(out / f"demo{i}"), "--quiet"] if step == "demo" \
                    else ["warm"]
                wall, cpu, rss = run_once(args, fresh_env, out)
                result[name] = {"wall": wall, "cpu": cpu, "rss": rss}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--first-run", action="store_true",
                        help="also time the first and second demo of a fresh install")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    figures: dict[str, object] = {"import baccarat.cli": import_seconds(args.repeat, env)}
    with tempfile.TemporaryDirectory() as tmp:
        runs = [["--help"]] + [[c, "--help"] for c in available(env)] + [["odds"],
                                                                         ["strategies"]]
        for run in runs:
            figures["baccarat " + " ".join(run)] = medians(run, args.repeat, env, Path(tmp))
    if args.first_run:
        figures["first demo"] = first_run(env)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2 cores: above 1-2 the "
          f"wall times are inflated; CPU times less so)")
    print(f"import baccarat.cli: {figures['import baccarat.cli']:.3f} s (median of {args.repeat})")
    print(f"{'command':36} {'wall s':>7} {'CPU s':>7} {'RSS MB':>7}  target")
    for name, value in figures.items():
        if not name.startswith("baccarat"):
            continue
        assert isinstance(value, dict)
        key = "--help" if name.endswith("--help") else name.split()[-1]
        seconds, mb = TARGETS.get(key, (None, None))
        target = (f"< {seconds} s" if seconds else "") + (f", < {mb} MB" if mb else "")
        print(f"{name:36} {value['wall']:7.3f} {value['cpu']:7.3f} {value['rss']:7.1f}  "
              f"{target}")
    if args.first_run:
        runs_ = figures["first demo"]
        assert isinstance(runs_, dict)
        for name, value in runs_.items():
            target = " (target: < 8 s)" if name.startswith("first demo") else ""
            print(f"{name} of a fresh copy: {value['wall']:.1f} s wall, "
                  f"{value['cpu']:.1f} s CPU, {value['rss']:.0f} MB{target}")


if __name__ == "__main__":
    main()
