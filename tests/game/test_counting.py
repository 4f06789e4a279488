"""Card counting: the cards seen in the strategy view, exact EV on the cards left, ``counter``.

The counts a strategy sees are checked against a count made here from the coups table
(burn card shown face up, then every card of the coups already dealt in the shoe); the
exact EV against a pure-Python enumeration of a small shoe card by card; the counter's
bets against exact EVs of the compositions worked out here from the coups.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections import defaultdict
from fractions import Fraction
from typing import ClassVar

import numpy as np
import pytest
from baccarat import Run, Session, backtest
from baccarat.backtest import play
from baccarat.bets import BET_KINDS, KIND_INDEX
from baccarat.coups import Coups, coups_from_outcomes
from baccarat.deal import generate_coups
from baccarat.job import BacktestJob
from baccarat.odds import event_probabilities, expected_values, expected_values_batch
from baccarat.odds.composition import pack_compositions
from baccarat.replay import SessionPolicy, StrategyFault, replay
from baccarat.rules import TableRules
from baccarat.strategies.base import Result, Strategy, Table, TableState, Wager
from baccarat.strategies.presets import CounterPreset as Counter
from baccarat.strategies.registry import StrategyError, expand_spec
from baccarat.strategies.selections.counting import CompositionCache, exact_ev
from hand_made import assert_within, hand_coups

# --------------------------------------------------------------------------- counting here


def card_value(code: int) -> int:
    """Baccarat value of a card code, from its rank (code // 5): 10, J, Q, K and "0" are 0."""
    rank = code // 5
    return rank if rank < 10 else 0


def full_shoe(decks: int) -> np.ndarray:
    """Cards by value in ``decks`` decks: sixteen zero-valued cards and four of 1-9 a deck."""
    return np.array([16 * decks] + [4 * decks] * 9)


def shoes_of(coups: Coups) -> list[list[int]]:
    """The rows of each shoe, in table order (a shoe is a run of equal shoe ids)."""
    shoes: list[list[int]] = []
    for row in range(len(coups)):
        if row == 0 or coups.shoe[row] != coups.shoe[row - 1]:
            shoes.append([])
        shoes[-1].append(row)
    return shoes


def counted_sessions(coups: Coups, session_shoes: int) -> list[list[tuple[list[int], int]]]:
    """Per session, per coup: (cards seen by value before the coup, the coup's row)."""
    shoes = shoes_of(coups)
    sessions = []
    for first in range(0, len(shoes), session_shoes):
        steps = []
        for rows in shoes[first:first + session_shoes]:
            seen = [0] * 10
            burn = int(coups.burn_shown[rows[0]])
            if burn >= 0:
                seen[card_value(burn)] += 1
            for row in rows:
                steps.append((list(seen), row))
                for code in coups.cards[row]:
                    if code >= 0:
                        seen[card_value(int(code))] += 1
        sessions.append(steps)
    return sessions


class Probe(Strategy):
    """Test double: never bets; records the counts before and after every coup."""

    name = "probe"
    needs_cards = True

    _log: list[dict[str, np.ndarray]]

    def start(self, table: Table) -> None:
        self._log = []

    def wager(self, table: Table) -> Wager:
        self._log.append({"seen": np.array(table.seen), "remaining": np.array(table.remaining),
                         "new_shoe": np.array(table.new_shoe)})
        return Wager.on()

    def settle(self, table: Table, result: Result) -> None:
        self._log[-1]["after"] = np.array(table.seen)
        self._log[-1]["cards"] = np.array(result.cards)


def check_counts(coups: Coups, probe: Probe, session_shoes: int, decks: int) -> int:
    """Compare every count the probe saw with the count made here; returns coups checked."""
    checked = 0
    for s, steps in enumerate(counted_sessions(coups, session_shoes)):
        assert len(steps) <= len(probe._log)
        for t, (seen, row) in enumerate(steps):
            step = probe._log[t]
            assert step["seen"][s].tolist() == seen, f"session {s}, coup {t + 1}"
            assert step["remaining"][s].tolist() == (full_shoe(decks) - seen).tolist()
            cards = [card_value(int(c)) for c in coups.cards[row] if c >= 0]
            after = np.array(seen) + np.bincount(cards, minlength=10)
            assert step["after"][s].tolist() == after.tolist()
            assert step["cards"][s].tolist() == coups.cards[row].tolist()
            opens = t == 0 or coups.shoe[row] != coups.shoe[steps[t - 1][1]]
            assert bool(step["new_shoe"][s]) == opens
            checked += 1
    return checked


# --------------------------------------------------------------------------- the strategy view


@pytest.mark.parametrize("session_shoes", [1, 2, 3])
@pytest.mark.parametrize("decks", [8, 1])
def test_seen_and_remaining_match_a_count_from_the_coups(session_shoes: int, decks: int) -> None:
    # Seven shoes: sessions of 1, 2 or 3 shoes (the last one shorter), shoes of different
    # lengths, a shoe change inside a session, the burn card shown face up.
    rules = TableRules(decks=decks)
    coups = generate_coups(rules, 77, np.arange(7))
    coups.decks = decks
    probe = Probe()
    replay(coups, [probe], rules, SessionPolicy(session_shoes=session_shoes))
    assert check_counts(coups, probe, session_shoes, decks) == len(coups)
    assert (coups.burn_shown >= 0).all()


@pytest.mark.parametrize("burn", [{"burn": "none"}, {"burn": "fixed", "burn_count": 5}])
def test_nothing_is_seen_of_a_burn_not_shown(burn: dict[str, object]) -> None:
    rules = TableRules(decks=2, **burn)  # type: ignore[arg-type]
    coups = generate_coups(rules, 5, np.arange(3))
    coups.decks = 2
    assert (coups.burn_shown < 0).all()
    probe = Probe()
    replay(coups, [probe], rules, SessionPolicy(session_shoes=2))
    assert check_counts(coups, probe, 2, 2) == len(coups)
    assert probe._log[0]["seen"].sum() == 0


def test_counts_by_hand_burn_card_included() -> None:
    coups = hand_coups([[("KS 3H 2D", "2C 2H 3S"), ("AS 4D 3C", "10H 6C")],
                        [("4S 4H", "8C KD")]], burn=["7H", "QD"], decks=8)
    probe = Probe()
    replay(coups, [probe], TableRules(), SessionPolicy(session_shoes=2))
    seen = [step["seen"][0].tolist() for step in probe._log]
    #            0  A  2  3  4  5  6  7  8  9
    assert seen == [
        [0, 0, 0, 0, 0, 0, 0, 1, 0, 0],   # the burn card 7 shown
        [1, 0, 3, 2, 0, 0, 0, 1, 0, 0],   # + K 3 2, 2 2 3
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],   # new shoe: only its burn card Q
    ]
    assert probe._log[2]["remaining"][0].tolist() == [127] + [32] * 9
    assert probe._log[1]["after"][0].tolist() == [2, 1, 3, 3, 1, 0, 1, 1, 0, 0]


