"""The simple form sees what the array form sees: roads, cards and exact odds.

Each system is written twice, once per form, and both must give the same ledger bet for
bet over generated shoes (the simple view is a per-session slice of the same arrays).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
from baccarat import Session, backtest
from baccarat.backtest import play
from baccarat.bets import KIND_INDEX
from baccarat.coups import coups_from_outcomes
from baccarat.job import BacktestJob
from baccarat.odds import expected_values, expected_values_batch, outcome_probabilities
from baccarat.roads import all_roads, outcomes_from_labels
from baccarat.rules import TableRules
from baccarat.strategies.base import (
    SessionView,
    SimpleStrategy,
    Strategy,
    Table,
    Wager,
)
from keywords import backtest_with

COLUMNS = ["session", "coup", "banker", "player", "net", "bankroll"]


def same_ledgers(array: Strategy, simple: SimpleStrategy, **run: object) -> int:
    """Both forms over the same shoes: the ledgers must match; returns the bets made."""
    a = backtest_with(strategies=[array], **run).ledger  # type: ignore[arg-type]
    b = backtest_with(strategies=[simple], **run).ledger  # type: ignore[arg-type]
    np.testing.assert_array_equal(a[COLUMNS].to_numpy(), b[COLUMNS].to_numpy())
    return int(((a["banker"] > 0) | (a["player"] > 0)).sum())


# --------------------------------------------------------------------------- roads


class SimpleRoad(SimpleStrategy):
    """The built-in ``road`` in the simple form: bet the side that repeats the last mark."""

    name = "simple_road"
    needs_roads = True
    k: int = 1

    def bet(self, view: SessionView) -> dict[str, float]:
        roads = view.roads
        last = roads.last_colour(self.k)
        if last is None:
            return {}
        if roads.colour_if(self.k, "B") == last:
            return {"banker": self.base}
        if roads.colour_if(self.k, "P") == last:
            return {"player": self.base}
        return {}


@pytest.mark.parametrize("road, k", [("big_eye_boy", 1), ("small_road", 2),
                                     ("cockroach_pig", 3)])
def test_a_road_follower_gives_the_same_ledger_in_both_forms(road: str, k: int):
    from baccarat.strategies.registry import expand_spec

    (array,) = expand_spec(f"road:road={road}")
    bets = same_ledgers(array, SimpleRoad(k=k), shoes=12, seed=7)
    assert bets > 100


class ArrayStreak(Strategy):
    """Bet the big road's current side once its column is ``n`` long (array form)."""

    name = "array_streak"
    needs_roads = True
    n: int = 3

    def wager(self, table: Table) -> Wager:
        assert table.roads is not None
        on = table.roads.streak >= self.n
        side = table.roads.side
        return Wager.on(banker=np.where(on & (side == 0), self.base, 0.0),
                        player=np.where(on & (side == 1), self.base, 0.0))


class SimpleStreak(SimpleStrategy):
    """The same from the session's roads (simple form)."""

    name = "simple_streak"
    needs_roads = True
    n: int = 3

    def bet(self, view: SessionView) -> dict[str, float]:
        roads = view.roads
        if roads.streak >= self.n and roads.side is not None:
            return {"banker" if roads.side == "B" else "player": self.base}
        return {}


def test_a_streak_follower_on_the_big_road_gives_the_same_ledger_in_both_forms():
    assert same_ledgers(ArrayStreak(), SimpleStreak(), shoes=12, seed=8, session_shoes=2) > 50


class RoadProbe(SimpleStrategy):
    """Records what view.roads says before each coup, for comparison with baccarat.roads."""

    name = "road_probe"
    needs_roads = True
    seen: ClassVar[list[tuple]] = []

    def bet(self, view: SessionView) -> dict[str, float]:
        roads = view.roads
        self.seen.append((view.history, roads.bead_plate, roads.big_road, roads.side,
                          roads.streak, roads.columns, roads.ties, roads.leading_ties,
                          [roads.last_colour(k) for k in (1, 2, 3)],
                          [roads.mark_count(k) for k in (1, 2, 3)],
                          roads.big_eye_boy, roads.small_road, roads.cockroach_pig))
        return {}


