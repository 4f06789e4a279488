"""The replay's chunk layouts, built by compiled kernels, against NumPy's formulas for them.

The session grid (each session's coup rows) and the step-major arrays the replay plays
from are gathered in one pass each; these tests build the same arrays the plain NumPy way
(the way the replay built them before) and require them identical, on shoes of uneven
length, shoe ids that repeat out of order, sessions of several shoes and recorded coups
numbered from anywhere.
"""

from __future__ import annotations

import numpy as np
from baccarat.bets import classify_coups
from baccarat.coups import Coups
from baccarat.deal import generate_coups
from baccarat.replay import _StepMajor, session_grid, session_start_rows, session_starts
from baccarat.rules import TableRules
from hypothesis import given, settings
from hypothesis import strategies as st


def numpy_grid(shoe: np.ndarray, session_shoes: int) -> np.ndarray:
    """The (sessions, steps) grid of coup rows, -1 padded, by NumPy's scatter."""
    starts, session = session_starts(shoe, session_shoes)
    n = shoe.size
    lengths = np.diff(np.r_[starts, n])
    step = np.arange(n) - np.repeat(starts, lengths)
    rows = np.full((starts.size, int(lengths.max())), -1, dtype=np.int64)
    rows[session, step] = np.arange(n)
    return rows


def numpy_steps(coups: Coups, grid_rows: np.ndarray, classes: np.ndarray) -> dict:
    """The step-major arrays by transposing the grid and gathering through it."""
    rows = np.ascontiguousarray(grid_rows.T)
    dealt = rows >= 0
    rows[~dealt] = 0
    opens = coups.coup == 1
    opens[1:] |= coups.shoe[1:] != coups.shoe[:-1]
    new_shoe = opens[rows] & dealt
    new_shoe[:1] = dealt[:1]
    return {"rows": rows, "dealt": dealt, "new_shoe": new_shoe, "classes": classes[rows],
            "outcome": coups.outcome[rows], "player_total": coups.player_total[rows],
            "banker_total": coups.banker_total[rows]}


shoe_runs = st.lists(st.tuples(st.integers(0, 6), st.integers(1, 9)), min_size=1,
                     max_size=25)


@settings(max_examples=150, deadline=None)
@given(runs=shoe_runs, session_shoes=st.integers(1, 4))
def test_session_starts_are_those_of_the_shoe_runs(runs, session_shoes):
    # Runs of equal ids are shoes even when an id comes back later (recorded files).
    shoe = np.repeat([r[0] for r in runs], [r[1] for r in runs]).astype(np.int64)
    expected, _ = session_starts(shoe, session_shoes)
    got = session_start_rows(shoe, session_shoes)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


def recorded(runs: list[tuple[int, int]], first_coups: list[int], seed: int) -> Coups:
    """Generated coups cut into shoes of the given ids and lengths, coups numbered from
    ``first_coups`` (a recorded file need not number from 1)."""
    lengths = [length for _, length in runs]
    coups = generate_coups(TableRules(), seed, np.arange(len(runs), dtype=np.int64))
    pick = np.concatenate([np.flatnonzero(coups.shoe == k)[:length]
                           for k, length in enumerate(lengths)])
    coups = coups.take(pick)
    coups.shoe = np.repeat([shoe for shoe, _ in runs], lengths).astype(np.int64)
    coups.coup = np.concatenate([np.arange(first, first + length) for first, length
                                 in zip(first_coups, lengths, strict=True)]).astype(np.int32)
    return coups


@settings(max_examples=60, deadline=None)
@given(runs=shoe_runs, session_shoes=st.integers(1, 3), data=st.data())
def test_grid_and_step_major_arrays_are_numpys(runs, session_shoes, data):
    firsts = data.draw(st.lists(st.integers(0, 3), min_size=len(runs), max_size=len(runs)))
    coups = recorded(runs, firsts, seed=len(runs))
    grid = session_grid(coups, session_shoes, first_session=5)
    expected_rows = numpy_grid(coups.shoe, session_shoes)
    assert grid.rows.dtype == np.int64 and np.array_equal(grid.rows, expected_rows)
    starts = expected_rows[:, 0]
    assert grid.session_ids.tolist() == list(range(5, 5 + starts.size))
    assert grid.first_shoe.tolist() == coups.shoe[starts].tolist()
    classes = classify_coups(coups)
    steps = _StepMajor(coups, grid, classes)
    for name, expected in numpy_steps(coups, expected_rows, classes).items():
        got = getattr(steps, name)
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        assert np.array_equal(got, expected), name


def test_a_whole_generated_chunk_lays_out_as_numpy_does():
    coups = generate_coups(TableRules(), 2026, np.arange(300, dtype=np.int64))
    for session_shoes in (1, 4):
        grid = session_grid(coups, session_shoes)
        expected_rows = numpy_grid(coups.shoe, session_shoes)
        assert np.array_equal(grid.rows, expected_rows)
        classes = classify_coups(coups)
        steps = _StepMajor(coups, grid, classes)
        for name, expected in numpy_steps(coups, expected_rows, classes).items():
            assert np.array_equal(getattr(steps, name), expected), name
