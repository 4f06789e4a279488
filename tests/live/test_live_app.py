"""The full-screen ``baccarat live`` app, driven key by key.

Textual's headless pilot types a recorded shoe (generated and dealt by the engine) coup
by coup at 80x24 and the test reads what the app drew and wrote: the file read back by
``baccarat import``, the roads and ask marks against the road oracle (the big road and the
derived roads grown by one decision, as tests/game/test_roads.py checks RoadState), the EV
figures against the odds engine on the cards left counted here, and the systems' stakes.
A real process of the app, in a pseudo-terminal, is killed with SIGKILL mid-shoe and the
file resumed with nothing lost.
"""

from __future__ import annotations

import asyncio
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from baccarat.cards import LABEL_OF_CODE, RANK_OF_CODE
from baccarat.coups import BANKER, OUTCOME_LABELS, PLAYER, Coups
from baccarat.deal import generate_coups
from baccarat.io.importers import import_files
from baccarat.live.app import LiveApp
from baccarat.live.journal import Journal
from baccarat.live.scorecard import Scorecard
from baccarat.live.screen import percent
from baccarat.live.session import LiveSession
from baccarat.live.systems import make_systems
from baccarat.odds import bets_offered, expected_values
from baccarat.roads import BLUE, NO_MARK, RED, big_road, derived_grid, derived_road
from baccarat.rules import TableRules
from textual import events

ROOT = Path(__file__).resolve().parents[2]
RULES = TableRules()
COUPS = 30  # of the recorded shoe typed in


@pytest.fixture(scope="module")
def shoe() -> Coups:
    """A shoe as dealt at the table: the engine's own deal of generated shoe 0, seed 11."""
    return generate_coups(RULES, 11, np.array([0])).take(slice(0, COUPS))


def typed(shoe: Coups, i: int) -> str:
    """Coup ``i`` as a dealer's cards are typed: Player, Banker, Player, Banker, thirds."""
    row = shoe.cards[i]
    player, banker = [c for c in row[:3] if c >= 0], [c for c in row[3:] if c >= 0]
    order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    return " ".join(LABEL_OF_CODE[c].lower() for c in order)


def oracle_asks(outcomes: list[int]) -> dict[tuple[int, int], int]:
    """The mark each derived road gains when a Banker or a Player win is dealt next."""
    marks = {}
    for side in (BANKER, PLAYER):
        for k in (1, 2, 3):
            before = derived_road(big_road(outcomes), k)
            after = derived_road(big_road(outcomes + [side]), k)
            marks[side, k] = after[-1] if len(after) > len(before) else NO_MARK
    return marks


KEY_NAMES = {" ": "space", "[": "left_square_bracket", "]": "right_square_bracket"}


async def type_keys(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    """Send each key to the app as the terminal would, one Key event each, in order, then
    wait for the app to settle (the pilot's ``press`` waits after every key, which with a
    replay running on a thread costs seconds per coup)."""
    for key in keys:
        if key == "enter":
            event = events.Key("enter", "\r")
        else:
            event = events.Key(KEY_NAMES.get(key, key), key)
        pilot.app.post_message(event)
    await pilot.pause()


def text_of(app: LiveApp, name: str):  # type: ignore[no-untyped-def]
    """The rich Text a section's widget shows."""
    return app.query_one(f"#{name}").content


async def drive(path: Path, shoe: Coups, specs: list[str]) -> dict[str, object]:
    """Type the shoe into the app at 80x24 and collect what it drew along the way."""
    seen: dict[str, object] = {}
    card = Scorecard(LiveSession(Journal.create(path, RULES)), make_systems(specs))
    app = LiveApp(card)
    async with app.run_test(size=(80, 24)) as pilot:
        burn = LABEL_OF_CODE[int(shoe.burn_shown[0])].lower()
        await type_keys(pilot, "x", *burn, "enter")
        for i in range(len(shoe)):
            await type_keys(pilot, *typed(shoe, i), "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        seen["screen"] = {name: text_of(app, name) for name in
                          ("header", "roads", "derived", "cards", "systems", "message")}
        seen["view"] = card.view()
        # a coup by key, with both pair flags, then undone with u
        await pilot.press("[", "]", "t")
        seen["after_key"] = card.session.shoe.coups[-1]
        await pilot.press("u")
        await app.workers.wait_for_complete()
        await pilot.pause()
        seen["after_undo"] = len(card.session.shoe.coups)
        seen["size"] = (app.size.width, app.size.height)
    card.close()
    return seen


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory, shoe: Coups) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("live") / "table.csv"
    specs = ["flat", "road:mode=red | flat"]
    return path, asyncio.run(drive(path, shoe, specs))


