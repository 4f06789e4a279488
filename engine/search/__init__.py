"""Searching without fooling yourself: many configurations over the same shoes.

:func:`search` is the entry point (``baccarat search`` on the command line). The space of
configurations (:mod:`.space`), what "best" means (:mod:`.metric`), how the shoes are
split to choose and to check (:mod:`.splits`), the sessions as matrices
(:mod:`.sessions`), the p-values counting every try (:mod:`.adjust`), the best of N on
fair shoes (:mod:`.null`) and the stored result (:mod:`.result`) each have a module.
"""

from ..lazy import lazy_exports

__getattr__ = lazy_exports(__name__, {
    "search": ".run", "SearchResult": ".result", "Space": ".space",
    "parse_metric": ".metric", "family_tests": ".adjust",
})

__all__ = ["SearchResult", "Space", "family_tests", "parse_metric", "search"]
