"""What a search's screen says on fair shoes, and whether it finds a planted edge.

Plays a grid over ``--datasets`` independent fair datasets of ``--shoes`` generated shoes
(all in one backtest, dataset b being shoes b x shoes + 0 ...), and counts, per dataset,
whether the search would tell the user that something wins:

- unadjusted, as ``backtest`` says it: any configuration whose realized edge is "outside"
  its 95% interval (two-sided), or any whose one-sided p of "beats" is below 5%;
- adjusted for the configurations tried: any below 5% after Holm (one-sided, as
  ``search``), after the Romano-Wolf step-down (``search``'s verdict), the SPA and
  Reality Check p-values of the best (studentized), and Holm over the two-sided edge
  verdicts (``backtest``'s family column);
- the screen's other checks, each alone: the best of N by chance (its p below 5%; the
  other fair datasets are each one's null, which is what ``--null`` plays: fair datasets
  of the same shape) and the hold-out (the choice made by z on the first half, its
  one-sided p on the second half below 5%). The screen says "beats" only where the
  step-down flags; these two only say they agree or why they differ.

On fair shoes every alarm is false. ``--grid 34`` (the default) is a realistic grid with
systems that bet rarely (``streak:n=6..9``, ``after_ties``, ``skip_first``), ``--grid 39``
the earlier one. With ``--planted N`` it also plays N datasets of ``--planted-shoes``
outcome-only shoes whose Banker comes up 0.47 and Player 0.44 (flat Banker some +1.7%
over its expected edge) and counts how often each check finds something: the step-down
(the verdict), the best of N (against ``--null-pool`` fair datasets of the same number of
shoes) and the hold-out. Prints each rate with its Wilson 95% interval.

    python benchmarks/bench_search_false_alarms.py --datasets 200 --shoes 300 \\
        --planted 200 --planted-shoes 600 --null-pool 200
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baccarat import Run, backtest  # noqa: E402
from baccarat.analysis.significance import holm  # noqa: E402
from baccarat.coups import coups_from_outcomes  # noqa: E402
from baccarat.metrics import edge_p_value, edge_sums, wilson_interval  # noqa: E402
from baccarat.search.adjust import family_tests, studentized  # noqa: E402
from baccarat.search.metric import BASE_COLUMNS, parse_metric  # noqa: E402
from baccarat.search.run import choose_and_check  # noqa: E402
from baccarat.search.sessions import SessionMatrix, read_sessions  # noqa: E402
from baccarat.search.space import Space  # noqa: E402
from baccarat.search.splits import holdout_split  # noqa: E402
from bench_search import GRID, GRID_34  # noqa: E402


def play(coups: Any, configs: list[Any], shoes: int, seed: int, folder: Path,
         workers: int | None) -> SessionMatrix:
    """Every configuration over the datasets end to end, one session per shoe."""
    how = Run(ledger=False, out=folder, workers=workers)
    if coups is None:
        backtest(None, configs, shoes=shoes, seed=seed, run=how)
    else:
        backtest(coups, configs, run=how)
    return read_sessions(folder, len(configs), BASE_COLUMNS)


def part(matrix: SessionMatrix, b: int, n: int) -> SessionMatrix:
    """Dataset b's sessions (n shoes each)."""
    cut = slice(b * n, (b + 1) * n)
    return SessionMatrix(matrix.session[cut] - b * n, matrix.first_shoe[cut],
                         {name: values[:, cut] for name, values in matrix.columns.items()})


def screen(matrix: SessionMatrix, configs: list[Any], reps: int, seed: int,
           holdouts: tuple[float, ...] = (0.5,)) -> dict[str, Any]:
    """What the search's screen reads for one dataset: its tests, best z and hold-out."""
    net, wagered = matrix.columns["net"], matrix.columns["wagered"]
    expected = matrix.columns["expected_net"]
    tests = family_tests(net, wagered, expected, reps=reps, seed=seed)
    n = matrix.sessions
    shoes_of = [np.array([i]) for i in range(n)]
    splits = [choose_and_check(matrix, parse_metric(None), holdout_split(n, fraction),
                               shoes_of, configs)[1] for fraction in holdouts]
    split = splits[0]
    two_sided = []
    for c in range(len(configs)):  # backtest's verdict: its score test, two-sided
        total = float(wagered[c].sum())
        p = math.nan if total <= 0 else edge_p_value(edge_sums(net[c], wagered[c]),
                                                     float(expected[c].sum()) / total)
        two_sided.append(1.0 if math.isnan(p) else p)
    return {"tests": tests, "p2": np.array(two_sided),
            "max_z": float(studentized(net, wagered, expected).max()),
            "held_p": float(split["out"]["p"]), "held_spec": split["folds"][0]["spec"],
            "held_ps": [float(s["out"]["p"]) for s in splits]}


def null_p(observed: float, fair: np.ndarray) -> float:
    """The best of N's p: (fair bests at least as far out + 1) / (N + 1)."""
    return (int((fair >= observed).sum()) + 1) / (fair.size + 1)


