"""Staking plans that follow a progression: flat, the Martingale family, D'Alembert, ...

Each plan keeps, per session, where it stands in its progression (arrays of shape (n,)
allocated in ``start``) and moves every session at once in ``settle``: a coup the session
staked on and won moves it one way, one it lost the other. A push, a skipped coup and a
new shoe leave it where it is (``baccarat.strategies.parts`` defines this once for every plan).
Table limits, chip sizes, bankroll shortfalls and stop rules are the engine's business: a
plan caps its stake only where its own rule says so.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import AfterValidator, BeforeValidator, Field, PlainSerializer

from ..base import Result, Table
from ..compiled import STAKINGS, PartForm
from ..parts import Choice, Staking, register_part


def none_word(value: Any) -> Any:
    """Let a SPEC say ``none`` (or ``null``) for an optional value: ``max_doublings=none``."""
    if isinstance(value, str) and value.strip().lower() in ("none", "null"):
        return None
    return value


#: An optional parameter a SPEC may switch off with ``none``.
NoneWord = BeforeValidator(none_word)


class Progression(Staking):
    """A stake that follows a progression; subclasses implement ``_reset_state(n)``,
    ``_stakes()`` (money, shape (n,)) and ``_advance(won, lost)`` (boolean masks of the
    sessions that staked and won / lost the coup)."""

    def start(self, table: Table) -> None:
        self._reset_state(table.n)

    def stakes(self, table: Table, choice: Choice) -> np.ndarray:
        return self._stakes()

    def settle(self, table: Table, result: Result) -> None:
        won, lost = result.won, result.lost
        if won.any() or lost.any():
            self._advance(won, lost)

    def _reset_state(self, n: int) -> None:
        raise NotImplementedError

    def _stakes(self) -> np.ndarray:
        raise NotImplementedError

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        raise NotImplementedError

    # The finite-state declaration (strategies/finite_state.py): the same progression, one
    # session at a time. A push or a coup without a stake leaves it where it is.
    def stake_of(self, state: Any) -> float:
        """The stake in progression state ``state`` (exact risk)."""
        return self._stake_at(state)

    def next_state(self, state: Any, outcome: str, result: str) -> Any:
        """The progression's state after a coup whose stake ``result`` (exact risk)."""
        if result == "won" or result == "lost":
            return self._after(state, result == "won")
        return state

    def _stake_at(self, state: Any) -> float:
        raise NotImplementedError

    def _after(self, state: Any, won: bool) -> Any:
        raise NotImplementedError


@register_part
class Flat(Staking):
    """The same stake on every bet.

    Stakes ``base`` on every bet the selection makes, whatever happened before: the
    yardstick every progression is compared with.
    """

    name: ClassVar[str] = "flat"

    _stake: np.ndarray

    def start(self, table: Table) -> None:
        self._stake = np.full(table.n, self.base)

    def stakes(self, table: Table, choice: Choice) -> np.ndarray:
        return self._stake

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["flat"], (self.base,))  # base

    def initial_state(self) -> None:
        """Flat staking has one state (exact risk, strategies/finite_state.py)."""
        return None

    def stake_of(self, state: None) -> float:
        """``base``, always."""
        return self.base

    def next_state(self, state: None, outcome: str, result: str) -> None:
        """Nothing changes."""
        return None


class _Doubling(Progression):
    """Shared state of the Martingale family: consecutive losses ``k``, capped or not."""

    max_doublings: Annotated[int | None, NoneWord] = Field(
        None, ge=0, description="most doublings in a row; a loss at the cap restarts at "
        "base (none: unlimited)")

    _k: np.ndarray

    def _reset_state(self, n: int) -> None:
        self._k = np.zeros(n, dtype=np.int64)

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        k = self._k
        if self.max_doublings is None:
            raised = k + 1
        else:
            raised = np.where(k >= self.max_doublings, 0, k + 1)
        self._k = np.where(won, 0, np.where(lost, raised, k))

    def _cap(self) -> float:
        return -1.0 if self.max_doublings is None else float(self.max_doublings)

    def initial_state(self) -> int:
        """Losses in a row, k (exact risk)."""
        return 0

    def _after(self, k: int, won: bool) -> int:
        if won:
            return 0
        return 0 if self.max_doublings is not None and k >= self.max_doublings else k + 1


