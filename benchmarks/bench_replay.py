"""The replay's own CPU cost per group of strategies, for comparing two revisions.

Plays each group of SPECs with ``baccarat.replay.replay`` over generated shoes in this
process (no files, no workers) and prints the CPU time of the fastest of ``--repeat``
runs, which is what interference from other work on the machine inflates least. With few
sessions the Python cost of each step dominates (what composing a system of parts adds
shows there); with many, the array work does.

    python benchmarks/bench_replay.py --sessions 200 --repeat 21
    python benchmarks/bench_replay.py --repo ../other-checkout --sessions 200 --repeat 21

``--repo`` times the code of another checkout (its ``engine`` and ``strategies``) with
this script, so two revisions can be run back to back.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

GROUPS = {
    "flat+martingale": ["flat", "martingale"],
    "follow+streak+chop": ["follow", "streak", "chop"],
    "road": ["road"],
    "counter": ["counter"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    import numpy as np
    from baccarat.deal import generate_coups
    from baccarat.replay import SessionPolicy, replay
    from baccarat.rules import TableRules
    from baccarat.strategies.registry import expand_spec

    rules = TableRules()
    coups = generate_coups(rules, 5, np.arange(args.sessions))
    print(f"{args.repo}: {args.sessions} sessions, fastest of {args.repeat}, CPU ms")
    for name, specs in GROUPS.items():
        times = []
        for _ in range(args.repeat):
            configs = [config for spec in specs for config in expand_spec(spec)]
            started = time.process_time()
            replay(coups, configs, rules, SessionPolicy())
            times.append(time.process_time() - started)
        print(f"  {name:<20} {1000 * min(times):8.2f}")


if __name__ == "__main__":
    main()
