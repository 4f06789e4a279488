"""The finite-state declarations of the built-ins (strategies/finite_state.py) against the
strategies' own play, a plugin that lies about its state, and the systems that cannot
declare one."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
from baccarat.risk.coups import exact
from baccarat.risk.machine import RiskError, TableCut, finite_system
from baccarat.risk.verify import declaration_mismatches
from baccarat.rules import TableRules
from baccarat.strategies.base import Result, Strategy, Table, Wager
from baccarat.strategies.finite_state import FiniteStrategy, not_finite_reason
from baccarat.strategies.registry import builtin_strategies, expand_spec

FINITE_SPECS = [
    "flat", "flat:side=tie", "martingale", "martingale:max_doublings=3,side=player",
    "grand_martingale:max_doublings=2", "paroli", "paroli:target_wins=2", "dalembert",
    "dalembert:unit=2.5", "fibonacci", "labouchere", "labouchere:line=1-1-2",
    "oscars_grind", "one_three_two_six:side=player", "follow", "chop", "streak:n=2",
    "follow:per_shoe=false", "side_bet:bet=banker_pair",
]


@pytest.mark.parametrize("variant", ["standard", "ez", "super6"])
def test_every_finite_builtin_declares_the_stakes_it_plays(variant: str) -> None:
    strategies = [expand_spec(spec)[0] for spec in FINITE_SPECS]
    found = declaration_mismatches(strategies, TableRules(variant=variant), shoes=12)
    assert found == [None] * len(FINITE_SPECS), dict(zip(FINITE_SPECS, found, strict=True))


def test_every_builtin_either_declares_its_state_or_says_why_not() -> None:
    for name, cls in builtin_strategies().items():
        reason = not_finite_reason(cls)
        if name in ("road", "counter"):
            assert reason and "not" in reason, name
        else:
            assert reason is None, (name, reason)
            assert isinstance(expand_spec(name)[0], FiniteStrategy)


def test_a_road_follower_is_refused_with_its_reason() -> None:
    with pytest.raises(RiskError, match="derived road.*not finite"):
        finite_system(expand_spec("road")[0])


class LyingMartingale(Strategy):
    """Doubles after a loss, but declares that it doubles after a win."""

    name: ClassVar[str] = "lying_martingale"

    _k: np.ndarray

    def start(self, table: Table) -> None:
        self._k = np.zeros(table.n, dtype=np.int64)

    def wager(self, table: Table) -> Wager:
        return Wager.on(banker=self.base * 2.0 ** self._k)

    def settle(self, table: Table, result: Result) -> None:
        self._k = np.where(result.won, 0, np.where(result.lost, self._k + 1, self._k))

    def initial_state(self) -> int:
        return 0

    def stakes_of(self, k: int) -> dict[str, float]:
        return {"banker": self.base * 2.0 ** k}

    def next_state(self, k: int, outcome: str, result: str) -> int:
        return {"won": k + 1, "lost": 0}.get(result, k)


def test_a_declaration_that_differs_from_the_play_is_caught_where_it_differs() -> None:
    (found,) = declaration_mismatches([LyingMartingale()], TableRules(), shoes=4)
    assert found is not None
    assert "the declared state" in found and "banker" in found
    assert found.startswith("session 0, shoe 0, coup ")


class ForgetfulMartingale(LyingMartingale):
    """Declares its play truly, but forgets losses in a row from two on as if the table
    maximum cut every stake from 40 up, whatever the maximum."""

    name: ClassVar[str] = "forgetful_martingale"

    def next_state(self, k: int, outcome: str, result: str) -> int:
        return {"won": 0, "lost": k + 1}.get(result, k)

    def limited_state(self, k: int, cut: object) -> int:
        return min(k, 2)


def test_a_limited_state_that_forgets_what_the_table_still_places_is_caught() -> None:
    found = declaration_mismatches([ForgetfulMartingale(), ForgetfulMartingale()],
                                   TableRules(table_max=1000), shoes=4)
    assert found[0] is not None
    assert "its limited state 2 places 40 on banker" in found[0], found[0]
    # at a maximum of 30 the stakes it forgets (40 and up) are all cut: the truth there
    assert declaration_mismatches([ForgetfulMartingale()], TableRules(table_max=30),
                                  shoes=4) == [None]


def test_labouchere_lines_limited_at_the_table_maximum_play_alike() -> None:
    specs = ["labouchere", "labouchere:line=1-1", "reverse_labouchere:line=2-1,base=4"]
    found = declaration_mismatches([expand_spec(spec)[0] for spec in specs],
                                   TableRules(table_max=25), shoes=12)
    assert found == [None] * len(specs), dict(zip(specs, found, strict=True))


@pytest.mark.parametrize(("spec", "table_max", "chip", "line", "expected"), [
    # base 10: 20 is the maximum itself (placed, no hit); 30 and up are cut alike
    ("labouchere", 20, None, (1, 1, 2, 5, 8, 3), (1, 1, 2, 3, 3, 3)),
    # base 4, maximum 15: 16 is cut; with 5-chips 16 is placed as 15 (no hit), 20 is cut
    ("labouchere:base=4", 15, None, (1, 4, 5, 7), (1, 4, 4, 4)),
    ("labouchere:base=4", 15, 5.0, (1, 4, 5, 7), (1, 4, 5, 5)),
    ("reverse_labouchere:base=4", 15, 5.0, (6, 3), (5, 3)),
    # base 10 and a maximum of 300: nothing on the line is cut
    ("labouchere", 300, None, (1, 2, 29, 30), (1, 2, 29, 30)),
])
def test_labouchere_writes_the_numbers_the_table_maximum_cuts_as_the_smallest(
        spec: str, table_max: float, chip: float | None, line: tuple[int, ...],
        expected: tuple[int, ...]) -> None:
    staking = expand_spec(spec)[0].parts().staking
    cut = TableCut(exact(table_max), exact(chip) if chip else None)
    assert staking.limited_state(line, cut) == expected