@register_part
class Martingale(_Doubling):
    """Double the stake after each loss, back to the base stake after a win.

    After k losses in a row the stake is base x 2**k; a win resets k to 0; a push (tie)
    changes nothing. With ``max_doublings`` = m the largest stake is base x 2**m, and a
    loss at that stake gives the progression up: the next stake is base again.
    """

    name: ClassVar[str] = "martingale"

    def _stakes(self) -> np.ndarray:
        return self.base * np.exp2(self._k.astype(np.float64))

    def _stake_at(self, k: int) -> float:
        return float(self.base * np.exp2(float(k)))

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["martingale"], (self.base, self._cap()))  # base, cap (-1)


@register_part
class GrandMartingale(_Doubling):
    """After each loss double the stake and add one base unit; base again after a win.

    After k losses in a row the stake is base x (2**(k+1) - 1): 1, 3, 7, 15, ... units.
    A win resets k to 0; a push (tie) changes nothing. With ``max_doublings`` = m the
    largest stake is base x (2**(m+1) - 1), and a loss at it restarts at base.
    """

    name: ClassVar[str] = "grand_martingale"

    def _stakes(self) -> np.ndarray:
        return self.base * (np.exp2(self._k.astype(np.float64) + 1.0) - 1.0)

    def _stake_at(self, k: int) -> float:
        return float(self.base * (np.exp2(float(k) + 1.0) - 1.0))

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["grand_martingale"], (self.base, self._cap()))  # base, cap


@register_part
class Paroli(Progression):
    """Reverse Martingale: double after each win, back to base after a loss or a full run.

    After w wins in a row the stake is base x 2**w. A loss resets w to 0; so does the
    ``target_wins``-th win in a row (the run is banked and the next stake is base again).
    A push (tie) changes nothing.
    """

    name: ClassVar[str] = "paroli"

    target_wins: int = Field(3, ge=1, description="wins in a row after which the stake "
                             "goes back to base")

    _w: np.ndarray

    def _reset_state(self, n: int) -> None:
        self._w = np.zeros(n, dtype=np.int64)

    def _stakes(self) -> np.ndarray:
        return self.base * np.exp2(self._w.astype(np.float64))

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        up = self._w + 1
        up = np.where(up >= self.target_wins, 0, up)
        self._w = np.where(won, up, np.where(lost, 0, self._w))

    def initial_state(self) -> int:
        """Wins in a row, w (exact risk)."""
        return 0

    def _stake_at(self, w: int) -> float:
        return float(self.base * np.exp2(float(w)))

    def _after(self, w: int, won: bool) -> int:
        return (0 if w + 1 >= self.target_wins else w + 1) if won else 0

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["paroli"], (self.base, float(self.target_wins)))  # base, wins


@register_part
class Parlay(Progression):
    """Let it ride: after a win the next stake is the last stake plus what it won.

    The first stake is ``base``; each win stakes the whole of the last stake and its
    winnings (after the Banker commission: 10 won at 0.95 makes the next stake 19.5; the
    stake actually placed, after the table maximum); the ``target_wins``-th win in a row
    banks the run and the next stake is base again; a loss returns to base; a push
    changes nothing.
    """

    name: ClassVar[str] = "parlay"
    not_finite: ClassVar[str] = ("its next stake adds what the last one won, which depends on "
                                 "the bet's payout: the declaration sees only won or lost")

    target_wins: int = Field(3, ge=1, description="wins in a row after which the stake "
                             "goes back to base")

    _stake: np.ndarray
    _w: np.ndarray

    def _reset_state(self, n: int) -> None:
        self._stake = np.full(n, self.base)
        self._w = np.zeros(n, dtype=np.int64)

    def _stakes(self) -> np.ndarray:
        return self._stake

    def settle(self, table: Table, result: Result) -> None:
        won, lost = result.won, result.lost
        if not (won.any() or lost.any()):
            return
        up = self._w + 1
        banked = won & (up >= self.target_wins)
        ride = result.staked + result.net  # what was on the table, and what it won
        self._stake = np.where(banked | lost, self.base, np.where(won, ride, self._stake))
        self._w = np.where(banked | lost, 0, np.where(won, up, self._w))

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["parlay"], (self.base, float(self.target_wins)))  # base, wins


