"""Limits on recorded input: hostile files end in one line naming the place, in bounded
memory, and big inputs are read in chunks of whole shoes into a folder of parts.

Peak memory is measured on a fresh interpreter (``ru_maxrss`` of a child process), since
this test process has loaded everything already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from baccarat.deal import generate_coups
from baccarat.io.importers import ImportDataError, import_files, stream, writers
from baccarat.io.importers.dataset import import_dataset
from baccarat.io.parquet import parquet_files, read_coups
from baccarat.rules import TableRules

ROOT = Path(__file__).resolve().parents[2]


#: Run in the child at exit: its own peak resident memory (VmHWM starts anew at exec,
#: unlike ru_maxrss, which keeps the forking parent's size).
PEAK_PROBE = ("import atexit, sys\n"
              "def _peak(path=sys.argv[1]):\n"
              "    for line in open('/proc/self/status'):\n"
              "        if line.startswith('VmHWM:'):\n"
              "            open(path, 'w').write(line.split()[1])\n"
              "atexit.register(_peak)\n")


def run_measured(code: str, folder: Path) -> tuple[int, str, float]:
    """Run Python ``code`` in a new process: its exit code, its stderr, and its own peak
    resident memory in MB."""
    peak_file = folder / "peak.txt"
    done = subprocess.run([sys.executable, "-c", PEAK_PROBE + code, str(peak_file)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    return done.returncode, done.stderr, int(peak_file.read_text()) / 1024


def _import_in_child(path: Path, out: Path) -> tuple[int, str, float]:
    """Run ``baccarat import`` on ``path`` in a new process: exit code, stderr, and the
    child's peak memory in MB."""
    code = ("from baccarat.cli import app; "
            f"app(['import', {str(path)!r}, '--out', {str(out)!r}, '--quiet'], "
            "prog_name='baccarat')")
    return run_measured(code, out.parent)


def test_a_200_mb_line_of_outcomes_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "line.txt"
    with path.open("wb") as handle:
        for _ in range(200):
            handle.write(b"BP" * (1 << 19))  # 1 MiB at a time, no line break
    code, err, peak = _import_in_child(path, tmp_path / "o.parquet")
    assert code == 2, err
    assert err.strip().splitlines() == [
        f"error: {path}:1: line longer than 1,048,576 bytes; a recorded line (a shoe, a "
        f"coup, a message) is far shorter: is this the right file?"]
    assert peak < 400, f"peak memory {peak:.0f} MB"
    assert not (tmp_path / "o.parquet").exists()


def test_a_small_parquet_of_30_million_dictionary_rows(tmp_path: Path) -> None:
    indices = pa.array(np.zeros(30_000_000, dtype=np.int8))
    column = pa.DictionaryArray.from_arrays(indices, pa.array(["B"]))
    path = tmp_path / "many.parquet"
    pq.write_table(pa.table({"winner": column}), path)
    assert path.stat().st_size < 1_000_000
    code, err, peak = _import_in_child(path, tmp_path / "o.parquet")
    assert code == 2, err
    assert err.strip().splitlines() == [
        f"error: {path} row 1: the shoe starting here runs past 20,000 rows, far longer "
        f"than any shoe; is this one recording? (a shoe column, or coup numbers that "
        f"restart, split shoes)"]
    assert peak < 600, f"peak memory {peak:.0f} MB"


def test_parquet_columns_of_other_types_and_invalid_text(tmp_path: Path) -> None:
    good = pa.table({"winner": ["B", "P"], "raw": pa.array([b"\x00", b"\x01"]),
                     "meta": pa.array([{"a": 1}, {"a": 2}])})
    pq.write_table(good, tmp_path / "mixed.parquet")
    assert len(import_files([tmp_path / "mixed.parquet"])) == 2  # binary, struct skipped
    only = pa.table({"raw": pa.array([b"\x00"]), "meta": pa.array([{"a": 1}])})
    pq.write_table(only, tmp_path / "only.parquet")
    with pytest.raises(ImportDataError, match=r"only\.parquet: no column of text or numbers "
                                              r"\(columns: raw \(binary\), meta "):
        import_files([tmp_path / "only.parquet"])
    text = pa.array([b"B", b"\xff\xfe", b"P"], type=pa.binary()).view(pa.string())
    pq.write_table(pa.table({"winner": text}), tmp_path / "utf8.parquet")
    with pytest.raises(ImportDataError, match=r"utf8\.parquet: column 'winner' in rows 1-3: "
                                              r"'utf-8' codec can't decode byte 0xff"):
        import_files([tmp_path / "utf8.parquet"])


def test_streamed_import_matches_the_whole_file_and_writes_parts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = TableRules.model_validate({})
    coups = generate_coups(rules, 7, np.arange(40))
    coups.label = np.array([f"T{s % 3}-{s}" for s in coups.shoe], dtype=object)
    path = writers.write_csv(coups, tmp_path / "cards.csv", "cards", coup=True)
    whole = import_files([path])
    monkeypatch.setattr(stream, "CHUNK_ROWS", 500)  # blocks of 500 rows: shoes cross them
    out = tmp_path / "imported"
    document = import_dataset([path], out, part_coups=700)
    assert document["coups"] == len(coups) and document["shoes"] == 40
    assert len(parquet_files(out)) == document["parts"] > 1
    got, metadata = read_coups(out)
    np.testing.assert_array_equal(got.cards, whole.cards)
    np.testing.assert_array_equal(got.shoe, whole.shoe)
    np.testing.assert_array_equal(got.coup, coups.coup)
    assert list(got.label) == list(coups.label)
    assert metadata["source"] == "import" and metadata["formats"] == ["csv"]
    assert json.loads((out / "_dataset.json").read_text())["invalid_coups"] == 0


def test_interleaved_rows_far_apart_are_refused_when_streamed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = ["shoe,coup,winner", "A,1,B"] + [f"S{i},1,P" for i in range(30)] + ["A,2,B"]
    path = tmp_path / "far.csv"
    path.write_text("\n".join(rows) + "\n")
    gathered = import_files([path])  # one block: shoe A's two coups are gathered
    assert list(gathered.label[:2]) == ["A", "A"] and list(gathered.shoe[:2]) == [0, 0]
    monkeypatch.setattr(stream, "CHUNK_ROWS", 10)
    with pytest.raises(ImportDataError, match=r"far\.csv:33: shoe A comes back more than 10 "
                                              r"rows after its last coup"):
        import_files([path])


def test_a_long_bad_token_is_quoted_short(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("player,banker\n" + "Z" * 50_000 + "-K,A-7\n")
    with pytest.raises(ImportDataError) as err:
        import_files([path])
    message = str(err.value)
    assert message.startswith(f"unknown card '{'Z' * 60}...' at {path}:2")
    assert len(message) < 400
