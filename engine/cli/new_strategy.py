"""``baccarat new-strategy``: a commented plugin file and a pytest file that passes as written.

The plugin plays a small, complete system (Banker after a run of Player wins), so the
author starts from something that runs, traces and passes ``check-strategy``, and edits
it into their own. Nothing existing is overwritten.
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template
from typing import Annotated

import typer

from ..errors import BaccaratError
from . import app
from .common import done, reports_errors


class NewStrategyError(BaccaratError):
    """A name that cannot be a strategy, or files that already exist."""


ARRAY_PLUGIN = Template('''\
"""$title: bet Banker once Player has won `streak` decisions in a row, until Banker wins.

Written by `baccarat new-strategy` in the array form: one instance plays every session at
once, and each method gets arrays with one entry per session. Edit it into your system;
docs/strategies.md is the guide. Try it with:

    baccarat trace $file:$cls --outcomes PPBPPTB
    baccarat check-strategy $file:$cls
    baccarat backtest --shoes 2000 --strategy $file:$cls --out $name-run
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field

from baccarat.strategies import BANKER, PLAYER, Result, Strategy, Table, Wager


class $cls(Strategy):
    """Bet Banker after a run of Player wins (ties skipped) until Banker wins."""

    # The name in outputs and in `baccarat strategies` (a ClassVar: not a parameter).
    name: ClassVar[str] = "$name"

    # Parameters are pydantic fields: validated, stored in every output, and set from
    # the command line as $file:$cls:streak=3 (or streak=[2,3,4] for a grid).
    # `base`, the base stake, comes with every strategy.
    streak: int = Field(2, ge=1, description="Player wins in a row before betting Banker")

    # Per-session state: one array entry per session, made afresh in start() (any
    # self.name = value set in start, wager or settle is this run's state, not a
    # parameter; declaring it, as here, documents it).
    _players: np.ndarray

    def start(self, table: Table) -> None:
        """Called once before the first coup: table.n sessions are about to play."""
        self._players = np.zeros(table.n, dtype=np.int64)

    def wager(self, table: Table) -> Wager:
        """The stakes for the coup about to be dealt, one per session (0 = no bet).

        The table shows only what has happened: table.bankroll, table.history,
        table.last_outcome, table.coup, table.new_shoe, table.rules (and table.roads,
        table.seen, table.remaining when the class sets needs_roads / needs_cards).
        It is read-only: keep your own state on self.
        """
        return Wager.on(banker=np.where(self._players >= self.streak, self.base, 0.0))

    def settle(self, table: Table, result: Result) -> None:
        """Learn the coup just dealt: result.outcome (0 B, 1 P, 2 T), result.net, ..."""
        player = result.played & (result.outcome == PLAYER)
        banker = result.played & (result.outcome == BANKER)
        self._players = np.where(player, self._players + 1,
                                 np.where(banker, 0, self._players))
''')

SIMPLE_PLUGIN = Template('''\
"""$title: bet Banker once Player has won `streak` decisions in a row, until Banker wins.

Written by `baccarat new-strategy --simple`: one session at a time, with plain Python
numbers. Easier to write than the array form, and slower to run (the engine loops over
the sessions). Edit it into your system; docs/strategies.md is the guide. Try it with:

    baccarat trace $file:$cls --outcomes PPBPPTB
    baccarat check-strategy $file:$cls
    baccarat backtest --shoes 2000 --strategy $file:$cls --out $name-run
"""

from __future__ import annotations

from baccarat.strategies import SessionView, SimpleStrategy


class $cls(SimpleStrategy):
    """Bet Banker after a run of Player wins (ties skipped) until Banker wins."""

    # The name in outputs and in `baccarat strategies`.
    name = "$name"

    # Parameters: annotated class attributes, set from the command line as
    # $file:$cls:streak=3 (or streak=[2,3,4] for a grid). `base`, the base
    # stake, comes with every strategy.
    streak: int = 2

    def reset(self) -> None:
        """A new session starts: set this session's state on self."""
        self.players = 0  # Player wins in a row so far

    def bet(self, view: SessionView) -> dict[str, float]:
        """The stakes for the next coup: {"banker": 10}, {} for no bet.

        view shows this session so far: view.bankroll, view.history ("BPPT..."),
        view.last, view.coup, view.new_shoe, view.rules; view.roads with
        `needs_roads = True` on the class; view.seen, view.remaining and view.odds()
        (the exact odds of the cards left) with `needs_cards = True`.
        """
        return {"banker": self.base} if self.players >= self.streak else {}

    def learn(self, view: SessionView, outcome: str, net: float) -> None:
        """The coup just dealt: outcome "B", "P" or "T", and what this session netted."""
        if outcome == "P":
            self.players += 1
        elif outcome == "B":
            self.players = 0
