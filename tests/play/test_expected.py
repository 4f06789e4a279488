"""The expected net of the bets made, coup by coup, and the verdict built on it.

Expected values are worked out apart from the replay: the full-shoe EV from the published
house edge, and the remaining-cards EV from a card count kept here, coup by coup, from the
coups table itself, priced by ``baccarat.odds.expected_values``.
"""

from __future__ import annotations

import numpy as np
import pytest
from baccarat import Run, backtest
from baccarat.cards import VALUE_OF_CODE
from baccarat.coups import coups_from_outcomes
from baccarat.deal import generate_coups
from baccarat.errors import BaccaratError
from baccarat.odds import expected_values
from baccarat.rules import TableRules

BANKER_EDGE_8_DECKS = 0.010579  # published: Banker 1.0579% at 5% commission


def test_flat_banker_is_priced_by_the_full_shoe():
    result = backtest(None, ["flat"], shoes=300, seed=5)
    ledger = result.ledger
    staked = ledger["banker"] > 0
    assert staked.all()
    assert ledger["expected_net"].to_numpy() == pytest.approx(-10 * BANKER_EDGE_8_DECKS,
                                                              abs=1e-6)
    row = result.summary.iloc[0]
    assert row.expected_edge == pytest.approx(-row.house_edge, rel=1e-12)
    assert row.edge_gain == pytest.approx(0.0, abs=1e-15)
    assert row.expected_net == pytest.approx(result.sessions["expected_net"].mean())
    sessions = result.sessions
    assert sessions["expected_edge"].to_numpy() == pytest.approx(-BANKER_EDGE_8_DECKS,
                                                                 abs=1e-6)
    # realized vs expected: flat Banker over 300 shoes lands inside its own interval
    assert row.realized_edge_low <= row.expected_edge <= row.realized_edge_high
    assert row.edge_verdict == "inside"


def _remaining_before_each_coup(coups, decks: int) -> np.ndarray:
    """Cards left by value before each coup: the full shoe less the shown burn card and
    every card of the shoe's earlier coups."""
    full = np.array([16 * decks] + [4 * decks] * 9)
    out = np.empty((len(coups), 10), dtype=np.int64)
    seen = np.zeros(10, dtype=np.int64)
    for i in range(len(coups)):
        if i == 0 or coups.shoe[i] != coups.shoe[i - 1]:
            seen[:] = 0
            if coups.burn_shown[i] >= 0:
                seen[VALUE_OF_CODE[coups.burn_shown[i]]] += 1
        out[i] = full - seen
        for code in coups.cards[i]:
            if code >= 0:
                seen[VALUE_OF_CODE[code]] += 1
    return out


def test_expected_exact_prices_every_coup_from_the_cards_left():
    rules = TableRules(decks=1)
    coups = generate_coups(rules, 3, np.arange(4))
    result = backtest(coups, ["flat", "flat:side=player"], rules=rules, run=Run(expected="exact"))
    remaining = _remaining_before_each_coup(coups, 1)
    ledger = result.ledger
    for config, kind in ((0, "banker"), (1, "player")):
        rows = ledger[ledger["config"] == config]
        assert len(rows) == len(coups)
        want = [10 * expected_values(c, rules)[kind] for c in remaining]
        assert rows["expected_net"].to_numpy() == pytest.approx(want, rel=1e-12)
    # the same shoes priced by the full shoe differ coup by coup, not in the house edge
    auto = backtest(coups, ["flat"], rules=rules)
    assert auto.summary.iloc[0].house_edge == result.summary.iloc[0].house_edge
    assert not np.allclose(auto.ledger["expected_net"], ledger[ledger["config"] == 0][
        "expected_net"])
    assert result.info["expected"] == "exact"


def test_expected_exact_needs_the_cards():
    with pytest.raises(BaccaratError, match="expected='exact' .* outcomes only"):
        backtest(coups_from_outcomes(["BPBB"]), ["flat"], run=Run(expected="exact"))
    with pytest.raises(BaccaratError, match="^expected must be auto or exact"):
        backtest(coups_from_outcomes(["BPBB"]), ["flat"], run=Run(expected="sometimes"))
