"""Compiling the engine's kernels before they are needed: ``baccarat warm`` and the demo.

numba compiles a kernel the first time it runs and keeps the machine code in its cache
(``__pycache__`` beside the sources, ``cache=True``), so only the first run of a fresh
install pays: about 8 CPU-seconds for the kernels the demo needs. Two ways to hide it:

- :func:`warm` (``baccarat warm``, a step of the install) compiles every kernel ahead of
  time. It finds the kernels itself (:func:`kernels`: every :class:`baccarat.jit.Kernel`
  defined by the modules of ``engine`` and ``strategies``), so a new kernel is covered
  without being listed here: the ones with explicit signatures are compiled as they are; the
  others are compiled for the types the engine really calls them with, by running the
  :data:`EXERCISES` (tiny versions of what the commands do) on the cores in parallel.
  Whatever is left uncompiled is named in its report; :data:`FIRST_USE` names the
  kernels no command runs, left out on purpose. It writes the modules' Python bytecode
  too (:func:`compile_bytecode`).
- :func:`start` / :func:`finish`: on a fresh install the demo compiles the replay's
  kernels in a second process (``python -m baccarat.warm SPEC...``) while it compiles the
  dealers and deals itself; the replay then loads them from the cache.

Nothing is shared between the processes but numba's cache (numba writes its files
atomically), and each caller waits for its helpers, so no process outlives the command.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .jit import DEFINED, Kernel

#: The packages whose modules :func:`kernels` searches.
PACKAGES = ("baccarat",)


#: Modules a worker pool's fork server imports for what importing them does (numba set
#: up, a quiet excepthook), not for kernels: left out of the search.
SERVER_ONLY = ("baccarat.numba_preload", "baccarat.worker_start")


def kernels(packages: Iterable[str] = PACKAGES) -> list[Kernel]:
    """Every kernel defined in the modules of ``packages`` (all of them imported first)."""
    for package in packages:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{root.__name__}."):
            if not info.name.endswith("__main__") and info.name not in SERVER_ONLY:
                importlib.import_module(info.name)
    inside = tuple(packages)
    found = {id(k): k for k in DEFINED if k.__module__.split(".")[0] in inside}
    return sorted(found.values(), key=lambda k: (k.__module__, k.__qualname__))


def inlined(kernel: Kernel) -> bool:
    """Whether ``kernel`` is compiled into its callers (``inline="always"``), never alone."""
    return kernel._options.get("inline") == "always"


def cached(kernel: Kernel, native: frozenset[str] = frozenset()) -> bool:
    """Whether numba's cache holds machine code for ``kernel`` valid for its source now, or
    ``kernel`` is among ``native``: kernels whose code a native kernel holds, built for the
    present sources (``baccarat.native.covered``: a first run loads it without numba)."""
    if name_of(kernel) in native:
        return True
    from numba.core.caching import FunctionCache

    try:
        return bool(FunctionCache(kernel.py_func)._cache_file._load_index())
    except Exception:  # pragma: no cover - an unreadable cache is an empty one
        return False


def name_of(kernel: Kernel) -> str:
    return f"{kernel.__module__}.{kernel.__qualname__}"


# The exercises: each a tiny version of what a command does, compiling the kernels on
# its way for the types the commands use. Those of one phase run at the same time in
# separate processes; a phase starts once the one before it has filled the cache.

_OUTCOME_SHOES = ["BPPBTBBPBPPPBBTPBPBBPPPB" * 3, "PBBTPPBPBBBPPTBPBPPBBPBP" * 3]


def _builtin_strategies(outcomes_only: bool = False) -> list[str]:
    """The built-in strategies; ``outcomes_only``: those a dataset of outcomes can play
    (not seeing the cards, staking no side bet, which is settled from the cards)."""
    from .strategies.registry import available_strategies

    names = [name for name, cls in available_strategies().items()
             if cls.__module__ == "baccarat.strategies.presets" and not (outcomes_only and (
                 cls.needs_cards or name == "side_bet"))]
    # A system with session rules of its own: the stop rules beyond the first wave's.
    return [*names, "streak | martingale | stop:trailing=100,losses=6,per=shoe"]


def _deal() -> None:
    """``generate``, ``backtest --shoes``, the demo: shuffle and deal (the uniform model)."""
    import numpy as np

    from .deal import generate_coups
    from .rules import TableRules

    generate_coups(TableRules(), 0, np.arange(2))


def _replay() -> None:
    """``backtest`` over recorded outcomes: the replay's kernels, without a dealer."""
    from .backtest import play
    from .coups import coups_from_outcomes
    from .job import BacktestJob, Run

    with tempfile.TemporaryDirectory() as tmp:
        play(BacktestJob(coups_from_outcomes(_OUTCOME_SHOES),
                         _builtin_strategies(outcomes_only=True), run=Run(out=f"{tmp}/run")))