def test_the_file_written_key_by_key_is_the_shoe(driven: tuple[Path, dict],
                                                  shoe: Coups) -> None:
    path, seen = driven
    back = import_files([path])
    assert len(back) == len(shoe)
    assert (back.cards == shoe.cards).all()
    assert (back.outcome == shoe.outcome).all()
    assert (back.player_total == shoe.player_total).all()
    assert seen["after_key"].player_pair and seen["after_key"].banker_pair
    assert seen["after_undo"] == len(shoe)  # the key coup is out of the file again
    assert f"# shoe 1 burn: {LABEL_OF_CODE[int(shoe.burn_shown[0])]}" in path.read_text()


def test_the_roads_and_asks_drawn_are_the_oracles(driven: tuple[Path, dict],
                                                  shoe: Coups) -> None:
    _, seen = driven
    outcomes = [int(o) for o in shoe.outcome]
    screen = seen["screen"]
    # the big road drawn: the oracle's grid, its latest 27 columns (54 characters)
    grid = big_road(outcomes).grid
    first = max(0, len(grid[0]) - 27)
    road_lines = screen["roads"].plain.splitlines()[1:]
    for row, line in zip(grid, road_lines, strict=True):
        drawn = line[26::2]
        expected = "".join(" " if cell is None else OUTCOME_LABELS[cell.side]
                           for cell in row[first:])
        assert drawn.rstrip() == expected.rstrip()
    # the ask marks in the titles of the derived roads, coloured as the oracle says
    title = screen["derived"].split("\n")[0]
    asks = oracle_asks(outcomes)
    colours = {RED: "red", BLUE: "blue"}
    marks = [span for span in title.spans if str(span.style) in ("red", "blue", "dim")]
    expected = [colours.get(asks[side, k], "dim") for k in (1, 2, 3) for side in (BANKER, PLAYER)]
    assert [str(span.style) for span in marks] == expected
    assert all(asks[BANKER, k] == -asks[PLAYER, k] for k in (1, 2, 3))
    # the derived roads drawn: the oracle's marks laid out, one character each, coloured
    lines = screen["derived"].split("\n", allow_blank=True)[1:]
    for k, start in ((1, 0), (2, 27), (3, 54)):
        grid = derived_grid(derived_road(big_road(outcomes), k))
        first = max(0, len(grid[0]) - 25)
        for row, line in zip(grid, lines, strict=True):
            styles = {i: str(span.style) for span in line.spans
                      for i in range(span.start, span.end)}
            drawn = [styles.get(start + c) for c in range(len(row) - first)]
            assert drawn == [None if m is None else colours[m] for m in row[first:]]


def test_the_ev_shown_is_the_odds_engines(driven: tuple[Path, dict], shoe: Coups) -> None:
    _, seen = driven
    counts = np.full(13, 4 * RULES.decks)
    for code in [int(shoe.burn_shown[0]), *shoe.cards[shoe.cards >= 0].tolist()]:
        counts[RANK_OF_CODE[code] - 1] -= 1
    exact = expected_values(counts, RULES)
    shown = seen["view"].cards
    assert shown.ev == {kind: exact[kind] for kind in bets_offered(RULES)}
    line = seen["screen"]["cards"].plain.splitlines()[1]
    for kind, name in (("banker", "B"), ("player", "P"), ("tie", "T"), ("player_pair", "PP"),
                       ("banker_pair", "BP")):
        assert f"{name} {percent(exact[kind])}" in line
    left = seen["screen"]["cards"].plain.splitlines()[0]
    values = np.concatenate([counts[9:].sum(keepdims=True), counts[:9]])
    assert left.startswith("Left " + " ".join(f"{'0A23456789'[v]}:{values[v]}"
                                              for v in range(10)))


def test_the_systems_shown(driven: tuple[Path, dict], shoe: Coups) -> None:
    _, seen = driven
    lines = seen["screen"]["systems"].plain.splitlines()
    # flat Banker: +9.50 a Banker win, -10 a Player win, a tie pushes
    wins = int((shoe.outcome == BANKER).sum())
    losses = int((shoe.outcome == PLAYER).sum())
    bankroll = 1000 + 9.5 * wins - 10 * losses
    assert lines[0].split()[:3] == ["flat", "next", "B"]
    shown = f"{bankroll:,.2f}"
    assert f"bankroll {shown[:-3] if shown.endswith('.00') else shown} (" in lines[0]
    # the road follower bets the side whose big eye boy ask is red
    asks = oracle_asks([int(o) for o in shoe.outcome])
    side = "B" if asks[BANKER, 1] == RED else "P" if asks[PLAYER, 1] == RED else None
    assert ("next " + (f"{side} 10" if side else "no bet")) in lines[1]


def test_the_app_fits_80_by_24(driven: tuple[Path, dict]) -> None:
    _, seen = driven
    assert seen["size"] == (80, 24)
    for name, text in seen["screen"].items():
        assert all(len(line) <= 80 for line in text.plain.splitlines()), name


