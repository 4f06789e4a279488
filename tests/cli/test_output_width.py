"""Every command's output fits an 80-column terminal: a walk over every command (its help
and a real job of each, as processes forked by tests/cli_walk.py, at ``COLUMNS=80``)
finds no line wider than 80 columns.

The one-line messages are the exception, by design: an ``error:``, ``warning:``,
``note:`` or ``interrupted:`` line and a command's closing line (``wrote ...``) are one
line on a pipe, so that a script can grep them whole (on a terminal the closing line
wraps between words: tests/cli/test_terminal_width.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from baccarat.cli import app
from rich.cells import cell_len

COMMANDS = list(typer.main.get_command(app).commands)  # type: ignore[attr-defined]

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 80
#: A real job of each command, run in a folder of its own beside ``inputs/``.
JOBS: dict[str, list[list[str]]] = {
    "demo": [["demo", "--shoes", "300", "--out", "d"]],
    "odds": [["odds"], ["odds", "--compare"], ["odds", "--variant", "ez", "--json"],
             ["odds", "--remaining", "30,10,10,10,10,10,10,10,10,10"]],
    "generate": [["generate", "--shoes", "50", "--seed", "1", "--out", "g"]],
    "import": [["import", "../inputs/coups-cards.csv", "--out", "i"],
               ["import", "../inputs/coups-cards.csv", "--dry-run"],
               ["import", "../inputs/scorecard.txt", "--out", "s"]],
    "live": [["live", "--plain", "--out", "t.csv", "-s", "flat", "-s", "streak:n=2 | martingale"]],
    "analyze": [["analyze", "../inputs/sample.parquet", "--reference", "20", "--out", "a"],
                ["analyze", "../inputs/scorecard.txt", "--reference", "20", "--out", "b"],
                ["analyze", "../inputs/coups-cards.csv", "--reference", "20", "--out", "c"]],
    "backtest": [["backtest", "--coups", "../inputs/sample.parquet", "-s", "flat",
                  "-s", "martingale:max_doublings=[3,5]", "--out", "r", "--ledger", "none"],
                 ["backtest", "--shoes", "40", "-s", "streak:n=2 | dalembert | stop:win=50",
                  "--out", "q"]],
    "search": [["search", "../inputs/sample.parquet", "-s", "streak:n=1..3", "-s", "follow",
                "--null", "4", "--reps", "100", "--out", "s"]],
    "risk": [["risk", "-s", "martingale", "--coups", "40", "--check", "300"],
             ["risk", "-s", "road", "--check", "100"]],
    "compare": [["compare", "../inputs/run", "--out", "c"]],
    "report": [["report", "../inputs/run", "--out", "r.html"]],
    "roads": [["roads", "--coups", "../inputs/sample.parquet", "--shoe", "0"]],
    "strategies": [["strategies"]],
    "trace": [["trace", "streak:n=2 | martingale", "--outcomes", "BPPBBTPBPPPB"]],
    "check-strategy": [["check-strategy", "flat"]],
    "new-strategy": [["new-strategy", "mine"], ["new-strategy", "pick", "--part", "selection"]],
    "warm": [],  # compiling every kernel takes longer than a test should: its help only
}
MESSAGES = ("error:", "warning:", "note:", "interrupted:")


def too_wide(output: str) -> list[str]:
    """The lines of ``output`` wider than the terminal, one-line messages aside."""
    lines = output.rstrip("\n").splitlines()
    closing = len(lines) - 1
    return [line for i, line in enumerate(lines)
            if cell_len(line.rstrip()) > WIDTH and not line.startswith(MESSAGES)
            and not (i == closing and line.startswith(("wrote ", "kept ", "imported ")))]


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[list[str], str]]:
    base = tmp_path_factory.mktemp("width")
    inputs = base / "inputs"
    inputs.mkdir()
    for sample in ("coups-cards.csv", "scorecard.txt"):
        shutil.copy(ROOT / "data" / sample, inputs / sample)
    shutil.copy(ROOT / "data" / "generated-8deck-200.parquet", inputs / "sample.parquet")
    from baccarat import Run, backtest

    backtest(None, ["flat", "martingale"], shoes=40, seed=1,
             run=Run(out=inputs / "run", ledger=False))
    argvs = [[]] + [[name, "--help"] for name in COMMANDS]
    argvs += [args for name in COMMANDS for args in JOBS[name]]
    env = {"COLUMNS": str(WIDTH), "LINES": "24", "NO_COLOR": "1", "TERM": "dumb"}
    spec = []
    for i, args in enumerate(argvs):
        cwd = base / f"job{i:03d}"
        cwd.mkdir()
        spec.append({"args": args or ["--help"], "cwd": str(cwd), "log": str(cwd / "log"),
                     "interrupt": None, "env": env})
    (base / "jobs.json").write_text(json.dumps(spec))
    subprocess.run([sys.executable, str(ROOT / "tests" / "cli_walk.py"),
                    str(base / "jobs.json"), str(base / "results.json")],
                   check=True, cwd=ROOT, timeout=900)
    statuses = json.loads((base / "results.json").read_text())
    walked = []
    for job, status in zip(spec, statuses, strict=True):
        output = Path(job["log"]).read_text(encoding="utf-8", errors="replace")
        assert status == 0, f"baccarat {' '.join(job['args'])} exited {status}:\n{output}"
        walked.append((job["args"], output))
    return walked


def test_every_command_is_walked_with_a_job() -> None:
    assert set(JOBS) == set(COMMANDS)


def test_no_line_is_wider_than_the_terminal(walked: list[tuple[list[str], str]]) -> None:
    wide = {" ".join(args): too_wide(output) for args, output in walked}
    wide = {args: lines for args, lines in wide.items() if lines}
    assert not wide, "\n".join(f"baccarat {args}: {len(lines)} lines, e.g. "
                               f"{cell_len(lines[0])} columns: {lines[0]!r}"
                               for args, lines in wide.items())


def test_the_check_sees_a_wide_line() -> None:
    assert too_wide("a\n" + "x" * 81 + "\nwrote it\n") == ["x" * 81]
    assert not too_wide("note: " + "x" * 90 + "\nwrote " + "y" * 90 + "\n")
    assert too_wide("wrote " + "y" * 90 + "\nlast\n")  # only the closing line is let be
