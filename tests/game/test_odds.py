"""Exact odds: published figures, a brute-force cross-check, effect of removal, batches.

Published figures come from Wizard of Odds (Michael Shackleford's baccarat, EZ Baccarat and
Lucky 6 pages: combination counts over 416*415*...*411 ordered six-card sequences, 8 decks),
Eliot Jacobson's "Card Counting the Super Six Baccarat Side Bet" (commission-free house
edges) and the published table. The brute force deals every ordered six-card sequence of
a small hand-built shoe in pure Python with its own drawing rules and payouts.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from baccarat.odds import (
    BET_KINDS,
    SIDE_BETS,
    OddsError,
    bets_offered,
    check_counts,
    count_system,
    effect_of_removal,
    event_probabilities,
    expected_values,
    expected_values_batch,
    house_edges,
    outcome_combinations,
    outcome_probabilities,
    pair_probability,
    shoe_counts,
    shoe_rank_counts,
    values_from_ranks,
)
from baccarat.rules import TableRules

EIGHT = shoe_rank_counts(8)


# --- published figures -----------------------------------------------------------------


def test_eight_deck_probabilities_to_every_printed_digit():
    probs = outcome_probabilities(EIGHT)
    assert round(probs.banker, 6) == 0.458597
    assert round(probs.player, 6) == 0.446247
    assert round(probs.tie, 6) == 0.095156


def test_eight_deck_standard_house_edges():
    edges = house_edges(TableRules())
    assert set(edges) == {"banker", "player", "tie", "player_pair", "banker_pair"}
    assert round(edges["banker"], 6) == 0.010579
    assert round(edges["player"], 6) == 0.012351
    assert round(edges["tie"], 6) == 0.143596
    assert round(edges["banker"] * 100, 2) == 1.06
    assert round(edges["player"] * 100, 2) == 1.24
    assert round(edges["tie"] * 100, 2) == 14.36
    assert round(edges["player_pair"] * 100, 2) == 10.36
    assert edges["banker_pair"] == edges["player_pair"]


def test_eight_deck_combination_counts_match_the_published_table():
    combos = outcome_combinations(shoe_counts(8))
    assert combos["total"] == 416 * 415 * 414 * 413 * 412 * 411 == 4_998_398_275_503_360
    assert combos["tie"] == 475_627_426_473_216
    assert combos["banker_three_card_7"] == 112_633_011_329_024  # Dragon 7 wins
    assert combos["player_three_card_8"] == 172_660_763_262_976  # Panda 8 wins
    assert combos["banker_two_card_6"] == 186_173_936_904_192
    assert combos["banker_three_card_6"] == 83_058_367_551_488
    # The published Banker and Player counts are printed rounded in their last digits.
    assert abs(combos["banker"] - 2_292_252_566_437_890) < 10
    assert abs(combos["player"] - 2_230_518_282_592_260) < 10
    assert combos["banker"] + combos["player"] + combos["tie"] == combos["total"]


def test_tie_nine_to_one_and_four_percent_commission_by_hand():
    probs = outcome_probabilities(EIGHT)
    tie9 = house_edges(TableRules(tie_pays=9))
    assert tie9["tie"] == pytest.approx(1 - 10 * probs.tie, abs=1e-15)
    assert round(tie9["tie"] * 100, 3) == 4.844
    four = house_edges(TableRules(commission=0.04))
    assert four["banker"] == pytest.approx(probs.player - 0.96 * probs.banker, abs=1e-15)
    assert four["player"] == pytest.approx(probs.banker - probs.player, abs=1e-15)


def test_ez_baccarat_published_edges():
    edges = house_edges(TableRules(variant="ez"))
    assert set(edges) == {"banker", "player", "tie", "player_pair", "banker_pair",
                          "dragon7", "panda8"}
    # Wizard of Odds EZ Baccarat tables: returns -0.010183, -0.076113, -0.101876.
    assert round(edges["banker"], 6) == 0.010183
    assert round(edges["dragon7"], 6) == 0.076113
    assert round(edges["panda8"], 6) == 0.101876
    assert round(edges["dragon7"] * 100, 2) == 7.61
    assert round(edges["panda8"] * 100, 2) == 10.19
    # Jacobson: "House edge = 1.0183%", Panda 8 "10.1876%".
    assert round(edges["banker"] * 100, 4) == 1.0183
    assert round(edges["panda8"] * 100, 4) == 10.1876
    assert round(edges["player"] * 100, 4) == 1.2351


def test_super6_published_edges():
    edges = house_edges(TableRules(variant="super6"))
    assert set(edges) == {"banker", "player", "tie", "player_pair", "banker_pair", "super6"}
    assert round(edges["banker"] * 100, 4) == 1.4581  # Jacobson
    assert round(edges["banker"], 9) == 0.014581045  # excelpunks' table
    probs = outcome_probabilities(EIGHT)
    assert round(probs.banker_six, 9) == 0.053863716
    assert round(edges["super6"] * 100, 2) == 29.98  # 12:1
    assert edges["super6"] == pytest.approx(1 - 13 * probs.banker_six, abs=1e-15)


def test_one_deck_pairs_by_hand():
    # 13 ranks of 4 cards: P(pair) = 13 * 4 * 3 / (52 * 51).
    edges = house_edges(TableRules(decks=1))
    p = Fraction(13 * 4 * 3, 52 * 51)
    assert edges["player_pair"] == pytest.approx(float(1 - 12 * p), abs=1e-15)


# --- an independent brute force ---------------------------------------------------------

# A hand-built shoe of physical cards as (rank 1-13); two aces and two kings make pairs.
SMALL_SHOE = (1, 1, 2, 4, 5, 6, 7, 8, 9, 13, 13)


def _value(rank: int) -> int:
    return rank if rank < 10 else 0


def _banker_draws_printed(bt: int, third: int | None) -> bool:
    """The printed drawing rules, written out again for the check."""
    if third is None:
        return bt <= 5
    table = {0: range(10), 1: range(10), 2: range(10), 3: [v for v in range(10) if v != 8],
             4: range(2, 8), 5: range(4, 8), 6: range(6, 8), 7: ()}
    return third in table[bt]


def _deal(seq: tuple[int, ...]) -> tuple:
    p = [seq[0], seq[2]]
    b = [seq[1], seq[3]]
    nxt = 4
    pt = sum(map(_value, p)) % 10
    bt = sum(map(_value, b)) % 10
    if pt < 8 and bt < 8:
        third = None
        if pt <= 5:
            p.append(seq[nxt])
            nxt += 1
            third = _value(p[2])
        if _banker_draws_printed(bt, third):
            b.append(seq[nxt])
        pt = sum(map(_value, p)) % 10
        bt = sum(map(_value, b)) % 10
    return pt, bt, len(p), len(b), p[0] == p[1], b[0] == b[1]


def _payoffs(rules: TableRules, coup: tuple) -> dict[str, float]:
    pt, bt, np_, nb, ppair, bpair = coup
    win_b, win_p = bt > pt, pt > bt
    if not win_b and not win_p:
        banker = 0.0
    elif win_p:
        banker = -1.0
    elif rules.variant == "ez":
        banker = 0.0 if (nb == 3 and bt == 7) else 1.0
    elif rules.variant == "super6":
        banker = 0.5 if bt == 6 else 1.0
    else:
        banker = 1.0 - rules.commission
    return {
        "banker": banker,
        "player": 1.0 if win_p else (-1.0 if win_b else 0.0),
        "tie": float(rules.tie_pays) if pt == bt else -1.0,
        "player_pair": rules.pair_pays if ppair else -1.0,
        "banker_pair": rules.pair_pays if bpair else -1.0,
        "dragon7": rules.dragon7_pays if (win_b and nb == 3 and bt == 7) else -1.0,
        "panda8": rules.panda8_pays if (win_p and np_ == 3 and pt == 8) else -1.0,
        "super6": rules.super6_pays if (win_b and bt == 6) else -1.0,
    }


@pytest.fixture(scope="module")
def brute_force_coups() -> Counter:
    return Counter(_deal(seq) for seq in itertools.permutations(SMALL_SHOE, 6))


BRUTE_RULES = [
    TableRules(),
    TableRules(commission=0.04, tie_pays=9, pair_pays=5),
    TableRules(variant="ez", dragon7_pays=30, panda8_pays=20),
    TableRules(variant="super6", super6_pays=15),
]


@pytest.mark.parametrize("rules", BRUTE_RULES, ids=lambda r: r.label())
def test_every_bet_ev_matches_a_brute_force_deal(rules, brute_force_coups):
    sequences = math.perm(len(SMALL_SHOE), 6)
    assert sum(brute_force_coups.values()) == sequences
    expected = dict.fromkeys(BET_KINDS, 0.0)
    for coup, n in brute_force_coups.items():
        for kind, pay in _payoffs(rules, coup).items():
            expected[kind] += n * pay / sequences
    ranks = np.bincount(SMALL_SHOE, minlength=14)[1:]
    got = expected_values(ranks, rules)
    for kind in BET_KINDS:
        assert got[kind] == pytest.approx(expected[kind], abs=1e-12), kind
    got_batch = expected_values_batch(np.stack([ranks, ranks]), rules)
    assert got_batch.shape == (2, len(BET_KINDS))
    np.testing.assert_allclose(got_batch[1], [expected[k] for k in BET_KINDS], atol=1e-12)


def test_combination_counts_match_the_brute_force(brute_force_coups):
    combos = outcome_combinations(values_from_ranks(np.bincount(SMALL_SHOE, minlength=14)[1:]))
    tally = Counter()
    for (pt, bt, np_, nb, _, _), n in brute_force_coups.items():
        tally["banker" if bt > pt else "player" if pt > bt else "tie"] += n
        tally["banker_three_card_7"] += n * (bt > pt and nb == 3 and bt == 7)
        tally["player_three_card_8"] += n * (pt > bt and np_ == 3 and pt == 8)
        tally["banker_two_card_6"] += n * (bt > pt and nb == 2 and bt == 6)
        tally["banker_three_card_6"] += n * (bt > pt and nb == 3 and bt == 6)
    for name, n in tally.items():
        assert combos[name] == n, name


def test_value_only_pairs_are_the_expectation_over_zero_ranks():
    # One deck with n0 zero-valued cards left: average sum n_r(n_r - 1) over every subset
    # of the 16 tens and faces that could be left, and compare.
    zeros = [r for r in (10, 11, 12, 13) for _ in range(4)]
    for n0 in (0, 1, 2, 3, 7):
        counts = np.array([n0, 4, 4, 4, 4, 4, 4, 4, 4, 4])
        total = 0
        subsets = 0
        for subset in itertools.combinations(range(16), n0):
            split = Counter(zeros[i] for i in subset)
            same = sum(k * (k - 1) for k in split.values()) + 9 * 4 * 3
            total += same
            subsets += 1
        n = counts.sum()
        want = total / subsets / (n * (n - 1))
        assert pair_probability(counts, decks=1) == pytest.approx(want, abs=1e-15)
        assert pair_probability(counts, decks=1) >= 0
    assert pair_probability(shoe_counts(8)) == pair_probability(shoe_rank_counts(8))


# --- batches, compositions and errors ---------------------------------------------------


def test_batch_matches_single_calls_and_sums_to_one():
    rng = np.random.default_rng(7)
    full = shoe_counts(6)
    rows = np.array([full - rng.multinomial(150, full / full.sum()) for _ in range(20)])
    rows = np.clip(rows, 0, None)
    rules = TableRules(decks=6, variant="ez")
    batch = expected_values_batch(np.vstack([rows, rows[:3]]), rules)
    assert batch.shape == (23, len(BET_KINDS))
    for i in range(20):
        single = expected_values(rows[i], rules)
        np.testing.assert_allclose(batch[i], [single[k] for k in BET_KINDS], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(batch[20:], batch[:3])
    events = event_probabilities(rows)
    np.testing.assert_allclose(events[:, :3].sum(axis=1), 1.0, rtol=0, atol=1e-14)


def test_value_and_rank_compositions_agree_on_the_coup():
    by_value = outcome_probabilities(shoe_counts(4))
    by_rank = outcome_probabilities(shoe_rank_counts(4))
    assert by_value == by_rank


def test_bets_offered_by_variant():
    assert bets_offered(TableRules()) == ("banker", "player", "tie", "player_pair",
                                          "banker_pair")
    assert bets_offered(TableRules(variant="ez"))[-2:] == ("dragon7", "panda8")
    assert bets_offered(TableRules(variant="super6"))[-1] == "super6"
    assert BET_KINDS == ("banker", "player", "tie", "player_pair", "banker_pair", "dragon7",
                         "panda8", "super6")


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([1, 2, 3], "expected 10 counts by value"),
        ([4, 4, 4, 4, 4, 4, 4, 4, 4, -1], "count of value 9 is -1"),
        ([4, 4, 4, 4, 4, 4, 4, 4, 4, 2.5], "expected a whole number"),
        ([129, 4, 4, 4, 4, 4, 4, 4, 4, 4], "at most 128"),
        ([1, 1, 1, 1, 1, 0, 0, 0, 0, 0], "holds 5 cards"),
    ],
)
def test_bad_compositions_are_refused(counts, message):
    with pytest.raises(OddsError, match=message):
        outcome_probabilities(counts)


def test_batch_errors_name_the_row_and_the_shoe_size():
    rows = np.tile(shoe_counts(1), (3, 1))
    rows[2, 5] = 5
    with pytest.raises(OddsError, match=r"row 2: 5 cards of value 5 .* 1 deck"):
        expected_values_batch(rows, TableRules(decks=1))
    assert check_counts(rows[:2], max_decks=1).shape == (2, 10)


# --- effect of removal and counts -------------------------------------------------------


@pytest.mark.parametrize("decks", [1, 8])
def test_effect_of_removal_averages_to_zero(decks):
    # Removing a random unseen card does not change the next coup's odds (exchangeability),
    # so the EORs weighted by the cards of each value sum to zero.
    for variant in ("standard", "ez", "super6"):
        eor = effect_of_removal(TableRules(decks=decks, variant=variant))
        assert set(eor) == set(BET_KINDS + SIDE_BETS)  # the side bets sum to zero too
        for kind, values in eor.items():
            assert values.shape == (10,)
            assert float(shoe_counts(decks) @ values) == pytest.approx(0, abs=1e-12), kind
        assert np.abs(eor["tie"]).max() > 1e-4


def test_effect_of_removal_is_the_exact_ev_change():
    rules = TableRules(decks=2, variant="ez")
    eor = effect_of_removal(rules)
    base = expected_values(shoe_rank_counts(2), rules)
    less_a_seven = shoe_rank_counts(2)
    less_a_seven[6] -= 1
    after = expected_values(less_a_seven, rules)
    for kind in BET_KINDS:
        assert eor[kind][7] == pytest.approx(after[kind] - base[kind], abs=1e-15)


def test_dragon_count_reproduces_the_published_tags():
    # Jacobson's Dragon 7 count, A..9 then 10s: {0,0,0,-1,-1,-1,-1,2,2,0}.
    system = count_system(TableRules(variant="ez"), "dragon7", max_tag=2)
    published = {1: 0, 2: 0, 3: 0, 4: -1, 5: -1, 6: -1, 7: -1, 8: 2, 9: 2, 0: 0}
    assert {v: int(system.tags[v]) for v in range(10)} == published


def test_panda_eor_signs_match_the_published_count():
    # Shackleford's Panda 8 count, A..9 then 10s: {1,1,-2,-2,-2,-1,-1,-2,4,1}.
    eor = effect_of_removal(TableRules(variant="ez"))["panda8"]
    published = {1: 1, 2: 1, 3: -2, 4: -2, 5: -2, 6: -1, 7: -1, 8: -2, 9: 4, 0: 1}
    assert {v: int(np.sign(eor[v])) for v in range(10)} == {
        v: int(np.sign(t)) for v, t in published.items()
    }
    assert int(np.argmax(eor)) == 9


def test_count_system_true_count_and_estimate():
    rules = TableRules(variant="ez")
    system = count_system(rules, "dragon7")
    seen = np.zeros(10)
    seen[8] = 1
    # One card seen: the linear estimate is exact.
    exact = expected_values(shoe_counts(8) - seen.astype(int), rules)["dragon7"]
    assert system.estimated_ev(seen) == pytest.approx(exact, abs=1e-15)
    # A few cards seen: the estimate moves the right way and lands close to the exact figure.
    seen = np.array([0, 0, 0, 0, 3, 2, 2, 3, 0, 0])
    exact = expected_values(shoe_counts(8) - seen, rules)["dragon7"]
    shift = exact - system.base_ev
    assert shift < -0.02
    assert abs(system.estimated_ev(seen) - exact) < 0.05 * abs(shift)
    # Integer tags, by hand: one 4 and three 8s seen = -1 + 3 * 2 = 5; 412 cards left.
    tagged = count_system(rules, "dragon7", max_tag=2)
    seen = np.array([[0, 0, 0, 0, 1, 0, 0, 0, 3, 0], [0] * 10])
    np.testing.assert_array_equal(tagged.running_count(seen), [5, 0])
    np.testing.assert_allclose(tagged.true_count(seen), [5 / (412 / 52), 0])
    with pytest.raises(OddsError, match="unknown bet 'dragon8'"):
        count_system(rules, "dragon8")