''')

TEST_FILE = Template('''\
"""Tests of $file, written by `baccarat new-strategy`. Run them with: pytest $test_file

baccarat.testing.play plays a strategy over the outcomes given with the real engine and
returns its ledger, one row per coup (coup, outcome, stakes per bet kind, net, bankroll).
Work the expected values out by hand from the rules of your system.
"""

from pathlib import Path

from baccarat.testing import play

STRATEGY = f"{Path(__file__).with_name('$file')}:$cls"


def test_bets_banker_after_two_player_wins():
    # P P: two Player wins, so Banker is bet on the third coup (it wins: +9.5 after the
    # 5% commission); the run starts again, and after P P the tie pushes the stake.
    ledger = play(STRATEGY, "PPBPPTB")
    assert ledger["banker"].tolist() == [0, 0, 10, 0, 0, 10, 10]
    assert ledger["net"].tolist() == [0, 0, 9.5, 0, 0, 0, 9.5]


def test_a_longer_streak_waits_longer():
    ledger = play(STRATEGY + ":streak=3", "PPPB")
    assert ledger["banker"].tolist() == [0, 0, 0, 10]
''')


SELECTION_PLUGIN = Template('''\
"""$title: a selection: bet Banker once Player has won `streak` decisions in a row.

Written by `baccarat new-strategy --part selection`. A selection says when and what to
bet; any staking plan says how much and any session rule when to stop, so this one part
plays in every system:

    baccarat trace "$file:$cls | martingale" --outcomes PPBPPTB
    baccarat check-strategy "$file:$cls | dalembert | stop:win=50"
    baccarat backtest --shoes 2000 -s "$file:$cls:streak=[2,3] | flat" --out $name-run
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field

from baccarat.strategies import BANKER, NO_BET, PLAYER, Result, Selection, Table


class $cls(Selection):
    """Bet Banker after a run of Player wins (ties skipped) until Banker wins."""

    name: ClassVar[str] = "$name"

    streak: int = Field(2, ge=1, description="Player wins in a row before betting Banker")

    _players: np.ndarray  # per session: Player wins in a row so far

    def start(self, table: Table) -> None:
        """Called once before the first coup: table.n sessions are about to play."""
        self._players = np.zeros(table.n, dtype=np.int64)

    def choose(self, table: Table) -> np.ndarray:
        """Per session, the bet for the coup about to be dealt: BANKER, PLAYER, TIE (or
        any index of baccarat.bets.BET_KINDS: say which in kinds()), NO_BET, or END to end
        the session. The staking plan says how much."""
        return np.where(self._players >= self.streak, BANKER, NO_BET)

    def settle(self, table: Table, result: Result) -> None:
        """Learn the coup just dealt (result.outcome: 0 B, 1 P, 2 T)."""
        player = result.played & (result.outcome == PLAYER)
        banker = result.played & (result.outcome == BANKER)
        self._players = np.where(player, self._players + 1,
                                 np.where(banker, 0, self._players))
''')

SIMPLE_SELECTION_PLUGIN = Template('''\
"""$title: a selection: bet Banker once Player has won `streak` decisions in a row.

Written by `baccarat new-strategy --part selection --simple`: one session at a time,
with plain Python values. Any staking plan and any session rule combine with it:

    baccarat trace "$file:$cls | martingale" --outcomes PPBPPTB
    baccarat check-strategy "$file:$cls | dalembert | stop:win=50"
    baccarat backtest --shoes 2000 -s "$file:$cls:streak=[2,3] | flat" --out $name-run
"""

from __future__ import annotations

from baccarat.strategies import SessionView, SimpleSelection


class $cls(SimpleSelection):
    """Bet Banker after a run of Player wins (ties skipped) until Banker wins."""

    name = "$name"
    streak: int = 2

    def reset(self) -> None:
        """A new session starts."""
        self.players = 0

    def pick(self, view: SessionView) -> str | None:
        """"B", "P", "T", None (no bet) or STOP (end the session)."""
        return "B" if self.players >= self.streak else None

    def learn(self, view: SessionView, outcome: str) -> None:
        """A coup the session played: "B", "P" or "T"."""
        if outcome != "T":
            self.players = self.players + 1 if outcome == "P" else 0
''')

STAKING_PLUGIN = Template('''\
"""$title: a staking plan: double the stake after `losses` losses in a row.

