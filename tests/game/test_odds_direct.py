"""The numpy enumeration (``baccarat.odds.direct``) gives the compiled kernel's integers.

``baccarat odds`` evaluates one composition; numpy does it in milliseconds without
loading numba. It must agree with the kernel to the last integer on every composition,
with the published 8-deck table, and with a deal of every permutation of small shoes.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from baccarat.odds import outcome_combinations, shoe_counts
from baccarat.odds.direct import direct_tallies
from baccarat.odds.enumeration import EVENTS

ROOT = Path(__file__).resolve().parents[2]


def _kernel(counts) -> list[int]:
    combos = outcome_combinations(np.asarray(counts))
    return [combos[name] for name in EVENTS]


def test_eight_decks_match_the_published_combination_counts():
    tallies = dict(zip(EVENTS, direct_tallies(shoe_counts(8)).tolist(), strict=True))
    # Wizard of Odds, baccarat combinations over 416 * 415 * ... * 411 sequences.
    assert tallies["tie"] == 475_627_426_473_216
    assert tallies["banker_three_card_7"] == 112_633_011_329_024
    assert tallies["player_three_card_8"] == 172_660_763_262_976
    assert tallies["banker_two_card_6"] == 186_173_936_904_192
    assert tallies["banker_three_card_6"] == 83_058_367_551_488
    assert tallies["banker"] + tallies["player"] + tallies["tie"] == 4_998_398_275_503_360


@pytest.mark.parametrize("decks", range(1, 9))
def test_full_shoes_match_the_kernel(decks):
    assert direct_tallies(shoe_counts(decks)).tolist() == _kernel(shoe_counts(decks))


def test_random_and_depleted_compositions_match_the_kernel():
    rng = np.random.default_rng(12)
    checked = 0
    while checked < 60:
        counts = rng.integers(0, rng.integers(1, 33), 10)
        counts[rng.random(10) < 0.3] = 0  # values run out
        if counts.sum() < 6:
            continue
        assert direct_tallies(counts).tolist() == _kernel(counts), counts.tolist()
        checked += 1
    top = shoe_counts(8)  # the largest shoe: the sums closest to int64's limit
    top[0] -= 3
    assert direct_tallies(top).tolist() == _kernel(top)


def _baccarat_deal(cards: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(player total, banker total, player cards, banker cards) of a deal, by the tableau."""
    p, b = [cards[0], cards[2]], [cards[1], cards[3]]
    rest = list(cards[4:])
    pt, bt = sum(p) % 10, sum(b) % 10
    if pt < 8 and bt < 8:
        third = None
        if pt <= 5:
            third = rest.pop(0)
            p.append(third)
        stands = {3: [8], 4: [0, 1, 8, 9], 5: [0, 1, 2, 3, 8, 9], 6: [0, 1, 2, 3, 4, 5, 8, 9]}
        if third is None:
            banker_draws = bt <= 5
        else:
            banker_draws = bt <= 2 or (bt <= 6 and third not in stands[bt])
        if banker_draws:
            b.append(rest.pop(0))
    return sum(p) % 10, sum(b) % 10, len(p), len(b)


@pytest.mark.parametrize("shoe", [
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),        # one card of each value
    (9, 9, 9, 8, 8, 8, 0, 0),               # naturals everywhere
    (1, 2, 3, 4, 5, 6),                     # exactly six cards
    (0, 0, 0, 0, 6, 7, 7, 3, 5),
])
def test_small_shoes_match_every_permutation_dealt(shoe):
    tally: Counter[str] = Counter()
    for cards in itertools.permutations(shoe, 6):
        pt, bt, n_player, n_banker = _baccarat_deal(cards)
        tally["banker" if bt > pt else "player" if pt > bt else "tie"] += 1
        tally["banker_three_card_7"] += bt > pt and n_banker == 3 and bt == 7
        tally["player_three_card_8"] += pt > bt and n_player == 3 and pt == 8
        tally["banker_two_card_6"] += bt > pt and n_banker == 2 and bt == 6
        tally["banker_three_card_6"] += bt > pt and n_banker == 3 and bt == 6
    counts = np.bincount(shoe, minlength=10)
    assert direct_tallies(counts).tolist() == [tally[name] for name in EVENTS]


def test_a_fresh_process_prices_a_shoe_without_loading_numba():
    code = ("import json, sys\n"
            "from baccarat.odds import house_edges, outcome_probabilities, shoe_rank_counts\n"
            "from baccarat.rules import TableRules\n"
            "p = outcome_probabilities(shoe_rank_counts(8))\n"
            "e = house_edges(TableRules())\n"
            "print(json.dumps({'numba': 'numba' in sys.modules, 'banker': p.banker,\n"
            "                  'edges': e}))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120, check=True)
    result = json.loads(done.stdout)
    assert result["numba"] is False
    assert round(result["banker"], 6) == 0.458597
    assert round(result["edges"]["banker"] * 100, 2) == 1.06
    assert round(result["edges"]["player"] * 100, 2) == 1.24
    assert round(result["edges"]["tie"] * 100, 2) == 14.36