# ----------------------------------------------------------------------------- a real process


def _read(fd: int, seconds: float) -> bytes:
    end, out = time.monotonic() + seconds, b""
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


def _coups_in(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines()
               if line[:1].isdigit())


def test_killed_mid_shoe_and_resumed_with_nothing_lost(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24",
           "PYTHONPATH": str(ROOT)}
    pid, fd = pty.fork()
    if pid == 0:  # the app, full screen in a pseudo-terminal
        os.execvpe(sys.executable, [sys.executable, "-m", "baccarat.cli", "live", "--out",
                                    str(path), "-s", "flat"], env)
    try:
        deadline = time.monotonic() + 60
        drawn = b""
        while b"Bead plate" not in drawn and time.monotonic() < deadline:
            drawn += _read(fd, 0.2)  # the app is up once its screen is drawn
        keys = "bpptbbp"
        for i, key in enumerate(keys, start=1):
            os.write(fd, key.encode())
            while _coups_in(path) < i and time.monotonic() < deadline:
                _read(fd, 0.05)
        assert _coups_in(path) == len(keys)
        # while it runs, the file has one owner
        second = subprocess.run([sys.executable, "-m", "baccarat.cli", "live", "--plain",
                                 "--resume", str(path)], input="b\n", capture_output=True,
                                text=True, env=env, cwd=ROOT, timeout=120)
        assert second.returncode == 2
        assert f"in use by another run (pid {pid})" in second.stderr
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    # resumed as plain text, two coups more, then interrupted (Ctrl-C) while it waits
    resumed = subprocess.Popen([sys.executable, "-m", "baccarat.cli", "live", "--plain",
                                "--resume", str(path), "-s", "flat"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=ROOT)
    assert resumed.stdin is not None
    resumed.stdin.write("b\nt\n")
    resumed.stdin.flush()
    deadline = time.monotonic() + 60
    while _coups_in(path) < len(keys) + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the screen after the last coup
    resumed.send_signal(signal.SIGINT)
    out, err = resumed.communicate(timeout=60)
    assert resumed.returncode == 130
    assert err.strip() == (f"interrupted; everything entered is in {path} (continue with "
                           f"--resume {path})")
    assert "resumed table.csv: shoe 1, 7 coups so far" in out
    assert not (tmp_path / ".table.csv.lock").exists()  # the lock given back
    coups = import_files([path])
    assert "".join(OUTCOME_LABELS[o] for o in coups.outcome) == "BPPTBBPBT"
    assert coups.coup.tolist() == list(range(1, 10))
    # flat Banker over B P P T B B P B: 4 wins (+38), 3 losses (-30), a push
    assert "bankroll 1,008 (+8)" in out


def test_bad_keys_and_lines_say_why_and_record_nothing(tmp_path: Path) -> None:
    """Nonsense typed into the app (lines that are no coup, cards the drawing rules
    refuse, keys that mean nothing, undo with nothing to undo, a terminal smaller than
    80x24) is answered on the message line; nothing reaches the file, the app goes on."""
    path = tmp_path / "table.csv"

    async def run() -> list[str]:
        card = Scorecard(LiveSession(Journal.create(path, RULES)), make_systems(["flat"]))
        app = LiveApp(card)
        said = []
        async with app.run_test(size=(80, 24)) as pilot:
            for line in (["u"], [*"zz", "enter"], [*"as 2h 3c 4d", "enter"],
                         [*"burn zz", "enter"], [*"9s 3h kd 5c 2h 4d", "enter"]):
                await type_keys(pilot, *line)
                said.append(text_of(app, "message").plain)
            # keys that mean nothing here (Tab used to take the focus off the entry line)
            await pilot.press("f5", "ctrl+x", "escape", "tab", "shift+tab", "end")
            await pilot.resize_terminal(40, 12)
            await pilot.pause()
            await pilot.resize_terminal(80, 24)
            await type_keys(pilot, "b")  # still taking coups
            await app.workers.wait_for_complete()
            await pilot.pause()
            said.append(text_of(app, "message").plain)
        card.close()
        return said

    said = asyncio.run(run())
    assert said[0] == "nothing to undo"
    assert "'zz' is neither an outcome" in said[1]
    assert said[2] == ("AS 2H 3C 4D: player 4 (AS 3C) draws a third card, so the coup "
                       "takes 5 cards; 4 given")
    assert "zz" in said[3]
    # 9S KD | 3H 5C: Player 9 is a natural, no third card: two cards too many
    assert said[4] == ("9S 3H KD 5C 2H 4D: player 9 (9S KD) is a natural, so the coup ends "
                       "after 4 cards; 2H 4D are too many")
    assert said[-1] == "shoe 1, coup 1: Banker"
    coups = import_files([path])
    assert coups.outcome.tolist() == [BANKER]
