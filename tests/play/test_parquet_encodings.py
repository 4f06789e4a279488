"""How parts are encoded changes their size and the time to write them, never what reads
back: a ledger's per-coup counters and a never-staked bet kind are written without a
dictionary, a sessions table's ids as deltas, the rest with a dictionary, and every
column reads back identical, type for type."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from baccarat import Run, backtest
from baccarat.io.parquet import column_encodings, dictionary_columns, write_part


def encodings(path: Path) -> dict[str, set[str]]:
    """Each column's encodings in the first row group of ``path``."""
    group = pq.ParquetFile(path).metadata.row_group(0)
    return {group.column(i).path_in_schema: set(group.column(i).encodings)
            for i in range(group.num_columns)}


def ledger_like(n: int, rng: np.random.Generator) -> pa.Table:
    sparse = np.zeros(n)
    sparse[[5, 4001, 9999]] = 25.0  # staked 3 times, off the sample: written plain, still read
    return pa.table({
        "config": pa.array(np.zeros(n, dtype=np.int32)),
        "session": pa.array(np.repeat(np.arange(n // 50, dtype=np.int64), 50)),
        "coup": pa.array(np.tile(np.arange(1, 51, dtype=np.int16), n // 50)),
        "outcome": pa.DictionaryArray.from_arrays(
            pa.array(rng.integers(0, 3, n).astype(np.int8)), pa.array(["B", "P", "T"])),
        "banker": pa.array(rng.choice([0.0, 10.0, 20.0, 40.0], n)),
        "tie": pa.array(np.zeros(n)),
        "super6": pa.array(sparse),
        "net": pa.array(rng.normal(size=n)),
        "missing": pa.array([None if i % 7 == 0 else 0.0 for i in range(n)], pa.float64()),
    })


def test_every_encoding_reads_back_the_same_values_and_types(tmp_path: Path):
    rng = np.random.default_rng(12)
    tables = [ledger_like(50_000, rng), ledger_like(20_000, rng)]
    second = tables[1]  # the second configuration stakes what the first never did
    tables[1] = second.set_column(second.schema.get_field_index("tie"), "tie",
                                  pa.array(rng.choice([0.0, 5.0], second.num_rows)))
    for kind in ("ledger", "sessions"):
        path = write_part(iter(tables), tmp_path / kind, 0, {"kind": kind},
                          row_group_rows=16_384)
        back = pq.read_table(path)
        whole = pa.concat_tables(tables)
        assert back.schema.remove_metadata().equals(whole.schema)
        for name in whole.column_names:
            assert back.column(name).equals(whole.column(name)), (kind, name)


def test_a_ledgers_counters_and_unstaked_kinds_are_plain_the_rest_dictionary(
        tmp_path: Path):
    table = ledger_like(10_000, np.random.default_rng(3))
    chosen = dictionary_columns(table, "ledger")
    assert chosen == ["config", "session", "outcome", "banker", "net", "missing"]
    # Elsewhere the counters keep their dictionary too (a coups file's totals pack better).
    assert dictionary_columns(table, "coups") == ["config", "session", "coup", "outcome",
                                                  "banker", "net", "missing"]
    path = write_part(iter([table]), tmp_path / "ledger", 0, {"kind": "ledger"})
    used = encodings(path)
    assert "RLE_DICTIONARY" in used["banker"] and "RLE_DICTIONARY" in used["outcome"]
    assert "RLE_DICTIONARY" in used["session"]  # ids in long runs
    for name in ("coup", "tie", "super6"):
        assert "RLE_DICTIONARY" not in used[name] and "PLAIN" in used[name], name


def test_a_backtests_ledger_reads_back_as_the_rows_it_wrote(tmp_path: Path):
    result = backtest(None, ["martingale", "flat:side=player"], shoes=40, seed=9,
                      run=Run(out=tmp_path / "run", workers=1))
    stored = pq.read_table(tmp_path / "run" / "ledger.parquet")
    used = encodings(next((tmp_path / "run" / "ledger.parquet").glob("part-*.parquet")))
    assert "RLE_DICTIONARY" not in used["dragon7"]  # no configuration bet Dragon 7
    frame = stored.to_pandas()
    assert frame["tie"].eq(0).all() and frame["player"].gt(0).any()
    assert len(frame) == len(result.ledger)
    assert (frame["net"].to_numpy() == result.ledger["net"].to_numpy()).all()


def test_a_sessions_parts_ids_are_deltas_and_read_back_as_the_sessions(tmp_path: Path):
    backtest(None, ["martingale", "flat:side=player"], shoes=300, seed=4,
             run=Run(out=tmp_path / "run", workers=1, ledger=False, chunk_shoes=120))
    parts = sorted((tmp_path / "run" / "sessions.parquet").glob("part-*.parquet"))
    assert len(parts) == 3
    used = encodings(parts[0])
    for name in ("session", "first_shoe"):
        assert used[name] >= {"DELTA_BINARY_PACKED"}, name
        assert "RLE_DICTIONARY" not in used[name], name
    assert "RLE_DICTIONARY" not in used["realized_edge"]
    assert "RLE_DICTIONARY" in used["net"] and "RLE_DICTIONARY" in used["stop_reason"]
    stored = pq.read_table(tmp_path / "run" / "sessions.parquet").to_pandas()
    assert stored["session"].dtype == np.int64 and stored["first_shoe"].dtype == np.int64
    for config in (0, 1):  # one shoe a session: session k is shoe k, for each strategy
        mine = stored[stored["config"] == config]
        assert mine["session"].tolist() == list(range(300))
        assert mine["first_shoe"].tolist() == list(range(300))


def test_only_a_sessions_tables_integer_ids_get_an_encoding_of_their_own():
    table = pa.table({"session": pa.array([0, 1, 2], pa.int64()),
                      "first_shoe": pa.array([0.0, 1.0, 2.0]),  # not integers: left alone
                      "net": pa.array([1.0, -1.0, 0.5])})
    assert column_encodings(table, "sessions") == {"session": "DELTA_BINARY_PACKED"}
    assert column_encodings(table, "ledger") is None
    assert column_encodings(table) is None
