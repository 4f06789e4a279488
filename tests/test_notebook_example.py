"""examples/first_hour.ipynb runs top to bottom in a real Jupyter kernel (nbclient), and
what it displays is what the notebook API promises: the dataset's summary, the result's
verdict table and figure, the figure of ``plot()`` and the report written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "first_hour.ipynb"


def test_the_example_notebook_runs_and_shows_the_results(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    notebook = nbformat.read(tmp_path / NOTEBOOK.name, as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
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
    assert "<th>martingale</th>" in result["text/html"] and "<svg" in result["text/html"]
    assert "image/png" in shown["result.plot()"]
    assert (tmp_path / "first_hour.html").stat().st_size > 10_000
