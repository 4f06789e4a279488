"""What a person types at the table, read into commands: a coup, undo, a new shoe, the burn.

A coup is its outcome (``b``, ``p``, ``t``, or the words; pair flags ``pp`` for a Player
pair and ``bp`` for a Banker pair after it: ``b pp``) or its cards as dealt, in dealing
order: Player, Banker, Player, Banker, then the third cards as the rules call for them
(``9s 3h kd 5c``, ``as 2h 3c 4d 5s``). Cards are checked against the drawing rules at once
(the engine's own dealer, ``baccarat.deal.deal_one``): too few or too many cards for the
coup is an error saying which hand draws or stands and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..cards import LABEL_OF_CODE, RANK_OF_CODE, VALUE_OF_CODE, make_code, parse_card
from ..coups import BANKER, PLAYER, TIE
from ..errors import BaccaratError

OUTCOME_WORDS = {"b": BANKER, "banker": BANKER, "p": PLAYER, "player": PLAYER,
                 "t": TIE, "tie": TIE}
PAIR_FLAGS = {"pp": "player", "bp": "banker"}
UNDO_WORDS = ("u", "undo")
NEW_SHOE_WORDS = ("n", "new", "new shoe", "shoe")
QUIT_WORDS = ("quit", "exit")
HELP_WORDS = ("?", "h", "help")
OUTCOME_NAMES = {BANKER: "Banker", PLAYER: "Player", TIE: "Tie"}

HELP = ("b p t: a coup's outcome (pairs: b pp, b bp, t pp bp) | cards as dealt: "
        "9s 3h kd 5c (P B P B, then third cards) | u: undo | n: new shoe | "
        "burn CARD | quit")


class EntryError(BaccaratError):
    """A line that is not a coup or a command the scorecard knows."""


@dataclass(frozen=True)
class Coup:
    """One coup as entered: the outcome, the pairs, and the cards when they were given.

    ``player`` and ``banker`` are card codes in dealing order (empty when only the outcome
    was entered); ``player_total`` / ``banker_total`` are -1 then.
    """

    outcome: int
    player_pair: bool = False
    banker_pair: bool = False
    player: tuple[int, ...] = ()
    banker: tuple[int, ...] = ()
    player_total: int = -1
    banker_total: int = -1

    @property
    def has_cards(self) -> bool:
        """Whether the cards were entered (not only the outcome)."""
        return bool(self.player)

    @property
    def cards(self) -> tuple[int, ...]:
        """Every card of the coup (Player's then Banker's)."""
        return self.player + self.banker

    def describe(self) -> str:
        """``"Banker 7-5 (9S 3H | KD 5C 2H)"``, ``"Tie, Player pair"``: what was recorded."""
        text = OUTCOME_NAMES[self.outcome]
        if self.has_cards:
            text += (f" {self.player_total}-{self.banker_total} ({_labels(self.player)} | "
                     f"{_labels(self.banker)})")
        pairs = [name for name, flag in (("Player pair", self.player_pair),
                                         ("Banker pair", self.banker_pair)) if flag]
        return ", ".join([text, *pairs])


@dataclass(frozen=True)
class Undo:
    """Take back the last thing entered (a coup, a burn, a new shoe)."""


@dataclass(frozen=True)
class NewShoe:
    """Start the next shoe: fresh roads, tallies and cards."""


@dataclass(frozen=True)
class Burn:
    """The burn card shown face up at the start of the shoe."""

    card: int


@dataclass(frozen=True)
class Quit:
    """Leave (everything entered is in the file already)."""


@dataclass(frozen=True)
class Help:
    """Show the keys and commands."""


Command = Coup | Undo | NewShoe | Burn | Quit | Help


def _labels(cards: tuple[int, ...] | list[int]) -> str:
    return " ".join(LABEL_OF_CODE[c] for c in cards)


def echo(line: str, longest: int = 40) -> str:
    """A line of input quoted in a message: whole, or its start and its length when it is
    long (a message has two lines on the app's screen, and must still say what is wrong)."""
    text = line.strip()
    if len(text) <= longest:
        return repr(text)
    return f"{text[:longest - 4]!r}... ({len(text):,} characters)"


def parse_line(line: str) -> Command | None:
    """The command a line of input stands for; None for a blank line."""
    text = " ".join(line.strip().lower().split())
    if not text:
        return None
    if text in UNDO_WORDS:
        return Undo()
    if text in NEW_SHOE_WORDS:
        return NewShoe()
    if text in QUIT_WORDS or text == "q":
        return Quit()
    if text in HELP_WORDS:
        return Help()
    words = text.replace(",", " ").split()
    if words[0] == "burn":
        if len(words) != 2:
            raise EntryError(f"{echo(line)}: the burn is one card shown face up, e.g. "
                             f"'burn 7h'")
        return Burn(parse_card(words[1], "the burn"))
    if words[0] in OUTCOME_WORDS or re.fullmatch(r"[bpt]\+?(pp|bp)+", words[0]):
        return _outcome_coup(words, line)
    try:
        parse_card(words[0])
    except BaccaratError:
        raise EntryError(f"{echo(line)} is neither an outcome (b, p, t), the cards of a "
                         f"coup (9s 3h kd 5c) nor a command (u undo, n new shoe, burn CARD, "
                         f"quit, ? help)") from None
    return coup_from_cards(words)


def _outcome_coup(words: list[str], line: str) -> Coup:
    flags = words[1:]
    # "b+pp" / "bpp" written together are the same as "b pp"
    if match := re.fullmatch(r"([bpt])\+?((?:pp|bp)+)", words[0]):
        flags = re.findall("pp|bp", match.group(2)) + flags
        words = [match.group(1)]
    unknown = [flag for flag in flags if flag.lstrip("+") not in PAIR_FLAGS]
    if unknown:
        raise EntryError(f"{echo(line)}: {unknown[0]!r} is not a pair flag; after the "
                         f"outcome write pp (Player pair) and/or bp (Banker pair)")
    given = {PAIR_FLAGS[flag.lstrip("+")] for flag in flags}
    return Coup(OUTCOME_WORDS[words[0]], player_pair="player" in given,
                banker_pair="banker" in given)


def coup_from_cards(words: list[str]) -> Coup:
    """A coup from its cards in dealing order, checked against the drawing rules."""
    from ..deal import deal_one

    cards = [parse_card(word, f"card {i + 1}") for i, word in enumerate(words)]
    if len(cards) < 4:
        raise EntryError(f"{len(cards)} card{'s' if len(cards) != 1 else ''} given: a coup "
                         f"starts with four (Player, Banker, Player, Banker), e.g. "
                         f"'9s 3h kd 5c'")
    padding = [make_code(0)] * 2  # stands for cards not given, to see whether they are needed
    player, banker, player_total, banker_total, outcome = deal_one(cards[:6] + padding)
    used = len(player) + len(banker)
    if used != len(cards):
        why = drawing_reason(player, banker)
        if used > len(cards) and len(cards) == 4 and len(player) == 3:
            p2 = _total(player[:2])  # the banker's play waits on the player's third card
            why = f"player {p2} ({_labels(player[:2])}) draws a third card"
        if used > len(cards):
            raise EntryError(f"{_labels(cards)}: {why}, so the coup takes {used} cards; "
                             f"{len(cards)} given")
        extra = _labels(cards[used:])
        raise EntryError(f"{_labels(cards)}: {why}, so the coup ends after {used} cards; "
                         f"{extra} {'is' if len(cards) - used == 1 else 'are'} too many")
    return Coup(outcome, player_pair=_pair(player), banker_pair=_pair(banker),
                player=tuple(player), banker=tuple(banker), player_total=player_total,
                banker_total=banker_total)


def _pair(hand: list[int]) -> bool:
    return int(RANK_OF_CODE[hand[0]]) == int(RANK_OF_CODE[hand[1]])


def _total(cards: list[int]) -> int:
    return int(sum(int(VALUE_OF_CODE[c]) for c in cards) % 10)


def drawing_reason(player: list[int], banker: list[int]) -> str:
    """Why a coup took the cards it took, in words: who had a natural, drew or stood."""
    p2, b2 = _total(player[:2]), _total(banker[:2])
    p_hand, b_hand = _labels(player[:2]), _labels(banker[:2])
    if p2 >= 8 or b2 >= 8:
        side, total, hand = (("player", p2, p_hand) if p2 >= 8 else ("banker", b2, b_hand))
        return f"{side} {total} ({hand}) is a natural"
    if len(player) == 2:
        player_part = f"player {p2} ({p_hand}) stands"
        verb = "draws" if len(banker) == 3 else "stands"
        return f"{player_part} and banker {b2} ({b_hand}) {verb}"
    third = int(VALUE_OF_CODE[player[2]])
    verb = "draws" if len(banker) == 3 else "stands"
    return (f"player {p2} ({p_hand}) draws ({LABEL_OF_CODE[player[2]]}) and banker {b2} "
            f"({b_hand}) {verb} on a third card of {third}")


__all__ = ["Burn", "Command", "Coup", "EntryError", "HELP", "Help", "NewShoe",
           "OUTCOME_NAMES", "Quit", "Undo", "coup_from_cards", "drawing_reason",
           "parse_line"]
