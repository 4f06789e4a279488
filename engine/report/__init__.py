"""Reports from stored runs: the comparison table and the self-contained HTML report.

Reports read run folders (or results in memory) and never re-run anything.
"""

from .compare import compare, differences
from .html import render_report, write_report
from .runs import Run, RunFolderError, load_run, load_runs

__all__ = ["Run", "RunFolderError", "compare", "differences", "load_run", "load_runs",
           "render_report", "write_report"]
