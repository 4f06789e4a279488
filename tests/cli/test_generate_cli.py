"""``baccarat generate`` through the CLI: the dataset, its metadata, overwrites, bad flags.

The output is a folder of Parquet parts, one per chunk (see engine/parallel.py); each part
carries the rules in its schema metadata.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from baccarat.deal import generate_coups
from baccarat.io.parquet import parquet_files, read_coups, read_metadata
from baccarat.rules import TableRules
from cli_text import cli as run
from cli_text import flat
from typer.testing import CliRunner

runner = CliRunner()




def table_bytes(path: Path) -> bytes:
    """The table of a dataset (its parts in order; data and schema, metadata included) as
    Arrow IPC bytes, independent of how it was split into parts and row groups."""
    table = pa.concat_tables([pq.read_table(part) for part in parquet_files(path)])
    table = table.combine_chunks()
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def test_writes_the_coups_with_the_rules_in_the_metadata(tmp_path: Path):
    out = tmp_path / "coups.parquet"
    result = run("generate", "--shoes", "30", "--seed", "5", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    expected = generate_coups(TableRules(), 5, np.arange(30))
    assert f"wrote {len(expected):,} coups from 30 shoes to {out}" in flat(result.output)

    parts = parquet_files(out)
    assert parts
    for part in parts:  # every part says what it is
        metadata = read_metadata(part)
        assert metadata["kind"] == "coups"
        assert metadata["rules"] == TableRules().model_dump()
        assert (metadata["seed"], metadata["shoes"], metadata["source"]) == (5, 30, "generated")
    assert read_metadata(out) == metadata

    coups, _ = read_coups(out)
    assert coups.decks == 8
    for name in ("shoe", "coup", "cards", "player_total", "banker_total", "outcome",
                 "burn_shown"):
        assert np.array_equal(getattr(coups, name), getattr(expected, name)), name
    assert not list(out.rglob("*.tmp"))  # no temporary left behind


def test_rule_flags_and_rules_file_reach_the_metadata(tmp_path: Path):
    rules_file = tmp_path / "house.toml"
    rules_file.write_text('decks = 6\ncut_card = 14\nburn = "none"\ntie_pays = 9\n',
                          encoding="utf-8")
    out = tmp_path / "six.parquet"
    result = run("generate", "--shoes", "4", "--out", str(out), "--rules", str(rules_file),
                 "--cut-card", "16", "--variant", "ez", "-q")
    assert result.exit_code == 0, result.output
    rules = TableRules(**read_metadata(out)["rules"])
    assert rules == TableRules(decks=6, cut_card=16, burn="none", tie_pays=9, variant="ez")
    coups, _ = read_coups(out)
    assert coups.decks == 6
    assert (coups.burn_shown == -1).all()  # burn none: no card shown


def test_chunk_sizes_write_the_same_table(tmp_path: Path):
    written = {}
    for chunk in ("1", "7", "24", "50000"):
        out = tmp_path / f"chunk{chunk}.parquet"
        result = run("generate", "--shoes", "24", "--seed", "31", "--chunk", chunk,
                     "--decks", "6", "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
        written[chunk] = out
    assert len(parquet_files(written["1"])) == 24  # really chunked: a part per shoe
    assert len(parquet_files(written["7"])) == 4
    reference = table_bytes(written["50000"])
    for chunk, path in written.items():
        assert table_bytes(path) == reference, chunk
        assert read_metadata(path) == read_metadata(written["50000"])


def test_refuses_to_overwrite_without_force(tmp_path: Path):
    out = tmp_path / "coups.parquet"
    out.write_bytes(b"precious results")
    result = run("generate", "--shoes", "3", "--out", str(out), "-q")
    assert result.exit_code == 2
    assert "already exists" in flat(result.output)
    assert out.read_bytes() == b"precious results"
    # --force replaces only folders baccarat wrote: a plain file is a user's, kept
    result = run("generate", "--shoes", "3", "--out", str(out), "--force", "-q")
    assert result.exit_code == 2
    assert "is a file, not a folder baccarat wrote" in flat(result.output)
    assert out.read_bytes() == b"precious results"

    out = tmp_path / "dataset"
    assert run("generate", "--shoes", "4", "--out", str(out), "-q").exit_code == 0
    result = run("generate", "--shoes", "3", "--out", str(out), "-q")
    assert result.exit_code == 2 and "--force" in flat(result.output)
    result = run("generate", "--shoes", "3", "--out", str(out), "--force", "-q")
    assert result.exit_code == 0, result.output
    assert read_metadata(out)["shoes"] == 3

    # an existing dataset is refused too, and left as it was
    before = table_bytes(out)
    result = run("generate", "--shoes", "5", "--seed", "9", "--out", str(out), "-q")
    assert result.exit_code == 2
    assert "already exists" in flat(result.output)
    assert table_bytes(out) == before


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--decks", "9"], "decks: Input should be less than or equal to 8"),
        (["--decks", "0"], "decks: Input should be greater than or equal to 1"),
        (["--tie-pays", "7"], "tie_pays: Input should be 8 or 9"),
        (["--burn", "sideways"], "burn: Input should be 'standard', 'none' or 'fixed'"),
        (["--variant", "vegas"], "variant: Input should be 'standard', 'ez' or 'super6'"),
        (["--cut-card", "3"], "cut_card: Input should be greater than or equal to 6"),
        (["--commission", "1.5"], "commission: Input should be less than 1"),
        (["--shoes", "0"], "Invalid value for '--shoes'"),
        (["--chunk", "0"], "Invalid value for '--chunk'"),
        (["--seed", "-1"], "Invalid value for '--seed'"),
        (["--seed", str(2**64)], "Invalid value for '--seed'"),
        (["--decks", "six"], "Invalid value for '--decks'"),
        (["--shuffles", "3"], "No such option: --shuffles"),
    ],
)
def test_bad_flags_exit_2_with_a_message_and_write_nothing(tmp_path: Path, flags, message):
    out = tmp_path / "coups.parquet"
    result = run("generate", "--shoes", "3", "--out", str(out), "-q", *flags)
    assert result.exit_code == 2
    assert message in flat(result.output)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [("decks = 0\n", "decks: Input should be greater than or equal to 1"),
     ("table_min = 100\ntable_max = 50\n", "table_max (50.0) is below table_min (100.0)"),
     ("shoes = 8\n", "shoes: unknown rule"),
     ("decks = \n", "cannot parse rules file")],
)
def test_a_bad_rules_file_exits_2_naming_it(tmp_path: Path, content: str, message: str):
    rules_file = tmp_path / "house.toml"
    rules_file.write_text(content, encoding="utf-8")
    out = tmp_path / "coups.parquet"
    result = run("generate", "--shoes", "3", "--out", str(out), "--rules", str(rules_file))
    assert result.exit_code == 2
    assert message in flat(result.output)
    assert str(rules_file) in flat(result.output)
    assert not out.exists()


def test_a_missing_rules_file_exits_2(tmp_path: Path):
    result = run("generate", "--out", str(tmp_path / "c.parquet"),
                 "--rules", str(tmp_path / "absent.toml"))
    assert result.exit_code == 2
    assert "cannot read rules file" in flat(result.output)


def test_without_workers_a_small_job_runs_in_this_process_as_the_help_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``--workers`` left out: fewer than 10,000 shoes are dealt in this process (a pool
    would take longer to start than the job), more on every core, as ``--help`` says and
    as ``backtest`` does."""
    import baccarat.parallel as parallel

    asked: list[int] = []

    opened = parallel.open_backend

    def recording(workers: int = 1, *args, **kwargs):  # noqa: ANN202 - a Backend
        asked.append(workers)
        return opened(workers, *args, **kwargs)

    monkeypatch.setattr(parallel, "open_backend", recording)
    result = run("generate", "--shoes", "120", "--chunk", "25", "--out",
                 str(tmp_path / "c.parquet"), "-q")
    assert result.exit_code == 0, result.output
    assert asked == [1]
    assert len(parquet_files(tmp_path / "c.parquet")) == 5
    assert parallel.resolve_workers(None, 9_999) == 1
    assert parallel.resolve_workers(None, 10_000) == parallel.default_workers()
    assert "this process alone for fewer than 10,000 shoes" in flat(
        run("generate", "--help").output)
