"""Native kernels (``engine/native.py``): numba's machine code loaded without numba.

The fused path's kernels run as code built once and loaded by llvmlite in later
processes; these tests check that a fresh process runs a fused backtest without
importing numba and gets numba's figures, that the built files are named by everything
the code depends on, and that whatever cannot take the native path runs through numba.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from baccarat import Run, backtest, native
from baccarat.backtest import read_run_table
from baccarat.fused import _deal_classes
from baccarat.fused_play import play_systems
from keywords import backtest_with

ROOT = Path(__file__).resolve().parents[1]


def sessions_of(**kwargs: object) -> dict[str, list[object]]:
    result = backtest_with(ledger=False, **kwargs)  # type: ignore[arg-type]
    return read_run_table(result.folder, "sessions").to_pydict()


def test_a_fresh_process_plays_the_fused_path_without_numba(tmp_path: Path):
    specs = ["martingale", "labouchere:line=1-2-3", "oscars_grind:side=player"]
    here = sessions_of(strategies=specs, shoes=60, seed=4, out=tmp_path / "here")
    assert native.refused == {}  # built (or loaded) here: the fused kernels are native
    script = textwrap.dedent(f"""
        import json, sys
        from baccarat.backtest import read_run_table
        from baccarat import Run, backtest
        result = backtest(None, {specs!r}, shoes=60, seed=4,
                          run=Run(ledger=False, out={str(tmp_path / "there")!r}))
        rows = read_run_table(result.folder, "sessions").to_pydict()
        print(json.dumps({{"numba": "numba" in sys.modules,
                           "net": rows["net"], "coups": rows["coups"]}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    there = json.loads(done.stdout)
    assert there["numba"] is False
    assert there["net"] == here["net"] and there["coups"] == here["coups"]


def test_a_stored_dataset_plays_without_numba_too(tmp_path: Path):
    """Over stored coups (search's datasets, ``backtest --coups``) the fused path classes
    the coups and finds the sessions natively as well: a pool for a run without the
    ledger forks its workers from a server that never set numba up."""
    from baccarat.parallel import generate_dataset

    generate_dataset(tmp_path / "coups", shoes=30, seed=8, workers=1)
    specs = ["flat", "streak:n=2 | martingale | stop:win=50,loss=200,per=shoe"]
    here = sessions_of(coups=tmp_path / "coups", strategies=specs, session_shoes=2,
                       out=tmp_path / "here")
    assert native.refused == {}
    script = textwrap.dedent(f"""
        import json, sys
        from baccarat.backtest import read_run_table
        from baccarat import Run, Session, backtest
        result = backtest({str(tmp_path / "coups")!r}, {specs!r},
                          session=Session(session_shoes=2),
                          run=Run(ledger=False, out={str(tmp_path / "there")!r}))
        rows = read_run_table(result.folder, "sessions").to_pydict()
        print(json.dumps({{"numba": "numba" in sys.modules, "net": rows["net"]}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    there = json.loads(done.stdout)
    assert there == {"numba": False, "net": here["net"]}


def test_native_code_gives_numbas_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    kwargs = {"strategies": ["martingale:max_doublings=4", "fibonacci", "paroli:side=player"],
              "shoes": 45, "seed": 12, "session_shoes": 2, "stop_loss": 150.0}
    with_native = sessions_of(out=tmp_path / "native", **kwargs)
    monkeypatch.setenv(native.SWITCH, "0")
    with_numba = sessions_of(out=tmp_path / "numba", **kwargs)
    assert with_native == with_numba


def test_native_coup_classes_are_numbas(monkeypatch: pytest.MonkeyPatch):
    """Every class of coup (naturals, third cards, pairs, a Banker 6; cards missing,
    totals missing) comes out the same from the native kernel as from numba's."""
    from baccarat.bets import classify_coups
    from baccarat.deal import generate_coups
    from baccarat.rules import TableRules

    coups = generate_coups(TableRules(), 5, np.arange(20, dtype=np.int64))
    cards = coups.cards.copy()
    cards[::7] = -1  # a sheet of outcomes and totals only, on every 7th coup
    totals = coups.player_total.copy()
    totals[::11] = -1  # and no totals on every 11th
    mixed = dataclasses.replace(coups, cards=cards, player_total=totals)
    with_native = classify_coups(mixed)
    monkeypatch.setenv(native.SWITCH, "0")
    with_numba = classify_coups(mixed)
    assert with_native.dtype == np.int16 and len(np.unique(with_native)) > 10
    assert np.array_equal(with_native, with_numba)


def make_module(folder: Path, name: str, source: str) -> ModuleType:
    """Import ``source`` as module ``name`` from a file in ``folder``."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


KERNELS = """
    import numpy as np
    from baccarat.jit import njit

    STEP = {step}

    @njit
    def helper(x):
        return x * {factor}

    @njit(native=True)
    def total(values, out):
        acc = 0.0
        for i in range(values.shape[0]):
            out[i] = helper(values[i]) + STEP
            acc += out[i]
        return acc

    @njit(native=True)
    def fresh(n):
        return np.zeros(n).sum()
"""


def digest_of(folder: Path, name: str, **values: float) -> str:
    module = make_module(folder, name, KERNELS.format(**values))
    return native._digest(module.total.py_func, ("<f8:1", "<f8:1"), "machine")


def test_the_built_file_is_named_by_every_source_and_constant_the_code_reads(tmp_path):
    base = digest_of(tmp_path, "kernels_a", step=1.0, factor=2.0)
    assert digest_of(tmp_path, "kernels_a", step=1.0, factor=2.0) == base
    assert digest_of(tmp_path, "kernels_a", step=1.0, factor=3.0) != base  # the callee
    assert digest_of(tmp_path, "kernels_a", step=1.5, factor=2.0) != base  # a constant
    module = make_module(tmp_path, "kernels_a", KERNELS.format(step=1.0, factor=2.0))
    func = module.total.py_func
    assert native._digest(func, ("<f8:1", "<f8:1"), "other machine") != base
    assert native._digest(func, ("<f4:1", "<f8:1"), "machine") != base  # argument types


def test_native_kernels_match_numba_and_a_damaged_file_is_built_again(tmp_path):
    module = make_module(tmp_path, "kernels_b", KERNELS.format(step=0.5, factor=3.0))
    values = np.linspace(0.0, 1.0, 7)
    out = np.empty(7)
    expected = float((values * 3.0 + 0.5).sum())  # the same additions in the same order
    assert module.total(values, out) == expected
    assert out.tolist() == (values * 3.0 + 0.5).tolist()
    built = list((tmp_path / "__pycache__").glob("kernels_b.total.*.native"))
    assert len(built) == 1
    built[0].write_bytes(built[0].read_bytes()[:-40])  # a file cut short
    module = make_module(tmp_path, "kernels_b", KERNELS.format(step=0.5, factor=3.0))
    assert module.total(values, out) == expected
    assert native._read(built[0]) is not None  # written whole again


def test_what_cannot_take_the_native_path_runs_through_numba(tmp_path):
    module = make_module(tmp_path, "kernels_c", KERNELS.format(step=0.0, factor=1.0))
    assert module.fresh(5) == 0.0  # it allocates: numba runs it
    assert "allocates" in native.refused["kernels_c.fresh"]
    values = np.arange(12.0)
    out = np.empty(12)
    assert module.total(values[::2], out[:6]) == 30.0  # a strided view: numba runs it


def test_the_fused_kernels_allocate_nothing():
    """They take the native path (a new allocation in them would silently cost a fresh
    process numba's start-up again)."""
    backtest(None, ["martingale"], shoes=6, seed=1, run=Run(ledger=False))
    for kernel in (_deal_classes, play_systems):
        assert f"{kernel.__module__}.{kernel.__qualname__}" not in native.refused
        assert kernel._native


def test_ctrl_c_while_a_kernel_is_built_or_loaded_comes_after_it():
    """numba and llvmlite call back into Python while they build or load machine code; a
    KeyboardInterrupt raised in such a callback is lost ("Exception ignored"), so Ctrl-C is
    held back while a kernel is compiled or loaded and raised once it is in place."""
    import os
    import signal
    import time

    from baccarat.jit import interrupts_held

    done = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # Python runs its signal handler here: it must only note it
            done.append(True)
    assert done == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_while_numba_sets_up_its_target_comes_after_it(monkeypatch):
    """Setting numba's CPU target up compiles its helpers (llvmlite calling back into
    Python): a Ctrl-C then was printed as "Exception ignored" and lost (`baccarat warm`
    interrupted half a second in, under load). It is held back and raised once set up."""
    import os
    import signal
    import time

    from baccarat.jit import prepare_numba
    from numba.core.registry import cpu_target

    refresh = type(cpu_target.target_context).refresh
    done = []

    def interrupted_refresh(self):  # the Ctrl-C lands while the target is set up
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        refresh(self)
        done.append(True)

    monkeypatch.setattr(type(cpu_target.target_context), "refresh", interrupted_refresh)
    with pytest.raises(KeyboardInterrupt):
        prepare_numba()
    assert done == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
