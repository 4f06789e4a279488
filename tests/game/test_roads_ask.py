"""Ask marks: what each derived road would add if the next decision were Banker, or Player.

The hand-drawn cases sit at the first columns where each derived road starts (the big eye
boy from column 1, the small road from column 2, the cockroach pig from column 3), both
asks each; the working follows the rules of docs/architecture.md ("Roads"): a repeat goes
below the last entry, at (c, r): red unless column c-k is exactly r long; a new column
starts at (c, 0): red when columns c-1 and c-1-k are equally long. The properties check
the function against the road oracle (append the decision, see what mark appeared) and
against the replay's RoadState and the strategy views.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.errors import BaccaratError
from baccarat.roads import (
    BLUE,
    NO_MARK,
    RED,
    RoadState,
    all_roads,
    ask_marks,
    big_road,
    derived_road,
    outcomes_from_labels,
)
from hypothesis import given, settings
from hypothesis import strategies as st

B, P, T = BANKER, PLAYER, TIE
R, U, N = RED, BLUE, NO_MARK  # U: blue


def asks(labels: str) -> tuple[dict[int, int], dict[int, int]]:
    marks = ask_marks(outcomes_from_labels(labels))
    return marks.banker, marks.player


# (shoe so far, Banker asks for k = 1, 2, 3, Player asks for k = 1, 2, 3)
HAND_DRAWN = [
    # One column: no derived road can mark the next entry, whatever it is.
    ("B", (N, N, N), (N, N, N)),
    ("TTBB", (N, N, N), (N, N, N)),
    # Big eye boy starts. "BP": a Player goes to (1, 1): col 0 is 1 long = r -> blue; a
    # Banker starts (2, 0): cols 1, 0 are 1 and 1 -> red. Small road: a Banker at (2, 0)
    # is its skipped start cell; a Player at (1, 1) is left of column 2: nothing.
    ("BP", (R, N, N), (U, N, N)),
    # "BBP" (lengths 2, 1): a Player at (1, 1): col 0 is 2 long, not 1 -> red; a Banker at
    # (2, 0): cols 1, 0: 1 vs 2 -> blue.
    ("BBP", (U, N, N), (R, N, N)),
    # "BBPP" (2, 2): a Player at (1, 2): col 0 is 2 long = r -> blue; a Banker at (2, 0):
    # 2 vs 2 -> red. A tie on the way changes nothing.
    ("BBPTP", (R, N, N), (U, N, N)),
    # Small road starts. "BPB" (1, 1, 1): a Banker at (2, 1): big eye boy looks at col 1
    # (1 long = r) -> blue, small road at col 0 (1 long = r) -> blue; a Player at (3, 0):
    # big eye boy cols 2, 1: 1 vs 1 -> red, small road cols 2, 0: 1 vs 1 -> red.
    ("BPB", (U, U, N), (R, R, N)),
    # "BBBPB" (3, 1, 1): a Banker at (2, 1): eye col 1 (1 = r) -> blue, small col 0 (3, not
    # 1) -> red; a Player at (3, 0): eye cols 2, 1: 1 vs 1 -> red, small cols 2, 0: 1 vs 3
    # -> blue.
    ("BBBPB", (U, R, N), (R, U, N)),
    # Cockroach pig starts. "BPBP" (1, 1, 1, 1): a Player at (3, 1): eye col 2, small col 1,
    # roach col 0, each 1 long = r -> blue, blue, blue; a Banker at (4, 0): cols 3 vs 2, 1, 0
    # all 1 long -> red, red, red.
    ("BPBP", (R, R, R), (U, U, U)),
    # "BBPBP" (2, 1, 1, 1): a Player at (3, 1): eye col 2 (1 = r) -> blue, small col 1 (1)
    # -> blue, roach col 0 (2, not 1) -> red; a Banker at (4, 0): eye cols 3, 2: 1 vs 1 ->
    # red, small cols 3, 1: 1 vs 1 -> red, roach cols 3, 0: 1 vs 2 -> blue.
    ("BBPBP", (R, R, U), (U, U, R)),
    # "PPPBBPPB" (3, 2, 2, 1), ties before and inside: a Banker at (3, 1): eye col 2 (2, not
    # 1) -> red, small col 1 (2) -> red, roach col 0 (3) -> red; a Player at (4, 0): eye
    # cols 3, 2: 1 vs 2 -> blue, small cols 3, 1: 1 vs 2 -> blue, roach cols 3, 0: 1 vs 3
    # -> blue.
    ("TPPPTBBPPTB", (R, R, R), (U, U, U)),
]


@pytest.mark.parametrize(("shoe", "banker", "player"), HAND_DRAWN)
def test_ask_marks_of_hand_drawn_roads(shoe: str, banker: tuple[int, ...],
                                       player: tuple[int, ...]) -> None:
    got_banker, got_player = asks(shoe)
    assert tuple(got_banker[k] for k in (1, 2, 3)) == banker
    assert tuple(got_player[k] for k in (1, 2, 3)) == player


def test_ask_marks_of_an_empty_shoe_and_of_ties_only() -> None:
    for shoe in ("", "TTT"):
        banker, player = asks(shoe)
        assert banker == player == {1: N, 2: N, 3: N}


def test_ask_marks_in_the_roads_json() -> None:
    data = json.loads(json.dumps(all_roads(outcomes_from_labels("BBPBP")).to_dict()))
    assert data["ask"] == {
        "B": {"big eye boy": "red", "small road": "red", "cockroach pig": "blue"},
        "P": {"big eye boy": "blue", "small road": "blue", "cockroach pig": "red"},
    }
    assert json.loads(json.dumps(all_roads([B]).to_dict()))["ask"]["P"] == {
        "big eye boy": None, "small road": None, "cockroach pig": None}


def test_ask_of_a_tie_is_refused() -> None:
    with pytest.raises(BaccaratError, match="Banker .* or Player"):
        ask_marks([B, P]).of(TIE)


shoes = st.lists(st.sampled_from([B, P, T]), max_size=90)


@given(shoes)
def test_ask_marks_are_the_marks_the_next_decision_adds(seq: list[int]) -> None:
    # the road oracle: deal the decision and see which mark each derived road gained
    marks = ask_marks(seq)
    for side in (B, P):
        for k in (1, 2, 3):
            before = derived_road(big_road(seq), k)
            after = derived_road(big_road(seq + [side]), k)
            added = after[-1] if len(after) > len(before) else NO_MARK
            assert marks.of(side)[k] == added
    for k in (1, 2, 3):  # opposite colours, or none for both
        assert marks.banker[k] == -marks.player[k]


@settings(max_examples=60, deadline=None)
@given(st.lists(shoes, min_size=1, max_size=5))
def test_road_state_and_strategy_views_ask_the_same(sessions: list[list[int]]) -> None:
    from baccarat.rules import TableRules
    from baccarat.strategies.base import SessionRoads, TableRoads, TableState

    n = len(sessions)
    width = max(len(s) for s in sessions)
    state = RoadState(n)
    for t in range(width):
        active = np.array([t < len(s) for s in sessions])
        codes = np.array([s[t] if t < len(s) else 0 for s in sessions])
        state.append(codes, active)
    view = TableRoads(state)
    table = TableState(n, TableRules(), np.zeros(n), 1, np.full((n, 1), -1, np.int8)).table
    for k in (1, 2, 3):
        grid = view.ask(k)
        assert grid.shape == (n, 2) and not grid.flags.writeable
        for s, seq in enumerate(sessions):
            expected = ask_marks(seq)
            assert grid[s].tolist() == [expected.banker[k], expected.player[k]]
            names = {RED: "red", BLUE: "blue", NO_MARK: None}
            assert SessionRoads(view, table, s).ask(k) == {
                "B": names[expected.banker[k]], "P": names[expected.player[k]]}