def _cards() -> None:
    """``backtest`` over generated shoes by every built-in, each coup priced exactly from
    the cards left (the odds' enumeration, the counters, the side bets)."""
    from .backtest import play
    from .job import BacktestJob, Run

    with tempfile.TemporaryDirectory() as tmp:
        play(BacktestJob(None, _builtin_strategies(), shoes=2, seed=0,
                         run=Run(out=f"{tmp}/run", expected="exact")))


def _models() -> None:
    """The other shuffle models, dealing and checking recorded cards (``import``)."""
    import numpy as np

    from .cards import full_deck_codes
    from .deal import deal_one, deal_sequences, generate_coups
    from .io.importers.checks import check_coups
    from .rules import TableRules
    from .shoe import shuffle_into, shuffled_shoes
    from .shuffles import generate_model_coups, parse_shuffle

    rules = TableRules()
    for spec in ("riffle:7", "csm"):
        generate_model_coups(rules, 0, np.arange(2), parse_shuffle(spec))
    # Called only from the models' kernels, which numba may load from its cache without
    # compiling their callees (its cache does not follow a callee's source): compiled here
    # for itself too, for the types those kernels pass it.
    template = full_deck_codes(rules.decks)
    shuffle_into(template, np.empty_like(template), np.uint64(0), np.uint64(0))
    deal_one(shuffled_shoes(rules.decks, 0, np.arange(1))[0, :6])
    coups = generate_coups(rules, 0, np.arange(1))
    deal_sequences([coups.cards.ravel()], rules)
    check_coups(coups.cards, coups.shoe, coups.player_total, coups.banker_total,
                coups.outcome, rules.decks)


def _odds() -> None:
    """The odds' batch enumeration (what the counters and exact pricing call) and the
    reference enumeration."""
    import numpy as np

    from .odds.enumeration import event_probabilities
    from .odds.reference import reference_tallies

    counts = np.array([[4, 1, 1, 1, 1, 1, 1, 1, 1, 1]] * 16, dtype=np.int64)  # not "a few"
    event_probabilities(counts, parallel=False)
    reference_tallies(counts[:1])


def _no_ledger() -> None:
    """``backtest --ledger none`` over generated and recorded shoes (the fused path, for
    the strategies it plays)."""
    from .backtest import play
    from .coups import coups_from_outcomes
    from .job import BacktestJob, Run
    from .rules import TableRules

    recorded = coups_from_outcomes(_OUTCOME_SHOES)
    with tempfile.TemporaryDirectory() as tmp:
        # One strategy at a time: a run goes the fused way only if all its strategies can.
        for k, name in enumerate(_builtin_strategies(outcomes_only=True)):
            play(BacktestJob(None, [name], shoes=2, seed=0,
                             run=Run(out=f"{tmp}/g{k}", ledger=False)))
            play(BacktestJob(recorded, [name], run=Run(out=f"{tmp}/r{k}", ledger=False)))
        # The published counts read the cards seen (card-level shoes, an EZ table).
        play(BacktestJob(None, ["count:method=dragon7 | flat", "count:method=panda8 | flat"],
                         shoes=2, seed=0, rules=TableRules(variant="ez"),
                         run=Run(out=f"{tmp}/counts", ledger=False)))


