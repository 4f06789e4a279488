"""The built-in selections (when and what to bet); importing this package registers them.

``basic``: always, skip_first, after_ties; ``patterns``: follow, chop, streak, pingpong,
pattern; ``roads``: road; ``counting``: count.
"""

from __future__ import annotations

from . import basic, counting, patterns, roads

__all__ = ["basic", "counting", "patterns", "roads"]
