"""Backtest throughput: built-in strategies over generated 8-deck shoes.

Reports coups per second per configuration (median of --repeat runs), with and without
the ledger written, and for a SimpleStrategy plugin, plus the peak memory of the process.
The dataset is generated once up front and written to Parquet, so the timings cover
the backtest itself (reading the coups, replay, metrics, writing the run folder).

    python benchmarks/bench_backtest.py --shoes 1000000 --repeat 3
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.backtest import backtest  # noqa: E402
from engine.parallel import generate_dataset  # noqa: E402
from engine.rules import TableRules  # noqa: E402

SIMPLE_PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "simple_martingale.py"


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_run(coups: Path, specs: list[str], ledger: bool, out: Path, repeat: int) -> list[float]:
    """Seconds of each of ``repeat`` backtests of ``specs`` over ``coups``."""
    seconds = []
    for i in range(repeat):
        started = time.perf_counter()
        backtest(coups, specs, ledger=ledger, out=out / f"run-{ledger}-{i}", force=True)
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--simple-shoes", type=int, default=20_000,
                        help="shoes for the SimpleStrategy plugin run (it is slower)")
    parser.add_argument("--strategies", nargs="+", default=["flat", "martingale"])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rules = TableRules()
        coups_path = work / "coups.parquet"
        coups = generate_dataset(coups_path, shoes=args.shoes, seed=2026, rules=rules)["coups"]
        print(f"dataset: {args.shoes:,} shoes, {coups:,} coups")
        backtest(coups_path, args.strategies, ledger=False)  # warm up the compiled kernels
        for spec in args.strategies:
            for ledger in (False, True):
                seconds = time_run(coups_path, [spec], ledger, work, args.repeat)
                median = statistics.median(seconds)
                print(f"{spec:<12} ledger={'full' if ledger else 'none':<5} "
                      f"median {median:6.2f}s  {coups / median / 1e6:5.2f}M coups/s/config  "
                      f"(runs: {', '.join(f'{s:.2f}' for s in seconds)})")
        if SIMPLE_PLUGIN.exists():
            small = work / "small.parquet"
            n = generate_dataset(small, shoes=args.simple_shoes, seed=2026, rules=rules)["coups"]
            spec = f"{SIMPLE_PLUGIN}:SimpleMartingale"
            seconds = time_run(small, [spec], False, work, args.repeat)
            median = statistics.median(seconds)
            print(f"SimpleStrategy plugin ledger=none median {median:6.2f}s  "
                  f"{n / median / 1e3:7.0f}k coups/s")
    print(f"peak RSS {peak_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
