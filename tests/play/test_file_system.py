"""Every refusal of the file system is one line naming the user's path, never a traceback,
and leaves nothing behind: a read-only folder (a real read-only mount), a name longer
than the file system takes, a path through a file, a folder the user may not write, and
``report --force --out`` naming a run folder. Names made from an output's (temporaries,
locks) never push a legal name over the limit.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from baccarat.backtest import RUN_FILE
from baccarat.cli import app
from holders import ROOT, leftovers, mounted_tmpfs, one_line, run_inputs
from typer.testing import CliRunner


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return run_inputs(tmp_path_factory.mktemp("fs-inputs"), shoes=10, seed=2)


def commands(inputs: dict[str, Path], out: Path) -> dict[str, list[str]]:
    """Every command that writes, writing ``out`` (a folder's output inside it for
    compare, whose --out is the folder)."""
    sample = str(ROOT / "data" / "outcomes.csv")
    return {
        "generate": ["generate", "--shoes", "5", "--out", str(out)],
        "import": ["import", sample, "--out", str(out)],
        "backtest": ["backtest", "-s", "flat", "--shoes", "5", "--out", str(out),
                     "--no-table"],
        "compare": ["compare", str(inputs["run"]), "--out", str(out), "--no-table"],
        "report": ["report", str(inputs["run"]), "--out", str(out)],
        "analyze": ["analyze", str(inputs["coups"]), "--reference", "20", "--out", str(out)],
        "demo": ["demo", "--shoes", "5", "--out", str(out), "--no-table"],
    }


@pytest.fixture(scope="module")
def read_only(tmp_path_factory: pytest.TempPathFactory):
    """A real read-only file system (a tmpfs mounted ro), where the test may mount one."""
    with mounted_tmpfs(tmp_path_factory.mktemp("ro") / "mount", "size=1m,ro") as mount:
        yield mount


@pytest.mark.parametrize("command", ["generate", "import", "backtest", "compare", "report",
                                     "analyze", "demo"])
def test_a_read_only_folder_is_one_line_naming_the_path(command: str, inputs, read_only,
                                                       tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = read_only / "out"
    result = cli(*commands(inputs, out)[command], "-q")
    assert result.exit_code == 2, result.output
    line = one_line(result.output)
    assert f"cannot write {out}" in line and "read-only file system" in line
    assert ".tmp" not in line and ".lock" not in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["generate", "import", "backtest", "compare", "report",
                                     "analyze", "demo"])
def test_a_name_too_long_and_a_path_through_a_file_are_one_line(command: str, inputs,
                                                               tmp_path: Path):
    long = tmp_path / ("n" * 256)
    result = cli(*commands(inputs, long)[command], "-q")
    assert result.exit_code == 2, result.output
    assert "is 256 bytes, longer than this file system allows (255)" in one_line(
        result.output)
    document = tmp_path / "notes.txt"
    document.write_text("mine")
    result = cli(*commands(inputs, document / "out")[command], "-q")
    assert result.exit_code == 2, result.output
    assert f"{document} is a file, not a folder" in one_line(result.output)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("reads", [["import", "{}", "--out", "{out}"],
                                   ["backtest", "-s", "flat", "--coups", "{}", "--out", "{out}"],
                                   ["analyze", "{}"], ["compare", "{}"], ["report", "{}"]])
def test_an_input_whose_name_is_too_long_is_one_line(reads: list[str], tmp_path: Path):
    """An input named past the file system's limit (the open fails with ENAMETOOLONG): one
    line naming it, exit 2 (it was an "unexpected OSError", exit 1)."""
    name = tmp_path / ("i" * 300 + ".csv")
    args = [word.format(name, out=tmp_path / "out") for word in reads]
    result = cli(*args, "-q")
    assert result.exit_code == 2, result.output
    line = one_line(result.output)
    assert f"cannot open {name}: the name iiii" in line and "is 304 bytes, longer than " \
        "this file system allows (255)" in line
    assert list(tmp_path.iterdir()) == []


def test_a_legal_long_name_is_not_refused_because_of_its_temporary(tmp_path: Path):
    """251 bytes is a legal name; the temporary and the lock made from it would not be,
    and are shortened (the import of a 251-character name failed)."""
    for command in (["import", str(ROOT / "data" / "outcomes.csv")],
                    ["generate", "--shoes", "5"]):
        out = tmp_path / (command[0][0] * 251)
        result = cli(*command, "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
        assert (out / "_dataset.json").is_file()
        again = cli(*command, "--out", str(out), "-q", "--force")
        assert again.exit_code == 0, again.output
    assert leftovers(tmp_path) == []


def test_report_force_onto_a_run_folder_is_refused_and_the_run_kept(inputs, tmp_path: Path):
    run = tmp_path / "run"
    shutil.copytree(inputs["run"], run)
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    result = cli("report", str(inputs["run"]), "--out", str(run), "--force", "-q")
    assert result.exit_code == 2
    assert f"{run} is a folder; the report is one file" in one_line(result.output)
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before
    assert (run / RUN_FILE).is_file() and leftovers(tmp_path) == []


@pytest.mark.parametrize("command", ["generate", "import", "backtest", "compare", "report",
                                     "analyze", "demo"])
def test_a_folder_no_one_may_write_into_is_one_line(command: str, inputs, tmp_path: Path):
    """A folder made immutable (``chattr +i``: refused even to root, as a folder the user
    may not write is refused to the user)."""
    if not shutil.which("chattr"):
        pytest.skip("no chattr here")
    closed = tmp_path / "closed"
    closed.mkdir()
    if subprocess.run(["chattr", "+i", str(closed)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no immutable folders")
    try:
        result = cli(*commands(inputs, closed / "out")[command], "-q")
    finally:
        subprocess.run(["chattr", "-i", str(closed)], check=True)
    assert result.exit_code == 2, result.output
    line = one_line(result.output)
    assert f"cannot write {closed / 'out'}" in line and "not permitted" in line
    assert list(closed.iterdir()) == []


def test_the_same_refusals_with_a_dask_cluster(inputs, read_only, tmp_path: Path):
    """With --scheduler the output is claimed by the command itself, before any task is
    sent: the refusals are the same single lines (a real LocalCluster)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        address = ["--scheduler", cluster.scheduler_address]
        for command, out, expected in (
                ("backtest", read_only / "run", "read-only file system"),
                ("generate", tmp_path / ("n" * 256), "longer than this file system allows")):
            result = cli(*commands(inputs, out)[command], *address, "-q")
            assert result.exit_code == 2, result.output
            line = one_line(result.output)
            assert f"cannot write {out}" in line and expected in line
    assert list(tmp_path.iterdir()) == []
