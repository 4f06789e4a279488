"""Exact probabilities and expected values of every bet, from any shoe composition.

- :func:`outcome_probabilities` / :func:`outcome_combinations`: exact enumeration of a coup
  over card values drawn without replacement (compiled, grouped by the first four cards).
  :mod:`baccarat.odds.polynomial` computes a few chosen events alone, as polynomials in the
  counts (the same integers), for callers that need one bet kind (:func:`events_needed`).
- :func:`house_edges`, :func:`expected_values`, :func:`expected_values_batch`: every bet
  of :data:`BET_KINDS` under a ``TableRules`` (standard, EZ, Super 6, any commission and pays).
- :func:`effect_of_removal`, :func:`count_system`: card counting on top of the exact EVs.
- :func:`odds`, :func:`side_bet_evs`: the side bets of :data:`SIDE_BETS` (Dragon Bonus,
  the Tiger family, Lucky 6, the pairs, Big/Small, Egalite) under any paytable: the
  probability of each paying event, EV, house edge and standard deviation.

Compositions are 10 counts by value (0 = 10/J/Q/K) or 13 by rank (A..K); see
:mod:`baccarat.odds.composition` for how pairs are handled when only values are known.
"""

from .bets import (
    BET_KINDS,
    bets_offered,
    ev_from_probabilities,
    ev_of_kind,
    events_needed,
    expected_values,
    expected_values_batch,
    house_edges,
)
from .composition import (
    OddsError,
    check_counts,
    pair_probability,
    remaining_counts,
    shoe_counts,
    shoe_rank_counts,
    values_from_ranks,
)
from .counting import CountSystem, count_system, effect_of_removal
from .enumeration import (
    EVENTS,
    OutcomeProbabilities,
    event_probabilities,
    outcome_combinations,
    outcome_probabilities,
)
from .side_bets import SIDE_BETS, BetOdds, odds, side_bet_evs

__all__ = [
    "BET_KINDS",
    "SIDE_BETS",
    "BetOdds",
    "EVENTS",
    "CountSystem",
    "OddsError",
    "OutcomeProbabilities",
    "bets_offered",
    "check_counts",
    "count_system",
    "effect_of_removal",
    "ev_from_probabilities",
    "ev_of_kind",
    "event_probabilities",
    "events_needed",
    "expected_values",
    "expected_values_batch",
    "house_edges",
    "odds",
    "outcome_combinations",
    "outcome_probabilities",
    "pair_probability",
    "remaining_counts",
    "shoe_counts",
    "shoe_rank_counts",
    "side_bet_evs",
    "values_from_ranks",
]
