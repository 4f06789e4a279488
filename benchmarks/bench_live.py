"""How long ``baccarat live`` takes to take in one coup, as the session grows.

A generated session (seed 11, 8 decks) is entered coup by coup with its cards through
``baccarat.live.scorecard.Scorecard`` (the file written and fsynced, the session, the EV
from the cards left, the screen's text); at the coups named by ``--at`` the script times,
``--repeat`` times each (medians): the entry itself (parse, deal check, write + fsync, the
roads, the cards left and the EV, the plain screen), and the systems' next stakes
(``next_stakes``: the whole session replayed with one coup behind it), for the systems of
``-s``. The app works the stakes out on a thread, so they delay the stakes' line, not the
next key.

    python benchmarks/bench_live.py --at 40 80 240 -s flat -s martingale \\
        -s "road:mode=red | flat"
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from baccarat.cards import LABEL_OF_CODE
from baccarat.deal import generate_coups
from baccarat.live.journal import Journal
from baccarat.live.scorecard import Scorecard
from baccarat.live.screen import plain_screen
from baccarat.live.session import LiveSession
from baccarat.live.systems import make_systems, next_stakes
from baccarat.replay import SessionPolicy
from baccarat.rules import TableRules


def dealt(row: np.ndarray) -> str:
    player, banker = [c for c in row[:3] if c >= 0], [c for c in row[3:] if c >= 0]
    order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    return " ".join(LABEL_OF_CODE[c] for c in order)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", type=int, nargs="+", default=[40, 80, 240])
    parser.add_argument("-s", "--strategy", action="append", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    specs = args.strategy or ["flat", "martingale", "road:mode=red | flat"]
    rules = TableRules()
    coups = generate_coups(rules, 11, np.arange(10))
    shoes = np.flatnonzero(np.r_[True, coups.shoe[1:] != coups.shoe[:-1]])
    with tempfile.TemporaryDirectory() as folder:
        card = Scorecard(LiveSession(Journal.create(Path(folder) / "t.csv", rules)), [])
        systems = make_systems(specs)
        next_stakes(systems, card.session.shoes, rules, SessionPolicy())  # kernels loaded
        entered = 0
        print(f"systems: {', '.join(specs)}")
        print(f"{'coups':>6} {'entry ms':>9} {'stakes ms':>10}")
        for at in sorted(args.at):
            while entered < at - 1:
                if entered and entered in shoes:
                    card.handle("n")
                card.handle(dealt(coups.cards[entered]), systems=False)
                entered += 1
            times, stakes = [], []
            for _ in range(args.repeat):
                start = time.perf_counter()
                card.handle(dealt(coups.cards[entered]), systems=False)
                plain_screen(card.view())
                times.append(time.perf_counter() - start)
                start = time.perf_counter()
                next_stakes(systems, card.session.shoes, rules, SessionPolicy())
                stakes.append(time.perf_counter() - start)
                card.handle("u", systems=False)
            print(f"{at:>6} {statistics.median(times) * 1000:>9.1f} "
                  f"{statistics.median(stakes) * 1000:>10.1f}")
        card.close()


if __name__ == "__main__":
    main()
