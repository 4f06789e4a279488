"""What a newcomer hits first, each through the command line as they met it: a CSV under a
title line, a hand-edited live scorecard, a plugin hook returning the wrong type, a plugin
reaching past its read-only table, and the demo run twice."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from baccarat.cli import app
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.io.parquet import read_coups
from typer.testing import CliRunner

runner = CliRunner()


def flat(text: str) -> str:
    """Output with the line wrapping removed, for message checks."""
    return " ".join(text.split())


# --- 1. A CSV with a title line above its header -------------------------------------------

#: The issue's file: a title with as many commas as the header has (it was refused unless
#: --format csv was given, and with it the title was read as the header).
TITLED = ("Baccarat results, Casino X, 2026-01-05\n"
          "shoe,coup,outcome\n1,1,B\n1,2,P\n1,3,T\n2,1,B\n2,2,B\n")


@pytest.mark.parametrize("name", ["results.csv", "results.txt"])
@pytest.mark.parametrize("title", [
    "Baccarat results, Casino X, 2026-01-05",     # as wide as the header
    "Baccarat results, Casino X, table 7, night",  # wider
    "Baccarat results,,",                          # a spreadsheet's title row
])
def test_a_title_line_as_wide_as_the_header_is_left_out_by_the_format_guess(
        tmp_path: Path, name: str, title: str) -> None:
    path = tmp_path / name
    path.write_text(TITLED.replace(TITLED.splitlines()[0], title), encoding="utf-8")
    out = tmp_path / "coups"
    result = runner.invoke(app, ["import", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{name}:1: {title.strip()!r} above the header taken as a title and left out" \
        in flat(result.output)
    assert "imported 5 coups from 2 shoes" in flat(result.output)
    coups, _ = read_coups(out)
    assert coups.outcome.tolist() == [BANKER, PLAYER, TIE, BANKER, BANKER]
    assert coups.shoe.tolist() == [0, 0, 0, 1, 1]


def test_the_same_file_with_format_csv_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "results.txt"
    path.write_text(TITLED, encoding="utf-8")
    out = tmp_path / "coups"
    result = runner.invoke(app, ["import", str(path), "--out", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert read_coups(out)[0].outcome.tolist() == [BANKER, PLAYER, TIE, BANKER, BANKER]


def test_a_line_of_data_above_the_header_is_still_no_title(tmp_path: Path) -> None:
    """A line holding numbers, as wide as the header, is a row out of place: refused, as
    before (a title holds words, a date at most)."""
    path = tmp_path / "rows.csv"
    path.write_text("1,1,B\nshoe,coup,outcome\n1,2,P\n", encoding="utf-8")
    result = runner.invoke(app, ["import", str(path), "--out", str(tmp_path / "coups")])
    assert result.exit_code == 2
    assert "taken as a title" not in flat(result.output)


# --- 2. A live scorecard edited by hand ------------------------------------------------------

def started_scorecard(path: Path) -> str:
    """The first two lines of a scorecard ``baccarat live`` starts (rules, header)."""
    result = runner.invoke(app, ["live", "--plain", "--out", str(path)], input="quit\n")
    assert result.exit_code == 0, result.output
    return "".join(path.read_text().splitlines(keepends=True)[:2])


def resume(path: Path, *lines: str) -> str:
    result = runner.invoke(app, ["live", "--plain", "--resume", str(path)],
                           input="".join(f"{line}\n" for line in (*lines, "quit")),
                           env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return flat(result.output)


#: A scorecard kept on paper and typed in: a '//' note, shoe lines written 'Shoe 4 -'.
EDITED = ("// Friday at the Ritz, table 3\n"
          "# Shoe 4 -\n4,1,,,,,,,,,B,,\n4,2,,,,,,,,,P,,\n"
          "# Shoe 5 -\n5,1,,,,,,,,,T,,\n")


def test_a_hand_edited_scorecard_resumes_with_its_shoes_numbered_as_written(
        tmp_path: Path) -> None:
    path = tmp_path / "friday.csv"
    path.write_text(started_scorecard(path) + EDITED)
    out = resume(path, "b", "n", "p")
    assert "resumed friday.csv: shoe 5, 1 coups so far" in out
    assert "shoe 5, coup 2: Banker" in out
    assert "shoe 6 started" in out and "shoe 6, coup 1: Player" in out
    assert "kept 5 coups of 3 shoes" in out
    assert path.read_text().endswith(EDITED + "5,2,,,,,,,,,B,,\n# shoe 6\n6,1,,,,,,,,,P,,\n")
    # baccarat import reads the same file: the note left out, three shoes as written
    coups = read_coups(_imported(tmp_path, path))[0]
    assert coups.outcome.tolist() == [BANKER, PLAYER, TIE, BANKER, PLAYER]
    assert coups.label.tolist() == ["4", "4", "5", "5", "6"]


def test_coup_rows_without_shoe_lines_keep_their_shoes(tmp_path: Path) -> None:
    """Rows typed without a shoe line are in the shoe each names (shoe 5's coups were added
    to shoe 4's, and the next new shoe was numbered 5 again)."""
    path = tmp_path / "rows.csv"
    path.write_text(started_scorecard(path) + "4,1,,,,,,,,,B,,\n4,2,,,,,,,,,P,,\n"
                                              "5,1,,,,,,,,,T,,\n")
    out = resume(path, "u", "u", "b")
    assert "resumed rows.csv: shoe 5, 1 coups so far" in out
    assert "undone: shoe 5, coup 1 (Tie)" in out
    assert "undone: the start of shoe 5; back in shoe 4" in out
    assert "shoe 4, coup 3: Banker" in out
    assert path.read_text().endswith("4,1,,,,,,,,,B,,\n4,2,,,,,,,,,P,,\n4,3,,,,,,,,,B,,\n")


@pytest.mark.parametrize("line", ["# shoe 4", "# Shoe 4 -", "# SHOE 4:", "// shoe 4",
                                  "#shoe 4 —"])
def test_a_shoe_line_in_the_shapes_people_write_opens_its_shoe(tmp_path: Path,
                                                                line: str) -> None:
    path = tmp_path / "shoe.csv"
    path.write_text(started_scorecard(path) + f"{line}\n# a note about shoe 4\n")
    out = resume(path, "b")
    assert "shoe 4, coup 1: Banker" in out
    assert path.read_text().endswith("# a note about shoe 4\n4,1,,,,,,,,,B,,\n")


def test_a_text_scorecard_in_the_same_shapes_imports_with_the_labels_as_written(
        tmp_path: Path) -> None:
    """The same shapes in a scorecard of outcomes: the '//' note left out (the file was
    refused), the labels without the dash after them ('Shoe 4 -')."""
    path = tmp_path / "friday.txt"
    path.write_text("// Friday at the Ritz, table 3\nShoe 4 - BPPBT\nShoe 5 - PPBB\n")
    coups = read_coups(_imported(tmp_path, path))[0]
    assert coups.label.tolist() == ["Shoe 4"] * 5 + ["Shoe 5"] * 4
    assert coups.outcome.tolist()[:5] == [BANKER, PLAYER, PLAYER, BANKER, TIE]


def _imported(tmp_path: Path, path: Path) -> Path:
    out = tmp_path / f"{path.stem}.parquet"
    result = runner.invoke(app, ["import", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


# --- 3. A plugin hook returning the wrong type ----------------------------------------------

#: Plugin parts whose hook returns what the contract cannot take. Each hook's ``def`` is
#: the line named ``# HOOK`` (the line the located errors name, as they do for bet()).
WRONG_TYPES = '''\
import numpy as np
from baccarat.strategies.parts import Selection, Staking
from baccarat.strategies.simple import SimpleSelection, SimpleStaking


class ChooseString(Selection):
    def choose(self, table):  # HOOK
        return "banker"


class ChooseShort(Selection):
    def choose(self, table):  # HOOK
        return [0, 1]


class ChooseFloats(Selection):
    def choose(self, table):  # HOOK
        return np.zeros(table.n)


class KindsString(Selection):
    def kinds(self):  # HOOK
        return "banker"

    def choose(self, table):
        return 0


class StakesString(Staking):
    def stakes(self, table, choice):  # HOOK
        return "10"


class StakesShort(Staking):
    def stakes(self, table, choice):  # HOOK
        return [10.0, 10.0]


class StakeNone(SimpleStaking):
    def stake(self, view):  # HOOK
        return None


class StakeString(SimpleStaking):
    def stake(self, view):  # HOOK
        return "10"
'''


def hook_lines(text: str) -> dict[str, int]:
    """Each class's hook line (1-based) in ``text``."""
    lines, found, name = text.splitlines(), {}, ""
    for number, line in enumerate(lines, 1):
        if line.startswith("class "):
            name = line.split()[1].split("(")[0]
        if "# HOOK" in line:
            found[name] = number
    return found


@pytest.mark.parametrize(("spec", "said"), [
    ("{plugin}:ChooseString | flat",
     "choose() returned 'banker'; expected an integer code per session, shape (5,) (or one "
     "code for all); letters are the simple form's"),
    ("{plugin}:ChooseShort | flat",
     "choose() returned an array of shape (2,) and dtype int64; expected an integer code per "
     "session, shape (5,) (or one code for all)"),
    ("{plugin}:ChooseFloats | flat",
     "choose() returned an array of shape (5,) and dtype float64; expected an integer code "
     "per session"),
    ("{plugin}:KindsString | flat",
     "kinds() returned the string 'banker'; expected a tuple of bet kinds"),
    ("always | {plugin}:StakesString",
     "stakes() returned the string '10'; expected a number or a numeric array of shape (5,), "
     "one stake per session"),
    ("always | {plugin}:StakesShort",
     "stakes() returned [10.0, 10.0] (list); expected a number or a numeric array of shape "
     "(5,), one stake per session"),
    ("always | {plugin}:StakeNone",
     "stake() returned None; expected a finite number >= 0"),
    ("always | {plugin}:StakeString",
     "stake() returned the string '10'; expected a finite number >= 0"),
])
def test_a_hook_returning_the_wrong_type_is_named_with_the_plugin_file_and_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str, said: str) -> None:
    monkeypatch.chdir(tmp_path)
    Path("wrong.py").write_text(WRONG_TYPES)
    result = runner.invoke(app, ["backtest", "-s", spec.format(plugin="wrong.py"),
                                 "--shoes", "5", "--no-table"])
    assert result.exit_code == 2, result.output
    error = flat(result.output)
    assert error.startswith("error: strategy "), error
    assert said in error, error
    name = spec.format(plugin="wrong.py").split(":")[1].split()[0]
    hook = said.split("(")[0]
    assert f"({hook}() at wrong.py:{hook_lines(WRONG_TYPES)[name]})" in error, error
    assert "Traceback" not in result.output and "raised ValueError" not in error


# --- 4. Nothing a plugin is shown leads to a writable buffer ---------------------------------

#: A plugin that walks every array it is shown to the objects behind it (``.base``,
#: ``memoryview(...).obj``) and writes into every one it can make writable: the engine's
#: own arrays were at the end of each chain. ``CATCH`` says whether it catches the refusals
#: (the run goes on: the other configurations' results must not change) or writes only
#: into the innermost array of a chain and lets a refusal end its call.
VANDAL = '''\
import numpy as np
from baccarat.strategies import Strategy, Wager

CATCH = True
ONLY = ()  # the names of the table's arrays to walk (all of them: NAMES)
NAMES = ("history", "bankroll", "start_bankroll", "coup", "shoe_coup", "new_shoe",
         "active", "last_outcome", "seen", "remaining")
RESULT = ("net", "staked", "played", "outcome", "player_total", "banker_total", "cards",
          "won", "lost", "pushed")
WRITTEN = []  # what was written into: nothing, when nothing writable is reachable


def chain(array):
    """Every object reachable from array by .base and memoryview(...).obj, innermost last."""
    found, todo = [], [array]
    while todo:
        link = todo.pop(0)
        if link is None or any(link is seen for seen in found):
            continue
        found.append(link)
        todo.append(getattr(link, "base", None))
        try:
            todo.append(memoryview(link).obj)
        except TypeError:
            pass
        todo.append(getattr(link, "obj", None))
    return found


def spoil(name, array):
    for link in reversed(chain(array)):
        target = link
        if not isinstance(target, np.ndarray):
            try:
                target = np.frombuffer(memoryview(link), dtype=np.uint8)
            except (TypeError, ValueError):
                continue
        try:
            target.flags.writeable = True
            np.ndarray.__setitem__(target, Ellipsis, 1)
            WRITTEN.append(f"{name}: {type(link).__name__}")
        except ValueError:
            if not CATCH:
                raise
        if not CATCH:
            return  # the innermost array only (the engine's own, where one was reached)


class Vandal(Strategy):
    needs_cards = True
    needs_roads = True

    def wager(self, table):
        for name in ONLY or NAMES:
            spoil(f"table.{name}", getattr(table, name))
        for name in ("side", "streak", "columns"):
            spoil(f"table.roads.{name}", getattr(table.roads, name))
        spoil("table.roads.ask(1)", table.roads.ask(1))
        return Wager.on(banker=np.full(table.n, 10.0))

    def settle(self, table, result):
        for name in RESULT:
            spoil(f"result.{name}", getattr(result, name))
'''

#: Configurations whose play reads what every configuration shares (the outcomes, the
#: history, the roads, the cards left): what a write into the engine's arrays would change.
VICTIMS = ["follow", "pattern:BBP=P,PPB=B", "road:mode=red", "count:method=true_count | flat"]


def test_a_plugin_writing_through_what_it_is_shown_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The vandal plays first at each coup, the others after it, all through the replay
    (the path every plugin takes): follow and pattern lost every figure to it."""
    import importlib

    from baccarat import Run, backtest, generate

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    Path("vandal.py").write_text(VANDAL)
    vandal = importlib.import_module("vandal")
    shoes, run = generate(6, seed=11), Run(engine="replay")
    alone = backtest(shoes, VICTIMS, run=run).summary
    together = backtest(shoes, ["vandal:Vandal", *VICTIMS], run=run).summary
    assert vandal.WRITTEN == []
    columns = ["spec", "mean_net", "mean_wagered", "prob_profit", "mean_coups"]
    pd.testing.assert_frame_equal(together[columns].iloc[1:].reset_index(drop=True),
                                  alone[columns])


@pytest.mark.parametrize("name", ["history", "bankroll", "seen", "remaining"])
def test_writing_through_a_chain_stops_the_run_naming_the_plugin_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.chdir(tmp_path)
    Path("vandal.py").write_text(VANDAL.replace("CATCH = True", "CATCH = False").replace(
        "ONLY = ()", f"ONLY = ({name!r},)"))
    result = runner.invoke(app, ["backtest", "-s", "vandal.py:Vandal", "--shoes", "3",
                                 "--no-table"])
    assert result.exit_code == 2, result.output
    line = VANDAL.splitlines().index("            target.flags.writeable = True") + 1
    error = flat(result.output)
    assert error.startswith("error: strategy 'vandal', sessions 0-2, before the first coup"
                            ) or error.startswith("error: strategy 'vandal', sessions 0-2 at "
                                                  "their coup 1"), error
    assert f"wrote into its table in wager() at vandal.py:{line}: " in error, error


# --- 5. The demo run twice ---------------------------------------------------------------------

def test_a_second_demo_replaces_its_own_folder_but_not_one_holding_a_users_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`baccarat demo` twice in the same folder (the default --out demo): the second writes
    the demo's folder again, without --force; once the folder holds a file of the user's
    beside the demo's, it is refused and left as it is."""
    monkeypatch.chdir(tmp_path)
    demo = tmp_path / "demo"
    for _ in range(2):
        result = runner.invoke(app, ["demo", "--shoes", "120", "-q", "--no-table"])
        assert result.exit_code == 0, result.output
        assert "already exists" not in flat(result.output)
        assert sorted(p.name for p in demo.iterdir()) == ["comparison.parquet",
                                                          "report.html", "run"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]  # nothing left beside it
    (demo / "notes.txt").write_text("mine")
    before = sorted(p.name for p in demo.iterdir())
    result = runner.invoke(app, ["demo", "--shoes", "120", "-q", "--no-table"])
    assert result.exit_code == 2
    assert flat(result.output) == ("error: demo already exists and is not an output baccarat "
                                   "wrote; --force replaces only those: remove it yourself "
                                   "or choose another --out")
    assert sorted(p.name for p in demo.iterdir()) == before
    assert (demo / "notes.txt").read_text() == "mine"
