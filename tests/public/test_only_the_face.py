"""The tests of this folder use ``baccarat``'s face alone: what a user imports."""

from __future__ import annotations

import ast
from pathlib import Path

import baccarat


def test_this_folder_imports_nothing_of_baccarat_but_its_face():
    for path in sorted(Path(__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("baccarat"):
                assert node.module == "baccarat", f"{path.name}:{node.lineno}"
                assert {alias.name for alias in node.names} <= set(baccarat.__all__), \
                    f"{path.name}:{node.lineno}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("baccarat.") or \
                        alias.name == "baccarat", f"{path.name}:{node.lineno}"
