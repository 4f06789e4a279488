"""Times of ``baccarat search`` at the sizes the issue names, with each stage's share.

- ``grid``: the 39-configuration grid (streak n=1..8, follow, chop, the three road
  followers, Martingale with 3-7 doublings on both sides, Grand Martingale, Fibonacci,
  D'Alembert, Paroli, Labouchere, Oscar's Grind and 1-3-2-6 on both sides, flat Banker
  and Player) over 300 fair shoes with ``--null 200`` (target: under 30 s);
- ``grid34``: the 34-configuration grid with rare bettors (``GRID_34``: streak n=6..9
  alone and with a Martingale, after ties, skip-first), the same way (target: under 30 s);
- ``sample``: 1,000 configurations drawn from a space of 1,580 (the staking systems over
  20 base stakes, 10 to 200, and their parameters, streak, follow, chop) over 10,000
  shoes with a 50/50 hold-out (target: under 60 s).

Each run is the whole ``search()`` call into a fresh folder (the dataset generated once,
before timing); the median of ``--repeat`` runs is printed with the machine's load.

    python benchmarks/bench_search.py grid --repeat 5
    python benchmarks/bench_search.py grid34 --repeat 3
    python benchmarks/bench_search.py sample --repeat 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

GRID = ["streak:n=[1,2,3,4,5,6,7,8]", "follow", "chop",
        "road:road=[big_eye_boy,small_road,cockroach_pig]",
        "martingale:max_doublings=[3,4,5,6,7],side=[banker,player]",
        "grand_martingale:side=[banker,player]", "fibonacci:side=[banker,player]",
        "dalembert:side=[banker,player]", "paroli:side=[banker,player]",
        "labouchere:side=[banker,player]", "oscars_grind:side=[banker,player]",
        "one_three_two_six:side=[banker,player]", "flat:side=[banker,player]"]

#: 34 configurations, some betting rarely (a streak of 6 to 9, after ties, after the
#: first coups of a shoe), the grid the issue's independent check used.
GRID_34 = ["streak:n=[1,2,3,4,5,6,7,8,9]", "streak:n=[6,7,8,9] | martingale",
           "after_ties:n=[2,3] | flat", "skip_first:n=[10,30,50] | flat", "follow", "chop",
           "martingale:max_doublings=[3,5],side=[banker,player]",
           "fibonacci:side=[banker,player]", "dalembert:side=[banker,player]",
           "paroli:side=[banker,player]", "flat:side=[banker,player]",
           "road:road=[big_eye_boy,small_road]"]

_BASES = "[" + ",".join(str(10 * i) for i in range(1, 21)) + "]"
SPACE = [f"martingale:base={_BASES},max_doublings=[1,2,3,4,5,6,7,8,9,10,11,12],"
         f"side=[banker,player]",
         f"grand_martingale:base={_BASES},max_doublings=[1,2,3,4,5,6],side=[banker,player]",
         f"paroli:base={_BASES},target_wins=[1,2,3,4,5,6],side=[banker,player]",
         f"dalembert:base={_BASES},unit=[1,2,5,10,20],side=[banker,player]",
         f"fibonacci:base={_BASES},side=[banker,player]",
         f"oscars_grind:base={_BASES},side=[banker,player]",
         f"one_three_two_six:base={_BASES},side=[banker,player]",
         f"flat:base={_BASES},side=[banker,player,tie]",
         f"streak:n=[1,2,3,4,5,6,7,8,9,10],base={_BASES}",
         f"follow:base={_BASES}", f"chop:base={_BASES}"]


def _dataset(folder: Path, shoes: int, seed: int) -> Path:
    import numpy as np
    from baccarat.deal import generate_coups
    from baccarat.io.parquet import write_coups
    from baccarat.rules import TableRules

    path = folder / f"fair{shoes}.parquet"
    write_coups(generate_coups(TableRules(), seed, np.arange(shoes, dtype=np.int64)), path,
                TableRules(), source="generated")
    return path


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the pool's workers)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=("grid", "grid34", "sample"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None,
                        help="backtest workers (default: the command's, all cores for "
                             "big runs)")
    parser.add_argument("--null", type=int, default=200, help="grid: fair datasets")
    args = parser.parse_args()
    from baccarat.search import search

    times = []
    with tempfile.TemporaryDirectory(prefix="bench-search-") as temp:
        folder = Path(temp)
        if args.case in ("grid", "grid34"):
            data = _dataset(folder, 300, 11)
            run = dict(strategies=GRID if args.case == "grid" else GRID_34, null=args.null)
        else:
            data = _dataset(folder, 10_000, 5)
            run = dict(strategies=SPACE, sample=1000, seed=1)
        for i in range(args.repeat):
            load = os.getloadavg()[0]
            cpu = _cpu()
            started = time.perf_counter()
            result = search(data, out=folder / f"s{i}", workers=args.workers,
                            **run)  # type: ignore[arg-type]
            took = time.perf_counter() - started
            times.append(took)
            stages = ", ".join(f"{k} {v:.1f}s" for k, v in result.document["timings"].items())
            print(f"run {i + 1}: {took:.1f}s wall, {_cpu() - cpu:.1f}s CPU with the "
                  f"workers ({stages}); load before {load:.1f}", flush=True)
    tried = result.document["space"]["tried"]
    print(f"{args.case}: {tried} configurations over {result.document['dataset']['shoes']:,} "
          f"shoes: median {statistics.median(times):.1f}s of {len(times)} runs "
          f"(min {min(times):.1f}s, max {max(times):.1f}s); load now "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