def test_a_shoe_whose_coups_are_not_numbered_from_one_still_starts_afresh() -> None:
    rules = TableRules(decks=8)
    coups = generate_coups(rules, 9, np.arange(2))
    coups.decks = 8
    second = coups.shoe == 1
    coups.coup = np.where(second, coups.coup + 2, coups.coup).astype(np.int16)
    probe = Probe()
    replay(coups, [probe], rules, SessionPolicy(session_shoes=2))
    assert check_counts(coups, probe, 2, 8) == len(coups)


def test_every_configuration_sees_the_same_counts_and_none_can_change_them() -> None:
    rules = TableRules(decks=6)
    coups = generate_coups(rules, 3, np.arange(4))
    coups.decks = 6
    probes = [Probe(), Probe()]
    replay(coups, [probes[0], Counter(), probes[1]], rules,
           SessionPolicy(session_shoes=2, max_coups=30))
    for a, b in zip(probes[0]._log, probes[1]._log, strict=True):
        assert np.array_equal(a["seen"], b["seen"])
    # Stopped sessions (max_coups) still follow their shoe: the counts stay true.
    assert check_counts(coups, probes[1], 2, 6) == len(coups)

    class Tamper(Probe):
        def wager(self, table: Table) -> Wager:
            assert table.seen is not None
            table.seen[0, 0] = 99
            return Wager.on()

    with pytest.raises(StrategyFault,
                       match="wrote into its table in wager.*table.seen is read-only"):
        replay(coups, [Tamper()], rules)


# --------------------------------------------------------------------------- exact EV


def _banker_draws(banker: int, third: int | None) -> bool:
    """The printed Banker drawing rules (docs/architecture.md), given Player's third card."""
    if third is None:
        return banker <= 5
    return {0: True, 1: True, 2: True, 3: third != 8, 4: 2 <= third <= 7,
            5: 4 <= third <= 7, 6: third in (6, 7), 7: False}[banker]


