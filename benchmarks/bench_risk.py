"""Times of exact risk at the sizes the issue names (warm: numba's kernels loaded, the
classes of coup enumerated, as in any run after its first configuration).

- ``martingale``: Martingale (base 10, bankroll 1,000, table maximum 1,000) over 80
  coups, the whole exact distribution (target: under 0.1 s);
- ``sizing``: the bankroll that Martingale needs for a 1% risk (``--size ruin=0.01``: the
  risk against every bankroll by backward induction, then the smallest from which on it
  stays at most 1%), counting ruin only and ruin or a bust (target: under 2 s);
- ``grid``: the exact distributions of a 39-configuration grid of the finite-state
  built-ins, sessions of one shoe, no check (target: under 10 s);
- ``cold``: the whole ``baccarat risk -s martingale --coups 80 --table-max 1000 --check
  0`` process, for the record (Python, imports, loading the kernels).

The median of ``--repeat`` runs is printed with the machine's load before each run, and
the CPU time of this process (under load the wall time waits for a core; a ``cold`` run's
work is in a child process, not counted there).

    python benchmarks/bench_risk.py martingale sizing grid cold --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

#: 39 configurations of the built-ins whose state is finite (Labouchere's line outgrows
#: the state limit over a whole shoe: it is exact over shorter sessions).
GRID = ["flat:side=[banker,player,tie]", "flat:base=25,side=[banker,player]",
        "martingale:side=[banker,player],max_doublings=[none,3,6]",
        "grand_martingale:side=[banker,player],max_doublings=[none,3]",
        "paroli:target_wins=[2,3,4]", "paroli:side=player,target_wins=[2,3]",
        "dalembert:side=[banker,player],unit=[none,5]", "fibonacci:side=[banker,player]",
        "oscars_grind:side=[banker,player]", "one_three_two_six:side=[banker,player]",
        "follow:per_shoe=[true,false]", "chop", "streak:n=[2,3,4,5]",
        "side_bet:bet=[player_pair,banker_pair]"]


def _median(name: str, runs: int, work: Callable[[], str]) -> float:
    times, cpus = [], []
    note = ""
    for i in range(runs):
        load = os.getloadavg()[0]
        started, cpu = time.perf_counter(), time.process_time()
        note = work()
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        print(f"  {name} run {i + 1}: {times[-1]:.3f}s (CPU {cpus[-1]:.3f}s); load before "
              f"{load:.1f}", flush=True)
    median = statistics.median(times)
    print(f"{name}: median {median:.3f}s of {runs} (min {min(times):.3f}s, max "
          f"{max(times):.3f}s; CPU of this process {statistics.median(cpus):.3f}s); {note}",
          flush=True)
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="+", choices=("martingale", "sizing", "grid", "cold"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from baccarat.replay import SessionPolicy
    from baccarat.risk.exact import exact_risk
    from baccarat.risk.job import RiskJob, configurations, run_risk
    from baccarat.rules import TableRules

    rules = TableRules(table_max=1000)
    policy = SessionPolicy(bankroll=1000)
    exact_risk("martingale", rules, policy, 80)  # warm: kernels and the classes of coup

    if "martingale" in args.cases:
        def martingale() -> str:
            found = exact_risk("martingale", rules, policy, 80)
            return (f"risk of ruin {found.figures['risk_of_ruin']:.6%}, busted "
                    f"{found.figures['bust_rate']:.4%}, {found.states} states, "
                    f"{found.cells:,} cells")
        _median("martingale, 80 coups", args.repeat, martingale)

    if "sizing" in args.cases:
        for busts in (False, True):
            def sizing(busts: bool = busts) -> str:
                job = RiskJob(["martingale"], rules, policy, 80, check=0,
                              size=("ruin", 0.01), count_busts=busts)
                (result,) = run_risk(job)
                s = result.sizing
                assert s is not None
                return (f"bankroll {s.value:,.2f} (risk {s.risk:.4%}; {s.neighbour:,.2f} has "
                        f"{s.neighbour_risk:.4%})")
            _median(f"sizing, {'ruin or bust' if busts else 'ruin'} at most 1%", args.repeat,
                    sizing)

    if "grid" in args.cases:
        n = len(configurations(GRID))

        def grid() -> str:
            results = run_risk(RiskJob(GRID, TableRules(), SessionPolicy(), None, check=0))
            exact = [r for r in results if r.exact is not None]
            slowest = max(results, key=lambda r: r.seconds)
            return (f"{len(exact)} of {n} exact; slowest {slowest.spec} "
                    f"{slowest.seconds:.2f}s")
        _median(f"grid of {n}", args.repeat, grid)

    if "cold" in args.cases:
        command = [sys.executable, "-m", "baccarat.cli", "risk", "-s", "martingale", "--coups",
                   "80", "--table-max", "1000", "--check", "0", "-q"]

        def cold() -> str:
            subprocess.run(command, check=True, capture_output=True)
            return "whole process"
        _median("baccarat risk (martingale, 80 coups, no check)", args.repeat, cold)


if __name__ == "__main__":
    main()
