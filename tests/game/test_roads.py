"""Roads: bead plate, big road with dragon tails, derived roads, and the vectorised state.

Expected values below were worked out by hand from the rules in docs/architecture.md
("Roads"); the working is in the comments next to each assertion.
"""

from __future__ import annotations

import numpy as np
import pytest
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.errors import BaccaratError
from baccarat.roads import (
    BLUE,
    RED,
    BigRoad,
    BigRoadCell,
    RoadState,
    all_roads,
    bead_plate,
    big_road,
    derived_grid,
    derived_road,
    layout,
    outcomes_from_labels,
)
from hypothesis import given, settings
from hypothesis import strategies as st

B, P, T = BANKER, PLAYER, TIE


def colours(text: str) -> list[int]:
    """'RBB' -> [RED, BLUE, BLUE]."""
    return [RED if c == "R" else BLUE for c in text]


# ----------------------------------------------------------------------------- bead plate


def test_bead_plate_fills_top_to_bottom_then_left_to_right_with_ties() -> None:
    seq = outcomes_from_labels("BPTBBP" "TTP")
    grid = bead_plate(seq)
    assert len(grid) == 6
    assert grid[0] == [B, T]
    assert grid[1] == [P, T]
    assert grid[2] == [T, P]
    assert grid[3] == [B, None]
    assert grid[4] == [B, None]
    assert grid[5] == [P, None]


def test_bead_plate_empty_shoe() -> None:
    assert bead_plate([]) == [[] for _ in range(6)]


# ----------------------------------------------------------------------------- big road


def test_big_road_columns_and_ties_on_latest_cell() -> None:
    # B B P P P B T P P B B B B B B B P
    # columns: BB | PPP | B(+1 tie) | PP | BBBBBBB | P
    road = big_road(outcomes_from_labels("BBPPPBTPPBBBBBBBP"))
    assert road.lengths == [2, 3, 1, 2, 7, 1]
    assert road.leading_ties == 0
    assert road.columns[2] == [BigRoadCell(B, ties=1)]
    assert [c.side for c in (col[0] for col in road.columns)] == [B, P, B, P, B, P]
    assert sum(cell.ties for col in road.columns for cell in col) == 1


def test_big_road_leading_and_repeated_ties() -> None:
    # T T P B P P B B B P T: two ties before the first decision, then
    # P | B | PP | BBB | P(+1 tie)
    road = big_road(outcomes_from_labels("TTPBPPBBBPT"))
    assert road.leading_ties == 2
    assert road.lengths == [1, 1, 2, 3, 1]
    assert road.columns[0] == [BigRoadCell(P, 0)]
    assert road.columns[-1] == [BigRoadCell(P, 1)]
    # several ties after the same cell pile up on it; a decision after them starts fresh
    road = big_road(outcomes_from_labels("BTTTBT"))
    assert road.columns == [[BigRoadCell(B, 3), BigRoadCell(B, 1)]]


def test_big_road_of_ties_only() -> None:
    road = big_road([T, T, T])
    assert road.leading_ties == 3
    assert road.columns == []
    assert road.grid == [[] for _ in range(6)]
    assert all(derived_road(road, k) == [] for k in (1, 2, 3))


def test_dragon_tail_of_a_long_streak() -> None:
    # eight Bankers then a Player: rows 0-5 of column 0, then right along row 5
    road = big_road(outcomes_from_labels("BBBBBBBBP"))
    assert road.positions[0] == [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0),
                                 (5, 1), (5, 2)]
    # the Player starts the next display column on top, above the tail
    assert road.positions[1] == [(0, 1)]
    assert len(road.grid) == 6 and len(road.grid[0]) == 3
    assert road.grid[5] == [BigRoadCell(B), BigRoadCell(B), BigRoadCell(B)]
    assert road.grid[0] == [BigRoadCell(B), BigRoadCell(P), None]
    # the logical column keeps its full length for the derived roads
    assert road.lengths == [8, 1]