class HistoryProbe(SimpleStrategy):
    """Records the session's history and the shoe's bead plate before each coup."""

    name = "history_probe"
    needs_roads = True
    seen: ClassVar[list[tuple[int, str, str]]] = []

    def bet(self, view: SessionView) -> dict[str, float]:
        self.seen.append((view.coup, view.history, view.roads.bead_plate))
        return {}


def test_the_history_spans_the_session_and_the_bead_plate_the_shoe():
    """Two shoes to a session: the history holds every outcome of the session so far,
    ties included, the bead plate only the current shoe's."""
    HistoryProbe.seen.clear()
    first, second = "BPTTBBPBT", "PPTBPBBBTP"
    play(BacktestJob(coups_from_outcomes([first, second]), [HistoryProbe()],
                     # the probe logs every call: no check before the run
                     session=Session(session_shoes=2), unchecked=True))
    session = first + second
    assert [coup for coup, _, _ in HistoryProbe.seen] == list(range(len(session)))
    for t, (_, history, bead) in enumerate(HistoryProbe.seen):
        assert history == session[:t]
        assert bead == (session[:t] if t < len(first) else second[:t - len(first)])


def test_the_simple_views_roads_are_the_roads_of_the_shoe_so_far():
    RoadProbe.seen.clear()
    shoe = "TBBPPPTBPBBTBPPBPTBB"
    play(BacktestJob(coups_from_outcomes([shoe]), [RoadProbe()], unchecked=True))  # a logging probe
    assert len(RoadProbe.seen) == len(shoe)
    colour = {1: "red", -1: "blue"}
    for t, (history, bead, big, side, streak, columns, ties, leading, last, marks, *named) \
            in enumerate(RoadProbe.seen):
        assert history == bead == shoe[:t]
        expected = all_roads(outcomes_from_labels(shoe[:t]))
        assert big == expected.big_road
        lengths = expected.big_road.lengths
        assert columns == len(lengths) and streak == (lengths[-1] if lengths else 0)
        assert side == (None if not lengths else "BP"[expected.big_road.columns[-1][0].side])
        assert ties == (expected.big_road.columns[-1][-1].ties if lengths else 0)
        assert leading == expected.big_road.leading_ties
        for k in (1, 2, 3):
            derived = expected.derived[k]
            assert marks[k - 1] == len(derived)
            assert last[k - 1] == (colour[derived[-1]] if derived else None)
        assert named == last


def test_roads_and_cards_are_refused_to_a_strategy_that_did_not_declare_them():
    class Plain(SimpleStrategy):
        name = "plain_view"

        def bet(self, view: SessionView) -> dict[str, float]:
            return {"banker": 10} if view.roads.side == "B" else {}

    with pytest.raises(Exception, match=r"view\.roads is only kept for strategies that "
                                        r"declare `needs_roads = True`"):
        backtest(coups_from_outcomes(["BB"]), [Plain()])


# --------------------------------------------------------------------------- cards and odds

ONE_DECK = TableRules(decks=1)


class ArrayEV(Strategy):
    """Bet the better of Banker and Player when its exact EV on the cards left beats
    ``threshold`` (array form, from table.remaining)."""

    name = "array_ev"
    needs_cards = True
    threshold: float = -0.009

    def wager(self, table: Table) -> Wager:
        assert table.remaining is not None
        banker = np.full(table.n, -1.0)
        player = np.full(table.n, -1.0)
        playing = np.flatnonzero(table.active)  # a finished shoe may hold too few cards
        if playing.size:
            ev = expected_values_batch(table.remaining[playing], table.rules)
            banker[playing] = ev[:, KIND_INDEX["banker"]]
            player[playing] = ev[:, KIND_INDEX["player"]]
        best = np.maximum(banker, player)
        on = best > self.threshold
        return Wager.on(banker=np.where(on & (banker >= player), self.base, 0.0),
                        player=np.where(on & (banker < player), self.base, 0.0))


class SimpleEV(SimpleStrategy):
    """The same from view.odds() (simple form)."""

    name = "simple_ev"
    needs_cards = True
    threshold: float = -0.009

    def bet(self, view: SessionView) -> dict[str, float]:
        ev = view.odds().ev
        banker, player = ev["banker"], ev["player"]
        if max(banker, player) <= self.threshold:
            return {}
        return {"banker" if banker >= player else "player": self.base}


