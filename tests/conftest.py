"""Shared fixtures for the engine tests."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable

import pytest
from baccarat.cards import parse_card


@pytest.fixture
def codes() -> Callable[[str], list[int]]:
    """Turn ``"AS 10H KD"`` into card codes, so a test writes cards as a dealer reads them."""
    return lambda text: [parse_card(word) for word in text.split()]


# The suite's workers keep both cores busy: a report's figures are drawn in the process
# that renders it, not in worker processes of its own (tests/cli/test_report_drawing.py starts
# those). Set here, before any test runs, so every xdist worker inherits it.
os.environ.setdefault("BACCARAT_REPORT_WORKERS", "0")

# Ctrl-C as a terminal gives it: a suite started in the background of a shell without job
# control (`cmd &` in a script, as some CI runners do) inherits SIGINT ignored, and so
# would every command the tests start (an ignored signal stays ignored across exec): the
# tests of what Ctrl-C does would then see nothing happen. Python's own handler, here and
# (being a handler, not "ignored") reset to the default in every child it starts.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The plugins backtest has seen checked are remembered in the user's cache: the suite keeps
# its own, empty at each run (every worker inherits the folder), never the user's.
if "BACCARAT_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["BACCARAT_CACHE_DIR"] = tempfile.mkdtemp(prefix="baccarat-test-cache-")


# -- the test modules' bytecode, kept even where PYTHONDONTWRITEBYTECODE is set ----------
#
# pytest rewrites each test module's asserts as it imports it and keeps the result as
# bytecode beside it; where the environment says not to write bytecode (as this project's
# machines do), every worker rewrites and compiles every test module again on every run:
# 7.5 s of collecting instead of 2.8 s. So the bytecode is written while the tests are
# collected (what `baccarat warm` does for the engine's own modules), and the setting is
# put back before any test runs, for what tests import from their own folders.
_DONT_WRITE_BYTECODE = sys.dont_write_bytecode
sys.dont_write_bytecode = False


def pytest_collection_finish(session: pytest.Session) -> None:
    sys.dont_write_bytecode = _DONT_WRITE_BYTECODE


# -- numba on a cold cache: every kernel compiled once, before the workers start -----------
#
# A fresh clone (as CI has) holds no compiled kernel. Left alone, each xdist worker compiles
# the kernels its tests touch as it meets them, one at a time, and both workers need most
# of them: the same kernels compiled twice, inside whichever tests come first. Instead the
# controller runs ``baccarat warm``'s own warm-up (baccarat.warm: its exercises in parallel
# processes, as many as the workers) before starting the workers, which then load every
# kernel from numba's cache on disk. On a warm cache this costs one quick check.

@pytest.hookimpl(trylast=True)  # after the terminal reporter is there to say so
def pytest_configure(config: pytest.Config) -> None:
    workers = config.getoption("numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2 \
            or config.getoption("collectonly"):
        return
    from baccarat import warm

    if not warm.cache_empty():
        return
    started = time.perf_counter()
    try:
        report = warm.warm(processes=workers)
        problems = report.failed
    except Exception as error:  # noqa: BLE001 - a head start, never a test: they still run
        problems = [repr(error)]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"numba's cache was empty: compiled the engine's kernels first, "
                            f"{workers} at a time, in {time.perf_counter() - started:.1f} s")
    for problem in problems:
        config.issue_config_time_warning(pytest.PytestWarning(f"numba warm-up: {problem}"),
                                         stacklevel=2)


# -- the order: tests that wait seconds on child processes first ----------------------------
#
# xdist hands the tests out in this order. These files' tests each spend seconds in child
# processes (an interpreter to start, a pool, a signal to wait for); collected last, as
# their names would have it, one of them could keep a worker busy while the other idles.

RUN_FIRST = ("test_warm.py", "test_signals.py", "test_startup.py", "test_new_strategy.py",
             "test_examples.py", "test_ownership.py", "test_live_app.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(RUN_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(RUN_FIRST)))  # stable
