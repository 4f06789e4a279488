"""The main process's peak memory against the number of shoes: it must stay flat.

Runs ``baccarat backtest -s flat -s martingale --ledger none --workers 1 --shoes N`` end to
end in a child process for each N (one fresh process each) and reports the peak resident
memory of that process (``VmHWM`` from /proc, read as it exits: the command's own process,
which deals, plays, writes the parts and computes the summary), its wall time, and the
sessions per configuration. With ``--workers 2`` the chunks run in a pool and the figure is
still the main process's (where the summary is computed).

    python benchmarks/bench_memory.py                          # 1M, 4M and 16M shoes
    python benchmarks/bench_memory.py --shoes 1000000 2000000  # other counts
    python benchmarks/bench_memory.py --workers 2 --json

Goal (issue 26): under 400 MB for all three counts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The command, with the peak memory of its process printed as it exits (after sys.exit).
CLI = """
import atexit, sys
def peak():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            print('PEAK_KB', line.split()[1], file=sys.stderr, flush=True)
atexit.register(peak)
from baccarat.cli import app
app(prog_name='baccarat')
"""


def measure(shoes: int, workers: int, strategies: list[str], folder: Path) -> dict[str, float]:
    """One run of ``shoes`` shoes; its wall seconds and the main process's peak MiB."""
    out = folder / f"run-{shoes}"
    args = ["backtest", *(a for s in strategies for a in ("-s", s)), "--ledger", "none",
            "--workers", str(workers), "--shoes", str(shoes), "--seed", "1", "--out", str(out),
            "-q", "--no-table"]
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", CLI, *args], cwd=ROOT, capture_output=True,
                         text=True)
    wall = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"backtest failed: {run.stderr}")
    peak = next(int(line.split()[1]) for line in run.stderr.splitlines()
                if line.startswith("PEAK_KB"))
    info = json.loads((out / "run.json").read_text())
    return {"shoes": shoes, "seconds": round(wall, 1), "peak_mib": round(peak / 1024, 1),
            "sessions": info["counts"]["sessions"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, nargs="+",
                        default=[1_000_000, 4_000_000, 16_000_000])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("-s", "--strategy", action="append",
                        help="strategies (default: flat and martingale)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    options = parser.parse_args()
    strategies = options.strategy or ["flat", "martingale"]
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as folder:
        for shoes in options.shoes:
            result = measure(shoes, options.workers, strategies, Path(folder))
            results.append(result)
            if not options.json:
                print(f"{shoes:>12,} shoes  {result['seconds']:>7.1f} s  main process peak "
                      f"{result['peak_mib']:>7.1f} MiB", flush=True)
            for old in Path(folder).glob("run-*"):
                subprocess.run(["rm", "-rf", str(old)], check=True)
    if options.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