@register_part
class DAlembert(Progression):
    """One unit more after a loss, one unit less after a win, never below the base stake.

    The stake starts at ``base``; a loss adds ``unit`` (default: base), a win takes one
    ``unit`` off unless the stake is already ``base`` (so, with the default unit, the
    stake is a whole number of base units and never below one); a push changes nothing.
    """

    name: ClassVar[str] = "dalembert"

    unit: Annotated[float | None, NoneWord] = Field(
        None, gt=0, description="step up/down in table units (none: the base stake)")

    _steps: np.ndarray

    def _unit(self) -> float:
        return self.base if self.unit is None else self.unit

    def _reset_state(self, n: int) -> None:
        self._steps = np.zeros(n, dtype=np.int64)

    def _stakes(self) -> np.ndarray:
        return self.base + self._unit() * self._steps

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        s = self._steps
        self._steps = np.where(won, np.maximum(s - 1, 0), np.where(lost, s + 1, s))

    def initial_state(self) -> int:
        """Units above the base stake (exact risk)."""
        return 0

    def _stake_at(self, steps: int) -> float:
        return self.base + self._unit() * steps

    def _after(self, steps: int, won: bool) -> int:
        return max(steps - 1, 0) if won else steps + 1

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["dalembert"], (self.base, self._unit()))  # base, unit


@register_part
class ContraDAlembert(DAlembert):
    """One unit more after a win, one unit less after a loss, never below the base stake.

    D'Alembert the other way round: the stake starts at ``base``; a win adds ``unit``
    (default: base), a loss takes one ``unit`` off unless the stake is already ``base``;
    a push changes nothing.
    """

    name: ClassVar[str] = "contra_dalembert"

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        s = self._steps
        self._steps = np.where(lost, np.maximum(s - 1, 0), np.where(won, s + 1, s))

    def _after(self, steps: int, won: bool) -> int:
        return steps + 1 if won else max(steps - 1, 0)

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["contra_dalembert"], (self.base, self._unit()))  # base, unit


def _fibonacci(count: int) -> np.ndarray:
    """The first ``count`` Fibonacci numbers 1, 1, 2, 3, 5, ... as float64."""
    values = np.ones(count)
    for i in range(2, count):
        values[i] = values[i - 1] + values[i - 2]
    return values


# F(1476) is the last Fibonacci number a float64 holds; no session loses 1400 in a row.
FIB = _fibonacci(1400)


@register_part
class Fibonacci(Progression):
    """Stakes along the Fibonacci sequence: one step up after a loss, two back after a win.

    The stake is base x F(i) with F = 1, 1, 2, 3, 5, 8, ...; i starts at 0, a loss adds one
    step, a win takes two steps back (never before the first), a push changes nothing.
    """

    name: ClassVar[str] = "fibonacci"

    _i: np.ndarray

    def _reset_state(self, n: int) -> None:
        self._i = np.zeros(n, dtype=np.int64)

    def _stakes(self) -> np.ndarray:
        return self.base * FIB[np.minimum(self._i, FIB.size - 1)]

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        i = self._i
        self._i = np.where(won, np.maximum(i - 2, 0), np.where(lost, i + 1, i))

    def initial_state(self) -> int:
        """The place i in the sequence (exact risk)."""
        return 0

    def _stake_at(self, i: int) -> float:
        return float(self.base * FIB[min(i, FIB.size - 1)])

    def _after(self, i: int, won: bool) -> int:
        return max(i - 2, 0) if won else i + 1

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["fibonacci"], (self.base,))  # base


