"""Coups kept flagged (``valid=False``) in a coups dataset: how many, in which shoes, and
the dataset without those shoes (``baccarat backtest --skip-invalid-shoes``).

Only the ``shoe`` and ``valid`` columns are read to count, one row group at a time, and
the copy without the shoes is written part by part, so memory stays flat.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..parquet import DATASET_FILE, parquet_files, read_metadata, write_json_atomic, write_part


def flagged_shoes(path: str | Path) -> tuple[int, np.ndarray]:
    """How many coups of the dataset at ``path`` are flagged, and the ids of their shoes."""
    count = 0
    shoes: list[np.ndarray] = []
    for file in parquet_files(path):
        handle = pq.ParquetFile(file)
        if "valid" not in handle.schema_arrow.names:
            continue
        for group in range(handle.metadata.num_row_groups):
            table = handle.read_row_group(group, columns=["shoe", "valid"])
            bad = ~table.column("valid").fill_null(True).to_numpy(zero_copy_only=False)
            if bad.any():
                count += int(bad.sum())
                shoes.append(np.unique(table.column("shoe").to_numpy()[bad]))
    ids = np.unique(np.concatenate(shoes)) if shoes else np.empty(0, dtype=np.int64)
    return count, ids


def without_shoes(path: str | Path, shoes: np.ndarray, folder: str | Path) -> Path:
    """A copy of the coups dataset at ``path`` without the shoes ``shoes``, as a folder of
    parts in ``folder``; returns the dataset's path."""
    out = Path(folder) / "coups"
    out.mkdir(parents=True, exist_ok=True)
    metadata = {**read_metadata(path), "left_out_shoes": int(shoes.size),
                "copy_of": str(path)}
    drop = pa.array(shoes, type=pa.int64())

    def kept(file: Path) -> Iterator[pa.Table]:
        handle = pq.ParquetFile(file)
        for group in range(handle.metadata.num_row_groups):
            table = handle.read_row_group(group)
            yield table.filter(pc.invert(pc.is_in(table.column("shoe"), value_set=drop)))

    for index, file in enumerate(parquet_files(path)):
        write_part(kept(file), out, index, metadata)
    write_json_atomic(out / DATASET_FILE, metadata)
    return out