def test_an_exact_ev_counter_gives_the_same_ledger_in_both_forms():
    bets = same_ledgers(ArrayEV(), SimpleEV(), shoes=6, seed=3, rules=ONE_DECK)
    assert bets > 20


class ArrayTens(Strategy):
    """Bet Player while more than ``share`` of the cards left are tens (array form)."""

    name = "array_tens"
    needs_cards = True
    share: float = 0.33

    def wager(self, table: Table) -> Wager:
        assert table.remaining is not None and table.seen is not None
        left = table.remaining.sum(axis=1)
        rich = table.remaining[:, 0] > self.share * left
        return Wager.on(player=np.where(rich, self.base, 0.0))


class SimpleTens(SimpleStrategy):
    """The same from view.remaining (simple form)."""

    name = "simple_tens"
    needs_cards = True
    share: float = 0.33

    def bet(self, view: SessionView) -> dict[str, float]:
        remaining = view.remaining
        return {"player": self.base} if remaining[0] > self.share * remaining.sum() else {}


def test_a_tens_counter_gives_the_same_ledger_in_both_forms():
    assert same_ledgers(ArrayTens(), SimpleTens(), shoes=6, seed=5, rules=ONE_DECK) > 10


class OddsProbe(SimpleStrategy):
    """Checks view.seen, view.remaining and view.odds() against the coups by hand."""

    name = "odds_probe"
    needs_cards = True
    log: ClassVar[list[tuple]] = []

    def bet(self, view: SessionView) -> dict[str, float]:
        self.log.append((view.seen.copy(), view.remaining.copy(), view.odds()))
        return {}


def test_the_odds_are_those_of_the_cards_remaining():
    OddsProbe.log.clear()
    backtest(None, [OddsProbe()], shoes=1, seed=11, rules=ONE_DECK)
    first_seen, first_left, first_odds = OddsProbe.log[0]
    assert first_seen.sum() + first_left.sum() == 52
    # Before the first coup, at most the shown burn card is out of the full single deck.
    assert first_seen.sum() <= 1
    for seen, left, odds in OddsProbe.log:
        probs = outcome_probabilities(left, 1)
        assert (odds.banker, odds.player, odds.tie) == (probs.banker, probs.player, probs.tie)
        assert odds.ev["banker"] == expected_values(left, ONE_DECK)["banker"]
        assert set(odds.ev) == {"banker", "player", "tie", "player_pair", "banker_pair"}
        assert abs(odds.banker + odds.player + odds.tie - 1) < 1e-12
        assert (seen + left == np.array([16] + [4] * 9)).all()


def test_the_simple_views_cards_are_read_only():
    class Writes(SimpleStrategy):
        name = "writes_seen"
        needs_cards = True

        def bet(self, view: SessionView) -> dict[str, float]:
            view.remaining[0] -= 1
            return {}

    assert_write_refused(Writes(), r"table\.remaining", shoes=1)


def assert_write_refused(strategy: SimpleStrategy, target: str, shoes: int) -> None:
    """The run stops with the engine's one-line refusal of a write into ``target``."""
    with pytest.raises(Exception, match=rf"wrote into its table in bet\(\) at .*: "
                                        rf"{target} is read-only"):
        backtest(None, [strategy], shoes=shoes, seed=1)


def test_published_exact_figures_for_a_full_eight_deck_shoe():
    class FirstOdds(SimpleStrategy):
        name = "first_odds"
        needs_cards = True
        got: ClassVar[list] = []

        def bet(self, view: SessionView) -> dict[str, float]:
            if not self.got and view.seen.sum() == 0:
                self.got.append(view.odds())
            return {}

    rules = TableRules(burn="none")
    backtest(None, [FirstOdds()], shoes=1, seed=1, rules=rules)
    odds = FirstOdds.got[0]
    assert round(odds.banker, 6) == 0.458597 and round(odds.player, 6) == 0.446247
    assert round(odds.tie, 6) == 0.095156
    assert round(-odds.ev["banker"], 4) == 0.0106 and round(-odds.ev["player"], 4) == 0.0124


