"""The Python face of the package, for scripts and notebooks.

``from baccarat import backtest, search, risk, generate, import_files, compare, report,
odds, roads, analyze, Session, Run, TableRules``. Each job has one signature: what it
plays (a dataset and SPECs), the session rules (:class:`Session`, which is
``baccarat.replay.SessionPolicy`` itself, so a session rule added there is here too),
the table rules (``rules=``) and how it runs (:class:`Run`)::

    result = backtest(generate(2000, seed=7), ["flat", "martingale"],
                      session=Session(bankroll=500, stop_loss=200), run=Run(workers=2))

Errors name the Python parameter (``bankroll``, ``force=True``); the command line shows
the same errors with its flags (``baccarat.cli.common.FLAGS``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BaccaratError
from .job import Run
from .replay import SessionPolicy
from .risk.limits import DEFAULT_TIME_LIMIT

if TYPE_CHECKING:
    import pandas as pd

    from .analysis.analyze import Analysis
    from .backtest import BacktestResult
    from .comparison_view import Comparison
    from .coups import Coups
    from .roads import Roads
    from .rules import TableRules
    from .search.result import SearchResult
    from .strategies.base import Strategy

#: The session rules of a backtest: ``baccarat.replay.SessionPolicy`` made public.
Session = SessionPolicy


def backtest(dataset: Coups | str | Path | None = None,
             strategies: Sequence[str | Strategy] = ("flat",), *,
             shoes: int | None = None, seed: int | None = None,
             session: SessionPolicy | None = None, rules: TableRules | None = None,
             run: Run | None = None) -> BacktestResult:
    """Play ``strategies`` (SPEC strings like ``"martingale:max_doublings=5"``, or
    instances) over ``dataset`` and return a :class:`~baccarat.backtest.BacktestResult`.

    ``dataset``: a ``Coups`` table (``generate(...)``, ``import_files(...)``), a coups
    Parquet dataset, or any file ``baccarat import`` reads (imported in memory); or none,
    with ``shoes=N, seed=S`` to deal them chunk by chunk. ``session``: the session rules
    (:class:`Session`: bankroll, stop loss, win goal, ...); ``rules``: the table
    (``TableRules``); ``run``: how it runs (:class:`Run`).
    """
    from dataclasses import replace

    from .backtest import play
    from .job import BacktestJob

    how = run or Run()
    policy = session or SessionPolicy()
    with _progress(how.progress, policy.session_shoes) as (on_start, progress):
        return play(BacktestJob(dataset, tuple(strategies), shoes=shoes, seed=seed,
                                rules=rules, session=policy, on_start=on_start,
                                run=replace(how, progress=progress or False)))


#: What a search takes of ``Run`` (it plays its runs without a ledger, in chunks it sizes).
_SEARCH_RUN = ("workers", "out", "force", "progress")


def search(dataset: Coups | str | Path, strategies: Sequence[str], *,
           metric: str | None = None, holdout: float | None = None,
           folds: int | None = None, walk_forward: bool = False,
           sample: int | None = None, seed: int = 0, null: int = 0,
           null_seed: int | None = None, reps: int = 1000,
           session: SessionPolicy | None = None, rules: TableRules | None = None,
           run: Run | None = None) -> SearchResult:
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

    policy, how = session or SessionPolicy(), run or Run()
    unused = [f"{f.name}={getattr(how, f.name)!r}" for f in fields(Run)
              if f.name not in _SEARCH_RUN and getattr(how, f.name) != f.default]
    if unused:
        raise BaccaratError(f"search() sizes and plays its own runs (no ledger, no resume): "
                            f"Run({', '.join(unused)}) is not for it; it takes "
                            f"Run({', '.join(_SEARCH_RUN)})")
    with _progress(how.progress, policy.session_shoes) as (_, advance):
        return play(dataset, strategies, metric=metric, holdout=holdout, folds=folds,
                    walk_forward=walk_forward, sample=sample, seed=seed, null=null,
                    null_seed=null_seed, reps=reps, rules=rules, session=policy,
                    out=how.out, force=how.force, workers=how.workers,
                    progress=None if advance is None else
                    (lambda stage, sessions, coups: advance(coups, sessions)))


def risk(strategy: str | Strategy, *, session: SessionPolicy | None = None,
         rules: TableRules | None = None, coups: int | None = None,
         time_limit: float | None = DEFAULT_TIME_LIMIT) -> pd.DataFrame:
    """The exact distribution of one configuration's session result, as ``baccarat risk``
    computes it: one row per final net (``net``, ``probability``, ``cdf``,
    ``p_<stop reason>``), the figures in ``frame.attrs`` (``mean_net``, ``risk_of_ruin``,
    ``expected_edge``, ...). Exact for its model: coups independent, each dealt with a
    full shoe's probabilities. ``coups``: sessions of that many coups instead of
    ``session.session_shoes`` shoes. ``time_limit``: the most seconds the exact chain may
    take; past its projection it raises, saying how long it would take (None: no limit).
    """
    from .risk.exact import session_distribution

    return session_distribution(strategy, rules, session, coups, time_limit)


def generate(shoes: int, seed: int = 0, rules: TableRules | None = None, *,
             out: str | Path | None = None, force: bool = False,
             workers: int | None = 1) -> Coups:
    """``shoes`` shoes shuffled from ``seed`` and dealt by the drawing rules, as a coups
    table in memory (shoe *i* is the same whatever else is asked). With ``out`` they are
    also written there as a coups Parquet dataset, as ``baccarat generate`` writes it."""
    import numpy as np

    from .deal import generate_coups
    from .io.parquet import read_coups
    from .parallel import generate_dataset
    from .rules import TableRules

    rules = rules or TableRules()
    if out is not None:
        generate_dataset(out, shoes=shoes, seed=seed, rules=rules, force=force,
                         workers=workers)
        return read_coups(out).coups
    if shoes < 1:
        raise BaccaratError(f"shoes must be at least 1, got {shoes}", params=("shoes",))
    coups = generate_coups(rules, seed, np.arange(shoes, dtype=np.int64))
    coups.decks = rules.decks
    return coups


def import_files(paths: str | Path | Sequence[str | Path], **options: Any) -> Coups:
    """Recorded files (any shape ``baccarat import`` reads) as one checked coups table;
    ``options`` as ``baccarat.io.importers.import_files`` takes them (``keep_invalid=True``,
    ``rules=``, ``format=``)."""
    from .io.importers import import_files as read

    return read([paths] if isinstance(paths, str | Path) else list(paths), **options)


def compare(runs: Any, sort: str | None = None, **options: Any) -> Comparison:
    """The comparison table of ``runs`` (results, run folders, or a mapping of labels to
    either): every summary metric, and each configuration minus the baseline, paired
    session by session where they played the same shoes. In a notebook it shows its
    verdict table and the mean bankroll by coup of each configuration."""
    from .comparison_view import Comparison
    from .report.compare import compare as table

    return Comparison.of(table(runs, sort, **options), runs)


def report(runs: Any, out: str | Path = "report.html", *, force: bool = False) -> Path:
    """Write the self-contained HTML report of ``runs`` (results, run folders, or a mapping
    of labels to either) to ``out``; returns its path. Needs the ``[report]`` extra."""
    from .extras import require

    require("matplotlib", "report()")
    from .report.html import write_report

    return write_report(runs, out, force=force)


def odds(rules: TableRules | None = None, *, remaining: Sequence[int] | None = None,
         paytables: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The exact odds of every bet, by enumerating every coup: one row per bet (the main
    bets the table offers, then every side bet) with its ``house_edge`` (the expected loss
    per unit staked, pushes counted as staked), ``sd`` (of a unit stake's net) and
    ``p_lose``; for a full shoe of ``rules.decks`` decks or the cards left
    (``remaining``: 10 counts by value, 13 by rank or 52 by card). ``paytables``: a side
    bet's paytable by name (``{"lucky6": "macau"}``) or as its events' pays.
    ``frame.attrs["events"]`` holds each bet's paying events and their probabilities."""
    import pandas as pd

    from .odds.side_bets import odds as enumerate_odds

    found = enumerate_odds(remaining, rules=rules, paytables=paytables)
    frame = pd.DataFrame({"bet": list(found),
                          "house_edge": [o.house_edge for o in found.values()],
                          "sd": [o.sd for o in found.values()],
                          "p_lose": [o.lose for o in found.values()]})
    frame.attrs["events"] = {bet: dict(o.probabilities) for bet, o in found.items()}
    return frame


def roads(outcomes: str | Sequence[int]) -> Roads:
    """The bead plate, the big road, the three derived roads and the ask marks of one
    shoe, from its outcomes (``"BPPTB"``, or codes 0 Banker, 1 Player, 2 Tie)."""
    from .roads import all_roads, outcomes_from_labels

    return all_roads(outcomes_from_labels(outcomes) if isinstance(outcomes, str)
                     else outcomes)


def analyze(dataset: Coups | str | Path, rules: TableRules | None = None, *,
            reference: int | None = None, seed: int = 0) -> Analysis:
    """Whether ``dataset``'s shoes look fairly shuffled: every statistic against its
    distribution over ``reference`` fair datasets of the same shape (default: as many as
    ``baccarat analyze`` takes), as ``baccarat analyze`` prints it."""
    from .analysis.analyze import DEFAULT_REFERENCE, analyze_coups
    from .io.inputs import read_dataset

    coups = dataset if not isinstance(dataset, str | Path) else read_dataset(dataset)[0]
    return analyze_coups(coups, rules, n_reference=reference or DEFAULT_REFERENCE, seed=seed)


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
