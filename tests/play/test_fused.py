"""The fused path (``engine/fused.py``, ``engine/fused_play.py``) against the replay.

Every test runs the same configurations twice, once on the compiled path
(``Run(engine="compiled")``, which ``run.json`` says played them) and once on the replay
(``Run(engine="replay")``, the reference: the Python parts bet for bet), and asserts the sessions
tables, the summaries, the run counts and the printed summary are equal, bit for bit:
every built-in selection, staking plan and session rule, alone and combined (a property
test draws the combinations), with the table's rules, limits, chips and shortfalls.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from baccarat import Run, Session, backtest
from baccarat.backtest import RUN_FILE, read_run_table
from baccarat.bets import BET_KINDS, N_PAIR_STATES, NO_PAIR, classify_coups
from baccarat.cli import app
from baccarat.coups import Coups
from baccarat.deal import generate_coups
from baccarat.errors import BaccaratError, StrategyFault
from baccarat.fused import _POW2, deal_classes, fused_plan, run_coups
from baccarat.ledger import ledger_table, sessions_table
from baccarat.parallel import generate_dataset
from baccarat.replay import SessionPolicy, replay
from baccarat.rules import TableRules
from baccarat.strategies.presets import MartingalePreset as Martingale
from baccarat.strategies.registry import expand_spec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from keywords import backtest_with
from typer.testing import CliRunner

backtest_module = importlib.import_module("baccarat.backtest")  # baccarat.backtest: the function

#: A user's selection, written as a plugin: the replay plays it, beside compiled parts.
CHOOSY = str(Path(__file__).parents[1] / "data" / "choosy_selection.py")

#: Every built-in system, several bases (non-round ones too), caps, all three sides.
SPECS = [
    "flat", "flat:side=player,base=7.3", "flat:side=tie,base=5",
    "martingale", "martingale:max_doublings=3,side=player,base=12.5",
    "grand_martingale:max_doublings=4", "grand_martingale:side=player,base=5",
    "paroli", "paroli:target_wins=2,base=7.3,side=player",
    "dalembert", "dalembert:unit=2.5,base=7.3",
    "fibonacci", "fibonacci:side=player,base=6",
    "labouchere", "labouchere:line=1-1-2-3,base=11,side=player", "labouchere:line=5",
    "oscars_grind", "oscars_grind:base=7.3,side=player",
    "one_three_two_six", "one_three_two_six:side=player,base=9.5",
]


def engines(result: Any) -> list[str]:
    """The path that played each configuration, as ``run.json`` records it."""
    return [config["engine"] for config in result.info["configs"]]


def both_ways(**kwargs: Any) -> tuple[Any, Any]:
    """(compiled result, replay result) of the same backtest, by ``Run(engine=...)``."""
    fused = backtest_with(ledger=False, engine="compiled", **kwargs)
    generic = backtest_with(ledger=False, engine="replay", **kwargs)
    assert set(engines(fused)) == {"compiled"} and set(engines(generic)) == {"replay"}
    return fused, generic


def assert_same_run(fused: Any, generic: Any) -> None:
    """The same sessions bit for bit (a NaN edge where a session staked nothing included),
    the same summary and counts."""
    a = read_run_table(fused.folder, "sessions")
    b = read_run_table(generic.folder, "sessions")
    assert a.schema.equals(b.schema)
    for name in a.column_names:
        left = a.column(name).to_numpy(zero_copy_only=False)
        right = b.column(name).to_numpy(zero_copy_only=False)
        if left.dtype.kind == "f":  # the same bits: NaN where NaN, -0.0 where -0.0
            assert np.array_equal(left.view(np.int64), right.view(np.int64)), name
        else:
            assert np.array_equal(left, right), name
    assert fused.summary.equals(generic.summary)
    assert fused.info["counts"] == generic.info["counts"]


POLICIES = [
    pytest.param({}, id="defaults"),
    pytest.param({"session_shoes": 2, "bankroll": 300.0}, id="two shoes, busts"),
    pytest.param({"when_short": "reduce", "bankroll": 150.0}, id="reduce"),
    pytest.param({"stop_loss": 100.0, "win_goal": 55.5}, id="stop loss, win goal"),
    pytest.param({"max_coups": 40, "bankroll": 2000.0}, id="max coups"),
]


@pytest.mark.parametrize("policy", POLICIES)
def test_generated_shoes_give_the_replays_sessions(tmp_path: Path, policy: dict[str, Any]):
    rules = TableRules(table_min=5, table_max=200)  # the limit binds within a few losses
    fused, generic = both_ways(strategies=SPECS, shoes=27, seed=11, rules=rules,
                               chunk_shoes=10, **policy)
    assert_same_run(fused, generic)
    sessions = fused.sessions
    if not policy or "session_shoes" in policy:
        assert (sessions["limit_hits"] > 0).any()
    if policy.get("bankroll") == 300.0:
        assert sessions["busted"].any() and sessions["ruined"].any()
    if "win_goal" in policy:
        assert {"stop_loss", "win_goal"} <= set(sessions["stop_reason"])


DEALING = [
    pytest.param({}, id="defaults"),
    pytest.param({"decks": 1, "burn": "none"}, id="one deck, no burn"),
    pytest.param({"decks": 2, "burn": "fixed", "burn_count": 20, "cut_card": 60},
                 id="fixed burn, deep cut"),
    # The cut card 6 cards from the end: the coup after it always starts with fewer than
    # six cards left, which the engine's own dealer deals (or finds too few cards for).
    pytest.param({"decks": 1, "cut_card": 6, "extra_coup_after_cut": True},
                 id="extra coup from the last cards"),
    pytest.param({"cut_card": 30, "extra_coup_after_cut": True}, id="extra coup, deep cut"),
]


@pytest.mark.parametrize("dealing", DEALING)
def test_the_fused_dealer_deals_the_engines_coups(dealing: dict[str, Any]):
    """The fused path's classes-only dealer against the engine's coups table: the same
    number of coups in every shoe, and each coup's class as the classifier gives it
    (its pair states aside, which no main bet reads)."""
    rules = TableRules(**dealing)
    shoe_ids = np.arange(3, 2004, 2)  # the dealer takes shoes four at a time: one over
    coups = generate_coups(rules, 17, shoe_ids)
    pairs = N_PAIR_STATES * N_PAIR_STATES
    expected = classify_coups(coups) // pairs * pairs + NO_PAIR * N_PAIR_STATES + NO_PAIR
    classes, counts = deal_classes(rules, 17, shoe_ids)
    assert np.array_equal(classes, expected)
    per_shoe = [np.count_nonzero(coups.shoe == shoe) for shoe in shoe_ids]
    assert counts.tolist() == per_shoe
    for i in range(40):  # each shoe alone, as a shoe left over in a chunk is dealt
        alone, count = deal_classes(rules, 17, shoe_ids[i:i + 1])
        assert count.tolist() == [per_shoe[i]]
        assert np.array_equal(alone, classes[sum(per_shoe[:i]):sum(per_shoe[:i + 1])])
    for size in range(2, 10):  # four at a time and every number left over
        first, count = deal_classes(rules, 17, shoe_ids[:size])
        assert count.tolist() == per_shoe[:size]
        assert np.array_equal(first, classes[:sum(per_shoe[:size])])


@pytest.mark.parametrize("variant", ["ez", "super6"])
def test_rule_variants_give_the_replays_sessions(variant: str):
    rules = TableRules(variant=variant, table_min=5, tie_pays=9)  # type: ignore[arg-type]
    fused, generic = both_ways(strategies=SPECS, shoes=25, seed=3, rules=rules,
                               stop_loss=150.0, when_short="reduce")
    assert_same_run(fused, generic)


def test_rule_sets_side_by_side_give_the_replays_sessions():
    sets = [TableRules(table_min=5), TableRules(table_min=5, variant="ez"),
            TableRules(table_min=5, commission=0.04, table_max=100)]
    fused, generic = both_ways(strategies=["martingale", "paroli:base=7.3"], shoes=30,
                               seed=9, rule_sets=sets)
    assert_same_run(fused, generic)


def test_a_coups_file_gives_the_replays_sessions(tmp_path: Path):
    path = tmp_path / "coups.parquet"
    generate_dataset(path, shoes=45, seed=21, rules=TableRules())
    fused, generic = both_ways(coups=path, strategies=SPECS[:10], chunk_shoes=16,
                               session_shoes=2, rules=TableRules(table_min=5),
                               when_short="reduce", bankroll=400.0)
    assert_same_run(fused, generic)


def test_an_outcomes_only_table_gives_the_replays_sessions():
    coups = generate_coups(TableRules(), 5, np.arange(30))
    coups.cards[:] = -1  # outcomes and totals only, as many recorded shoes are
    fused, generic = both_ways(coups=coups, strategies=SPECS[:6],
                               rules=TableRules(table_min=5))
    assert_same_run(fused, generic)


def test_a_stake_below_the_minimum_is_raised_as_the_replay_raises_it():
    fused, generic = both_ways(strategies=["martingale", "flat:base=7.3"], shoes=5, seed=1)
    assert_same_run(fused, generic)
    flat_at_ten = backtest(None, ["martingale", "flat"], shoes=5, seed=1, run=Run(ledger=False))
    assert fused.summary["mean_wagered"].tolist() == \
        flat_at_ten.summary["mean_wagered"].tolist()  # 7.3 raised to the minimum of 10


def test_a_bet_the_dataset_cannot_settle_is_refused_as_the_replay_refuses_it():
    coups = generate_coups(TableRules(), 5, np.arange(20))
    coups.cards[:] = -1  # totals only: under EZ a Banker 7 may or may not be a push
    rules = TableRules(variant="ez")
    with pytest.raises(StrategyFault) as fused:
        backtest(coups, ["martingale"], rules=rules, run=Run(ledger=False, engine="compiled"))
    with pytest.raises(StrategyFault) as generic:
        backtest(coups, ["martingale"], rules=rules, run=Run(ledger=False, engine="replay"))
    assert str(fused.value) == str(generic.value)
    assert "cannot be settled" in str(fused.value)


def test_exact_pricing_and_plugins_take_the_replay():
    configs = expand_spec("martingale")
    rules = TableRules()
    assert fused_plan(configs, rules, None, ledger=False, expected="auto") is not None
    assert fused_plan(configs, rules, None, ledger=False, expected="exact") is None

    class Doubler(Martingale):  # changes how a Martingale stakes, declares no compiled form
        name: ClassVar[str] = "doubler"

        def _stakes(self) -> np.ndarray:
            return 2 * super()._stakes()

    assert fused_plan([Doubler()], rules, None, ledger=False, expected="auto") is None
    mixed = fused_plan([*expand_spec("counter"), *configs, Doubler()], rules, None,
                       ledger=False, expected="auto")
    assert mixed is not None and mixed.configs == (1,)  # the Martingale alone


def test_compiled_configurations_play_fused_beside_the_ones_the_replay_plays():
    """A run mixing built-in systems with what the kernel does not play (the card counter,
    an EV-estimating count trigger, a plugin's part combined with built-in ones) plays the
    first on the fused path and replays only the others, over the same coups: the
    sessions of the replay of all."""
    specs = ["streak:n=2", "count:method=true_count | flat", "road | martingale",
             "paroli:base=7.3,side=player", f"{CHOOSY}:EveryOther | dalembert", "dalembert"]
    fused = backtest(None, specs, shoes=23, seed=6, rules=TableRules(table_min=5),
                     session=Session(stop_loss=120.0), run=Run(chunk_shoes=10, ledger=False))
    assert engines(fused) == ["compiled", "replay", "compiled", "compiled", "replay",
                              "compiled"]
    generic = backtest(None, specs, shoes=23, seed=6, rules=TableRules(table_min=5),
                       session=Session(stop_loss=120.0),
                       run=Run(chunk_shoes=10, ledger=False, engine="replay"))
    with pytest.raises(BaccaratError, match="engine compiled: the compiled kernel cannot play "
                                            r"count:method=true_count \| flat, every_other "
                                            r"\| dalembert"):
        backtest(None, specs, shoes=23, seed=6, run=Run(engine="compiled"))
    assert_same_run(fused, generic)


def test_the_cli_prints_the_same_summary_and_writes_the_same_counts(tmp_path: Path):
    runner = CliRunner()
    args = ["backtest", "-s", "martingale:max_doublings=[3,6]", "-s", "dalembert",
            "--shoes", "120", "--seed", "4", "--chunk", "50", "--ledger", "none"]
    fused = runner.invoke(app, [*args, "--engine", "compiled", "--out", str(tmp_path / "fused")])
    generic = runner.invoke(app, [*args, "--engine", "replay", "--out",
                                  str(tmp_path / "generic")])
    assert fused.exit_code == 0 and generic.exit_code == 0, fused.output + generic.output

    def shown(text: str, folder: str) -> str:  # the folder and the timing differ
        text = text.replace(str(tmp_path / folder), "OUT")
        return re.sub(r"\d[\d,.]* ?(s|seconds|M? ?coups/s)\b", "T", text)

    assert shown(fused.output, "fused") == shown(generic.output, "generic")
    counts = [json.loads((tmp_path / f / RUN_FILE).read_text())["counts"]
              for f in ("fused", "generic")]
    assert counts[0] == counts[1]
    files = [sorted(p.relative_to(tmp_path / f).as_posix()
                    for p in (tmp_path / f).rglob("*") if p.is_file())
             for f in ("fused", "generic")]
    assert files[0] == files[1]


def test_powers_of_two_are_numpys():
    k = np.arange(_POW2.size)
    with np.errstate(over="ignore"):
        assert np.array_equal(_POW2, np.exp2(k.astype(np.float64)))
    assert _POW2[10] == 1024.0 and np.isinf(_POW2[1024])


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "replay"])
@pytest.mark.parametrize("batch", [200_000, 1], ids=["grouped", "one at a time"])
def test_the_summary_from_memory_is_the_summary_of_the_parts(fused: bool, batch: int,
                                                              monkeypatch):
    """A run whose chunks run in its own process keeps the columns the summary reads
    instead of reading the parts back; the summary is the one the parts give, exactly."""
    monkeypatch.setattr(backtest_module, "SUMMARY_BATCH_ROWS", batch)
    reads: list[str] = []
    for name in ("_read_config", "_read_sessions"):
        kept = getattr(backtest_module, name)
        monkeypatch.setattr(backtest_module, name,
                            lambda *a, _kept=kept, _name=name: reads.append(_name) or _kept(*a))
    specs = ["martingale", "paroli:side=player,base=7.3", "flat:side=tie,base=5"]
    rules = TableRules(table_min=5)
    result = backtest(None, specs, shoes=25, seed=8, rules=rules,
                      session=Session(stop_loss=200.0),
                      run=Run(chunk_shoes=10, ledger=False,
                              engine="compiled" if fused else "replay"))
    assert reads == []
    configs = [config for spec in specs for config in expand_spec(spec)]
    from_parts = backtest_module.summarize_run(result.folder, configs, rules)
    assert reads
    assert result.summary.equals(from_parts)
    # Each configuration's house edge follows the kind it staked: the amounts came along.
    assert result.summary["house_edge"].round(4).tolist() == [0.0106, 0.0124, 0.1436]


def test_road_features_are_what_the_replays_road_state_shows():
    """Before every coup, each derived road's latest mark and the marks a Banker and a
    Player win would add, as ``baccarat.roads.RoadState`` shows them to a road follower,
    with the roads starting afresh at each shoe (ties, long dragons and short shoes)."""
    from baccarat.fused import road_features
    from baccarat.roads import RoadState

    rng = np.random.default_rng(5)
    outcomes = rng.choice(3, size=3000, p=[0.44, 0.45, 0.11]).astype(np.int8)
    outcomes[100:140] = 0  # a dragon longer than the board is tall
    new_shoe = np.zeros(outcomes.size, dtype=bool)
    new_shoe[[0, 7, 8, 300, 301, 1500, 2999]] = True
    features = road_features(outcomes, new_shoe)
    state = RoadState(1)
    for t, outcome in enumerate(outcomes):
        if new_shoe[t]:
            state.reset()
        for k in (1, 2, 3):
            shown = (state.last_colour(k)[0], state.colour_if(k, 0)[0], state.colour_if(k, 1)[0])
            assert tuple(features[t, k - 1]) == shown, (t, k)
        state.append(np.array([outcome]))
    assert (features != 0).any(axis=(0, 1)).all()  # every kind of mark came up


#: Every built-in selection the kernel plays, with parameters that change what it does.
SELECTIONS = [
    "always", "always:side=player", "always:side=tie", "follow", "follow:per_shoe=false",
    "chop", "streak:n=2", "streak:n=4,per_shoe=false", "ping_pong:n=2",
    "pattern:BBP=P,PPB=B", "pattern:BT=T,PPP=B,ties=keep,per_shoe=false", "skip_first:n=5",
    "after_ties:n=1,m=5", "road", "road:road=small_road,mode=red",
    "road:road=cockroach_pig,mode=blue", "count:method=panda8,threshold=2,bet=player",
]
#: Every built-in staking plan the kernel plays.
STAKINGS = [
    "flat", "martingale", "martingale:max_doublings=3", "grand_martingale", "paroli",
    "parlay:target_wins=2", "dalembert", "dalembert:unit=2.5", "contra_dalembert",
    "fibonacci", "labouchere", "labouchere:line=1-1-2", "reverse_labouchere",
    "oscars_grind", "one_three_two_six", "one_three_two_four", "percent",
    "percent:percent=3.5,base=5", "kelly:base=5,fraction=1,max_stake=60",
]
#: Session rules, per session and per shoe, alone and joined.
RULES = [
    "", "stop:win=50,loss=200,per=shoe", "stop:trailing=80", "stop:losses=3",
    "stop:coups=30,per=shoe | stop:win=120", "stop:losses=2,per=shoe | stop:trailing=150",
    "stop:loss=60,trailing=40,per=shoe",
]


def compose(selection: str, staking: str, rules: str = "") -> str:
    return " | ".join(part for part in (selection, staking, rules) if part)


#: Each selection with a staking plan, each staking plan with a selection: every part
#: played at least once (all 16 x 18 pairs run in benchmarks/bench_grid.py's check).
EVERY_PART = [compose(sel, STAKINGS[i % len(STAKINGS)]) for i, sel in enumerate(SELECTIONS)] \
    + [compose(SELECTIONS[(5 * i) % len(SELECTIONS)], stk) for i, stk in enumerate(STAKINGS)]

def assert_same_bits(got: Any, expected: Any, label: Any) -> None:
    """Two Arrow tables with the same schema and the same bits in every column (NaN where
    NaN, -0.0 where -0.0); ``label`` names the configuration in a failure."""
    assert got.schema.equals(expected.schema)
    for name in got.column_names:
        left = got.column(name).to_numpy(zero_copy_only=False)
        right = expected.column(name).to_numpy(zero_copy_only=False)
        same = np.array_equal(left.view(np.int64), right.view(np.int64)) \
            if left.dtype.kind == "f" else np.array_equal(left, right)
        assert same, (label, name)


def assert_same_sessions(specs: list[str], coups: Coups, rules: TableRules,
                         policy: SessionPolicy) -> dict[str, Any]:
    """The fused path's sessions tables of ``specs`` over ``coups`` are the replay's, bit
    for bit (as a chunk plays them, without a run folder); returns the fused tables'
    stop reasons and bets, to check what the case exercised."""
    configs = [config for spec in specs for config in expand_spec(spec)]
    plan = fused_plan(configs, rules, None, ledger=False, expected="auto", policy=policy)
    assert plan is not None and plan.configs == tuple(range(len(configs)))
    fused = run_coups(plan, [c.name for c in configs], coups, policy, 0)
    assert fused is not None
    grid, ledgers = replay(coups, configs, rules, policy)
    for k, config_ledger in enumerate(ledgers):
        expected = sessions_table(grid, config_ledger, k, list(BET_KINDS))
        assert_same_bits(fused.tables[k], expected,
                         specs[k] if len(specs) == len(configs) else k)
    return {"stops": {reason for t in fused.tables for reason in t.column("stop_reason")
                      .to_pylist()},
            "bets": sum(int(np.sum(t.column("bets").to_numpy())) for t in fused.tables)}


#: The table's rules and session policies the parts are played under.
TABLES = [
    pytest.param(TableRules(), SessionPolicy(), id="defaults"),
    pytest.param(TableRules(table_min=5, table_max=200),
                 SessionPolicy(session_shoes=2, bankroll=400.0, chip=2.5),
                 id="limits, chips, two shoes"),
    pytest.param(TableRules(table_min=5),
                 SessionPolicy(when_short="reduce", bankroll=150.0, below_min="skip"),
                 id="reduce, skip below min"),
    pytest.param(TableRules(table_min=5, variant="ez"),
                 SessionPolicy(below_min="stop", bankroll=300.0, shoe_win_goal=40.0,
                               session_shoes=2),
                 id="ez, stop below min, per-shoe goal"),
]


@pytest.fixture(scope="module")
def shoes() -> Coups:
    """Six generated shoes: the coups the parts are played over (the replay, the
    reference, plays every configuration step by step in Python: a few shoes)."""
    return generate_coups(TableRules(), 2, np.arange(6))


@pytest.mark.parametrize(("rules", "policy"), TABLES)
def test_every_selection_and_staking_plan_gives_the_replays_sessions(
        shoes: Coups, rules: TableRules, policy: SessionPolicy):
    seen = assert_same_sessions(EVERY_PART, shoes.take(shoes.shoe < 4), rules, policy)
    assert seen["bets"] > 0 and "end" in seen["stops"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(parts=st.lists(st.tuples(st.sampled_from(SELECTIONS), st.sampled_from(STAKINGS),
                                st.sampled_from(RULES)), min_size=1, max_size=3),
       first=st.integers(0, 4), count=st.integers(1, 2), session_shoes=st.integers(1, 2),
       bankroll=st.sampled_from([150.0, 400.0, 1000.0]),
       when_short=st.sampled_from(["stop", "reduce"]),
       chip=st.sampled_from([None, 2.5, 10.0]),
       below_min=st.sampled_from(["raise", "skip", "stop"]),
       table_max=st.sampled_from([200, 5000]))
def test_any_combination_of_parts_and_rules_gives_the_replays_sessions(
        shoes: Coups, parts: list[tuple[str, str, str]], first: int, count: int,
        session_shoes: int, bankroll: float, when_short: str, chip: float | None,
        below_min: str, table_max: int):
    specs = list(dict.fromkeys(compose(*p) for p in parts))
    chunk = shoes.take(np.flatnonzero((shoes.shoe >= first) & (shoes.shoe < first + count)))
    policy = SessionPolicy(session_shoes=session_shoes, bankroll=bankroll,
                           when_short=when_short, chip=chip,
                           below_min=below_min)  # type: ignore[arg-type]
    assert_same_sessions(specs, chunk, TableRules(table_min=5, table_max=table_max), policy)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(parts=st.lists(st.tuples(st.sampled_from(SELECTIONS), st.sampled_from(STAKINGS),
                                st.sampled_from(RULES)), min_size=1, max_size=3),
       first=st.integers(0, 4), session_shoes=st.integers(1, 2),
       bankroll=st.sampled_from([150.0, 1000.0]), chip=st.sampled_from([None, 2.5]),
       below_min=st.sampled_from(["raise", "skip", "stop"]))
def test_with_the_ledger_any_combination_writes_the_replays_ledger_byte_for_byte(
        shoes: Coups, parts: list[tuple[str, str, str]], first: int, session_shoes: int,
        bankroll: float, chip: float | None, below_min: str):
    """The ledger-on fused path: each configuration's ledger rows (``baccarat.ledger``'s,
    from the grids the kernel kept) are the replay's, the same bytes column by column."""
    specs = list(dict.fromkeys(compose(*p) for p in parts))
    configs = [config for spec in specs for config in expand_spec(spec)]
    chunk = shoes.take(np.flatnonzero((shoes.shoe >= first) & (shoes.shoe < first + 2)))
    rules = TableRules(table_min=5, table_max=200)
    policy = SessionPolicy(session_shoes=session_shoes, bankroll=bankroll, chip=chip,
                           below_min=below_min)  # type: ignore[arg-type]
    plan = fused_plan(configs, rules, None, ledger=True, expected="auto", policy=policy)
    assert plan is not None and plan.configs == tuple(range(len(configs)))
    fused = run_coups(plan, [c.name for c in configs], chunk, policy, 0)
    assert fused is not None and fused.ledgers is not None and fused.grid is not None
    grid, ledgers = replay(chunk, configs, rules, policy)
    for k, config_ledger in enumerate(ledgers):
        expected = ledger_table(grid, chunk, config_ledger, k, list(BET_KINDS))
        got = ledger_table(fused.grid, chunk, fused.ledgers[k], k, list(BET_KINDS))
        assert_same_bits(got, expected, configs[k].name)


