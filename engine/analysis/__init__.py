"""Are these shoes random? Statistics of a coups dataset against fairly shuffled references.

:func:`analyze_coups` is the entry point (``baccarat analyze`` on the command line);
:mod:`.statistics` defines the family, :mod:`.reference` deals the fair datasets,
:mod:`.significance` turns them into p-values, and :mod:`.planted` makes datasets with known
departures from a fair shuffle, to check that the analysis finds them.
"""

from .analyze import DEFAULT_REFERENCE, LEVEL, Analysis, AnalysisError, analyze_coups

__all__ = ["DEFAULT_REFERENCE", "LEVEL", "Analysis", "AnalysisError", "analyze_coups"]
