"""The search's statistics: the space, the metrics, the splits, and the adjustments for the
number of configurations tried, against hand-worked examples and the ``arch`` package."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from baccarat.errors import BaccaratError
from baccarat.metrics import SUMMARY_METRICS, summarize
from baccarat.search.adjust import (
    bootstrap_means,
    counts_of,
    edge_tests,
    holm,
    romano_wolf,
    spa_pvalues,
)
from baccarat.search.metric import EDGE_OVER_EXPECTED, parse_metric, search_metrics
from baccarat.search.space import Space
from baccarat.search.splits import fold_split, holdout_split, id_ranges, name_ids
from baccarat.session_play import SHOE_STOP_COLUMNS
from baccarat.strategies.registry import expand_spec
from hypothesis import given, settings
from hypothesis import strategies as st

# --- The space ------------------------------------------------------------------------------


def test_space_counts_and_indexes_in_expansion_order() -> None:
    specs = ["martingale:max_doublings=[3,4,5],side=[banker,player]", "flat",
             "streak:n=[1,2]"]
    space = Space(specs)
    expanded = [c for spec in specs for c in expand_spec(spec)]
    assert len(space) == 3 * 2 + 1 + 2 == len(expanded)
    assert [space[i].spec() for i in range(len(space))] == [c.spec() for c in expanded]
    assert [c.spec() for c in space] == [c.spec() for c in expanded]


def test_a_sample_is_drawn_without_building_the_space() -> None:
    values = ",".join(str(v) for v in range(1, 1001))
    space = Space([f"paroli:base=[{values}],target_wins=[{values}],side=[banker,player]"])
    assert len(space) == 2_000_000  # counted, not built
    indices, configs = space.sample(5, seed=3)
    assert indices == sorted(set(indices)) and len(indices) == 5
    again, _ = space.sample(5, seed=3)
    assert again == indices
    # index i is (base, target_wins, side) in product order, last key fastest
    for i, config in zip(indices, configs, strict=True):
        base, rest = divmod(i, 2000)
        wins, side = divmod(rest, 2)
        assert config.params()["base"] == base + 1
        assert config.params()["target_wins"] == wins + 1
        assert config.params()["side"] == ("banker", "player")[side]


def test_a_sample_larger_than_the_space_is_the_space() -> None:
    space = Space(["flat:side=[banker,player]"])
    indices, configs = space.sample(10, seed=0)
    assert indices == [0, 1] and [c.params()["side"] for c in configs] == ["banker", "player"]


def test_space_errors_name_the_spec() -> None:
    with pytest.raises(BaccaratError, match="unknown strategy 'nope'"):
        Space(["nope"])
    with pytest.raises(BaccaratError, match="max_doublings"):
        list(Space(["martingale:max_doublings=[3,-1]"]))  # by the time they are built
    with pytest.raises(BaccaratError, match="no strategy"):
        Space([])


# --- The metrics ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sessions() -> list[pd.DataFrame]:
    """Three configurations' sessions with every column the metrics read."""
    rng = np.random.default_rng(11)
    frames = []
    for k in range(3):
        n = 57
        wagered = rng.integers(0, 400, n).astype(float)
        wagered[k] = 0.0
        net = np.round(rng.normal(-3, 60, n), 1)
        frames.append(pd.DataFrame({
            "net": net, "wagered": wagered, "expected_net": -0.0106 * wagered,
            "start_bankroll": np.full(n, 1000.0), "ruined": rng.random(n) < 0.1,
            "busted": rng.random(n) < 0.2, "max_drawdown": rng.uniform(0, 300, n),
            "coups": rng.integers(1, 80, n), "limit_hits": rng.integers(0, 3, n),
            **{column: rng.integers(0, 3, n) for column in SHOE_STOP_COLUMNS}}))
    return frames


