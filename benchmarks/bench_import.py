"""Speed and peak memory of ``baccarat import`` on big recorded inputs.

Two inputs are written into a temporary folder (never kept), from seeded generated shoes:

- ``cards``: a card-level CSV, one coup per row with a shoe label, a coup number, six
  card columns, totals and winner (``--coups``, 5,000,000 by default);
- ``messages``: a live-table message log of about ``--log-mb`` MB (1,000 by default):
  every coup a log line ``[hh:mm:ss] {"type": "baccarat.history", ...}`` holding the whole
  shoe so far (winner and both scores per coup), with chat messages and connection lines
  between them, as live-casino clients record them;
- ``json``: one JSON document of about ``--json-mb`` MB (500 by default), a game
  history export ``{"meta": {...}, "data": {"results": [...]}}``: one coup record a line
  (round, shoe, both hands' cards and scores, the result), far past the size read whole.

Each import runs ``baccarat import FILE --out DIR --quiet`` in a fresh process; the report
gives the wall time, the child's CPU seconds, coups per second and the child's peak
resident memory (``VmHWM``), median over ``--repeat`` runs. The targets: peak memory under
1 GB for the card CSV and the message log, under 600 MB for the JSON document.

Run: ``python benchmarks/bench_import.py`` (add ``--coups 500000 --log-mb 100 --json-mb
50`` for a quick look; see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from baccarat.deal import iter_generated
from baccarat.io.importers import writers
from baccarat.rules import TableRules

ROOT = Path(__file__).resolve().parents[1]
PEAK_TARGET_MB = {"cards": 1024, "messages": 1024, "json": 600}
_NAMES = {0: "Banker", 1: "Player", 2: "Tie"}


def write_cards_csv(path: Path, coups: int, seed: int = 2026) -> int:
    """A card-level CSV of at least ``coups`` coups; returns how many it holds."""
    rules = TableRules.model_validate({})
    written = 0
    first = True
    with path.open("w", encoding="utf-8") as handle:
        for part in iter_generated(rules, seed, max(1, coups // 80 + 1), 2_000):
            part.label = np.char.add("table-1 shoe ", part.shoe.astype(str)).astype(object)
            frame = writers.coups_frame(part, "cards", coup=True, missing="")
            frame.to_csv(handle, index=False, header=first)
            first = False
            written += len(part)
            if written >= coups:
                break
    return written


def write_message_log(path: Path, megabytes: int, seed: int = 2026) -> int:
    """A message log of about ``megabytes`` MB; returns the coups its shoes hold."""
    rules = TableRules.model_validate({})
    target = megabytes * 1_000_000
    size = coups = 0
    second = 0
    with path.open("w", encoding="utf-8") as handle:
        for part in iter_generated(rules, seed, 1_000_000, 500):
            starts = np.flatnonzero(np.r_[True, part.shoe[1:] != part.shoe[:-1]])
            ends = np.r_[starts[1:], len(part)]
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
                table = f"T{int(part.shoe[a]) % 4}"
                records = [json.dumps({"winner": _NAMES[int(part.outcome[k])],
                                       "playerScore": int(part.player_total[k]),
                                       "bankerScore": int(part.banker_total[k])})
                           for k in range(a, b)]
                history = ""
                lines = [f"[{second // 3600 % 24:02d}:00:00] connected to table {table}\n"]
                for record in records:
                    history = f"{history},{record}" if history else record
                    second += 25
                    stamp = f"[{second // 3600 % 24:02d}:{second // 60 % 60:02d}:" \
                            f"{second % 60:02d}]"
                    lines.append(f'{stamp} {{"type": "baccarat.history", "args": {{"tableId": '
                                 f'"{table}", "history_v2": [{history}]}}}}\n')
                    if second % 100 == 0:
                        lines.append(f'{stamp} {{"type": "chat", "args": {{"text": "gl"}}}}\n')
                text = "".join(lines)
                handle.write(text)
                size += len(text)
                coups += b - a
                if size >= target:
                    return coups
    return coups


def write_json_document(path: Path, megabytes: int, seed: int = 2026) -> int:
    """A game-history export of about ``megabytes`` MB; returns the coups it holds."""
    from baccarat.io.importers.writers import card_text

    rules = TableRules.model_validate({})
    target = megabytes * 1_000_000
    size = coups = 0
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{"meta": {"exported": "2026-01-01T00:00:00Z", "table": "T1"},\n'
                     ' "data": {"results": [\n')
        for part in iter_generated(rules, seed, 1_000_000, 500):
            text = card_text(part.cards)
            lines = []
            for k in range(len(part)):
                record = {"round": int(part.coup[k]), "shoe": f"T1-{int(part.shoe[k])}",
                          "playerHand": {"cards": [c for c in text[k, :3] if c],
                                         "score": int(part.player_total[k])},
                          "bankerHand": {"cards": [c for c in text[k, 3:] if c],
                                         "score": int(part.banker_total[k])},
                          "result": _NAMES[int(part.outcome[k])]}
                lines.append(("" if coups + k == 0 else ",\n") + "  " + json.dumps(record))
            chunk = "".join(lines)
            handle.write(chunk)
            size += len(chunk)
            coups += len(part)
            if size >= target:
                break
        handle.write("\n]}}\n")
    return coups


#: Run in the child at exit: its own peak resident memory (VmHWM starts anew at exec,
#: unlike ru_maxrss, which keeps the forking parent's size).
PEAK_PROBE = ("import atexit, sys\n"
              "def _peak(path=sys.argv[1]):\n"
              "    for line in open('/proc/self/status'):\n"
              "        if line.startswith('VmHWM:'):\n"
              "            open(path, 'w').write(line.split()[1])\n"
              "atexit.register(_peak)\n")


def run_import(path: Path, out: Path) -> tuple[float, float, float, str]:
    """Import ``path`` in a fresh process: (wall seconds, its CPU seconds, its peak MB,
    what it said)."""
    code = ("from baccarat.cli import app; "
            f"app(['import', {str(path)!r}, '--out', {str(out)!r}, '--quiet', '--force'], "
            "prog_name='baccarat')")
    peak_file = out.parent / f"{out.name}.peak"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK_PROBE + code, str(peak_file)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"import of {path} failed: {done.stderr.strip()}")
    return wall, cpu, int(peak_file.read_text()) / 1024, done.stdout.strip()


def main() -> None:
    """Write the inputs, import each ``--repeat`` times, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=5_000_000)
    parser.add_argument("--log-mb", type=int, default=1000)
    parser.add_argument("--json-mb", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["cards", "messages", "json"], default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as folder:
        work = Path(folder)
        inputs = []
        if args.only in (None, "messages"):
            log = work / "live.log"
            inputs.append(("messages", log, write_message_log(log, args.log_mb)))
        if args.only in (None, "cards"):
            cards = work / "cards.csv"
            inputs.append(("cards", cards, write_cards_csv(cards, args.coups)))
        if args.only in (None, "json"):
            document = work / "history.json"
            inputs.append(("json", document, write_json_document(document, args.json_mb)))
        for name, path, coups in inputs:
            walls, cpus, peaks = [], [], []
            for _ in range(args.repeat):
                wall, cpu, peak, said = run_import(path, work / f"{name}.coups")
                walls.append(wall)
                cpus.append(cpu)
                peaks.append(peak)
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            mb = path.stat().st_size / 1e6
            print(f"{name}: {mb:,.0f} MB, {coups:,} coups; import median {wall:.1f}s of wall, "
                  f"{cpu:.1f}s of CPU ({coups / wall:,.0f} coups/s, {mb / wall:.1f} MB/s) "
                  f"over {args.repeat} runs; peak memory {max(peaks):,.0f} MB (target < "
                  f"{PEAK_TARGET_MB[name]:,}); {said}")


if __name__ == "__main__":
    main()
