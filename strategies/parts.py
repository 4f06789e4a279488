"""The parts of a system: a selection, a staking plan and session rules.

A system player describes a system in three parts: *when and what to bet* (a
**selection**: every coup on Banker, the side of a streak, the opposite after three
alternations, when the Dragon 7 count reaches 4), *how much* (a **staking plan**: flat,
Martingale, D'Alembert, 1-3-2-6, Kelly...) and *when to stop* (**session rules**: +50 or
-200 per shoe, three losses in a row, a trailing stop). Each part is a small pydantic
model (its parameters are its fields) registered by kind under a name. A SPEC joins parts
with ``|`` (``streak:n=4 | dalembert | stop:win=50,loss=200,per=shoe``) and
:class:`baccarat.strategies.system.System` plays them through the ordinary strategy contract, so
any selection combines with any staking plan and any session rule.

How the parts meet, defined once for every part, built-in or plugin:

- **Before each coup** the selection chooses, per session, the bet kind to stake on (its
  index in :data:`baccarat.bets.BET_KINDS`: :data:`BANKER` 0, :data:`PLAYER` 1, :data:`TIE`
  2, ...), :data:`NO_BET`, or :data:`END` to end the session (``stop_reason``
  "strategy"); the staking plan says how much. A session stakes the staking plan's amount
  on the kind its selection chose, and nothing where it chose no bet.
- **After the coup** both learn from the same :class:`~baccarat.strategies.base.Result`.
- **A staking plan moves only on a coup its session staked on and won or lost.** A push
  (a tie on Banker or Player, an EZ Banker three-card 7) and a skipped coup (the selection
  chose nothing, a stake below the table minimum was skipped, the session sat out the rest
  of a shoe after a per-shoe stop) leave it where it is.
- **A new shoe changes no staking plan**: a progression runs over the whole session,
  across its shoes. What a new shoe means to a selection is the selection's own rule (the
  pattern followers forget the pattern unless ``per_shoe=false``).

Session rules are not played by the parts: each rule part sets fields of
:class:`baccarat.replay.SessionPolicy` (the engine's stop rules), for its configuration.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field

from ..bets import BET_KINDS, KIND_INDEX
from .base import Configured, Result, Table, missing_method

if TYPE_CHECKING:
    from .compiled import PartForm

#: The kinds of part, in the order a SPEC lists them.
PART_KINDS = ("selection", "staking", "rules")

#: Codes a selection chooses per session: a bet kind's index in BET_KINDS, or one of these.
BANKER, PLAYER, TIE = KIND_INDEX["banker"], KIND_INDEX["player"], KIND_INDEX["tie"]
NO_BET = -1
END = -2


class Part(Configured):
    """One part of a system: a selection, a staking plan or session rules.

    Parameters are pydantic fields; per-run state is set on ``self`` in ``start`` (one
    array entry per session, as for the array form of a strategy) and cleared by the
    engine before each run. ``needs_cards`` / ``needs_roads`` ask the engine for the card
    counts / the roads on the table, as for a strategy.
    """

    kind: ClassVar[str] = ""
    needs_cards: ClassVar[bool] = False
    needs_roads: ClassVar[bool] = False
    hooks: ClassVar[tuple[str, ...]] = ("start", "settle")

    @classmethod
    def _builtin_named(cls, name: str) -> type | None:
        return builtin_parts(cls.kind).get(name)

    def start(self, table: Table) -> None:
        """Allocate per-session state for ``table.n`` sessions."""

    def settle(self, table: Table, result: Result) -> None:
        """Learn what happened on the coup just dealt (``result.played`` says which
        sessions played it; ``won``/``lost``/``pushed`` which staked and how it went)."""

    def compiled_form(self) -> PartForm | None:
        """The fused path's form of this configuration (``baccarat.strategies.compiled``): built-in
        parts declare one; None means the replay plays it."""
        return None


class Selection(Part):
    """When and what to bet: per session, a bet kind's code, ``NO_BET`` or ``END``.

    Implement ``choose(table)``: an integer array of shape (n,) of codes (``BANKER``,
    ``PLAYER``, ``TIE``, any index of ``baccarat.bets.BET_KINDS``, ``NO_BET``, ``END``), or
    one code for every session; a selection of one kind may return a boolean array
    instead (True: bet it, False: no bet). ``kinds()`` names the bet kinds it may choose (Banker and
    Player unless said otherwise). A selection that prices the bets it chooses (a count
    trigger) returns their EV per unit staked from ``ev()``, which Kelly staking reads.
    """

    kind: ClassVar[str] = "selection"
    hooks: ClassVar[tuple[str, ...]] = ("start", "choose", "settle", "kinds", "ev")

    def kinds(self) -> tuple[str, ...]:
        """The bet kinds this selection may choose."""
        return ("banker", "player")

    def choose(self, table: Table) -> np.ndarray | int:
        """The code chosen per session for the coup about to be dealt."""
        raise NotImplementedError(missing_method(
            type(self), "choose", "self, table", "the method that picks each session's bet",
            role="picks the bets"))

    def ev(self) -> np.ndarray | None:
        """The EV per unit staked of the bets chosen at this coup (NaN where unknown), or
        None when the selection does not price its bets."""
        return None


@dataclass(slots=True)
class Choice:
    """What the selection chose for the coup about to be dealt, as a staking plan sees it.

    ``side``: the code per session (or one for all); ``betting()``: the sessions that bet;
    ``ev``: the EV per unit staked the selection priced the bets at (None if it did not);
    ``kinds``: the bet kinds the selection may choose.
    """

    side: np.ndarray | int
    ev: np.ndarray | None = None
    kinds: tuple[str, ...] = ()

    def betting(self, n: int) -> np.ndarray:
        """Boolean (n,): the sessions that stake on this coup."""
        side = np.broadcast_to(np.asarray(self.side), (n,))
        return side if side.dtype == np.bool_ else side >= 0


class Staking(Part):
    """How much: the stake per session for the next bet, from the plan's own state.

    Implement ``stakes(table, choice)`` (money, shape (n,) or one number for all; only the
    sessions that bet stake it) and, for a progression, ``settle`` (move on
    ``result.won`` / ``result.lost``: the sessions that staked and won / lost).
    """

    kind: ClassVar[str] = "staking"
    hooks: ClassVar[tuple[str, ...]] = ("start", "stakes", "settle")

    base: float = Field(10.0, gt=0, description="base stake in table units")

    def stakes(self, table: Table, choice: Choice) -> np.ndarray | float:
        """The stake per session for the coup about to be dealt."""
        raise NotImplementedError(missing_method(
            type(self), "stakes", "self, table, choice", "the method that sizes each bet",
            role="sizes the bets"))


class SessionRule(Part):
    """When to stop: a rule part sets fields of ``baccarat.replay.SessionPolicy`` for its
    configuration (the engine applies them after every coup)."""

    kind: ClassVar[str] = "rules"
    hooks: ClassVar[tuple[str, ...]] = ("policy",)

    def policy(self) -> dict[str, Any]:
        """The ``SessionPolicy`` fields this part sets (those it leaves unset are absent)."""
        return {}


# --- The registry of parts, by kind --------------------------------------------------------

_PARTS: dict[str, dict[str, type[Part]]] = {kind: {} for kind in PART_KINDS}


def register_part(cls: type[Part]) -> type[Part]:
    """Class decorator: make a part available under its kind and ``cls.name``."""
    from .registry import StrategyError

    if cls.kind not in _PARTS or not cls.name:
        raise StrategyError(f"{cls.__qualname__} needs a kind ({', '.join(PART_KINDS)}) and "
                            f"a `name` to register under")
    existing = _PARTS[cls.kind].get(cls.name)
    if existing is not None and existing is not cls:
        raise StrategyError(f"a {cls.kind} named {cls.name!r} is already registered "
                            f"({existing.__qualname__})")
    _PARTS[cls.kind][cls.name] = cls
    return cls


def builtin_parts(kind: str | None = None) -> dict[str, type[Part]]:
    """The built-in parts of ``kind`` by name (every kind's, as ``kind:name``, if None)."""
    _load_builtins()
    if kind is not None:
        return dict(sorted(_PARTS.get(kind, {}).items()))
    return {f"{k}:{n}": cls for k in PART_KINDS for n, cls in sorted(_PARTS[k].items())}


@functools.cache
def _load_builtins() -> None:
    from . import selections, session_rules, staking  # noqa: F401  (they register)


def part_kind(cls: type) -> str | None:
    """The kind of part ``cls`` is ("selection", "staking", "rules"), None if not a part."""
    if isinstance(cls, type) and issubclass(cls, Part) and cls.kind in PART_KINDS:
        return cls.kind
    return None


def kind_codes(kinds: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """Each bet kind with its code (its index in BET_KINDS)."""
    return tuple((kind, BET_KINDS.index(kind)) for kind in kinds)


__all__ = ["BANKER", "Choice", "END", "NO_BET", "PART_KINDS", "PLAYER", "Part", "Selection",
           "SessionRule", "Staking", "TIE", "builtin_parts", "kind_codes", "part_kind",
           "register_part"]
