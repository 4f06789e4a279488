"""Package attributes imported on first use, so importing a light submodule stays light.

A package ``__init__`` that re-exports names from heavy submodules (pyarrow, pandas,
matplotlib) would make every ``import engine.x.light`` pay for them: Python runs the
package ``__init__`` first. ``lazy_exports`` gives the package a module ``__getattr__``
(PEP 562) that imports the submodule holding a name the first time the name is asked for.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str], keep: tuple[str, ...] = (),
                 also: tuple[str, ...] = ()) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: name -> the relative submodule holding it.

    A name may be both an export and a submodule (``baccarat.report.compare``, the function,
    lives in ``engine/report/compare.py``; ``keep`` names more such exports, held in
    other submodules): importing the submodule must not replace the export, so the
    package refuses that one assignment the import system makes. The package's ``dir()``
    lists the exports (and the submodules named in ``also``), so tab completion finds them
    before they are imported.
    """
    module = sys.modules[package]
    _keep_exports_over_submodules(module, where, keep)
    exported = set(where) | set(also)

    def __dir__() -> list[str]:
        return sorted(set(vars(module)) | exported)

    module.__dir__ = __dir__  # type: ignore[method-assign]

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name], package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__


def _keep_exports_over_submodules(module: types.ModuleType, where: Mapping[str, str],
                                  keep: tuple[str, ...] = ()) -> None:
    shadowed = {name for name, source in where.items() if source == f".{name}"} | set(keep)
    if not shadowed:
        return

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            if name in shadowed and isinstance(value, types.ModuleType):
                return
            super().__setattr__(name, value)

    module.__class__ = _Package
