"""Backtest throughput: built-in strategies over generated 8-deck shoes.

Reports coups per second per configuration (median of --repeat runs), with and without
the ledger written, and for the simple form (a SimpleStrategy plugin without roads, and a
road follower reading ``view.roads``), plus the peak memory of the process.
The dataset is generated once up front and written to Parquet, so the timings cover
the backtest itself (reading the coups, replay, metrics, writing the run folder).

    python benchmarks/bench_backtest.py --shoes 1000000 --repeat 3
    python benchmarks/bench_backtest.py --simple-only --simple-shoes 20000 --repeat 5
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

from baccarat import Run, backtest  # noqa: E402
from baccarat.parallel import generate_dataset  # noqa: E402
from baccarat.rules import TableRules  # noqa: E402

SIMPLE_PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "simple_martingale.py"


def road_follower() -> object:
    """A simple-form road follower (bets the side that repeats the big eye boy's last
    mark): what reading ``view.roads`` costs per session and coup."""
    from baccarat.strategies.base import SessionView, SimpleStrategy

    class SimpleRoadFollower(SimpleStrategy):
        """Follow the big eye boy, one session at a time."""

        name = "simple_road_follower"
        needs_roads = True

        def bet(self, view: SessionView) -> dict[str, float]:
            roads = view.roads
            last = roads.last_colour(1)
            if last is None:
                return {}
            if roads.colour_if(1, "B") == last:
                return {"banker": self.base}
            return {"player": self.base} if roads.colour_if(1, "P") == last else {}

    return SimpleRoadFollower()


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_run(coups: Path, specs: list[str], ledger: bool, out: Path, repeat: int) -> list[float]:
    """Seconds of each of ``repeat`` backtests of ``specs`` over ``coups``."""
    seconds = []
    for i in range(repeat):
        started = time.perf_counter()
        backtest(coups, specs, run=Run(ledger=ledger, out=out / f"run-{ledger}-{i}", force=True))
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--simple-shoes", type=int, default=20_000,
                        help="shoes for the SimpleStrategy plugin run (it is slower)")
    parser.add_argument("--strategies", nargs="+", default=["flat", "martingale"])
    parser.add_argument("--simple-only", action="store_true",
                        help="time only the simple form (skip the built-ins)")
    parser.add_argument("--no-roads", action="store_true",
                        help="skip the simple form with roads (for engines without view.roads)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rules = TableRules()
        coups_path = work / "coups.parquet"
        shoes = 100 if args.simple_only else args.shoes
        coups = generate_dataset(coups_path, shoes=shoes, seed=2026, rules=rules)["coups"]
        print(f"dataset: {shoes:,} shoes, {coups:,} coups")
        backtest(coups_path, args.strategies, run=Run(ledger=False))  # warm up the compiled kernels
        for spec in [] if args.simple_only else args.strategies:
            for ledger in (False, True):
                seconds = time_run(coups_path, [spec], ledger, work, args.repeat)
                median = statistics.median(seconds)
                print(f"{spec:<12} ledger={'full' if ledger else 'none':<5} "
                      f"median {median:6.2f}s  {coups / median / 1e6:5.2f}M coups/s/config  "
                      f"(runs: {', '.join(f'{s:.2f}' for s in seconds)})")
        small = work / "small.parquet"
        n = generate_dataset(small, shoes=args.simple_shoes, seed=2026, rules=rules)["coups"]
        simple: list[tuple[str, object]] = [("no roads", f"{SIMPLE_PLUGIN}:SimpleMartingale")]
        if not args.no_roads:
            simple.append(("roads", road_follower()))
        for label, spec in simple:
            seconds = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                backtest(small, [spec], run=Run(ledger=False))  # type: ignore[list-item]
                seconds.append(time.perf_counter() - started)
            median = statistics.median(seconds)
            print(f"SimpleStrategy {label:<8} ledger=none median {median:6.2f}s  "
                  f"{n / median / 1e3:7.0f}k coups/s  "
                  f"(runs: {', '.join(f'{s:.2f}' for s in seconds)})")
    print(f"peak RSS {peak_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
