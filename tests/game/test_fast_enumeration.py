"""The grouped enumeration against the path-by-path one it replaced, and against brute force.

:mod:`baccarat.odds.enumeration` sums the third cards of every group of four-card deals from
the group's moments; :mod:`baccarat.odds.reference` keeps the direct enumeration. Their
integer tallies must agree digit for digit (so every probability and EV to far better than
1e-12) on every composition: random ones of 1 to 8 decks, depleted ones where whole values
are gone and some hands cannot happen, and hand-built shoes of a few cards, which are also
dealt card by card here in pure Python.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import numpy as np
import pytest
from baccarat.odds import (
    BET_KINDS,
    EVENTS,
    ev_from_probabilities,
    event_probabilities,
    expected_values_batch,
    outcome_combinations,
    pair_probability,
    shoe_counts,
)
from baccarat.odds.enumeration import (
    LANES,
    MIN_LANES,
    N_EVENTS,
    _tally_rows,
    _tally_threads,
    sequences_total,
)
from baccarat.odds.reference import reference_tallies
from baccarat.rules import TableRules
from hypothesis import given, settings
from hypothesis import strategies as st

RULES = [
    TableRules(),
    TableRules(commission=0.04, tie_pays=9, pair_pays=5),
    TableRules(variant="ez"),
    TableRules(variant="super6"),
]


def fast_tallies(rows: np.ndarray, parallel: bool = False) -> np.ndarray:
    values = np.ascontiguousarray(np.atleast_2d(rows), dtype=np.int64)
    out = np.zeros((values.shape[0], N_EVENTS), dtype=np.int64)
    (_tally_threads if parallel else _tally_rows)(values, out)
    return out


@st.composite
def compositions(draw: st.DrawFn) -> np.ndarray:
    """A composition by value that a shoe of 1 to 8 decks can hold, six cards or more."""
    decks = draw(st.integers(1, 8))
    full = shoe_counts(decks)
    # Depletion anywhere from none to nearly all, and values wiped out entirely.
    counts = np.array([draw(st.integers(0, int(n))) for n in full], dtype=np.int64)
    for v in draw(st.sets(st.integers(0, 9), max_size=8)):
        counts[v] = 0
    if counts.sum() < 6:
        counts[draw(st.integers(0, 9))] += 6
    return counts


@settings(max_examples=300, deadline=None)
@given(counts=compositions())
def test_tallies_equal_the_reference_on_random_compositions(counts: np.ndarray) -> None:
    np.testing.assert_array_equal(fast_tallies(counts), reference_tallies(counts))


@settings(max_examples=25, deadline=None)
@given(batch=st.lists(compositions(), min_size=MIN_LANES, max_size=LANES + 9))
def test_blocks_of_compositions_equal_the_reference_row_by_row(batch: list[np.ndarray]) -> None:
    # Enough rows to be enumerated together, one per lane of a block (and two blocks when
    # there are more than LANES): every row must still be its own composition's tallies.
    rows = np.array(batch)
    np.testing.assert_array_equal(fast_tallies(rows), reference_tallies(rows))


@settings(max_examples=60, deadline=None)
@given(counts=compositions(), decks=st.integers(1, 8))
def test_every_bet_ev_equals_the_reference_to_1e12(counts: np.ndarray, decks: int) -> None:
    decks = max(decks, int(np.ceil(np.max(counts[1:] / 4))), int(np.ceil(counts[0] / 16)))
    reference = reference_tallies(counts).astype(np.float64) / sequences_total(int(counts.sum()))
    pair = pair_probability(counts[None, :], decks)
    for rules in RULES:
        rules = rules.model_copy(update={"decks": decks})
        expected = ev_from_probabilities(reference, pair, rules)
        got = expected_values_batch(counts[None, :], rules)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


# Hand-built value compositions: the smallest shoes, one value only, no naturals possible,
# no third card possible, only naturals, a shoe missing most values.
HAND_BUILT = [
    [6, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 6],
    [0, 0, 0, 0, 6, 0, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 3, 3],
    [0, 0, 0, 3, 0, 0, 0, 0, 0, 4],
    [2, 0, 0, 0, 0, 0, 0, 1, 0, 4],
    [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [16, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [128, 32, 32, 32, 32, 32, 32, 32, 32, 32],
    [128, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 32, 32, 32, 32, 32, 32, 32, 32, 32],
    [3, 1, 0, 2, 0, 1, 0, 0, 0, 0],
]


@pytest.mark.parametrize("counts", HAND_BUILT, ids=lambda c: "-".join(map(str, c)))
def test_hand_built_shoes_equal_the_reference(counts: list[int]) -> None:
    np.testing.assert_array_equal(fast_tallies(np.array(counts)), reference_tallies(counts))


def test_hand_built_shoes_in_one_block_equal_the_reference() -> None:
    # The same shoes side by side in the lanes of one block, among full and empty-ish ones.
    rows = np.array(HAND_BUILT + [list(shoe_counts(d)) for d in (1, 6, 8)] + HAND_BUILT[::-1])
    assert rows.shape[0] >= MIN_LANES
    np.testing.assert_array_equal(fast_tallies(rows), reference_tallies(rows))


@pytest.mark.parametrize("size", [1, MIN_LANES - 1, MIN_LANES, LANES, LANES + 1, 2 * LANES + 3])
def test_every_block_size_gives_the_same_tallies(size: int) -> None:
    rng = np.random.default_rng(size)
    full = shoe_counts(8)
    rows = np.array([full - rng.multinomial(int(rng.integers(0, 400)), full / full.sum())
                     for _ in range(size)]).clip(min=0)
    one_by_one = np.vstack([fast_tallies(row) for row in rows])
    np.testing.assert_array_equal(fast_tallies(rows), one_by_one)
    np.testing.assert_array_equal(fast_tallies(rows[:3]), reference_tallies(rows[:3]))


def _card_by_card(values: tuple[int, ...]) -> Counter:
    """Event tallies of a shoe of physical cards (by value), every ordered six-card deal."""
    tally: Counter = Counter()
    for seq in itertools.permutations(values, 6):
        p, b = [seq[0], seq[2]], [seq[1], seq[3]]
        pt, bt = sum(p) % 10, sum(b) % 10
        if pt < 8 and bt < 8:
            third = None
            nxt = 4
            if pt <= 5:
                third = seq[nxt]
                p.append(third)
                nxt += 1
            if third is None:
                banker = bt <= 5
            else:
                banker = third in {0: range(10), 1: range(10), 2: range(10),
                                   3: [v for v in range(10) if v != 8], 4: range(2, 8),
                                   5: range(4, 8), 6: range(6, 8), 7: ()}[bt]
            if banker:
                b.append(seq[nxt])
        pt, bt = sum(p) % 10, sum(b) % 10
        win_b, win_p = bt > pt, pt > bt
        tally["banker"] += win_b
        tally["player"] += win_p
        tally["tie"] += pt == bt
        tally["banker_three_card_7"] += win_b and len(b) == 3 and bt == 7
        tally["player_three_card_8"] += win_p and len(p) == 3 and pt == 8
        tally["banker_two_card_6"] += win_b and len(b) == 2 and bt == 6
        tally["banker_three_card_6"] += win_b and len(b) == 3 and bt == 6
    return tally


@pytest.mark.parametrize("shoe", [
    (0, 0, 0, 0, 0, 0),
    (9, 9, 9, 8, 8, 8),
    (1, 2, 3, 4, 5, 6, 7),
    (0, 0, 5, 5, 5, 6, 7, 1),
    (0, 1, 2, 3, 4, 5, 6, 7, 8),
])
def test_small_shoes_match_a_card_by_card_deal(shoe: tuple[int, ...]) -> None:
    combos = outcome_combinations(np.bincount(shoe, minlength=10))
    expected = _card_by_card(shoe)
    assert {name: combos[name] for name in EVENTS} == {name: expected[name] for name in EVENTS}


def test_parallel_batches_equal_row_by_row_across_block_edges() -> None:
    rng = np.random.default_rng(7)
    full = shoe_counts(8)
    rows = np.array([rng.integers(0, full + 1) for _ in range(201)])
    rows[:, 0] += 6
    # two blocks and a bit (a thread each), then four blocks and a bit over the threads
    for n in (70, 201):
        np.testing.assert_array_equal(fast_tallies(rows[:n], parallel=True),
                                      fast_tallies(rows[:n]))
    np.testing.assert_array_equal(fast_tallies(rows[:5]), reference_tallies(rows[:5]))


def test_probabilities_of_a_batch_sum_to_one_and_match_single_rows() -> None:
    rows = np.array(HAND_BUILT[:8] + [list(shoe_counts(1))])
    probs = event_probabilities(rows)
    np.testing.assert_allclose(probs[:, :3].sum(axis=1), 1.0, atol=1e-15)
    for row, p in zip(rows, probs, strict=True):
        single = outcome_combinations(row)
        assert single["banker"] / single["total"] == pytest.approx(p[0], abs=1e-15)


def test_batches_enumerate_each_distinct_composition_once_and_give_every_row_back() -> None:
    from baccarat.odds.composition import distinct_rows

    rng = np.random.default_rng(3)
    by_value = rng.integers(0, 5, size=(30, 10))
    by_value = np.vstack([by_value, by_value[:10], by_value[:1]])
    by_rank = np.vstack([rng.integers(0, 5, size=(8, 13))] * 2)
    beyond = np.vstack([np.full((2, 10), 300), np.full((1, 10), 300)])  # not packable
    for rows, n_distinct in ((by_value, 30), (by_rank, 8), (beyond, 1), (by_value[:1], 1)):
        unique, inverse = distinct_rows(rows)
        assert unique.shape[0] == n_distinct
        np.testing.assert_array_equal(unique[inverse], rows)
    rules = TableRules(variant="ez")
    batch = expected_values_batch(by_value + 2, rules)
    one_by_one = np.vstack([expected_values_batch(row[None, :], rules) for row in by_value + 2])
    np.testing.assert_array_equal(batch, one_by_one)


def test_the_counters_exact_ev_equals_the_reference_on_mid_shoe_compositions() -> None:
    from baccarat.strategies.selections.counting import CompositionCache, exact_ev

    rng = np.random.default_rng(11)
    shoe = np.repeat(np.arange(10), shoe_counts(8))
    rows = np.array([np.bincount(rng.permutation(shoe)[rng.integers(0, 410):], minlength=10)
                     for _ in range(40)])
    reference = reference_tallies(rows).astype(np.float64)
    reference /= np.asarray(sequences_total(rows.sum(axis=1)), dtype=np.float64)[:, None]
    pair = pair_probability(rows, 8)
    for rules in RULES[2:]:
        expected = ev_from_probabilities(reference, pair, rules)
        for k, kind in enumerate(BET_KINDS):
            got = exact_ev(rows, rules, kind, decks=8, cache=CompositionCache())
            np.testing.assert_allclose(got, expected[:, k], rtol=0, atol=1e-12)


def test_batch_ev_through_the_cache_equals_the_batch_ev_without_it() -> None:
    from baccarat.odds.cache import CompositionCache

    rng = np.random.default_rng(5)
    full = shoe_counts(8)
    rows = np.array([full - rng.multinomial(int(rng.integers(0, 380)), full / full.sum())
                     for _ in range(30)]).clip(min=0)
    rows = np.vstack([rows, rows[:12], rows[:1]])  # compositions repeated, as sessions share
    cache = CompositionCache()
    for rules in RULES:
        rules = rules.model_copy(update={"decks": 8})
        without = expected_values_batch(rows, rules)
        np.testing.assert_array_equal(expected_values_batch(rows, rules, cache=cache), without)
    assert cache.misses == 30  # each distinct composition enumerated once, for every rule set


# The polynomial path (baccarat.odds.polynomial): chosen events only, by matrix products.


def test_polynomial_coefficients_count_every_value_sequence_once() -> None:
    from math import factorial

    from baccarat.odds.polynomial import _BASE7, coefficients

    keys, tallies = coefficients()
    assert keys.size == 5005  # multisets of six of ten values: C(15, 6)
    assert tallies[:, :3].sum() == 10**6  # every sequence ends in exactly one outcome
    # A multiset's outcomes add up to its distinct orderings: 6! / prod(k_v!).
    counts = keys[:, None] // _BASE7[None, :] % 7
    orderings = factorial(6) / np.prod([[factorial(int(k)) for k in row] for row in counts],
                                       axis=1)
    np.testing.assert_array_equal(tallies[:, :3].sum(axis=1), orderings)


@settings(max_examples=40, deadline=None)
@given(batch=st.lists(compositions(), min_size=1, max_size=40))
def test_polynomial_tallies_equal_the_reference_bit_for_bit(batch: list[np.ndarray]) -> None:
    from baccarat.odds.polynomial import event_tallies

    rows = np.array(batch)
    np.testing.assert_array_equal(event_tallies(rows, range(N_EVENTS)), reference_tallies(rows))


def test_polynomial_tallies_of_hand_built_shoes_and_chosen_events_equal_the_reference() -> None:
    from baccarat.odds.polynomial import BLOCK, event_tallies

    rng = np.random.default_rng(17)
    full = shoe_counts(8)
    deep = np.array([full - rng.multinomial(int(rng.integers(0, 410)), full / full.sum())
                     for _ in range(BLOCK + 20)]).clip(min=0)  # two blocks
    deep[deep.sum(axis=1) < 6, 0] += 6
    rows = np.vstack([np.array(HAND_BUILT), deep])
    reference = reference_tallies(rows)
    for chosen in [(2,), (3,), (5, 6), (0, 1), (4,), (0, 1, 3)]:
        np.testing.assert_array_equal(event_tallies(rows, chosen), reference[:, chosen])


def test_chosen_probabilities_are_the_enumerations_floats_and_nan_elsewhere() -> None:
    from baccarat.odds.polynomial import MAX_CHOSEN, chosen_probabilities

    rows = np.array(HAND_BUILT + [list(shoe_counts(d)) for d in (1, 8)])
    full = event_probabilities(rows, parallel=False)
    for chosen in [(2,), (5, 6), (0, 1, 3), (0, 1, 5, 6), (), (0, 1, 2, 3, 4)]:
        got = chosen_probabilities(rows, chosen)
        np.testing.assert_array_equal(got[:, list(chosen)], full[:, list(chosen)])
        others = [e for e in range(N_EVENTS) if e not in chosen]
        if len(chosen) <= MAX_CHOSEN:
            assert np.isnan(got[:, others]).all()
        else:  # the grouped enumeration: all seven anyway
            np.testing.assert_array_equal(got, full)


def test_the_cache_computes_the_events_asked_for_and_completes_them_later() -> None:
    from baccarat.odds.cache import CompositionCache

    rng = np.random.default_rng(23)
    full = shoe_counts(8)
    rows = np.array([full - rng.multinomial(int(rng.integers(0, 380)), full / full.sum())
                     for _ in range(12)]).clip(min=0)
    everything = event_probabilities(rows, parallel=False)
    cache = CompositionCache()
    tie = cache.events(rows, [2])
    np.testing.assert_array_equal(tie[:, 2], everything[:, 2])
    assert cache.misses == 12
    cache.events(rows[::-1], [2])
    assert (cache.hits, cache.misses) == (12, 12)  # known now
    dragon = cache.events(rows, [3])  # another event: computed, the tie kept
    np.testing.assert_array_equal(dragon[:, [2, 3]], everything[:, [2, 3]])
    assert cache.misses == 24
    np.testing.assert_array_equal(cache.events(rows), everything)  # all seven, as before
    assert cache.misses == 36
    np.testing.assert_array_equal(cache.events(rows, [4]), everything)
    assert cache.misses == 36 and len(cache) == 12
    assert np.isnan(cache.events(rows[:2], [])).all() and cache.misses == 36


def test_batch_ev_of_chosen_kinds_through_the_cache_fills_those_columns_exactly() -> None:
    from baccarat.odds.cache import CompositionCache

    rng = np.random.default_rng(29)
    full = shoe_counts(8)
    rows = np.array([full - rng.multinomial(int(rng.integers(0, 380)), full / full.sum())
                     for _ in range(20)]).clip(min=0)
    for rules in RULES:
        rules = rules.model_copy(update={"decks": 8})
        everything = expected_values_batch(rows, rules)
        for kinds in [("tie",), ("banker", "player_pair"), ("dragon7", "super6", "player")]:
            got = expected_values_batch(rows, rules, cache=CompositionCache(), kinds=kinds)
            columns = [BET_KINDS.index(k) for k in kinds]
            np.testing.assert_array_equal(got[:, columns], everything[:, columns])
            others = [k for k in range(len(BET_KINDS)) if k not in columns]
            assert np.isnan(got[:, others]).all()


@pytest.mark.parametrize("variant, bets", [("ez", ("tie", "dragon7", "banker", "panda8")),
                                           ("super6", ("super6", "banker", "player_pair")),
                                           ("standard", ("player",))])
def test_counters_play_the_same_ledger_when_every_event_is_enumerated(
        variant: str, bets: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    # The counters ask for their kind's events only; forcing the enumeration of all seven
    # (the path before the polynomial) must give the same ledgers, float for float.
    from baccarat.deal import generate_coups
    from baccarat.odds import cache as cache_module
    from baccarat.odds import polynomial
    from baccarat.replay import replay
    from baccarat.strategies.presets import CounterPreset as Counter

    rules = TableRules(variant=variant)
    coups = generate_coups(rules, 3, np.arange(12))
    counters = [Counter(bet=bet, threshold=-0.02 if bet in ("banker", "player") else 0.0)
                for bet in bets] + [Counter(bet=bets[0], screen=None, threshold=-0.2)]

    def play() -> list:
        cache_module.CACHE.clear()
        return replay(coups, counters, rules, expected="exact")[1]

    fast = play()
    monkeypatch.setattr(polynomial, "MAX_CHOSEN", -1)  # every request: all seven events
    slow = play()
    staked = 0
    for a, b in zip(fast, slow, strict=True):
        # Every grid and session end of the ledger: nets, bankrolls, stakes, prices, stops.
        for field in dataclasses.fields(a):
            x, y = getattr(a, field.name), getattr(b, field.name)
            if isinstance(x, dict):
                assert x.keys() == y.keys()
                for kind in x:
                    np.testing.assert_array_equal(x[kind], y[kind])
            elif isinstance(x, np.ndarray):
                np.testing.assert_array_equal(x, y)
            else:
                assert x == y, field.name
        staked += int((a.exact_expected != 0).sum())
    assert staked > 50  # the counters did stake, so the prices were compared


def test_distinct_keys_by_hand() -> None:
    from baccarat.odds.composition import distinct_keys

    unique, first, inverse = distinct_keys(np.array([5, 3, 5, 1], dtype=np.int64))
    assert unique.tolist() == [1, 3, 5] and first.tolist() == [3, 1, 0]
    assert inverse.tolist() == [2, 1, 2, 0]
