"""Exact risk against values worked out independently: every outcome sequence of a short
session played by the real replay engine, the gambler's ruin, a capped Martingale's
series, a hand-worked D'Alembert tree, and the mean net against the expected edge."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from typing import ClassVar

import numpy as np
import pytest
from baccarat.bets import KIND_INDEX
from baccarat.coups import coups_from_outcomes
from baccarat.odds import outcome_probabilities, shoe_counts
from baccarat.replay import SessionPolicy, replay
from baccarat.risk.chain import BY_SHOE, PHASES, SessionChain, _Run
from baccarat.risk.exact import exact_risk, from_chain
from baccarat.rules import TableRules
from baccarat.session_play import STOP_REASONS
from baccarat.strategies.base import Result, Table
from baccarat.strategies.parts import END, Selection
from baccarat.strategies.registry import expand_spec

BANKER = KIND_INDEX["banker"]

ODDS = outcome_probabilities(shoe_counts(8))  # from the odds engine, not baccarat.risk
P_OUTCOME = {"B": ODDS.banker, "P": ODDS.player, "T": ODDS.tie}


def enumerated(spec: str, rules: TableRules, policy: SessionPolicy,
               coups: int) -> dict[tuple[str, float], float]:
    """P(stop reason, net) over every outcome sequence of ``coups`` coups, each played as
    one session by the replay engine (the backtest's), weighted by its probability."""
    sequences = ["".join(s) for s in itertools.product("BPT", repeat=coups)]
    table = coups_from_outcomes(sequences)
    strategy = expand_spec(spec)[0]
    played = SessionPolicy(**{**policy.__dict__, "max_coups": coups, "session_shoes": 1})
    grid, (ledger,) = replay(table, [strategy], rules, played)
    last = np.where(ledger.played.any(axis=1),
                    ledger.played.shape[1] - 1 - np.argmax(ledger.played[:, ::-1], axis=1), -1)
    final = np.where(last >= 0, ledger.bankroll[np.arange(len(sequences)), np.maximum(last, 0)],
                     policy.bankroll)
    out: dict[tuple[str, float], float] = defaultdict(float)
    for k, seq in enumerate(sequences):
        weight = math.prod(P_OUTCOME[c] for c in seq)
        reason = STOP_REASONS[ledger.stop_reason[k]]
        out[(reason, round(float(final[k]) - policy.bankroll, 6))] += weight
    return out


def chained(spec: str, rules: TableRules, policy: SessionPolicy,
            coups: int) -> dict[tuple[str, float], float]:
    risk = exact_risk(spec, rules, policy, coups)
    out: dict[tuple[str, float], float] = defaultdict(float)
    for r, name in enumerate(STOP_REASONS):
        for net, p in zip(risk.net, risk.by_reason[r], strict=True):
            if p > 0:
                out[(name, round(float(net), 6))] += float(p)
    return out


ENUMERATED = [
    ("flat:side=player", TableRules(), SessionPolicy(bankroll=40), 7),
    ("flat", TableRules(), SessionPolicy(bankroll=30, stop_loss=15, win_goal=19), 7),
    ("martingale", TableRules(table_max=40), SessionPolicy(bankroll=100), 7),
    ("martingale:side=player", TableRules(), SessionPolicy(bankroll=75, when_short="reduce"), 7),
    ("dalembert", TableRules(), SessionPolicy(bankroll=60, win_goal=25), 7),
    ("paroli:target_wins=2", TableRules(), SessionPolicy(bankroll=50), 7),
    ("fibonacci:side=player", TableRules(table_max=30), SessionPolicy(bankroll=70), 7),
    ("oscars_grind", TableRules(), SessionPolicy(bankroll=45, stop_loss=30), 7),
    ("labouchere:line=1-2", TableRules(), SessionPolicy(bankroll=90), 7),
    ("streak:n=2", TableRules(), SessionPolicy(bankroll=20), 7),
    ("chop", TableRules(tie_pays=9), SessionPolicy(bankroll=30, stop_loss=20), 7),
    ("flat:side=tie", TableRules(), SessionPolicy(bankroll=20, win_goal=60), 7),
    ("one_three_two_six", TableRules(commission=0.04), SessionPolicy(bankroll=100), 7),
    # the session rules of SessionPolicy, and those a configuration's stop part sets
    ("martingale", TableRules(), SessionPolicy(bankroll=200, trailing_stop=25), 7),
    ("dalembert:side=player", TableRules(), SessionPolicy(bankroll=100, losses_in_row=3), 7),
    ("streak:n=1 | martingale | stop:losses=2,trailing=15", TableRules(),
     SessionPolicy(bankroll=150, stop_loss=60), 7),
    ("martingale:base=7", TableRules(), SessionPolicy(bankroll=100, chip=5), 7),
    ("dalembert:base=6,unit=3", TableRules(), SessionPolicy(bankroll=80), 7),
    ("labouchere:line=3-1-2,base=4", TableRules(), SessionPolicy(bankroll=150,
                                                                  below_min="skip"), 7),
    ("martingale:base=5", TableRules(), SessionPolicy(bankroll=50, below_min="stop"), 7),
    # lines whose numbers the table maximum cuts (written as the smallest such number)
    ("labouchere:line=1-1", TableRules(table_max=20), SessionPolicy(bankroll=150), 7),
    ("reverse_labouchere:line=1-2,base=4", TableRules(table_max=15),
     SessionPolicy(bankroll=100, chip=5), 7),
    # reduced stakes that win 0.95 (or 0.96) of a bankroll off the money grid
    ("martingale", TableRules(), SessionPolicy(bankroll=62.5, when_short="reduce"), 7),
    ("fibonacci", TableRules(), SessionPolicy(bankroll=41, when_short="reduce",
                                              stop_loss=30), 7),
    ("dalembert", TableRules(commission=0.04), SessionPolicy(bankroll=47,
                                                             when_short="reduce"), 7),
]


@pytest.mark.parametrize(("spec", "rules", "policy", "coups"), ENUMERATED,
                         ids=[case[0] for case in ENUMERATED])
def test_short_sessions_match_every_outcome_sequence_played_by_the_replay(
        spec: str, rules: TableRules, policy: SessionPolicy, coups: int) -> None:
    expected = enumerated(spec, rules, policy, coups)
    got = chained(spec, rules, policy, coups)
    assert set(got) == {key for key, p in expected.items() if p > 0}
    for key, p in expected.items():
        assert got[key] == pytest.approx(p, abs=1e-14, rel=1e-12), key


def gamblers_ruin(p: float, q: float, start: int, target: int) -> float:
    """P(reach ``target`` before 0 from ``start``) with steps +1 (p) / -1 (q)."""
    r = q / p
    return (1 - r**start) / (1 - r**target)


def test_flat_player_over_a_long_session_is_the_gamblers_ruin() -> None:
    # 10 units of 10, stop at +10 units; ties push; the session is long enough that
    # what is left unresolved is below 1e-20.
    risk = exact_risk("flat:side=player", TableRules(), SessionPolicy(bankroll=100,
                                                                       win_goal=100), 6000)
    p = ODDS.player / (ODDS.player + ODDS.banker)
    expected = gamblers_ruin(p, 1 - p, 10, 20)
    assert risk.figures["p_win_goal"] == pytest.approx(expected, abs=1e-12)
    assert risk.figures["risk_of_ruin"] == pytest.approx(1 - expected, abs=1e-12)
    assert risk.figures["p_max_coups"] < 1e-20


def test_flat_ez_banker_pushes_its_three_card_seven_in_the_gamblers_ruin() -> None:
    risk = exact_risk("flat", TableRules(variant="ez"),
                      SessionPolicy(bankroll=60, win_goal=40, stop_loss=30), 6000)
    win = ODDS.banker - ODDS.banker_three_card_7
    p = win / (win + ODDS.player)
    # from 3 units above the stop loss to 7 units above it
    assert risk.figures["p_win_goal"] == pytest.approx(gamblers_ruin(p, 1 - p, 3, 7),
                                                       abs=1e-12)


@pytest.mark.parametrize(("side", "variant"), [("player", "standard"), ("banker", "ez")])
def test_a_capped_martingale_wins_n_series_or_loses_one(side: str, variant: str) -> None:
    # max_doublings 3: a series loses 4 in a row (10+20+40+80 = 150) with probability
    # Q = q**4, else wins one base stake (even money: Player, or EZ Banker, whose
    # three-card 7 pushes). Win goal: 4 series; the stop loss at 120 is reached by the
    # first lost series (at most 3 won before it) and by nothing else.
    if side == "player":
        won, lost = ODDS.player, ODDS.banker
    else:
        won, lost = ODDS.banker - ODDS.banker_three_card_7, ODDS.player
    big_q = (lost / (won + lost)) ** 4
    policy = SessionPolicy(bankroll=1000, win_goal=40, stop_loss=120)
    risk = exact_risk(f"martingale:side={side},max_doublings=3", TableRules(variant=variant),
                      policy, 5000)
    assert risk.figures["p_win_goal"] == pytest.approx((1 - big_q) ** 4, abs=1e-12)
    frame = risk.frame()
    for j in range(4):  # j series won, then one lost
        row = frame[np.isclose(frame["net"], j * 10 - 150)]
        assert row["p_stop_loss"].sum() == pytest.approx((1 - big_q) ** j * big_q, abs=1e-12)
    assert risk.figures["p_stop_loss"] == pytest.approx(1 - (1 - big_q) ** 4, abs=1e-12)


def test_three_coups_of_dalembert_are_the_hand_worked_tree() -> None:
    # D'Alembert, base 10 on Player (1:1); W = Player wins, L = Banker wins, T = tie (push).
    # Each leaf: the three outcomes and the session's net, worked out by hand:
    # stake 10; after a loss one unit more, after a win one less (never below 10).
    leaves = {
        "WWW": 30, "WWL": 10, "WWT": 20, "WLW": 20, "WLL": -20, "WLT": 0,
        "WTW": 20, "WTL": 0, "WTT": 10, "LWW": 20, "LWL": 0, "LWT": 10,
        "LLW": 0, "LLL": -60, "LLT": -30, "LTW": 10, "LTL": -30, "LTT": -10,
        "TWW": 20, "TWL": 0, "TWT": 10, "TLW": 10, "TLL": -30, "TLT": -10,
        "TTW": 10, "TTL": -10, "TTT": 0,
    }
    prob = {"W": ODDS.player, "L": ODDS.banker, "T": ODDS.tie}
    expected: dict[float, float] = defaultdict(float)
    for path, net in leaves.items():
        expected[float(net)] += math.prod(prob[c] for c in path)
    risk = exact_risk("dalembert:side=player", TableRules(), SessionPolicy(), 3)
    got = dict(zip(risk.net.tolist(), risk.probability.tolist(), strict=True))
    assert set(got) == set(expected)
    for net, p in expected.items():
        assert got[net] == pytest.approx(p, abs=1e-15)


FINITE_BUILTINS = [
    "flat", "flat:side=player", "flat:side=tie", "martingale", "martingale:max_doublings=4",
    "grand_martingale", "paroli", "dalembert", "fibonacci", "oscars_grind",
    "one_three_two_six", "follow", "chop", "streak", "side_bet:bet=player_pair",
]


@pytest.mark.parametrize("spec", FINITE_BUILTINS)
def test_mean_net_is_the_expected_edge_times_the_expected_amount_staked(spec: str) -> None:
    rules = TableRules(table_max=500, variant="ez" if spec == "fibonacci" else "standard")
    risk = exact_risk(spec, rules, SessionPolicy(bankroll=300, stop_loss=250), 60)
    f = risk.figures
    assert f["total_probability"] == pytest.approx(1.0, abs=1e-13)
    assert f["mean_net"] == pytest.approx(f["expected_edge"] * f["expected_wagered"],
                                          abs=1e-10, rel=1e-12)


def test_a_new_shoe_by_shoe_and_by_phase_give_the_same_distribution() -> None:
    # per-shoe patterns over two shoes: the shoe-by-shoe chain and the chain that keeps
    # the shoe's phase in its state are two ways to the same figures
    rules, policy = TableRules(decks=1), SessionPolicy(bankroll=40, session_shoes=3)
    by_shoe = _mode_result("streak:n=2", rules, policy, BY_SHOE)
    by_phase = _mode_result("streak:n=2", rules, policy, PHASES)
    np.testing.assert_allclose(by_shoe.by_reason, by_phase.by_reason, atol=1e-14)
    assert by_shoe.expected_coups == pytest.approx(by_phase.expected_coups, rel=1e-12)


def _mode_result(spec: str, rules: TableRules, policy: SessionPolicy, mode: str):  # type: ignore[no-untyped-def]
    chain = SessionChain(expand_spec(spec)[0], rules, policy)
    result = _Run(chain, {chain.bankroll: 1.0}, mode).play()
    return from_chain(spec, rules, policy, None, result)


def test_sessions_of_one_shoe_last_as_long_as_a_shoe() -> None:
    from baccarat.risk.shoes import shoe_lengths

    lengths = shoe_lengths(TableRules())
    risk = exact_risk("flat:side=player", TableRules(), SessionPolicy(bankroll=10_000))
    assert risk.figures["expected_coups"] == pytest.approx(
        float((np.arange(lengths.size) * lengths).sum()), rel=1e-12)
    assert risk.figures["p_end"] == pytest.approx(1.0, abs=1e-13)


class QuitAfterAWin(Selection):
    """Banker every coup until a coup won by Banker after two coups played: then the
    session ends (the selection's END), a plugin part declaring its state."""

    name: ClassVar[str] = "quit_after_a_win"

    _played: np.ndarray
    _won: np.ndarray

    def start(self, table: Table) -> None:
        self._played = np.zeros(table.n, dtype=np.int64)
        self._won = np.zeros(table.n, dtype=bool)

    def choose(self, table: Table) -> np.ndarray:
        return np.where(self._won & (self._played >= 2), END, BANKER)

    def settle(self, table: Table, result: Result) -> None:
        self._played = self._played + result.played
        self._won = self._won | (result.played & result.won)

    def initial_state(self) -> tuple[int, bool]:
        return (0, False)

    def bet_of(self, state: tuple[int, bool]) -> str:
        return "end" if state[1] and state[0] >= 2 else "banker"

    def next_state(self, state: tuple[int, bool], outcome: str,
                   result: str) -> tuple[int, bool]:
        return (min(state[0] + 1, 2), state[1] or result == "won")


def test_a_selection_that_ends_the_session_matches_the_replay() -> None:
    from baccarat.strategies.registry import expand_spec as expand
    from baccarat.strategies.system import System

    staking = expand("always | martingale:max_doublings=2")[0].parts().staking
    system = System(selection=QuitAfterAWin(), staking=staking)
    policy, rules = SessionPolicy(bankroll=100), TableRules()
    sequences = ["".join(s) for s in itertools.product("BPT", repeat=6)]
    grid, (ledger,) = replay(coups_from_outcomes(sequences), [system], rules,
                             SessionPolicy(bankroll=100, max_coups=6))
    expected: dict[tuple[str, float], float] = defaultdict(float)
    for k, seq in enumerate(sequences):
        net = float(ledger.net[k].sum())
        expected[(STOP_REASONS[ledger.stop_reason[k]], round(net, 6))] += math.prod(
            P_OUTCOME[c] for c in seq)
    risk = exact_risk(system, rules, policy, 6)
    got: dict[tuple[str, float], float] = defaultdict(float)
    for r, name in enumerate(STOP_REASONS):
        for net, p in zip(risk.net, risk.by_reason[r], strict=True):
            if p > 0:
                got[(name, round(float(net), 6))] += float(p)
    assert "strategy" in {reason for reason, _ in expected}
    assert set(got) == {key for key, p in expected.items() if p > 0}
    for key, p in expected.items():
        assert got[key] == pytest.approx(p, abs=1e-14, rel=1e-12), key


def test_per_shoe_stop_rules_are_refused_with_the_reason() -> None:
    from baccarat.risk.machine import RiskError

    with pytest.raises(RiskError, match="per-shoe stop rules"):
        exact_risk("martingale", TableRules(), SessionPolicy(shoe_stop_loss=100))


def test_a_labouchere_line_under_the_table_maximum_has_few_states() -> None:
    # With base 10 and a maximum of 20 every number from 3 up stakes 20 and hits the
    # limit, and so does every number it writes: the line's numbers are 1, 2 and "3 or
    # more", and a session of a shoe stays small (it reached more than 200,000 states,
    # each written number being a new one, and was refused).
    policy = SessionPolicy(bankroll=150, stop_loss=120, session_shoes=1)
    risk = exact_risk("labouchere:line=1-1", TableRules(table_max=20), policy,
                      state_limit=20_000)
    assert risk.states < 1_000
    f = risk.figures
    assert f["total_probability"] == pytest.approx(1.0, abs=1e-12)
    assert f["mean_net"] == pytest.approx(f["expected_net_of_bets"], abs=1e-9, rel=1e-10)
    # stakes of at most 20 cannot take 150 below the stop loss's 30 left
    assert f["risk_of_ruin"] == 0.0
    assert f["p_stop_loss"] > 0.0
