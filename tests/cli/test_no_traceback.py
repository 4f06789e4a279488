"""No command ends in a traceback: every command of ``baccarat.cli.app`` (those added
later included) is given a non-Parquet, an empty and a binary file wherever it takes a
file, and is interrupted (Ctrl-C: SIGINT to its process group) at 0.5, 1 and 2 s of a run
that works. Each ends with its output, one ``error:`` line or one ``interrupted`` line;
it leaves no temporary behind, and no message names a temporary path.

The command lines run as real processes forked from one interpreter that imported the
command line once (tests/cli_walk.py), a couple at a time: starting Python and importing
numpy, pandas and pyarrow for each of some 120 command lines would cost minutes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main
from baccarat import Run
from baccarat.cli import app

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = list(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
INTERRUPTS = (0.5, 1.0, 2.0)
#: The bad files: a recorded CSV (not Parquet), an empty file and random bytes.
BAD_FILES = {"shoes.csv": (ROOT / "data" / "outcomes.csv").read_bytes(),
             "empty.parquet": b"",
             "noise.bin": bytes((i * 7919 + 13) % 256 for i in range(4096))}
#: A run of each command that works and lasts a while, to interrupt (relative to a job's
#: folder; ../inputs holds the bad files and the samples). A command not named here is
#: interrupted in its run over shoes.csv.
WORKLOADS: dict[str, list[str]] = {
    "backtest": ["-s", "flat", "-s", "martingale", "--shoes", "300000", "--chunk", "3000",
                 "--workers", "2", "--out", "run", "-q"],
    "generate": ["--shoes", "300000", "--chunk", "3000", "--workers", "2", "--out", "gen",
                 "-q"],
    "analyze": ["../inputs/sample.parquet", "--reference", "400", "--out", "an", "-q"],
    "demo": ["--out", "demo", "-q"],
    "import": ["../inputs/coups-cards.csv", "../inputs/scorecard.txt", "--out", "imp", "-q"],
    "check-strategy": ["martingale"],
    "warm": [],
    "odds": ["--compare"],
    "strategies": [],
    "trace": ["martingale", "--coups", "../inputs/sample.parquet", "--shoe", "3"],
    "roads": ["--coups", "../inputs/sample.parquet", "--shoe", "3"],
    "new-strategy": ["my_system"],
    "compare": ["../inputs/run"],
    "report": ["../inputs/run", "--out", "report.html"],
    "search": ["../inputs/sample.parquet", "-s", "streak:n=1..8", "-s", "martingale",
               "--null", "50", "--out", "found", "-q"],
}


@dataclass
class Job:
    command: str
    args: list[str]
    cwd: Path
    interrupt: float | None
    status: int | None = None

    @property
    def log(self) -> Path:
        return self.cwd / "_output.txt"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def describe(self) -> str:
        when = f" (Ctrl-C at {self.interrupt} s)" if self.interrupt is not None else ""
        return f"baccarat {' '.join(self.args)}{when} -> {self.status}"


def file_slots(command: Any) -> list[Any]:
    """The parameters of a click command that take an input file."""
    return [p for p in command.params
            if (p.param_type_name == "argument" or p.type_descriptor.is_path)
            and p.name not in ("out", "dir")]


def fill(command: Any, slot: Any, value: str) -> list[str]:
    """A command line giving ``value`` to ``slot`` and something plausible to every other
    required parameter, writing into ``out`` when the command writes."""
    args = [command.name]
    for param in command.params:
        if param is slot:
            given = value
        elif param.required:
            given = {"int": "0", "float": "1"}.get(param.bare_type(), "flat")
        else:
            continue
        args += [given] if param.param_type_name == "argument" else [param.opts[0], given]
    if any(p.name == "out" for p in command.params) and not any(
            p is slot and p.name == "out" for p in command.params):
        args += ["--out", "out"]
    return args


def jobs_for(base: Path) -> list[Job]:
    group = typer.main.get_command(app)
    jobs: list[Job] = []

    def add(command: str, args: list[str], interrupt: float | None) -> None:
        cwd = base / f"job{len(jobs):03d}"
        cwd.mkdir()
        jobs.append(Job(command, args, cwd, interrupt))

    for name in COMMANDS:
        command = group.commands[name]  # type: ignore[attr-defined]
        for slot in file_slots(command):
            for bad in BAD_FILES:
                add(name, fill(command, slot, f"../inputs/{bad}"), None)
        workload = ([name, *WORKLOADS[name]] if name in WORKLOADS else
                    fill(command, file_slots(command)[0], "../inputs/shoes.csv")
                    if file_slots(command) else [name])
        for seconds in INTERRUPTS:
            add(name, workload, seconds)
    return jobs


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> list[Job]:
    base = tmp_path_factory.mktemp("walk")
    inputs = base / "inputs"
    inputs.mkdir()
    for name, content in BAD_FILES.items():
        (inputs / name).write_bytes(content)
    for sample in ("coups-cards.csv", "scorecard.txt"):
        shutil.copy(ROOT / "data" / sample, inputs / sample)
    shutil.copy(ROOT / "data" / "generated-8deck-200.parquet", inputs / "sample.parquet")
    from baccarat import backtest

    backtest(None, ["flat", "martingale"], shoes=40, seed=1,
             run=Run(out=inputs / "run", ledger=False))
    jobs = jobs_for(base)
    spec = [{"args": job.args, "cwd": str(job.cwd), "log": str(job.log),
             "interrupt": job.interrupt, "env": {"COLUMNS": "80"}} for job in jobs]
    (base / "jobs.json").write_text(json.dumps(spec))
    subprocess.run([sys.executable, str(ROOT / "tests" / "cli_walk.py"),
                    str(base / "jobs.json"), str(base / "results.json")],
                   check=True, cwd=ROOT, timeout=900)
    for job, status in zip(jobs, json.loads((base / "results.json").read_text()),
                           strict=True):
        job.status = status
    return jobs


def test_every_command_is_walked(walked: list[Job]) -> None:
    assert {job.command for job in walked} == set(COMMANDS)
    assert all(job.status != -9 for job in walked), [j.describe() for j in walked
                                                     if j.status == -9]


def test_no_command_ends_in_a_traceback(walked: list[Job]) -> None:
    bad = [f"{job.describe()}:\n{job.output()[-1500:]}" for job in walked
           if "Traceback (most recent call last)" in job.output()]
    assert not bad, "\n\n".join(bad[:3])


def test_a_failure_is_one_error_line_and_an_interrupt_says_so(walked: list[Job]) -> None:
    wrong = []
    for job in walked:
        lines = [line for line in job.output().splitlines() if line.strip()]
        last = lines[-1] if lines else ""
        if job.status == 130:
            ok = last.startswith("interrupted") and job.interrupt is not None
        elif job.status not in (0, None):
            ok = any(line.startswith("error:") for line in lines)
        else:
            ok = True
        if not ok:
            wrong.append(f"{job.describe()}: {last!r}")
    assert not wrong, "\n".join(wrong[:5])


def test_nothing_is_left_behind_and_no_message_names_a_temporary(walked: list[Job]) -> None:
    left, named = [], []
    for job in walked:
        for path in job.cwd.rglob("*"):
            if path.name.endswith(".tmp") or (path.name.startswith(".") and
                                              path.name.endswith((".tmp", ".lock"))):
                left.append(f"{job.describe()}: {path.relative_to(job.cwd)}")
            if path.is_dir() and [p.name for p in path.iterdir()] == ["_plan.json"]:
                left.append(f"{job.describe()}: {path.relative_to(job.cwd)} holds only "
                            "_plan.json")
        text = job.output()
        if "/tmp/" in text or ".tmp" in text:
            named.append(f"{job.describe()}: {text[-300:]}")
    assert not left, "\n".join(left[:5])
    assert not named, "\n".join(named[:5])
