"""Count triggers and Kelly: the published Dragon 7 and Panda 8 counts worked out apart,
card by card, and Kelly's stake from the exact EV of the cards left."""

from __future__ import annotations

import numpy as np
import pytest
from baccarat import Session
from baccarat.backtest import play
from baccarat.cards import card_label
from baccarat.deal import generate_coups
from baccarat.job import BacktestJob
from baccarat.odds import expected_values
from baccarat.rules import TableRules

EZ = TableRules(variant="ez")
#: The published tags by rank (Jacobson's Dragon 7 count; Shackleford's Panda 8 count),
#: written here from the published tables, not from the module under test.
DRAGON7 = {"A": 0, "2": 0, "3": 0, "4": -1, "5": -1, "6": -1, "7": -1, "8": 2, "9": 2,
           "10": 0, "J": 0, "Q": 0, "K": 0}
PANDA8 = {"A": 1, "2": 1, "3": -2, "4": -2, "5": -2, "6": -1, "7": -1, "8": -2, "9": 4,
          "10": 1, "J": 1, "Q": 1, "K": 1}
VALUE = {"A": 1, **{str(v): v for v in range(2, 10)}, "10": 0, "J": 0, "Q": 0, "K": 0}


def rank(code: int) -> str:
    return card_label(int(code))[:-1]


def walk(coups, tags: dict[str, int], decks: int = 8):  # type: ignore[no-untyped-def]
    """Per coup: (true count before it, the 10 counts by value left before it)."""
    out = []
    for shoe in np.unique(coups.shoe):
        rows = np.flatnonzero(coups.shoe == shoe)
        running = 0
        left = np.array([16 * decks] + [4 * decks] * 9)
        burn = int(coups.burn_shown[rows[0]])
        if burn >= 0:
            running += tags[rank(burn)]
            left[VALUE[rank(burn)]] -= 1
        for row in rows:
            out.append((running / (left.sum() / 52), left.copy()))
            for code in coups.cards[row]:
                if code >= 0:
                    running += tags[rank(code)]
                    left[VALUE[rank(code)]] -= 1
    return out


@pytest.fixture(scope="module")
def coups():  # type: ignore[no-untyped-def]
    return generate_coups(EZ, 77, np.arange(300))


@pytest.mark.parametrize("method, tags, trigger, kind", [
    ("dragon7", DRAGON7, 4, "dragon7"), ("panda8", PANDA8, 11, "panda8")])
def test_the_published_count_bets_where_its_true_count_reaches_the_trigger(
        coups, method: str, tags: dict[str, int], trigger: int, kind: str):  # type: ignore
    ledger = play(BacktestJob(coups, [f"count:method={method}"], rules=EZ, unchecked=True)).ledger
    counts = walk(coups, tags)
    expected = np.array([tc >= trigger and left.sum() >= 6 for tc, left in counts])
    assert expected.sum() > 20  # the trigger is reached in these shoes
    np.testing.assert_array_equal(ledger[kind].to_numpy() > 0, expected)
    # At the published trigger the bet has an edge: the mean exact EV of the bets made,
    # from the cards left, is positive (the full shoe's is -7.6% and -10.2%).
    evs = [expected_values(left, EZ)[kind] for (tc, left), bet in zip(counts, expected,
                                                                        strict=True) if bet]
    assert np.mean(evs) > 0


def test_kelly_stakes_the_kelly_fraction_of_the_exact_ev(coups):  # type: ignore
    # count:method=dragon7 picks the coups; Kelly stakes 0.5 x bankroll x EV / 40 from the
    # exact EV of the cards left (Dragon 7 pays 40:1), never below the base of 10.
    ledger = play(BacktestJob(coups, ["count:method=dragon7 | kelly"], rules=EZ,
                              session=Session(bankroll=1e5), unchecked=True)).ledger
    counts = walk(coups, DRAGON7)
    before = ledger["bankroll"].to_numpy() - ledger["net"].to_numpy()
    bets = np.flatnonzero(ledger["dragon7"].to_numpy() > 0)
    assert bets.size > 20
    for i in bets:
        ev = expected_values(counts[i][1], EZ)["dragon7"]
        assert ledger["dragon7"].iloc[i] == pytest.approx(max(0.5 * before[i] * ev / 40, 10),
                                                          rel=1e-9)
