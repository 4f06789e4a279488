"""Throughput of ``analyze_coups``: reference coups dealt and measured per second.

Generates ``--shoes`` fair card-level shoes, then times the whole analysis against
``--reference`` fair datasets (dealing them with the generator and computing every
statistic across all their shoes), ``--repeat`` times after a warm-up. Prints wall and CPU
seconds and reference coups per CPU-second (median of the runs).

    NUMBA_NUM_THREADS=1 python benchmarks/bench_analyze.py --shoes 200 --reference 500
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from baccarat.analysis import analyze_coups
from baccarat.deal import generate_coups
from baccarat.rules import TableRules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--reference", type=int, default=500)
    parser.add_argument("--table-shoes", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    coups = generate_coups(TableRules(), 1, np.arange(args.shoes))
    analyze_coups(coups, n_reference=20, table_shoes=args.table_shoes)  # warm-up: compile
    rates, walls, cpus = [], [], []
    for run in range(args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        analyze_coups(coups, n_reference=args.reference, seed=run,
                      table_shoes=args.table_shoes)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        reference_coups = len(coups) * args.reference
        rates.append(reference_coups / cpu)
        walls.append(wall)
        cpus.append(cpu)
        print(f"run {run + 1}: {wall:.1f}s wall, {cpu:.1f}s CPU, "
              f"{reference_coups / cpu / 1e6:.2f}M reference coups per CPU-second", flush=True)
    print(f"median: {statistics.median(walls):.1f}s wall, {statistics.median(cpus):.1f}s CPU, "
          f"{statistics.median(rates) / 1e6:.2f}M reference coups per CPU-second "
          f"({args.shoes} shoes, {len(coups):,} coups, {args.reference} reference datasets)")


if __name__ == "__main__":
    main()
