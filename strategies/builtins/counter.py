"""Card counting: bet only when the cards left make a bet worth it, with Kelly stakes.

``counter`` watches the cards shown in each session's shoe (``table.seen`` /
``table.remaining``, the shown burn card included) and stakes on one bet kind only when
its expected value per unit on the cards left is above a threshold. The EV comes either
from a running true count built on the exact effects of removal
(:func:`engine.odds.count_system`), or exactly, by enumerating the next coup over the
remaining composition.

The exact EV reads only the events its bet kind needs (:func:`engine.odds.events_needed`:
one for Tie or Dragon 7, none for the pairs), computed as polynomials in the counts
(:mod:`engine.odds.polynomial`, the same integer tallies as the enumeration: about 2 us
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
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from engine.bets import KIND_INDEX
from engine.odds import (
    CountSystem,
    count_system,
    ev_of_kind,
    events_needed,
    expected_values_batch,
    pair_probability,
    shoe_counts,
)
from engine.odds.cache import CACHE, CompositionCache
from engine.odds.composition import MIN_CARDS, N_VALUES
from engine.rules import TableRules

from ..base import Strategy, Table, Wager
from ..registry import StrategyError, register
from .side_bets import BetKind, check_offered, win_payout

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
    expectation, see :func:`engine.odds.pair_probability`). Rows must be valid (counts
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


def kelly_fraction(ev: np.ndarray, payout: float) -> np.ndarray:
    """Kelly's bankroll fraction for a bet paying ``payout``:1 with expected value ``ev``.

    For a bet won with probability p and lost with q = 1 - p, the growth rate
    p log(1 + b f) + q log(1 - f) is largest at f* = (b p - q) / b = EV / b. Pushes (a tie
    on Banker or Player) are ignored, which slightly under-stakes those two bets.
    """
    return np.asarray(ev, dtype=np.float64) / payout


@register
class Counter(Strategy):
    """Count the cards: bet one kind only when its EV on the cards left beats a threshold.

    Before each coup, per session, estimates the EV per unit of ``bet`` on the cards not yet
    seen in the shoe (the shown burn card counts as seen): by the true count of its exact
    effects of removal (``method=true_count``; ``max_tag`` rounds the tags to integers), or
    exactly by enumerating the next coup (``method=exact``, screened by the count, see
    ``screen``). It bets only when the estimate is above ``threshold`` and at least
    ``min_depth`` cards have been seen, staking ``kelly`` x bankroll x EV / b for a bet
    paying b:1 (Kelly's fraction), never less than ``base`` and never more than
    ``max_stake``. Needs a card-level dataset.
    """

    name: ClassVar[str] = "counter"
    not_finite: ClassVar[str] = ("it bets from the cards left in the shoe, which exact risk's "
                                 "model of independent coups does not have")
    needs_cards: ClassVar[bool] = True

    bet: BetKind = Field("tie", description="the bet kind counted and staked on")
    method: Literal["exact", "true_count"] = Field(
        "exact", description="exact: enumerate the next coup over the cards left; "
        "true_count: linear estimate from the effect-of-removal count")
    threshold: float = Field(0.0, ge=-1.0, description="bet only when the EV per unit "
                             "staked is above this (0: only positive expectation)")
    kelly: float = Field(0.5, ge=0.0, le=1.0, description="fraction of the Kelly stake "
                         "(0: always the base stake)")
    max_stake: float | None = Field(None, gt=0, description="largest stake (none: the "
                                    "table maximum)")
    min_depth: int = Field(0, ge=0, description="cards seen in the shoe before the counter "
                           "starts looking")
    screen: float | None = Field(DEFAULT_SCREEN, ge=0.0, description="exact method: skip "
                                 "the enumeration where the count's estimate is this many "
                                 "error scales below the threshold (none: never skip)")
    max_tag: int | None = Field(None, ge=1, description="true_count method: integer tags up "
                                "to this size (none: the exact effects of removal)")

    _rules: TableRules
    _system: CountSystem
    _payout: float
    _curvature: float
    _decks: int
    _full_cards: int
    _last_ev: np.ndarray

    @field_validator("max_stake", "screen", "max_tag", mode="before")
    @classmethod
    def _none_spelled(cls, value: object) -> object:
        # In a SPEC, "screen=none" (or None, null) switches the option off.
        if isinstance(value, str) and value.strip().lower() in ("none", "null", ""):
            return None
        return value

    @model_validator(mode="after")
    def _stake_bounds(self) -> Counter:
        if self.max_stake is not None and self.max_stake < self.base:
            raise ValueError(f"max_stake ({self.max_stake:g}) is below base ({self.base:g})")
        return self

    def start(self, table: Table) -> None:
        if table.seen is None or table.remaining is None:
            raise StrategyError(f"strategy {self.spec()!r} needs the cards seen in the shoe "
                                f"(table.seen): run it through the replay on card-level coups")
        check_offered(self, self.bet, table.rules)
        full = np.asarray(table.seen[:1] + table.remaining[:1]).sum() if table.n else 0
        self._decks = max(int(full) // 52, 1) if table.n else table.rules.decks
        self._full_cards = 52 * self._decks
        self._rules = table.rules
        self._payout = win_payout(table.rules, self.bet)
        self._system = _count(table.rules, self.bet, self._decks,
                              self.max_tag if self.method == "true_count" else None)
        self._curvature = (curvature(table.rules, self.bet, self._decks)
                           if self.method == "exact" and self.screen is not None else 0.0)
        self._last_ev = np.full(table.n, np.nan)

    @property
    def last_ev(self) -> np.ndarray:
        """The EV estimate behind the last wager, per session (NaN where none was made)."""
        return self._last_ev

    def estimate(self, table: Table) -> np.ndarray:
        """The EV per unit of ``bet`` the counter sees before the coup, NaN where it does not look.

        Sessions look once ``min_depth`` cards have been seen and while six or more are left;
        with the exact method, sessions screened out by the count get NaN (not worth it).
        """
        seen = np.asarray(table.seen)
        remaining = np.asarray(table.remaining)
        left = remaining.sum(axis=1)
        look = (np.asarray(table.active, dtype=bool) & (seen.sum(axis=1) >= self.min_depth)
                & (left >= MIN_CARDS) & (remaining >= 0).all(axis=1))
        ev = np.full(table.n, np.nan)
        idx = np.flatnonzero(look)
        if idx.size == 0:
            return ev
        if self.method == "true_count":
            ev[idx] = self._system.estimated_ev(seen[idx])
            return ev
        if self.screen is not None:
            guess = self._system.estimated_ev(seen[idx])
            spread = 1.0 / left[idx] - 1.0 / self._full_cards
            close = guess > self.threshold - self.screen * self._curvature * spread
            idx = idx[close | (left[idx] < EXACT_BELOW)]
        if idx.size:
            ev[idx] = exact_ev(remaining[idx], self._rules, self.bet, self._decks)
        return ev

    def wager(self, table: Table) -> Wager:
        ev = self.estimate(table)
        self._last_ev = ev
        good = ev > self.threshold  # NaN compares False: no look, no bet
        stake = self.kelly * table.bankroll * kelly_fraction(np.where(good, ev, 0.0),
                                                             self._payout)
        stake = np.maximum(stake, self.base)
        if self.max_stake is not None:
            stake = np.minimum(stake, self.max_stake)
        return Wager.side(self.bet, np.where(good, stake, 0.0))
