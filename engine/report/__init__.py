"""Reports from stored runs: the comparison table and the self-contained HTML report.

Reports read run folders (or results in memory) and never re-run anything. The names
below are imported on first use (see ``baccarat.lazy``), so ``baccarat.report.demo`` and the
CLI's help do not load matplotlib.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .compare import compare, differences
    from .html import render_report, write_report
    from .runs import Run, RunFolderError, load_run, load_runs

__all__ = ["Run", "RunFolderError", "compare", "differences", "load_run", "load_runs",
           "render_report", "write_report"]

__getattr__ = lazy_exports(__name__, {
    "compare": ".compare", "differences": ".compare", "render_report": ".html",
    "write_report": ".html", "Run": ".runs", "RunFolderError": ".runs", "load_run": ".runs",
    "load_runs": ".runs",
})
