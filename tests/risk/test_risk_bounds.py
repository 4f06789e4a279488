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
