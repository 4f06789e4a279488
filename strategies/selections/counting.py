"""Count triggers: bet a kind only when the cards left make it worth it.

``count`` (and ``counter``, which is ``count | kelly``) watches the cards shown in each
session's shoe (``table.seen`` / ``table.remaining``, the shown burn card included) and
bets one kind only when the cards left make it worth it: when its expected value per unit
on the cards left is above a threshold, the EV coming either from a running true count
built on the exact effects of removal (:func:`baccarat.odds.count_system`) or exactly, by
enumerating the next coup over the remaining composition; or when the published count of
a side bet (Dragon 7, Panda 8) reaches its trigger.

The exact EV reads only the events its bet kind needs (:func:`baccarat.odds.events_needed`:
one for Tie or Dragon 7, none for the pairs), computed as polynomials in the counts
(:mod:`baccarat.odds.polynomial`, the same integer tallies as the enumeration: about 2 us
of CPU per composition in a replay step's batches for one event). That is still the bulk
of a replay's cost if every coup of every session pays it, so :func:`exact_ev` and the
strategy cut it down:

- **cache**: event probabilities are kept per composition (:class:`CompositionCache`,
  keyed by the counts packed into one int64) and shared by every configuration in the
  process: a grid of counters over the same shoes enumerates each composition once;
- **min_depth**: nothing is evaluated before that many cards have been seen in the shoe;
- **screen**: the exact EV is computed only where the linear (effect-of-removal) estimate
  is within a safety margin of the threshold. The estimate's error is second order in the
  depletion of the shoe: it scales as ``s2 * (1/left - 1/N0)``, where ``s2`` is the EV's
  curvature (N0 squared times the largest exact second difference of the EV over removing
  two cards from the full shoe, :func:`curvature`) and ``1/left - 1/N0`` the variance
  factor of the fractions left after drawing without replacement. The margin is
  ``screen * s2 * (1/left - 1/N0)``. With fewer than :data:`EXACT_BELOW` cards left the
  higher-order terms take over and the composition is always enumerated (the last few
  coups of a shoe: about 3% of an 8-deck shoe's coups). Over 3,000 generated shoes each
  of 1, 2, 6 and 8 decks, every bet kind and variant, the largest (exact - estimate) /
  (s2 * (1/left - 1/N0)) measured with 26 or more cards left is 2.6
  (``benchmarks/bench_counter.py`` measures it); the default screen of 5 leaves almost a
  factor of two over it, and ``screen=None`` evaluates every composition exactly.
"""

from __future__ import annotations

import functools
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field

from ...bets import KIND_INDEX
from ...odds import (
    CountSystem,
    count_system,
    ev_of_kind,
    events_needed,
    expected_values_batch,
    pair_probability,
    shoe_counts,
)
from ...odds.cache import CACHE, CompositionCache
from ...odds.composition import MIN_CARDS, N_VALUES
from ...rules import TableRules
from ..base import Table
from ..compiled import SELECTIONS, PartForm
from ..kinds import BetKind
from ..parts import Selection, register_part
from ..registry import StrategyError
from ..staking.progressions import NoneWord

#: Default safety factor of the screen (see the module docstring).
DEFAULT_SCREEN = 5.0
#: With fewer cards than this left, the screen does not trust the count: always enumerate.
EXACT_BELOW = 26
_PAIR_KINDS = ("player_pair", "banker_pair")



def exact_ev(remaining: np.ndarray, rules: TableRules, kind: str, decks: int | None = None,
             cache: CompositionCache | None = None) -> np.ndarray:
    """Exact EV per unit staked on ``kind`` for the next coup, per composition (m, 10) by value.

    ``remaining`` are the cards left (unseen) in shoes of ``decks`` decks (default
    ``rules.decks``; it matters for the pair bets, whose zero-valued ranks are taken in
    expectation, see :func:`baccarat.odds.pair_probability`). Rows must be valid (counts
    within the shoe, at least six cards): this is the per-coup path and does not check.
    """
    counts = np.ascontiguousarray(remaining, dtype=np.int64).reshape(-1, N_VALUES)
    # Only the events this kind's EV reads are computed (the others stay NaN), and the pair
    # probability only for the pair bets.
    events = (CACHE if cache is None else cache).events(counts, events_needed(kind, rules))
    pair = (pair_probability(counts, rules.decks if decks is None else decks)
            if kind in _PAIR_KINDS else 0.0)
    return ev_of_kind(events, pair, rules, kind)