def test_streak_turns_right_early_above_an_earlier_tail() -> None:
    # B x7 then P x6 then B: column 0 fills rows 0-5 and its tail sits at (5, 1).
    # The Players go down column 1 to row 4, find (5, 1) taken and turn right at row 4.
    road = big_road(outcomes_from_labels("B" * 7 + "P" * 6 + "B"))
    assert road.positions[0][-1] == (5, 1)
    assert road.positions[1] == [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (4, 2)]
    assert road.positions[2] == [(0, 2)]


def test_tail_along_the_top_row_pushes_the_next_column_right() -> None:
    # Nested tails: lengths 10, 9, 8, 7, 6 turn right at rows 5, 4, 3, 2, 1; then a pair
    # starting in display column 5 is blocked at once (row 1 holds the tail of the column
    # of six) and runs along row 0 into column 6, so the next column starts in column 7.
    positions = layout([10, 9, 8, 7, 6, 2, 1])
    assert positions[0] == [(r, 0) for r in range(6)] + [(5, c) for c in range(1, 5)]
    assert positions[1] == [(r, 1) for r in range(5)] + [(4, c) for c in range(2, 6)]
    assert positions[2] == [(r, 2) for r in range(4)] + [(3, c) for c in range(3, 7)]
    assert positions[3] == [(r, 3) for r in range(3)] + [(2, c) for c in range(4, 8)]
    assert positions[4] == [(0, 4), (1, 4)] + [(1, c) for c in range(5, 9)]
    assert positions[5] == [(0, 5), (0, 6)]
    assert positions[6] == [(0, 7)]


@given(st.lists(st.integers(1, 15), max_size=30))
def test_layout_never_overlaps_and_keeps_every_entry(lengths: list[int]) -> None:
    positions = layout(lengths)
    cells = [cell for column in positions for cell in column]
    assert [len(column) for column in positions] == lengths
    assert len(set(cells)) == len(cells)
    assert all(0 <= r < 6 and c >= 0 for r, c in cells)
    for column in positions:
        assert column[0][0] == 0  # every column starts on the top row
        # each step goes one down or one right, never back
        for (r0, c0), (r1, c1) in zip(column, column[1:], strict=False):
            assert (r1 - r0, c1 - c0) in {(1, 0), (0, 1)}


# ----------------------------------------------------------------------------- derived roads


def test_derived_roads_worked_example() -> None:
    # Big road lengths [2, 3, 1, 2, 7, 1] (columns 0..5), from B B P P P B T P P B*7 P.
    #
    # Big eye boy (k=1): column 1 has a row 1, so start at (1, 1).
    #   (1,1) col0 len 2 > 1 -> R      (1,2) col0 len 2 == 2 -> B
    #   (2,0) cols 1,0: 3 vs 2 -> B    (3,0) cols 2,1: 1 vs 3 -> B
    #   (3,1) col2 len 1 == 1 -> B     (4,0) cols 3,2: 2 vs 1 -> B
    #   (4,1) col3 len 2 > 1 -> R      (4,2) col3 len 2 == 2 -> B
    #   (4,3..6) col3 len 2 < r -> R R R R
    #   (5,0) cols 4,3: 7 vs 2 -> B
    # Small road (k=2): column 2 has one cell, so start at (3, 0).
    #   (3,0) cols 2,0: 1 vs 2 -> B    (3,1) col1 len 3 > 1 -> R
    #   (4,0) cols 3,1: 2 vs 3 -> B    (4,1) col2 len 1 == 1 -> B
    #   (4,2..6) col2 len 1 < r -> R R R R R
    #   (5,0) cols 4,2: 7 vs 1 -> B
    # Cockroach pig (k=3): column 3 has a row 1, so start at (3, 1).
    #   (3,1) col0 len 2 > 1 -> R      (4,0) cols 3,0: 2 vs 2 -> R
    #   (4,1) col1 len 3 > 1 -> R      (4,2) 3 > 2 -> R
    #   (4,3) col1 len 3 == 3 -> B     (4,4..6) 3 < r -> R R R
    #   (5,0) cols 4,1: 7 vs 3 -> B
    road = big_road(outcomes_from_labels("BBPPPBTPPBBBBBBBP"))
    assert derived_road(road, 1) == colours("RBBBBBRBRRRRB")
    assert derived_road(road, 2) == colours("BRBBRRRRRB")
    assert derived_road(road, 3) == colours("RRRRBRRRB")
    # the logical column lengths alone give the same marks
    for k in (1, 2, 3):
        assert derived_road([2, 3, 1, 2, 7, 1], k) == derived_road(road, k)


