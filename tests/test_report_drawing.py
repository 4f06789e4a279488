"""A report's figures drawn in worker processes: the same page as drawn in one process.

The rest of the suite renders reports in-process (``BACCARAT_REPORT_WORKERS=0``, set in
``conftest.py``: its two workers keep both cores busy already); these tests start real
worker processes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from engine.backtest import backtest
from engine.report.drawing import WORKERS_VARIABLE, FigureDrawer, default_workers
from engine.report.html import figure_count, render_report, write_report
from engine.rules import TableRules

_FOOTER = re.compile(r"<footer.*?</footer>", re.S)  # it carries the minute of writing


def _page(text: str) -> str:
    return _FOOTER.sub("", text)


@pytest.fixture(scope="module")
def run2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("drawing") / "run2"
    backtest(strategies=["flat", "martingale"], shoes=60, seed=5, out=folder)
    return folder


def test_workers_draw_the_same_page_as_one_process(
        run2: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = render_report(run2, drawer=FigureDrawer(workers=0))
    assert figure_count(here) == 10  # two overlays, and four figures per configuration
    monkeypatch.setenv(WORKERS_VARIABLE, "2")  # what `baccarat report` uses on two cores
    steps: list[tuple[int, int]] = []
    drawn = render_report(run2, progress=lambda n, t: steps.append((n, t)))
    assert "<!--figure" not in drawn
    assert _page(drawn) == _page(here)
    assert steps == [(1, 4), (2, 4), (3, 4), (4, 4)]


def _broken_figure(values: object, prefix: str, *args: object, **kwargs: object) -> str:
    raise ValueError(f"cannot draw {prefix}")


@pytest.fixture(scope="module")
def run1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One configuration without a ledger: its first figure is the histogram of net."""
    folder = tmp_path_factory.mktemp("drawing") / "run1"
    backtest(strategies=["flat"], shoes=20, seed=5, ledger=False, out=folder)
    return folder


def test_a_figure_that_fails_in_a_worker_fails_the_report_and_writes_nothing(
        run1: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FigureDrawer(workers=1) as drawer:
        placeholder = drawer.draw(_broken_figure, [1.0], "fig9")
        with pytest.raises(ValueError, match="cannot draw fig9"):
            drawer.fill(f"<p>{placeholder}</p>")
    import engine.report.figures as figures

    monkeypatch.setattr(figures, "histogram", _broken_figure)
    out = tmp_path / "r.html"
    with pytest.raises(ValueError, match="cannot draw fig"):
        write_report(run1, out, drawer=FigureDrawer(workers=0))
    assert list(tmp_path.iterdir()) == []


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


def test_the_analysis_section_draws_on_the_workers_like_in_one_process(tmp_path: Path) -> None:
    """`baccarat report --analysis` hands the section's figures (one per statistic) to the
    report's drawer too: each comes back as drawing it here gives it."""
    import numpy as np
    from typer.testing import CliRunner

    from engine.cli import app
    from engine.deal import generate_coups
    from engine.io.parquet import write_coups
    from engine.report import figures
    from engine.report.analysis_section import analysis_section

    path = write_coups(generate_coups(TableRules(), 1, np.arange(20)),
                       tmp_path / "coups.parquet", TableRules())
    done = CliRunner().invoke(app, ["analyze", str(path), "--reference", "30", "--out",
                                    str(tmp_path / "a"), "--quiet"])
    assert done.exit_code == 0, done.output
    drawn: list[tuple] = []
    with FigureDrawer(workers=2) as drawer:
        handed_out = drawer.draw

        def draw(function, *args):  # noqa: ANN001, ANN202 - records what is handed out
            drawn.append((function, args))
            return handed_out(function, *args)

        drawer.draw = draw  # type: ignore[method-assign]
        section = drawer.fill(analysis_section(tmp_path / "a", drawer))
    assert "<!--figure" not in section and section.count("<figure>") == len(drawn) > 10
    assert {function for function, _ in drawn} == {figures.reference_figure}
    for function, args in (drawn[0], drawn[-1]):
        assert function(*args) in section


def test_a_process_with_other_threads_draws_its_figures_itself() -> None:
    """Forking copies one thread: a lock another one held would stay held in the copy."""
    import threading

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
    with FigureDrawer(workers=2) as drawer:
        assert drawer.workers == 2