@functools.lru_cache(maxsize=256)
def curvature(rules: TableRules, kind: str, decks: int) -> float:
    """``s2``: N0 squared times the largest exact second difference of ``kind``'s EV.

    The second difference of values v, w is EV(full - v - w) - EV(full - v) - EV(full - w)
    + EV(full), over the full shoe of ``decks`` decks (N0 cards): the curvature of the EV in
    the composition, the scale of a linear estimate's error (see the module docstring).
    """
    full = shoe_counts(decks)
    singles = np.repeat(full[None, :], N_VALUES, axis=0) - np.eye(N_VALUES, dtype=np.int64)
    pairs = [(v, w) for v in range(N_VALUES) for w in range(v, N_VALUES)]
    doubles = np.array([singles[v] - np.eye(N_VALUES, dtype=np.int64)[w] for v, w in pairs])
    rows = np.vstack([full[None, :], singles, doubles])
    ev = expected_values_batch(rows, rules, validate=False, parallel=False)[:, KIND_INDEX[kind]]
    single = ev[1:1 + N_VALUES]
    d2 = np.array([ev[1 + N_VALUES + i] - single[v] - single[w] + ev[0]
                   for i, (v, w) in enumerate(pairs)])
    n0 = float(full.sum())
    return n0 * n0 * float(np.abs(d2).max())


@functools.lru_cache(maxsize=256)
def _count(rules: TableRules, kind: str, decks: int, max_tag: int | None) -> CountSystem:
    return count_system(rules, kind, decks=decks, max_tag=max_tag)


#: Published tags by card value (index 0: tens and faces, then A, 2, ..., 9) and the true
#: count at or above which each count bets. Dragon 7: Eliot Jacobson's count (4-7 -1,
#: 8-9 +2; bet at +4); Panda 8: Michael Shackleford's (A, 2, ten +1; 3, 4, 5, 8 -2; 6, 7
#: -1; 9 +4; bet at +11). Both are balanced: a full shoe counts 0.
PUBLISHED_TAGS = {
    "dragon7": (np.array([0, 0, 0, 0, -1, -1, -1, -1, 2, 2]), 4.0),
    "panda8": (np.array([1, 1, 1, -2, -2, -2, -1, -1, -2, 4]), 11.0),
}
_EV_METHODS = ("exact", "true_count")


