"""The documentation's examples are tests: each document's console and Python examples run
top to bottom in a folder of their own and print what the document shows
(the format: tests/docs_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_examples import DOCUMENTS, ROOT, matches, parse, prepare, run_all, with_placeholders


@pytest.mark.parametrize("name", [name for name in DOCUMENTS if list(parse(ROOT / name))])
def test_examples_print_what_the_document_shows(name: str, tmp_path: Path) -> None:
    document = parse(ROOT / name)
    prepare(document, tmp_path)
    run_all(document)


def test_placeholders_match_timings_and_cut_lines() -> None:
    shown = "wrote run in <time>\n... (rows cut here)\nlast\n"
    assert matches(shown, "wrote run in 4.6s\na\nb\nlast\n")
    assert matches(shown, "wrote run in 120 ms\nlast\n")
    assert not matches(shown, "wrote run in soon\nlast\n")
    assert not matches(shown, "wrote run in 4.6s\na\n")
    assert not matches("1,000\n", "1,001\n")  # numbers are compared
    assert matches("in use by another run (pid <pid>)\n", "in use by another run (pid 1234)\n")
    assert not matches("in use (pid <pid>)\n", "in use (pid ?)\n")


def test_an_update_keeps_the_placeholders() -> None:
    shown = "first\n... (cut)\nwrote x in <time>\n"
    assert with_placeholders(shown, "first\nA\nB\nwrote x in 9.1s\n") == \
        "first\n... (cut)\nwrote x in <time>\n"
    assert with_placeholders("held (pid <pid>)\n", "held (pid 77)\n") == "held (pid <pid>)\n"