def test_the_composed_built_in_of_issue_21_stops_per_shoe_as_the_replay_does():
    """``streak:n=3 | martingale | stop:win=50,loss=200,per=shoe`` over sessions of three
    shoes: sessions sit out the rest of a shoe and come back at the next."""
    spec = "streak:n=3 | martingale | stop:win=50,loss=200,per=shoe"
    fused, generic = both_ways(strategies=[spec], shoes=60, seed=21, session_shoes=3)
    assert_same_run(fused, generic)
    stops = fused.sessions["stop_reason"].value_counts()
    assert stops.get("win_goal", 0) > 0 and stops.get("end", 0) > 0


def test_the_published_counts_give_the_replays_sessions_priced_by_the_cards_left(
        shoes: Coups):
    """Dragon 7 and Panda 8 counts (EZ tables) played by the kernel: each coup's true count
    from the cards seen in the shoe, the shown burn card included; their stakes priced from
    the cards left, coup by coup, as the replay prices a strategy that reads the cards."""
    specs = ["count:method=dragon7,threshold=1 | flat",
             "count:method=panda8,threshold=3,min_depth=30 | martingale",
             "count:method=dragon7,threshold=2 | paroli | stop:win=60,per=shoe",
             "streak:n=2 | dalembert"]
    rules = TableRules(variant="ez", table_min=5)
    seen = assert_same_sessions(specs, shoes, rules, SessionPolicy(session_shoes=2))
    assert seen["bets"] > 0
    plan = fused_plan([c for s in specs for c in expand_spec(s)], rules, None, ledger=False,
                      expected="auto")
    assert plan is not None and plan.needs_cards
    # The counts the kernel does not play (their EV estimates) are the replay's.
    assert fused_plan(expand_spec("count:method=true_count | flat"), rules, None,
                      ledger=False, expected="auto") is None


