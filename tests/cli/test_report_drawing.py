"""A report's figures drawn in worker processes: the same page as drawn in one process.

The rest of the suite renders reports in-process (``BACCARAT_REPORT_WORKERS=0``, set in
``conftest.py``: its two workers keep both cores busy already). The workers are forked only
from a process with no other Python thread running, and a test process may have some left
by earlier tests (a Dask cluster's), so what needs real workers runs in a fresh
interpreter (``_fresh``) and reports back.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from baccarat import Run, backtest
from baccarat.deal import generate_coups
from baccarat.io.parquet import write_coups
from baccarat.report import figures
from baccarat.report.analysis_section import analysis_section
from baccarat.report.drawing import WORKERS_VARIABLE, FigureDrawer, default_workers
from baccarat.report.html import figure_count, render_report, write_report
from baccarat.rules import TableRules

ROOT = Path(__file__).resolve().parents[2]
_FOOTER = re.compile(r"<footer.*?</footer>", re.S)  # it carries the minute of writing


def _page(text: str) -> str:
    return _FOOTER.sub("", text)


def _fresh(code: str, *args: object) -> dict:
    """Run ``code`` in a new interpreter (one thread, no report workers set); the JSON object
    its last line prints."""
    env = {k: v for k, v in os.environ.items() if k != WORKERS_VARIABLE}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def run2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("drawing") / "run2"
    backtest(None, ["flat", "martingale"], shoes=60, seed=5, run=Run(out=folder))
    return folder


_ON_WORKERS = """
import json, sys
from baccarat.report.analysis_section import analysis_section
from baccarat.report.drawing import FigureDrawer
from baccarat.report.html import render_report

run, page, analysis = sys.argv[1:4]
results = {}
steps = []
with FigureDrawer(workers=2) as drawer:
    text = render_report(run, drawer=drawer, progress=lambda n, t: steps.append([n, t]))
    results["render"] = {"workers": drawer.workers, "submitted": drawer.submitted,
                         "steps": steps}
open(page, "w", encoding="utf-8").write(text)

with FigureDrawer(workers=2) as drawer:
    section = drawer.fill(analysis_section(analysis, drawer))
    results["analysis"] = {"workers": drawer.workers, "submitted": drawer.submitted,
                           "section": section}

def broken(values, prefix):
    raise ValueError(f"cannot draw {prefix}")

with FigureDrawer(workers=1) as drawer:
    placeholder = drawer.draw(broken, [1.0], "fig9")  # handed to the worker: no error yet
    try:
        drawer.fill(f"<p>{placeholder}</p>")
        raised = None
    except ValueError as error:
        raised = str(error)
    results["broken"] = {"workers": drawer.workers, "placeholder": placeholder,
                         "raised": raised}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def analysis_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``baccarat analyze`` of 20 shoes: a section of more than ten figures."""
    from baccarat.cli import app
    from typer.testing import CliRunner

    folder = tmp_path_factory.mktemp("drawing")
    path = write_coups(generate_coups(TableRules(), 1, np.arange(20)),
                       folder / "coups.parquet", TableRules())
    done = CliRunner().invoke(app, ["analyze", str(path), "--reference", "30", "--out",
                                    str(folder / "a"), "--quiet"])
    assert done.exit_code == 0, done.output
    return folder / "a"


@pytest.fixture(scope="module")
def on_workers(run2: Path, analysis_folder: Path,
               tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """What a fresh interpreter drew on its workers for the tests below (run2's report,
    written to the path returned; the analysis section; a figure that fails), in one
    interpreter for the three, as starting one costs more than the drawing."""
    page = tmp_path_factory.mktemp("drawing") / "r.html"
    return _fresh(_ON_WORKERS, run2, page, analysis_folder), page


def test_workers_draw_the_same_page_as_one_process(run2: Path,
                                                  on_workers: tuple[dict, Path]) -> None:
    here = render_report(run2, drawer=FigureDrawer(workers=0))
    from report_figures import expected_figures  # counted from the session rows

    expected = expected_figures(run2)
    assert figure_count(here) == expected  # overlays, and three to five per configuration
    result = on_workers[0]["render"]
    assert result["workers"] == 2 and result["submitted"] == expected
    drawn = on_workers[1].read_text(encoding="utf-8")
    assert "<!--figure" not in drawn
    assert _page(drawn) == _page(here)
    assert result["steps"] == [[1, 4], [2, 4], [3, 4], [4, 4]]


def _broken_figure(values: object, prefix: str, *args: object, **kwargs: object) -> str:
    raise ValueError(f"cannot draw {prefix}")


@pytest.fixture(scope="module")
def run1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One configuration without a ledger: its first figure is the histogram of net."""
    folder = tmp_path_factory.mktemp("drawing") / "run1"
    backtest(None, ["flat"], shoes=20, seed=5, run=Run(ledger=False, out=folder))
    return folder


def test_a_figure_that_fails_fails_the_report_and_writes_nothing(
        run1: Path, on_workers: tuple[dict, Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    in_a_worker = on_workers[0]["broken"]
    assert in_a_worker == {"workers": 1, "placeholder": "<!--figure 0-->",
                           "raised": "cannot draw fig9"}
    monkeypatch.setattr(figures, "histogram", _broken_figure)
    out = tmp_path / "r.html"
    with pytest.raises(ValueError, match="cannot draw fig"):
        write_report(run1, out, drawer=FigureDrawer(workers=0))
    assert list(tmp_path.iterdir()) == []


def test_the_analysis_section_draws_on_the_workers_like_in_one_process(
        analysis_folder: Path, on_workers: tuple[dict, Path]) -> None:
    """`baccarat report --analysis` hands the section's figures (one per statistic) to the
    report's drawer too: the section comes back as drawing it here gives it."""
    result = on_workers[0]["analysis"]
    section = result["section"]
    assert result["workers"] == 2
    assert "<!--figure" not in section
    assert section.count("<figure>") == result["submitted"] > 10
    assert analysis_section(analysis_folder) == section  # every figure drawn here instead


def test_the_number_of_workers_comes_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WORKERS_VARIABLE, "3")
    assert default_workers() == 3
    monkeypatch.setenv(WORKERS_VARIABLE, "0")
    assert default_workers() == 0 and FigureDrawer().draw(str.upper, "svg") == "SVG"
    monkeypatch.setenv(WORKERS_VARIABLE, "two")
    with pytest.raises(ValueError, match="BACCARAT_REPORT_WORKERS must be a whole number"):
        default_workers()
    monkeypatch.delenv(WORKERS_VARIABLE)
    cores = len(os.sched_getaffinity(0))
    assert default_workers() == (min(2, cores) if cores > 1 else 0)


def test_a_process_with_other_threads_draws_its_figures_itself() -> None:
    """Forking copies one thread: a lock another one held would stay held in the copy."""
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        with FigureDrawer(workers=2) as drawer:
            assert drawer.workers == 0
            assert drawer.draw(str.upper, "svg") == "SVG"
    finally:
        release.set()
        other.join()
