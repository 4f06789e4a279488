"""A plain-Python reference of the built-in parts and session rules, one session at a time.

Written from the rules as docs/strategies.md states them, without the engine's arrays,
registry or replay: each selection and staking plan is a small class over plain values,
and ``play_session`` plays a session's shoes coup by coup (the stake, the chip, the table
limits, the bankroll, the payout, the stop rules). ``tests/parts/test_parts_reference.py``
compares its ledgers with the engine's, bet for bet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# --- Payouts (standard table: Banker 0.95, Player 1, Tie 8 to 1; a tie pushes B and P) ----


def net_of(kind: str, stake: float, outcome: str) -> float:
    """What ``stake`` on ``kind`` nets when the coup's outcome is B, P or T."""
    if kind == "tie":
        return 8 * stake if outcome == "T" else -stake
    if outcome == "T":
        return 0.0
    won = (kind == "banker") == (outcome == "B")
    return (0.95 * stake if kind == "banker" else stake) if won else -stake


# --- Selections --------------------------------------------------------------------------

SIDE = {"B": "banker", "P": "player", "T": "tie"}
OTHER = {"B": "P", "P": "B"}


class Always:
    def __init__(self, side: str = "banker") -> None:
        self.side = side

    def new_shoe(self) -> None:
        pass

    def choose(self) -> str | None:
        return self.side

    def learn(self, outcome: str) -> None:
        pass


class Decisions:
    """Follow, chop, streak and ping-pong over the decisions (ties skipped)."""

    def __init__(self, rule: str, n: int = 1, per_shoe: bool = True) -> None:
        self.rule, self.n, self.per_shoe = rule, n, per_shoe
        self.decisions: list[str] = []

    def new_shoe(self) -> None:
        if self.per_shoe:
            self.decisions = []

    def choose(self) -> str | None:
        d = self.decisions
        if not d:
            return None
        last = d[-1]
        if self.rule == "follow":
            return SIDE[last]
        if self.rule == "chop":
            return SIDE[OTHER[last]]
        if self.rule == "streak":
            run = 0
            for x in reversed(d):
                if x != last:
                    break
                run += 1
            return SIDE[last] if run >= self.n else None
        # ping-pong: alternations in a row ending at the last decision
        alternations = 0
        for i in range(len(d) - 1, 0, -1):
            if d[i] == d[i - 1]:
                break
            alternations += 1
        return SIDE[OTHER[last]] if alternations >= self.n else None

    def learn(self, outcome: str) -> None:
        if outcome != "T":
            self.decisions.append(outcome)


class PatternTable:
    def __init__(self, table: dict[str, str], ties: str = "skip", per_shoe: bool = True):
        self.table, self.ties, self.per_shoe = table, ties, per_shoe
        self.seen = ""

    def new_shoe(self) -> None:
        if self.per_shoe:
            self.seen = ""

    def choose(self) -> str | None:
        for key in sorted(self.table, key=len, reverse=True):
            if self.seen.endswith(key):
                return SIDE[self.table[key]]
        return None

    def learn(self, outcome: str) -> None:
        if outcome != "T" or self.ties == "keep":
            self.seen += outcome


class SkipFirst:
    def __init__(self, n: int, side: str = "banker") -> None:
        self.n, self.side, self.dealt = n, side, 0

    def new_shoe(self) -> None:
        self.dealt = 0

    def choose(self) -> str | None:
        return self.side if self.dealt >= self.n else None

    def learn(self, outcome: str) -> None:
        self.dealt += 1


class AfterTies:
    def __init__(self, n: int, m: int, side: str = "tie") -> None:
        self.n, self.m, self.side = n, m, side
        self.recent: list[str] = []

    def new_shoe(self) -> None:
        self.recent = []

    def choose(self) -> str | None:
        return self.side if self.recent[-self.m:].count("T") >= self.n else None

    def learn(self, outcome: str) -> None:
        self.recent.append(outcome)


def derived_colour(lengths: list[int], k: int) -> int:
    """The mark of derived road ``k`` for the big road's newest entry (1 red, -1 blue, 0
    none): ``lengths`` are the big road's column lengths, the newest entry at the bottom
    of the last column."""
    c, r = len(lengths) - 1, lengths[-1] - 1
    if c < k or (c == k and r == 0):
        return 0
    if r == 0:
        return 1 if lengths[c - 1] == lengths[c - 1 - k] else -1
    return 1 if lengths[c - k] != r else -1