def test_derived_roads_second_worked_example() -> None:
    # T T P B P P B B B P T -> big road lengths [1, 1, 2, 3, 1] (leading ties ignored).
    # Big eye boy: column 1 has one cell, start at (2, 0).
    #   (2,0) cols 1,0: 1 vs 1 -> R    (2,1) col1 len 1 == 1 -> B
    #   (3,0) cols 2,1: 2 vs 1 -> B    (3,1) col2 len 2 > 1 -> R
    #   (3,2) col2 len 2 == 2 -> B     (4,0) cols 3,2: 3 vs 2 -> B
    # Small road: column 2 has a row 1, start at (2, 1).
    #   (2,1) col0 len 1 == 1 -> B     (3,0) cols 2,0: 2 vs 1 -> B
    #   (3,1) col1 len 1 == 1 -> B     (3,2) col1 len 1 < 2 -> R
    #   (4,0) cols 3,1: 3 vs 1 -> B
    # Cockroach pig: column 3 has a row 1, start at (3, 1).
    #   (3,1) col0 len 1 == 1 -> B     (3,2) col0 len 1 < 2 -> R
    #   (4,0) cols 3,0: 3 vs 1 -> B
    road = big_road(outcomes_from_labels("TTPBPPBBBPT"))
    assert derived_road(road, 1) == colours("RBBRBB")
    assert derived_road(road, 2) == colours("BBBRB")
    assert derived_road(road, 3) == colours("BRB")


def test_derived_road_starts_only_once_enough_columns_exist() -> None:
    # lengths [3, 1]: big eye boy starts at (1, 1), which is empty, so at (2, 0): nothing yet.
    assert derived_road([3, 1], 1) == []
    # lengths [3, 2]: (1, 1) exists: col0 len 3 > 1 -> R
    assert derived_road([3, 2], 1) == [RED]
    # lengths [1, 1, 1]: small road would start at (3, 0): nothing yet
    assert derived_road([1, 1, 1], 2) == []
    # lengths [1, 1, 1, 1]: (3, 0) cols 2,0: 1 vs 1 -> R for small road; (3,0) is not
    # on the cockroach pig, which would start at (4, 0)
    assert derived_road([1, 1, 1, 1], 2) == [RED]
    assert derived_road([1, 1, 1, 1], 3) == []


def test_derived_grid_laid_out_like_a_big_road() -> None:
    # R R then eight B: column 0 = RR, column 1 = B x8 with a tail along row 5
    grid = derived_grid(colours("RR" + "B" * 8))
    assert [row[0] for row in grid] == [RED, RED, None, None, None, None]
    assert [row[1] for row in grid] == [BLUE] * 6
    assert grid[5] == [None, BLUE, BLUE, BLUE]
    assert grid[0][2:] == [None, None]


def test_roads_to_dict_is_plain_json() -> None:
    import json

    roads = all_roads(outcomes_from_labels("TBBPT"))
    data = json.loads(json.dumps(roads.to_dict()))
    assert data["coups"] == 5
    assert data["bead_plate"] == [["T"], ["B"], ["B"], ["P"], ["T"], [None]]
    assert data["big_road"]["leading_ties"] == 1
    assert data["big_road"]["columns"] == [[{"side": "B", "ties": 0}, {"side": "B", "ties": 0}],
                                           [{"side": "P", "ties": 1}]]
    assert data["big_road"]["grid"][1] == [{"side": "B", "ties": 0}, None]
    # lengths [2, 1]: big eye boy (1,0) is skipped when column 1 has no row 1: no marks yet
    assert [d["name"] for d in data["derived"]] == ["big eye boy", "small road", "cockroach pig"]
    assert all(d["marks"] == [] for d in data["derived"])


