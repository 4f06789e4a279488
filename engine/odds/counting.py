"""Card counting: effect of removal of each card value, and counts built on it.

The effect of removal (EOR) of value v for a bet is EV(full shoe less one v) - EV(full
shoe), computed exactly by :mod:`baccarat.odds`. A count gives each value a tag proportional
to its EOR; the running count of the seen cards, divided by the decks remaining (the true
count), estimates the EV of the cards left linearly:

    EV(left) ~ EV(full) + (N0 - 1) / N_left * sum of the seen cards' EORs

which is exact after one card and a first-order approximation after more. Strategies that
want the exact figure call :func:`baccarat.odds.expected_values_batch` instead.

Any bet can be counted: the kinds of :data:`BET_KINDS` under the table's rules, and the
side bets of :data:`baccarat.odds.SIDE_BETS` under any paytable (their EORs come from
compositions by card, so the pair bets and Perfect Pair are exact too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bets import KIND_INDEX
from ..rules import TableRules
from .bets import BET_KINDS, expected_values_batch
from .composition import N_VALUES, OddsError, shoe_rank_counts
from .side_bets import SIDE_BETS, Paytables, full_shoe_cards, side_bet_evs


def _rank_index_of_value(value: int) -> int:
    """The rank column (A..K) of a card of ``value``: a 10 for value 0."""
    return 9 if value == 0 else value - 1


def effect_of_removal(rules: TableRules, decks: int | None = None,
                      paytables: Paytables | None = None) -> dict[str, np.ndarray]:
    """For each bet kind and side bet, the change in EV (10 floats, by value) from removing
    one card.

    The shoe holds ``decks`` decks (default ``rules.decks``); the side bets pay by
    ``paytables`` (default: the standard ones). Compositions are by rank (by card for the
    side bets), so the pair bets are exact too (a removed zero is a 10; J, Q and K give the
    same figure, and so does every suit).
    """
    n_decks = rules.decks if decks is None else decks
    full = shoe_rank_counts(n_decks)
    rows = np.repeat(full[None, :], N_VALUES + 1, axis=0)
    cards = np.repeat(full_shoe_cards(n_decks)[None, :], N_VALUES + 1, axis=0)
    for value in range(N_VALUES):
        rows[value + 1, _rank_index_of_value(value)] -= 1
        cards[value + 1, 4 * _rank_index_of_value(value)] -= 1
    ev = np.hstack([expected_values_batch(rows, rules, validate=False),
                    side_bet_evs(cards, SIDE_BETS, paytables)])
    eor = ev[1:] - ev[0]
    return {kind: eor[:, k].copy() for k, kind in enumerate(BET_KINDS + SIDE_BETS)}


@dataclass(frozen=True)
class CountSystem:
    """A count for one bet kind: a tag per card value and what a unit of count is worth.

    ``tags[v] * unit`` approximates the EOR of value v; ``base_ev`` is the full shoe's EV;
    ``decks`` the shoe size. Methods take seen-card counts by value, shape (..., 10), so one
    call serves every session of a replay.
    """

    kind: str
    tags: np.ndarray
    unit: float
    base_ev: float
    decks: int

    @property
    def full_cards(self) -> int:
        """Cards in the full shoe."""
        return 52 * self.decks

    def running_count(self, seen: np.ndarray) -> np.ndarray:
        """Sum of the tags of the seen cards (value counts (..., 10))."""
        return np.asarray(seen, dtype=np.float64) @ self.tags

    def decks_remaining(self, seen: np.ndarray) -> np.ndarray:
        """Decks' worth of cards not yet seen."""
        left = self.full_cards - np.asarray(seen, dtype=np.float64).sum(axis=-1)
        return left / 52.0

    def true_count(self, seen: np.ndarray) -> np.ndarray:
        """Running count divided by the decks remaining."""
        return self.running_count(seen) / self.decks_remaining(seen)

    def estimated_ev(self, seen: np.ndarray) -> np.ndarray:
        """Linear (effect-of-removal) estimate of the bet's EV on the cards left."""
        return self.base_ev + self.unit * (self.full_cards - 1) / 52.0 * self.true_count(seen)

    def trigger(self, ev: float = 0.0) -> float:
        """The true count at which :meth:`estimated_ev` reaches ``ev`` (default: break-even):
        the count's bet trigger, from the enumeration alone."""
        return (ev - self.base_ev) * 52.0 / (self.unit * (self.full_cards - 1))


def count_system(
    rules: TableRules, kind: str, decks: int | None = None, max_tag: int | None = None,
    paytables: Paytables | None = None,
) -> CountSystem:
    """The EOR count of bet ``kind`` (a bet kind or a side bet, paying by ``paytables``):
    raw EORs as tags, or integers up to ``max_tag`` in size.

    With ``max_tag`` the EORs are scaled so the largest is ``max_tag`` and rounded: the
    kind of count a player keeps in their head (e.g. ``max_tag=2``).
    """
    if kind not in KIND_INDEX and kind not in SIDE_BETS:
        raise OddsError(f"unknown bet {kind!r}: expected one of "
                        f"{', '.join(BET_KINDS + SIDE_BETS)}")
    n_decks = rules.decks if decks is None else decks
    eor = effect_of_removal(rules, n_decks, paytables)[kind]
    if kind in SIDE_BETS:
        base = float(side_bet_evs(full_shoe_cards(n_decks)[None, :], [kind], paytables)[0, 0])
    else:
        full = shoe_rank_counts(n_decks)[None, :]
        base = float(expected_values_batch(full, rules, validate=False)[0, KIND_INDEX[kind]])
    if max_tag is None:
        return CountSystem(kind, eor, 1.0, base, n_decks)
    if max_tag < 1:
        raise OddsError(f"max_tag must be 1 or more, got {max_tag}")
    unit = float(np.abs(eor).max()) / max_tag
    tags = np.round(eor / unit) if unit > 0 else np.zeros_like(eor)
    return CountSystem(kind, tags, unit, base, n_decks)
