"""Every finite-state built-in's exact figures against a simulation over real shoes.

Each configuration (the built-ins with their default parameters, bankroll 1,000, one
shoe a session, 8 decks; the Labouchere lines at a table maximum of 50) gets its exact
figures (``baccarat.risk``) and the same figures over ``--sessions`` sessions of generated
shoes (the backtest engine, seed ``--seed``)
with ``--level`` intervals. It prints, per configuration, how many intervals hold the
exact figure and each one that does not, with the exact value, the simulated one and
the interval; then a Markdown table for the README. At 99% and about a dozen figures a
configuration, a miss by chance happens about once in eight configurations; a miss the
finite shoe causes (the model deals every coup from a full shoe) stays as the sessions
grow.

    python benchmarks/bench_risk_check.py --sessions 200000 --level 0.99
"""

from __future__ import annotations

import argparse
import os
import time

SPECS = ["flat", "flat:side=player", "flat:side=tie", "martingale", "grand_martingale",
         "paroli", "dalembert", "fibonacci", "oscars_grind", "one_three_two_six", "follow",
         "chop", "streak", "side_bet:bet=player_pair"]
#: The Labouchere lines, at a table maximum of 50 (over a shoe at the default 5,000 a
#: line's numbers outgrow the state limit; at 50 those whose stake is cut are one).
LINES, LINES_MAX = ["labouchere", "reverse_labouchere"], 50.0
FIGURES = ("mean_net", "q05_net", "q25_net", "q50_net", "q75_net", "q95_net", "p_ahead",
           "risk_of_ruin", "bust_rate", "expected_coups", "expected_wagered",
           "expected_edge")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200_000)
    parser.add_argument("--level", type=float, default=0.99)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    from baccarat.replay import SessionPolicy
    from baccarat.risk.job import RiskJob, run_risk
    from baccarat.rules import TableRules

    load = os.getloadavg()[0]
    started = time.perf_counter()
    results, labels = [], []
    for specs, rules, label in [(SPECS, TableRules(), ""),
                                (LINES, TableRules(table_max=LINES_MAX),
                                 f" (table maximum {LINES_MAX:g})")]:
        job = RiskJob(specs, rules, SessionPolicy(), None, check=args.sessions,
                      seed=args.seed, level=args.level, workers=args.workers)
        results += run_risk(job)
        labels += [label] * len(specs)
    took = time.perf_counter() - started
    rows = []
    for r, label in zip(results, labels, strict=True):
        assert r.exact is not None and r.simulated is not None
        misses = []
        held = 0
        for key in FIGURES:
            e = r.simulated.estimates[key]
            exact = r.exact.figures[key]
            verdict = e.holds(exact)
            if verdict:
                held += 1
            elif verdict is False:
                misses.append(f"{key} exact {exact:.6g}, simulated {e.value:.6g} "
                              f"[{e.low:.6g}, {e.high:.6g}]")
        f, s = r.exact.figures, r.simulated.estimates
        rows.append((f"`{r.spec}`{label}", held, len(FIGURES), f["mean_net"], s["mean_net"],
                     f["risk_of_ruin"], s["risk_of_ruin"], f["bust_rate"], s["bust_rate"],
                     misses))
        print(f"{r.spec}{label}: {held} of {len(FIGURES)} intervals hold the exact figure"
              + "".join(f"\n    outside: {m}" for m in misses), flush=True)
    print(f"\n{len(results)} configurations, {args.sessions:,} sessions each at "
          f"{args.level:.0%}: {took:.0f}s, load at the start {load:.1f}\n")
    print("| configuration | intervals holding the exact figure | mean net: exact / "
          "simulated [interval] | risk of ruin: exact / simulated | busted: exact / "
          "simulated | outside |")
    print("|---|---|---|---|---|---|")
    for spec, held, n, mean, smean, ruin, sruin, bust, sbust, misses in rows:
        outside = "; ".join(m.split(" exact")[0] for m in misses) or ""
        print(f"| {spec} | {held} of {n} | {mean:.3f} / {smean.value:.3f} "
              f"[{smean.low:.3f}, {smean.high:.3f}] | {ruin:.4%} / {sruin.value:.4%} | "
              f"{bust:.4%} / {sbust.value:.4%} | {outside} |")


if __name__ == "__main__":
    main()