def test_bad_input_is_refused_with_its_position() -> None:
    with pytest.raises(BaccaratError, match="at coup index 2"):
        big_road([0, 1, 3])
    with pytest.raises(BaccaratError, match="position 1"):
        outcomes_from_labels("BX")
    with pytest.raises(BaccaratError, match="k=4"):
        derived_road([1, 2], 4)
    with pytest.raises(BaccaratError, match=">= 1"):
        derived_road([1, 0], 1)


# ----------------------------------------------------------------------------- properties

shoes = st.lists(st.sampled_from([B, P, T]), max_size=90)


@given(shoes)
def test_banker_and_player_always_add_opposite_colours(seq: list[int]) -> None:
    base = {k: derived_road(big_road(seq), k) for k in (1, 2, 3)}
    with_b = {k: derived_road(big_road(seq + [B]), k) for k in (1, 2, 3)}
    with_p = {k: derived_road(big_road(seq + [P]), k) for k in (1, 2, 3)}
    with_t = {k: derived_road(big_road(seq + [T]), k) for k in (1, 2, 3)}
    for k in (1, 2, 3):
        assert with_t[k] == base[k]  # a tie never adds a mark
        grew_b = len(with_b[k]) - len(base[k])
        grew_p = len(with_p[k]) - len(base[k])
        assert grew_b == grew_p and grew_b in (0, 1)
        assert with_b[k][: len(base[k])] == base[k]  # marks never change afterwards
        if grew_b:
            assert with_b[k][-1] == -with_p[k][-1]


@given(shoes)
def test_marks_count_every_entry_from_the_start_cell(seq: list[int]) -> None:
    # every big road entry from (k, 1) on (or (k + 1, 0)) adds exactly one mark
    road = big_road(seq)
    lengths = road.lengths
    for k in (1, 2, 3):
        expected = sum(lengths[k:]) - (1 if len(lengths) > k else 0)
        assert len(derived_road(road, k)) == expected
    assert sum(lengths) + road.leading_ties + sum(
        cell.ties for col in road.columns for cell in col) == len(seq)


# ----------------------------------------------------------------------------- RoadState


def expected_state(seq: list[int]) -> dict[str, object]:
    """What RoadState should report after ``seq``, from the pure functions alone."""
    road: BigRoad = big_road(seq)
    out: dict[str, object] = {
        "side": road.columns[-1][0].side if road.columns else -1,
        "streak": road.lengths[-1] if road.columns else 0,
        "columns": len(road.columns),
        "ties": road.columns[-1][-1].ties if road.columns else 0,
        "leading": road.leading_ties,
    }
    grown = {side: big_road(seq + [side]) for side in (B, P)}
    for k in (1, 2, 3):
        marks = derived_road(road, k)
        out[f"last{k}"] = marks[-1] if marks else 0
        out[f"count{k}"] = len(marks)
        for side in (B, P):
            after = derived_road(grown[side], k)
            out[f"if{k}{side}"] = after[-1] if len(after) > len(marks) else 0
    return out


