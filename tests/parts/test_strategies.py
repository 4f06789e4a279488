"""The built-in strategies, driven directly through the Strategy contract.

Each test plays a strategy over hand-made outcome sequences with a hand-made ``Table`` and
hand-computed ``Result``s (Banker pays 0.95, Player 1, Tie 8; a tie pushes Banker and
Player), and compares the stakes with sequences worked out by hand from the system's rule
(the working is in the comments). Stakes are written ``B10`` (10 on Banker), ``P20``,
``T10``; ``-`` is no bet.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
import pytest
from baccarat.coups import BANKER, PLAYER, TIE, coups_from_outcomes
from baccarat.roads import RoadState
from baccarat.rules import TableRules
from baccarat.strategies import presets  # noqa: F401  (registers the built-ins)
from baccarat.strategies.base import (
    Dealt,
    Result,
    SessionView,
    SimpleStrategy,
    Strategy,
    Table,
    TableState,
)
from baccarat.strategies.presets import MartingalePreset as Martingale
from baccarat.strategies.registry import (
    StrategyError,
    builtin_strategies,
    describe,
    expand_spec,
    make_strategy,
)

# What a unit stake on each kind nets per outcome (B, P, T), standard 5% commission.
UNIT_NET = {
    "banker": (0.95, -1.0, 0.0),
    "player": (-1.0, 1.0, 0.0),
    "tie": (-1.0, -1.0, 8.0),
}
LETTER = {"banker": "B", "player": "P", "tie": "T"}
CODE = {"B": BANKER, "P": PLAYER, "T": TIE}


def drive(strategy: Strategy, sessions: list[str]) -> list[str]:
    """Play ``strategy`` over one outcome string per session; the stakes, one string each.

    In a session string ``|`` opens a new shoe and ``.`` is a step where no coup is dealt
    to that session (played is False; the outcome given is a Player win, which must be
    ignored). Roads are kept like the replay engine keeps them when the strategy asks.
    """
    steps = [s.replace("|", "") for s in sessions]
    width = len(steps[0])
    assert all(len(s) == width for s in steps), "sessions must have equally many steps"
    new_shoe_at = []
    for text in sessions:
        marks, position = set(), 0
        for char in text:
            if char == "|":
                marks.add(position)
            else:
                position += 1
        new_shoe_at.append(marks | {0})
    n = len(sessions)
    state = TableState(n, TableRules(), np.full(n, 1000.0), max_coups=width)
    table = state.table
    if strategy.needs_roads:
        state.attach_roads(RoadState(n))
    strategy.start(table)
    shown: list[list[str]] = [[] for _ in range(n)]
    for t in range(width):
        chars = [s[t] for s in steps]
        played = np.array([c != "." for c in chars])
        outcome = np.array([CODE.get(c, PLAYER) for c in chars], dtype=np.int8)
        state.set(new_shoe=np.array([t in marks for marks in new_shoe_at]) & played)
        if state.roads is not None and state.new_shoe.any():
            state.roads.reset(state.new_shoe)
        wager = strategy.wager(table)
        net = np.zeros(n)
        staked = np.zeros(n)
        for i in range(n):
            bets = []
            for kind, stakes in wager.stakes.items():
                stake = float(np.broadcast_to(stakes, (n,))[i])
                if stake > 0 and played[i]:
                    bets.append(f"{LETTER[kind]}{stake:g}")
                    staked[i] += stake
                    net[i] += stake * UNIT_NET[kind][outcome[i]]
            if played[i]:
                shown[i].append("+".join(sorted(bets)) or "-")
        state.set(bankroll=state.bankroll + net)
        # What the replay engine does after a coup: roads, history, then settle.
        if state.roads is not None:
            state.roads.append(outcome, played)
        state.history[:, t] = np.where(played, outcome, -1)
        state.advance(outcome, played)
        state.set(coup=state.coup + played)
        dealt = Dealt(coups_from_outcomes(["".join("BPT"[o] for o in outcome)]), np.arange(n),
                      with_cards=False)
        strategy.settle(table, Result(dealt=dealt, net=net, staked=staked, played=played))
    return [" ".join(s) for s in shown]


def stakes_of(spec: str, outcomes: str) -> str:
    """The stakes of the single configuration ``spec`` over one session."""
    (strategy,) = expand_spec(spec)
    return drive(strategy, [outcomes])[0]


# --------------------------------------------------------------------------- flat


def test_flat_stakes_base_every_coup_on_its_side() -> None:
    assert stakes_of("flat", "BPTB") == "B10 B10 B10 B10"
    assert stakes_of("flat:side=player,base=25", "BPT") == "P25 P25 P25"
    assert stakes_of("flat:side=tie", "BTP") == "T10 T10 T10"


# --------------------------------------------------------------------------- Martingale


def test_martingale_doubles_after_losses_and_resets_after_a_win() -> None:
    # P lose 10 (k=1), P lose 20 (k=2), T push at 40, B win 40 (k=0), P 10, P 20, P 40
    # (k=3), B win 80, B 10.
    outcomes = "PPTBPPPBB"
    assert stakes_of("martingale", outcomes) == "B10 B20 B40 B40 B10 B20 B40 B80 B10"
    # Cap of two doublings: the loss at 40 (k=2) gives up, so the 8th stake is 10 again.
    assert (stakes_of("martingale:max_doublings=2", outcomes)
            == "B10 B20 B40 B40 B10 B20 B40 B10 B10")
    # No doubling allowed: a flat bet.
    assert stakes_of("martingale:max_doublings=0", "PPPB") == "B10 B10 B10 B10"


def test_martingale_on_player() -> None:
    # B lose 10, B lose 20, T push 40, P win 40, B lose 10.
    assert stakes_of("martingale:side=player", "BBTPB") == "P10 P20 P40 P40 P10"


def test_grand_martingale_doubles_and_adds_a_unit() -> None:
    # 10 -> 2*10+10 = 30 -> 2*30+10 = 70 -> 2*70+10 = 150 (tie: push), win at 150, 10.
    assert stakes_of("grand_martingale", "PPPTBP") == "B10 B30 B70 B150 B150 B10"
    # One doubling at most: the loss at 30 restarts at 10.
    assert stakes_of("grand_martingale:max_doublings=1", "PPPB") == "B10 B30 B10 B30"


def test_paroli_doubles_after_wins_until_the_target() -> None:
    # Win 10, win 20, tie at 40 (push), win 40 (third win: bank it), win 10, lose 20,
    # win 10, win 20, then 40.
    outcomes = "BBTBBPBBB"
    assert stakes_of("paroli", outcomes) == "B10 B20 B40 B40 B10 B20 B10 B20 B40"
    # Two wins banked: 10, 20 -> 10 (tie) 10, 20 -> lose 10, 10, 20 -> 10.
    assert (stakes_of("paroli:target_wins=2", outcomes)
            == "B10 B20 B10 B10 B20 B10 B10 B20 B10")


def test_dalembert_steps_one_unit_and_never_below_base() -> None:
    # Lose 10 -> 20, lose 20 -> 30, tie, win 30 -> 20, win 20 -> 10, win 10 stays 10, lose.
    assert stakes_of("dalembert", "PPTBBBP") == "B10 B20 B30 B30 B20 B10 B10"
    # Unit 5 on a base of 10: 10, 15, 20, (tie) 20, 15, 10, 10.
    assert stakes_of("dalembert:unit=5", "PPTBBBP") == "B10 B15 B20 B20 B15 B10 B10"


def test_fibonacci_one_step_up_two_steps_back() -> None:
    # F = 1 1 2 3 5 8. Losses at F0..F3 (10 10 20 30), tie at F4 = 50 (push), win 50 ->
    # F2 = 20, win -> F0 = 10, lose -> F1 = 10, win -> back to F0 (not below the first).
    assert stakes_of("fibonacci", "PPPPTBBPBP") == "B10 B10 B20 B30 B50 B50 B20 B10 B10 B10"


def test_labouchere_crosses_off_and_appends() -> None:
    # Line 1 2 3 4: stake 5 lost -> 1 2 3 4 5; stake 6, tie (push); win 6 -> 2 3 4;
    # stake 6 lost -> 2 3 4 6; win 8 -> 3 4; win 7 -> empty, new line 1 2 3 4; stake 5.
    assert stakes_of("labouchere", "PTBPBBP") == "B50 B60 B60 B60 B80 B70 B50"
    # Line 1 2 3: win 4 -> 2; single number: lose 2 -> 2 2; lose 4 -> 2 2 4; win 6 -> 2;
    # win 2 -> empty, new line; stake 4.
    assert stakes_of("labouchere:line=1-2-3", "BPPBBP") == "B40 B20 B40 B60 B20 B40"
    # Line of one number 5: win it (new line), lose 5 -> 5 5, win 10, 5.
    assert stakes_of("labouchere:line=5", "BPBP") == "B50 B50 B100 B50"


def test_labouchere_long_losing_run_then_wins() -> None:
    # Thirty losses on 1 2 3 4: each stake is 1 + the last number, which is the previous
    # stake: 5, 6, ..., 34; the line is then 1 2 3 ... 34 (34 numbers, the outer pairs
    # all summing to 35). Seventeen wins of 35 clear it; then a new line: 5.
    stakes = stakes_of("labouchere:base=1", "P" * 30 + "B" * 18).split()
    assert stakes == [f"B{s}" for s in range(5, 35)] + ["B35"] * 17 + ["B5"]


def test_oscars_grind_series() -> None:
    # Four losses at 1 unit (series -4); win 1 (-3), raise to 2; win 2 (-1), a raise to 3
    # would end at +2, so stake 2 (reaches +1 exactly); lose 2 (-3), keep 2; tie; win 2
    # (-1), stake 2; win 2 (+1): series over, 1 unit; win 1 (+1): series over.
    assert (stakes_of("oscars_grind", "PPPPBBPTBBB")
            == "B10 B10 B10 B10 B10 B20 B20 B20 B20 B20 B10")
    # Six losses (-6); win 1 (-5) -> 2; win 2 (-3) -> 3; win 3 (0): raising to 4 would end
    # at +4, so stake 1 to reach +1; lose it.
    assert (stakes_of("oscars_grind", "PPPPPPBBBP")
            == "B10 B10 B10 B10 B10 B10 B10 B20 B30 B10")


def test_one_three_two_six() -> None:
    # Win 1, win 3, tie at 2, win 2, win 6 (cycle done), win 1, lose 3, win 1, win 3,
    # lose 2.
    assert (stakes_of("one_three_two_six", "BBTBBBPBBP")
            == "B10 B30 B20 B20 B60 B10 B30 B10 B30 B20")
    assert stakes_of("one_three_two_six:side=player", "PPPPP") == "P10 P30 P20 P60 P10"


# --------------------------------------------------------------------------- patterns


def test_follow_bets_the_last_decision_skipping_ties() -> None:
    # T and B: no decision before them. After B: B; the T keeps B; after P: P; ... A new
    # shoe forgets the pattern (per_shoe), unless per_shoe is false.
    assert stakes_of("follow", "TBTPPB|PB") == "- - B10 B10 P10 P10 - P10"
    assert stakes_of("follow:per_shoe=false", "TBTPPB|PB") == "- - B10 B10 P10 P10 B10 P10"


def test_chop_bets_against_the_last_decision() -> None:
    assert stakes_of("chop", "TBTPPB|PB") == "- - P10 P10 B10 B10 - B10"
    assert stakes_of("chop:per_shoe=false", "TBTPPB|PB") == "- - P10 P10 B10 B10 P10 B10"


def test_streak_bets_runs_of_n() -> None:
    # Runs: B1 B2 (T) B3 B4 | P1 P2 P3 (T) P4 | B1 B2. A bet goes on once the run is 3.
    outcomes = "BBTBBPPPTPBB"
    assert stakes_of("streak", outcomes) == "- - - - B10 B10 - - P10 P10 P10 -"
    assert stakes_of("streak:n=2", outcomes) == "- - B10 B10 B10 B10 - P10 P10 P10 P10 -"
    # A run does not survive the shoe change unless per_shoe is false.
    assert stakes_of("streak", "BBB|B") == "- - - -"
    assert stakes_of("streak:per_shoe=false", "BBB|B") == "- - - B10"


def test_road_follows_the_big_eye_boy() -> None:
    # Big road of B B P P B P B B P: columns 0-5 of lengths 2, 2, 1, 2, 1 (B B | P P | B |
    # P | B B | P). Big eye boy (k = 1) starts at (col 1, row 1), which exists, so the
    # first mark comes with coup 4: (1, 1), column 0 has a cell beside it -> red. Coup 5
    # (2, 0): columns 1 and 0 both 2 long -> red. Coup 6 (3, 0): 1 vs 2 -> blue. Coup 7
    # (4, 0): 1 vs 1 -> red. Coup 8 (4, 1): column 3 is 1 long (beside empty, above
    # filled) -> blue. Coup 9 (5, 0): 2 vs 1 -> blue.
    # Bets: none before coup 5 (no mark yet). Before 5 (last red): B at (2, 0) -> red,
    # P at (1, 2) (column 0 is 2 long) -> blue: B. Before 6 (red): B at (2, 1) -> red: B.
    # Before 7 (blue): B at (4, 0): 1 vs 1 -> red; P at (3, 1): column 2 is 1 long ->
    # blue: P. Before 8 (red): B at (4, 1) -> blue; P at (5, 0): 1 vs 1 -> red: P.
    # Before 9 (blue): B at (4, 2): column 3 is 1 long, not 2 -> red; P at (5, 0): 2 vs 1
    # -> blue: P.
    assert stakes_of("road", "BBPPBPBBP") == "- - - - B10 B10 P10 P10 P10"
    # A tie adds no mark and changes no bet.
    assert stakes_of("road", "BBTPPBPBBP") == "- - - - - B10 B10 P10 P10 P10"
    # Column 1 of one cell: the first mark is at (2, 0), 1 vs 1 -> red, with coup 3.
    # Before coup 4: B at (2, 1), column 1 is 1 long -> blue; P at (3, 0) 1 vs 1 -> red: P.
    assert stakes_of("road", "BPBP") == "- - - P10"
    # A new shoe starts empty roads: no bet until its first mark.
    assert stakes_of("road", "BBPPB|BP") == "- - - - B10 - -"


class _StubRoads:
    """Stands in for RoadState: fixed colours per road, and which roads were asked for."""

    def __init__(self, last: list[int], if_banker: list[int], if_player: list[int]) -> None:
        self.last, self.if_banker, self.if_player = last, if_banker, if_player
        self.asked: set[int] = set()

    def last_colour(self, k: int) -> np.ndarray:
        self.asked.add(k)
        return np.array(self.last, dtype=np.int8)

    def colour_if(self, k: int, outcome: int) -> np.ndarray:
        self.asked.add(k)
        return np.array(self.if_banker if outcome == BANKER else self.if_player, dtype=np.int8)


@pytest.mark.parametrize("road, k", [("big_eye_boy", 1), ("small_road", 2),
                                     ("cockroach_pig", 3)])
def test_road_picks_the_side_matching_the_last_colour(road: str, k: int) -> None:
    # Sessions: last red, B red -> B; last blue, P blue -> P; last none -> no bet;
    # no mark would be added -> no bet; last red, B blue, P red -> P.
    stub = _StubRoads(last=[1, -1, 0, 1, 1], if_banker=[1, 1, 1, 0, -1],
                      if_player=[-1, -1, -1, 0, 1])
    (strategy,) = expand_spec(f"road:road={road},base=15")
    state = TableState(5, TableRules(), np.full(5, 1000.0), max_coups=1)
    state.attach_roads(stub)  # type: ignore[arg-type]
    table = state.table
    strategy.start(table)
    stakes = strategy.wager(table).stakes
    assert stub.asked == {k}
    assert stakes["banker"].tolist() == [15, 0, 0, 0, 0]
    assert stakes["player"].tolist() == [0, 15, 0, 0, 15]


def test_road_without_roads_is_a_clear_error() -> None:
    (strategy,) = expand_spec("road")
    table = Table(1, TableRules(), np.full(1, 1000.0), max_coups=1)
    strategy.start(table)
    with pytest.raises(StrategyError, match="needs the derived roads"):
        strategy.wager(table)


# --------------------------------------------------------------------------- the array form

ALL_SPECS = [
    "flat", "flat:side=tie", "martingale", "martingale:max_doublings=3,side=player",
    "grand_martingale:max_doublings=2", "paroli", "dalembert:unit=5", "fibonacci",
    "labouchere", "labouchere:line=1-1-1", "oscars_grind", "one_three_two_six", "follow",
    "chop:per_shoe=false", "streak:n=2", "road", "road:road=small_road",
    "road:road=cockroach_pig",
]


def _random_session(rng: random.Random, length: int) -> str:
    text = []
    for t in range(length):
        if t and rng.random() < 0.03:
            text.append("|")
        text.append(rng.choices("BPT.", weights=[46, 44, 9, 3])[0])
    return "".join(text)


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_sessions_play_independently(spec: str) -> None:
    """Played together, each session stakes exactly as it does alone (no cross-talk)."""
    rng = random.Random(spec)
    sessions = [_random_session(rng, 150) for _ in range(6)]
    (together,) = [drive(s, sessions) for s in expand_spec(spec)]
    alone = [drive(expand_spec(spec)[0], [session])[0] for session in sessions]
    assert together == alone
    assert any(stake != "-" for stake in together[0].split())


@pytest.mark.parametrize("spec", ["martingale", "paroli", "fibonacci", "labouchere",
                                  "oscars_grind", "follow", "streak"])
def test_unplayed_steps_change_nothing(spec: str) -> None:
    """A step where the session was not dealt a coup is as if it never happened."""
    outcomes = "PPBTPBBPPPBPB"
    gapped = "P.PB.TPB..BPPPB.PB"
    assert stakes_of(spec, gapped) == stakes_of(spec, outcomes)


def test_stakes_are_returned_for_inactive_sessions() -> None:
    """Masking inactive sessions is the engine's job: the strategy still quotes a stake."""
    (strategy,) = expand_spec("martingale")
    state = TableState(3, TableRules(), np.full(3, 1000.0), max_coups=1)
    state.set(active=np.array([True, False, True]))
    table = state.table
    strategy.start(table)
    assert strategy.wager(table).stakes["banker"].tolist() == [10, 10, 10]