def test_every_metric_is_the_summary_s_over_the_same_sessions(
        sessions: list[pd.DataFrame]) -> None:
    columns = {name: np.stack([f[name].to_numpy() for f in sessions])
               for name in sessions[0].columns}
    expected = [summarize(f, math.nan) for f in sessions]
    for name in search_metrics():
        if name == EDGE_OVER_EXPECTED:
            continue
        counted = ("std_net", "mean_wagered", "mean_coups", "limit_hits", *SHOE_STOP_COLUMNS)
        metric = parse_metric(name if name not in counted else f"{name}:higher")
        got = metric.values(columns)
        want = [e[name] for e in expected]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


def test_the_default_metric_is_realized_minus_expected_edge(
        sessions: list[pd.DataFrame]) -> None:
    columns = {name: np.stack([f[name].to_numpy() for f in sessions])
               for name in sessions[0].columns}
    metric = parse_metric(None)
    assert metric.name == EDGE_OVER_EXPECTED and metric.higher
    assert parse_metric("realized_edge-expected_edge").name == EDGE_OVER_EXPECTED
    for k, frame in enumerate(sessions):
        summary = summarize(frame, math.nan)
        want = summary["realized_edge"] - summary["expected_edge"]
        assert metric.values(columns)[k] == pytest.approx(want, rel=1e-12)


def test_metric_directions_and_refusals() -> None:
    assert not parse_metric("risk_of_ruin").higher
    assert parse_metric("mean_net").higher
    assert not parse_metric("mean_net:lower").higher
    with pytest.raises(BaccaratError, match="say which way is better: std_net:higher"):
        parse_metric("std_net")
    with pytest.raises(BaccaratError, match="'house_edge' is the same for every part"):
        parse_metric("house_edge")
    with pytest.raises(BaccaratError, match="^metric 'profit': 'profit' is not known"):
        parse_metric("profit")
    with pytest.raises(BaccaratError, match="direction 'up'"):
        parse_metric("mean_net:up")
    with pytest.raises(BaccaratError, match="'edge_p' is a p-value"):
        parse_metric("edge_p")
    assert {m.name for m in SUMMARY_METRICS} - set(search_metrics()) == {
        "sessions", "edge_verdict", "edge_p", "house_edge", "edge_gain"}


def test_best_and_ranks_follow_the_direction() -> None:
    values = np.array([0.2, np.nan, 0.5, 0.2, -1.0])
    higher, lower = parse_metric("mean_net"), parse_metric("risk_of_ruin")
    assert higher.best(values) == 2 and lower.best(values) == 4
    assert higher.ranks(values).tolist() == [2, 5, 1, 3, 4]
    assert lower.ranks(values).tolist() == [2, 5, 4, 3, 1]


# --- The splits -----------------------------------------------------------------------------


def test_holdout_takes_the_last_sessions() -> None:
    split = holdout_split(10, 0.3)
    (fold,) = split.folds
    assert fold.choose.tolist() == list(range(7)) and fold.evaluate.tolist() == [7, 8, 9]
    assert holdout_split(10, 0.0).folds[0].evaluate.size == 0
    with pytest.raises(BaccaratError, match="^holdout 1: the fraction"):
        holdout_split(10, 1.0)
    with pytest.raises(BaccaratError, match="leaves 3 to choose on and 1 to check on"):
        holdout_split(4, 0.2)


@settings(max_examples=60, deadline=None)
@given(sessions=st.integers(2, 400), folds=st.integers(1, 12))
def test_walk_forward_folds_never_choose_on_what_they_evaluate(sessions: int,
                                                                folds: int) -> None:
    if sessions < 2 * (folds + 1):
        with pytest.raises(BaccaratError, match="fewer than 2 in a block"):
            fold_split(sessions, folds, walk_forward=True)
        return
    split = fold_split(sessions, folds, walk_forward=True)
    assert len(split.folds) == folds
    for fold in split.folds:
        assert fold.choose.size and fold.evaluate.size
        assert fold.choose.max() < fold.evaluate.min()  # only shoes dealt before
        assert fold.choose.tolist() == list(range(fold.choose.size))  # all of them
    evaluated = np.concatenate([f.evaluate for f in split.folds])
    assert evaluated.tolist() == list(range(sessions - evaluated.size, sessions))