def coup_distribution(ranks: list[int]) -> dict[tuple[int, int, bool, bool, bool, bool],
                                                Fraction]:
    """Every way the next coup can go from a shoe of physical cards (ranks 1-13), exactly.

    Cards are drawn one by one without replacement, P B P B then the third cards; a path
    that uses k cards has probability (count products) / (n (n-1) ... (n-k+1)). Keys:
    (player total, banker total, player drew, banker drew, player pair, banker pair).
    """
    def value(rank: int) -> int:
        return rank if rank < 10 else 0

    left = Tally(ranks)
    n = len(ranks)
    ways: dict[tuple[tuple[int, int, bool, bool, bool, bool], int], int] = defaultdict(int)

    def options() -> list[tuple[int, int]]:
        return [(rank, count) for rank, count in left.items() if count > 0]

    for p1, n1 in options():
        left[p1] -= 1
        for b1, n2 in options():
            left[b1] -= 1
            for p2, n3 in options():
                left[p2] -= 1
                for b2, n4 in options():
                    left[b2] -= 1
                    w = n1 * n2 * n3 * n4
                    pt, bt = (value(p1) + value(p2)) % 10, (value(b1) + value(b2)) % 10
                    pairs = (p1 == p2, b1 == b2)
                    if pt >= 8 or bt >= 8:
                        ways[(pt, bt, False, False, *pairs), 4] += w
                    elif pt <= 5:
                        for p3, n5 in options():
                            left[p3] -= 1
                            pt3 = (pt + value(p3)) % 10
                            if _banker_draws(bt, value(p3)):
                                for b3, n6 in options():
                                    key = (pt3, (bt + value(b3)) % 10, True, True, *pairs)
                                    ways[key, 6] += w * n5 * n6
                            else:
                                ways[(pt3, bt, True, False, *pairs), 5] += w * n5
                            left[p3] += 1
                    elif _banker_draws(bt, None):
                        for b3, n5 in options():
                            ways[(pt, (bt + value(b3)) % 10, False, True, *pairs), 5] += w * n5
                    else:
                        ways[(pt, bt, False, False, *pairs), 4] += w
                    left[b2] += 1
                left[p2] += 1
            left[b1] += 1
        left[p1] += 1
    falling = {k: int(np.prod([n - i for i in range(k)], dtype=object)) for k in (4, 5, 6)}
    dist: dict[tuple[int, int, bool, bool, bool, bool], Fraction] = defaultdict(Fraction)
    for (key, used), count in ways.items():
        dist[key] += Fraction(count, falling[used])
    assert sum(dist.values()) == 1
    return dist


def ev_by_hand(dist: dict[tuple[int, int, bool, bool, bool, bool], Fraction],
               rules: TableRules) -> dict[str, Fraction]:
    """EV of every bet kind from the coup distribution, by the printed payout rules."""
    ev: dict[str, Fraction] = defaultdict(Fraction)
    commission = Fraction(str(rules.commission))
    for (pt, bt, p_drew, b_drew, p_pair, b_pair), p in dist.items():
        banker_wins, player_wins = bt > pt, pt > bt
        if banker_wins:
            banker = {"standard": 1 - commission,
                      "ez": Fraction(0) if b_drew and bt == 7 else Fraction(1),
                      "super6": Fraction(1, 2) if bt == 6 else Fraction(1)}[rules.variant]
        else:
            banker = Fraction(-1 if player_wins else 0)
        pays = {
            "banker": banker,
            "player": 1 if player_wins else -1 if banker_wins else 0,
            "tie": rules.tie_pays if pt == bt else -1,
            "player_pair": Fraction(str(rules.pair_pays)) if p_pair else -1,
            "banker_pair": Fraction(str(rules.pair_pays)) if b_pair else -1,
            "dragon7": Fraction(str(rules.dragon7_pays)) if banker_wins and b_drew and bt == 7
            else -1,
            "panda8": Fraction(str(rules.panda8_pays)) if player_wins and p_drew and pt == 8
            else -1,
            "super6": Fraction(str(rules.super6_pays)) if banker_wins and bt == 6 else -1,
        }
        for kind, net in pays.items():
            ev[kind] += p * net
    return ev


