"""What a backtest is asked, as one frozen object: the dataset and the systems, the rules
of the table and of a session, and how it runs.

``baccarat.backtest()`` (the Python face) and ``baccarat backtest`` (the command line)
both build a :class:`BacktestJob` and hand it to ``baccarat.backtest.play``; nothing
beneath takes the two dozen settings one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .replay import SessionPolicy

if TYPE_CHECKING:
    from .coups import Coups
    from .rules import TableRules
    from .strategies.base import Strategy


@dataclass(frozen=True)
class Run:
    """How a backtest runs (never what it computes: the results are the same either way).

    ``workers``: processes (1: this one; None: every core for a big run); ``scheduler``: a
    Dask cluster's address instead; ``out``: the run folder to write (None: a temporary
    one, ``result.save(path)`` keeps it); ``force``: replace an ``out`` this project
    wrote; ``resume``: finish an interrupted run into ``out``; ``ledger``: keep every bet
    (False: sessions and summary only, faster); ``chunk_shoes``: shoes per chunk;
    ``expected``: "auto" or "exact" pricing of each coup's expected net; ``engine``: which
    path plays the systems: "compiled" (the compiled kernel; refused for a system it cannot
    play, naming it), "replay" (the plain replay, every system) or "auto" (the kernel for
    every system it plays, the replay for the others); the ledgers are the same, and
    ``run.json`` records the path of each configuration; ``progress``: a progress bar (in a
    notebook too), or a callable ``progress(coups, sessions)``.
    """

    workers: int | None = 1
    out: str | Path | None = None
    force: bool = False
    resume: bool = False
    ledger: bool = True
    chunk_shoes: int | None = None
    scheduler: str | None = None
    expected: str = "auto"
    engine: str = "auto"
    progress: bool | Callable[[int, int], None] = False


@dataclass(frozen=True)
class BacktestJob:
    """One backtest, whole.

    ``dataset``: a coups table, a coups Parquet dataset or a file ``baccarat import``
    reads; or none, with ``shoes`` dealt from ``seed``. ``strategies``: SPECs or
    instances. ``rules``: the table; ``rule_sets``: several tables, every strategy played
    under each over the same shoes. ``session``: the session rules; ``run``: how it runs.
    ``command``: the command line, recorded in ``run.json``; ``unchecked``: skip the
    quick check of plugins; ``backend_options``: the Dask timeouts; ``on_start(shoes)``:
    called once the number of shoes is known (a progress bar's total).
    """

    dataset: Coups | str | Path | None = None
    strategies: Sequence[str | Strategy] = ("flat",)
    shoes: int | None = None
    seed: int | None = None
    rules: TableRules | None = None
    rule_sets: Sequence[TableRules] | None = None
    session: SessionPolicy = field(default_factory=SessionPolicy)
    run: Run = field(default_factory=Run)
    command: str | None = None
    unchecked: bool = False
    backend_options: Mapping[str, Any] | None = None
    on_start: Callable[[int], None] | None = None
