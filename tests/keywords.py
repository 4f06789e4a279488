"""One backtest from flat keywords, for tests whose helpers pass settings through.

``backtest_with(shoes=60, seed=3, bankroll=500, workers=2)`` sorts each keyword into the
face's groups (the session rules into ``Session``, how it runs into ``Run``) and calls
``baccarat.backtest``; a keyword of the job itself (``unchecked``, ``command``...) plays
the ``BacktestJob`` directly.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from baccarat import Run, Session, backtest
from baccarat.backtest import BacktestResult, play
from baccarat.job import BacktestJob

_SESSION = {f.name for f in fields(Session)}
_RUN = {f.name for f in fields(Run)}
_JOB = {f.name for f in fields(BacktestJob)} - {"session", "run"}
_FACE = {"dataset", "strategies", "shoes", "seed", "rules"}


def backtest_with(dataset: Any = None, strategies: Any = ("flat",), **keywords: Any
                  ) -> BacktestResult:
    """``baccarat.backtest`` with its settings given as flat keywords."""
    if "coups" in keywords:
        dataset = keywords.pop("coups")
    unknown = set(keywords) - _SESSION - _RUN - _JOB - {"session"}
    if unknown:
        raise TypeError(f"unknown keywords {sorted(unknown)}")
    session = keywords.pop("session", None) or Session(
        **{k: keywords.pop(k) for k in list(keywords) if k in _SESSION})
    run = Run(**{k: keywords.pop(k) for k in list(keywords) if k in _RUN})
    if set(keywords) - _FACE:
        return play(BacktestJob(dataset, strategies, session=session, run=run, **keywords))
    return backtest(dataset, strategies, session=session, run=run, **keywords)