_LINE_SPLIT = re.compile(r"[\s\-/;]+")


def _parse_line(value: Any) -> Any:
    if isinstance(value, str):
        words = [w for w in _LINE_SPLIT.split(value.strip()) if w]
        try:
            return tuple(int(w) for w in words)
        except ValueError:
            raise ValueError(
                f"line {value!r} is not whole numbers separated by dashes (e.g. 1-2-3-4)"
            ) from None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"line numbers must be whole base units, got {value!r}")
        return (int(value),)
    return value


def _check_line(value: tuple[int, ...]) -> tuple[int, ...]:
    if not value:
        raise ValueError("the line needs at least one number")
    if min(value) < 1:
        raise ValueError(f"line numbers must be whole base units >= 1, got {value}")
    return value


#: A Labouchere line: whole base units, written 1-2-3-4 in a SPEC and in the outputs.
Line = Annotated[tuple[int, ...], BeforeValidator(_parse_line), AfterValidator(_check_line),
                 PlainSerializer(lambda line: "-".join(str(v) for v in line), return_type=str)]


@functools.lru_cache(maxsize=64)
def _first_cut_units(base: float, cut: Callable[[float], bool]) -> int:
    """The fewest units whose stake ``cut`` says the table maximum cuts (a stake ``cut``
    is true of, and every larger one, is placed alike)."""
    high = 1
    while not cut(base * high):
        high *= 2
    low = high // 2  # cut(base * low) is false (or low is 0)
    while high - low > 1:
        middle = (low + high) // 2
        if cut(base * middle):
            high = middle
        else:
            low = middle
    return high


