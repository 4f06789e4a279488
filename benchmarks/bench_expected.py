"""The cost of pricing every coup from the cards left (``--expected exact``).

Backtests the same generated shoes with ``expected="auto"`` (full-shoe EV for strategies
that ignore the cards: a multiplication after the replay) and ``expected="exact"`` (the
cards left before each coup enumerated for every session that bets), and prints the
median seconds of each, the ratio, and the wall time per coup priced. CPU seconds are
printed beside wall seconds: on a loaded machine compare those.

    python benchmarks/bench_expected.py --shoes 2000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baccarat import Run, backtest  # noqa: E402
from baccarat.deal import generate_coups  # noqa: E402
from baccarat.rules import TableRules  # noqa: E402


def timed(coups, specs: list[str], expected: str, repeat: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``repeat`` backtests without a ledger."""
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        backtest(coups, specs, run=Run(expected=expected, ledger=False))
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--strategies", nargs="+", default=["flat"])
    args = parser.parse_args()
    rules = TableRules()
    coups = generate_coups(rules, 2026, list(range(args.shoes)))
    backtest(coups.take(slice(0, 500)), args.strategies,
             run=Run(expected="exact", ledger=False))  # warm
    print(f"dataset: {args.shoes:,} shoes, {len(coups):,} coups; {' '.join(args.strategies)}")
    results = {mode: timed(coups, args.strategies, mode, args.repeat)
               for mode in ("auto", "exact")}
    for mode, (wall, cpu) in results.items():
        print(f"expected={mode:<5} median {wall:7.2f}s wall, {cpu:7.2f}s CPU, "
              f"{len(coups) * len(args.strategies) / cpu / 1e3:8.1f}k coups/CPU-s")
    ratio = results["exact"][1] / results["auto"][1]
    extra = (results["exact"][1] - results["auto"][1]) / (len(coups) * len(args.strategies))
    print(f"exact / auto: {ratio:.1f}x CPU; {extra * 1e6:.0f} us of CPU per coup priced")


if __name__ == "__main__":
    main()