def test_result_of_the_simple_form_is_the_array_forms_result():
    # learn() gets the outcome and net the engine settled: the same Result as settle().
    class Learns(SimpleStrategy):
        name = "learns"
        got: ClassVar[list] = []

        def bet(self, view: SessionView) -> dict[str, float]:
            return {"player": 10}

        def learn(self, view: SessionView, outcome: str, net: float) -> None:
            self.got.append((outcome, net))

    Learns.got.clear()
    play(BacktestJob(coups_from_outcomes(["BPT"]), [Learns()], unchecked=True))  # it logs its calls
    assert Learns.got == [("B", -10.0), ("P", 10.0), ("T", 0.0)]


# ------------------------------------------------------- the loop's own bookkeeping


def test_a_simple_strategy_cannot_point_its_view_at_another_session():
    # Each session keeps one view for the whole run: rebinding it is refused like any
    # other write into the table, so no plugin can read or steer another session's seat.
    class Rebinds(SimpleStrategy):
        name = "rebinds"

        def bet(self, view: SessionView) -> dict[str, float]:
            view._i = 0
            return {}

    assert_write_refused(Rebinds(), r"view\._i", shoes=2)


def test_stakes_of_any_number_type_are_placed_as_floats():
    # int, float and NumPy scalars of other widths, mixed within one coup's sessions: each
    # stake is the float64 the number is (12.5 and 15.25 are exact in float32/float16).
    class Mixed(SimpleStrategy):
        name = "mixed_numbers"

        def bet(self, view: SessionView) -> dict[str, float]:
            c = view.coup % 4
            return {"banker": [10, 12.5, np.float32(15.25), np.int64(20)][c],
                    "tie": np.float16(10) if c == 2 else 0}

    ledger = backtest(coups_from_outcomes(["BPBPBB", "PPTB"]), [Mixed()]).ledger
    cycle = [10.0, 12.5, 15.25, 20.0]
    expected = [cycle[c % 4] for c in range(6)] + cycle
    assert ledger["banker"].tolist() == expected
    assert ledger["tie"].tolist() == [10.0 if b == 15.25 else 0.0 for b in expected]
    assert ledger["banker"].dtype == np.float64


def test_state_behind_a_property_setter_goes_through_the_setter_every_time():
    # Plain state is stored straight into the copy's dict after its first assignment; a
    # name with a setter on the class is not plain state: the setter runs every time.
    class Counts(SimpleStrategy):
        name = "counts_sets"

        def reset(self) -> None:
            self.level = 10.0

        @property
        def level(self) -> float:
            return float(self.__dict__["_level"])

        @level.setter
        def level(self, value: float) -> None:
            self.__dict__["sets"] = self.__dict__.get("sets", 0) + 1
            self.__dict__["_level"] = value

        def bet(self, view: SessionView) -> dict[str, float]:
            return {"banker": self.level + self.__dict__["sets"]}

        def learn(self, view: SessionView, outcome: str, net: float) -> None:
            self.level = 10.0

    ledger = backtest(coups_from_outcomes(["BPTBP"]), [Counts()]).ledger
    assert ledger["banker"].tolist() == [11.0, 12.0, 13.0, 14.0, 15.0]


def test_each_session_starts_from_its_own_copy_of_mutable_configuration():
    # The sessions' copies are deep: a list the configuration holds (a field, or state
    # set in __init__) is each session's own, so what one session does to it is not seen
    # by the next, whichever way the copies are made.
    class Rotates(SimpleStrategy):
        name = "rotates_list"
        steps: list[float] = [10.0, 20.0, 30.0]

        def model_post_init(self, context: object) -> None:
            self.__dict__["seen"] = []

        def bet(self, view: SessionView) -> dict[str, float]:
            self.__dict__["seen"].append(view.coup)
            return {"banker": self.steps[0]}

        def learn(self, view: SessionView, outcome: str, net: float) -> None:
            self.steps.append(self.steps.pop(0))

    ledger = backtest(coups_from_outcomes(["BPBB", "PPBT", "BBBB"]), [Rotates()]).ledger
    assert ledger["banker"].tolist() == [10.0, 20.0, 30.0, 10.0] * 3
