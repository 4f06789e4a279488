"""Benchmark of the exact odds: the full 8-deck table and the per-coup batch EV.

Run: ``python benchmarks/bench_odds.py [--sessions N] [--repeats R]``. Prints the first
call (numba compile or cache load), then the median of R runs of: the full 8-deck
computation (probabilities and every variant's house edges), one ``expected_values`` call,
``odds()`` of every bet and of the side bets for one composition by card,
``expected_values_batch`` over N distinct mid-shoe compositions (cost per composition), and
the grouped enumeration against the direct one it replaced (:mod:`baccarat.odds.reference`),
one thread, on the same compositions: microseconds per composition (wall and CPU; on a
loaded machine the CPU figure is the steadier one) and whether the tallies are identical;
then the polynomial tallies of chosen events (:mod:`baccarat.odds.polynomial`, what a
counter of one bet kind asks for) on the same compositions in batches of 64, as a replay
step asks, against the grouped enumeration of all seven events in the same batches.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np
from baccarat.odds import (
    SIDE_BETS,
    expected_values,
    expected_values_batch,
    house_edges,
    odds,
    outcome_probabilities,
    shoe_counts,
    shoe_rank_counts,
)
from baccarat.odds.enumeration import N_EVENTS, _tally_rows
from baccarat.odds.polynomial import event_tallies
from baccarat.odds.reference import _reference_rows
from baccarat.odds.side_bets import full_shoe_cards
from baccarat.rules import TableRules


def median_seconds(func: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``func``."""
    return median_wall_and_cpu(func, repeats)[0]


def median_wall_and_cpu(func: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall time and median CPU time (this process) of ``repeats`` calls of ``func``."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def bench_kernels(rows: np.ndarray, repeats: int) -> None:
    """The grouped enumeration against the direct reference, one thread, same rows."""
    fast = np.zeros((rows.shape[0], N_EVENTS), dtype=np.int64)
    slow = np.zeros_like(fast)
    _tally_rows(rows[:1], fast[:1])  # compile or load
    _reference_rows(rows[:1], slow[:1])
    n_slow = max(1, rows.shape[0] // 10)

    def run_fast() -> None:
        fast[:] = 0
        _tally_rows(rows, fast)

    def run_slow() -> None:
        slow[:n_slow] = 0
        _reference_rows(rows[:n_slow], slow[:n_slow])

    fast_wall, fast_cpu = median_wall_and_cpu(run_fast, repeats)
    slow_wall, slow_cpu = median_wall_and_cpu(run_slow, repeats)
    fast_us = fast_cpu / rows.shape[0] * 1e6
    slow_us = slow_cpu / n_slow * 1e6
    print(f"grouped enumeration, one thread, {rows.shape[0]:,} compositions: "
          f"{fast_wall / rows.shape[0] * 1e6:.1f} us wall, {fast_us:.1f} us CPU per composition")
    print(f"direct reference enumeration, {n_slow:,} of them: "
          f"{slow_wall / n_slow * 1e6:.1f} us wall, {slow_us:.1f} us CPU per composition; "
          f"{slow_us / fast_us:.1f}x; tallies identical: "
          f"{np.array_equal(fast[:n_slow], slow[:n_slow])}")


#: The events each line of :func:`bench_polynomial` asks for, by what needs them.
POLYNOMIAL_EVENTS = {"tie": (2,), "dragon7": (3,), "super6 (two-card + three-card 6)": (5, 6),
                     "banker, EZ (banker, player, dragon7)": (0, 1, 3)}


def bench_polynomial(rows: np.ndarray, repeats: int, batch: int = 64) -> None:
    """Polynomial tallies of chosen events against the grouped enumeration of all seven,
    both in batches of ``batch`` compositions, one thread, same rows."""
    grouped = np.zeros((rows.shape[0], N_EVENTS), dtype=np.int64)

    def run_grouped() -> None:
        grouped[:] = 0
        for first in range(0, rows.shape[0], batch):
            _tally_rows(rows[first:first + batch], grouped[first:first + batch])

    _, grouped_cpu = median_wall_and_cpu(run_grouped, repeats)
    per = grouped_cpu / rows.shape[0] * 1e6
    print(f"in batches of {batch}: grouped enumeration, all seven events: {per:.2f} us CPU "
          f"per composition")
    for label, events in POLYNOMIAL_EVENTS.items():
        event_tallies(rows[:batch], events)  # compile or load, and the coefficients
        got: list[np.ndarray] = []

        def run_polynomial(events: tuple[int, ...] = events,
                           got: list[np.ndarray] = got) -> None:
            got.clear()
            got.extend(event_tallies(rows[first:first + batch], events)
                       for first in range(0, rows.shape[0], batch))

        _, cpu = median_wall_and_cpu(run_polynomial, repeats)
        us = cpu / rows.shape[0] * 1e6
        same = np.array_equal(np.vstack(got), grouped[:, list(events)])
        print(f"  polynomial, {label}: {us:.2f} us CPU per composition, {per / us:.1f}x; "
              f"tallies identical: {same}")


def mid_shoe_compositions(n: int, decks: int, seed: int = 0) -> np.ndarray:
    """``n`` compositions of the cards left after dealing 10-300 cards of a shuffled shoe."""
    rng = np.random.default_rng(seed)
    shoe = np.repeat(np.arange(10), shoe_counts(decks))
    rows = np.empty((n, 10), dtype=np.int64)
    for i in range(n):
        dealt = rng.integers(10, min(300, shoe.size - 20))
        left = rng.permutation(shoe)[dealt:]
        rows[i] = np.bincount(left, minlength=10)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    variants = [TableRules(), TableRules(variant="ez"), TableRules(variant="super6")]
    full = shoe_rank_counts(8)

    start = time.perf_counter()
    outcome_probabilities(full)
    expected_values_batch(shoe_counts(8)[None, :], variants[0])
    print(f"first call (compile or cache load): {time.perf_counter() - start:.3f} s")
    print(f"numba threads: {numba.get_num_threads()}")

    def full_table() -> None:
        outcome_probabilities(full)
        for rules in variants:
            house_edges(rules)

    print(f"full 8-deck table (probabilities + 3 variants' edges): "
          f"{median_seconds(full_table, args.repeats) * 1e3:.3f} ms")
    single = median_seconds(lambda: expected_values(shoe_counts(8), variants[1]), args.repeats)
    print(f"expected_values, one composition: {single * 1e3:.3f} ms")
    cards = full_shoe_cards(8) - np.eye(52, dtype=np.int64)[np.arange(0, 52, 7)].sum(axis=0)
    for label, bets in (("every bet", None), ("the side bets", SIDE_BETS)):
        seconds = median_seconds(lambda b=bets: odds(cards, bets=b), args.repeats)
        print(f"odds(), {label}, one composition by card: {seconds * 1e3:.3f} ms")

    rows = mid_shoe_compositions(args.sessions, 8)
    n_unique = np.unique(rows, axis=0).shape[0]
    for parallel in (True, False):
        seconds = median_seconds(
            lambda p=parallel: expected_values_batch(rows, variants[1], parallel=p),
            max(3, args.repeats // 2),
        )
        print(f"expected_values_batch, {args.sessions:,} sessions ({n_unique:,} distinct), "
              f"parallel={parallel}: {seconds:.3f} s, "
              f"{seconds / args.sessions * 1e6:.1f} us per composition, "
              f"{args.sessions / seconds:,.0f} compositions/s")
    bench_kernels(rows, args.repeats)
    bench_polynomial(rows, args.repeats)


if __name__ == "__main__":
    main()
