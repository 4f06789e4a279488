"""The scorecard being kept: the shoes entered so far, and what the screen shows of them.

A :class:`LiveSession` applies each command (a coup, undo, a new shoe, the burn) to its
:class:`~baccarat.live.journal.Journal` first -- on disk before anything else -- and then to
its shoes. What the screen shows is worked out from the shoes by the engine's own pieces:
the roads and ask marks (``baccarat.roads``), the cards left and the exact EV of every bet
the table offers from them (``baccarat.odds``), and each system's next stake and bankroll
(``baccarat.live.systems``, through the replay every backtest runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..cards import LABEL_OF_CODE, N_CODES, RANK_OF_CODE, UNKNOWN_SUIT, VALUE_OF_CODE
from ..coups import BANKER, PLAYER, TIE
from ..errors import BaccaratError
from .entry import Burn, Command, Coup, EntryError, NewShoe, Undo
from .journal import BurnShown, CoupRow, Journal, ShoeOpened

if TYPE_CHECKING:
    from ..roads import Roads
    from ..rules import TableRules


@dataclass
class Shoe:
    """One shoe as entered: its number (from 1), the burn card shown, its coups."""

    number: int
    burn: int | None = None
    coups: list[Coup] = field(default_factory=list)

    @property
    def outcomes(self) -> list[int]:
        """The outcome codes in order."""
        return [coup.outcome for coup in self.coups]

    @property
    def all_cards(self) -> bool:
        """Whether every coup of the shoe was entered with its cards (the cards left are
        then known)."""
        return all(coup.has_cards for coup in self.coups)

    def seen_codes(self) -> list[int]:
        """Every card shown face up in the shoe so far: the burn card and the coups' cards."""
        shown = [self.burn] if self.burn is not None else []
        return shown + [card for coup in self.coups for card in coup.cards]


@dataclass(frozen=True)
class Tallies:
    """The counts a scoreboard shows for a shoe."""

    coups: int
    banker: int
    player: int
    tie: int
    player_pairs: int
    banker_pairs: int


@dataclass(frozen=True)
class CardsLeft:
    """The cards not yet seen in the shoe, and the exact EV of each bet from them.

    ``by_value`` holds 10 counts (value 0 = 10/J/Q/K, 1 = ace, ..., 9); ``ev`` the EV per
    unit staked of every bet the table offers, from the composition (by rank when every
    rank is known, so the pairs are exact); None when fewer than six cards are left.
    ``side_ev``: the same for the side bets of ``baccarat.odds.side_bets`` (Dragon Bonus,
    the Tiger family, Lucky 6, the pairs, Big and Small, Egalité) on their standard
    paytables, those the composition prices (the suited ones need the suits).
    """

    by_value: np.ndarray
    ev: dict[str, float] | None
    side_ev: dict[str, float] | None = None