def planted_coups(datasets: int, shoes: int, coups: int, seed: int, banker: float = 0.47,
                  player: float = 0.44) -> Any:
    """Outcome-only shoes whose coups are Banker ``banker``, Player ``player`` and Tie the
    rest (0.47 / 0.44 / 0.09 by default)."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("BPT"))
    draws = rng.choice(3, size=(datasets * shoes, coups),
                       p=[banker, player, 1.0 - banker - player])
    return coups_from_outcomes(["".join(letters[row]) for row in draws])


def rate(label: str, count: int, total: int) -> None:
    low, high = wilson_interval(count, total)
    print(f"  {label}: {count} of {total} = {count / total:.1%} "
          f"(95% interval {low:.1%} to {high:.1%})")


def fair_alarms(args: argparse.Namespace, configs: list[Any], folder: Path) -> None:
    started = time.perf_counter()
    matrix = play(None, configs, args.shoes * args.datasets, args.seed, folder / "fair",
                  args.workers)
    played = time.perf_counter() - started
    screens = [screen(part(matrix, b, args.shoes), configs, args.reps, b)
               for b in range(args.datasets)]
    best = np.array([s["max_z"] for s in screens])
    counts = dict.fromkeys((
        "outside, unadjusted (two-sided 95%)", "beats, unadjusted (one-sided 5%)",
        "outside, Holm (backtest's family column)", "beats, Holm (search's p_holm)",
        "beats, Romano-Wolf step-down (search's verdict: the screen's claim)",
        "best beats, SPA p < 5% (studentized)",
        "best beats, Reality Check p < 5% (studentized)",
        "best of N by chance p < 5% (the other datasets as its null)",
        "hold-out's choice, one-sided p < 5% on the shoes held back",
        "any of verdict, best of N, hold-out (a screen of three verdicts)"), 0)
    keys = list(counts)
    for b, s in enumerate(screens):
        tests, p2 = s["tests"], s["p2"]
        rare = null_p(s["max_z"], np.delete(best, b)) < 0.05
        flags = [(p2 < 0.05).any(), (tests.tests.p < 0.05).any(), (holm(p2) < 0.05).any(),
                 (tests.holm < 0.05).any(), (tests.stepdown < 0.05).any(),
                 tests.spa < 0.05, tests.reality_check < 0.05, rare, s["held_p"] < 0.05,
                 (tests.stepdown < 0.05).any() or rare or s["held_p"] < 0.05]
        for key, flag in zip(keys, flags, strict=True):
            counts[key] += bool(flag)
    print(f"{args.datasets} fair datasets of {args.shoes} shoes, {len(configs)} "
          f"configurations each (played in {played:.0f}s, tested in "
          f"{time.perf_counter() - started - played:.0f}s)")
    for key in keys:
        rate(key, counts[key], args.datasets)


def planted_finds(args: argparse.Namespace, configs: list[Any], folder: Path) -> None:
    started = time.perf_counter()
    n = args.planted_shoes
    matrix = play(planted_coups(args.planted, n, 80, args.seed, args.banker, args.player),
                  configs, 0, 0,
                  folder / "planted", args.workers)
    fair = play(None, configs, n * args.null_pool, args.seed + 1, folder / "pool",
                args.workers)
    played = time.perf_counter() - started
    pool = np.array([float(studentized(*(part(fair, b, n).columns[c]
                                        for c in ("net", "wagered", "expected_net"))).max())
                     for b in range(args.null_pool)])
    counts = dict.fromkeys(("step-down flags some configuration (the verdict)",
                            "step-down flags flat (banker)",
                            "best of N by chance p < 5%",
                            "hold-out's choice, one-sided p < 5% on the shoes held back"), 0)
    keys = list(counts)
    flat = [c.spec() for c in configs].index("flat")
    held = np.zeros(len(args.holdouts), dtype=np.int64)
    for b in range(args.planted):
        s = screen(part(matrix, b, n), configs, args.reps, b, args.holdouts)
        held += np.array(s["held_ps"]) < 0.05
        flags = [(s["tests"].stepdown < 0.05).any(), s["tests"].stepdown[flat] < 0.05,
                 null_p(s["max_z"], pool) < 0.05, s["held_p"] < 0.05]
        for key, flag in zip(keys, flags, strict=True):
            counts[key] += bool(flag)
    edge = args.banker * 0.95 - args.player + 0.010579  # flat Banker over its expected edge
    print(f"{args.planted} planted datasets of {n} shoes (Banker {args.banker:g}, Player "
          f"{args.player:g}: flat Banker {edge:+.1%} over its expected edge), "
          f"{args.null_pool} fair datasets as the null (played in {played:.0f}s, tested "
          f"in {time.perf_counter() - started - played:.0f}s)")
    for key in keys:
        rate(key, counts[key], args.planted)
    for fraction, found in zip(args.holdouts, held, strict=True):
        rate(f"hold-out {fraction:g} of the shoes, its choice's one-sided p < 5%", int(found),
             args.planted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, choices=(34, 39), default=34)
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--shoes", type=int, default=300)
    parser.add_argument("--planted", type=int, default=0)
    parser.add_argument("--planted-shoes", type=int, default=600)
    parser.add_argument("--null-pool", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--banker", type=float, default=0.47, help="planted Banker share")
    parser.add_argument("--player", type=float, default=0.44, help="planted Player share")
    parser.add_argument("--holdouts", type=lambda text: tuple(map(float, text.split(","))),
                        default=(0.5,), help="hold-out fractions to compare (planted part)")
    args = parser.parse_args()
    configs = list(Space(GRID_34 if args.grid == 34 else GRID))
    with tempfile.TemporaryDirectory(prefix="bench-alarms-") as temp:
        if args.datasets:
            fair_alarms(args, configs, Path(temp))
        if args.planted:
            planted_finds(args, configs, Path(temp))


if __name__ == "__main__":
    main()
