"""The entry points installed packages declare, read once until what is installed changes.

``importlib.metadata.entry_points`` reads the metadata of every installed distribution each
time it is called: some 10 ms in a virtualenv of a hundred packages. A strategy is looked up
by name for every spec of every run (and for each name a plugin might shadow), so a run of
twenty specs paid for it forty times. :func:`installed` keeps the entry points of a group
and reads them again only when ``sys.path`` or the modification time of one of its folders
has changed, which is what installing or removing a package (or adding a folder of
plugins to ``sys.path``) changes; ``importlib.metadata`` itself finds distributions anew on
the same signal. A folder changed in the last two seconds is read every time, since a
second change within one tick of the file system's clock would leave its time as it was.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from importlib import metadata

_lock = threading.Lock()
_seen: dict[str, tuple[tuple[object, ...], tuple[metadata.EntryPoint, ...]]] = {}


#: A folder modified less than this many seconds ago may change again within the same tick
#: of the file system's clock, unseen: while one is that fresh, nothing is kept.
_SETTLED_SECONDS = 2.0


def _installation() -> tuple[object, ...] | None:
    """What says whether the installed distributions may have changed: the path searched
    and the modification time of each of its folders (None while one changed just now)."""
    stamps: list[object] = []
    recent = time.time_ns() - int(_SETTLED_SECONDS * 1e9)
    for entry in sys.path:
        try:
            stamp = os.stat(entry or ".").st_mtime_ns
        except OSError:
            stamps.append(None)
            continue
        if stamp > recent:
            return None
        stamps.append(stamp)
    return (tuple(sys.path), tuple(stamps))


def installed(group: str) -> tuple[metadata.EntryPoint, ...]:
    """The entry points of ``group`` that installed distributions declare."""
    state = _installation()
    with _lock:
        kept = _seen.get(group)
        if state is not None and kept is not None and kept[0] == state:
            return kept[1]
    found = tuple(metadata.entry_points(group=group))
    if state is not None:
        with _lock:
            _seen[group] = (state, found)
    return found