class LiveSession:
    """The shoes of one scorecard, kept in step with its file."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.rules: TableRules = journal.rules
        self.shoes: list[Shoe] = []
        self._ev: dict[tuple[int, ...], tuple[dict[str, float], dict[str, float]]] = {}
        for record in journal.records:
            self._apply_record(record)
        if not self.shoes:
            self.journal.open_shoe(1)
            self.shoes.append(Shoe(1))

    # --- commands --------------------------------------------------------------------

    def apply(self, command: Command) -> str:
        """Carry out ``command`` (written to the file first); returns what was done."""
        if isinstance(command, Coup):
            return self.add_coup(command)
        if isinstance(command, Undo):
            return self.undo()
        if isinstance(command, NewShoe):
            return self.new_shoe()
        if isinstance(command, Burn):
            return self.burn(command.card)
        raise EntryError(f"{type(command).__name__} is not a scorecard command")

    def add_coup(self, coup: Coup) -> str:
        """Record a coup in the current shoe, its cards checked against those left."""
        shoe = self.shoe
        if coup.has_cards:
            self._check_available(list(coup.cards))
        number = len(shoe.coups) + 1
        self.journal.coup(shoe.number, number, coup)
        shoe.coups.append(coup)
        return f"shoe {shoe.number}, coup {number}: {coup.describe()}"

    def burn(self, card: int) -> str:
        """Record the burn card shown at the start of the current shoe."""
        shoe = self.shoe
        if shoe.coups:
            raise EntryError(f"the burn comes before the first coup; shoe {shoe.number} has "
                             f"{len(shoe.coups)} already (start a new shoe with n)")
        if shoe.burn is not None:
            raise EntryError(f"shoe {shoe.number} was burned already ({LABEL_OF_CODE[shoe.burn]}"
                             f"); undo it first to change it")
        self._check_available([card])
        self.journal.burn(shoe.number, card)
        shoe.burn = card
        return f"shoe {shoe.number}: burn card {LABEL_OF_CODE[card]} shown"

    def new_shoe(self) -> str:
        """Start the next shoe."""
        if not self.shoe.coups and self.shoe.burn is None:
            raise EntryError(f"shoe {self.shoe.number} has no coups yet")
        number = self.shoe.number + 1
        self.journal.open_shoe(number)
        self.shoes.append(Shoe(number))
        return f"shoe {number} started"

    def undo(self) -> str:
        """Take back the last entry (a coup, the burn, or the start of a shoe)."""
        if len(self.journal.records) <= 1:
            raise EntryError("nothing to undo")
        record = self.journal.undo()
        shoe = self.shoe
        if isinstance(record, CoupRow):
            coup = shoe.coups.pop()
            return f"undone: shoe {shoe.number}, coup {record.coup} ({coup.describe()})"
        if isinstance(record, BurnShown):
            shoe.burn = None
            return f"undone: the burn card {LABEL_OF_CODE[record.card]} of shoe {shoe.number}"
        self.shoes.pop()
        return f"undone: the start of shoe {record.shoe}; back in shoe {self.shoe.number}"

    def close(self) -> None:
        """Close the file and give up its lock."""
        self.journal.close()

    @staticmethod
    def warm() -> None:
        """Load what a coup with cards needs (the dealer's compiled rules), so the first
        one entered does not wait for it."""
        from .entry import coup_from_cards

        coup_from_cards(["9s", "3h", "kd", "5c"])

    def _apply_record(self, record: object) -> None:
        # The journal opens a shoe before its first coup or burn (a line of its own, or a
        # row of another shoe: the file's numbers are kept).
        if isinstance(record, ShoeOpened):
            self.shoes.append(Shoe(record.shoe))
        elif isinstance(record, BurnShown):
            self.shoe.burn = record.card
        elif isinstance(record, CoupRow):
            self.shoe.coups.append(record.entry)

    def _check_available(self, cards: list[int]) -> None:
        """Refuse cards the shoe no longer holds (more of a card than its decks have)."""
        decks, number = self.rules.decks, self.shoe.number
        codes = np.array(self.shoe.seen_codes() + cards, dtype=np.int64)
        exact = np.bincount(codes, minlength=N_CODES)
        ranks = np.bincount(RANK_OF_CODE[codes], minlength=14)
        tens = int(ranks[0] + ranks[10:].sum())
        for card in cards:
            rank, label = int(RANK_OF_CODE[card]), LABEL_OF_CODE[card]
            if card % 5 != UNKNOWN_SUIT and exact[card] > decks:
                problem = f"a {decks}-deck shoe holds {decks}, and {exact[card]} would be seen"
            elif rank >= 1 and ranks[rank] > 4 * decks:
                problem = (f"a {decks}-deck shoe holds {4 * decks} of its rank, and "
                           f"{ranks[rank]} would be seen")
            elif VALUE_OF_CODE[card] == 0 and tens > 16 * decks:
                problem = (f"a {decks}-deck shoe holds {16 * decks} cards worth 0, and "
                           f"{tens} would be seen")
            else:
                continue
            raise EntryError(f"{label}: {problem} in shoe {number}; check the cards (undo "
                             f"with u, or start a new shoe with n)")

    # --- what the screen shows ---------------------------------------------------------

    @property
    def shoe(self) -> Shoe:
        """The shoe being dealt."""
        return self.shoes[-1]

    def tallies(self) -> Tallies:
        """Coups, Banker/Player/Tie wins and pairs of the current shoe."""
        coups = self.shoe.coups
        outcomes = [c.outcome for c in coups]
        return Tallies(len(coups), outcomes.count(BANKER), outcomes.count(PLAYER),
                       outcomes.count(TIE), sum(c.player_pair for c in coups),
                       sum(c.banker_pair for c in coups))

    def roads(self) -> Roads:
        """The current shoe's roads and ask marks."""
        from ..roads import all_roads

        return all_roads(self.shoe.outcomes)

    def cards_left(self) -> CardsLeft | None:
        """The cards left in the current shoe and the EV of every bet from them; None
        when a coup of the shoe was entered without its cards (what is left is unknown)."""
        if not self.shoe.all_cards:
            return None
        from ..odds import bets_offered, expected_values
        from ..odds.composition import MIN_CARDS
        from ..odds.side_bets import SIDE_BETS, side_bet_evs

        seen = np.array(self.shoe.seen_codes(), dtype=np.int64)
        decks = self.rules.decks
        by_value = np.full(10, 4 * decks, dtype=np.int64)
        by_value[0] = 16 * decks
        by_value -= np.bincount(VALUE_OF_CODE[seen], minlength=10) if seen.size else 0
        if by_value.sum() < MIN_CARDS:
            return CardsLeft(by_value, None)
        ranks = RANK_OF_CODE[seen] if seen.size else np.zeros(0, np.int64)
        if (ranks == 0).any():  # a ten-valued card entered without its rank: by value
            counts = by_value
        else:
            counts = np.full(13, 4 * decks, dtype=np.int64)
            counts -= np.bincount(ranks, minlength=14)[1:] if seen.size else 0
        key = tuple(int(c) for c in counts)
        if key not in self._ev:  # a redraw asks again for the same cards
            ev = expected_values(counts, self.rules)
            side = side_bet_evs(counts[None])[0]
            self._ev[key] = ({kind: ev[kind] for kind in bets_offered(self.rules)},
                             {bet: float(value) for bet, value in zip(SIDE_BETS, side,
                                                                      strict=True)
                              if not np.isnan(value)})
        main, side_ev = self._ev[key]
        return CardsLeft(by_value, main, side_ev)


__all__ = ["BaccaratError", "CardsLeft", "LiveSession", "Shoe", "Tallies"]