class ScalarMartingale(SimpleStrategy):
    """Martingale for one session with plain Python numbers: the array form's yardstick."""

    name: ClassVar[str] = "scalar_martingale"

    side: str = "banker"
    max_doublings: int | None = None

    _stake: float = 0.0
    _doublings: int = 0

    def reset(self) -> None:
        self._stake = self.base
        self._doublings = 0

    def bet(self, view: SessionView) -> dict[str, float]:
        return {self.side: self._stake}

    def learn(self, view: SessionView, outcome: str, net: float) -> None:
        if net > 0 or (net < 0 and self._doublings == self.max_doublings):
            self.reset()
        elif net < 0:
            self._stake *= 2
            self._doublings += 1


@pytest.mark.parametrize("params", [{}, {"max_doublings": 3}, {"side": "player",
                                                                "base": 25.0}])
def test_array_martingale_matches_the_scalar_one(params: dict[str, Any]) -> None:
    rng = random.Random(7)
    sessions = [_random_session(rng, 200) for _ in range(8)]
    array = drive(Martingale(**params), sessions)
    scalar = drive(ScalarMartingale(**params), sessions)
    assert array == scalar


def _labouchere_reference(line: list[int], outcomes: str) -> list[int]:
    """Labouchere on a Python list, the plain way, betting Banker: stakes in units."""
    current, stakes = list(line), []
    for o in outcomes:
        stake = current[0] if len(current) == 1 else current[0] + current[-1]
        stakes.append(stake)
        if o == "B":
            current = current[1:-1]
            if not current:
                current = list(line)
        elif o == "P":
            current.append(stake)
    return stakes


