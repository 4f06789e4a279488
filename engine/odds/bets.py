"""Expected value and house edge of every bet under a ``TableRules``, from exact probabilities.

The EV of a bet is the expected net result per unit staked on one coup, ties included in
the denominator (a pushed bet counts as staked and returns 0). The house edge is its
negative. Payouts follow the rules:

- standard: Banker wins pay 1 - commission, Player 1:1, a tie pushes both;
- EZ: no commission, a Banker win with a three-card 7 pushes the Banker bet; Dragon 7 pays
  ``dragon7_pays``:1 on that hand, Panda 8 ``panda8_pays``:1 on a Player win with a
  three-card 8;
- Super 6: no commission, a Banker win with a total of 6 pays 1:2; the Super 6 side bet
  pays ``super6_pays``:1 on it;
- Tie pays ``tie_pays``:1; Player pair and Banker pair pay ``pair_pays``:1 on the first two
  cards of the hand being the same rank.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..bets import BET_KINDS, KIND_INDEX  # the EV columns are the replay's stake columns
from ..rules import TableRules
from .cache import CompositionCache
from .composition import N_VALUES, check_counts, distinct_rows, pair_probability, shoe_rank_counts
from .enumeration import (
    E_BANKER,
    E_DRAGON7,
    E_PANDA8,
    E_PLAYER,
    E_SIX2,
    E_SIX3,
    E_TIE,
    event_probabilities,
)

#: The side bets each variant's table offers, on top of banker, player, tie and the pairs.
_VARIANT_SIDE_BETS = {"standard": (), "ez": ("dragon7", "panda8"), "super6": ("super6",)}
#: A Super 6 Banker win with a total of 6 pays 1:2.
SUPER6_BANKER_SIX_PAYS = 0.5


def bets_offered(rules: TableRules) -> tuple[str, ...]:
    """The bet kinds a table with ``rules`` offers, in :data:`BET_KINDS` order."""
    offered = {"banker", "player", "tie", "player_pair", "banker_pair"}
    offered.update(_VARIANT_SIDE_BETS[rules.variant])
    return tuple(kind for kind in BET_KINDS if kind in offered)


def _win_or_lose(p_win: np.ndarray, pays: float) -> np.ndarray:
    """EV of a bet that pays ``pays``:1 with probability ``p_win`` and loses otherwise."""
    return pays * p_win - (1.0 - p_win)


def events_needed(kind: str, rules: TableRules) -> tuple[int, ...]:
    """The events (indices into :data:`baccarat.odds.EVENTS`) whose probabilities the EV of
    ``kind`` under ``rules`` reads in :func:`ev_from_probabilities` (none for the pairs)."""
    if kind == "banker":
        extra = {"ez": (E_DRAGON7,), "super6": (E_SIX2, E_SIX3)}.get(rules.variant, ())
        return (E_BANKER, E_PLAYER, *extra)
    return {"player": (E_BANKER, E_PLAYER), "tie": (E_TIE,), "dragon7": (E_DRAGON7,),
            "panda8": (E_PANDA8,), "super6": (E_SIX2, E_SIX3)}.get(kind, ())


def ev_of_kind(
    events: np.ndarray, pair: np.ndarray | float, rules: TableRules, kind: str
) -> np.ndarray:
    """EV (n,) of bet ``kind`` from event probabilities (n, N_EVENTS) and pair probabilities
    (n,): the column ``kind`` of :func:`ev_from_probabilities`, reading only the events of
    :func:`events_needed` (a counter's per-coup path)."""
    p = np.atleast_2d(events)
    if kind == "banker":
        banker_ev = p[:, E_BANKER] * (1.0 - rules.banker_commission) - p[:, E_PLAYER]
        if rules.variant == "ez":
            banker_ev = banker_ev - p[:, E_DRAGON7]  # those wins push instead of paying 1:1
        elif rules.variant == "super6":
            banker_ev = banker_ev - (1.0 - SUPER6_BANKER_SIX_PAYS) * (p[:, E_SIX2] + p[:, E_SIX3])
        return banker_ev
    if kind == "player":
        return p[:, E_PLAYER] - p[:, E_BANKER]
    if kind in ("player_pair", "banker_pair"):
        pair = np.broadcast_to(np.asarray(pair, dtype=np.float64), p.shape[:1])
        return _win_or_lose(pair, rules.pair_pays)
    if kind == "tie":
        return _win_or_lose(p[:, E_TIE], rules.tie_pays)
    if kind == "dragon7":
        return _win_or_lose(p[:, E_DRAGON7], rules.dragon7_pays)
    if kind == "panda8":
        return _win_or_lose(p[:, E_PANDA8], rules.panda8_pays)
    if kind == "super6":
        return _win_or_lose(p[:, E_SIX2] + p[:, E_SIX3], rules.super6_pays)
    raise ValueError(f"unknown bet kind {kind!r}")


def ev_from_probabilities(
    events: np.ndarray, pair: np.ndarray | float, rules: TableRules
) -> np.ndarray:
    """EVs (n, len(BET_KINDS)) from event probabilities (n, N_EVENTS) and pair probabilities (n,).

    Every kind is filled whatever the variant (a side bet's EV is defined by its own payout);
    :func:`bets_offered` says which ones the table actually offers.
    """
    p = np.atleast_2d(events)
    ev = np.empty((p.shape[0], len(BET_KINDS)), dtype=np.float64)
    for k, kind in enumerate(BET_KINDS):
        ev[:, k] = ev_of_kind(p, pair, rules, kind)
    return ev


def expected_values_batch(
    counts_2d: np.ndarray,
    rules: TableRules,
    validate: bool = True,
    parallel: bool | None = None,
    cache: CompositionCache | None = None,
    kinds: Sequence[str] | None = None,
) -> np.ndarray:
    """Exact EV per unit staked of every bet in :data:`BET_KINDS`, for n compositions at once.

    ``counts_2d`` is (n, 10) by value or (n, 13) by rank: the cards left in each session's
    shoe of ``rules.decks`` decks, which must hold them. Returns (n, len(BET_KINDS))
    float64. Compiled and parallel over rows, some 50 times faster than the direct enumeration;
    identical rows are enumerated once. ``validate=False`` skips the input checks for
    compositions already known to be valid; ``parallel`` is passed to
    :func:`~baccarat.odds.enumeration.event_probabilities` (default: threads for big batches).
    ``cache`` (compositions by value only) looks the probabilities up there first, so a
    composition a counter already priced is not enumerated again. With a cache, ``kinds``
    (default all) names the bet kinds the caller reads: only their columns are filled (the
    others are NaN), from only the events they need.
    """
    if validate:
        arr = check_counts(counts_2d, max_decks=rules.decks)
    else:
        arr = np.asarray(counts_2d, dtype=np.int64)
    arr = np.atleast_2d(arr)
    if cache is not None and arr.shape[1] == N_VALUES:
        # The cache finds the distinct compositions itself (each is enumerated once).
        if kinds is None:
            events = cache.events(arr)
            return ev_from_probabilities(events, pair_probability(arr, rules.decks), rules)
        wanted = set(kinds)
        events = cache.events(arr, sorted({e for k in wanted for e in events_needed(k, rules)}))
        pair = (pair_probability(arr, rules.decks)
                if wanted & {"player_pair", "banker_pair"} else 0.0)
        ev = np.full((arr.shape[0], len(BET_KINDS)), np.nan)
        for kind in wanted:
            ev[:, KIND_INDEX[kind]] = ev_of_kind(events, pair, rules, kind)
        return ev
    # Sessions replaying the same shoes share compositions: enumerate each one once.
    unique, inverse = distinct_rows(arr)
    events = event_probabilities(unique, validate=False, parallel=parallel)
    ev = ev_from_probabilities(events, pair_probability(unique, rules.decks), rules)
    return ev[inverse]


def expected_values(counts: object, rules: TableRules) -> dict[str, float]:
    """Exact EV per unit staked of every bet kind for one composition (10 values or 13 ranks).

    The composition is the cards left in a shoe of ``rules.decks`` decks.
    """
    arr = check_counts(counts, max_decks=rules.decks)
    if arr.ndim != 1:
        raise ValueError("expected_values takes one composition; use expected_values_batch")
    row = expected_values_batch(arr[None, :], rules, validate=False)[0]
    return {kind: float(row[k]) for k, kind in enumerate(BET_KINDS)}


def house_edges(rules: TableRules, counts: object | None = None) -> dict[str, float]:
    """House edge (expected loss per unit staked, as a fraction) of each bet the table offers.

    ``counts`` defaults to the full shoe of ``rules.decks`` decks (by rank, so pairs are
    exact). Keys are :func:`bets_offered`.
    """
    if counts is None:
        return dict(_full_shoe_edges(rules))
    ev = expected_values(counts, rules)
    return {kind: -ev[kind] for kind in bets_offered(rules)}


@functools.lru_cache(maxsize=64)
def _full_shoe_edges(rules: TableRules) -> tuple[tuple[str, float], ...]:
    """:func:`house_edges` of a full shoe, enumerated once per rules (every run's summary
    asks for it, and a run of a few shoes would otherwise spend much of its time here)."""
    ev = expected_values(shoe_rank_counts(rules.decks), rules)
    return tuple((kind, -ev[kind]) for kind in bets_offered(rules))
