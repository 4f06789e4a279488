"""The table rules and the session rules as played: one compiled form, read everywhere.

A session's stake goes through the table (``table_stake``: chips, the table maximum, a
stake below the minimum raised, skipped or ending the session; ``short``/``reduced_stake``:
a bankroll that cannot pay it ends the session busted or stakes what is left), and after
each coup the stop rules are checked in their one order (``stop_after_coup``: ruin, the
stop loss, the win goal, the most coups, the trailing stop, losses in a row, then the same
per shoe). The path metrics a session reports move coup by coup (``drawdown_step``,
``streak_step``). ``policy_row`` lays a configuration's ``SessionPolicy`` and table
limits out as the numbers these functions read, every threshold with its slack computed
once here.

The replay (``baccarat.replay``: every session of a step in a loop), the fused path's play
kernel (``baccarat.fused_play``: session after session) and the ledger's session metrics
(``baccarat.metrics``) call these functions; exact risk (``baccarat.risk.chain``) reads
the same thresholds in its money units through ``unit_thresholds``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .jit import njit

if TYPE_CHECKING:
    from .replay import SessionPolicy
    from .rules import TableRules

#: Why a session ended. ``ruin``: its bankroll fell below the table minimum; ``busted``:
#: the bankroll could not pay the stake the strategy asked for (a progression's next step)
#: although it still covered the table minimum; ``strategy``: the strategy ended it
#: (``Wager.end``, a selection's ``END``, a simple strategy's ``STOP``);
#: ``trailing_stop``, ``losses_in_row``: those session rules; ``below_min``: a stake under
#: the table minimum with ``below_min="stop"``. A per-shoe stop that cut the session's
#: last shoe short gives that rule's reason too (``win_goal``, ...).
STOP_REASONS = ("end", "ruin", "stop_loss", "win_goal", "max_coups", "busted", "strategy",
                "trailing_stop", "losses_in_row", "below_min")
END, RUIN, STOP_LOSS, WIN_GOAL, MAX_COUPS, BUSTED, STRATEGY, TRAILING_STOP, \
    LOSSES_IN_ROW, BELOW_MIN = range(len(STOP_REASONS))

#: The rules that can stop a shoe rather than the session (``SessionPolicy.stops_per`` shoe,
#: or a ``stop:...,per=shoe`` part): a session counts the shoes each one cut short
#: (``shoe_stops``, a column per rule, in this order).
SHOE_STOP_REASONS = ("stop_loss", "win_goal", "max_coups", "trailing_stop", "losses_in_row")
N_SHOE_STOPS = len(SHOE_STOP_REASONS)
#: Their columns in the sessions table (and the summary's totals).
SHOE_STOP_COLUMNS = tuple(f"shoe_stops_{reason}" for reason in SHOE_STOP_REASONS)
#: Each stop reason's place in ``SHOE_STOP_REASONS`` (-1: it never stops a shoe alone).
SHOE_STOP_SLOT = np.array([SHOE_STOP_REASONS.index(reason) if reason in SHOE_STOP_REASONS
                           else -1 for reason in STOP_REASONS], dtype=np.int64)

#: ``SessionPolicy.below_min`` by code: a stake below the table minimum is raised to it,
#: skipped, or ends the session.
BELOW_MODES = ("raise", "skip", "stop")
RAISE, SKIP, STOP_BELOW = range(len(BELOW_MODES))

#: A configuration's policy and table limits, one row of floats (``policy_row``).
(R_START, R_REDUCE, R_CHIP, R_BELOW, R_TABLE_MIN, R_TABLE_MAX, R_BROKE_BELOW, R_LOSS_AT,
 R_GOAL_AT, R_MAX_COUPS, R_TRAILING, R_MAX_LOSSES, R_SHOES, R_SHOE_LOSS_AT, R_SHOE_GOAL_AT,
 R_SHOE_MAX_COUPS, R_SHOE_TRAILING, R_SHOE_MAX_LOSSES, R_MORE) = range(19)
N_RULES = 19

#: The slack of the stop thresholds: a bankroll within this of a threshold has reached it
#: (sums of stakes such as 0.1 + 0.2 are not exact in binary).
SLACK = 1e-9
#: A stake this far below the table minimum is below it.
BELOW_SLACK = 1e-12


def policy_row(policy: SessionPolicy, rules: TableRules) -> np.ndarray:
    """``policy`` and the table limits of ``rules`` as the numbers the compiled rules read
    (``R_*``): every threshold with its slack, a rule not set as a threshold never met
    (an infinity, or -1 for a count)."""
    row = np.zeros(N_RULES)

    def at(value: float | None, sign: float) -> float:
        return sign * (np.inf if value is None else value)

    def count(value: int | None) -> int:
        return -1 if value is None else value

    row[R_START] = float(policy.bankroll)
    row[R_REDUCE] = policy.when_short == "reduce"
    row[R_CHIP] = float(policy.chip) if policy.chip is not None else 0.0
    row[R_BELOW] = BELOW_MODES.index(policy.below_min)
    row[R_TABLE_MIN] = float(rules.table_min)
    row[R_TABLE_MAX] = float(rules.table_max)
    row[R_BROKE_BELOW] = rules.table_min - SLACK
    row[R_LOSS_AT] = at(policy.stop_loss, -1.0) + SLACK
    row[R_GOAL_AT] = at(policy.win_goal, 1.0) - SLACK
    row[R_MAX_COUPS] = count(policy.max_coups)
    row[R_TRAILING] = at(policy.trailing_stop, 1.0) - SLACK
    row[R_MAX_LOSSES] = count(policy.losses_in_row)
    row[R_SHOES] = policy.shoe_rules()
    row[R_SHOE_LOSS_AT] = at(policy.shoe_stop_loss, -1.0) + SLACK
    row[R_SHOE_GOAL_AT] = at(policy.shoe_win_goal, 1.0) - SLACK
    row[R_SHOE_MAX_COUPS] = count(policy.shoe_max_coups)
    row[R_SHOE_TRAILING] = at(policy.shoe_trailing_stop, 1.0) - SLACK
    row[R_SHOE_MAX_LOSSES] = count(policy.shoe_losses_in_row)
    row[R_MORE] = policy.trailing_stop is not None or policy.losses_in_row is not None \
        or policy.shoe_rules()
    return row


def unit_thresholds(policy: SessionPolicy, start: int, unit: Fraction,
                    scale: int = 1) -> tuple[int | None, int | None]:
    """The stop loss (at or below) and the win goal (at or above) of a session that
    started with ``start`` units of ``unit``, in units of ``unit / scale``: exact risk's
    money (``baccarat.risk.chain``), where amounts are exact and need no slack; None
    where the rule is not set."""
    from .risk.coups import exact

    loss = goal = None
    if policy.stop_loss is not None:
        loss = math.floor((start * unit - exact(policy.stop_loss)) / unit * scale)
    if policy.win_goal is not None:
        goal = math.ceil((start * unit + exact(policy.win_goal)) / unit * scale)
    return loss, goal


@njit(cache=True, inline="always")
def policy_values(row):  # pragma: no cover - compiled
    """A ``policy_row`` as a tuple: values a kernel keeps at hand through its loops (an
    array's entries are read again after every store the compiler cannot rule out)."""
    return (row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
            row[9], row[10], row[11], row[12], row[13], row[14], row[15], row[16], row[17],
            row[18])


@njit(cache=True, inline="always")
def is_stake(stake):  # pragma: no cover - compiled
    """Whether ``stake`` is a stake at all: a finite number, not negative."""
    return np.isfinite(stake) and stake >= 0


@njit(cache=True, inline="always")
def table_stake(stake, chip, table_min, table_max, below):  # pragma: no cover - compiled
    """The stake the table takes for one asked: rounded to the nearest multiple of
    ``chip`` (0: as asked; a stake rounded to 0 is no bet), capped at ``table_max``, one
    below ``table_min`` raised to it, skipped or ending the session (``below``: ``RAISE``,
    ``SKIP``, ``STOP_BELOW``). Returns (stake, 1 if capped else 0, ends the session)."""
    if chip > 0 and stake > 0:
        stake = np.floor(stake / chip + 0.5) * chip
    capped = 0
    if stake > table_max:
        capped = 1
        stake = table_max
    if stake > 0 and stake < table_min - BELOW_SLACK:
        if below == RAISE:
            stake = table_min
        elif below == SKIP:
            stake = 0.0
        else:
            return stake, capped, True
    return stake, capped, False


@njit(cache=True, inline="always")
def short(total, bankroll):  # pragma: no cover - compiled
    """Whether a bankroll cannot pay a coup's stakes (``total``)."""
    return total > bankroll + SLACK


@njit(cache=True, inline="always")
def reduced_stake(stake, scale, chip, table_min):  # pragma: no cover - compiled
    """Under ``when_short="reduce"``, a stake cut by ``scale`` (the bankroll over the
    coup's stakes) in whole chips rounded down; (the stake, below the table minimum: the
    session is busted all the same)."""
    stake = stake * scale
    if chip > 0:
        stake = np.floor(stake / chip + SLACK) * chip
    return stake, stake > 0 and stake < table_min - BELOW_SLACK


@njit(cache=True, inline="always")
def reduce_scale(total, bankroll):  # pragma: no cover - compiled
    """What ``reduced_stake`` multiplies each stake by: the bankroll over the stakes."""
    return bankroll / (total if total > 0 else 1.0)


@njit(cache=True, inline="always")
def stop_after_coup(rules, bankroll, coup, won, lost, peak, losses, shoe_start, shoe_peak,
                    shoe_losses, shoe_coups):  # pragma: no cover - compiled
    """The stop rules after a coup a session played, in their order: ruin (the bankroll
    below the table minimum), the stop loss, the win goal, the most coups (``coup``: the
    session's coups played), the trailing stop (``peak``: its highest bankroll), losses
    in a row (``won``, ``lost``: 1 for a staked coup won or lost; a push or a coup
    without a stake neither counts nor breaks the run); then the same per shoe, counted
    from the shoe's first coup (``shoe_start``: the bankroll then).

    Returns (the stop reason or -1, whether it is a per-shoe stop: the session sits out
    the rest of the shoe, and the counts moved: peak, losses, shoe peak, shoe losses,
    shoe coups). Without a rule that needs the counts (``R_MORE``), they do not move.
    ``rules``: the policy row, or its ``policy_values``.
    """
    result = bankroll - rules[R_START]
    max_coups = int(rules[R_MAX_COUPS])
    if (bankroll < rules[R_BROKE_BELOW]) | (result <= rules[R_LOSS_AT]) \
            | (result >= rules[R_GOAL_AT]) | ((max_coups >= 0) & (coup >= max_coups)):
        if bankroll < rules[R_BROKE_BELOW]:
            reason = RUIN
        elif result <= rules[R_LOSS_AT]:
            reason = STOP_LOSS
        elif result >= rules[R_GOAL_AT]:
            reason = WIN_GOAL
        else:
            reason = MAX_COUPS
        return reason, False, peak, losses, shoe_peak, shoe_losses, shoe_coups
    if rules[R_MORE] == 0:
        return -1, False, peak, losses, shoe_peak, shoe_losses, shoe_coups
    same = 1 - won - lost
    losses = (losses + 1) * lost + losses * same
    shoe_losses = (shoe_losses + 1) * lost + shoe_losses * same
    peak = max(peak, bankroll)
    shoe_peak = max(shoe_peak, bankroll)
    shoe_coups += 1
    max_losses = int(rules[R_MAX_LOSSES])
    reason = -1
    per_shoe = False
    if bankroll <= peak - rules[R_TRAILING]:
        reason = TRAILING_STOP
    elif max_losses >= 0 and losses >= max_losses:
        reason = LOSSES_IN_ROW
    elif rules[R_SHOES] > 0:
        shoe_result = bankroll - shoe_start
        shoe_max_coups = int(rules[R_SHOE_MAX_COUPS])
        shoe_max_losses = int(rules[R_SHOE_MAX_LOSSES])
        if shoe_result <= rules[R_SHOE_LOSS_AT]:
            reason = STOP_LOSS
        elif shoe_result >= rules[R_SHOE_GOAL_AT]:
            reason = WIN_GOAL
        elif shoe_max_coups >= 0 and shoe_coups >= shoe_max_coups:
            reason = MAX_COUPS
        elif bankroll <= shoe_peak - rules[R_SHOE_TRAILING]:
            reason = TRAILING_STOP
        elif shoe_max_losses >= 0 and shoe_losses >= shoe_max_losses:
            reason = LOSSES_IN_ROW
        per_shoe = reason >= 0
    return reason, per_shoe, peak, losses, shoe_peak, shoe_losses, shoe_coups


#: The path metrics of a session (``drawdown_step`` then ``streak_step``), in this order
#: in the rows the fused path and ``baccarat.metrics`` hand to ``session_columns``.
PATH_METRICS = ("peak", "trough", "max_drawdown", "max_drawdown_pct",
                "longest_winning_streak", "longest_losing_streak", "wins", "losses",
                "pushes")
N_PATH = len(PATH_METRICS)


@njit(cache=True, inline="always")
def drawdown_step(bankroll, peak, trough, max_dd, max_dd_pct):  # pragma: no cover
    """The highest and lowest bankroll, the largest drawdown and its largest share of the
    peak, after a coup played that left ``bankroll``."""
    peak = max(peak, bankroll)
    trough = min(trough, bankroll)
    dd = peak - bankroll
    max_dd = max(max_dd, dd)
    max_dd_pct = max(max_dd_pct, dd / peak if peak > 0 else 0.0)
    return peak, trough, max_dd, max_dd_pct


@njit(cache=True, inline="always")
def streak_step(bet, won, lost, win_run, lose_run, best_win, best_lose, wins, losses,
                pushes):  # pragma: no cover - compiled
    """The current and longest runs of bets won and lost, and the bets won, lost and
    pushed, after a coup (``bet``, ``won``, ``lost``: 0 or 1; a push or a coup without a
    bet neither extends nor breaks a run). Written as 0/1 weights rather than branches:
    the outcome is random, and a mispredicted branch costs more than the arithmetic."""
    same = 1 - won - lost
    win_run = (win_run + 1) * won + win_run * same
    lose_run = (lose_run + 1) * lost + lose_run * same
    return (win_run, lose_run, max(best_win, win_run), max(best_lose, lose_run),
            wins + won, losses + lost, pushes + bet - won - lost)