@register_part
class Count(Selection):
    """Count the cards: bet one kind when the count of the cards seen says it is worth it.

    Before each coup, per session, reads the cards seen in the shoe (the shown burn card
    included). ``method=exact`` enumerates the next coup over the cards left and bets when
    the EV per unit of ``bet`` is above ``threshold`` (screened by the count, see
    ``screen``); ``method=true_count`` estimates that EV by the true count of the bet's exact
    effects of removal (``max_tag`` rounds the tags to integers); ``method=dragon7`` or
    ``panda8`` keeps the published count of that side bet (true count: running count per
    deck left) and bets it at or above ``threshold`` (default: the published +4 and +11).
    Looks only once ``min_depth`` cards have been seen. Needs a card-level dataset.
    """

    name: ClassVar[str] = "count"
    needs_cards: ClassVar[bool] = True
    not_finite: ClassVar[str] = ("it bets from the cards left in the shoe, which exact risk's "
                                 "model of independent coups does not have")

    bet: Annotated[BetKind | None, NoneWord] = Field(
        None, description="the bet kind counted and bet (none: tie, or the published "
        "count's side bet)")
    method: Literal["exact", "true_count", "dragon7", "panda8"] = Field(
        "exact", description="exact: enumerate the next coup; true_count: the effect-of-"
        "removal estimate; dragon7/panda8: the published tags")
    threshold: Annotated[float | None, NoneWord] = Field(
        None, description="bet above this EV per unit (exact, true_count; none: 0) or at or "
        "above this true count (dragon7: 4, panda8: 11)")
    min_depth: int = Field(0, ge=0, description="cards seen in the shoe before the count "
                           "starts looking")
    screen: Annotated[float | None, NoneWord] = Field(
        DEFAULT_SCREEN, ge=0.0, description="exact method: skip the enumeration where the "
        "count's estimate is this many error scales below the threshold (none: never skip)")
    max_tag: Annotated[int | None, NoneWord] = Field(
        None, ge=1, description="true_count method: integer tags up to this size (none: the "
        "exact effects of removal)")

    _rules: TableRules
    _system: CountSystem
    _curvature: float
    _decks: int
    _full_cards: int
    _last_ev: np.ndarray
    _code: int
    _prices: bool

    @property
    def kind_bet(self) -> str:
        """The bet kind this count bets."""
        if self.bet is not None:
            return self.bet
        return self.method if self.method in PUBLISHED_TAGS else "tie"

    @property
    def trigger(self) -> float:
        """The threshold in force (the method's default when ``threshold`` is none)."""
        if self.threshold is not None:
            return self.threshold
        return PUBLISHED_TAGS[self.method][1] if self.method in PUBLISHED_TAGS else 0.0

    def kinds(self) -> tuple[str, ...]:
        return (self.kind_bet,)

    def start(self, table: Table) -> None:
        if table.seen is None or table.remaining is None:
            raise StrategyError(f"{self.kind} {self.spec()!r} needs the cards seen in the "
                                f"shoe (table.seen): run it through the replay on "
                                f"card-level coups")
        full = np.asarray(table.seen[:1] + table.remaining[:1]).sum() if table.n else 0
        self._decks = max(int(full) // 52, 1) if table.n else table.rules.decks
        self._full_cards = 52 * self._decks
        self._rules = table.rules
        self._code = KIND_INDEX[self.kind_bet]
        self._prices = self.method in _EV_METHODS
        if self.method in _EV_METHODS:
            self._system = _count(table.rules, self.kind_bet, self._decks,
                                  self.max_tag if self.method == "true_count" else None)
        self._curvature = (curvature(table.rules, self.kind_bet, self._decks)
                           if self.method == "exact" and self.screen is not None else 0.0)
        self._last_ev = np.full(table.n, np.nan)

    @property
    def last_ev(self) -> np.ndarray:
        """The EV estimate behind the last choice, per session (NaN where none was made)."""
        return self._last_ev

    def ev(self) -> np.ndarray | None:
        return self._last_ev if self._prices else None

    def _looking(self, table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The sessions that look at this coup, and the cards seen, left (by value) and
        left in all of every session."""
        seen = np.asarray(table.seen)
        remaining = np.asarray(table.remaining)
        left = remaining.sum(axis=1)
        look = (np.asarray(table.active, dtype=bool) & (seen.sum(axis=1) >= self.min_depth)
                & (left >= MIN_CARDS) & (remaining >= 0).all(axis=1))
        return np.flatnonzero(look), seen, remaining, left

    def estimate(self, table: Table) -> np.ndarray:
        """The EV per unit of ``bet`` the count sees before the coup, NaN where it does not
        look (exact and true_count methods).

        Sessions look once ``min_depth`` cards have been seen and while six or more are left;
        with the exact method, sessions screened out by the count get NaN (not worth it).
        """
        idx, seen, remaining, left = self._looking(table)
        ev = np.full(table.n, np.nan)
        if idx.size == 0:
            return ev
        if self.method == "true_count":
            ev[idx] = self._system.estimated_ev(seen[idx])
            return ev
        if self.screen is not None:
            guess = self._system.estimated_ev(seen[idx])
            spread = 1.0 / left[idx] - 1.0 / self._full_cards
            close = guess > self.trigger - self.screen * self._curvature * spread
            idx = idx[close | (left[idx] < EXACT_BELOW)]
        if idx.size:
            ev[idx] = exact_ev(remaining[idx], self._rules, self.kind_bet, self._decks)
        return ev

    def true_count(self, table: Table) -> np.ndarray:
        """The published count's true count per session (running count per deck left),
        NaN where the session does not look (dragon7 and panda8 methods)."""
        tags, _ = PUBLISHED_TAGS[self.method]
        idx, seen, _, left = self._looking(table)
        count = np.full(table.n, np.nan)
        if idx.size:
            decks_left = left[idx] / 52.0
            count[idx] = (seen[idx] @ tags) / decks_left
        return count

    def choose(self, table: Table) -> np.ndarray:
        """True where the session bets ``kind_bet`` (one kind: a boolean per session)."""
        if self.method in PUBLISHED_TAGS:
            return self.true_count(table) >= self.trigger  # NaN compares False
        ev = self.estimate(table)
        self._last_ev = ev
        return ev > self.trigger  # NaN compares False: no look, no bet

    def compiled_form(self) -> PartForm:
        methods = ("exact", "true_count", "dragon7", "panda8")
        # bet, method (its index above), threshold in force, min_depth, screen (-1: none),
        # max_tag (-1: none)
        return PartForm(SELECTIONS["count"], (float(KIND_INDEX[self.kind_bet]),
                                float(methods.index(self.method)), self.trigger,
                                float(self.min_depth),
                                -1.0 if self.screen is None else self.screen,
                                -1.0 if self.max_tag is None else float(self.max_tag)))


__all__ = ["Count", "CompositionCache", "DEFAULT_SCREEN", "EXACT_BELOW", "PUBLISHED_TAGS",
           "curvature", "exact_ev"]
