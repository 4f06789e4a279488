"""The HTML report's time, its figures drawn in the process and by worker processes.

Backtests the demo's five systems over ``--shoes`` generated shoes once (with the ledger,
so every figure is drawn: 22 of them), then runs ``baccarat report`` on that run in a
fresh process ``--repeat`` times for each setting of ``BACCARAT_REPORT_WORKERS`` (0: every
figure drawn in the process; unset: the default, one worker per core up to two), in
turn, and prints the median wall time and the median CPU time of the whole process tree
(user + system of the process and its workers). The demo (``baccarat demo``) is timed the
same way with ``--demo``.

    python benchmarks/bench_report.py                  # 5,000 shoes, medians of 5
    python benchmarks/bench_report.py --demo --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baccarat import Run

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SETTINGS = {"in the process (BACCARAT_REPORT_WORKERS=0)": "0", "default (workers)": None}


def timed(args: list[str], workers: str | None, cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s of the process and its children) of ``python -m baccarat.cli ARGS``."""
    env = {k: v for k, v in os.environ.items() if k != "BACCARAT_REPORT_WORKERS"}
    env["PYTHONPATH"] = str(ROOT)
    if workers is not None:
        env["BACCARAT_REPORT_WORKERS"] = workers
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "baccarat.cli", *args], env=env, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--demo", action="store_true", help="time `baccarat demo` too")
    args = parser.parse_args()

    from baccarat import backtest
    from baccarat.report.demo import DEMO_SEED, DEMO_STRATEGIES

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        backtest(None, list(DEMO_STRATEGIES), shoes=args.shoes, seed=DEMO_SEED,
                 run=Run(out=folder / "run"))
        jobs = {"report": ["report", "run", "--out", "r.html", "--force", "-q"]}
        if args.demo:
            jobs["demo"] = ["demo", "--out", "demo", "--force", "-q"]
        for job, command in jobs.items():
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in SETTINGS}
            for _ in range(args.repeat):
                for name, workers in SETTINGS.items():
                    times[name].append(timed(command, workers, folder))
            print(f"baccarat {job} ({args.shoes:,} shoes where it reads a run), medians of "
                  f"{args.repeat}, load {os.getloadavg()[0]:.1f}:")
            for name, runs in times.items():
                wall = statistics.median(w for w, _ in runs)
                cpu = statistics.median(c for _, c in runs)
                print(f"  {name:45s} {wall:6.2f} s wall  {cpu:6.2f} s CPU")


if __name__ == "__main__":
    main()
