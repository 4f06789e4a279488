"""The documentation's examples, run as tests: the machinery behind tests/docs/test_docs.py.

Every console and Python example in README.md, data/README.md and docs/**/*.md runs, top to
bottom, in a fresh folder of its own (where the repository's ``data/``, ``examples/`` and
``benchmarks/`` are visible), and what it prints is compared with what the document shows.
The documents are parsed with sybil (its Markdown lexers, regions and skip directive); the
evaluators below run the blocks. The format, for whoever writes an example:

- A ```` ```console ```` block is a terminal session. ``$ `` starts a command; a line
  starting with ``> `` continues it (and so does any line after one ending in ``\\``).
  The lines up to the next command are what it prints, stdout and stderr together, as
  sent to a pipe at ``COLUMNS=80`` (no progress bars, no colour). The command runs in
  bash, in the document's folder; shell variables it sets are there for the document's
  next commands, as in one terminal.
- A ```` ```python ```` block runs in one namespace per document (in the same folder);
  a ```` ```text ```` block right after it is what it prints.
- Shown output is compared line by line (trailing spaces ignored). Two placeholders:
  ``<time>`` stands for a duration (``4.6s``, ``120 ms``) and ``<rate>`` for a speed
  (``572,612``, ``2.44M`` before ``coups/s``), ``<pid>`` for a process id (``pid
  15037``): they differ from run to run;
  a line starting with ``...`` stands for any number of lines, and the rest of that line
  is a note to the reader (``... (rows cut here: every other statistic)``).
- A command ending in the comment ``# Ctrl-C after N s`` is interrupted as a terminal
  does (SIGINT to its process group) N seconds after it starts; ``# Ctrl-C once GLOB
  exists`` as soon as a file matching GLOB (in the document's folder) is there.
- ``<!-- skip: next "why" -->`` before a block leaves it out (sybil's skip directive):
  only for what cannot run inside the tests (the install, the test suite itself).
- ``<!-- file: NAME -->`` before a block writes the block's text to NAME in the
  document's folder (a plugin file the next commands use).
- ``<!-- excerpt: PATH -->`` before a block says it is an excerpt of the file PATH (in the
  document's folder, where an earlier command may have written it, else in the
  repository): it is checked to be there, word for word, and not run.

``BACCARAT_DOCS_UPDATE=1 python -m pytest tests/docs/test_docs.py`` rewrites the shown outputs
with what the commands print now (keeping ``<time>``, and the lines before and after a
single ``...``), for a change that alters them on purpose: read the diff before committing.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import SkipTest

from sybil import Document, Example, Region
from sybil.parsers.markdown import SkipParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

ROOT = Path(__file__).resolve().parents[1]
#: The documents whose examples are tests.
DOCUMENTS = ("README.md", "data/README.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")))
#: What a document's folder sees of the repository.
SHARED = ("data", "examples", "benchmarks")
UPDATE = os.environ.get("BACCARAT_DOCS_UPDATE") == "1"

TIME = "<time>"
_DURATION = r"\b\d+(?:\.\d+)?\s?(?:ms|s|min)\b"
RATE = "<rate>"
_RATE = r"\d[\d,]*(?:\.\d+)?[kM]?"
PID = "<pid>"
_PID = r"\d+"
_PLACEHOLDERS = {TIME: _DURATION, RATE: _RATE, PID: _PID}
_INTERRUPT = re.compile(r"#\s*Ctrl-C (?:after (?P<seconds>\d+(?:\.\d+)?)\s*s|once (?P<glob>\S+) "
                        r"exists?)\s*$")
_DIRECTIVE = re.compile(r"<!--\s*(file|excerpt):\s*(\S+)\s*-->\s*\n\s*$")


# -- comparing what was printed with what is shown ---------------------------------------------

def _line_pattern(line: str) -> str:
    pieces = re.split(f"({'|'.join(map(re.escape, _PLACEHOLDERS))})", line.rstrip())
    return "".join(_PLACEHOLDERS.get(piece) or re.escape(piece) for piece in pieces)


def matches(shown: str, printed: str) -> bool:
    """Whether ``printed`` is what ``shown`` shows, placeholders and all."""
    pattern = []
    for line in shown.splitlines():
        if line.startswith("..."):
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(_line_pattern(line) + r"\n")
    text = "".join(line.rstrip() + "\n" for line in printed.splitlines())
    return re.fullmatch("".join(pattern), text) is not None


def with_placeholders(shown: str, printed: str) -> str:
    """``printed`` written as ``shown`` would show it: durations as ``<time>`` where the
    shown text has one, and with a single ``...`` line kept with as many lines before and
    after it as ``shown`` had (for updating a document)."""
    lines = [re.sub(rf"\bin {_DURATION}", f"in {TIME}", line.rstrip())
             for line in printed.splitlines()]
    if TIME in shown:
        lines = [re.sub(_DURATION, TIME, line) for line in lines]
    if RATE in shown:
        lines = [re.sub(rf"{_RATE}(?= coups/s)", RATE, line) for line in lines]
    if PID in shown:
        lines = [re.sub(rf"(?<=pid ){_PID}", PID, line) for line in lines]
    shown_lines = shown.splitlines()
    cuts = [i for i, line in enumerate(shown_lines) if line.startswith("...")]
    if len(cuts) == 1:
        head, tail = cuts[0], len(shown_lines) - cuts[0] - 1
        if head + tail <= len(lines):
            lines = lines[:head] + [shown_lines[head]] + (lines[len(lines) - tail:]
                                                           if tail else [])
    elif cuts:
        return shown  # several cuts: left to a person
    return "".join(line + "\n" for line in lines)


def difference(shown: str, printed: str) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(shown.splitlines(), printed.splitlines(),
                                          "shown", "printed", lineterm=""))


class ExampleMismatch(AssertionError):
    """An example printed something other than what its document shows."""


# -- the document's run: its folder and environment ---------------------------------------------

@dataclass
class DocumentRun:
    """One document's examples run top to bottom in ``folder``."""

    folder: Path
    edits: list[tuple[int, int, str]] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("BACCARAT_DEBUG", "PYTEST_", "COV_"))}
        env.update(COLUMNS="80", LINES="40", TERM="dumb", NO_COLOR="1", PYTHONUNBUFFERED="1",
                   PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
        env.pop("FORCE_COLOR", None)
        return env

    def check(self, example: Example, start: int, shown: str, printed: str,
              what: str) -> None:
        if matches(shown, printed):
            return
        if UPDATE:
            self.edits.append((start, start + len(shown), with_placeholders(shown, printed)))
            return
        raise ExampleMismatch(f"{example.path}, line {example.line}: {what} printed "
                              f"something else than shown:\n{difference(shown, printed)}")


def run_of(example: Example) -> DocumentRun:
    return example.namespace["__docs_run__"]  # type: ignore[no-any-return]


def prepare(document: Document, folder: Path) -> DocumentRun:
    """Lay out ``folder`` for ``document``'s examples and remember it in its namespace."""
    for name in SHARED:
        if (ROOT / name).exists() and not (folder / name).exists():
            (folder / name).symlink_to(ROOT / name)
    run = DocumentRun(folder)
    document.namespace["__docs_run__"] = run
    return run


def run_all(document: Document) -> tuple[int, list[str]]:
    """Run every example of ``document`` in order: (examples run, skip reasons)."""
    run = run_of_document(document)
    ran, skipped = 0, []
    previous = Path.cwd()
    os.chdir(run.folder)
    try:
        for example in document:
            try:
                example.evaluate()
            except SkipTest as skip:
                skipped.append(f"line {example.line}: {skip}")
                continue
            ran += 1
    finally:
        os.chdir(previous)
        if UPDATE and run.edits:
            _apply(Path(document.path), run.edits)
    return ran, skipped


def run_of_document(document: Document) -> DocumentRun:
    return document.namespace["__docs_run__"]  # type: ignore[no-any-return]


def _apply(path: Path, edits: list[tuple[int, int, str]]) -> None:
    text = path.read_text(encoding="utf-8")
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    path.write_text(text, encoding="utf-8")


# -- console blocks ---------------------------------------------------------------------------

@dataclass
class Command:
    """One ``$`` command of a console block and the output shown after it."""

    text: str          # as bash runs it
    output: str        # as shown
    output_start: int  # where the shown output starts in the document


def console_commands(source: str, offset: int) -> list[Command]:
    """The commands of a console block's ``source`` (which starts at ``offset``)."""
    commands: list[Command] = []
    lines = source.splitlines(keepends=True)
    position = offset
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            raise ValueError(f"console block: output before the first command: {line!r}")
        parts = [line[2:]]
        position += len(line)
        i += 1
        while i < len(lines) and (lines[i].startswith("> ") or
                                  parts[-1].rstrip("\n").endswith("\\")):
            parts.append(lines[i][2:] if lines[i].startswith("> ") else lines[i])
            position += len(lines[i])
            i += 1
        start = position
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            position += len(lines[i])
            i += 1
        commands.append(Command("".join(parts), "".join(output), start))
    return commands


def run_command(command: str, run: DocumentRun, timeout: float = 600) -> str:
    """What ``command`` prints (stdout and stderr as one stream) run by bash in the folder."""
    interrupt = _INTERRUPT.search(command.strip())
    state = run.folder / ".docs-shell-variables"
    script = (f"[ -f {state} ] && . {state}\n{command}\nstatus=$?\n"
              # the variables this document's commands set, for its next commands (one
              # terminal's session), without bash's own read-only ones
              f"declare -p | grep -v '^declare -[a-zA-Z]*r' > {state}.new 2>/dev/null "
              f"&& mv {state}.new {state}\nexit $status\n")
    process = subprocess.Popen(["bash", "-c", script], cwd=run.folder, env=run.env(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True, text=True)
    try:
        if interrupt:
            _wait_for(interrupt, process, run.folder)
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
        out, _ = process.communicate(timeout=timeout)
        return out
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_for(interrupt: re.Match[str], process: subprocess.Popen[str], folder: Path,
              limit: float = 120) -> None:
    """Wait for the moment an interrupt names (its output is read afterwards: a command
    that prints more than a pipe holds before it must not be interrupted this way)."""
    if interrupt.group("seconds"):
        deadline = time.monotonic() + float(interrupt.group("seconds"))
        while time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        return
    deadline = time.monotonic() + limit
    while not any(folder.glob(interrupt.group("glob"))):
        if process.poll() is not None or time.monotonic() > deadline:
            return
        time.sleep(0.02)


def evaluate_console(example: Example) -> None:
    run = run_of(example)
    for command in example.parsed:
        printed = run_command(command.text, run)
        run.check(example, command.output_start, command.output, printed,
                  f"`{command.text.strip()}`")


# -- python blocks ----------------------------------------------------------------------------

@dataclass
class PythonBlock:
    source: str
    line: int
    output: str | None      # the text block after it, if any
    output_start: int


def evaluate_python(example: Example) -> None:
    block: PythonBlock = example.parsed
    run = run_of(example)
    code = compile("\n" * (block.line - 1) + block.source, str(example.path), "exec")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(code, example.namespace)
    if block.output is not None:
        run.check(example, block.output_start, block.output, printed.getvalue(),
                  "the Python example")


# -- files and excerpts -----------------------------------------------------------------------

def evaluate_file(example: Example) -> None:
    name, text = example.parsed
    target = run_of(example).folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def evaluate_excerpt(example: Example) -> None:
    name, text = example.parsed
    here = run_of(example).folder / name
    source = (here if here.exists() else ROOT / name).read_text(encoding="utf-8")
    text = textwrap.dedent(text).strip("\n")
    indented = (textwrap.indent(text, " " * depth, lambda line: bool(line.strip()))
                for depth in range(0, 17, 4))
    if not any(block in source for block in indented):
        raise ExampleMismatch(f"{example.path}, line {example.line}: the excerpt of {name} "
                              f"is not in it word for word")


# -- the parser: every fenced block, classified ------------------------------------------------

class FencedBlocks:
    """Regions for the fenced blocks the format above runs."""

    def __init__(self) -> None:
        self.lexer = FencedCodeBlockLexer(language=r"[\w-]*")

    def __call__(self, document: Document) -> Iterable[Region]:
        blocks = sorted(self.lexer(document), key=lambda r: r.start)
        used: set[int] = set()
        for i, region in enumerate(blocks):
            if i in used:
                continue
            language = region.lexemes["language"]
            source = region.lexemes["source"]
            source_start = region.start + document.text[region.start:].index("\n") + 1
            before = document.text[max(0, region.start - 300):region.start]
            directive = _DIRECTIVE.search(before)
            if directive:
                kind, name = directive.groups()
                evaluator = evaluate_file if kind == "file" else evaluate_excerpt
                yield Region(region.start, region.end, (name, str(source)), evaluator)
            elif language == "console":
                yield Region(region.start, region.end,
                             console_commands(str(source), source_start), evaluate_console)
            elif language == "python":
                output, output_start, end = None, 0, region.end
                following = blocks[i + 1] if i + 1 < len(blocks) else None
                if (following is not None and following.lexemes["language"] == "text"
                        and not document.text[region.end:following.start].strip()):
                    used.add(i + 1)
                    output = str(following.lexemes["source"])
                    output_start = (following.start +
                                    document.text[following.start:].index("\n") + 1)
                    end = following.end
                line = document.text.count("\n", 0, source_start) + 1
                yield Region(region.start, end,
                             PythonBlock(str(source), line, output, output_start),
                             evaluate_python)


def parse(path: Path) -> Document:
    """``path`` parsed into its examples (skips included)."""
    return Document.parse(str(path), SkipParser(), FencedBlocks())


def commands(path: Path) -> Iterator[str]:
    """Every console command of a document, as bash runs it."""
    for example in parse(path):
        if example.region.evaluator is evaluate_console:
            yield from (command.text for command in example.parsed)


def namespace_of(document: Document) -> dict[str, Any]:
    return document.namespace