@settings(max_examples=40, deadline=None)
@given(sessions=st.integers(4, 300), folds=st.integers(2, 10))
def test_cross_validation_folds_check_every_session_once(sessions: int, folds: int) -> None:
    if sessions < 2 * folds:
        return
    split = fold_split(sessions, folds, walk_forward=False)
    for fold in split.folds:
        assert not set(fold.choose.tolist()) & set(fold.evaluate.tolist())
        assert sorted([*fold.choose, *fold.evaluate]) == list(range(sessions))
    assert sorted(np.concatenate([f.evaluate for f in split.folds]).tolist()) == \
        list(range(sessions))


def test_shoe_ids_are_named_as_runs() -> None:
    assert id_ranges(np.array([0, 1, 2, 5, 7, 8])) == [[0, 2], [5, 5], [7, 8]]
    assert name_ids(np.array([0, 1, 2, 5, 7, 8])) == "0-2, 5, 7-8"
    assert name_ids(np.arange(0, 40, 2), most=3).startswith("0, 2, ... (18 more runs)")


# --- The tests and their adjustments ----------------------------------------------------------


def test_holm_by_hand() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> 0.06
    assert holm(np.array([0.01, 0.04, 0.03, 0.005])).tolist() == pytest.approx(
        [0.03, 0.06, 0.06, 0.02])
    assert holm(np.array([0.5, 0.4])).tolist() == pytest.approx([0.8, 0.8])


def test_edge_test_by_hand() -> None:
    # two sessions: d = net - expected = (5 - (-1), -2 - (-1)) = (6, -1), w = (100, 100)
    # m = 5 / 200 = 0.025; residuals d - m w = (3.5, -3.5); se = sqrt(24.5 * 2 / 1) / 200
    # (the step-down's); the raw p is the score test's: z = 5 / sqrt(36 + 1) = 0.822
    tests = edge_tests(np.array([[5.0, -2.0]]), np.array([[100.0, 100.0]]),
                       np.array([[-1.0, -1.0]]))
    se = math.sqrt(24.5 * 2) / 200
    assert tests.statistic[0] == pytest.approx(0.025)
    assert tests.se[0] == pytest.approx(se)
    assert tests.z[0] == pytest.approx(5 / math.sqrt(37))
    assert tests.p[0] == pytest.approx(0.2055, abs=1e-4)  # 0.5 erfc(0.822 / sqrt 2)
    # the influence values average to m
    assert tests.influence[0].mean() == pytest.approx(0.025)


def test_a_configuration_that_never_bet_has_no_evidence() -> None:
    tests = edge_tests(np.zeros((1, 5)), np.zeros((1, 5)), np.zeros((1, 5)))
    assert tests.p[0] == 1.0 and np.isnan(tests.statistic[0])