def test_labouchere_matches_a_list_implementation_across_many_sessions() -> None:
    """The ring-buffer lines (grown and compacted) agree with a plain list, per session."""
    rng = random.Random(3)
    sessions = ["".join(rng.choices("BPT", weights=[40, 52, 8], k=400)) for _ in range(12)]
    sessions.append("P" * 60 + "B" * 40 + "P" * 40 + "BT" * 30 + "P" * 200)
    got = drive(expand_spec("labouchere:base=1,line=1-2-3")[0], sessions)
    for text, stakes in zip(sessions, got, strict=True):
        assert stakes == " ".join(f"B{s}" for s in _labouchere_reference([1, 2, 3], text))


# --------------------------------------------------------------------------- registry


def test_every_builtin_is_registered_and_documented() -> None:
    found = builtin_strategies()
    assert set(found) == {
        "flat", "martingale", "grand_martingale", "paroli", "dalembert", "fibonacci",
        "labouchere", "oscars_grind", "one_three_two_six", "follow", "chop", "streak",
        "road", "counter", "side_bet",
    }
    for name, cls in found.items():
        assert cls.name == name
        doc = (cls.__doc__ or "").strip().splitlines()
        assert describe(cls) == doc[0] and len(doc[0]) <= 100
        assert len(doc) >= 3 and doc[1] == "", f"{name}: no rule in the docstring body"
        instance = cls()
        assert instance.base == 10.0
        if "side" in cls.model_fields:
            assert instance.side == "banker"  # type: ignore[attr-defined]
    assert found["road"].needs_roads
    assert not found["follow"].needs_roads


