"""Exact risk's classes of coup: the joint enumeration by rank against the odds engine's
integers, the pair probability by rank, and the exact payouts against the payout table."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from baccarat.bets import BET_KINDS, PAIR, payout_table
from baccarat.odds import outcome_combinations, pair_probability, shoe_counts, shoe_rank_counts
from baccarat.odds.enumeration import EVENTS
from baccarat.risk.coups import class_tallies, exact, exact_payouts
from baccarat.risk.shoes import shoe_lengths
from baccarat.rules import TableRules


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_class_tallies_add_up_to_the_odds_engines_integers(decks: int) -> None:
    coups = class_tallies(decks)
    expected = outcome_combinations(shoe_counts(decks))
    per_class = coups.tallies.sum(axis=1)
    by_event = {
        "banker": per_class[coups.outcome == 0].sum(),
        "player": per_class[coups.outcome == 1].sum(),
        "tie": per_class[coups.outcome == 2].sum(),
        "banker_three_card_7": per_class[coups.special == 1].sum(),
        "player_three_card_8": per_class[coups.special == 2].sum(),
    }
    assert coups.total == expected["total"]
    for event, tally in by_event.items():
        assert int(tally) == expected[event], event
    sixes = per_class[(coups.special == 3)].sum()
    assert int(sixes) == expected["banker_two_card_6"] + expected["banker_three_card_6"]
    assert set(EVENTS) >= set(by_event)


def test_pair_probability_by_rank_is_the_published_figure() -> None:
    coups = class_tallies(8)
    p = coups.probabilities
    player_pair = p[coups.player_pair == PAIR].sum()
    banker_pair = p[coups.banker_pair == PAIR].sum()
    # 13 ranks of 32 cards in 416: 13 * 32 * 31 / (416 * 415)
    assert player_pair == pytest.approx(13 * 32 * 31 / (416 * 415), abs=1e-15)
    assert banker_pair == pytest.approx(player_pair, abs=1e-15)
    assert player_pair == pytest.approx(pair_probability(shoe_rank_counts(8)), abs=1e-15)


def test_cards_per_coup_add_to_one_and_a_natural_takes_four() -> None:
    dist = class_tallies(8).cards_distribution()
    assert dist.sum() == pytest.approx(1.0, abs=1e-15)
    # Four cards exactly when either hand has a natural or both stand on 6-7.
    assert 0.37 < dist[0] < 0.39


@pytest.mark.parametrize("variant", ["standard", "ez", "super6"])
def test_exact_payouts_are_the_payout_table(variant: str) -> None:
    rules = TableRules(variant=variant, commission=0.04)
    coups = class_tallies(8)
    table = payout_table(rules)
    pays = exact_payouts(rules, coups)
    for k, klass in enumerate(coups.classes):
        for j, kind in enumerate(BET_KINDS):
            assert float(pays[k][kind]) == pytest.approx(table[klass, j], abs=1e-15), kind


def test_a_rule_is_the_number_it_is_written_as() -> None:
    assert exact(0.05) == Fraction(1, 20)
    assert 1 - exact(0.07) == Fraction(93, 100)
    assert exact(10) == 10


def test_shoe_lengths_match_dealt_shoes() -> None:
    from baccarat.deal import generate_coups

    rules = TableRules(decks=1)
    lengths = shoe_lengths(rules)
    assert lengths.sum() == pytest.approx(1.0, abs=1e-12)
    coups = generate_coups(rules, 3, np.arange(4000))
    _, dealt = np.unique(coups.shoe, return_counts=True)
    mean = (np.arange(lengths.size) * lengths).sum()
    # the model's mean within 4 standard errors of the dealt shoes'
    assert abs(dealt.mean() - mean) < 4 * dealt.std() / np.sqrt(dealt.size)
