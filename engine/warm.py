"""The first run of a fresh install: compile the replay's kernels on the second core.

A backtest over generated shoes compiles two groups of kernels the first time it runs:
the dealers (shuffle, burn, deal) and the replay's (classify, settle, stop rules,
session metrics). numba compiles one function at a time in a process, so on a fresh
install :func:`start` runs ``python -m engine.warm SPEC...`` beside the caller: it plays
the strategies over a few outcome-only shoes built in memory (no dealer is compiled),
which compiles the replay's kernels into numba's cache while the caller compiles the
dealers and deals. When the caller reaches the replay it loads them from the cache.
Nothing is shared but that cache (numba writes its files atomically), and the caller
waits for the helper (:func:`finish`) so that no process outlives the command.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence


def cold() -> bool:
    """Whether the replay's kernels have never been compiled into numba's cache here."""
    from .jit import Kernel
    from .replay import _settle_kernel

    dispatcher = _settle_kernel.compiled() if isinstance(_settle_kernel, Kernel) \
        else _settle_kernel
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return index is not None and not os.path.exists(index)


def start(specs: Sequence[str]) -> subprocess.Popen[bytes] | None:
    """Start compiling the replay's kernels for ``specs`` in a second process, on a fresh
    install with a second core; else None (nothing to gain)."""
    if (os.cpu_count() or 1) < 2 or not cold():
        return None
    return subprocess.Popen([sys.executable, "-m", "engine.warm", *specs],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def finish(helper: subprocess.Popen[bytes] | None, failed: bool = False) -> None:
    """Wait for the helper (stopped first if the caller ``failed``)."""
    if helper is None:
        return
    if failed:
        helper.kill()
    helper.wait()


def _compile(specs: Sequence[str]) -> None:
    from .backtest import backtest
    from .coups import coups_from_outcomes

    shoes = ["BPPBTBBPBPPPBBTPBPBBPPPB" * 3, "PBBTPPBPBBBPPTBPBPPBBPBP" * 3]
    with tempfile.TemporaryDirectory() as tmp:
        backtest(coups_from_outcomes(shoes), list(specs), out=f"{tmp}/run")


if __name__ == "__main__":
    _compile(sys.argv[1:])