def _risk() -> None:
    """``baccarat risk``: a short session's exact chain, and risk against the bankroll
    (the backward pass that sizes a bankroll)."""
    from .replay import SessionPolicy
    from .risk.backward import risk_curve
    from .risk.exact import exact_risk
    from .rules import TableRules
    from .strategies.registry import expand_spec

    exact_risk("martingale", TableRules(), SessionPolicy(bankroll=100), 4)
    risk_curve(expand_spec("martingale")[0], TableRules(), SessionPolicy(bankroll=100), 4, 100)


#: Exercise name -> function. The exercises of a phase run at once (as many as there are
#: processes, the longest first); the second phase loads the dealers the first compiled.
EXERCISES: dict[str, Callable[[], None]] = {
    "deal": _deal, "replay": _replay, "models": _models, "odds": _odds,
    "no-ledger": _no_ledger, "cards": _cards, "risk": _risk}
PHASES: tuple[tuple[str, ...], ...] = (("odds", "models", "replay", "deal", "risk"),
                                       ("no-ledger", "cards"))

#: Kernels no command runs, left to their first use, and why (none at present: the
#: enumeration's parallel batches, which were, now run the one-thread kernel on threads).
FIRST_USE: dict[str, str] = {}


@dataclass
class WarmReport:
    """What :func:`warm` did: kernels found, compiled now, already cached, left out."""

    found: list[str] = field(default_factory=list)
    compiled: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    inlined: list[str] = field(default_factory=list)
    first_use: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    processes: int = 1


def _run_phase(names: Sequence[str], processes: int,
               tick: Callable[[], None] = lambda: None) -> list[str]:
    """Run the exercises ``names``, each in a process of its own, ``processes`` at a time
    (one after the other in this process if 1), calling ``tick()`` as they go. Returns a
    line for each that failed."""
    failed = []
    if processes < 2:
        for name in names:
            try:
                EXERCISES[name]()
            except Exception as exc:
                failed.append(f"warming {name!r} failed: {type(exc).__name__}: {exc}")
            tick()
        return failed
    with tempfile.TemporaryDirectory() as tmp:
        pending = list(names)
        running: list[tuple[str, subprocess.Popen[bytes], Path]] = []
        try:
            while pending or running:
                while pending and len(running) < processes:
                    name = pending.pop(0)
                    log = Path(tmp) / f"{name}.log"
                    with log.open("wb") as stderr:
                        running.append((name, subprocess.Popen(
                            [sys.executable, "-m", "baccarat.warm", "--exercise", name],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=stderr), log))
                time.sleep(0.05)
                tick()
                for name, helper, log in [r for r in running if r[1].poll() is not None]:
                    running.remove((name, helper, log))
                    if helper.returncode != 0:
                        last = log.read_text(errors="replace").strip().splitlines()[-1:]
                        failed.append(f"warming {name!r} failed: {' '.join(last)}")
        finally:
            for _, helper, _ in running:
                if helper.poll() is None:
                    helper.kill()
                helper.wait()
    return failed


def compile_bytecode() -> None:
    """Write the bytecode of every module of ``engine`` and ``strategies`` now.

    An editable install leaves the sources uncompiled, and where Python does not write
    bytecode as it imports (``PYTHONDONTWRITEBYTECODE``, a tree it may not write to) every
    process would compile every module it imports again: a few tenths of a second for each
    command. Files already compiled are left alone.
    """
    import compileall

    root = Path(__file__).resolve().parent.parent
    for package in ("engine", "strategies"):  # the folders of baccarat and baccarat.strategies
        compileall.compile_dir(root / package, quiet=1)


