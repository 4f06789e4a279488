"""Every built-in selection with built-in staking plans and session rules, against an
independent plain-Python reference (tests/parts_reference.py), bet for bet.

One backtest plays the combinations over the same generated shoes (sessions of two
shoes); the reference plays each session from the outcomes alone. Stakes, sides, nets,
stop reasons and coups played must agree exactly (to 1e-9 on money).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import parts_reference as ref
import pytest
from baccarat import Run
from baccarat.backtest import play
from baccarat.coups import OUTCOME_LABELS
from baccarat.deal import generate_coups
from baccarat.job import BacktestJob
from baccarat.replay import SessionPolicy
from baccarat.rules import TableRules

SELECTIONS: dict[str, Callable[[], Any]] = {
    "always:side=player": lambda: ref.Always("player"),
    "follow": lambda: ref.Decisions("follow"),
    "chop:per_shoe=false": lambda: ref.Decisions("chop", per_shoe=False),
    "streak:n=2": lambda: ref.Decisions("streak", 2),
    "ping_pong:n=2": lambda: ref.Decisions("ping_pong", 2),
    "pattern:BP=B,PB=P,BBB=P": lambda: ref.PatternTable({"BP": "B", "PB": "P", "BBB": "P"}),
    "pattern:TB=T,PP=B,ties=keep": lambda: ref.PatternTable({"TB": "T", "PP": "B"}, "keep"),
    "skip_first:n=5": lambda: ref.SkipFirst(5),
    "after_ties:n=1,m=6": lambda: ref.AfterTies(1, 6),
    "road": lambda: ref.Roads(1),
    "road:road=small_road,mode=red": lambda: ref.Roads(2, "red"),
    "road:road=cockroach_pig,mode=blue": lambda: ref.Roads(3, "blue"),
}
STAKINGS: dict[str, Callable[[], ref.Staking]] = {
    "flat": ref.Staking,
    "martingale:max_doublings=4": lambda: ref.Martingale(cap=4),
    "grand_martingale": lambda: ref.Martingale(grand=True),
    "paroli": ref.Paroli,
    "parlay:target_wins=2": lambda: ref.Parlay(target=2),
    "dalembert:unit=5": lambda: ref.DAlembert(unit=5.0),
    "contra_dalembert": lambda: ref.DAlembert(contra=True),
    "fibonacci": ref.Fibonacci,
    "labouchere:line=1-2-3": lambda: ref.Labouchere(line=(1, 2, 3)),
    "reverse_labouchere": lambda: ref.Labouchere(reverse=True),
    "oscars_grind": ref.OscarsGrind,
    "one_three_two_six": ref.Cycle,
    "one_three_two_four": lambda: ref.Cycle(cycle=(1, 3, 2, 4)),
    "percent:percent=3": lambda: ref.Percent(percent=3.0),
}
#: Session rules as written in a SPEC and as the reference reads them (session, shoe).
RULES: dict[str, tuple[ref.Stops, ref.Stops]] = {
    "": (ref.Stops(), ref.Stops()),
    "stop:win=60,loss=120": (ref.Stops(win=60.0, loss=120.0), ref.Stops()),
    "stop:trailing=50": (ref.Stops(trailing=50.0), ref.Stops()),
    "stop:losses=4": (ref.Stops(losses=4), ref.Stops()),
    "stop:coups=50": (ref.Stops(coups=50), ref.Stops()),
    "stop:win=30,loss=40,per=shoe": (ref.Stops(), ref.Stops(win=30.0, loss=40.0)),
    "stop:trailing=25,losses=3,per=shoe": (ref.Stops(), ref.Stops(trailing=25.0, losses=3)),
    "stop:coups=12,per=shoe | stop:loss=150": (ref.Stops(loss=150.0), ref.Stops(coups=12)),
}
#: Shoes of the first 40 coups: sessions of two shoes, 80 coups.
SHOES, COUPS, SESSION_SHOES = 8, 40, 2


def combinations() -> list[tuple[str, str, str]]:
    """Each selection with a third of the staking plans (and each staking plan with a third
    of the selections: every one with four or five), the session rules taken in turn."""
    rules = itertools.cycle(RULES)
    return [(sel, stk, next(rules)) for i, sel in enumerate(SELECTIONS)
            for j, stk in enumerate(STAKINGS) if (i + j) % 3 == 0]


def spec_of(selection: str, staking: str, rules: str) -> str:
    return " | ".join(part for part in (selection, staking, rules) if part)


@pytest.fixture(scope="module")
def coups():  # type: ignore[no-untyped-def]
    coups = generate_coups(TableRules(), 41, np.arange(SHOES))
    return coups.take(np.flatnonzero(coups.coup <= COUPS))


def shoes_of(coups: Any) -> list[list[str]]:
    letters = np.array(OUTCOME_LABELS)[coups.outcome]
    return [list(letters[coups.shoe == shoe]) for shoe in np.unique(coups.shoe)]


def compare(coups: Any, combos: list[tuple[str, str, str]], table: ref.Table,
            policy: SessionPolicy, rules: TableRules) -> None:
    specs = [spec_of(*combo) for combo in combos]
    result = play(BacktestJob(coups, specs, rules=rules, session=policy, unchecked=True))
    ledger, sessions = result.ledger, result.sessions
    shoes = shoes_of(coups)
    sessions_of = [shoes[i:i + SESSION_SHOES] for i in range(0, len(shoes), SESSION_SHOES)]
    first_shoe = sorted(np.unique(coups.shoe))
    for config, (selection, staking, rule) in enumerate(combos):
        mine = ledger[ledger["config"] == config]
        ends = sessions[sessions["config"] == config]
        for s, session_shoes in enumerate(sessions_of):
            expected = ref.play_session(session_shoes, SELECTIONS[selection](),
                                        STAKINGS[staking](), table, *RULES[rule])
            rows = mine[mine["session"] == s]
            where = f"{specs[config]!r}, session {s}"
            got = [(first_shoe.index(shoe) - s * SESSION_SHOES, coup, _kind(row), _stake(row),
                    net) for shoe, coup, row, net in zip(rows["shoe"], rows["coup"],
                                                        rows.itertuples(), rows["net"],
                                                        strict=True)]
            assert len(got) == len(expected.rows), (where, got[-3:], expected.rows[-3:])
            for a, b in zip(got, expected.rows, strict=True):
                assert a[:3] == b[:3] and a[3] == pytest.approx(b[3], abs=1e-9) and \
                    a[4] == pytest.approx(b[4], abs=1e-9), (where, a, b)
            end = ends[ends["session"] == s].iloc[0]
            assert (end.stop_reason, end.coups) == (expected.reason, expected.coups), where


def _kind(row: Any) -> str | None:
    staked = [k for k in ("banker", "player", "tie") if getattr(row, k) > 0]
    assert len(staked) <= 1
    return staked[0] if staked else None


def _stake(row: Any) -> float:
    return float(row.banker + row.player + row.tie)


def test_every_selection_with_every_staking_plan_matches_the_reference(coups):  # type: ignore
    compare(coups, combinations(), ref.Table(), SessionPolicy(session_shoes=SESSION_SHOES),
            TableRules())


def test_chips_stakes_below_the_minimum_and_a_small_bankroll(coups):  # type: ignore
    # A 25 minimum with 10-unit plans: below-minimum stakes raised, skipped or ending the
    # session; chips of 5; a bankroll of 300 that some progressions cannot follow.
    combos = [(sel, stk, rule) for sel, stk, rule in combinations()
              if sel in ("always:side=player", "streak:n=2", "after_ties:n=1,m=6")]
    rules = TableRules(table_min=25, table_max=500)
    for below in ("raise", "skip", "stop"):
        table = ref.Table(table_min=25, table_max=500, chip=5.0, below_min=below,
                          bankroll=300.0)
        policy = SessionPolicy(session_shoes=SESSION_SHOES, chip=5.0, below_min=below,
                               bankroll=300.0)
        compare(coups, combos, table, policy, rules)


def test_without_the_ledger_the_sessions_match_the_reference(coups):  # type: ignore
    # --ledger none takes the fused path for every combination its kernel covers (the rest
    # is replayed); each session's net, amount wagered, coups and stop reason must be the
    # reference's either way.
    combos = combinations()
    specs = [spec_of(*combo) for combo in combos]
    result = play(BacktestJob(coups, specs, session=SessionPolicy(session_shoes=SESSION_SHOES),
                              run=Run(ledger=False), unchecked=True))
    sessions = result.sessions
    shoes = shoes_of(coups)
    for config, (selection, staking, rule) in enumerate(combos):
        ends = sessions[sessions["config"] == config]
        for s in range(len(shoes) // SESSION_SHOES):
            played = ref.play_session(shoes[s * SESSION_SHOES:(s + 1) * SESSION_SHOES],
                                      SELECTIONS[selection](), STAKINGS[staking](),
                                      ref.Table(), *RULES[rule])
            end = ends[ends["session"] == s].iloc[0]
            where = f"{specs[config]!r}, session {s}"
            assert (end.stop_reason, end.coups) == (played.reason, played.coups), where
            assert end.net == pytest.approx(sum(r[4] for r in played.rows), abs=1e-9), where
            assert end.wagered == pytest.approx(sum(r[3] for r in played.rows),
                                                abs=1e-9), where
