"""Filling numba's cache before a command needs it: ``baccarat warm``.

numba compiles a kernel the first time it runs and keeps the machine code in its own
cache (``__pycache__`` beside the sources, ``cache=True``), so only the first run of a
fresh install pays: about 8 CPU-seconds for the kernels the demo needs. :func:`warm` (a
step of the install) runs the :data:`EXERCISES`, tiny versions of what the commands do,
each in a process of its own, as many at a time as there are cores: every kernel they
call is compiled for the types the commands use, or loaded if numba's cache holds it
already. Nothing is shared between the processes but numba's cache (numba writes its
files atomically), and :func:`warm` waits for every one, so none outlives the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class WarmReport:
    """What :func:`warm` did: kernel specialisations compiled now and loaded from numba's
    cache (as numba's own counters tell, ``Dispatcher.stats``), exercises that failed."""

    exercises: int = 0
    runs: list[str] = field(default_factory=list)  # 'NAME: C compiled, L loaded', each
    compiled: int = 0
    loaded: int = 0
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    processes: int = 1


def kernel_counts() -> tuple[int, int]:
    """(compiled, loaded from the cache): the specialisations of the kernels run in this
    process so far, by numba's own counters."""
    from .jit import DEFINED

    compiled = loaded = 0
    for kernel in DEFINED:
        if kernel.dispatched is not None:
            compiled += sum(kernel.dispatched.stats.cache_misses.values())
            loaded += sum(kernel.dispatched.stats.cache_hits.values())
    return compiled, loaded


def _run_phase(names: Sequence[str], processes: int, report: WarmReport,
               tick: Callable[[], None]) -> None:
    """Run the exercises ``names``, each in a process of its own, ``processes`` at a time,
    adding what they did to ``report`` and calling ``tick()`` as each one ends."""
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
                            [sys.executable, "-m", "baccarat.warm", name],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=stderr), log))
                time.sleep(0.05)
                for name, helper, log in [r for r in running if r[1].poll() is not None]:
                    running.remove((name, helper, log))
                    out = helper.stdout.read() if helper.stdout is not None else b""
                    if helper.returncode != 0:
                        last = log.read_text(errors="replace").strip().splitlines()[-1:]
                        report.failed.append(f"warming {name!r} failed: {' '.join(last)}")
                    else:
                        compiled, loaded = json.loads(out.decode().strip().splitlines()[-1])
                        report.compiled += compiled
                        report.loaded += loaded
                        report.runs.append(f"{name}: {compiled} compiled, {loaded} loaded")
                    report.exercises += 1
                    tick()
        finally:
            for _, helper, _ in running:
                if helper.poll() is None:
                    helper.kill()
                helper.wait()


def warm(processes: int | None = None,
         progress: Callable[[int, int], None] | None = None) -> WarmReport:
    """Run every exercise, ``processes`` at a time (default: the cores), so numba's cache
    holds every kernel the commands run; see the module docstring. ``progress(done,
    total)``: exercises done so far, as each one ends."""
    started = time.perf_counter()
    processes = max(1, processes or os.cpu_count() or 1)
    compile_bytecode()
    report = WarmReport(processes=processes)
    total = sum(len(phase) for phase in PHASES)

    def tick() -> None:
        if progress is not None:
            progress(report.exercises, total)

    tick()
    for phase in PHASES:  # the second phase loads the dealers the first compiled
        _run_phase(phase, processes, report, tick)
    report.seconds = time.perf_counter() - started
    return report


def cache_empty() -> bool:
    """Whether numba's cache beside the package's sources holds no kernel at all (a fresh
    clone): its index files (``*.nbi``, as numba's documentation names them) are absent."""
    return not any(Path(__file__).resolve().parent.parent.rglob("__pycache__/*.nbi"))


if __name__ == "__main__":  # python -m baccarat.warm EXERCISE: one exercise, its counts
    EXERCISES[sys.argv[1]]()
    print(json.dumps(kernel_counts()))
