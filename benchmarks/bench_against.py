"""The same commands, whole processes, against another install of ``baccarat``.

Times each command in a fresh process with this checkout's ``baccarat`` and with
``--other`` (the ``baccarat`` script of another checkout's venv: the code before a change),
the two alternated run by run after one unmeasured run of each (numba's caches filled:
run ``baccarat warm`` in both first), and prints the medians of wall time and of CPU time
(the command and the children it waited for, user + system: what a loaded machine
distorts least) and their ratio. The commands are the start-up budgets and the jobs of
the "nothing borrowed" work: ``--help``, ``odds``, a 2,000-shoe backtest of the demo's
five systems, and Martingale over 300,000 shoes with ``--ledger none`` on one worker and
on two (a pool's workers are not children the command waits for, so that row's CPU
misses theirs: read its wall time).

    python benchmarks/bench_against.py --other ../before/.venv/bin/baccarat --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JOBS = {
    "--help": ["--help"],
    "odds": ["odds"],
    "demo's 5 systems, 2,000 shoes": [
        "backtest", "-s", "flat", "-s", "martingale", "-s", "fibonacci", "-s", "paroli",
        "-s", "follow", "--shoes", "2000", "--out", "{out}", "--force", "-q", "--no-table"],
    "martingale 300,000 shoes, --ledger none, 1 worker": [
        "backtest", "-s", "martingale", "--shoes", "300000", "--ledger", "none",
        "--workers", "1", "--out", "{out}", "--force", "-q", "--no-table"],
    "martingale 300,000 shoes, --ledger none, 2 workers": [
        "backtest", "-s", "martingale", "--shoes", "300000", "--ledger", "none",
        "--workers", "2", "--out", "{out}", "--force", "-q", "--no-table"],
}


def run_once(script: str, args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one run of ``script ARGS`` in a fresh process."""
    started = time.perf_counter()
    child = subprocess.Popen([script, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{script} {' '.join(args)} failed: "
                         f"{child.stderr.read().decode() if child.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other install's baccarat script")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="job names to run (a word of each)")
    args = parser.parse_args()
    this = str(Path(sys.executable).with_name("baccarat"))
    print(f"{'job':52} {'this wall':>9} {'other':>7} {'this CPU':>9} {'other':>7} "
          f"{'CPU ratio':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, job in JOBS.items():
            if args.only and not any(word in name for word in args.only):
                continue
            runs: dict[str, list[tuple[float, float]]] = {"this": [], "other": []}
            for i in range(args.repeat + 1):
                for label, script in (("this", this), ("other", args.other)):
                    result = run_once(script, [a.replace("{out}", f"{tmp}/{label}")
                                               for a in job], Path(tmp))
                    if i:  # the first of each is unmeasured
                        runs[label].append(result)
            wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
            cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
            print(f"{name:52} {wall['this']:9.2f} {wall['other']:7.2f} {cpu['this']:9.2f} "
                  f"{cpu['other']:7.2f} {cpu['this'] / cpu['other']:9.2f}", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