def test_grid_expansion() -> None:
    configs = expand_spec("martingale:base=[10,20],max_doublings=[3,5]")
    assert len(configs) == 4
    assert {(c.base, c.max_doublings) for c in configs  # type: ignore[attr-defined]
            } == {(10, 3), (10, 5), (20, 3), (20, 5)}
    assert all(isinstance(c, Martingale) for c in configs)
    lines = expand_spec("labouchere:line=[1-2-3,1-1-1-1],side=player")
    assert [c.line for c in lines] == [(1, 2, 3), (1, 1, 1, 1)]  # type: ignore[attr-defined]
    assert all(c.side == "player" for c in lines)  # type: ignore[attr-defined]
    capped = expand_spec("grand_martingale:max_doublings=[2,none],side=player")
    assert [c.max_doublings for c in capped] == [2, None]  # type: ignore[attr-defined]
    # A list of plain numbers is, as for every parameter, one configuration per value:
    # here three lines of one number each.
    singles = expand_spec("labouchere:line=[1,2,3]")
    assert [c.line for c in singles] == [(1,), (2,), (3,)]  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["martingale:base=[10,20],max_doublings=[3,5]",
                                  "labouchere:line=[2-2-2,5]", "streak:n=4,per_shoe=false",
                                  "road:road=cockroach_pig", "flat:side=tie,base=15",
                                  "dalembert:unit=2.5", "dalembert:unit=none", "paroli",
                                  "martingale:max_doublings=[0,none]"])