@register_part
class Labouchere(Progression):
    """Cancellation: stake the line's first + last numbers; cross them off on a win.

    ``line`` holds numbers in base units (default 1-2-3-4). The stake is base x (first +
    last), or base x the number when one is left. A win crosses off the first and the last
    numbers (the only one, if one is left); a loss writes the stake's units at the end of
    the line; a push changes nothing. When the line is empty the cycle is complete (the
    line's sum has been won) and a new cycle starts with the original line. In a SPEC
    write the line with dashes, ``labouchere:line=1-1-2-3`` (``line=5``: a line of one
    number); a list makes one configuration per line, ``line=[1-2-3,1-1-1]``.
    """

    name: ClassVar[str] = "labouchere"

    line: Line = Field((1, 2, 3, 4), description="starting line in base units, written "
                       "1-2-3-4")

    _buf: np.ndarray
    _lo: np.ndarray
    _hi: np.ndarray

    def _reset_state(self, n: int) -> None:
        width = max(4 * len(self.line), 16)
        self._buf = np.zeros((n, width), dtype=np.int64)
        self._lo = np.zeros(n, dtype=np.int64)
        self._hi = np.zeros(n, dtype=np.int64)
        self._new_cycle(np.ones(n, dtype=bool))

    def _new_cycle(self, mask: np.ndarray) -> None:
        self._buf[mask, : len(self.line)] = self.line
        self._lo[mask] = 0
        self._hi[mask] = len(self.line)

    def _units(self) -> np.ndarray:
        rows = np.arange(self._lo.size)
        first = self._buf[rows, self._lo]
        last = self._buf[rows, self._hi - 1]
        return np.where(self._hi - self._lo == 1, first, first + last)

    def _stakes(self) -> np.ndarray:
        return self.base * self._units().astype(np.float64)

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        self._cross_off_and_append(won, lost)

    def _cross_off_and_append(self, crossed: np.ndarray, appended: np.ndarray) -> None:
        """Cross the first and last numbers off where ``crossed``, write the stake's units
        at the end where ``appended``; an emptied line starts a new cycle."""
        units = self._units()
        # Crossing off the first and the last number (the same one when one is left)
        # leaves hi < lo: an empty line either way.
        self._lo = self._lo + crossed
        self._hi = self._hi - crossed
        done = crossed & (self._hi <= self._lo)
        if done.any():
            self._new_cycle(done)
        if appended.any():
            if (self._hi[appended] >= self._buf.shape[1]).any():
                self._make_room()
            rows = np.flatnonzero(appended)
            self._buf[rows, self._hi[rows]] = units[rows]
            self._hi = self._hi + appended

    def _make_room(self) -> None:
        """Shift every line to the start of its row, doubling the width if still full."""
        n, width = self._buf.shape
        length = self._hi - self._lo
        new_width = width if int(length.max()) < width else 2 * width
        cols = np.arange(new_width)
        src = np.minimum(self._lo[:, None] + cols[None, :], width - 1)
        shifted = np.take_along_axis(self._buf, src, axis=1)
        self._buf = np.where(cols[None, :] < length[:, None], shifted, 0)
        self._lo = np.zeros(n, dtype=np.int64)
        self._hi = length

    def initial_state(self) -> tuple[int, ...]:
        """The line as it stands (exact risk)."""
        return tuple(self.line)

    def _stake_at(self, line: tuple[int, ...]) -> float:
        units = line[0] if len(line) == 1 else line[0] + line[-1]
        return self.base * float(units)

    def _after(self, line: tuple[int, ...], won: bool) -> tuple[int, ...]:
        return self._cross_or_append(line, crossed=won)

    def _cross_or_append(self, line: tuple[int, ...], crossed: bool) -> tuple[int, ...]:
        if crossed:
            rest = line[1:-1]
            return rest if rest else tuple(self.line)
        return (*line, line[0] if len(line) == 1 else line[0] + line[-1])

    def limited_state(self, state: tuple[int, ...],
                      cut: Callable[[float], bool]) -> tuple[int, ...]:
        """The line with every number the table maximum cuts written as the smallest
        such number (exact risk): a stake a number enters is then cut alike, and a number
        it writes is one too, so the two lines play alike; without this a line under a
        table maximum grows without bound and so does the count of states."""
        top = _first_cut_units(self.base, cut)
        return tuple(min(n, top) for n in state)

    def compiled_form(self) -> PartForm:
        # base, then the starting line's numbers
        return PartForm(STAKINGS["labouchere"], (self.base, *map(float, self.line)))


@register_part
class ReverseLabouchere(Labouchere):
    """Labouchere the other way round: write the stake at the end after a win, cross off
    after a loss.

    The stake is base x (first + last) of the line (default 1-2-3-4), or base x the
    number when one is left. A win writes the stake's units at the end of the line; a loss
    crosses off the first and the last numbers; a push changes nothing. An emptied line
    (the losing side of the cycle) starts again with the original line.
    """

    name: ClassVar[str] = "reverse_labouchere"

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        self._cross_off_and_append(lost, won)

    def _after(self, line: tuple[int, ...], won: bool) -> tuple[int, ...]:
        return self._cross_or_append(line, crossed=not won)

    def compiled_form(self) -> PartForm:
        # base, then the starting line's numbers
        return PartForm(STAKINGS["reverse_labouchere"], (self.base, *map(float, self.line)))


