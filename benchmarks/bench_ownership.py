"""What owning the outputs and pinning the dataset cost a backtest, measured in one process.

The same backtest over a stored dataset (a folder of parts) is run with everything issue
26 added on the run's path, and with those pieces stood down, alternately, so that both
see the same load:

- the shared lock on the dataset (``pinned``) and the check of each dataset file before
  and after a chunk reads it (``opened_as_planned``: an open, two fstats, the footer read
  and hashed);
- each part's record (its rows, size and SHA-256 read back) and its line in the log of
  parts, flushed;
- the fsyncs: each part before its rename, its folder after, the run's files.

(The fingerprint of the whole dataset when the run plans was there before: it is now
computed per file in the same pass, and is left in both.) Medians of ``--repeat`` pairs,
CPU seconds of this process (wall seconds beside them).

    python benchmarks/bench_ownership.py                         # 100,000 shoes
    python benchmarks/bench_ownership.py --shoes 300000 --repeat 7 --ledger full
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import baccarat.backtest as backtest_module  # noqa: E402
import baccarat.io.owner as owner  # noqa: E402
import baccarat.io.parquet as parquet  # noqa: E402
from baccarat import Run, backtest  # noqa: E402
from baccarat.parallel import generate_dataset  # noqa: E402


@contextlib.contextmanager
def stood_down() -> Iterator[None]:
    """The run's path without the checks, records and fsyncs of issue 26."""
    import pyarrow.parquet as pq

    @contextlib.contextmanager
    def unchecked(planned: Any) -> Iterator[Any]:
        yield pq.ParquetFile(planned.file)

    @contextlib.contextmanager
    def unpinned(path: Any) -> Iterator[None]:
        yield None

    saved = {(parquet, "opened_as_planned"): parquet.opened_as_planned,
             (backtest_module, "pinned"): backtest_module.pinned,
             (backtest_module, "part_record"): backtest_module.part_record,
             (parquet.PartLog, "append"): parquet.PartLog.append,
             (owner, "fsync_path"): owner.fsync_path,
             (owner, "fsync_folder"): owner.fsync_folder,
             (parquet, "fsync_path"): parquet.fsync_path,
             (parquet, "fsync_folder"): parquet.fsync_folder}
    parquet.opened_as_planned = unchecked  # type: ignore[assignment]
    backtest_module.pinned = unpinned  # type: ignore[assignment]
    backtest_module.part_record = lambda path: {"bytes": Path(path).stat().st_size}  # type: ignore[assignment]
    parquet.PartLog.append = lambda self, part, record: None  # type: ignore[method-assign]
    for module in (owner, parquet):
        module.fsync_path = lambda path: None  # type: ignore[assignment]
        module.fsync_folder = lambda folder: None  # type: ignore[assignment]
    try:
        yield
    finally:
        for (where, name), value in saved.items():
            setattr(where, name, value)


def once(coups: Path, out: Path, ledger: bool, chunk: int) -> tuple[float, float]:
    """CPU and wall seconds of one backtest."""
    cpu, wall = time.process_time(), time.perf_counter()
    backtest(coups, ["flat", "martingale"],
             run=Run(ledger=ledger, chunk_shoes=chunk, workers=1, out=out, force=True))
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=10_000,
                        help="shoes per dataset part and per chunk of the run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ledger", choices=("none", "full"), default="none")
    options = parser.parse_args()
    ledger = options.ledger == "full"
    with tempfile.TemporaryDirectory(prefix="bench-ownership-") as folder:
        work = Path(folder)
        coups = work / "coups"
        generate_dataset(coups, shoes=options.shoes, seed=7, chunk_shoes=options.chunk)
        once(coups, work / "warm", ledger, options.chunk)  # kernels loaded, caches filled
        figures: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
        for _ in range(options.repeat):
            figures["with"].append(once(coups, work / "run", ledger, options.chunk))
            with stood_down():
                figures["without"].append(once(coups, work / "run", ledger, options.chunk))
        cpu = {k: statistics.median(c for c, _ in v) for k, v in figures.items()}
        wall = {k: statistics.median(w for _, w in v) for k, v in figures.items()}
        print(f"{options.shoes:,} shoes in {options.shoes // options.chunk} parts, flat + "
              f"martingale, --ledger {options.ledger}, medians of {options.repeat} pairs")
        for key in ("with", "without"):
            print(f"  {key:<8} the checks: {cpu[key]:6.2f} s CPU  {wall[key]:6.2f} s wall  "
                  f"(CPU: {', '.join(f'{c:.2f}' for c, _ in figures[key])})")
        print(f"  cost: {100 * (cpu['with'] / cpu['without'] - 1):+.1f}% CPU, "
              f"{100 * (wall['with'] / wall['without'] - 1):+.1f}% wall")


if __name__ == "__main__":
    main()