class Roads:
    """A derived road follower: mode colour (repeat the last mark), red or blue."""

    def __init__(self, k: int, mode: str = "colour") -> None:
        self.k, self.mode = k, mode
        self.lengths: list[int] = []
        self.side: str | None = None
        self.last = 0

    def new_shoe(self) -> None:
        self.lengths, self.side, self.last = [], None, 0

    def _after(self, outcome: str) -> list[int]:
        if self.side == outcome:
            return [*self.lengths[:-1], self.lengths[-1] + 1]
        return [*self.lengths, 1]

    def choose(self) -> str | None:
        wanted = self.last if self.mode == "colour" else (1 if self.mode == "red" else -1)
        if wanted == 0 or not self.lengths:
            return None
        for outcome in ("B", "P"):
            if derived_colour(self._after(outcome), self.k) == wanted:
                return SIDE[outcome]
        return None

    def learn(self, outcome: str) -> None:
        if outcome == "T":
            return
        self.lengths = self._after(outcome)
        self.side = outcome
        mark = derived_colour(self.lengths, self.k)
        if mark:
            self.last = mark


# --- Staking plans -----------------------------------------------------------------------


class Staking:
    """A staking plan: ``stake(bankroll)``; ``won(net)`` / ``lost()`` after a decided bet."""

    def __init__(self, base: float = 10.0) -> None:
        self.base = base

    def stake(self, bankroll: float) -> float:
        return self.base

    def won(self, staked: float, net: float) -> None:
        pass

    def lost(self) -> None:
        pass


class Martingale(Staking):
    def __init__(self, base: float = 10.0, cap: int | None = None, grand: bool = False):
        super().__init__(base)
        self.cap, self.grand, self.k = cap, grand, 0

    def stake(self, bankroll: float) -> float:
        return self.base * ((2 ** (self.k + 1) - 1) if self.grand else 2 ** self.k)

    def won(self, staked: float, net: float) -> None:
        self.k = 0

    def lost(self) -> None:
        self.k = 0 if self.cap is not None and self.k >= self.cap else self.k + 1


class Paroli(Staking):
    def __init__(self, base: float = 10.0, target: int = 3) -> None:
        super().__init__(base)
        self.target, self.w = target, 0

    def stake(self, bankroll: float) -> float:
        return self.base * 2 ** self.w

    def won(self, staked: float, net: float) -> None:
        self.w = 0 if self.w + 1 >= self.target else self.w + 1

    def lost(self) -> None:
        self.w = 0


class Parlay(Staking):
    def __init__(self, base: float = 10.0, target: int = 3) -> None:
        super().__init__(base)
        self.target, self.w, self.next = target, 0, base

    def stake(self, bankroll: float) -> float:
        return self.next

    def won(self, staked: float, net: float) -> None:
        if self.w + 1 >= self.target:
            self.w, self.next = 0, self.base
        else:
            self.w, self.next = self.w + 1, staked + net

    def lost(self) -> None:
        self.w, self.next = 0, self.base


class DAlembert(Staking):
    def __init__(self, base: float = 10.0, unit: float | None = None,
                 contra: bool = False) -> None:
        super().__init__(base)
        self.unit = base if unit is None else unit
        self.contra, self.steps = contra, 0

    def stake(self, bankroll: float) -> float:
        return self.base + self.unit * self.steps

    def won(self, staked: float, net: float) -> None:
        self.steps = self.steps + 1 if self.contra else max(self.steps - 1, 0)

    def lost(self) -> None:
        self.steps = max(self.steps - 1, 0) if self.contra else self.steps + 1


class Fibonacci(Staking):
    def __init__(self, base: float = 10.0) -> None:
        super().__init__(base)
        self.i = 0

    def stake(self, bankroll: float) -> float:
        a, b = 1, 1
        for _ in range(self.i):
            a, b = b, a + b
        return self.base * a

    def won(self, staked: float, net: float) -> None:
        self.i = max(self.i - 2, 0)

    def lost(self) -> None:
        self.i += 1


class Labouchere(Staking):
    def __init__(self, base: float = 10.0, line: tuple[int, ...] = (1, 2, 3, 4),
                 reverse: bool = False) -> None:
        super().__init__(base)
        self.start, self.line, self.reverse = list(line), list(line), reverse

    def _units(self) -> int:
        return self.line[0] if len(self.line) == 1 else self.line[0] + self.line[-1]

    def stake(self, bankroll: float) -> float:
        return self.base * self._units()

    def _cross(self) -> None:
        self.line = self.line[1:-1]
        if not self.line:
            self.line = list(self.start)

    def won(self, staked: float, net: float) -> None:
        if self.reverse:
            self.line.append(self._units())
        else:
            self._cross()

    def lost(self) -> None:
        if self.reverse:
            self._cross()
        else:
            self.line.append(self._units())


