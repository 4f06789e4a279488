"""The documentation's examples are tests: each document's console and Python examples run
top to bottom in a folder of their own and print what the document shows
(the format: tests/docs_examples.py)."""

from __future__ import annotations

import re
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


def test_the_readme_is_a_front_door() -> None:
    """Read in five minutes: at most 300 lines, a system of one's own in the first 120,
    and nothing that changes with each commit or belongs to one machine."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 300
    first = "\n".join(lines[:120])
    assert "from baccarat.strategies import SimpleSelection" in first
    assert re.search(r'"after_two\.py:AfterTwoPlayers \| \w+', first)  # composed
    for pattern in (r"this machine", r"CPU-s", r"\bissue \d", r"\d[\d,]* (tests|passed)\b",
                    r"/work/", r"/tmp/"):
        assert not re.search(pattern, text, re.IGNORECASE), pattern


@pytest.mark.parametrize("name", [name for name in DOCUMENTS if name.endswith(".md")])
def test_every_relative_link_leads_to_a_file(name: str) -> None:
    """A link of the README or a docs page (outside code) names a file that is there, and
    an anchor into a page one of its headings (as MkDocs and GitHub make them)."""
    path = ROOT / name
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{name}: {target}"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-")
                     for h in headings}
            assert anchor in slugs, f"{name}: {target} (headings: {sorted(slugs)})"
