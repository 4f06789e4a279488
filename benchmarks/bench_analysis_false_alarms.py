"""Family-wise false alarm rate of ``analyze_coups`` on fair generated datasets.

Each trial generates a fair dataset from its own seed, analyses it against fair reference
datasets (another seed), and records whether any statistic stands out after Holm's
adjustment. Prints the rate with a 95% interval, and how often each statistic stood out.

    python benchmarks/bench_analysis_false_alarms.py --trials 200 --shoes 100 --reference 200
"""

from __future__ import annotations

import argparse
import collections
import math
import time

import numpy as np
from baccarat.analysis import analyze_coups
from baccarat.deal import generate_coups
from baccarat.rules import TableRules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--shoes", type=int, default=100)
    parser.add_argument("--reference", type=int, default=200)
    parser.add_argument("--table-shoes", type=int, default=None,
                        help="also test the carry-over statistic, shoes in tables of N")
    parser.add_argument("--verbose", action="store_true", help="a line per trial")
    args = parser.parse_args()
    rules = TableRules()
    alarms = 0
    by_statistic: collections.Counter[str] = collections.Counter()
    started = time.perf_counter()
    for trial in range(args.trials):
        coups = generate_coups(rules, 1_000_000 + trial, np.arange(args.shoes))
        analysis = analyze_coups(coups, rules, n_reference=args.reference, seed=trial,
                                 table_shoes=args.table_shoes)
        flagged = list(analysis.flagged["statistic"])
        alarms += bool(flagged)
        by_statistic.update(flagged)
        if args.verbose:
            print(f"trial {trial + 1}: {alarms} alarms so far {flagged}", flush=True)
    rate = alarms / args.trials
    half = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / args.trials)
    print(f"{args.trials} fair datasets of {args.shoes} shoes, {args.reference} reference "
          f"datasets each: {alarms} false alarms, rate {rate:.3f} "
          f"(95% interval {max(rate - half, 0):.3f} to {rate + half:.3f}) "
          f"in {time.perf_counter() - started:.0f}s")
    for name, count in by_statistic.most_common():
        print(f"  {name}: {count}")


if __name__ == "__main__":
    main()