RULE_SETS = [TableRules(decks=1), TableRules(decks=1, variant="ez"),
             TableRules(decks=1, variant="super6"),
             TableRules(decks=1, tie_pays=9, commission=0.04, pair_pays=5)]


def value_counts(ranks: list[int]) -> np.ndarray:
    return np.bincount([r if r < 10 else 0 for r in ranks], minlength=10)


def rank_counts(ranks: list[int]) -> np.ndarray:
    return np.bincount([r - 1 for r in ranks], minlength=13)


def test_exact_ev_of_a_small_shoe_matches_a_card_by_card_enumeration() -> None:
    # Eleven cards, none zero-valued: values are ranks, so even the pairs are exact by value.
    ranks = [1, 1, 2, 3, 3, 5, 7, 7, 8, 9, 9]
    dist = coup_distribution(ranks)
    for rules in RULE_SETS:
        by_hand = ev_by_hand(dist, rules)
        for kind in BET_KINDS:
            got = exact_ev(value_counts(ranks)[None, :], rules, kind, decks=1,
                           cache=CompositionCache())
            assert got[0] == pytest.approx(float(by_hand[kind]), abs=1e-13), (kind, rules)


def test_exact_ev_with_zero_valued_ranks_matches_the_enumeration() -> None:
    # 10, J, K, K are all worth 0 but only the kings pair: by rank the odds are exact for
    # every bet; by value (what the counter tracks) for every bet but the pairs.
    ranks = [10, 11, 13, 13, 1, 2, 4, 6, 8, 9, 9]
    dist = coup_distribution(ranks)
    for rules in RULE_SETS:
        by_hand = ev_by_hand(dist, rules)
        by_rank = expected_values_batch(rank_counts(ranks)[None, :], rules)[0]
        by_value = {kind: exact_ev(value_counts(ranks)[None, :], rules, kind, decks=1)[0]
                    for kind in BET_KINDS}
        for kind in BET_KINDS:
            assert by_rank[KIND_INDEX[kind]] == pytest.approx(float(by_hand[kind]), abs=1e-13)
            if "pair" not in kind:
                assert by_value[kind] == pytest.approx(float(by_hand[kind]), abs=1e-13)


def test_composition_cache_enumerates_each_composition_once() -> None:
    rng = np.random.default_rng(1)
    shoe = np.repeat(np.arange(10), full_shoe(8))
    rows = np.array([np.bincount(rng.permutation(shoe)[rng.integers(0, 380):], minlength=10)
                     for _ in range(40)])
    rows = np.vstack([rows, rows[:15]])  # repeats
    keys = pack_compositions(rows)
    assert np.unique(keys).size == np.unique(rows, axis=0).shape[0] == 40
    cache = CompositionCache(max_entries=100)
    direct = event_probabilities(rows, validate=False, parallel=False)
    np.testing.assert_array_equal(cache.events(rows), direct)
    assert (cache.misses, cache.hits, len(cache)) == (40, 0, 40)
    np.testing.assert_array_equal(cache.events(rows[::-1]), direct[::-1])
    assert (cache.misses, cache.hits) == (40, 40)
    cache.events(rows[:5] - np.eye(10, dtype=np.int64)[1])  # 5 new ones
    small = CompositionCache(max_entries=30)
    np.testing.assert_array_equal(small.events(rows[:25]), direct[:25])
    np.testing.assert_array_equal(small.events(rows[25:40]), direct[25:40])  # starts afresh
    assert len(small) == 15
    np.testing.assert_array_equal(small.events(rows), direct)


def test_packing_refuses_what_would_collide_and_keys_every_8_deck_composition_apart() -> None:
    from baccarat.odds.composition import packable

    full = full_shoe(8)
    assert packable(full[None, :]) and packable(np.zeros((1, 10), dtype=np.int64))
    for bad in ([-1] + [0] * 9, [256] + [0] * 9, [0, 64] + [0] * 8, [0] * 9 + [-5]):
        assert not packable(np.array([bad]))
        with pytest.raises(ValueError):
            pack_compositions(np.array([bad]))
    # One more card of any value changes the key, at the top of every value's range too.
    rows = np.vstack([full - np.eye(10, dtype=np.int64)[v] for v in range(10)] + [full])
    assert np.unique(pack_compositions(rows)).size == 11


# --------------------------------------------------------------------------- the counter


