"""examples/first_hour.ipynb runs top to bottom in a real Jupyter kernel (nbclient), and
what it displays is what the notebook API promises: the dataset's summary, a progress bar
that moves while the backtest runs, the result's verdict table and figure, the figure of
``plot()``, the comparison's verdict table and the report written."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "first_hour.ipynb"


class CountingClient(nbclient.NotebookClient):
    """Runs a notebook and keeps, by cell, the text of every display updated in place
    while the cell runs (a progress bar's redraws; the notebook keeps only the last)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.updates: dict[int, list[str]] = {}

    def process_message(self, msg, cell, cell_index):  # noqa: ANN001, ANN201 - nbclient's
        if msg.get("msg_type") == "update_display_data":
            text = msg["content"]["data"].get("text/plain", "")
            self.updates.setdefault(cell_index, []).append(text)
        return super().process_message(msg, cell, cell_index)


def test_the_example_notebook_runs_and_shows_the_results(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    notebook = nbformat.read(tmp_path / NOTEBOOK.name, as_version=4)
    # every report of the run redraws the bar (not at most five times a second), so the
    # count below does not depend on the machine's speed; and the run is cut into chunks
    # of 250 shoes, each played by the compiled path in one call (in tests/play/test_parallel.py
    # replayed chunks report within themselves)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(
        "import importlib, baccarat.progress\nbaccarat.progress.NotebookBar.EVERY = 0\n"
        "importlib.import_module('baccarat.backtest').DEFAULT_CHUNK_SHOES = 250"))
    client = CountingClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    shown = {}
    for cell in notebook.cells:
        if cell.cell_type == "code":
            data: dict[str, str] = {}
            for output in cell.get("outputs", []):
                assert output.get("output_type") != "error", output
                for kind, value in output.get("data", {}).items():
                    data[kind] = data.get(kind, "") + str(value)
            shown[cell.source.splitlines()[0]] = data
    assert "2,000 shoes" in shown["shoes = generate(2000, seed=2024)"]["text/plain"]
    result = shown['result = backtest(shoes, ["flat", "martingale", "fibonacci"],']
    # the bar moved while the sessions were played, not only at the end: its redraws
    # count up through the 2,000 one-shoe sessions, chunk by chunk
    index = next(i for i, cell in enumerate(notebook.cells)
                 if cell.source.startswith("result = backtest("))
    counts = [int(re.search(r": ([\d,]+)/2,000 sessions", text).group(1).replace(",", ""))
              for text in client.updates.get(index, [])]
    assert counts == sorted(counts) and counts[-1] == 2000
    assert {250, 1000, 1750} <= set(counts)
    assert re.match(r"backtest: 2,000/2,000 sessions, [\d.]+ s", result["text/plain"])
    assert "<th>martingale</th>" in result["text/html"] and "<svg" in result["text/html"]
    assert "image/png" in shown["result.plot()"]
    comparison = shown['comparison = compare({"first hour": result})']["text/html"]
    assert "<b>Comparison</b>" in comparison and "<th>fibonacci</th>" in comparison
    assert "<svg" in comparison
    assert (tmp_path / "first_hour.html").stat().st_size > 10_000
