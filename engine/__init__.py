"""baccarat-backtest: the game engine and the backtesting machinery.

The Python face, for scripts and notebooks (each name is imported on first use, so
``import engine`` stays light)::

    from . import backtest, search, generate, import_files, compare, report, odds
    from . import Session, Run, TableRules

``backtest(dataset, strategies, session=Session(...), rules=TableRules(...),
run=Run(...))`` returns a result that shows itself in a notebook (the verdict table and
a bankroll figure), ``.plot()`` draws its bankroll fan and its ruin and bust curves, and
``.bankroll_curve()`` gives the bankroll by coup. ``search(dataset, specs, null=200)``
plays many configurations over the same shoes and says what the best of them is worth
once every try is counted and what the best of as many gives on fair shoes. See
``baccarat.api``.
"""

from typing import TYPE_CHECKING

from .lazy import lazy_exports

__version__ = "0.1.0"

if TYPE_CHECKING:
    from . import odds
    from .api import Run, Session, backtest, compare, generate, import_files, report, search
    from .backtest import BacktestResult
    from .coups import Coups
    from .rules import TableRules

__all__ = ["BacktestResult", "Coups", "Run", "Session", "TableRules", "backtest", "compare",
           "generate", "import_files", "odds", "report", "search"]

__getattr__ = lazy_exports(__name__, {
    "backtest": ".api", "generate": ".api", "import_files": ".api", "compare": ".api",
    "report": ".api", "search": ".api", "Session": ".api", "Run": ".api",
    "BacktestResult": ".backtest", "Coups": ".coups", "TableRules": ".rules",
}, keep=("backtest", "report", "search"), also=("odds",))