def table_with(remaining: np.ndarray, rules: TableRules, bankroll: list[float]) -> Table:
    """A strategy view whose sessions have ``remaining`` cards left (by value)."""
    n = remaining.shape[0]
    state = TableState(n, rules, np.array(bankroll, dtype=float), max_coups=1)
    state.attach_cards(full_shoe(rules.decks)[None, :] - remaining, remaining)
    return state.table


def test_kelly_stake_between_base_and_max_stake() -> None:
    rules = TableRules(variant="ez")
    rich = full_shoe(8).copy()
    rich[[8, 9]] -= 20   # many 8s and 9s gone: fewer naturals, more three-card Banker 7s
    remaining = np.array([full_shoe(8), rich, rich, rich])
    ev = expected_values(rich, rules)["dragon7"]
    assert ev > 0.1
    counter = Counter(bet="dragon7", kelly=0.5, base=10, max_stake=400)
    table = table_with(remaining, rules, [1e4, 1e3, 1e4, 1e6])
    counter.start(table)
    stakes = counter.wager(table).stakes["dragon7"]
    kelly = 0.5 * np.array([1e3, 1e4, 1e6]) * ev / 40   # f* = EV / b for a 40:1 bet
    assert kelly[0] < 10 < kelly[1] < 400 < kelly[2]
    np.testing.assert_allclose(stakes, [0, 10, kelly[1], 400], rtol=1e-12)
    assert counter.last_ev[1] == pytest.approx(ev, abs=1e-14)
    assert np.isnan(counter.last_ev[0])  # the full shoe was screened out by the count


def test_true_count_estimate_is_exact_after_one_card_and_thresholds_apply() -> None:
    rules = TableRules(variant="ez", decks=6)
    one_nine_gone = full_shoe(6) - np.eye(10, dtype=np.int64)[9]
    exact = expected_values(one_nine_gone, rules)["panda8"]
    counter = Counter(bet="panda8", method="true_count", threshold=exact - 1e-9)
    table = table_with(np.array([one_nine_gone, full_shoe(6)]), rules, [1e3, 1e3])
    counter.start(table)
    estimate = counter.estimate(table)
    assert estimate[0] == pytest.approx(exact, abs=1e-14)
    assert counter.wager(table).stakes["panda8"].tolist() == [10, 0]
    deep = Counter(bet="panda8", method="true_count", min_depth=2)
    deep.start(table)
    assert np.isnan(deep.estimate(table)).all()


def bets_checked_against_exact_ev(rules: TableRules, shoes: int, seed: int,
                                  counter: Counter, bankroll: float) -> tuple[int, int]:
    """Replay ``counter`` and check every ledger row against the exact EV worked out here."""
    coups = generate_coups(rules, seed, np.arange(shoes))
    coups.decks = rules.decks
    ledger = backtest(coups, [counter], rules=rules, session=Session(bankroll=bankroll)).ledger
    steps = [step for session in counted_sessions(coups, 1) for step in session]
    seen = np.array([s for s, _ in steps])
    rows = np.array([r for _, r in steps])
    # One thread: the threaded kernel is tested (and compiled) in test_fast_enumeration.
    ev = expected_values_batch(full_shoe(rules.decks) - seen, rules,
                               parallel=False)[:, KIND_INDEX[counter.bet]]
    index = {(int(coups.shoe[r]), int(coups.coup[r])): i for i, r in enumerate(rows)}
    at = np.array([index[(s, c)] for s, c in zip(ledger["shoe"], ledger["coup"], strict=True)])
    assert at.size == len(coups)
    stake = ledger[counter.bet].to_numpy()
    depth = seen[at].sum(axis=1)
    should = (ev[at] > counter.threshold) & (depth >= counter.min_depth)
    assert np.array_equal(stake > 0, should)
    assert not (stake[ledger["coup"].to_numpy() == 1] > 0).any()
    before = ledger["bankroll"].to_numpy() - ledger["net"].to_numpy()
    kelly = counter.kelly * before * ev[at] / {"dragon7": 40, "tie": 8}[counter.bet]
    expected = np.clip(kelly, counter.base, counter.max_stake or np.inf)
    np.testing.assert_allclose(stake[should], expected[should], rtol=1e-12)
    return int(should.sum()), int((ev[at] > counter.threshold).sum())


