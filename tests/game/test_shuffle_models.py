"""``generate --shuffle``: riffled discards and a continuous shuffling machine."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import numpy as np
import pytest
from baccarat import Run, Session
from baccarat.cards import full_deck_codes
from baccarat.deal import generate_coups
from baccarat.io.parquet import parquet_files, read_coups, read_metadata
from baccarat.parallel import generate_dataset
from baccarat.rules import TableRules
from baccarat.shuffles import (
    ShuffleError,
    generate_model_coups,
    parse_shuffle,
    riffle_once,
    rising_sequences,
)
from cli_text import cli as run


def eulerian(n: int, k: int) -> int:
    """Permutations of n with k descents (the explicit alternating sum)."""
    return sum((-1) ** j * comb(n + 1, j) * (k + 1 - j) ** n for j in range(k + 1))


@pytest.mark.parametrize("riffles", [1, 2, 3])
def test_riffles_follow_the_gilbert_shannon_reeds_law(riffles: int) -> None:
    # Bayer & Diaconis (1992): after k GSR riffles of n cards, a permutation with r rising
    # sequences has probability C(2^k + n - r, n) / 2^(kn); A(n, r - 1) permutations have r.
    n, trials = 6, 12_000
    state = np.array([2024 + riffles], dtype=np.uint64)
    counts = np.zeros(n + 1)
    buf = np.empty(n, dtype=np.int8)
    for _ in range(trials):
        deck = np.arange(n, dtype=np.int8)
        for _ in range(riffles):
            riffle_once(deck, buf, state)
        counts[rising_sequences(deck.astype(np.int64))] += 1
    a = 2 ** riffles
    expected = np.array([0.0] + [eulerian(n, r - 1) * comb(a + n - r, n) / a ** n
                                 for r in range(1, n + 1)])
    assert expected.sum() == pytest.approx(1.0)
    assert (counts[expected == 0] == 0).all()  # never more than 2^k rising sequences
    seen = expected > 0
    chi2 = float((((counts - trials * expected) ** 2)[seen] / (trials * expected[seen])).sum())
    assert chi2 < 25, (counts / trials, expected)  # df <= 5: P(chi2 > 25) < 0.0002


def test_a_riffle_keeps_every_card_and_at_most_2_to_the_k_rising_sequences() -> None:
    assert [eulerian(4, k) for k in range(4)] == [1, 11, 11, 1]
    state = np.array([7], dtype=np.uint64)
    cards = np.arange(100, dtype=np.int8)
    buf = np.empty(100, dtype=np.int8)
    for k in range(1, 5):
        riffle_once(cards, buf, state)
        assert sorted(cards) == list(range(100))
        assert rising_sequences(cards.astype(np.int64)) <= 2 ** k


def test_riffle_shoes_are_pure_functions_of_seed_table_and_shoe() -> None:
    model = parse_shuffle("riffle:2:strip:cut", table_shoes=5)
    rules = TableRules()
    whole = generate_model_coups(rules, 3, np.arange(15), model)
    # A chunk that starts inside a table (shoe 7 = table 1, shoe 2) gets the same shoes.
    part = generate_model_coups(rules, 3, np.arange(7, 15), model)
    tail = whole.shoe >= 7
    assert np.array_equal(whole.cards[tail], part.cards)
    assert np.array_equal(whole.outcome[tail], part.outcome)
    # The first shoe of each table is the uniform shoe of that id; the others are not.
    uniform = generate_coups(rules, 3, np.array([0, 5, 10, 1]))
    def shoe_cards(coups, shoe):
        return coups.cards[coups.shoe == shoe]
    for shoe in (0, 5, 10):
        assert np.array_equal(shoe_cards(whole, shoe), shoe_cards(uniform, shoe))
    assert not np.array_equal(shoe_cards(whole, 1)[:5], shoe_cards(uniform, 1)[:5])


def test_one_riffle_keeps_most_of_the_last_shoe_in_order() -> None:
    # Each next shoe is the previous shoe's order after one riffle: the dealt cards of shoe
    # 1 are an interleaving of two runs of shoe 0's order, so most neighbours stay neighbours.
    model = parse_shuffle("riffle:1", table_shoes=2)
    coups = generate_model_coups(TableRules(burn="none"), 1, np.arange(2), model)
    order = [0, 3, 1, 4, 2, 5]
    seqs = []
    for s in (0, 1):
        cards = coups.cards[coups.shoe == s][:, order].ravel()
        seqs.append(cards[cards >= 0])
    pairs = set(zip(seqs[0][:-1], seqs[0][1:], strict=True))
    kept = np.mean([p in pairs for p in zip(seqs[1][:-1], seqs[1][1:], strict=True)])
    assert kept > 0.4  # about 0.5 for one riffle, 0.15 by chance


def test_csm_deals_every_coup_from_a_full_shoe() -> None:
    model = parse_shuffle("csm", coups_per_shoe=30)
    coups = generate_model_coups(TableRules(decks=1), 4, np.arange(200), model)
    assert len(coups) == 200 * 30
    assert (coups.burn_shown == -1).all()
    # One deck: without a CSM, cards of a shoe repeat at most 4 times by rank; with one,
    # the 30 coups (about 150 cards) of a shoe show some rank far more often than 4 times.
    ranks = np.where(coups.cards >= 0, coups.cards // 5, -1)
    per_shoe = [np.bincount(ranks[coups.shoe == s].ravel()[ranks[coups.shoe == s].ravel() >= 0],
                            minlength=14)[1:] for s in range(5)]
    assert max(int(c.max()) for c in per_shoe) > 16
    # The first cards of every coup are a uniform draw from the full deck: ace of spades
    # (code 5) as Player's first card about 1/52 of the time.
    share = float((coups.cards[:, 0] == full_deck_codes(1)[0]).mean())
    assert abs(share - 1 / 52) < 4 * np.sqrt(1 / 52 * 51 / 52 / len(coups))


def test_parse_shuffle_refusals() -> None:
    for spec, message in (("riffle", "no such model"), ("riffle:0", "1 to 20"),
                          ("riffle:3:strip:strip", "once each"), ("shuffle", "no such model"),
                          ("riffle:2:twice", "only 'strip' and 'cut'")):
        with pytest.raises(ShuffleError, match=message):
            parse_shuffle(spec)
    with pytest.raises(ShuffleError, match="^table_shoes chains"):
        parse_shuffle("csm", table_shoes=4)
    with pytest.raises(ShuffleError, match="^coups_per_shoe sets"):
        parse_shuffle("riffle:2", coups_per_shoe=4)
    assert parse_shuffle("RIFFLE:3:cut").spec == "riffle:3:cut"


def test_generate_shuffle_cli_metadata_and_uniform_unchanged(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    uniform = tmp_path / "uniform"
    assert run("generate", "--shoes", "12", "--seed", "2", "--out", str(plain), "-q"
               ).exit_code == 0
    assert run("generate", "--shoes", "12", "--seed", "2", "--out", str(uniform), "-q",
               "--shuffle", "uniform").exit_code == 0
    for a, b in zip(parquet_files(plain), parquet_files(uniform), strict=True):
        assert a.read_bytes() == b.read_bytes()

    riffled = tmp_path / "riffled"
    result = run("generate", "--shoes", "12", "--seed", "2", "--out", str(riffled), "-q",
                 "--shuffle", "riffle:3:cut", "--table-shoes", "4", "--chunk", "5")
    assert result.exit_code == 0, result.output
    meta = read_metadata(riffled)
    assert meta["shuffle"]["model"] == "riffle:3:cut" and meta["table_shoes"] == 4
    assert json.loads((riffled / "_dataset.json").read_text())["shuffle"]["riffles"] == 3
    coups, _ = read_coups(riffled)
    expected = generate_model_coups(TableRules(), 2, np.arange(12),
                                    parse_shuffle("riffle:3:cut", table_shoes=4))
    assert np.array_equal(coups.cards, expected.cards)  # chunks of 5 cut tables of 4
    from baccarat import backtest
    backtest(riffled, ["flat"], run=Run(out=tmp_path / "run", ledger=False))
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["dataset"]["shuffle"]["model"] == "riffle:3:cut"

    bad = run("generate", "--shoes", "3", "--out", str(tmp_path / "bad"), "--shuffle", "cms")
    assert bad.exit_code == 2 and "--shuffle 'cms': no such model" in bad.output
    assert not (tmp_path / "bad").exists()


def test_generate_dataset_takes_a_csm_model(tmp_path: Path) -> None:
    document = generate_dataset(tmp_path / "csm", shoes=6, seed=1,
                                shuffle=parse_shuffle("csm", coups_per_shoe=10))
    assert document["coups"] == 60 and document["shuffle"]["coups_per_shoe"] == 10


def test_counting_under_a_csm_finds_no_edge() -> None:
    # One-deck EZ, Dragon 7 when the true count says so. From shoes dealt down, the same
    # counter wins (tests/game/test_counting.py: mean EV of its bets above +5%); from a CSM every
    # coup comes from a full deck, whatever was dealt before, so its bets carry the full
    # deck's house edge and the count is noise.
    from baccarat import backtest
    from baccarat.strategies.presets import CounterPreset as Counter
    from hand_made import assert_within

    rules = TableRules(decks=1, variant="ez")
    coups = generate_model_coups(rules, 12, np.arange(30_000),
                                 parse_shuffle("csm", coups_per_shoe=9))
    coups.decks = 1
    counter = Counter(bet="dragon7", method="true_count", kelly=0.0)
    row = backtest(coups, [counter], rules=rules, session=Session(bankroll=1e6),
                   run=Run(ledger=False)).summary.iloc[0]
    assert row.mean_wagered > 10  # it does bet: about 1.5 bets of 10 a shoe
    full_deck_edge = -row.house_edge
    assert full_deck_edge == pytest.approx(-0.0758, abs=1e-3)
    assert_within(row, full_deck_edge)
    assert row.realized_edge_high < 0.0