class OscarsGrind(Staking):
    def __init__(self, base: float = 10.0) -> None:
        super().__init__(base)
        self.units, self.series = 1, 0

    def stake(self, bankroll: float) -> float:
        return self.base * self.units

    def won(self, staked: float, net: float) -> None:
        self.series += self.units
        if self.series >= 1:
            self.units, self.series = 1, 0
        else:
            self.units = min(self.units + 1, 1 - self.series)

    def lost(self) -> None:
        self.series -= self.units


class Cycle(Staking):
    def __init__(self, base: float = 10.0, cycle: tuple[int, ...] = (1, 3, 2, 6)) -> None:
        super().__init__(base)
        self.cycle, self.step = cycle, 0

    def stake(self, bankroll: float) -> float:
        return self.base * self.cycle[self.step]

    def won(self, staked: float, net: float) -> None:
        self.step = (self.step + 1) % len(self.cycle)

    def lost(self) -> None:
        self.step = 0


class Percent(Staking):
    def __init__(self, base: float = 10.0, percent: float = 2.0) -> None:
        super().__init__(base)
        self.percent = percent

    def stake(self, bankroll: float) -> float:
        return max(self.percent / 100 * bankroll, self.base)


# --- A session ---------------------------------------------------------------------------


@dataclass
class Stops:
    """Stop rules of one scope (the session's or each shoe's); None: off."""

    win: float | None = None
    loss: float | None = None
    trailing: float | None = None
    losses: int | None = None
    coups: int | None = None


@dataclass
class Table:
    table_min: float = 10.0
    table_max: float = 5000.0
    chip: float | None = None
    below_min: str = "raise"
    bankroll: float = 1000.0


@dataclass
class Ledger:
    rows: list[tuple[int, int, str | None, float, float]] = field(default_factory=list)
    reason: str = "end"
    coups: int = 0


def play_session(shoes: list[list[str]], selection: Any, staking: Staking, table: Table,
                 session: Stops, shoe: Stops) -> Ledger:
    """Play one session over its shoes (each a list of outcomes B/P/T): rows of (shoe
    index, coup number, kind staked or None, stake, net), the stop reason, coups played."""
    out = Ledger()
    bankroll = table.bankroll
    peak, losses = bankroll, 0
    alive = True
    for s, outcomes in enumerate(shoes):
        if not alive:
            break
        if out.reason != "end":  # back after sitting out the last shoe
            out.reason = "end"
        selection.new_shoe()
        shoe_start, shoe_peak, shoe_losses, shoe_coups = bankroll, bankroll, 0, 0
        for c, outcome in enumerate(outcomes, start=1):
            kind = selection.choose()
            stake = staking.stake(bankroll) if kind else 0.0
            if table.chip and stake > 0:
                stake = math.floor(stake / table.chip + 0.5) * table.chip
            stake = min(stake, table.table_max)
            if 0 < stake < table.table_min:
                if table.below_min == "raise":
                    stake = table.table_min
                elif table.below_min == "skip":
                    stake = 0.0
                else:
                    out.reason, alive = "below_min", False
                    break
            if stake > bankroll + 1e-9:
                out.reason, alive = "busted", False
                break
            net = net_of(kind, stake, outcome) if stake > 0 else 0.0
            bankroll += net
            out.rows.append((s, c, kind if stake > 0 else None, stake, net))
            out.coups += 1
            shoe_coups += 1
            selection.learn(outcome)
            if stake > 0 and net > 0:
                staking.won(stake, net)
                losses = shoe_losses = 0
            elif stake > 0 and net < 0:
                staking.lost()
                losses += 1
                shoe_losses += 1
            peak, shoe_peak = max(peak, bankroll), max(shoe_peak, bankroll)
            reason = _stop(bankroll, table, bankroll - table.bankroll, peak, losses,
                           out.coups, session)
            if bankroll < table.table_min - 1e-9:
                reason = "ruin"
            if reason:
                out.reason, alive = reason, False
                break
            reason = _stop(bankroll, None, bankroll - shoe_start, shoe_peak, shoe_losses,
                           shoe_coups, shoe)
            if reason:
                out.reason = reason  # sit out the rest of the shoe
                break
    return out


def _stop(bankroll: float, table: Table | None, result: float, peak: float, losses: int,
          coups: int, rules: Stops) -> str | None:
    if rules.loss is not None and result <= -rules.loss + 1e-9:
        return "stop_loss"
    if rules.win is not None and result >= rules.win - 1e-9:
        return "win_goal"
    if rules.coups is not None and coups >= rules.coups:
        return "max_coups"
    if rules.trailing is not None and bankroll <= peak - rules.trailing + 1e-9:
        return "trailing_stop"
    if rules.losses is not None and losses >= rules.losses:
        return "losses_in_row"
    return None
