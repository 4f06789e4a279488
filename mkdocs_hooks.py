"""MkDocs hooks for the API reference (mkdocs.yml's ``hooks``).

The folders ``engine/`` and ``strategies/`` are installed as ``baccarat`` and
``baccarat.strategies`` (setuptools' package-dir mapping), a layout mkdocstrings' static
reader cannot follow from the sources. Before the build, this lays out the package as it
is installed, ``baccarat/`` with ``strategies/`` inside, out of links to the sources, in
``.api-sources/`` (mkdocs.yml's handler ``paths``), removed when MkDocs ends."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
SOURCES = ROOT / ".api-sources"


def on_startup(**kwargs: Any) -> None:
    package = SOURCES / "baccarat"
    if SOURCES.exists():
        shutil.rmtree(SOURCES)
    package.mkdir(parents=True)
    for entry in sorted((ROOT / "engine").iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "strategies").symlink_to(ROOT / "strategies")


def on_shutdown(**kwargs: Any) -> None:
    shutil.rmtree(SOURCES, ignore_errors=True)