def test_kelly_gives_the_replays_sessions_staking_from_the_exact_ev_of_the_cards_left(
        shoes: Coups):
    """Kelly (fraction x bankroll x EV / b, at least the base, at most max_stake) played by
    the kernel: the EV of the kind chosen, enumerated on the cards left before the coup
    (0 where under six cards are left: the base), behind every selection, a published
    count's trigger and a side of two kinds included; the stakes priced from the cards
    left as the replay prices them."""
    specs = ["count:method=dragon7,threshold=1 | kelly:base=5,fraction=1",
             "count:method=panda8,threshold=3 | kelly:base=5,max_stake=40",
             "always:side=dragon7 | kelly:base=5,fraction=1",
             "follow | kelly:base=5,fraction=1,max_stake=12 | stop:loss=60,per=shoe",
             "always | kelly"]
    rules = TableRules(variant="ez", table_min=5)
    seen = assert_same_sessions(specs, shoes, rules,
                                SessionPolicy(session_shoes=2, bankroll=2000.0, chip=1.0))
    assert seen["bets"] > 0
    # The EV was read, not only the base: a Panda 8 count's and the follower's stakes went
    # above the base of 5 (and stayed within their max_stake).
    configs = [c for s in specs for c in expand_spec(s)]
    plan = fused_plan(configs, rules, None, ledger=False, expected="auto")
    assert plan is not None and plan.needs_cards
    policy = SessionPolicy(session_shoes=2, bankroll=2000.0)
    played = run_coups(plan, [c.name for c in configs], shoes, policy, 0)
    assert played is not None
    for k, most in ((1, 40.0), (3, 12.0)):
        stakes = played.tables[k].column("max_stake").to_numpy()
        assert 5.0 < stakes.max() <= most