def test_spec_round_trips(spec: str) -> None:
    for config in expand_spec(spec):
        (again,) = expand_spec(config.spec())
        assert again.params() == config.params()
        assert type(again) is type(config)


@pytest.mark.parametrize("spec, message", [
    ("martingal", "unknown strategy 'martingal' \\(did you mean 'martingale'\\?\\)"),
    ("fibonaci:base=10", "did you mean 'fibonacci'"),
    ("martingale:max_doubling=3", "no parameter 'max_doubling' \\(did you mean 'max_doublings'"),
    ("streak:lenght=3", "no parameter 'lenght'; parameters: base, per_shoe, n"),
    ("martingale:base=-5", "base: Input should be greater than 0"),
    ("martingale:base=0", "base: Input should be greater than 0"),
    ("martingale:side=tie", "side: Input should be 'banker' or 'player'"),
    ("flat:side=banekr", "side: Input should be 'banker', 'player' or 'tie'"),
    ("martingale:max_doublings=-1", "max_doublings: Input should be greater than or equal"),
    ("paroli:target_wins=0", "target_wins: Input should be greater than or equal to 1"),
    ("dalembert:unit=0", "unit: Input should be greater than 0"),
    ("labouchere:line=0-1", "line: .*whole base units >= 1"),
    ("labouchere:line=1-x-2", "line: .*not whole numbers separated by dashes"),
    ("labouchere:line=2.5", "line: .*whole base units, got 2.5"),
    ("labouchere:line=", "line: .*at least one number"),
    ("streak:n=0", "n: Input should be greater than or equal to 1"),
    ("road:road=big_eye", "road: Input should be 'big_eye_boy', 'small_road' or"),
    ("follow:per_shoe=maybe", "per_shoe: Input should be a valid boolean"),
])
def test_bad_specs_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(StrategyError, match=message):
        expand_spec(spec)


def test_unknown_parameter_in_python_is_refused() -> None:
    with pytest.raises(StrategyError, match="no parameter 'sid'"):
        make_strategy(Martingale, {"sid": "player"})
