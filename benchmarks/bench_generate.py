"""Throughput and memory of generating and dealing shoes, on one core.

Times ``iter_generated`` (seeded shuffle + deal, chunk by chunk, into ``Coups`` columns) over
``--shoes`` shoes, excluding the Parquet write unless ``--write`` is given, in which case it
times the whole ``baccarat generate --workers 1`` command (in-process, into a temporary
folder). Reports
coups/second per run and the median over ``--repeat`` runs (wall clock, and per CPU-second,
which a busy machine does not distort) and the process's peak resident memory.

Peak memory is a high-water mark of the whole process, so comparing shoe counts needs one
process per count: ``--memory-scan 100000,1000000`` reruns this script in a fresh process for
each count and prints their peaks side by side; with chunked generation they should match.

Run: ``NUMBA_NUM_THREADS=1 python benchmarks/bench_generate.py`` (see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from baccarat.deal import generate_coups, iter_generated  # noqa: E402
from baccarat.rules import TableRules  # noqa: E402

TARGET_COUPS_PER_SECOND = 5_000_000


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 2**20


def time_deal(rules: TableRules, seed: int, shoes: int, chunk: int) -> tuple[int, float, float]:
    """Generate and deal ``shoes`` shoes in chunks; returns (coups, wall s, CPU s)."""
    coups = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for part in iter_generated(rules, seed, shoes, chunk):
        coups += len(part)
    return coups, time.perf_counter() - wall, time.process_time() - cpu


def time_cli_write(rules: TableRules, seed: int, shoes: int, chunk: int,
                   folder: Path) -> tuple[int, float, float]:
    """Run ``baccarat generate --workers 1`` in-process into ``folder`` (a dataset folder of
    Parquet parts); returns (coups, wall s, CPU s)."""
    import pyarrow.parquet as pq
    import typer
    from baccarat.cli import app
    from baccarat.io.parquet import parquet_files

    out = folder / "coups"
    args = ["generate", "--shoes", str(shoes), "--seed", str(seed), "--chunk", str(chunk),
            "--decks", str(rules.decks), "--out", str(out), "--workers", "1", "--quiet",
            "--force"]
    wall, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):  # the command's closing line
        typer.main.get_command(app).main(args, standalone_mode=False)
    elapsed, used = time.perf_counter() - wall, time.process_time() - cpu
    coups = sum(pq.ParquetFile(part).metadata.num_rows for part in parquet_files(out))
    return coups, elapsed, used


def run(args: argparse.Namespace) -> dict:
    """The timed runs; prints a line per run and returns the summary."""
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})
    rules = TableRules(decks=args.decks)
    generate_coups(rules, args.seed, np.arange(4))  # compile, or load the numba cache
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench_generate_") as folder:
        for i in range(args.repeat):
            if args.write:
                coups, wall, cpu = time_cli_write(rules, args.seed, args.shoes, args.chunk,
                                                  Path(folder))
            else:
                coups, wall, cpu = time_deal(rules, args.seed, args.shoes, args.chunk)
            runs.append({"coups": coups, "seconds": wall, "cpu_seconds": cpu,
                         "coups_per_second": coups / wall,
                         "coups_per_cpu_second": coups / max(cpu, 1e-9)})
            if not args.json:
                print(f"run {i + 1}/{args.repeat}: {coups:,} coups in {wall:.2f}s "
                      f"= {coups / wall / 1e6:.2f}M coups/s (CPU {cpu:.2f}s, "
                      f"{coups / max(cpu, 1e-9) / 1e6:.2f}M coups per CPU-second)", flush=True)
    rates = [r["coups_per_second"] for r in runs]
    cpu_rates = [r["coups_per_cpu_second"] for r in runs]
    return {
        "what": "generate+deal+write (CLI)" if args.write else "generate+deal (no write)",
        "shoes": args.shoes, "chunk": args.chunk, "decks": args.decks, "repeat": args.repeat,
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
        "median_coups_per_second": statistics.median(rates),
        "min_coups_per_second": min(rates), "max_coups_per_second": max(rates),
        "median_coups_per_cpu_second": statistics.median(cpu_rates),
        "peak_rss_mb": peak_rss_mb(), "runs": runs,
    }


def memory_scan(args: argparse.Namespace) -> None:
    """Peak memory for each shoe count, each measured in a fresh process."""
    print(f"peak memory by number of shoes (chunk {args.chunk:,} shoes, one process each):")
    for shoes in (int(s) for s in args.memory_scan.split(",")):
        command = [sys.executable, __file__, "--shoes", str(shoes), "--chunk", str(args.chunk),
                   "--decks", str(args.decks), "--repeat", "1", "--json"]
        if args.write:
            command.append("--write")
        result = json.loads(subprocess.run(command, check=True, capture_output=True,
                                           text=True).stdout)
        print(f"  {shoes:>12,} shoes: {result['runs'][0]['coups']:>13,} coups, "
              f"{result['median_coups_per_second'] / 1e6:5.2f}M coups/s, "
              f"peak RSS {result['peak_rss_mb']:7.1f} MiB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shoes", type=int, default=1_000_000, help="shoes per run")
    parser.add_argument("--chunk", type=int, default=50_000, help="shoes per chunk")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the median is reported")
    parser.add_argument("--decks", type=int, default=8, help="decks per shoe")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--write", action="store_true",
                        help="time the whole `baccarat generate` command, Parquet write included")
    parser.add_argument("--pin", type=int, default=None, metavar="CPU",
                        help="pin the process to this CPU")
    parser.add_argument("--memory-scan", default=None, metavar="N,M,...",
                        help="peak memory for each shoe count, one fresh process each")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON only")
    args = parser.parse_args()
    if args.memory_scan:
        memory_scan(args)
        return
    summary = run(args)
    if args.json:
        print(json.dumps(summary))
        return
    median = summary["median_coups_per_second"]
    print(f"{summary['what']}: {args.shoes:,} shoes of {args.decks} decks in chunks of "
          f"{args.chunk:,}, NUMBA_NUM_THREADS={summary['numba_threads']}")
    print(f"median {median / 1e6:.2f}M coups/s over {args.repeat} runs "
          f"(min {summary['min_coups_per_second'] / 1e6:.2f}M, "
          f"max {summary['max_coups_per_second'] / 1e6:.2f}M); "
          f"median {summary['median_coups_per_cpu_second'] / 1e6:.2f}M coups per CPU-second; "
          f"peak RSS {summary['peak_rss_mb']:.1f} MiB")
    print("(wall-clock rates fall when other processes share the CPU; the per-CPU-second "
          "rate does not)")
    if not args.write:
        verdict = "meets" if median >= TARGET_COUPS_PER_SECOND else "MISSES"
        print(f"{verdict} the target of {TARGET_COUPS_PER_SECOND / 1e6:.0f}M coups/s")


if __name__ == "__main__":
    main()
