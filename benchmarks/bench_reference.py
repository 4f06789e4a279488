"""The backtest hot path against the fastest honest loop: one compiled single-core kernel.

The reference (``reference_kernel`` below) does the least work a Martingale backtest over
generated shoes can do: for each shoe it shuffles the 8-deck shoe (the engine's seeded
Fisher-Yates, ``engine.shoe.shuffle_into``), burns by the standard procedure, deals coup
after coup by the drawing rules to the cut card (and the one coup after it), and settles
a Martingale on Banker (base 10, unlimited doublings, 5% commission, ties push) from a
bankroll of 1,000, one shoe per session, stopping at ruin when the bankroll cannot cover
the stake; it keeps each session's net, amount wagered, coups played and ruin. No coups
table, no ledger, no Parquet, no metrics: one pass, in registers.

Against it, the whole ``baccarat backtest`` process (start-up, generating and dealing the
shoes into a coups table, the replay of the built-in strategy, metrics, the run folder):

- built-in Martingale with ``--ledger none``: target at least half the reference's coups/s;
- the full ledger: at least 1.5M coups/s;
- a SimpleStrategy plugin (``examples/simple_martingale.py``): at least 250k coups/s.

Coups/s are medians of ``--repeat`` runs, by wall clock and per CPU-second (the CPU
figures are what a loaded machine distorts least); each backtest run follows a reference
pass over the same shoes, and the ratio is the median of the runs' ratios to their pass.
All on one core by default:
``--workers 1`` and ``NUMBA_NUM_THREADS=1`` (``--workers 2`` times the backtests on the
CLI's default two workers against the one-core reference, by wall clock: the pool's CPU
seconds are not all counted in the process's own).

    python benchmarks/bench_reference.py                    # 1M shoes, median of 3
    python benchmarks/bench_reference.py --shoes 200000 --repeat 5
    python benchmarks/bench_reference.py --shoes 1000000 --only none --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.cards import VALUE_OF_CODE, full_deck_codes  # noqa: E402
from engine.rules import TableRules  # noqa: E402
from engine.shoe import shuffle_into  # noqa: E402

SIMPLE_PLUGIN = ROOT / "examples" / "simple_martingale.py"


@numba.njit(cache=True)
def reference_kernel(template, values, seed, n_shoes, cut_from_end, extra_coups, base,
                     bankroll, commission, net, wagered, played, ruined):
    """Shuffle, burn, deal to the cut card and settle a Martingale, shoe after shoe.

    Returns the coups dealt (every coup of every shoe, as the backtest counts them).
    """
    n = template.shape[0]
    cards = np.empty(n, dtype=np.int8)
    total = 0
    for s in range(n_shoes):
        shuffle_into(template, cards, seed, np.uint64(s))
        shown = values[cards[0]]
        pos = 1 + (10 if shown == 0 else shown)  # the standard burn
        cut_index = n - cut_from_end
        extra = extra_coups
        money = bankroll
        k = 0
        session_net = 0.0
        session_wagered = 0.0
        coups = 0
        broke = False
        while True:
            if pos > cut_index:
                if extra == 0:
                    break
                extra -= 1
            if pos + 6 > n:  # not enough cards left for a whole coup of any shape
                break
            p1, b1, p2, b2 = cards[pos], cards[pos + 1], cards[pos + 2], cards[pos + 3]
            pos += 4
            pt = (values[p1] + values[p2]) % 10
            bt = (values[b1] + values[b2]) % 10
            if pt < 8 and bt < 8:
                third = -1
                if pt <= 5:
                    third = values[cards[pos]]
                    pos += 1
                    pt = (pt + third) % 10
                if third < 0:
                    draws = bt <= 5
                elif bt <= 2:
                    draws = True
                elif bt == 3:
                    draws = third != 8
                elif bt == 4:
                    draws = 2 <= third <= 7
                elif bt == 5:
                    draws = 4 <= third <= 7
                elif bt == 6:
                    draws = 6 <= third <= 7
                else:
                    draws = False
                if draws:
                    bt = (bt + values[cards[pos]]) % 10
                    pos += 1
            total += 1
            if broke:
                continue
            stake = base * (1 << k)
            if stake > money:
                broke = True
                continue
            coups += 1
            session_wagered += stake
            if bt > pt:
                money += stake * (1.0 - commission)
                session_net += stake * (1.0 - commission)
                k = 0
            elif pt > bt:
                money -= stake
                session_net -= stake
                k += 1
        net[s] = session_net
        wagered[s] = session_wagered
        played[s] = coups
        ruined[s] = broke
    return total


def run_reference(shoes: int, seed: int, rules: TableRules) -> tuple[float, float, int]:
    """(wall s, CPU s, coups) of one reference pass over ``shoes`` shoes."""
    net = np.empty(shoes)
    wagered = np.empty(shoes)
    played = np.empty(shoes, dtype=np.int64)
    ruined = np.empty(shoes, dtype=np.bool_)
    wall, cpu = time.perf_counter(), time.process_time()
    coups = reference_kernel(full_deck_codes(rules.decks), VALUE_OF_CODE, np.uint64(seed),
                             shoes, rules.cut_card, 1 if rules.extra_coup_after_cut else 0,
                             10.0, 1000.0, rules.banker_commission, net, wagered, played,
                             ruined)
    return time.perf_counter() - wall, time.process_time() - cpu, int(coups)


def run_command(args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of ``baccarat ARGS`` as a whole process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "1"}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "engine.cli", *args], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"baccarat {' '.join(args)} failed")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def backtest_rate(label: str, args: list[str], repeat: int, work: Path, rules: TableRules,
                  shoes: int, seed: int, workers: int = 1) -> dict[str, float]:
    """Median coups/s (wall, CPU) of a backtest command writing into a fresh folder, and
    the median of its ratios to a reference pass run just before each run.

    Pairing the runs matters on a machine whose speed drifts: the reference measured 16M
    and 24M coups/s within minutes here, so a ratio of medians taken minutes apart says
    more about the drift than about the backtest.
    """
    runs = []
    by = "cpu" if workers == 1 else "wall"
    for i in range(repeat):
        ref_wall, ref_cpu, ref_coups = run_reference(shoes, seed, rules)
        out = work / f"{label}-{i}"
        wall, cpu = run_command([*args, "--out", str(out), "--workers", str(workers),
                                 "--quiet"], work)
        counts = json.loads((out / "run.json").read_text())["counts"]
        coups = counts["coups"] * counts["configs"]
        reference = ref_coups / (ref_cpu if by == "cpu" else ref_wall)
        ours = coups / (cpu if by == "cpu" else wall)
        runs.append((coups / wall, coups / cpu, ours / reference))
    return {"wall": statistics.median(r[0] for r in runs),
            "cpu": statistics.median(r[1] for r in runs),
            "ratio": statistics.median(r[2] for r in runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=1_000_000)
    parser.add_argument("--simple-shoes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", nargs="+", choices=("none", "full", "simple"),
                        default=("none", "full", "simple"),
                        help="which backtests to time (default: all three)")
    parser.add_argument("--workers", type=int, default=1,
                        help="--workers of the backtests (the reference stays on one core; "
                        "the ratio is then by wall clock)")
    args = parser.parse_args()
    rules = TableRules()
    run_reference(100, args.seed, rules)  # compile or load the kernel
    passes = [run_reference(args.shoes, args.seed, rules) for _ in range(args.repeat)]
    coups = passes[0][2]
    figures = {"reference": {"wall": statistics.median(coups / p[0] for p in passes),
                             "cpu": statistics.median(coups / p[1] for p in passes),
                             "ratio": 1.0}}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base = ["backtest", "--shoes", str(args.shoes), "--seed", str(args.seed)]
        workers = args.workers
        label = "" if workers == 1 else f", {workers} workers"
        pair = {"rules": rules, "seed": args.seed, "workers": workers}
        if "none" in args.only:
            figures[f"martingale, --ledger none{label}"] = backtest_rate(
                "none", [*base, "-s", "martingale", "--ledger", "none"], args.repeat, work,
                shoes=args.shoes, **pair)
        if "full" in args.only:
            figures[f"martingale, full ledger{label}"] = backtest_rate(
                "full", [*base, "-s", "martingale"], args.repeat, work, shoes=args.shoes,
                **pair)
        if "simple" in args.only and SIMPLE_PLUGIN.exists():
            figures[f"SimpleStrategy plugin, --ledger none{label}"] = backtest_rate(
                "simple", ["backtest", "--shoes", str(args.simple_shoes), "--seed",
                           str(args.seed), "-s", f"{SIMPLE_PLUGIN}:SimpleMartingale",
                           "--ledger", "none"], args.repeat, work,
                shoes=args.simple_shoes, **pair)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    cores = "one core" if args.workers == 1 else f"backtests on {args.workers} workers"
    print(f"{args.shoes:,} shoes ({coups:,} coups), medians of {args.repeat}, {cores}, "
          f"load average {os.getloadavg()[0]:.1f}")
    # With worker processes the CPU seconds of the pool are not all the child's (a pool's
    # processes need not be its waited-for children): compare wall clocks then.
    by = "cpu" if args.workers == 1 else "wall"
    print(f"{'':40} {'M coups/s wall':>15} {'per CPU-s':>10} {f'ratio ({by})':>12}")
    for name, value in figures.items():
        cpu = f"{value['cpu'] / 1e6:10.2f}" if by == "cpu" or name == "reference" else \
            f"{'-':>10}"
        print(f"{name:40} {value['wall'] / 1e6:15.2f} {cpu} {value['ratio']:12.3f}")
    print("ratio: the median over the runs of each run's coups/s over that of a reference "
          "pass\nof the same shoes run just before it")
    print("targets: --ledger none at least 0.5 of the reference; full ledger 1.5M coups/s; "
          "SimpleStrategy 250k coups/s")


if __name__ == "__main__":
    main()
