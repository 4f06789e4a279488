"""The scorecard at the table: input in, screen out, the same for the app and ``--plain``.

A :class:`Scorecard` takes what a person types (a line, or one of the app's keys),
carries it out on the :class:`~baccarat.live.session.LiveSession` (which writes it to the
file first), asks the systems for their next stakes, and gives the :class:`View` that
both screens draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import LABEL_OF_CODE
from ..errors import BaccaratError
from .entry import HELP, Coup, Help, Quit, parse_line
from .screen import View
from .session import LiveSession, Shoe
from .systems import SystemStatus, next_stakes

if TYPE_CHECKING:
    from ..replay import SessionPolicy
    from ..strategies.base import Strategy


class Scorecard:
    """A session being kept, its systems, and the last message."""

    def __init__(self, session: LiveSession, systems: list[Strategy],
                 rules: SessionPolicy | None = None) -> None:
        from ..replay import SessionPolicy

        self.session = session
        self.systems = systems
        self.session_rules = rules or SessionPolicy()  # the systems' session rules
        self.pairs = [False, False]  # Player pair, Banker pair flags for the next key coup
        shoe = session.shoe
        self.message = (f"resumed {session.journal.path.name}: shoe {shoe.number}, "
                        f"{len(shoe.coups)} coups so far" if session.journal.records[1:]
                        else f"recording to {session.journal.path.name}; ? for help")
        if session.journal.notes:
            self.message = "; ".join([*session.journal.notes, self.message])
        self.error = False
        self.version = 0  # counts the changes to the shoes, to match stakes to them
        self._stakes: list[SystemStatus | str] = []
        self._stakes_version = -1
        self.refresh_systems()

    def handle(self, line: str, systems: bool = True) -> bool:
        """Carry out one line of input; False when it asks to quit. With ``systems``
        False the systems' stakes are left for the caller to work out
        (:meth:`snapshot`, :func:`stakes_of`, :meth:`set_stakes`: the app does it on a
        thread so the next key never waits for them)."""
        try:
            command = parse_line(line)
            if command is None:
                return True
            if isinstance(command, Quit):
                return False
            if isinstance(command, Help):
                self._say(HELP)
                return True
            if isinstance(command, Coup) and not command.has_cards and any(self.pairs):
                command = Coup(command.outcome, player_pair=command.player_pair or
                               self.pairs[0], banker_pair=command.banker_pair or self.pairs[1])
            self._say(self.session.apply(command))
            self.pairs = [False, False]
            self.version += 1
            if systems:
                self.refresh_systems()
        except BaccaratError as exc:
            self._say(str(exc), error=True)
        return True

    def toggle_pair(self, which: int) -> None:
        """Flip the Player (0) or Banker (1) pair flag of the next coup entered by key."""
        self.pairs[which] = not self.pairs[which]
        self._say("")

    def view(self) -> View:
        """What the screen shows now."""
        session = self.session
        shoe = session.shoe
        return View(
            shoe=shoe.number, rules_label=session.rules.label(), tallies=session.tallies(),
            roads=session.roads(),
            burn=LABEL_OF_CODE[shoe.burn] if shoe.burn is not None else None,
            cards=session.cards_left(), cards_known=shoe.all_cards, systems=self._stakes,
            systems_current=self.stakes_current,
            message=self.message, error=self.error, pairs=(self.pairs[0], self.pairs[1]),
            path=str(session.journal.path),
        )

    def close(self) -> None:
        """Close the file (everything entered is on disk already)."""
        self.session.close()

    def _say(self, message: str, error: bool = False) -> None:
        self.message, self.error = message, error

    @property
    def stakes_current(self) -> bool:
        """Whether the systems' stakes shown are those of the shoes as they are now."""
        return not self.systems or self._stakes_version == self.version

    def snapshot(self) -> tuple[int, list[Shoe]]:
        """The shoes as they are now (copies), and their version."""
        shoes = [Shoe(s.number, s.burn, list(s.coups)) for s in self.session.shoes]
        return self.version, shoes

    def stakes_of(self, shoes: list[Shoe]) -> list[SystemStatus | str]:
        """The systems' next stakes after ``shoes`` (safe on another thread: it reads only
        the copies it is given)."""
        return next_stakes(self.systems, shoes, self.session.rules, self.session_rules)

    def set_stakes(self, version: int, stakes: list[SystemStatus | str]) -> None:
        """Show ``stakes`` if they are for the shoes' current version (a stale one is
        dropped: a newer one is on its way)."""
        if version == self.version:
            self._stakes, self._stakes_version = stakes, version

    def refresh_systems(self) -> None:
        """Work out the systems' next stakes now."""
        if self.systems:
            version, shoes = self.snapshot()
            self.set_stakes(version, self.stakes_of(shoes))


__all__ = ["Scorecard"]
