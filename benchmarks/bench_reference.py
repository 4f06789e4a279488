"""The backtest against the fastest honest loops: compiled single-core kernels.

Two loops do the least work a Martingale backtest over generated shoes can do: for each
shoe, shuffle the 8-deck shoe (the engine's seeded Fisher-Yates: SplitMix64 words,
Lemire's bounded integers, int8 cards), burn by the standard procedure, deal coup after
coup to the cut card (and the one coup after it) and settle a Martingale on Banker (base
10, unlimited doublings, 5% commission, ties push) from a bankroll of 1,000, one shoe per
session, stopping at ruin when the bankroll cannot cover the stake; each keeps every
session's net, amount wagered, coups played and ruin. No coups table, no ledger, no
Parquet, no metrics.

- ``issue_loop_kernel``, the reference of issue 21's targets: the loop the issue
  describes (about 26M coups/s there, three times a plain loop), the drawing rules as
  branches, one shoe at a time, each Fisher-Yates draw in turn (the engine's shuffle
  before issue 21, ``baccarat.shoe._shuffle_in_turn``).
- ``tuned_kernel``, the same work written as fast as we know how: every draw of a shoe
  made at once (``shuffle_with``), each coup dealt by one lookup in a table of the drawing
  rules (no branch on the cards), the Martingale as selects, two shoes side by side
  (where a coup starts depends on the coup before: two such chains keep the processor
  busy). About 2.1 times the issue's loop; both give the same sessions, checked before
  any timing.

Against them, the whole ``baccarat backtest`` process (start-up, generating and dealing
the shoes, the fused path or the replay, metrics, the run folder): built-in Martingale
and the composed ``streak:n=3 | martingale | stop:win=50,loss=200,per=shoe`` with
``--ledger none`` (issue 21's target: 0.8 of the issue's loop each), the full ledger
(1.5M coups/s) and a SimpleStrategy plugin (250k coups/s). As issue 21 reads its target,
both sides are whole processes pinned to one core (``--pin``): before each backtest
process, each loop runs as its own process (Python, numpy and numba started, the kernel
loaded from numba's cache, one pass over the same shoes), and a ratio is the median over
the runs of each run's coups per CPU-second over that of the loop's process just before
it (this machine's speed drifts by a third within minutes). ``--in-process`` adds the
backtests called in this process once warm against in-process passes of the loops: the
engine's own throughput, without start-up, which a long run or a search approaches.
``--workers 2`` runs the backtests on two worker processes and two cores, by wall clock
(a process pool's CPU seconds are not all counted in the parent's).

    python benchmarks/bench_reference.py                       # 300,000 shoes, median of 5
    python benchmarks/bench_reference.py --only none --in-process
    python benchmarks/bench_reference.py --only none --workers 2 --shoes 2000000
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

from baccarat import Run  # noqa: E402
from baccarat.cards import VALUE_OF_CODE, full_deck_codes  # noqa: E402
from baccarat.coups import BANKER, PLAYER, TIE  # noqa: E402
from baccarat.deal import banker_draws  # noqa: E402
from baccarat.rules import TableRules  # noqa: E402
from baccarat.shoe import _shuffle_in_turn, shoe_stream_state, shuffle_with  # noqa: E402

SIMPLE_PLUGIN = ROOT / "examples" / "simple_martingale.py"
#: Issue 21's composed built-in: a selection, a staking plan and per-shoe session rules.
COMPOSED = "streak:n=3 | martingale | stop:win=50,loss=200,per=shoe"


def outcome_table() -> np.ndarray:
    """Every coup by the drawing rules (``baccarat.deal.banker_draws``): at index ((Player's
    two-card total * 10 + Banker's) * 10 + the fifth card's value) * 10 + the sixth's, the
    outcome << 3 | the cards the coup takes (4 to 6)."""
    table = np.empty(10 ** 4, dtype=np.int16)
    for p in range(10):
        for b in range(10):
            natural = p >= 8 or b >= 8
            for fifth in range(10):
                player_draws = not natural and p <= 5
                pt = (p + fifth) % 10 if player_draws else p
                third = fifth if player_draws else -1
                draws = not natural and bool(banker_draws.py_func(b, third))
                for sixth in range(10):
                    bt = (b + (sixth if player_draws else fifth)) % 10 if draws else b
                    outcome = BANKER if bt > pt else (PLAYER if pt > bt else TIE)
                    table[((p * 10 + b) * 10 + fifth) * 10 + sixth] = \
                        outcome << 3 | (4 + player_draws + draws)
    return table


@numba.njit(cache=True, inline="always")
def _coup(cards, pos, table):
    """The table entry of the coup dealt from ``cards[pos:pos + 6]`` (card values)."""
    p = np.int64(cards[pos]) + cards[pos + 2]
    b = np.int64(cards[pos + 1]) + cards[pos + 3]
    p -= 10 * (p >= 10)
    b -= 10 * (b >= 10)
    return table[((p * 10 + b) * 10 + cards[pos + 4]) * 10 + cards[pos + 5]]


@numba.njit(cache=True, inline="always")
def _martingale_coup(cards, n, table, cut, pos, extra, money, k, broke, net, wagered, played,
                     base, commission):
    """One coup of one shoe and its Martingale bet; (dealt, and the lane's new state)."""
    if pos + 6 > n or (pos > cut and extra == 0):
        return False, pos, extra, money, k, broke, net, wagered, played
    extra -= pos > cut
    coup = _coup(cards, pos, table)
    pos += coup & 7
    stake = base * (1 << k)
    bets = (not broke) & (stake <= money)
    broke = not bets
    win = bets & ((coup >> 3) == BANKER)
    loss = bets & ((coup >> 3) == PLAYER)
    gain = stake * (1.0 - commission) * win - stake * loss
    money += gain
    net += gain
    wagered += stake * bets
    played += bets
    k = k * (1 - win - loss) + (k + 1) * loss
    return True, pos, extra, money, k, broke, net, wagered, played


@numba.njit(cache=True)
def tuned_kernel(template, table, seed, n_shoes, cut_from_end, extra_coups, base,
                     bankroll, commission, net, wagered, played, ruined):
    """Shuffle, burn, deal to the cut card and settle a Martingale, two shoes side by side.

    ``template`` holds the card values of the engine's ordered shoe (Fisher-Yates moves
    places whatever they hold). Returns the coups dealt (every coup of every shoe, as the
    backtest counts them).
    """
    n = template.shape[0]
    a = np.empty(n, dtype=np.int8)
    b = np.empty(n, dtype=np.int8)
    scratch = np.empty(n, dtype=np.uint64)
    cut = n - cut_from_end
    total = 0
    for s in range(0, n_shoes, 2):
        pair = s + 1 < n_shoes
        shuffle_with(template, a, seed, np.uint64(s), scratch)
        pa = 1 + (10 if a[0] == 0 else a[0])  # the standard burn
        ea, ma, ka, ba, na, wa, ca = extra_coups, bankroll, 0, False, 0.0, 0.0, 0
        on_a = True
        on_b = pair
        pb, eb, mb, kb, bb, nb, wb, cb = 0, extra_coups, bankroll, 0, False, 0.0, 0.0, 0
        if pair:
            shuffle_with(template, b, seed, np.uint64(s + 1), scratch)
            pb = 1 + (10 if b[0] == 0 else b[0])
        while on_a | on_b:
            if on_a:
                on_a, pa, ea, ma, ka, ba, na, wa, ca = _martingale_coup(
                    a, n, table, cut, pa, ea, ma, ka, ba, na, wa, ca, base, commission)
                total += on_a
            if on_b:
                on_b, pb, eb, mb, kb, bb, nb, wb, cb = _martingale_coup(
                    b, n, table, cut, pb, eb, mb, kb, bb, nb, wb, cb, base, commission)
                total += on_b
        net[s], wagered[s], played[s], ruined[s] = na, wa, ca, ba
        if pair:
            net[s + 1], wagered[s + 1], played[s + 1], ruined[s + 1] = nb, wb, cb, bb
    return total


@numba.njit(cache=True)
def issue_loop_kernel(template, values, seed, n_shoes, cut_from_end, extra_coups, base,
                      bankroll, commission, net, wagered, played, ruined):
    """The loop issue 21 describes: card codes, the drawing rules as branches, one shoe
    at a time (this file's only loop before issue 21)."""
    n = template.shape[0]
    cards = np.empty(n, dtype=np.int8)
    total = 0
    for s in range(n_shoes):
        _shuffle_in_turn(template, cards, shoe_stream_state(seed, np.uint64(s)))
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


LOOPS = ("issue loop", "tuned loop")


def run_loop(loop: str, shoes: int, seed: int, rules: TableRules,
             out: tuple[np.ndarray, ...] | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s, coups) of one pass of ``loop`` over ``shoes`` shoes; ``out`` (net,
    wagered, played, ruined) receives the sessions."""
    if out is None:
        out = (np.empty(shoes), np.empty(shoes), np.empty(shoes, dtype=np.int64),
               np.empty(shoes, dtype=np.bool_))
    common = (np.uint64(seed), shoes, rules.cut_card, 1 if rules.extra_coup_after_cut else 0,
              10.0, 1000.0, rules.banker_commission, *out)
    codes = full_deck_codes(rules.decks)
    wall, cpu = time.perf_counter(), time.process_time()
    if loop == "tuned loop":
        coups = tuned_kernel(np.ascontiguousarray(VALUE_OF_CODE[codes]), _TABLE, *common)
    else:
        coups = issue_loop_kernel(codes, VALUE_OF_CODE, *common)
    return time.perf_counter() - wall, time.process_time() - cpu, int(coups)


_TABLE = outcome_table()


def check_loops_agree(shoes: int, seed: int, rules: TableRules) -> None:
    """Both loops deal the same coups and settle the same sessions (the tuned loop does
    the same work faster, not less of it)."""
    results = []
    for loop in LOOPS:
        out = (np.empty(shoes), np.empty(shoes), np.empty(shoes, dtype=np.int64),
               np.empty(shoes, dtype=np.bool_))
        coups = run_loop(loop, shoes, seed, rules, out)[2]
        results.append((coups, *out))
    for left, right in zip(*results, strict=True):
        if not np.array_equal(left, right):
            raise SystemExit("the tuned loop and the issue's loop disagree")


def run_command(args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of ``baccarat ARGS`` as a whole process (it inherits our pinning)."""
    return run_process(["-m", "baccarat.cli", *args], cwd)


def run_process(args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of ``python ARGS`` as a whole process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "1"}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python {' '.join(args)} failed")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def loop_process(loop: str, shoes: int, seed: int, cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, coups) of ``loop`` as a whole process: Python, numpy and numba
    started, the kernel loaded from numba's cache, one pass over ``shoes`` shoes."""
    with tempfile.NamedTemporaryFile("r", dir=cwd, suffix=".txt") as count:
        wall, cpu = run_process([__file__, "--pass", loop, str(shoes), count.name, "--seed",
                                 str(seed)], cwd)
        return wall, cpu, int(count.read())


def run_in_process(args: list[str], out: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, coups x configurations) of ``backtest()`` called in this process,
    with the arguments of ``baccarat backtest ARGS`` that this script passes."""
    from baccarat import backtest

    options = dict(zip(args[1::2], args[2::2], strict=False))
    wall, cpu = time.perf_counter(), time.process_time()
    result = backtest(None, [options["-s"]], shoes=int(options["--shoes"]),
                      seed=int(options["--seed"]),
                      run=Run(ledger=options.get("--ledger") != "none", out=out, workers=1))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    counts = result.info["counts"]
    return wall, cpu, counts["coups"] * counts["configs"]


def backtest_rate(label: str, args: list[str], repeat: int, work: Path, rules: TableRules,
                  shoes: int, seed: int, workers: int = 1,
                  in_process: bool = False) -> dict[str, float]:
    """Median coups/s (wall, CPU) of a backtest command writing into a fresh folder, and
    the medians of its ratios to a pass of each loop run just before it (by CPU time on
    one worker, by wall clock on more; ``in_process``: the backtest called in this
    process, once warm)."""
    runs = []
    by = "cpu" if workers == 1 else "wall"
    if in_process:
        run_in_process(args, work / f"{label}-warm")
    for i in range(repeat):
        passes = {loop: run_loop(loop, shoes, seed, rules) if in_process else
                  loop_process(loop, shoes, seed, work) for loop in LOOPS}
        out = work / f"{label}-{i}"
        if in_process:
            wall, cpu, coups = run_in_process(args, out)
        else:
            wall, cpu = run_command([*args, "--out", str(out), "--workers", str(workers),
                                     "--quiet"], work)
            counts = json.loads((out / "run.json").read_text())["counts"]
            coups = counts["coups"] * counts["configs"]
        ours = coups / (cpu if by == "cpu" else wall)
        ratios = {loop: ours / (c / (p_cpu if by == "cpu" else p_wall))
                  for loop, (p_wall, p_cpu, c) in passes.items()}
        runs.append((coups / wall, coups / cpu, ratios))
    return {"wall": statistics.median(r[0] for r in runs),
            "cpu": statistics.median(r[1] for r in runs),
            **{loop: statistics.median(r[2][loop] for r in runs) for loop in runs[0][2]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=300_000)
    parser.add_argument("--simple-shoes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", nargs="+", choices=("none", "composed", "full", "simple"),
                        default=("none", "composed", "full", "simple"),
                        help="which backtests to time (default: all four)")
    parser.add_argument("--workers", type=int, default=1,
                        help="--workers of the backtests (the loops stay on one core; "
                        "the ratio is then by wall clock)")
    parser.add_argument("--pin", type=int, default=0, metavar="CPU",
                        help="the core this script and one-worker backtests run on "
                        "(default 0; -1: no pinning); with --workers N, cores CPU..CPU+N-1")
    parser.add_argument("--in-process", action="store_true",
                        help="also time the backtests called in this process once warm")
    parser.add_argument("--pass", nargs=3, dest="one_pass", metavar=("LOOP", "SHOES", "FILE"),
                        help=argparse.SUPPRESS)  # one pass of a loop as its own process
    args = parser.parse_args()
    if args.one_pass is not None:
        loop, shoes, file = args.one_pass
        Path(file).write_text(str(run_loop(loop, int(shoes), args.seed, TableRules())[2]))
        return
    if args.pin >= 0:
        os.sched_setaffinity(0, set(range(args.pin, args.pin + max(args.workers, 1))))
    rules = TableRules()
    check_loops_agree(2_000, args.seed, rules)  # also compiles or loads the kernels
    figures: dict[str, dict[str, float]] = {}
    coups = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for loop in LOOPS:
            runs = [run_loop(loop, args.shoes, args.seed, rules) for _ in range(args.repeat)]
            coups = runs[0][2]
            figures[f"{loop}, in process"] = {
                "wall": statistics.median(coups / r[0] for r in runs),
                "cpu": statistics.median(coups / r[1] for r in runs)}
            runs = [loop_process(loop, args.shoes, args.seed, work)
                    for _ in range(args.repeat)]
            figures[f"{loop}, whole process"] = {
                "wall": statistics.median(coups / r[0] for r in runs),
                "cpu": statistics.median(coups / r[1] for r in runs)}
        base = ["backtest", "--shoes", str(args.shoes), "--seed", str(args.seed)]
        workers = args.workers
        label = "" if workers == 1 else f", {workers} workers"
        pair = {"rules": rules, "seed": args.seed, "workers": workers}
        chosen = []
        if "none" in args.only:
            chosen.append((f"martingale, --ledger none{label}", "none",
                           [*base, "-s", "martingale", "--ledger", "none"], args.shoes))
        if "composed" in args.only:
            chosen.append((f"composed, --ledger none{label}", "composed",
                           [*base, "-s", COMPOSED, "--ledger", "none"], args.shoes))
        if "full" in args.only:
            chosen.append((f"martingale, full ledger{label}", "full",
                           [*base, "-s", "martingale"], args.shoes))
        if "simple" in args.only and SIMPLE_PLUGIN.exists():
            chosen.append((f"SimpleStrategy plugin, --ledger none{label}", "simple",
                           ["backtest", "--shoes", str(args.simple_shoes), "--seed",
                            str(args.seed), "-s", f"{SIMPLE_PLUGIN}:SimpleMartingale",
                            "--ledger", "none"], args.simple_shoes))
        for name, key, command, shoes in chosen:
            figures[name] = backtest_rate(key, command, args.repeat, work, shoes=shoes, **pair)
            if args.in_process and workers == 1:
                figures[f"{name}, in process"] = backtest_rate(
                    f"{key}-in", command, args.repeat, work, shoes=shoes, in_process=True,
                    **pair)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    cores = "one core" if workers == 1 else f"backtests on {workers} workers"
    pinned = f", pinned to CPU {args.pin}" if args.pin >= 0 else ""
    print(f"{args.shoes:,} shoes ({coups:,} coups), medians of {args.repeat}, {cores}"
          f"{pinned}, load average {os.getloadavg()[0]:.1f}")
    by = "cpu" if workers == 1 else "wall"
    print(f"{'':45} {'M coups/s':>9} {'per CPU-s':>9} {'/ issue':>7} {'/ tuned':>7}")
    for name, value in figures.items():
        cpu = f"{value['cpu'] / 1e6:9.2f}" if by == "cpu" or "loop" in name else f"{'-':>9}"
        ratios = " ".join(f"{value[loop]:7.3f}" for loop in LOOPS if loop in value)
        print(f"{name:45} {value['wall'] / 1e6:9.2f} {cpu} {ratios}".rstrip())
    print(f"/ issue, / tuned: the median over the runs of each run's coups/s ({by}) over that\n"
          f"of the issue's (the tuned) loop over the same shoes just before it, run as a\n"
          f"whole process (in process for the backtests called in process)")
    print("targets: --ledger none (martingale, composed) 0.8 of the issue's loop; full "
          "ledger 1.5M coups/s; SimpleStrategy 250k coups/s")


if __name__ == "__main__":
    main()
