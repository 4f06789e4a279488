"""The package uses numba, llvmlite, typer, click, rich and ijson through their public faces only:
a minor release of one of them may change its private insides at will.

Read from the sources' syntax trees (``engine/`` and ``strategies/``, the folders of
``baccarat``): no import of a module of those libraries whose dotted name has a part
starting with an underscore; no attribute starting with an underscore read from a name
bound to one of their modules or to anything imported from them; no ``sys.modules``
entry set or deleted for one of their names and no ``sys.excepthook`` replaced.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = {"numba", "llvmlite", "typer", "click", "rich", "ijson"}
SOURCES = sorted([*(ROOT / "engine").rglob("*.py"), *(ROOT / "strategies").rglob("*.py")])


def _theirs(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in LIBRARIES


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
               for part in dotted.split("."))


def problems(source: str, where: str) -> list[str]:
    """Each use of a private inside of LIBRARIES in ``source``, as 'where:line: what'."""
    tree = ast.parse(source)
    bound: set[str] = set()  # names bound to those libraries' modules or what they hold
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _theirs(alias.name):
                    if _private(alias.name):
                        found.append(f"{where}:{node.lineno}: import {alias.name}")
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and _theirs(node.module):
            assert node.module is not None
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                if _private(dotted):
                    found.append(f"{where}:{node.lineno}: from {node.module} import "
                                 f"{alias.name}")
                bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and \
                not node.attr.startswith("__"):
            base = node.value
            while isinstance(base, ast.Attribute | ast.Call | ast.Subscript):
                base = base.func if isinstance(base, ast.Call) else base.value
            if isinstance(base, ast.Name) and base.id in bound:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "sys.modules":
            key = node.slice
            if isinstance(key, ast.Constant) and _theirs(str(key.value)):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.excepthook" and \
                isinstance(node.ctx, ast.Store):
            found.append(f"{where}:{node.lineno}: sys.excepthook replaced")
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "sys.modules.update":
            found.append(f"{where}:{node.lineno}: sys.modules.update")
    return found


def test_the_package_names_no_private_inside_of_those_libraries():
    assert len(SOURCES) > 100
    found = [line for path in SOURCES
             for line in problems(path.read_text(encoding="utf-8"),
                                  str(path.relative_to(ROOT)))]
    assert found == []


@pytest.mark.parametrize("source", [
    "from typer._click import exceptions",
    "import numba.core._caching",
    "from numba.core.caching import FunctionCache\n"
    "FunctionCache(f)._cache_file._load_index()",
    "import numba\nnumba.core.registry.cpu_target._internal",
    "def f(kernel):\n    from llvmlite import binding as llvm\n    return llvm._lib",
    "import sys\nsys.modules['rich.markdown'] = object()",
    "import sys\nsys.excepthook = print",
])
def test_the_check_sees_each_kind_of_use(source):
    """The check above is not blind: each way of reaching inside is caught."""
    assert problems(source, "x.py")


def test_the_check_leaves_the_public_faces_and_our_own_names_alone():
    assert problems("import numba\nimport typer\nfrom rich.console import Console\n"
                    "numba.njit(cache=True)\ntyper.Typer()\nConsole().print('x')\n"
                    "class K:\n    def f(self):\n        return self._dispatcher\n",
                    "x.py") == []
