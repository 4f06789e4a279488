"""Shared fixtures for the engine tests."""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable

import numpy as np
import pytest

from engine.cards import parse_card


@pytest.fixture
def codes() -> Callable[[str], list[int]]:
    """Turn ``"AS 10H KD"`` into card codes, so a test writes cards as a dealer reads them."""
    return lambda text: [parse_card(word) for word in text.split()]


# -- numba on a cold cache: each kernel compiled once for the whole run ---------------------
#
# A fresh clone (as CI has) holds no compiled kernel. Left alone, each xdist worker compiles
# every kernel its tests touch, and both workers need nearly all of them: the same kernels
# compiled twice, at the same time (about 20 CPU-seconds each). Instead, before its first
# test, worker i compiles group i below by a few small calls; numba's cache on disk
# (``__pycache__`` beside the sources) carries each group to the other worker, which then
# only loads it. The groups share no kernel and take about as long as each other.

def _dealers_checks_and_shuffles() -> None:
    from engine.deal import deal_one, deal_sequences, generate_coups
    from engine.io.importers.checks import check_coups
    from engine.rules import TableRules
    from engine.shoe import shuffled_shoes
    from engine.shuffles import generate_model_coups, parse_shuffle

    coups = generate_coups(TableRules(), 1, np.arange(2))
    deal_one([1, 2, 3, 4, 5, 6])
    deal_sequences([shuffled_shoes(1, 1, np.arange(1))[0]], TableRules(decks=1))
    check_coups(coups.cards, coups.shoe, coups.player_total, coups.banker_total,
                coups.outcome, 8)
    for spec in ("riffle:7", "csm"):
        generate_model_coups(TableRules(), 1, np.arange(2), parse_shuffle(spec))


def _replay_and_exact_odds() -> None:
    from engine.backtest import backtest
    from engine.coups import coups_from_outcomes
    from engine.odds.bets import expected_values_batch
    from engine.odds.composition import shoe_counts
    from engine.rules import TableRules

    shoes = ["BPPBTBBPBPPPBBTPBPBBPPPB" * 3, "PBBTPPBPBBBPPTBPBPPBBPBP" * 3]
    with tempfile.TemporaryDirectory() as tmp:
        backtest(coups_from_outcomes(shoes), ["flat", "martingale", "fibonacci", "paroli",
                                              "follow"], out=f"{tmp}/run")
    rows = np.repeat(shoe_counts(8)[None, :], 64, axis=0)  # 64 different compositions
    rows[np.arange(64), np.arange(64) % 10] -= 1 + np.arange(64) // 10
    for parallel in (False, True):
        expected_values_batch(rows, TableRules(), parallel=parallel)


KERNEL_GROUPS = (_dealers_checks_and_shuffles, _replay_and_exact_odds)


@pytest.fixture(scope="session", autouse=True)
def _kernels_compiled_once() -> None:
    """Under xdist on a cold cache, compile this worker's group of kernels first.

    Only a head start: if a call here fails, the tests that make it fail on their own.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", 1)) < 2:
        return
    index = int(worker[2:])
    from engine import warm

    if index >= len(KERNEL_GROUPS) or not warm.cold():
        return
    try:
        KERNEL_GROUPS[index]()
    except Exception as error:  # noqa: BLE001 - a warm-up, never a test
        warnings.warn(f"numba warm-up {KERNEL_GROUPS[index].__name__} failed: {error!r}",
                      stacklevel=1)
