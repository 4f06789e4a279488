"""Fingerprints of the ledgers and sessions every built-in strategy plays, to pin them.

``python tests/ledger_fingerprints.py OUT.json`` replays every built-in whole strategy
(several parameter settings each, under several session policies and rule sets) over
generated shoes and writes a SHA-256 of each run's ledger rows, of its session rows (as
``backtest`` writes them) and of the configurations' names, SPECs and parameters.
``tests/data/ledgers_before_parts.json`` was written this way by the
code before strategies were split into parts (a selection and a staking plan); the test
``tests/parts/test_parts.py::test_every_spec_of_before_the_parts_plays_the_same_ledger``
compares the code of today with it, value for value. The script reads only what both
codes have.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from baccarat.rules import TableRules

#: The whole strategies of before the parts, several settings each (standard rules).
STANDARD_SPECS = [
    "flat", "flat:side=player,base=7", "flat:side=tie,base=5",
    "martingale", "martingale:side=player,max_doublings=3,base=12.5",
    "grand_martingale:max_doublings=4", "grand_martingale:side=player",
    "paroli", "paroli:target_wins=2,side=player,base=7.3",
    "dalembert", "dalembert:unit=2.5,base=7.3", "dalembert:side=player,unit=none",
    "fibonacci", "fibonacci:side=player,base=6",
    "labouchere", "labouchere:line=1-1-2-3,side=player,base=11", "labouchere:line=5",
    "oscars_grind", "oscars_grind:base=7.3,side=player",
    "one_three_two_six", "one_three_two_six:side=player,base=9.5",
    "follow", "follow:per_shoe=false,base=15", "chop", "chop:per_shoe=false",
    "streak", "streak:n=2", "streak:n=4,per_shoe=false,base=20",
    "road", "road:road=small_road", "road:road=cockroach_pig,base=20",
    "side_bet:bet=player_pair", "side_bet:bet=tie,base=5",
]
#: Those that need an EZ table (Dragon 7, Panda 8) or the cards.
EZ_SPECS = [
    "side_bet:bet=dragon7", "side_bet:bet=panda8,base=5",
    "counter:bet=dragon7,max_stake=400", "counter:bet=panda8,method=true_count,kelly=0.25",
    "counter:bet=tie,min_depth=26,threshold=0.01", "counter:bet=dragon7,screen=none,kelly=0",
    "counter:bet=banker,threshold=-0.02,max_tag=3,method=true_count",
]
#: The session policies each group is played under.
POLICIES: list[dict[str, Any]] = [
    {},
    {"session_shoes": 2, "stop_loss": 150.0, "win_goal": 95.5},
    {"bankroll": 120.0, "when_short": "reduce"},
    {"bankroll": 300.0, "max_coups": 60},
]
GROUPS = [("standard", TableRules(table_min=5, table_max=400), STANDARD_SPECS, 20),
          ("ez", TableRules(variant="ez", decks=6, table_min=5), EZ_SPECS, 8)]


def _digest(frame: Any, columns: list[str]) -> str:
    digest = hashlib.sha256()
    for name in columns:
        values = frame[name].to_numpy()
        if values.dtype == object:
            digest.update("\x1f".join(map(str, values)).encode())
        else:
            digest.update(np.ascontiguousarray(values).tobytes())
    return digest.hexdigest()


#: The ledger and sessions columns compared (those both codes write).
LEDGER_COLUMNS = ["config", "strategy", "session", "shoe", "coup", "banker", "player", "tie",
                  "player_pair", "banker_pair", "dragon7", "panda8", "super6", "net",
                  "expected_net", "bankroll"]
SESSION_COLUMNS = ["config", "strategy", "session", "first_shoe", "net", "wagered",
                   "final_bankroll", "max_drawdown", "coups", "bets", "wins", "losses",
                   "pushes", "max_stake", "limit_hits", "ruined", "ruin_coup", "busted",
                   "stop_reason", "expected_net"]


def fingerprints() -> dict[str, dict[str, str]]:
    """Each (group, policy)'s replay: the digests of its ledger, sessions and labels."""
    import pyarrow as pa
    from baccarat.bets import BET_KINDS
    from baccarat.deal import generate_coups
    from baccarat.ledger import ledger_table, sessions_table
    from baccarat.replay import SessionPolicy, replay
    from baccarat.strategies.registry import expand_spec

    out: dict[str, dict[str, str]] = {}
    kinds = list(BET_KINDS)
    for group, rules, specs, shoes in GROUPS:
        coups = generate_coups(rules, 17, np.arange(shoes, dtype=np.int64))
        coups.decks = rules.decks
        configs = [config for spec in specs for config in expand_spec(spec)]
        for p, policy in enumerate(POLICIES):
            grid, ledgers = replay(coups, configs, rules, SessionPolicy(**policy))
            ledger = pa.concat_tables(ledger_table(grid, coups, one, k, kinds)
                                      for k, one in enumerate(ledgers)).to_pandas()
            sessions = pa.concat_tables(sessions_table(grid, one, k, kinds)
                                        for k, one in enumerate(ledgers)).to_pandas()
            labels = [f"{c.name} {c.spec()} {json.dumps(c.params(), sort_keys=True)}"
                      for c in configs]
            out[f"{group}/{p}"] = {
                "ledger": _digest(ledger, LEDGER_COLUMNS),
                "sessions": _digest(sessions, SESSION_COLUMNS),
                "labels": hashlib.sha256("\n".join(labels).encode()).hexdigest(),
                "rows": str(len(ledger)),
            }
    return out


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(fingerprints(), indent=1, sort_keys=True) + "\n")