def test_the_full_ledger_played_fused_is_the_replays_row_for_row():
    """With the ledger, the fused path keeps every coup each session played (the kind, the
    stake, the net, the bankroll) and writes the replay's ledger rows from them: the same
    parts bit for bit, a count's and Kelly's expected nets priced from the cards left
    included."""
    specs = ["martingale", "streak:n=2 | dalembert | stop:win=50,per=shoe", "road | paroli",
             "count:method=dragon7,threshold=1 | flat", "follow | kelly:base=5,fraction=1",
             "count:method=true_count | flat", f"{CHOOSY}:EveryOther | fibonacci"]
    kwargs: dict[str, Any] = {"strategies": specs, "shoes": 14, "seed": 3, "chunk_shoes": 5,
                              "rules": TableRules(variant="ez", table_min=5),
                              "session_shoes": 2}
    fused = backtest_with(ledger=True, **kwargs)
    assert engines(fused) == ["compiled"] * 5 + ["replay"] * 2  # the EV count, the plugin
    generic = backtest_with(ledger=True, engine="replay", **kwargs)
    assert_same_run(fused, generic)
    a = read_run_table(fused.folder, "ledger")
    b = read_run_table(generic.folder, "ledger")
    assert a.schema.equals(b.schema) and a.num_rows == b.num_rows > 0
    for name in a.column_names:
        left = a.column(name).to_numpy(zero_copy_only=False)
        right = b.column(name).to_numpy(zero_copy_only=False)
        assert np.array_equal(left.view(np.int64), right.view(np.int64)) \
            if left.dtype.kind == "f" else np.array_equal(left, right), name
