"""Scale benchmarks: per-core throughput, 1 vs 2 workers, a 10M-shoe run's peak memory,
and grids of 100 configurations (Martingales; composed systems) in one pass against 100
separate runs.

Every measurement runs ``baccarat`` commands in child processes, end to end, as a user
would (process start, dataset, replay, metrics, Parquet writing); medians of ``--repeat``
runs. Peak memory is the largest total proportional set size (PSS) of the whole process
tree (the command, the pool's fork server and its workers), sampled every 0.2 s; the plain
RSS sum, which counts the shared libraries once per process, is printed beside it.

    python benchmarks/bench_scale.py                         # all (the 10M run takes minutes)
    python benchmarks/bench_scale.py --only workers grid     # skip the memory run
    python benchmarks/bench_scale.py --only workers --cases none   # 1 vs 2 workers, no ledger
    python benchmarks/bench_scale.py --only composed-grid    # issue 21's grid of systems
    python benchmarks/bench_scale.py --memory-shoes 1000000  # a smaller memory run

The separate runs of the grid comparison are extrapolated from ``--separate`` of them
(10 by default): each is the same command with one configuration, so 100 take 100 / N
times as long.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
CLI = "from baccarat.cli import app; app(prog_name='baccarat')"
GRID_BASES = [10, 15, 20, 25, 30, 35, 40, 45, 50, 55]
GRID_DOUBLINGS = list(range(1, 11))
GRID = (f"martingale:base=[{','.join(map(str, GRID_BASES))}],"
        f"max_doublings=[{','.join(map(str, GRID_DOUBLINGS))}]")
#: Issue 21's grid: 100 composed configurations (a selection, a staking plan, per-shoe
#: rules), 5 x 5 x 4.
COMPOSED_GRID = ("streak:n=1..5 | martingale:max_doublings=2..6 | "
                 "stop:win=[50,100,150,200],loss=200,per=shoe")


def composed_config(i: int) -> str:
    """The i-th configuration of ``COMPOSED_GRID`` (in the grid's order)."""
    n, doublings, win = 1 + i // 20, 2 + i // 4 % 5, (50, 100, 150, 200)[i % 4]
    return (f"streak:n={n} | martingale:max_doublings={doublings} | "
            f"stop:win={win},loss=200,per=shoe")


def baccarat(args: list[str], sample_memory: bool = True) -> tuple[float, float, float]:
    """Run ``baccarat ARGS``; returns (wall seconds, CPU seconds, peak MiB of the tree).

    Sampling the memory costs about 14 ms of CPU every 0.2 s (reading each process's
    page map): a run that keeps every core busy (two workers on two cores) is slowed by
    it, one process is not. ``sample_memory=False`` only waits (the peak is then 0).

    The CPU time is that of the processes the command waited for (exact for one process;
    a process pool's workers may be left out). The peak memory is the largest sum over the
    process tree of the proportional set size (PSS: a page shared by n processes counts
    1/n in each), sampled every 0.2 s; ``PEAK_RSS`` keeps the largest plain RSS sum, which
    counts shared pages (the imported libraries) once per process.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # The output goes to a file, not a pipe: a command that prints more than a pipe holds
    # (the summary of a grid of 100 configurations) would wait for this loop to read it.
    errors = tempfile.TemporaryFile()
    child = psutil.Popen([sys.executable, "-c", CLI, *args], cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=errors)
    peak_pss = peak_rss = 0.0
    while sample_memory and child.poll() is None:
        pss = rss = 0.0
        try:
            tree = [child, *child.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for process in tree:
            try:
                info = process.memory_full_info()
                pss += info.pss
                rss += info.rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        peak_pss = max(peak_pss, pss)
        peak_rss = max(peak_rss, rss)
        time.sleep(0.2)
    child.wait()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    errors.seek(0)
    err = errors.read()
    errors.close()
    if child.returncode != 0:
        raise SystemExit(f"baccarat {' '.join(args)} failed:\n{err.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    PEAK_RSS[0] = max(PEAK_RSS[0], peak_rss / 2**20)
    return wall, cpu, peak_pss / 2**20


PEAK_RSS = [0.0]


def coups_of(run: Path) -> tuple[int, float]:
    """The coups a finished run (or a generated dataset) went through, and the seconds it
    recorded for itself (from the start of the job, after the program started)."""
    if (run / "run.json").exists():
        info = json.loads((run / "run.json").read_text())
        return int(info["counts"]["coups"]), float(info["timings"]["seconds"])
    info = json.loads((run / "_dataset.json").read_text())
    return int(info["coups"]), float(info["seconds"])


JOB_SECONDS: list[float] = []


def median_run(args: list[str], out: Path, repeat: int,
               sample_memory: bool = True) -> tuple[float, float, float, int]:
    """Median wall and CPU seconds, the largest peak memory, and the coups of a command
    (``JOB_SECONDS`` gets the median of the seconds the job itself recorded)."""
    walls, cpus, peaks, jobs = [], [], [], []
    for _ in range(repeat):
        wall, cpu, peak = baccarat([*args, "--out", str(out), "--force", "-q"],
                                   sample_memory)
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
        jobs.append(coups_of(out)[1])
    JOB_SECONDS[:] = [statistics.median(jobs)]
    return statistics.median(walls), statistics.median(cpus), max(peaks), coups_of(out)[0]


def per_core(work: Path, shoes: int, repeat: int) -> None:
    print(f"\n== throughput of one process ({shoes:,} shoes, 8 decks, median of {repeat}) ==")
    cases = [
        ("generate + deal", ["generate", "--shoes", str(shoes), "--seed", "1"], 1),
        ("backtest flat, --ledger none", ["backtest", "-s", "flat", "--shoes", str(shoes),
                                          "--ledger", "none"], 1),
        ("backtest martingale, --ledger none", ["backtest", "-s", "martingale", "--shoes",
                                                str(shoes), "--ledger", "none"], 1),
        ("backtest flat + martingale, --ledger none", ["backtest", "-s", "flat", "-s",
                                                       "martingale", "--shoes", str(shoes),
                                                       "--ledger", "none"], 2),
        ("backtest flat, full ledger", ["backtest", "-s", "flat", "--shoes", str(shoes)], 1),
        ("backtest martingale, full ledger", ["backtest", "-s", "martingale", "--shoes",
                                              str(shoes)], 1),
    ]
    for label, args, configs in cases:
        wall, cpu, _, coups = median_run([*args, "--workers", "1"], work / "one", repeat)
        print(f"{label:<44} {wall:6.2f}s  {coups * configs / wall / 1e6:6.2f}M coups/s per "
              f"configuration  (CPU {cpu:.2f}s: {coups * configs / cpu / 1e6:.2f}M/s per core)")


#: The jobs of the 1 vs 2 workers comparison, by the name ``--cases`` takes.
WORKER_CASES = {
    "generate": ("generate", ["generate", "--seed", "1"]),
    "none": ("backtest flat + martingale, --ledger none",
             ["backtest", "-s", "flat", "-s", "martingale", "--ledger", "none"]),
    "full": ("backtest flat + martingale, full ledger",
             ["backtest", "-s", "flat", "-s", "martingale"]),
}


def workers(work: Path, shoes: int, repeat: int, cases: list[str]) -> None:
    """Each job with 1 and with 2 workers, the runs taken in turn (1, 2, 1, 2, ...) so a
    machine that slows down or speeds up meanwhile weighs on both alike; nothing samples
    their memory (it would take CPU from the two workers, not from the one)."""
    print(f"\n== --workers 1 vs 2 ({shoes:,} shoes, median of {repeat}, runs in turn) ==")
    for case in cases:
        label, args = WORKER_CASES[case]
        args = [*args, "--shoes", str(shoes)]
        runs: dict[int, list[tuple[float, float, float, int]]] = {1: [], 2: []}
        jobs: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(repeat):
            for count in (1, 2):
                runs[count].append(median_run([*args, "--workers", str(count)],
                                              work / f"w{count}", 1, sample_memory=False))
                jobs[count].append(JOB_SECONDS[0])
        one = statistics.median(run[0] for run in runs[1])
        two = statistics.median(run[0] for run in runs[2])
        job_one, job_two = statistics.median(jobs[1]), statistics.median(jobs[2])
        ratios = sorted(a[0] / b[0] for a, b in zip(runs[1], runs[2], strict=True))
        print(f"{label:<44} 1 worker {one:6.2f}s, 2 workers {two:6.2f}s: "
              f"{one / two:.2f}x  ({runs[2][0][3] / two / 1e6:.1f}M coups/s; each pair's "
              f"ratio {', '.join(f'{r:.2f}' for r in ratios)}); without starting the "
              f"program: {job_one:.2f}s vs {job_two:.2f}s, {job_one / job_two:.2f}x")


def memory(work: Path, shoes: int) -> None:
    print(f"\n== {shoes:,} shoes through flat and martingale, --ledger none, 2 workers ==")
    PEAK_RSS[0] = 0.0
    wall, cpu, peak, coups = median_run(
        ["backtest", "-s", "flat", "-s", "martingale", "--shoes", str(shoes), "--ledger",
         "none", "--workers", "2"], work / "big", 1)
    print(f"{coups:,} coups x 2 configurations in {wall:.1f}s ({coups * 2 / wall / 1e6:.1f}M "
          f"coups/s), peak memory of the process tree {peak:,.0f} MiB PSS "
          f"({PEAK_RSS[0]:,.0f} MiB counting shared pages once per process)")


def grid(work: Path, shoes: int, separate: int, repeat: int, composed: bool = False) -> None:
    what = "composed configurations" if composed else "configurations"
    print(f"\n== a grid of 100 {what} over {shoes:,} shoes (--ledger none) ==")
    base = ["backtest", "--shoes", str(shoes), "--ledger", "none"]
    spec = COMPOSED_GRID if composed else GRID
    one_pass, cpu, peak, coups = median_run([*base, "-s", spec], work / "grid", repeat)
    print(f"one pass: {one_pass:.1f}s ({coups * 100 / one_pass / 1e6:.1f}M configuration-coups"
          f"/s), peak memory {peak:,.0f} MiB")
    times = []
    for i in range(separate):
        k = i * 100 // separate  # spread over the grid
        spec = composed_config(k) if composed else \
            f"martingale:base={GRID_BASES[k % 10]},max_doublings={GRID_DOUBLINGS[k // 10 % 10]}"
        wall, _, _ = baccarat([*base, "-s", spec, "--out", str(work / "sep"), "--force", "-q"])
        times.append(wall)
    total = sum(times) * 100 / separate
    print(f"{separate} separate runs: {sum(times):.1f}s (median {statistics.median(times):.2f}s "
          f"each); 100 extrapolated: {total:.0f}s; one pass is {total / one_pass:.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+",
                        choices=["core", "workers", "memory", "grid", "composed-grid"],
                        default=["core", "workers", "memory", "grid", "composed-grid"])
    parser.add_argument("--shoes", type=int, default=1_000_000,
                        help="shoes of the throughput runs")
    parser.add_argument("--workers-shoes", type=int, default=2_000_000,
                        help="shoes of the 1 vs 2 workers runs")
    parser.add_argument("--cases", nargs="+", choices=list(WORKER_CASES),
                        default=list(WORKER_CASES), help="jobs of the 1 vs 2 workers runs")
    parser.add_argument("--memory-shoes", type=int, default=10_000_000)
    parser.add_argument("--grid-shoes", type=int, default=100_000)
    parser.add_argument("--separate", type=int, default=10,
                        help="separate runs timed for the grid comparison (extrapolated)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{psutil.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if "core" in args.only:
            per_core(work, args.shoes, args.repeat)
        if "workers" in args.only:
            workers(work, args.workers_shoes, args.repeat, args.cases)
        if "memory" in args.only:
            memory(work, args.memory_shoes)
        if "grid" in args.only:
            grid(work, args.grid_shoes, args.separate, args.repeat)
        if "composed-grid" in args.only:
            grid(work, args.grid_shoes, args.separate, args.repeat, composed=True)


if __name__ == "__main__":
    main()