def observed_states(state: RoadState) -> list[dict[str, object]]:
    """What RoadState reports for each session (every array asked for once, for all)."""
    columns: dict[str, np.ndarray] = {
        "side": state.side, "streak": state.streak, "columns": state.columns,
        "ties": state.ties, "leading": state.leading_ties,
    }
    for k in (1, 2, 3):
        columns[f"last{k}"] = state.last_colour(k)
        columns[f"count{k}"] = state.mark_count(k)
        for side in (B, P):
            columns[f"if{k}{side}"] = state.colour_if(k, side)
        assert (state.colour_if(k, T) == 0).all()
    return [{name: int(values[s]) for name, values in columns.items()}
            for s in range(state.n_sessions)]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_road_state_agrees_with_pure_functions(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 6), label="sessions")
    coups = data.draw(st.integers(1, 70), label="coups")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    # ties rarer than decisions, as at the table, but long streaks possible
    outcomes = rng.choice([B, P, T], size=(coups, n), p=[0.45, 0.45, 0.10])
    streaky = rng.random(n) < 0.3
    outcomes[:, streaky] = np.where(rng.random((coups, int(streaky.sum()))) < 0.85,
                                    B, outcomes[:, streaky])
    active = rng.random((coups, n)) < 0.85
    resets = rng.random((coups, n)) < 0.03
    state = RoadState(n)
    history: list[list[int]] = [[] for _ in range(n)]
    expected = [expected_state([]) for _ in range(n)]  # redone when a history changes
    for t in range(coups):
        if resets[t].any():
            state.reset(resets[t])
            for s in np.flatnonzero(resets[t]):
                history[s] = []
                expected[s] = expected_state([])
        # inactive sessions get a garbage code they must ignore
        codes = np.where(active[t], outcomes[t], -7)
        state.append(codes, active[t])
        observed = observed_states(state)
        for s in range(n):
            if active[t, s]:
                history[s].append(int(outcomes[t, s]))
                expected[s] = expected_state(history[s])
            assert observed[s] == expected[s], (t, s)


def test_road_state_colour_if_per_session_outcomes() -> None:
    # two sessions: BBP (lengths [2, 1]) and BPBP (lengths [1, 1, 1, 1])
    state = RoadState(2)
    for codes in ([B, B], [B, P], [P, B], [-1, P]):
        state.append(np.array(codes), np.array([codes[0] >= 0, True]))
    # session 0, big eye boy: a Player lands at (1, 1): col0 len 2 > 1 -> red;
    #   a Banker lands at (2, 0): cols 1,0: 1 vs 2 -> blue.
    # session 1, big eye boy: a Player lands at (3, 1): col2 len 1 == 1 -> blue;
    #   a Banker at (4, 0): cols 3,2: 1 vs 1 -> red.
    got = state.colour_if(1, np.array([P, B]))
    assert got.tolist() == [RED, RED]
    got = state.colour_if(1, np.array([B, P]))
    assert got.tolist() == [BLUE, BLUE]
    # last marks: session 0 none yet (entry (1,0) is skipped); session 1: big eye boy marks
    # (2,0) cols 1,0: 1 vs 1 -> R, (3,0) cols 2,1: 1 vs 1 -> R
    assert state.last_colour(1).tolist() == [0, RED]
    assert state.mark_count(1).tolist() == [0, 2]


def test_road_state_refuses_bad_input() -> None:
    state = RoadState(3)
    with pytest.raises(BaccaratError, match=r"shape \(3,\)"):
        state.append(np.array([0, 1]))
    with pytest.raises(BaccaratError, match="session 1"):
        state.append(np.array([0, 5, 1]))
    with pytest.raises(BaccaratError, match="boolean"):
        state.reset(np.array([1, 0, 1]))
    with pytest.raises(BaccaratError, match="k=0"):
        state.last_colour(0)
    with pytest.raises(BaccaratError, match=r"shape \(3,\)"):
        state.colour_if(1, np.array([0, 1]))


def test_road_state_many_sessions_one_full_shoe() -> None:
    # the same shoe in every session gives the same answers as the pure functions
    seq = outcomes_from_labels("BBPPPBTPPBBBBBBBP")
    state = RoadState(1000)
    for code in seq:
        state.append(np.full(1000, code))
    for k, text in ((1, "RBBBBBRBRRRRB"), (2, "BRBBRRRRRB"), (3, "RRRRBRRRB")):
        assert (state.mark_count(k) == len(text)).all()
        assert (state.last_colour(k) == colours(text)[-1]).all()
    assert (state.streak == 1).all() and (state.side == P).all()
    assert (state.columns == 6).all()
