"""``risk`` refuses an exact chain past its cell budget before allocating it and falls
back to the simulation, saying so: a bankroll of 1e9 to 1e20 table units (as many
bankroll amounts) ended in "unexpected MemoryError" (291 TiB asked for) or
"unexpected OverflowError"."""

from __future__ import annotations

import pytest
from baccarat.cli import app
from typer.testing import CliRunner


@pytest.mark.parametrize("bankroll", ["1e9", "1e20"])
def test_a_huge_bankroll_falls_back_to_the_simulation_saying_why(bankroll: str):
    result = CliRunner().invoke(app, ["risk", "-s", "flat", "--bankroll", bankroll,
                                      "--check", "100", "--json"])
    assert result.exit_code == 0, result.output
    assert "unexpected" not in result.output
    assert "more than 20,000,000 cells" in result.output
    assert "simulated" in result.output


def test_a_session_too_long_for_the_time_limit_is_simulated_within_seconds():
    """Without a win goal a Martingale's bankroll window widens every coup: 100,000 coups
    would take hours exactly (4,000 took about 10 s, 8,000 about 50 s here). The chain
    projects its time as it goes and stops within a few seconds, naming the flag."""
    result = CliRunner().invoke(app, ["risk", "-s", "martingale", "--coups", "100000",
                                      "--check", "100", "--time-limit", "60"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "no exact figures: the exact chain would take about" in text
    assert "more than --time-limit 60 s" in text and "the simulation instead" in text


def test_a_chain_that_fits_the_time_limit_is_exact():
    result = CliRunner().invoke(app, ["risk", "-s", "martingale", "--coups", "300",
                                      "--check", "0", "--time-limit", "5"])
    assert result.exit_code == 0, result.output
    assert "exact over" in result.output and "time-limit" not in result.output


def test_many_sessions_in_a_row_are_refused_before_memory_runs_out():
    """--sessions 10000 spans a bankroll of millions of grid amounts: the pass was killed
    at 23 GB; it is refused before allocating, the exact figures of one session stand."""
    result = CliRunner().invoke(app, ["risk", "-s", "martingale", "--sessions", "10000",
                                      "--check", "100"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "martingale: exact over" in text
    assert "over 10000 sessions in a row: not worked out:" in text
    assert "more than 20,000,000 cells" in text


def test_sessions_in_a_row_past_the_time_limit_say_so():
    result = CliRunner().invoke(app, ["risk", "-s", "martingale", "--sessions", "100",
                                      "--check", "0", "--time-limit", "2"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "over 100 sessions in a row: not worked out: the exact chain would take" in text
    assert "more than --time-limit 2 s" in text


def test_the_python_face_takes_the_time_limit_its_error_names():
    import baccarat

    with pytest.raises(baccarat.BaccaratError, match="more than time_limit 2 s"):
        baccarat.risk("martingale", coups=100_000, time_limit=2)
    assert baccarat.risk("martingale", coups=20, time_limit=None)["probability"].sum() == \
        pytest.approx(1.0)
