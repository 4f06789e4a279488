"""Counting any bet: the side bets' effects of removal by enumeration, their counts, and a
Dragon Bonus counter over generated shoes gaining what its effects of removal predict."""

from __future__ import annotations

import numpy as np
import pytest
from baccarat.bets import final_events, side_bet_paytable
from baccarat.deal import generate_coups
from baccarat.fused import card_counts
from baccarat.odds import count_system, effect_of_removal, odds, side_bet_evs
from baccarat.odds.side_bets import SIDE_BETS, full_shoe_cards
from baccarat.rules import TableRules
from test_side_bet_odds import _independent_evs


def test_effects_of_removal_match_the_independent_enumeration() -> None:
    rules = TableRules(decks=2)
    eor = effect_of_removal(rules)
    full = _independent_evs(full_shoe_cards(2).tolist())
    for value, card in ((0, 4 * 12 + 1), (9, 4 * 8 + 3)):  # a king of hearts; a 9 of clubs
        cards = full_shoe_cards(2)
        cards[card] -= 1
        less = _independent_evs(cards.tolist())
        for bet in SIDE_BETS:
            assert eor[bet][value] == pytest.approx(less[bet] - full[bet], abs=1e-12), bet


def test_count_of_any_bet() -> None:
    rules = TableRules()
    system = count_system(rules, "dragon_bonus_player", max_tag=3)
    assert system.tags.tolist() == [-1, 2, 3, 3, 1, 0, 0, -1, -1, -1]
    assert system.base_ev == pytest.approx(-0.0265168, abs=1e-6)
    # Break-even: the estimate at the trigger's true count is 0.
    seen = np.zeros(10)
    seen[3] = 1.0  # one card seen, so the true count is a tag per deck left
    tc = float(system.true_count(seen))
    at = system.base_ev + system.unit * (system.full_cards - 1) / 52 * system.trigger()
    assert at == pytest.approx(0.0, abs=1e-15) and tc > 0
    lucky = count_system(rules, "lucky6", paytables={"lucky6": "macau"})
    assert lucky.base_ev == pytest.approx(-odds(paytables={"lucky6": "macau"})["lucky6"]
                                          .house_edge, abs=1e-15)
    with pytest.raises(ValueError, match="unknown bet 'dragon'"):
        count_system(rules, "dragon")


def test_kelly_from_the_exact_distribution() -> None:
    rich = full_shoe_cards(1)
    for card in range(4 * 7, 4 * 9):  # no 8s or 9s left: no naturals, more big margins
        rich[card] = 0
    o = odds(rich, decks=1)
    assert o["big"].ev > 0 and 0 < o["big"].kelly < 1
    f = o["big"].kelly
    growth = [o["big"].probabilities["five_or_six_cards"] * np.log1p(x * 0.54)
              + o["big"].lose * np.log1p(-x) for x in (f - 1e-4, f, f + 1e-4)]
    assert growth[1] > growth[0] and growth[1] > growth[2]
    assert odds()["big"].kelly == 0.0


def test_dragon_bonus_counter_gains_what_its_effects_of_removal_predict() -> None:
    """2,000 generated 8-deck shoes: bet Dragon Bonus Player when the count's estimate (the
    true count of the exact effects of removal) is positive. The estimate agrees with the
    exact EV of the cards left, and the bets' results with that EV."""
    rules = TableRules()
    coups = generate_coups(rules, 36, np.arange(2000))
    seen = card_counts(coups, rules.decks).by_value.astype(np.int64)
    left = np.array([16 * 8] + [4 * 8] * 9) - seen
    system = count_system(rules, "dragon_bonus_player")
    estimate = system.estimated_ev(seen)
    bet = (left.sum(axis=1) >= 6) & (estimate > 0)
    assert 0.05 < bet.mean() < 0.15
    exact = side_bet_evs(left[bet], ["dragon_bonus_player"])[:, 0]
    assert abs(estimate[bet].mean() - exact.mean()) < 0.002
    assert exact.mean() > system.base_ev + 0.04  # about +2%, from the full shoe's -2.65%
    cards = (2 + (coups.cards[:, 2] >= 0), 2 + (coups.cards[:, 5] >= 0))
    events = final_events(coups.player_total, coups.banker_total, *cards)
    net = np.full(len(coups), -1.0)
    for event, pays in side_bet_paytable("dragon_bonus_player").items():
        net[events[event]] = pays
    won = net[bet]
    assert abs(won.mean() - exact.mean()) < 3 * won.std() / np.sqrt(won.size)
