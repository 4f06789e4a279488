"""``baccarat live``: keep a scorecard at the table, full screen or as plain text."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from ..errors import BaccaratError
from ..extras import require
from . import app
from .common import (
    Debug,
    build_rules,
    done,
    print_labelled,
    reports_errors,
)
from .rule_options import (
    Commission,
    Decks,
    RulesFile,
    TableMax,
    TableMin,
    TiePays,
    VariantOpt,
    session_rules,
)

if TYPE_CHECKING:
    from ..live.scorecard import Scorecard

#: The file a session without ``--out`` writes: named by the minute it starts, in the current
#: folder (``-2``, ``-3``... when that name is taken), so that each session has its own.
DEFAULT_OUT = "live-{:%Y-%m-%d-%H%M}.csv"


class LiveOptionsError(BaccaratError):
    """Flags of ``baccarat live`` that do not go together."""


@app.command()
@reports_errors
@session_rules
def live(
    strategies: Annotated[list[str] | None, typer.Option(
        "--strategy", "-s", help="a system to follow (SPEC, as backtest takes it; "
        "repeat for several): its next stake and session bankroll are shown")] = None,
    out: Annotated[Path | None, typer.Option(
        help="the scorecard file to write, coup by coup (a CSV baccarat import reads; "
        "default live-DATE-TIME.csv, a new one each session); an existing file is never "
        "replaced")] = None,
    resume: Annotated[Path | None, typer.Option(
        help="continue the scorecard FILE written by baccarat live (its shoe, its rules)")
    ] = None,
    plain: Annotated[bool, typer.Option(
        "--plain", help="the same screen as plain text, reading lines from stdin (for a "
        "terminal without full-screen support, a screen reader, or a script)")] = False,
    rules_file: RulesFile = None,
    decks: Decks = None,
    commission: Commission = None,
    tie_pays: TiePays = None,
    variant: VariantOpt = None,
    table_min: TableMin = None,
    table_max: TableMax = None,
    session: Any = None,
    debug: Debug = False,
) -> None:
    """Keep a scorecard at the table: roads and ask marks, EV from the cards, systems."""
    if not plain:
        require("textual", "baccarat live (its full screen; --plain works without it)")
    from ..backtest import check_policy
    from ..live.journal import Journal
    from ..live.scorecard import Scorecard
    from ..live.session import LiveSession
    from ..live.systems import make_systems

    flags = {"decks": decks, "commission": commission, "tie_pays": tie_pays,
             "variant": variant, "table_min": table_min, "table_max": table_max}
    given = rules_file is not None or any(v is not None for v in flags.values())
    rules = build_rules(rules_file, **flags) if given else None
    if session.session_shoes != 1:
        raise LiveOptionsError(f"--session-shoes {session.session_shoes}: every shoe of the "
                               f"scorecard is one session for the systems")
    if resume is not None and out is not None and Path(out) != Path(resume):
        raise LiveOptionsError(f"--resume {resume} continues that file; --out {out} names "
                               f"another: give one of them")
    specs = list(strategies or [])
    systems = make_systems(specs)
    if resume is not None:
        journal = Journal.resume(Path(resume), rules)
    else:
        table = rules or build_rules(None)
        check_policy(session, (table,))  # before the file is made: nothing left behind
        journal = Journal.create(Path(out) if out is not None else default_out(datetime.now()),
                                 table, specs)
    try:
        if resume is not None and not specs:  # the systems the scorecard was started with
            systems = make_systems(journal.systems)
        check_policy(session, (journal.rules,))
        scorecard = Scorecard(LiveSession(journal), systems, session)
        if plain or not _full_screen_possible():
            if not plain:
                print_labelled("note", "not a full-screen terminal: the plain screen "
                               "(--plain), one line of input at a time", "yellow")
            run_plain(scorecard, sys.stdin, sys.stdout)
        else:
            from ..live.app import LiveApp

            app = LiveApp(scorecard)
            app.run()
            if app.return_code == LiveApp.INTERRUPTED:
                raise KeyboardInterrupt
            if app.failure is not None:
                raise app.failure
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"interrupted; everything entered is in {journal.path} "
                                f"(continue with --resume {journal.path})") from None
    finally:
        journal.close()
    session = scorecard.session
    coups = sum(len(shoe.coups) for shoe in session.shoes)
    done(f"kept {coups:,} coup{'s' if coups != 1 else ''} of {len(session.shoes)} "
         f"shoe{'s' if len(session.shoes) != 1 else ''} in {journal.path} (continue with "
         f"--resume {journal.path}; baccarat import reads it)")


def default_out(now: datetime, folder: Path = Path()) -> Path:
    """The scorecard file of a session started at ``now`` without ``--out``: a name no
    file in ``folder`` has yet."""
    first = folder / DEFAULT_OUT.format(now)
    path, n = first, 1
    while os.path.lexists(path):
        n += 1
        path = first.with_name(f"{first.stem}-{n}{first.suffix}")
    return path


def _full_screen_possible() -> bool:
    """Whether stdin and stdout are a terminal that can take a full-screen app."""
    return (sys.stdin.isatty() and sys.stdout.isatty()
            and os.environ.get("TERM", "") not in ("", "dumb"))


def run_plain(scorecard: Scorecard, lines: TextIO, out: TextIO, width: int | None = None) -> None:
    """The plain screen: print it, read a line, carry it out, print it again, until the
    input ends or asks to quit."""
    from ..live.screen import plain_screen

    width = width or min(120, max(40, _columns()))
    out.write(plain_screen(scorecard.view(), width) + "\n")
    out.flush()
    for line in lines:
        if not scorecard.handle(line):
            break
        out.write("\n" + plain_screen(scorecard.view(), width) + "\n")
        out.flush()


def _columns() -> int:
    try:
        return int(os.environ.get("COLUMNS") or os.get_terminal_size().columns)
    except (OSError, ValueError):
        return 80