def warm(processes: int | None = None,
         progress: Callable[[int, int], None] | None = None) -> WarmReport:
    """Compile every kernel of the engine into numba's cache; see the module docstring.

    ``processes``: how many exercises run at once (default: the cores). Kernels already
    cached are loaded, not compiled again. ``progress(compiled, total)``: how many of the
    ``total`` kernels to compile are in the cache so far, as the exercises go (about
    twice a second, and once at the end).
    """
    started = time.perf_counter()
    processes = max(1, processes or os.cpu_count() or 1)
    compile_bytecode()
    found = kernels()
    native = _native(found)
    before = {name_of(k) for k in found if not inlined(k) and cached(k, native)}
    failed: list[str] = []
    wanted = [k for k in found if not inlined(k) and name_of(k) not in before | FIRST_USE.keys()]
    count = CacheCount(wanted, native, progress)
    if wanted:
        for phase in PHASES:
            failed += _run_phase(phase, processes, count.tick)
    report = WarmReport(found=[name_of(k) for k in found], processes=processes,
                        failed=failed)
    native = count.native = _native(found)  # again: the exercises built the native kernels
    count.tick(force=True)
    for kernel in found:
        name = name_of(kernel)
        if inlined(kernel):
            report.inlined.append(name)
            continue
        if not cached(kernel) and kernel._signatures:
            kernel.compiled()  # explicit signatures: numba compiles them as it decorates
        if name in before:
            report.already.append(name)
        elif cached(kernel, native):
            report.compiled.append(name)
        elif name in FIRST_USE:
            report.first_use.append(name)
        else:
            report.missing.append(name)
    report.seconds = time.perf_counter() - started
    return report


class CacheCount:
    """Tells ``progress(cached, total)`` how many of the ``wanted`` kernels numba's cache
    holds (``tick()``: at most every ``EVERY`` seconds unless forced). The exercises fill
    the cache from other processes; reading its indexes is the one way to see them go."""

    EVERY = 0.5

    def __init__(self, wanted: Sequence[Kernel], native: frozenset[str],
                 progress: Callable[[int, int], None] | None) -> None:
        self.waiting = list(wanted)
        self.total = len(self.waiting)
        self.native = native
        self.progress = progress
        self.last = 0.0

    def tick(self, force: bool = False) -> None:
        now = time.perf_counter()
        if self.progress is None or (not force and now - self.last < self.EVERY):
            return
        self.last = now
        self.waiting = [k for k in self.waiting if not cached(k, self.native)]
        self.progress(self.total - len(self.waiting), self.total)


def _native(found: list[Kernel]) -> frozenset[str]:
    """The kernels whose code the native kernels among ``found`` hold, built now."""
    from .native import covered

    return frozenset(covered(found))


# The demo's helper: the replay's kernels on the second core of a fresh install.

def cold() -> bool:
    """Whether the replay's kernels have never been compiled into numba's cache here."""
    from .replay import _settle_kernel

    return isinstance(_settle_kernel, Kernel) and not cached(_settle_kernel)


def start(specs: Sequence[str]) -> subprocess.Popen[bytes] | None:
    """Start compiling the replay's kernels for ``specs`` in a second process, on a fresh
    install with a second core; else None (nothing to gain)."""
    if (os.cpu_count() or 1) < 2 or not cold():
        return None
    return subprocess.Popen([sys.executable, "-m", "baccarat.warm", *specs],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env={**os.environ, _PARENT: str(os.getpid())})


#: The environment variable naming the command a helper dies with.
_PARENT = "BACCARAT_HELPER_OF"


def finish(helper: subprocess.Popen[bytes] | None, failed: bool = False) -> None:
    """Wait for the helper (stopped first if the caller ``failed``)."""
    if helper is None:
        return
    if failed:
        helper.kill()
    helper.wait()


def _compile(specs: Sequence[str]) -> None:
    from .backtest import play
    from .coups import coups_from_outcomes
    from .job import BacktestJob, Run

    with tempfile.TemporaryDirectory() as tmp:
        play(BacktestJob(coups_from_outcomes(_OUTCOME_SHOES), list(specs),
                         run=Run(out=f"{tmp}/run")))


def _main(argv: Sequence[str]) -> Any:
    if os.environ.get(_PARENT, "").isdigit():  # a command's helper dies with the command
        from .children import die_with

        die_with(int(os.environ[_PARENT]))
    if argv[:1] == ["--exercise"]:
        return EXERCISES[argv[1]]()
    return _compile(argv)


if __name__ == "__main__":
    _main(sys.argv[1:])