def test_romano_wolf_by_hand() -> None:
    statistic = np.array([1.0, 0.6, 0.1])
    recentred = np.array([[0.2, 1.1, -0.3, 0.5],
                          [0.7, 0.1, 0.65, -0.2],
                          [0.05, 0.3, 0.9, 0.0]])
    means = recentred + statistic[:, None]
    # 1st (1.0): max of all [0.7, 1.1, 0.9, 0.5] >= 1.0 once -> (1 + 1) / 5 = 0.4
    # 2nd (0.6): max of 2nd, 3rd [0.7, 0.3, 0.9, 0.0] >= 0.6 twice -> 3 / 5 = 0.6
    # 3rd (0.1): [0.05, 0.3, 0.9, 0.0] >= 0.1 twice -> 0.6, never below the 2nd's
    got = romano_wolf(statistic, np.ones(3), means, studentize=False)
    assert got.tolist() == pytest.approx([0.4, 0.6, 0.6])
    # the 3rd alone would give 1/5, but a step-down p never falls below the one before
    flat = recentred.copy()
    flat[2] = [0.0, 0.0, 0.0, 0.0]
    got = romano_wolf(statistic, np.ones(3), flat + statistic[:, None], studentize=False)
    assert got.tolist() == pytest.approx([0.4, 0.6, 0.6])
    # studentized: t = (2, 3, 0.5) with se (0.5, 0.2, 0.2); t* = recentred / se:
    # (0.4, 2.2, -0.6, 1.0), (3.5, 0.5, 3.25, -1.0), (0.25, 1.5, 4.5, 0.0)
    # 2nd config first (3): max of all [3.5, 2.2, 4.5, 1.0] >= 3 twice -> 3/5
    # 1st config (2): max of 1st, 3rd [0.4, 2.2, 4.5, 1.0] >= 2 twice -> 3/5
    # 3rd (0.5): [0.25, 1.5, 4.5, 0.0] >= 0.5 twice -> 3/5
    se = np.array([0.5, 0.2, 0.2])
    got = romano_wolf(statistic, se, means, studentize=True)
    assert got.tolist() == pytest.approx([0.6, 0.6, 0.6])
    # a configuration that never bet (no statistic) is never rejected
    got = romano_wolf(np.array([1.0, np.nan]), np.ones(2), np.zeros((2, 4)),
                      studentize=False)
    assert got[1] == 1.0


def _arch_draws(data: np.ndarray, reps: int, seed: int) -> np.ndarray:
    """The session indices ``arch``'s SPA draws with this seed (block size 1: iid)."""
    from arch.bootstrap import StationaryBootstrap

    bootstrap = StationaryBootstrap(1, data, seed=seed)
    draws = []
    for _ in bootstrap.bootstrap(reps):
        draws.append(np.asarray(bootstrap.index).copy())
    return np.stack(draws)


def test_reality_check_and_spa_agree_with_arch() -> None:
    pytest.importorskip("arch")
    from arch.bootstrap import SPA

    rng = np.random.default_rng(4)
    n, reps = 300, 500
    # eight configurations' influence values: noise around means near and below 0, one
    # clearly above, one far below (recentred by 'upper' only)
    means = np.array([0.0, -0.01, 0.02, -0.05, 0.01, 0.12, -0.4, 0.0])
    x = means[:, None] + rng.normal(0, 1, (8, n)) * np.linspace(0.5, 1.5, 8)[:, None]
    draws = _arch_draws(x.T, reps, seed=9)
    ours = spa_pvalues(x, bootstrap_means(x, counts_of(draws, n)))
    spa = SPA(np.zeros(n), -x.T, block_size=1, reps=reps, seed=9)
    spa.compute()
    theirs = spa.pvalues
    for name in ("lower", "consistent", "upper"):
        assert ours[name] == pytest.approx(float(theirs[name]), abs=1e-12), name
    assert 0 < ours["consistent"] <= ours["upper"] < 1


def test_the_studentized_spa_is_arch_s_on_each_series_over_its_standard_error() -> None:
    pytest.importorskip("arch")
    from arch.bootstrap import SPA

    rng = np.random.default_rng(5)
    n, reps = 300, 500
    # a rare bettor (mean 0.3, spread 8) and a steady one (mean 0.2, spread 1): raw, the
    # rare one is the best; in standard errors the steady one is (z about 3.5 against 0.6)
    x = np.array([0.3, 0.2, 0.0])[:, None] + rng.normal(0, 1, (3, n)) * np.array(
        [8.0, 1.0, 1.0])[:, None]
    scale = np.array([8.0, 1.0, 1.0]) / np.sqrt(n)
    draws = _arch_draws(x.T, reps, seed=3)
    ours = spa_pvalues(x, bootstrap_means(x, counts_of(draws, n)), scale)
    spa = SPA(np.zeros(n), -(x / scale[:, None]).T, block_size=1, reps=reps, seed=3)
    spa.compute()
    for name in ("lower", "consistent", "upper"):
        assert ours[name] == pytest.approx(float(spa.pvalues[name]), abs=1e-12), name
    assert ours["consistent"] < 0.01  # the steady one is found
    assert spa_pvalues(x, bootstrap_means(x, counts_of(draws, n)))["consistent"] > 0.05