Written by `baccarat new-strategy --part staking`. A staking plan says how much; any
selection says when and what, and any session rule when to stop. What it does on a push,
a skipped coup and a new shoe is the engine's one rule: nothing moves. Try it with:

    baccarat trace "streak:n=2 | $file:$cls" --outcomes BBPPBBBP
    baccarat check-strategy "follow | $file:$cls | stop:loss=200"
    baccarat backtest --shoes 2000 -s "$file:$cls:losses=[1,2]" --out $name-run
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field

from baccarat.strategies import Choice, Result, Staking, Table


class $cls(Staking):
    """Double the stake after a run of losses; back to the base stake after a win."""

    name: ClassVar[str] = "$name"

    losses: int = Field(2, ge=1, description="losses in a row before doubling")

    _lost: np.ndarray   # per session: losses in a row
    _stake: np.ndarray  # per session: the next stake

    def start(self, table: Table) -> None:
        self._lost = np.zeros(table.n, dtype=np.int64)
        self._stake = np.full(table.n, self.base)

    def stakes(self, table: Table, choice: Choice) -> np.ndarray:
        """The amount per session of the next bet (only sessions that bet stake it)."""
        return self._stake

    def settle(self, table: Table, result: Result) -> None:
        """result.won / result.lost: the sessions that staked and won / lost."""
        lost = np.where(result.lost, self._lost + 1, np.where(result.won, 0, self._lost))
        doubled = result.lost & (lost >= self.losses)
        self._stake = np.where(result.won, self.base,
                               np.where(doubled, 2 * self._stake, self._stake))
        self._lost = np.where(doubled, 0, lost)
''')

SIMPLE_STAKING_PLUGIN = Template('''\
"""$title: a staking plan: double the stake after `losses` losses in a row.

Written by `baccarat new-strategy --part staking --simple`: one session at a time. Any
selection and session rule combine with it:

    baccarat trace "streak:n=2 | $file:$cls" --outcomes BBPPBBBP
    baccarat check-strategy "follow | $file:$cls | stop:loss=200"
"""

from __future__ import annotations

from baccarat.strategies import SessionView, SimpleStaking


class $cls(SimpleStaking):
    """Double the stake after a run of losses; back to the base stake after a win."""

    name = "$name"
    losses: int = 2

    def reset(self) -> None:
        """A new session starts."""
        self.in_a_row, self.next = 0, self.base

    def stake(self, view: SessionView) -> float:
        """The amount of the next bet."""
        return self.next

    def won(self, view: SessionView, net: float) -> None:
        """The bet won (a push, and a coup without a bet, call neither method)."""
        self.in_a_row, self.next = 0, self.base

    def lost(self, view: SessionView, net: float) -> None:
        """The bet lost."""
        self.in_a_row += 1
        if self.in_a_row >= self.losses:
            self.in_a_row, self.next = 0, 2 * self.next
''')

SELECTION_TEST = Template('''\
"""Tests of $file, written by `baccarat new-strategy`. Run them with: pytest $test_file

baccarat.testing.play plays a SPEC over the outcomes given with the real engine: here the
selection with a staking plan. Work the expected values out by hand.
"""

from pathlib import Path

from baccarat.testing import play

SELECTION = f"{Path(__file__).with_name('$file')}:$cls"


def test_flat_bets_banker_after_two_player_wins():
    # P P: two Player wins, Banker bet on the third coup (+9.5); P P again, the tie
    # pushes, Banker wins.
    ledger = play(f"{SELECTION} | flat", "PPBPPTB")
    assert ledger["banker"].tolist() == [0, 0, 10, 0, 0, 10, 10]
    assert ledger["net"].tolist() == [0, 0, 9.5, 0, 0, 0, 9.5]


def test_with_a_martingale_the_stake_doubles_after_a_lost_bet():
    # Banker bet at coups 3, 4 (lost: P, so 20 next), 5 (won 19).
    ledger = play(f"{SELECTION} | martingale", "PPPPB")
    assert ledger["banker"].tolist() == [0, 0, 10, 20, 40]
''')

STAKING_TEST = Template('''\
"""Tests of $file, written by `baccarat new-strategy`. Run them with: pytest $test_file

baccarat.testing.play plays a SPEC over the outcomes given with the real engine: here the
staking plan alone (it bets Banker every coup) and with a selection.
"""

from pathlib import Path

from baccarat.testing import play

