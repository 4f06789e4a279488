"""Risk against the bankroll, several sessions in a row, and sizing: the backward pass
against forward chains, and hand-worked answers."""

from __future__ import annotations

import numpy as np
import pytest
from baccarat.odds import outcome_probabilities, shoe_counts
from baccarat.replay import SessionPolicy
from baccarat.risk.backward import NotBackward, risk_curve
from baccarat.risk.exact import exact_risk
from baccarat.risk.sizing import sessions_risk, size_bankroll, size_base
from baccarat.rules import TableRules
from baccarat.strategies.registry import expand_spec

ODDS = outcome_probabilities(shoe_counts(8))
B, P, T = ODDS.banker, ODDS.player, ODDS.tie


@pytest.mark.parametrize(("spec", "rules", "coups", "unit"), [
    ("martingale", TableRules(table_max=200), 30, 0.5),      # Banker wins 9.5 on 10
    ("fibonacci:side=player", TableRules(), None, 10.0),     # even money on stakes of 10
    ("paroli", TableRules(variant="super6"), 40, 5.0),       # a Banker 6 pays half
])
def test_risk_against_every_bankroll_matches_a_forward_chain_from_each(
        spec: str, rules: TableRules, coups: int | None, unit: float) -> None:
    strategy = expand_spec(spec)[0]
    curve = risk_curve(strategy, rules, SessionPolicy(), coups, 400)
    assert curve.bankroll[0] == rules.table_min and curve.bankroll[-1] == 400
    step = float(curve.unit)  # every bankroll on the configuration's money grid
    assert step == unit
    for bankroll in (10, 30, 70, 150, 310 + step, 400):
        k = int(np.searchsorted(curve.bankroll, bankroll))
        assert curve.bankroll[k] == bankroll
        forward = exact_risk(strategy, rules, SessionPolicy(bankroll=bankroll), coups).figures
        assert curve.ruin[k] == pytest.approx(forward["risk_of_ruin"], abs=1e-13)
        assert curve.either[k] == pytest.approx(forward["risk_of_ruin"] + forward["bust_rate"],
                                                abs=1e-13)


@pytest.mark.parametrize(("table_max", "coups", "bankroll", "sessions"),
                         [(300, 25, 200, 4), (100, 10, 100, 6)])
def test_sessions_in_a_row_backward_and_forward_agree(table_max: float, coups: int,
                                                      bankroll: float, sessions: int) -> None:
    # (100, 10, 100): later sessions start richer than the first can reach, so they
    # reach states of the progression the first session never does
    strategy = expand_spec("martingale")[0]
    rules = TableRules(table_max=table_max)
    forward = sessions_risk(strategy, rules, SessionPolicy(bankroll=bankroll), coups, sessions)
    curve = risk_curve(strategy, rules, SessionPolicy(), coups, bankroll, sessions=sessions)
    assert len(curve.ruin_by) == sessions
    for m in range(1, sessions + 1):  # one backward pass gives every count of sessions
        assert curve.ruin_by[m - 1][-1] == pytest.approx(forward.ruin_by[m - 1], abs=1e-13)
        assert curve.either_by[m - 1][-1] == pytest.approx(forward.either_by[m - 1],
                                                           abs=1e-13)
    assert forward.ruin_by == sorted(forward.ruin_by)


def test_two_one_coup_sessions_of_flat_player_by_hand() -> None:
    # bankroll 10 = the table minimum: a lost coup ruins; a tie keeps 10; a win makes 20,
    # which the second session cannot lose. Ruin within two sessions: B + T B.
    found = sessions_risk(expand_spec("flat:side=player")[0], TableRules(),
                          SessionPolicy(bankroll=10), 1, 2)
    assert found.ruin_by[0] == pytest.approx(B, abs=1e-15)
    assert found.ruin_by[1] == pytest.approx(B + T * B, abs=1e-15)


def test_a_stop_loss_is_sized_forward_not_backward() -> None:
    with pytest.raises(NotBackward):
        risk_curve(expand_spec("flat")[0], TableRules(), SessionPolicy(stop_loss=50), 10, 100)


def test_bankroll_for_two_coups_of_flat_player_by_hand() -> None:
    # Two coups of 10 on Player, table minimum 10; money moves by 10, so bankrolls are
    # searched in steps of 10. At 10 one lost coup ruins (B, or a tie then a loss: T B);
    # at 20 two lost coups do (B**2); from 30 nothing does.
    strategy = expand_spec("flat:side=player")[0]
    policy = SessionPolicy(bankroll=100)
    assert B**2 < 0.25 < B
    found = size_bankroll(strategy, TableRules(), policy, 2, 0.25)
    assert found.value == 20 and found.risk == pytest.approx(B**2, abs=1e-15)
    assert found.neighbour == 10 and found.neighbour_risk == pytest.approx(B + T * B)
    assert size_bankroll(strategy, TableRules(), policy, 2, 0.2).value == 30


def test_base_stake_for_two_coups_of_flat_player_by_hand() -> None:
    # Bankroll 30, two coups, losing = ruin or bust. Base 10: 30 -> 20 -> 10, never lost.
    # 11 to 15: two losses leave less than 10 (B**2). 16 to 20: one loss leaves less than
    # the next stake, a bust (B); 21 and up: one loss ruins (B).
    strategy = expand_spec("flat:side=player")[0]
    found = size_base(strategy, TableRules(), SessionPolicy(bankroll=30), 2, 0.3, "either")
    assert found.value == 15 and found.risk == pytest.approx(B**2, abs=1e-15)
    assert found.neighbour == 16 and found.neighbour_risk == pytest.approx(B, abs=1e-15)
    assert size_base(strategy, TableRules(), SessionPolicy(bankroll=30), 2, 0.1,
                     "either").value == 10


def test_the_command_sizes_from_the_risk_against_every_bankroll() -> None:
    from baccarat.risk.job import RiskJob, run_risk

    job = RiskJob(["flat:side=player"], TableRules(), SessionPolicy(bankroll=100), 2, check=0,
                  size=("ruin", 0.25))
    (result,) = run_risk(job)
    assert result.sizing is not None and result.curve is not None
    assert result.sizing.value == 20 and result.sizing.neighbour == 10
    assert result.sizing.risk == pytest.approx(B**2, abs=1e-15)