def test_the_step_down_rejects_what_arch_s_stepm_rejects() -> None:
    pytest.importorskip("arch")
    from arch.bootstrap import StepM

    rng = np.random.default_rng(8)
    n, reps = 400, 1000
    # three clearly superior, three at or a little below 0 (all within the consistent
    # bound, so arch recentres all of them as the plain step-down does)
    means = np.array([0.35, 0.3, 0.25, 0.0, -0.02, 0.01])
    x = means[:, None] + rng.normal(0, 1, (6, n))
    draws = _arch_draws(x.T, reps, seed=2)
    stepm = StepM(np.zeros(n), -x.T, size=0.05, block_size=1, reps=reps, seed=2)
    stepm.compute()
    tests_mean = x.mean(axis=1)
    adjusted = romano_wolf(tests_mean, np.ones(6), bootstrap_means(x, counts_of(draws, n)),
                           studentize=False)
    assert sorted(int(k) for k in stepm.superior_models) == \
        [k for k in range(6) if adjusted[k] <= 0.05] == [0, 1, 2]


def test_joint_resampling_keeps_the_correlation() -> None:
    # Ten identical configurations are one test: the step-down gives each the p-value of
    # one alone, where Holm multiplies by ten.
    rng = np.random.default_rng(1)
    d = rng.normal(0.08, 1, 400)
    net = np.tile(d * 10, (10, 1))
    wagered = np.full((10, 400), 10.0)
    tests = edge_tests(net, wagered, np.zeros_like(net))
    counts = counts_of(rng.integers(0, 400, (2000, 400)), 400)
    stepdown = romano_wolf(tests.statistic, tests.se, bootstrap_means(tests.influence, counts))
    alone = romano_wolf(tests.statistic[:1], tests.se[:1],
                        bootstrap_means(tests.influence[:1], counts))
    assert stepdown == pytest.approx(np.full(10, alone[0]))
    assert holm(tests.p)[0] == pytest.approx(min(1.0, 10 * tests.p[0]))
    assert stepdown[0] < holm(tests.p)[0]


def test_permutations_of_the_configurations_permute_the_results() -> None:
    rng = np.random.default_rng(3)
    stat = rng.normal(0, 1, 5)
    means = rng.normal(0, 1, (5, 300)) + stat[:, None]
    se = rng.uniform(0.5, 2, 5)
    base = romano_wolf(stat, se, means)
    for perm in itertools.islice(itertools.permutations(range(5)), 1, 20):
        order = list(perm)
        assert romano_wolf(stat[order], se[order], means[order]) == pytest.approx(
            base[order])


def test_a_bootstrap_sample_s_standard_error_is_the_edge_test_s_on_its_sessions() -> None:
    from baccarat.search.adjust import bootstrap_se

    rng = np.random.default_rng(0)
    net = rng.normal(-1, 30, (3, 60))
    wagered = np.full((3, 60), 20.0)
    tests = edge_tests(net, wagered, -0.01 * wagered)
    drawn = rng.integers(0, 60, (4, 60))
    counts = counts_of(np.vstack([np.arange(60), drawn]), 60)
    means = bootstrap_means(tests.influence, counts)
    se = bootstrap_se(tests.influence, counts, means)
    np.testing.assert_allclose(se[:, 0], tests.se)  # the sample of every session once
    for b, rows in enumerate(drawn, start=1):  # equal stakes: the influence is exact
        again = edge_tests(net[:, rows], wagered[:, rows], -0.01 * wagered[:, rows])
        np.testing.assert_allclose(means[:, b], again.statistic)
        np.testing.assert_allclose(se[:, b], again.se)
