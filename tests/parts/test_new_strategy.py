"""``baccarat new-strategy``: the files it writes run, pass their own tests, never overwrite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from baccarat.cli import app
from baccarat.cli.new_strategy import names_for
from baccarat.strategy_check import check_strategy
from baccarat.testing import make_one_strategy, play
from typer.testing import CliRunner

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


def new(folder: Path, *args: str):
    return runner.invoke(app, ["new-strategy", *args, "--dir", str(folder)])


def run_pytest(folder: Path) -> subprocess.CompletedProcess[str]:
    """pytest over the generated files, in a process of its own, as their author runs it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-n", "0", str(folder)],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_both_forms_pass_their_generated_tests_under_pytest(tmp_path: Path):
    assert new(tmp_path, "banker-run").exit_code == 0
    assert new(tmp_path, "SimpleBankerRun", "--simple").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "banker_run.py", "simple_banker_run.py", "test_banker_run.py",
        "test_simple_banker_run.py"]
    done = run_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout


def test_the_two_forms_give_the_same_ledger_and_pass_the_checks(tmp_path: Path):
    new(tmp_path, "array_one")
    new(tmp_path, "simple_one", "--simple")
    array = f"{tmp_path / 'array_one.py'}:ArrayOne"
    simple = f"{tmp_path / 'simple_one.py'}:SimpleOne"
    outcomes = ["PPBPPPTBPBPPB", "BPPTPB"]
    assert play(array, outcomes)["banker"].tolist() == play(simple, outcomes)["banker"].tolist()
    for spec in (array, simple):
        found, _ = check_strategy(lambda s=spec: make_one_strategy(s), shoes=6, speed_shoes=6,
                                  speed_repeat=1)
        assert all(check.passed for check in found), found


def test_existing_files_are_never_overwritten(tmp_path: Path):
    mine = tmp_path / "test_my_system.py"
    mine.write_text("# my own tests\n")
    result = new(tmp_path, "my_system")
    assert result.exit_code == 2
    assert "test_my_system.py already exists; nothing written" in result.stderr
    assert mine.read_text() == "# my own tests\n"
    assert not (tmp_path / "my_system.py").exists()


@pytest.mark.parametrize("name", ["1st", "my system", "bad!", ""])
def test_a_name_that_cannot_be_a_strategy(tmp_path: Path, name: str):
    result = new(tmp_path, name)
    assert result.exit_code == 2
    assert "use letters, digits" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_names():
    assert names_for("my-system") == ("my_system", "MySystem")
    assert names_for("BankerAfterPlayers") == ("banker_after_players", "BankerAfterPlayers")
    assert names_for("follow2") == ("follow2", "Follow2")


@pytest.mark.parametrize("part", ["selection", "staking"])
def test_a_part_in_both_forms_passes_its_tests_and_the_checks_in_a_system(tmp_path: Path,
                                                                         part: str):
    assert new(tmp_path, f"array_{part}", "--part", part).exit_code == 0
    result = new(tmp_path, f"simple_{part}", "--part", part, "--simple")
    label = {"selection": "a selection", "staking": "a staking plan"}[part]
    assert result.exit_code == 0 and f"(simple form, {label})" in result.output
    done = run_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout
    cls = "Array" + part.capitalize()
    array, simple = f"{tmp_path / f'array_{part}.py'}:{cls}", \
        f"{tmp_path / f'simple_{part}.py'}:Simple{part.capitalize()}"
    other = "martingale" if part == "selection" else "follow"
    systems = [f"{array} | {other}", f"{simple} | {other}"] if part == "selection" else \
        [f"{other} | {array}", f"{other} | {simple}"]
    outcomes = ["PPBPPPTBPBPPB", "BPPTPBBPPPB"]
    assert play(systems[0], outcomes)[["banker", "player", "net"]].equals(
        play(systems[1], outcomes)[["banker", "player", "net"]])
    for spec in systems:
        found, _ = check_strategy(lambda s=spec: make_one_strategy(s), shoes=6,
                                  speed_shoes=6, speed_repeat=1)
        assert all(check.passed for check in found), found


def test_an_unknown_part_is_one_line(tmp_path: Path):
    result = new(tmp_path, "x", "--part", "rules")
    assert result.exit_code == 2 and "--part rules: expected selection or staking" in \
        result.stderr
