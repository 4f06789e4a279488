"""The Python face of the package, for scripts and notebooks.

``from baccarat import backtest, search, generate, import_files, compare, report, odds,
Session, Run``.
A backtest reads as three groups, as a reader sees them: the dataset, the session rules
(:class:`Session`, which is ``baccarat.replay.SessionPolicy`` itself, so a session rule added
there is here too) and how it runs (:class:`Run`); the table rules are ``rules=``::

    result = backtest(generate(2000, seed=7), ["flat", "martingale"],
                      session=Session(bankroll=500, stop_loss=200), run=Run(workers=2))

The command line keeps its flags; both end in ``baccarat.backtest.backtest``. Errors raised
here name the Python argument (``force=True``), not the command line's flag (``--force``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BaccaratError
from .replay import SessionPolicy

if TYPE_CHECKING:
    from .backtest import BacktestResult
    from .coups import Coups
    from .rules import TableRules
    from .search.result import SearchResult
    from .strategies.base import Strategy

#: The session rules of a backtest: ``baccarat.replay.SessionPolicy`` made public.
Session = SessionPolicy


@dataclass(frozen=True)
class Run:
    """How a backtest runs (never what it computes: the results are the same either way).

    ``workers``: processes (1: this one; None: every core for a big run); ``scheduler``: a
    Dask cluster's address instead; ``out``: the run folder to write (None: a temporary
    one, ``result.save(path)`` keeps it); ``force``: replace an ``out`` this project
    wrote; ``resume``: finish an interrupted run into ``out``; ``ledger``: keep every bet
    (False: sessions and summary only, faster); ``chunk_shoes``: shoes per chunk;
    ``expected``: "auto" or "exact" pricing of each coup's expected net; ``progress``: a
    progress bar (in a notebook too), or a callable ``progress(coups, sessions)``.
    """

    workers: int | None = 1
    out: str | Path | None = None
    force: bool = False
    resume: bool = False
    ledger: bool = True
    chunk_shoes: int | None = None
    scheduler: str | None = None
    expected: str = "auto"
    progress: bool | Callable[[int, int], None] = False


_SESSION_FIELDS = {f.name for f in fields(SessionPolicy)}
_RUN_FIELDS = {f.name for f in fields(Run)}
#: Keywords of ``baccarat.backtest.backtest`` passed through as they are.
_PASSED = {"command", "on_start", "rule_sets", "backend_options", "shoes", "seed", "unchecked"}


def backtest(dataset: Coups | str | Path | None = None,
             strategies: Sequence[str | Strategy] = ("flat",), *,
             session: SessionPolicy | None = None, rules: TableRules | None = None,
             run: Run | None = None, **keywords: Any) -> BacktestResult:
    """Play ``strategies`` (SPEC strings like ``"martingale:max_doublings=5"``, or
    instances) over ``dataset`` and return a :class:`~baccarat.backtest.BacktestResult`.

    ``dataset``: a ``Coups`` table (``generate(...)``, ``import_files(...)``), a coups
    Parquet dataset, or any file ``baccarat import`` reads (imported in memory); or
    ``shoes=N, seed=S`` to deal them. ``session``: the session rules (:class:`Session`:
    bankroll, stop loss, win goal, ...); ``rules``: the table (``TableRules``); ``run``:
    how it runs (:class:`Run`). The keywords of earlier versions (``bankroll=``,
    ``workers=``, ``out=``, ``coups=``, ...) still work and go into their group.
    """
    from .backtest import backtest as play

    if "coups" in keywords:
        if dataset is not None:
            raise BaccaratError("give the dataset once: dataset or coups=, not both")
        dataset = keywords.pop("coups")
    policy, how = _grouped("backtest", session, run, keywords, _RUN_FIELDS, _PASSED)
    options = {f.name: getattr(how, f.name) for f in fields(Run) if f.name != "progress"}
    with python_words(), _progress(how.progress, policy.session_shoes) as (on_start, progress):
        if on_start is not None and "on_start" not in keywords:
            keywords["on_start"] = on_start
        return play(dataset, strategies, rules=rules, session=policy, progress=progress,
                    **options, **keywords)


def _grouped(name: str, session: SessionPolicy | None, run: Run | None,
             keywords: dict[str, Any], run_fields: set[str],
             passed: set[str] | None = None) -> tuple[SessionPolicy, Run]:
    """The session rules and how ``name()`` runs: the groups given, with the keywords of
    earlier versions (``bankroll=``, ``workers=``) put into their group and taken out of
    ``keywords``; any other keyword is a TypeError naming where each belongs."""
    unknown = set(keywords) - _SESSION_FIELDS - run_fields - (passed or set())
    if unknown:
        raise TypeError(f"{name}() got unexpected keyword argument(s) {sorted(unknown)}; "
                        f"session rules go in Session({', '.join(sorted(_SESSION_FIELDS))}), "
                        f"how it runs in Run({', '.join(sorted(run_fields))})")
    policy = replace(session or SessionPolicy(), **{
        k: keywords.pop(k) for k in list(keywords) if k in _SESSION_FIELDS})
    how = replace(run or Run(), **{k: keywords.pop(k) for k in list(keywords)
                                   if k in run_fields})
    return policy, how


def generate(shoes: int, seed: int = 0, rules: TableRules | None = None, *,
             out: str | Path | None = None, force: bool = False,
             workers: int | None = 1) -> Coups:
    """``shoes`` shoes shuffled from ``seed`` and dealt by the drawing rules, as a coups
    table in memory (shoe *i* is the same whatever else is asked). With ``out`` they are
    also written there as a coups Parquet dataset, as ``baccarat generate`` writes it."""
    from .deal import generate_coups
    from .io.parquet import read_coups
    from .parallel import generate_dataset
    from .rules import TableRules

    rules = rules or TableRules()
    with python_words():
        if out is not None:
            generate_dataset(out, shoes=shoes, seed=seed, rules=rules, force=force,
                             workers=workers)
            return read_coups(out).coups
        import numpy as np

        if shoes < 1:
            raise BaccaratError(f"shoes must be at least 1, got {shoes}")
        coups = generate_coups(rules, seed, np.arange(shoes, dtype=np.int64))
        coups.decks = rules.decks
        return coups


def report(runs: Any, out: str | Path = "report.html", *, force: bool = False) -> Path:
    """Write the self-contained HTML report of ``runs`` (results, run folders, or a mapping
    of labels to either) to ``out``; returns its path."""
    from .report.html import write_report

    with python_words():
        return write_report(runs, out, force=force)


def import_files(paths: str | Path | Sequence[str | Path], **options: Any) -> Coups:
    """Recorded files (any shape ``baccarat import`` reads) as one checked coups table;
    ``options`` as ``baccarat.io.importers.import_files`` takes them (``keep_invalid=True``,
    ``rules=``, ``format=``)."""
    from .io.importers import import_files as read

    with python_words():
        return read([paths] if isinstance(paths, str | Path) else list(paths), **options)


def compare(runs: Any, sort: str | None = None, **options: Any) -> Any:
    """The comparison table of ``runs`` (results, run folders, or a mapping of labels to
    either): every summary metric, and each configuration minus the baseline, paired
    session by session where they played the same shoes. In a notebook it shows its
    verdict table and the mean bankroll by coup of each configuration."""
    from .comparison_view import Comparison
    from .report.compare import compare as table

    with python_words():
        return Comparison.of(table(runs, sort, **options), runs)


# -- errors in Python's words ----------------------------------------------------------------

_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)(?:[ =](-?[\w.:/]+))?")
_FLAGS_WITHOUT_VALUE = {"force", "resume", "keep-invalid", "skip-invalid-shoes", "debug",
                        "quiet", "no-table", "json", "dry-run", "ascending"}
_RENAMED = {"coups": "dataset", "chunk": "chunk_shoes", "ledger": "ledger"}
#: Words that follow a flag in a message without being its value ("--workers must be ...").
_NOT_VALUES = {"a", "an", "and", "applies", "are", "can", "cannot", "chains", "given", "has",
               "is", "keeps", "must", "need", "needs", "of", "only", "or", "picks", "sets",
               "takes", "the", "to", "with"}


#: What a search takes of ``Run`` (it plays its runs without a ledger, in chunks it sizes).
_SEARCH_RUN = ("workers", "out", "force", "progress")


def search(dataset: Coups | str | Path, strategies: Sequence[str], *,
           metric: str | None = None, holdout: float | None = None,
           folds: int | None = None, walk_forward: bool = False,
           sample: int | None = None, seed: int = 0, null: int = 0,
           null_seed: int | None = None, reps: int = 1000,
           session: SessionPolicy | None = None, rules: TableRules | None = None,
           run: Run | None = None, **keywords: Any) -> SearchResult:
    """Search the configurations ``strategies`` stand for (SPECs with lists and ranges,
    ``"streak:n=1..8"``) over ``dataset`` without fooling yourself, as ``baccarat search``
    does; returns a :class:`~baccarat.search.result.SearchResult` (``.sentence``, ``.table``
    one row per configuration, ``.document``, ``.null``).

    ``metric``: what "best" means (default: realized edge minus expected edge);
    ``holdout``: the share of the sessions held back to check the choice on (default
    0.5), or ``folds=K`` (``walk_forward=True``: chosen on the shoes before each fold);
    ``sample=K, seed=S``: K configurations drawn from a space too big to play whole;
    ``null=N``: the same search over N fair datasets of the same shape (what chance
    gives); ``reps``: bootstrap samples of the step-down and the SPA. ``session`` and
    ``rules`` as ``backtest`` takes them; of ``run``: ``workers``, ``out`` (the search
    folder; None: a temporary one), ``force`` and ``progress``.
    """
    from .search.run import search as play

    policy, how = _grouped("search", session, run, keywords, set(_SEARCH_RUN))
    unused = [f"{f.name}={getattr(how, f.name)!r}" for f in fields(Run)
              if f.name not in _SEARCH_RUN and getattr(how, f.name) != f.default]
    if unused:
        raise BaccaratError(f"search() sizes and plays its own runs (no ledger, no resume): "
                            f"Run({', '.join(unused)}) is not for it; it takes "
                            f"Run({', '.join(_SEARCH_RUN)})")
    with python_words(), _progress(how.progress, policy.session_shoes) as (_, advance):
        return play(dataset, strategies, metric=metric, holdout=holdout, folds=folds,
                    walk_forward=walk_forward, sample=sample, seed=seed, null=null,
                    null_seed=null_seed, reps=reps, rules=rules, session=policy,
                    out=how.out, force=how.force, workers=how.workers,
                    progress=None if advance is None else
                    (lambda stage, sessions, coups: advance(coups, sessions)))


def in_python_words(message: str) -> str:
    """A message written for the command line, with each ``--flag value`` as the Python
    argument that means it (``--force`` -> ``force=True``, ``--stop-loss -100`` ->
    ``stop_loss=-100``)."""

    def word(match: re.Match[str]) -> str:
        flag, value = match.group(1), match.group(2)
        name = _RENAMED.get(flag, flag.replace("-", "_"))
        if flag in _FLAGS_WITHOUT_VALUE:
            return f"{name}=True" + (f" {value}" if value else "")
        if value is None:
            return name
        if value.lower() in _NOT_VALUES:  # the message goes on: the flag has no value here
            return f"{name} {value}"
        return f"{name}={value}"

    return _FLAG.sub(word, message)


@contextmanager
def python_words() -> Iterator[None]:
    """Errors raised inside say the Python argument, not the command line's flag."""
    try:
        yield
    except BaccaratError as error:
        error.args = (in_python_words(str(error)), *error.args[1:])
        raise


# -- progress in a terminal or a notebook ----------------------------------------------------

@contextmanager
def _progress(wanted: bool | Callable[[int, int], None],
              session_shoes: int) -> Iterator[tuple[Any, Any]]:
    """(on_start, progress) for ``baccarat.backtest.backtest``."""
    if callable(wanted) or not wanted:
        yield None, (wanted or None)
        return
    from .progress import session_progress

    with session_progress("backtest", session_shoes) as (on_start, advance):
        yield on_start, advance
