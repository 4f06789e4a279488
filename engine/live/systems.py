"""What each system would stake on the next coup, and its session so far, at the table.

Nothing here plays a strategy itself: the session so far (every coup entered, all shoes of
the scorecard as one session) is played through ``baccarat.replay.replay``, the engine
every backtest runs, with one more coup behind it. The stake the replay places on that
coup is the system's next stake: a strategy decides before a coup is dealt and never
sees it (no look-ahead), so what the extra coup holds does not change the stake. When
the shoe's cards are known the extra coup is dealt from the cards left, so a system that
counts cards sees a shoe its decks can hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..bets import BET_KINDS
from ..cards import NO_CARD, make_code
from ..coups import BANKER, Coups
from ..errors import BaccaratError

if TYPE_CHECKING:
    from ..replay import ConfigLedger, SessionPolicy
    from ..rules import TableRules
    from ..strategies.base import Strategy
    from .session import Shoe

#: Short names of the bet kinds, for a screen line.
KIND_NAMES = {"banker": "B", "player": "P", "tie": "T", "player_pair": "PP",
              "banker_pair": "BP", "dragon7": "D7", "panda8": "P8", "super6": "S6"}


@dataclass(frozen=True)
class SystemStatus:
    """One system at the table: its next stakes, its bankroll, or why it does not bet."""

    spec: str
    stakes: dict[str, float]
    bankroll: float
    start: float
    state: str = ""  # "", or why no stake: "stopped: win_goal", "sitting out this shoe"...

    @property
    def net(self) -> float:
        """What the session has won (+) or lost (-) so far."""
        return self.bankroll - self.start

    def stake_text(self) -> str:
        """``"B 20"``, ``"P 10 + T 5"``, ``"no bet"`` or the state."""
        if self.state:
            return self.state
        placed = [f"{KIND_NAMES[kind]} {_money(amount)}" for kind, amount in self.stakes.items()
                  if amount > 0]
        return " + ".join(placed) if placed else "no bet"


def _money(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def make_systems(specs: list[str]) -> list[Strategy]:
    """Every configuration the ``-s`` SPECs stand for (a grid gives one per value)."""
    from ..strategies.registry import expand_spec

    return [config for spec in specs for config in expand_spec(spec)]


def session_coups(shoes: list[Shoe], decks: int, with_next: bool = True) -> Coups:
    """The session's coups as a ``Coups`` table (shoes numbered from 0), with the extra
    coup the next stake is read from when ``with_next``."""
    rows: list[tuple[int, int, list[int], int, int, int, int]] = []
    for index, shoe in enumerate(shoes):
        burn = shoe.burn if shoe.burn is not None else NO_CARD
        for number, coup in enumerate(shoe.coups, start=1):
            cards = ([*coup.player, *[NO_CARD] * (3 - len(coup.player)),
                      *coup.banker, *[NO_CARD] * (3 - len(coup.banker))]
                     if coup.has_cards else [NO_CARD] * 6)
            rows.append((index, number, cards, coup.player_total, coup.banker_total,
                         coup.outcome, burn))
    if with_next:
        rows.append(_next_coup(shoes, decks))
    n = len(rows)
    return Coups(
        shoe=np.array([r[0] for r in rows], dtype=np.int64),
        coup=np.array([r[1] for r in rows], dtype=np.int32),
        cards=np.array([r[2] for r in rows], dtype=np.int8).reshape(n, 6),
        player_total=np.array([r[3] for r in rows], dtype=np.int8),
        banker_total=np.array([r[4] for r in rows], dtype=np.int8),
        outcome=np.array([r[5] for r in rows], dtype=np.int8),
        burn_shown=np.array([r[6] for r in rows], dtype=np.int8), decks=decks,
    )


def _next_coup(shoes: list[Shoe], decks: int) -> tuple[int, int, list[int], int, int, int, int]:
    """A stand-in for the coup about to be dealt in the current shoe: outcome-only, or,
    when every coup of the session has its cards, dealt from the cards left."""
    from ..deal import deal_one

    shoe = shoes[-1]
    burn = shoe.burn if shoe.burn is not None else NO_CARD
    number = len(shoe.coups) + 1
    if not all(s.all_cards for s in shoes) or not any(s.coups for s in shoes):
        return (len(shoes) - 1, number, [NO_CARD] * 6, -1, -1, BANKER, burn)
    seen = np.bincount([c // 5 for c in shoe.seen_codes()], minlength=14)
    left = [make_code(rank) for rank in range(13, 0, -1)
            for _ in range(max(0, 4 * decks - int(seen[rank])))]
    player, banker, pt, bt, outcome = deal_one(left[:6])
    cards = [*player, *[NO_CARD] * (3 - len(player)), *banker, *[NO_CARD] * (3 - len(banker))]
    return (len(shoes) - 1, number, cards, pt, bt, outcome, burn)


def next_stakes(configs: list[Strategy], shoes: list[Shoe], rules: TableRules,
                session: SessionPolicy) -> list[SystemStatus | str]:
    """Each configuration's next stake and session so far, under the session rules
    ``session`` (every shoe of the scorecard is one session); a one-line error in its
    place for one the replay refuses (it needs the cards, a bet the table does not
    offer...).

    All configurations play in one replay (they share its steps); if that fails, each is
    played alone so that one system's error does not hide the others.
    """
    import copy
    from dataclasses import replace

    from ..replay import replay

    if not configs:
        return []

    with_cards = all(shoe.all_cards for shoe in shoes) and any(shoe.coups for shoe in shoes)
    if not with_cards and any(config.needs_cards for config in configs):
        rest = next_stakes([c for c in configs if not c.needs_cards], shoes, rules, session)
        by_config = dict(zip([id(c) for c in configs if not c.needs_cards], rest,
                             strict=True))
        return [f"{c.spec()}: counts the cards; enter every coup of the session with its "
                f"cards to see its stakes" if c.needs_cards else by_config[id(c)]
                for c in configs]
    coups = session_coups(shoes, rules.decks)
    policy = replace(session, session_shoes=len(shoes))
    bankroll = policy.bankroll
    try:
        _, ledgers = replay(coups, copy.deepcopy(configs), rules, policy)
        return [_status(config, ledger, bankroll)
                for config, ledger in zip(configs, ledgers, strict=True)]
    except BaccaratError:
        if len(configs) == 1:
            return [f"{configs[0].spec()}: {_why()}"]
    out: list[SystemStatus | str] = []
    for config in configs:
        try:
            _, (ledger,) = replay(coups, [copy.deepcopy(config)], rules, policy)
        except BaccaratError as exc:
            out.append(f"{config.spec()}: {exc}")
            continue
        out.append(_status(config, ledger, bankroll))
    return out


def _why() -> str:
    import sys

    return str(sys.exc_info()[1])


def _status(config: Strategy, ledger: ConfigLedger, bankroll: float) -> SystemStatus:
    """What the replay's ledger of the session says: the stake on its last (next) coup,
    the bankroll after the coups before it, or why it does not play that coup."""
    from ..session_play import STOP_REASONS

    played = ledger.played[0]
    so_far = bankroll + float(ledger.net[0, :-1][played[:-1]].sum())
    stakes = {kind: float(grid[0, -1]) for kind, grid in ledger.stakes.items()
              if kind in BET_KINDS}
    state = ""
    if not played[-1]:
        reason = STOP_REASONS[int(ledger.stop_reason[0])]
        state = "sitting out this shoe" if reason == "end" else f"stopped: {reason}"
    return SystemStatus(config.spec(), stakes, so_far, bankroll, state)


__all__ = ["KIND_NAMES", "SystemStatus", "make_systems", "next_stakes", "session_coups"]
