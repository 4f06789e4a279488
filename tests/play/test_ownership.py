"""One owner for every output: the same rule for every command that writes.

Each output kind (generate, import, backtest, compare, report, analyze, demo, search,
risk, live) is held to one rule by one shared test (a new command that writes adds its
line to ``KINDS``), with real processes holding the locks: a second writer, ``--force``
included, is refused in one line naming the holder's pid; a writer that would replace
what a run reads is refused naming the reader; a user's file at the output is never
replaced; a finished command leaves no temporary and no lock beside its output.
Then the races: commands started at the same instant, a file saved at ``--out`` while a
command writes, a thousand claims of one new folder at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from baccarat.cli import app
from baccarat.io.owner import Claim, OutputExistsError, claim_output, lock_path
from baccarat.io.parquet import read_coups
from holders import (
    ROOT,
    finish,
    held,
    leftovers,
    lock_holders,
    one_line,
    run_inputs,
    spawn,
    wait_until,
)
from typer.testing import CliRunner


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@dataclass(frozen=True)
class Kind:
    """An output kind: the command writing it into ``out``, and the path it owns there."""

    args: Callable[[dict[str, Path], Path], list[str]]
    output: Callable[[Path], Path] = lambda out: out
    rerun: bool = True  # whether the shared test writes it a second time with --force
    force: bool = True  # whether the command has --force (a scorecard is never replaced)
    quiet: tuple[str, ...] = ("-q",)  # its flag for no progress bar, if it has one
    again: bool = False  # whether it writes its own output again without --force (demo)


KINDS = {
    "generate": Kind(lambda i, out: ["generate", "--shoes", "12", "--out", str(out)]),
    "import": Kind(lambda i, out: ["import", str(ROOT / "data" / "outcomes.csv"),
                                   "--out", str(out)]),
    "backtest": Kind(lambda i, out: ["backtest", "-s", "flat", "--coups", str(i["coups"]),
                                     "--out", str(out), "--no-table"]),
    "compare": Kind(lambda i, out: ["compare", str(i["run"]), "--out", str(out),
                                    "--no-table"],
                    lambda out: out / "comparison.parquet"),
    "report": Kind(lambda i, out: ["report", str(i["run"]), "--out", str(out)]),
    "analyze": Kind(lambda i, out: ["analyze", str(i["coups"]), "--reference", "20",
                                    "--out", str(out)],
                    lambda out: out / "analysis.parquet"),
    "demo": Kind(lambda i, out: ["demo", "--shoes", "12", "--out", str(out), "--no-table"],
                 rerun=False, again=True),  # a demo over a demo: tests/cli/test_demo.py
    "search": Kind(lambda i, out: ["search", str(i["coups"]), "-s",
                                   "flat:side=[banker,player]", "--null", "0", "--out",
                                   str(out)]),
    "risk": Kind(lambda i, out: ["risk", "-s", "flat", "--coups", "3", "--check", "0",
                                 "--out", str(out)], rerun=False),
    # no terminal under CliRunner: the plain screen, reading an empty stdin
    "live": Kind(lambda i, out: ["live", "-s", "flat", "--out", str(out)], rerun=False,
                 force=False, quiet=()),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return run_inputs(tmp_path_factory.mktemp("inputs"), shoes=12, seed=5)


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_output_has_one_owner(kind: str, inputs: dict[str, Path], tmp_path: Path):
    spec = KINDS[kind]
    out = tmp_path / "out"
    target = spec.output(out)
    args = spec.args(inputs, out)
    target.parent.mkdir(parents=True, exist_ok=True)
    args = [*args, *spec.quiet]
    forces = ([], ["--force"]) if spec.force else ([],)
    with held(target) as pid:  # a writer is at it
        for force in forces:
            result = cli(*args, *force)
            assert result.exit_code == 2, (force, result.output)
            assert f"in use by another run (pid {pid})" in one_line(result.output), force
    with held(target, shared=True) as pid:  # a run reads it
        result = cli(*args, *forces[-1])
        assert result.exit_code == 2, result.output
        assert f"being read by another run (pid {pid})" in one_line(result.output)
    assert list(target.parent.iterdir()) == []  # refused: nothing made, nothing left

    target.write_bytes(b"years of work")  # a user's file where the output goes
    for force in forces:
        result = cli(*args, *force)
        assert result.exit_code == 2, (force, result.output)
        one_line(result.output)
        assert target.read_bytes() == b"years of work"
    target.unlink()

    result = cli(*args)
    assert result.exit_code == 0, result.output
    again = cli(*args)
    if spec.again:
        assert again.exit_code == 0, again.output
    else:
        assert again.exit_code == 2 and "already exists" in one_line(again.output)
    if spec.rerun:
        forced = cli(*args, "--force")
        assert forced.exit_code == 0, forced.output
    assert leftovers(target.parent) == [] and not lock_path(target).exists()


def test_a_failed_command_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A missing, an empty and an unreadable input: refused in one line, and the folder
    (the working one above all) holds nothing new: no hidden temporary, no lock."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "noise.bin").write_bytes(bytes(range(256)) * 8)
    for source in ("missing.csv", "empty.csv", "noise.bin"):
        result = cli("import", source, "--out", "imported", "-q")
        assert result.exit_code == 2, (source, result.output)
        one_line(result.output)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.csv", "noise.bin"]
    nested = tmp_path / "a" / "b" / "report.html"  # the folders made for it go with it
    result = cli("report", str(tmp_path / "no-such-run"), "--out", str(nested), "-q")
    assert result.exit_code == 2 and not (tmp_path / "a").exists()


def _scorecard(path: Path, shoes: int, seed: int) -> Path:
    """A scorecard of ``shoes`` generated shoes, one per line (big enough that importing it
    takes a while)."""
    import numpy as np
    from baccarat.deal import generate_coups
    from baccarat.io.importers.writers import write_scorecard
    from baccarat.rules import TableRules

    coups = generate_coups(TableRules(), seed, np.arange(shoes, dtype=np.int64))
    return write_scorecard(coups, path)


def test_two_imports_into_one_new_folder_at_once_one_wins_whole(tmp_path: Path):
    first = _scorecard(tmp_path / "first.txt", 3000, 1)
    second = _scorecard(tmp_path / "second.txt", 3000, 2)
    out = tmp_path / "imported"
    children = [spawn("import", str(source), "--out", str(out), "-q")
                for source in (first, second)]
    results = [finish(child) for child in children]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    winner = next(i for i, (code, _) in enumerate(results) if code == 0)
    loser_text = results[1 - winner][1]
    line = one_line(loser_text)
    assert f"in use by another run (pid {children[winner].pid})" in line \
        or "already exists" in line
    source = (first, second)[winner]
    imported, _ = read_coups(out)
    assert imported.shoe_ids().size == 3000
    assert json.loads((out / "_dataset.json").read_text())["files"] == [str(source)]
    assert leftovers(tmp_path) == []


def test_two_generates_into_one_new_folder_at_once_one_wins_whole(tmp_path: Path):
    out = tmp_path / "coups"
    children = [spawn("generate", "--shoes", "30000", "--seed", str(seed), "--chunk",
                      "10000", "--workers", "1", "--out", str(out), "-q") for seed in (1, 2)]
    results = [finish(child) for child in children]
    assert sorted(code for code, _ in results) == [0, 2], results
    winner = next(i for i, (code, _) in enumerate(results) if code == 0)
    line = one_line(results[1 - winner][1])
    assert f"in use by another run (pid {children[winner].pid})" in line \
        or "already exists" in line
    document = json.loads((out / "_dataset.json").read_text())
    assert document["seed"] == (1, 2)[winner] and document["shoes"] == 30000
    assert leftovers(tmp_path) == []


def test_a_file_saved_at_out_while_an_import_runs_is_kept(tmp_path: Path):
    source = _scorecard(tmp_path / "shoes.txt", 6000, 3)
    out = tmp_path / "imported.parquet"
    child = spawn("import", str(source), "--out", str(out), "-q")
    wait_until(lambda: child.pid in lock_holders(out), "lock taken", child=child)
    os.kill(child.pid, signal.SIGSTOP)  # hold it mid-import while the user saves
    assert not out.exists()
    out.write_text("the user's notes")
    os.kill(child.pid, signal.SIGCONT)
    code, text = finish(child)
    assert code == 2 and "appeared while this command wrote it" in one_line(text)
    assert out.read_text() == "the user's notes"
    assert leftovers(tmp_path) == []


def test_a_claim_renames_into_place_only_what_it_expected(tmp_path: Path):
    """The rule itself, with a real other program (``cp``) saving at the path meanwhile:
    the claim's output is not renamed over it, with or without force."""
    ours = tmp_path / "report.html"
    theirs = tmp_path / "theirs.html"
    theirs.write_text("the user's page")
    with pytest.raises(OutputExistsError, match="appeared while this command wrote"):
        with claim_output(ours) as claim:
            claim.temp.write_text("ours")
            subprocess.run(["cp", str(theirs), str(ours)], check=True)
    assert ours.read_text() == "the user's page" and leftovers(tmp_path) == []
    mine = tmp_path / "mine.txt"
    mine.write_text("old output")
    with pytest.raises(OutputExistsError, match="changed while this command wrote"):
        with claim_output(mine, force=True, ours=lambda _: True) as claim:
            claim.temp.write_text("new output")
            subprocess.run(["cp", str(theirs), str(mine)], check=True)
    assert mine.read_text() == "the user's page" and leftovers(tmp_path) == []
    with claim_output(mine, force=True, ours=lambda _: True) as claim:  # unchanged: replaced
        assert isinstance(claim, Claim)
        claim.temp.write_text("new output")
    assert mine.read_text() == "new output" and leftovers(tmp_path) == []