def test_counter_bets_exactly_where_the_exact_ev_beats_the_threshold() -> None:
    # 8-deck EZ Dragon 7, threshold 1%: no bet off the top of a shoe (coup 1), a bet on
    # every coup whose exact EV on the cards left is above 1% (the screen skips none), none
    # elsewhere, each staked at half Kelly between the base and max_stake.
    bets, _ = bets_checked_against_exact_ev(
        TableRules(variant="ez"), 50, 4, Counter(bet="dragon7", threshold=0.01, max_stake=40),
        bankroll=20_000)
    assert bets > 200
    # One deck, the tie at 8:1, only once 38 cards have been seen (some positive-EV coups
    # of these shoes come earlier, at 32 to 37 cards seen).
    bets, positive = bets_checked_against_exact_ev(
        TableRules(decks=1), 400, 8, Counter(bet="tie", min_depth=38), bankroll=5_000)
    assert 0 < bets < positive


class RecordingCounter(Counter):
    """The counter, recording the stake and the exact EV (worked out apart) of each bet.

    The log is on the class: the backtest plays a fresh copy of the instance per chunk.
    """

    log: ClassVar[list[tuple[np.ndarray, np.ndarray]]] = []

    def wager(self, table: Table) -> Wager:
        wager = super().wager(table)
        stake = wager.stakes[self.bet]
        made = np.flatnonzero(stake > 0)
        if made.size:
            ev = expected_values_batch(np.asarray(table.remaining)[made], table.rules,
                                       parallel=False)[:, KIND_INDEX[self.bet]]
            self.log.append((stake[made].copy(), ev))
        return wager


def test_counter_realizes_the_mean_exact_ev_of_its_bets() -> None:
    # One-deck EZ shoes, Dragon 7 when the count says it is worth it: the realized edge
    # (net / wagered) must agree with the stake-weighted mean exact EV of the bets made.
    rules = TableRules(decks=1, variant="ez")
    RecordingCounter.log.clear()
    counter = RecordingCounter(bet="dragon7", method="true_count", kelly=0.0)
    result = play(BacktestJob(None, [counter], shoes=5000, seed=12, rules=rules,
                              session=Session(bankroll=1e6), run=Run(ledger=False),
                              unchecked=True))
    stakes = np.concatenate([s for s, _ in RecordingCounter.log])
    evs = np.concatenate([e for _, e in RecordingCounter.log])
    row = result.summary.iloc[0]
    assert stakes.sum() == pytest.approx(result.sessions["wagered"].sum(), rel=1e-12)
    assert stakes.size > 8000
    mean_ev = float((stakes * evs).sum() / stakes.sum())
    assert mean_ev > 0.05   # the count picks positive-expectation coups ...
    assert_within(row, mean_ev)
    assert row.realized_edge_high - row.realized_edge_low < 0.3
    assert row.house_edge == pytest.approx(0.0758, abs=1e-4)  # ... the full shoe's is -7.6%
    # The run prices the same bets itself: its expected edge is that mean exact EV, the
    # verdict judges the realized edge against it (not against minus the house edge, which
    # the interval excludes), and the difference from the full shoe is the count's gain.
    assert row.expected_edge == pytest.approx(mean_ev, rel=1e-9)
    assert row.realized_edge_low <= row.expected_edge <= row.realized_edge_high
    assert row.edge_verdict == "inside"
    assert not row.realized_edge_low <= -row.house_edge <= row.realized_edge_high
    assert row.edge_gain == pytest.approx(mean_ev + row.house_edge, rel=1e-9)
    sessions = result.sessions
    assert sessions["expected_net"].sum() == pytest.approx((stakes * evs).sum(), rel=1e-9)


def test_counter_parameters_and_refusals() -> None:
    (counter,) = expand_spec("counter:bet=panda8,screen=none,max_stake=50,threshold=0.02")
    assert counter.screen is None  # type: ignore[attr-defined]
    (again,) = expand_spec(counter.spec())
    assert again.params() == counter.params()
    with pytest.raises(StrategyError, match="max_stake .*below base"):
        expand_spec("counter:max_stake=5")
    with pytest.raises(StrategyError, match="method: Input should be 'exact' or 'true_count'"):
        expand_spec("counter:method=guess")
    with pytest.raises(StrategyFault, match="needs the cards, but the dataset records "
                                            "outcomes only"):
        backtest(coups_from_outcomes(["BPBB"]), ["counter"])
    with pytest.raises(StrategyError, match="dragon7 bet is not offered"):
        backtest(None, ["counter:bet=dragon7"], shoes=1, seed=1)
    with pytest.raises(StrategyError, match="needs the cards seen in the shoe"):
        Counter().start(Table(2, TableRules(), np.full(2, 100.0), max_coups=1))