STAKING = f"{Path(__file__).with_name('$file')}:$cls"


def test_doubles_after_two_losses_and_resets_after_a_win():
    # Banker every coup: P P (two lost: 20 next), P (lost once), T (a push: nothing
    # moves), P (two lost: 40 next), B won.
    ledger = play(STAKING, "PPPTPB")
    assert ledger["banker"].tolist() == [10, 10, 20, 20, 20, 40]


def test_with_a_selection_the_skipped_coups_change_nothing():
    # follow: no bet on coup 1; B bet on 2 (P: lost), P bet on 3 (B: lost: 20 next),
    # B on 4 (won).
    ledger = play(f"follow | {STAKING}", "BPBB")
    assert (ledger["banker"] + ledger["player"]).tolist() == [0, 10, 10, 20]
''')


def names_for(name: str) -> tuple[str, str]:
    """(snake_case name, CamelCase class name) for a NAME like "my-system" or "MySystem"."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_\-]*", name):
        raise NewStrategyError(
            f"strategy name {name!r}: use letters, digits, '_' or '-', starting with a letter "
            f"(e.g. banker_after_players)")
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace("-", "_"))
    snake = re.sub(r"_+", "_", spaced).strip("_").lower()
    camel = "".join(part.capitalize() for part in snake.split("_"))
    return snake, camel


@app.command("new-strategy")
@reports_errors
def new_strategy(
    name: Annotated[str, typer.Argument(help="the strategy's name, e.g. banker_after_players")],
    simple: Annotated[bool, typer.Option(
        "--simple", help="the simple form: one session, plain Python numbers")] = False,
    part: Annotated[str | None, typer.Option(
        "--part", help="write one part of a system instead of a whole strategy: "
        "selection (when and what to bet) or staking (how much)")] = None,
    folder: Annotated[Path, typer.Option(
        "--dir", help="folder to write the two files into")] = Path("."),
) -> None:
    """Write NAME.py (a commented plugin that runs) and test_NAME.py (pytest, passing).

    The plugin is a complete small system to edit into your own, in the array form (every
    session at once, fast) or with --simple the simple form; with --part selection or
    --part staking, one part of a system that combines with every other part
    ("NAME.py:Class | martingale | stop:win=50"). Existing files are never overwritten.
    """
    if part not in (None, "selection", "staking"):
        raise NewStrategyError(f"--part {part}: expected selection or staking")
    snake, cls = names_for(name)
    plugin = folder / f"{snake}.py"
    test = folder / f"test_{snake}.py"
    existing = [str(p) for p in (plugin, test) if p.exists()]
    if existing:
        raise NewStrategyError(f"{' and '.join(existing)} already exist"
                               f"{'s' if len(existing) == 1 else ''}; nothing written (pick "
                               f"another name or --dir)")
    if not folder.is_dir():
        raise NewStrategyError(f"--dir {folder} is not a folder")
    values = {"name": snake, "cls": cls, "file": plugin.name, "test_file": test.name,
              "title": cls}
    plugin_text, test_text, trace = _TEMPLATES[part, simple]
    for path, text in ((plugin, plugin_text.substitute(values)),
                       (test, test_text.substitute(values))):
        with open(path, "x", encoding="utf-8") as handle:  # "x": never over a file
            handle.write(text)
    kind = {"selection": ", a selection", "staking": ", a staking plan"}.get(part or "", "")
    what = f"{'simple' if simple else 'array'} form{kind}"
    spec = trace.format(f"{plugin}:{cls}")
    done(f"wrote {plugin} ({what}) and {test}\n"
         f"next: pytest {test}\n"
         f"      baccarat trace \"{spec}\" --outcomes PPBPPTB\n"
         f"      baccarat check-strategy \"{spec}\"")


#: By (--part, --simple): the plugin, its tests, and the SPEC the closing lines suggest.
_TEMPLATES = {
    (None, False): (ARRAY_PLUGIN, TEST_FILE, "{}"),
    (None, True): (SIMPLE_PLUGIN, TEST_FILE, "{}"),
    ("selection", False): (SELECTION_PLUGIN, SELECTION_TEST, "{} | martingale"),
    ("selection", True): (SIMPLE_SELECTION_PLUGIN, SELECTION_TEST, "{} | martingale"),
    ("staking", False): (STAKING_PLUGIN, STAKING_TEST, "streak:n=2 | {}"),
    ("staking", True): (SIMPLE_STAKING_PLUGIN, STAKING_TEST, "streak:n=2 | {}"),
}