@register_part
class OscarsGrind(Progression):
    """Grind out one unit per series: raise by a unit after a win, never past the target.

    A series starts at a stake of 1 unit (``base``) and a series result of 0. A loss keeps
    the stake; a win raises it by one unit, unless that stake, if won, would take the
    series past +1 unit: then the stake is what takes it to exactly +1. When the series
    reaches +1 unit it restarts. A push changes nothing. The series result is counted at
    even money in whole units (the Banker commission is ignored), so the stakes stay
    whole units; a Banker series therefore ends a little short of +1 unit in money.
    """

    name: ClassVar[str] = "oscars_grind"

    _stake_units: np.ndarray
    _series: np.ndarray

    def _reset_state(self, n: int) -> None:
        self._stake_units = np.ones(n, dtype=np.int64)
        self._series = np.zeros(n, dtype=np.int64)

    def _stakes(self) -> np.ndarray:
        return self.base * self._stake_units.astype(np.float64)

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        s, p = self._stake_units, self._series
        p = np.where(won, p + s, np.where(lost, p - s, p))
        finished = won & (p >= 1)
        raised = np.minimum(s + 1, 1 - p)
        self._stake_units = np.where(finished, 1, np.where(won, raised, s))
        self._series = np.where(finished, 0, p)

    def initial_state(self) -> tuple[int, int]:
        """(stake in units, the series' result in units) (exact risk)."""
        return (1, 0)

    def _stake_at(self, state: tuple[int, int]) -> float:
        return self.base * float(state[0])

    def _after(self, state: tuple[int, int], won: bool) -> tuple[int, int]:
        s, p = state
        p = p + s if won else p - s
        if won and p >= 1:
            return (1, 0)
        return (min(s + 1, 1 - p) if won else s, p)

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["oscars_grind"], (self.base,))  # base


class _Cycle(Progression):
    """Stakes of a fixed cycle of base units on consecutive wins; a loss goes back to 1."""

    cycle: ClassVar[np.ndarray]

    _step: np.ndarray

    def _reset_state(self, n: int) -> None:
        self._step = np.zeros(n, dtype=np.int64)

    def _stakes(self) -> np.ndarray:
        return self.base * self.cycle[self._step]

    def _advance(self, won: np.ndarray, lost: np.ndarray) -> None:
        step = self._step
        self._step = np.where(won, (step + 1) % self.cycle.size, np.where(lost, 0, step))

    def initial_state(self) -> int:
        """The step of the cycle (exact risk)."""
        return 0

    def _stake_at(self, step: int) -> float:
        return float(self.base * self.cycle[step])

    def _after(self, step: int, won: bool) -> int:
        return (step + 1) % self.cycle.size if won else 0


@register_part
class OneThreeTwoSix(_Cycle):
    """Stakes of 1, 3, 2 and 6 units on consecutive wins; any loss goes back to 1.

    The first stake is 1 unit (``base``); each win moves to the next of 1, 3, 2, 6 units;
    a win at 6 completes the cycle and the next stake is 1 unit; a loss at any step
    returns to 1 unit; a push changes nothing.
    """

    name: ClassVar[str] = "one_three_two_six"
    cycle: ClassVar[np.ndarray] = np.array([1.0, 3.0, 2.0, 6.0])

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["one_three_two_six"], (self.base,))  # base


@register_part
class OneThreeTwoFour(_Cycle):
    """Stakes of 1, 3, 2 and 4 units on consecutive wins; any loss goes back to 1.

    1-3-2-6 with a smaller last step: the first stake is 1 unit (``base``); each win
    moves to the next of 1, 3, 2, 4 units; a win at 4 completes the cycle; a loss at any
    step returns to 1 unit; a push changes nothing.
    """

    name: ClassVar[str] = "one_three_two_four"
    cycle: ClassVar[np.ndarray] = np.array([1.0, 3.0, 2.0, 4.0])

    def compiled_form(self) -> PartForm:
        return PartForm(STAKINGS["one_three_two_four"], (self.base,))  # base


__all__ = ["ContraDAlembert", "DAlembert", "FIB", "Fibonacci", "Flat", "GrandMartingale",
           "Labouchere", "Line", "Martingale", "NoneWord", "OneThreeTwoFour",
           "OneThreeTwoSix", "OscarsGrind", "Parlay", "Paroli", "Progression",
           "ReverseLabouchere", "none_word"]
