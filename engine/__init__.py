"""baccarat-backtest: backtest baccarat betting systems exactly, and honestly.

The face, for scripts and notebooks (each name is imported on first use, so
``import baccarat`` stays light)::

    from baccarat import backtest, search, risk, generate, Session, Run

    result = backtest(generate(2000, seed=7), ["flat", "martingale"],
                      session=Session(bankroll=500), run=Run(workers=2))

Every job has one signature: what it plays, ``session=`` (:class:`Session`), ``rules=``
(:class:`TableRules`) and ``run=`` (:class:`Run`). A system is written with the plugin
kit, ``baccarat.strategies`` (also exported here). Everything not in ``__all__`` is
private: it may change without notice.
"""

from typing import TYPE_CHECKING

from .lazy import lazy_exports

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .analysis.analyze import Analysis
    from .api import (
        Session,
        analyze,
        backtest,
        compare,
        generate,
        import_files,
        odds,
        report,
        risk,
        roads,
        search,
    )
    from .backtest import BacktestResult
    from .comparison_view import Comparison
    from .coups import Coups
    from .errors import BaccaratError
    from .job import Run
    from .roads import Roads
    from .rules import TableRules
    from .search.result import SearchResult
    from .strategies import (
        Selection,
        SessionView,
        SimpleSelection,
        SimpleStaking,
        SimpleStrategy,
        Staking,
        Strategy,
    )

__all__ = ["Analysis", "BacktestResult", "BaccaratError", "Comparison", "Coups", "Roads",
           "Run", "SearchResult", "Selection", "Session", "SessionView", "SimpleSelection",
           "SimpleStaking", "SimpleStrategy", "Staking", "Strategy", "TableRules", "analyze",
           "backtest", "compare", "generate", "import_files", "odds", "report", "risk",
           "roads", "search"]

__getattr__ = lazy_exports(__name__, {
    **dict.fromkeys(("analyze", "backtest", "compare", "generate", "import_files", "odds",
                     "report", "risk", "roads", "search", "Session"), ".api"),
    **dict.fromkeys(("Selection", "SessionView", "SimpleSelection", "SimpleStaking",
                     "SimpleStrategy", "Staking", "Strategy"), ".strategies"),
    "Analysis": ".analysis.analyze", "BacktestResult": ".backtest",
    "BaccaratError": ".errors", "Comparison": ".comparison_view", "Coups": ".coups",
    "Roads": ".roads", "Run": ".job", "SearchResult": ".search.result",
    "TableRules": ".rules",
}, keep=("analyze", "backtest", "odds", "report", "risk", "roads", "search"))
