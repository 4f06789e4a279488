"""Family-wise false alarms of a search on fair shoes: adjusted verdicts against unadjusted.

Plays the issue's 39-configuration grid over ``--datasets`` independent fair datasets of
``--shoes`` generated shoes (all in one backtest, dataset b being shoes b x shoes + 0 ...),
and counts, per dataset, whether the search would tell the user that something wins:

- unadjusted, as ``backtest`` says it: any configuration whose realized edge is "outside"
  its 95% interval (two-sided), or any whose one-sided p of "beats" is below 5%;
- adjusted for the 39 tried: any below 5% after Holm (one-sided, as ``search``), after the
  Romano-Wolf step-down (``search``'s verdict), the SPA p-value of the best, and Holm over
  the two-sided edge verdicts (``backtest``'s family column).

On fair shoes every alarm is false. Prints each rate with its Wilson 95% interval.

    python benchmarks/bench_search_false_alarms.py --datasets 200 --shoes 300
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baccarat import Run, backtest  # noqa: E402
from baccarat.analysis.significance import holm  # noqa: E402
from baccarat.metrics import edge_p_value, edge_sums, wilson_interval  # noqa: E402
from baccarat.search.adjust import family_tests  # noqa: E402
from baccarat.search.metric import BASE_COLUMNS  # noqa: E402
from baccarat.search.sessions import read_sessions  # noqa: E402
from baccarat.search.space import Space  # noqa: E402
from bench_search import GRID  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--shoes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    configs = list(Space(GRID))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-alarms-") as temp:
        backtest(None, configs, shoes=args.shoes * args.datasets, seed=args.seed,
                 run=Run(ledger=False, out=Path(temp) / "run", workers=args.workers))
        matrix = read_sessions(Path(temp) / "run", len(configs), BASE_COLUMNS)
    played = time.perf_counter() - started
    k, n = len(configs), args.shoes
    counts = {name: 0 for name in ("outside, unadjusted (two-sided 95%)",
                                   "beats, unadjusted (one-sided 5%)",
                                   "outside, Holm (backtest's family column)",
                                   "beats, Holm (search)",
                                   "beats, Romano-Wolf step-down (search's verdict)",
                                   "best beats, SPA p < 5%",
                                   "best beats, Reality Check p < 5%")}
    keys = list(counts)
    for b in range(args.datasets):
        part = {name: values[:, b * n:(b + 1) * n] for name, values in matrix.columns.items()}
        net, wagered, expected = part["net"], part["wagered"], part["expected_net"]
        two_sided = []
        for c in range(k):  # backtest's verdict: its score test, two-sided
            e = float(expected[c].sum() / wagered[c].sum())
            p = edge_p_value(edge_sums(net[c], wagered[c]), e)
            two_sided.append(1.0 if math.isnan(p) else p)
        p2 = np.array(two_sided)
        tests = family_tests(net, wagered, expected, reps=args.reps, seed=b)
        flags = [(p2 < 0.05).any(), (tests.tests.p < 0.05).any(),
                 (holm(p2) < 0.05).any(), (tests.holm < 0.05).any(),
                 (tests.stepdown < 0.05).any(), tests.spa < 0.05, tests.reality_check < 0.05]
        for key, flag in zip(keys, flags, strict=True):
            counts[key] += bool(flag)
    print(f"{args.datasets} fair datasets of {args.shoes} shoes, {k} configurations each "
          f"(played in {played:.0f}s, tested in {time.perf_counter() - started - played:.0f}s)")
    for key in keys:
        count = counts[key]
        low, high = wilson_interval(count, args.datasets)
        print(f"  {key}: {count} of {args.datasets} = {count / args.datasets:.1%} "
              f"(95% interval {low:.1%} to {high:.1%})")


if __name__ == "__main__":
    main()
