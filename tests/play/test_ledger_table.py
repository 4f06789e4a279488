"""The ledger rows of a configuration, against the NumPy formula they are built by.

``ledger_table`` gathers a configuration's played cells in one compiled pass; the rows must
be exactly those the boolean-mask formula below gives (the one the ledger was built by
before), column for column and dtype for dtype: sessions that end early (ruin, busted,
stop rules), sessions of several shoes, prices from the cards left (``--expected
exact``), side bets, several configurations and recorded coups numbered as the file did.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from baccarat.bets import BET_KINDS
from baccarat.coups import OUTCOME_LABELS, Coups
from baccarat.deal import generate_coups
from baccarat.ledger import ledger_table
from baccarat.replay import ConfigLedger, SessionGrid, SessionPolicy, replay
from baccarat.rules import TableRules
from baccarat.strategies.registry import expand_spec

KINDS = list(BET_KINDS)


def numpy_ledger(grid: SessionGrid, coups: Coups, ledger: ConfigLedger, config: int,
                 kinds: list[str]) -> pa.Table:
    """The ledger rows by boolean masks and fancy indexing."""
    played = ledger.played
    session_index, step = np.nonzero(played)
    rows = grid.rows[session_index, step]
    n = rows.size
    columns: dict[str, pa.Array] = {
        "config": pa.array(np.full(n, config, dtype=np.int32)),
        "strategy": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, dtype=np.int32)), pa.array([ledger.strategy.name])),
        "session": pa.array(grid.session_ids[session_index]),
        "shoe": pa.array(coups.shoe[rows]),
        "coup": pa.array(coups.coup[rows].astype(np.int16)),
        "session_coup": pa.array((step + 1).astype(np.int32)),
        "outcome": pa.DictionaryArray.from_arrays(pa.array(coups.outcome[rows]),
                                                  pa.array(OUTCOME_LABELS, pa.string())),
    }
    expected = (ledger.exact_expected[played] if ledger.exact_expected is not None
                else np.zeros(n))
    for kind in kinds:
        stake = ledger.stakes.get(kind)
        placed = stake[played] if stake is not None else np.zeros(n)
        if stake is not None and ledger.exact_expected is None:
            expected += placed * ledger.shoe_ev[kind]
        columns[kind] = pa.array(placed)
    columns["net"] = pa.array(ledger.net[played])
    columns["expected_net"] = pa.array(expected)
    columns["bankroll"] = pa.array(ledger.bankroll[played])
    return pa.table(columns)


def assert_same_rows(coups: Coups, specs: list[str], rules: TableRules,
                     policy: SessionPolicy, first_session: int = 0, **run: object) -> int:
    configs = [config for spec in specs for config in expand_spec(spec)]
    grid, ledgers = replay(coups, configs, rules, policy, first_session=first_session,
                           **run)  # type: ignore[arg-type]
    rows = 0
    for k, ledger in enumerate(ledgers):
        got = ledger_table(grid, coups, ledger, k, KINDS)
        want = numpy_ledger(grid, coups, ledger, k, KINDS)
        assert got.schema.equals(want.schema)
        for name in want.column_names:
            assert got.column(name).equals(want.column(name)), (specs[k], name)
        rows += got.num_rows
    return rows


def test_sessions_that_end_early_and_grids_of_systems():
    coups = generate_coups(TableRules(), 31, np.arange(40, dtype=np.int64))
    rows = assert_same_rows(coups, ["martingale", "labouchere", "paroli", "flat:side=player",
                                    "one_three_two_six", "side_bet"],
                            TableRules(), SessionPolicy(bankroll=150.0), first_session=17)
    assert 0 < rows < 6 * len(coups)  # some sessions were ruined or busted


@pytest.mark.parametrize("policy", [
    SessionPolicy(session_shoes=3, stop_loss=80.0, win_goal=60.0),
    SessionPolicy(bankroll=200.0, when_short="reduce", max_coups=50),
])
def test_stop_rules_and_sessions_of_several_shoes(policy: SessionPolicy):
    coups = generate_coups(TableRules(), 5, np.arange(30, dtype=np.int64))
    assert_same_rows(coups, ["martingale", "dalembert", "fibonacci"], TableRules(), policy)


def test_prices_from_the_cards_left():
    coups = generate_coups(TableRules(), 8, np.arange(6, dtype=np.int64))
    assert_same_rows(coups, ["flat", "counter"], TableRules(), SessionPolicy(),
                     expected="exact")


def test_recorded_coups_keep_their_numbers():
    coups = generate_coups(TableRules(), 2, np.arange(5, dtype=np.int64))
    coups.shoe = (coups.shoe * 7 + 3).astype(np.int64)  # shoe ids as a file gave them
    coups.coup = (coups.coup + 40).astype(np.int32)     # numbered from 41
    assert_same_rows(coups, ["martingale", "chop"], TableRules(), SessionPolicy())