CLAIMS = """
import json, sys, time
from pathlib import Path
from baccarat.io.parquet import owned_output
base, rounds, start, me = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
results = []
for r in range(rounds):
    folder = base / f"round-{r}"
    while time.time() < start + r * 0.01:  # every process claims round r at one instant
        pass
    try:
        with owned_output(folder, {"job": "test", "owner": me}, force=False, resume=False,
                          complete="run.json"):
            (folder / "mine.txt").write_text(me)
            time.sleep(0.005)
            results.append(["won", r])
    except Exception as exc:
        results.append([type(exc).__name__, r])
print(json.dumps(results))
"""


def test_a_thousand_simultaneous_claims_of_one_new_folder(tmp_path: Path):
    """Processes claim the same new folder at the same instant, round after round (1,000
    claims in all): one wins each round, and no loser deletes what the winner made (on
    the code before the one-owner writer, 11 of 125 rounds of 8 lost the winner's folder)."""
    processes, rounds = 5, 200
    start = __import__("time").time() + 1.5
    children = [subprocess.Popen([sys.executable, "-c", CLAIMS, str(tmp_path), str(rounds),
                                  str(start), f"p{i}"], cwd=ROOT,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i in range(processes)]
    outcomes = []
    for i, child in enumerate(children):
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        outcomes.extend((f"p{i}", kind, r) for kind, r in json.loads(out))
    assert len(outcomes) == processes * rounds
    for r in range(rounds):
        this = [(who, kind) for who, kind, rr in outcomes if rr == r]
        winners = [who for who, kind in this if kind == "won"]
        assert len(winners) <= 1, (r, this)
        assert all(kind in ("won", "OutputBusyError", "OutputExistsError")
                   for _, kind in this), (r, this)
        folder = tmp_path / f"round-{r}"
        if winners:  # what the winner made is whole: its plan and its file
            assert (folder / "mine.txt").read_text() == winners[0], r
            assert json.loads((folder / "_plan.json").read_text())["owner"] == winners[0]
    assert sum(kind == "won" for _, kind, _ in outcomes) >= rounds // 2


def test_a_folder_holding_only_an_abandoned_plan_is_taken_over(tmp_path: Path):
    """What an interrupt as a run started could leave (its plan, a half-written temporary)
    holds nothing to keep: the same command runs again into it (it was refused)."""
    out = tmp_path / "run"
    out.mkdir()
    (out / "_plan.json").write_text('{"job": "backtest"}')
    (out / ".summary.parquet.0badcafe.tmp").write_bytes(b"half")
    result = cli("backtest", "-s", "flat", "--shoes", "5", "--out", str(out), "-q",
                 "--no-table")
    assert result.exit_code == 0, result.output
    assert (out / "run.json").is_file() and leftovers(out) == []


RECORDED = ("shoe,player,banker,winner\n"  # S2's second coup breaks the drawing rules
            "S1,9-K,3-2,P\nS1,6-K,7-K,B\nS2,9-K,3-2,P\nS2,A-5,K-4,B\nS3,6-K,7-K,B\n")


def test_messages_name_the_users_paths_not_internal_temporaries(tmp_path: Path,
                                                               monkeypatch):
    """The copy --skip-invalid-shoes plays and the folder the demo is built in are
    internal: run.json and every message name the user's dataset and --out."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.csv").write_text(RECORDED)
    assert cli("import", "kept.csv", "--out", "coups", "--keep-invalid", "-q").exit_code == 0
    played = cli("backtest", "--coups", "coups", "-s", "flat", "--out", "run", "-q",
                 "--no-table", "--skip-invalid-shoes")
    assert played.exit_code == 0, played.output
    dataset = json.loads((tmp_path / "run" / "run.json").read_text())["dataset"]
    assert dataset["path"] == "coups" and "flagged" in dataset["description"]
    refused = cli("backtest", "--coups", "coups", "-s", "flat", "--out", "run2", "-q",
                  "--skip-invalid-shoes", "--decks", "6")  # contradicts the dataset's rules
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    line = next(line for line in refused.output.splitlines() if line.startswith("error:"))
    assert line.startswith("error: coups (without") and "baccarat-" not in line

    demo = spawn("demo", "--shoes", "2000", "--out", str(tmp_path / "demo"), "-q",
                 "--no-table", env={"BACCARAT_REPORT_WORKERS": "0"})
    wait_until(lambda: any(p.name.startswith(".demo.") for p in tmp_path.iterdir()),
               "the demo under way", child=demo)
    demo.send_signal(signal.SIGINT)
    code, text = finish(demo)
    assert code == 130 and "interrupted" in text, text
    assert ".tmp" not in text and "--resume" not in text  # the demo has nothing to resume
    assert not (tmp_path / "demo").exists() and leftovers(tmp_path) == []
