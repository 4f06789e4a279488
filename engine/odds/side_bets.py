"""Exact odds of the side bets of :data:`baccarat.bets.SIDE_BET_PAYTABLES`, from any shoe.

Every side bet pays on events of one coup. Those of the coup's end (a Dragon Bonus
margin, a Banker 6, a tie total, four cards or more) depend only on its final state
(totals, who drew): the compiled enumeration tallies the ordered six-card sequences ending
in each of the 400 states (:func:`baccarat.odds.enumeration.final_states`), and an event's
tally is the sum over its states (:func:`baccarat.bets.final_events` says which). Those of
the first two cards of each hand (the pair bets) depend only on the first four cards,
whose ordered sequences P1, B1, P2, B2 are counted in closed form from the counts by rank
(the pairs) or by rank and suit (Perfect Pair). Every tally is an exact integer; a
probability is one division.

Compositions: 10 counts by value, 13 by rank (A..K), or 52 by card (rank-major: A of
spades, hearts, diamonds, clubs, then 2, ...). The pair bets need ranks and Perfect Pair
needs suits; a bet the composition cannot price is left out (:func:`needs`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..bets import (
    BET_KINDS,
    FIRST_FOUR_EVENTS,
    SIDE_BET_PAYTABLES,
    SUITED_EVENTS,
    final_events,
    side_bet_paytable,
)
from ..rules import TableRules
from .composition import MAX_DECKS, N_RANKS, N_VALUES, OddsError, check_counts, shoe_rank_counts
from .enumeration import N_STATES, final_states, sequences_total

#: Counts by card: 13 ranks x 4 suits, rank-major.
N_CARDS = 52
#: Every side bet, in the order of :data:`baccarat.bets.SIDE_BET_PAYTABLES`.
SIDE_BETS = tuple(SIDE_BET_PAYTABLES)
Paytables = Mapping[str, "str | Mapping[str, float]"]


@functools.lru_cache(maxsize=1)
def _state_events() -> tuple[tuple[str, ...], np.ndarray]:
    """The events of the coup's end and ``table[state, e]`` (int64 0/1) over the final states."""
    state = np.arange(N_STATES)
    rest, banker_drew = np.divmod(state, 2)
    pt_bt, player_drew = np.divmod(rest, 2)
    pt, bt = np.divmod(pt_bt, 10)
    events = final_events(pt, bt, 2 + player_drew, 2 + banker_drew)
    return tuple(events), np.stack([events[e] for e in events], axis=1).astype(np.int64)


def needs(bet: str, paytable: Mapping[str, float] | None = None) -> str | None:
    """What a composition must give to price ``bet``: "suits", "ranks" or None (values)."""
    events = side_bet_paytable(bet) if paytable is None else paytable
    if any(e in SUITED_EVENTS for e in events):
        return "suits"
    if any(e in FIRST_FOUR_EVENTS for e in events):
        return "ranks"
    return None


def check_cards(counts: object, max_decks: int = MAX_DECKS, where: str = "") -> np.ndarray:
    """Validate compositions of 10, 13 or 52 counts (per row); by card, no card more than
    ``max_decks`` times."""
    arr = np.asarray(counts)
    if arr.shape[-1:] != (N_CARDS,):
        return check_counts(counts, max_decks=max_decks, where=where)
    check_counts(np.asarray(arr, dtype=np.float64).reshape(*arr.shape[:-1], N_RANKS, 4)
                 .sum(axis=-1), max_decks=max_decks, where=where)
    ints = np.asarray(arr, dtype=np.int64)
    if (ints > max_decks).any():
        place = f" in {where}" if where else ""
        raise OddsError(f"shoe composition{place}: {int(ints.max())} copies of one card is "
                        f"more than {max_decks} deck(s) hold")
    return ints


def full_shoe_cards(decks: int) -> np.ndarray:
    """Counts by card (52) of a full shoe of ``decks`` decks."""
    shoe_rank_counts(decks)  # checks decks
    return np.full(N_CARDS, decks, dtype=np.int64)


def _first_four_tallies(classes: np.ndarray) -> dict[str, np.ndarray]:
    """Ordered first-four sequences (P1, B1, P2, B2) with each hand's two cards of one
    class: Player's (= Banker's), both of the same class, both of different classes."""
    n = classes.astype(object)  # exact integers, whatever the size
    total = n.sum(axis=-1)
    two = n * (n - 1)
    one_hand = two.sum(axis=-1) * (total - 2) * (total - 3)
    same = (two * (n - 2) * (n - 3)).sum(axis=-1)
    different = two.sum(axis=-1) ** 2 - (two * two).sum(axis=-1)
    return {"one_hand": one_hand, "same": same, "different": different}


def _first_four_events(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Probabilities of :data:`FIRST_FOUR_EVENTS` for compositions (n, 13|52); Perfect Pair
    only by card."""
    width = counts.shape[-1]
    ranks = counts.reshape(-1, N_RANKS, 4).sum(axis=-1) if width == N_CARDS else counts
    total = ranks.sum(axis=-1).astype(object)
    four = total * (total - 1) * (total - 2) * (total - 3)
    pair = _first_four_tallies(ranks)
    both = pair["same"] + pair["different"]
    out = {"one_pair": 2 * pair["one_hand"] - 2 * both, "two_pairs": pair["different"],
           "same_pair": pair["same"], "either_pair": 2 * pair["one_hand"] - both}
    if width == N_CARDS:
        suited = _first_four_tallies(counts)
        out["perfect_pair"] = 2 * suited["one_hand"] - suited["same"] - suited["different"]
    return {e: np.asarray(v / four, dtype=np.float64) for e, v in out.items()}


def _values(counts: np.ndarray) -> np.ndarray:
    """Compositions (n, 10|13|52) by value (n, 10)|(n, 13): by card summed over the suits."""
    return counts.reshape(-1, N_RANKS, 4).sum(axis=-1) if counts.shape[-1] == N_CARDS else counts


def _event_probabilities(counts: np.ndarray, with_states: bool = True,
                         states: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Probability (n,) of every event a side bet pays on that compositions (n, 10|13|52),
    valid and checked, can price: the coup's end (from ``states``, their
    :func:`final_states`, when given), and the first four cards' by rank or card."""
    arr = np.atleast_2d(counts)
    out: dict[str, np.ndarray] = {}
    if with_states:
        values = _values(arr)
        if states is None:
            states = final_states(values, validate=False)
        names, table = _state_events()
        tallies = states @ table
        total = np.asarray(sequences_total(values.sum(axis=-1)), dtype=np.float64)
        out.update({e: tallies[:, k] / total for k, e in enumerate(names)})
    if arr.shape[-1] != N_VALUES:
        out.update(_first_four_events(arr))
    return out


@dataclass(frozen=True)
class BetOdds:
    """One bet (a side bet under one paytable, or a main bet under the table's rules), for
    one composition: what each event it pays on nets (0: a push) and its probability, the
    probability of losing, the EV and house edge per unit staked, and the standard
    deviation of a unit stake's net."""

    bet: str
    pays: dict[str, float]
    probabilities: dict[str, float]
    lose: float
    ev: float
    sd: float

    @property
    def house_edge(self) -> float:
        """Expected loss per unit staked (pushes count as staked)."""
        return -self.ev

    @property
    def kelly(self) -> float:
        """The Kelly stake, as a fraction of the bankroll: the f that maximises the expected
        log of 1 + f x over this bet's exact distribution of nets x (0 when the EV is not
        positive). Found by bisection on the derivative, which falls with f."""
        if self.ev <= 0.0:
            return 0.0
        paid = [(p, self.pays[e]) for e, p in self.probabilities.items() if self.pays[e] > 0]

        def slope(f: float) -> float:
            return sum(p * b / (1.0 + f * b) for p, b in paid) - self.lose / (1.0 - f)

        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if slope(mid) > 0.0 else (lo, mid)
        return lo

    def as_dict(self) -> dict[str, object]:
        """The figures by name, for JSON."""
        return {"pays": self.pays, "probabilities": self.probabilities, "lose": self.lose,
                "ev": self.ev, "house_edge": self.house_edge, "sd": self.sd,
                "kelly": self.kelly}


def _paytables(bets: Sequence[str], paytables: Paytables | None) -> dict[str, dict[str, float]]:
    given = dict(paytables or {})
    unknown = set(given) - set(SIDE_BETS)
    if unknown:
        raise OddsError(f"paytable for unknown side bet(s) {', '.join(sorted(unknown))}: "
                        f"the side bets are {', '.join(SIDE_BETS)}")
    try:
        return {bet: side_bet_paytable(bet, given.get(bet)) for bet in bets}  # type: ignore[arg-type]
    except ValueError as exc:
        raise OddsError(str(exc)) from None


def _priceable(bets: Sequence[str], tables: dict[str, dict[str, float]], width: int) -> list[str]:
    have = {N_VALUES: None, N_RANKS: "ranks", N_CARDS: "suits"}[width]
    order = (None, "ranks", "suits")
    return [bet for bet in bets if order.index(needs(bet, tables[bet])) <= order.index(have)]


def side_bet_evs(counts_2d: np.ndarray, bets: Sequence[str] | None = None,
                 paytables: Paytables | None = None) -> np.ndarray:
    """Exact EV per unit staked (n, len(bets)) of side bets for compositions (n, 10|13|52),
    valid and checked; NaN where the composition cannot price a bet (:func:`needs`)."""
    bets = list(SIDE_BETS if bets is None else bets)
    tables = _paytables(bets, paytables)
    arr = np.atleast_2d(np.asarray(counts_2d, dtype=np.int64))
    priced = set(_priceable(bets, tables, arr.shape[-1]))
    wants_states = any(e not in FIRST_FOUR_EVENTS for b in priced for e in tables[b])
    probs = _event_probabilities(arr, with_states=wants_states)
    ev = np.full((arr.shape[0], len(bets)), np.nan)
    for k, bet in enumerate(bets):
        if bet in priced:
            ev[:, k] = _moments(tables[bet], probs)[0]
    return ev


def _moments(pays: Mapping[str, float], probs: Mapping[str, np.ndarray]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EV, E[net squared] and P(lose) of a unit stake on a bet paying ``pays``."""
    paying = sum((probs[e] for e in pays), start=np.zeros(1))
    lose = 1.0 - paying
    ev = sum((pays[e] * probs[e] for e in pays), start=np.zeros(1)) - lose
    square = sum((pays[e] ** 2 * probs[e] for e in pays), start=np.zeros(1)) + lose
    return ev, square, lose


@functools.lru_cache(maxsize=64)
def _main_bet_events(rules: TableRules) -> dict[str, tuple[dict[str, float], np.ndarray]]:
    """How each bet kind of :data:`BET_KINDS` pays on the final states, by the engine's own
    coup classes and payout table (:func:`baccarat.bets.payout_table`, pair flags aside):
    per kind, what each paying event nets and ``table[state, e]`` (0/1). An event is an
    outcome ("banker_wins", "player_wins", "tie"), split by the special hands the kind
    pays differently ("banker_wins_6", "banker_wins_three_card_7", "banker_wins_otherwise")."""
    from ..bets import (
        BANKER_3CARD_7,
        BANKER_6,
        N_PAIR_STATES,
        N_SPECIAL,
        PLAYER_3CARD_8,
        classify_coups,
        payout_table,
    )
    from ..coups import BANKER, PLAYER, TIE, Coups

    state = np.arange(N_STATES)
    rest, banker_drew = np.divmod(state, 2)
    pt_bt, player_drew = np.divmod(rest, 2)
    pt, bt = np.divmod(pt_bt, 10)
    # Cards of four different ranks (no pair), the third cards where the hand drew.
    cards = np.tile(np.array([5, 10, -1, 15, 20, -1], dtype=np.int8), (N_STATES, 1))
    cards[:, 2] = np.where(player_drew == 1, 25, -1)
    cards[:, 5] = np.where(banker_drew == 1, 30, -1)
    outcome = np.where(bt > pt, BANKER, np.where(pt > bt, PLAYER, TIE))
    classes = classify_coups(Coups(
        shoe=np.zeros(N_STATES, np.int64), coup=np.zeros(N_STATES, np.int32), cards=cards,
        player_total=pt.astype(np.int8), banker_total=bt.astype(np.int8),
        outcome=outcome.astype(np.int8), burn_shown=np.full(N_STATES, -1, np.int8)))
    special = (classes // (N_PAIR_STATES * N_PAIR_STATES)) % N_SPECIAL
    suffix = {BANKER_3CARD_7: "_three_card_7", PLAYER_3CARD_8: "_three_card_8",
              BANKER_6: "_6"}
    table = payout_table(rules)
    out = {}
    for k, kind in enumerate(BET_KINDS):
        nets = table[classes, k]
        pays: dict[str, float] = {}
        masks = []
        for o, name in ((BANKER, "banker_wins"), (PLAYER, "player_wins"), (TIE, "tie")):
            mine = outcome == o
            if np.unique(nets[mine]).size == 1:
                groups = {name: mine}
            else:
                groups = {name + suffix.get(sp, "_otherwise"): mine & (special == sp)
                          for sp in np.unique(special[mine]).tolist()}
            for event, mask in groups.items():
                if nets[mask][0] != -1.0:
                    pays[event] = float(nets[mask][0])
                    masks.append(mask)
        out[kind] = (pays, np.stack(masks, axis=1).astype(np.int64) if masks
                     else np.zeros((N_STATES, 0), np.int64))
    return out


def odds(counts: object | None = None, decks: int | None = None,
         paytables: Paytables | None = None, bets: Sequence[str] | None = None,
         rules: TableRules | None = None) -> dict[str, BetOdds]:
    """Exact odds of every bet (or ``bets``) on the next coup, by full enumeration: the
    main bets and the variant's side bets the table of ``rules`` offers (default: the
    standard table), then every side bet of :data:`SIDE_BETS`.

    ``counts``: the cards left, 10 counts by value, 13 by rank or 52 by card (default: a
    full shoe of ``decks`` decks, by card; ``decks`` defaults to ``rules.decks``, 8).
    ``paytables``: a side bet's paytable, by name (``{"lucky6": "macau"}``) or as a
    mapping of its events to what they pay; the others are the defaults. Side bets the
    composition cannot price (the pairs without ranks, Perfect Pair without suits) are left
    out; the main pair bets from values alone are priced in expectation over the ranks of
    the zero-valued cards (:func:`baccarat.odds.pair_probability`).
    """
    from .bets import bets_offered
    from .composition import pair_probability

    table_rules = TableRules() if rules is None else rules
    n_decks = table_rules.decks if decks is None else decks
    arr = (full_shoe_cards(n_decks) if counts is None
           else check_cards(counts, max_decks=n_decks, where="counts"))
    if arr.ndim != 1:
        raise OddsError("odds takes one composition; use side_bet_evs for many")
    offered = bets_offered(table_rules)
    wanted = list(offered + SIDE_BETS if bets is None else bets)
    unknown = [bet for bet in wanted if bet not in BET_KINDS and bet not in SIDE_BETS]
    if unknown:
        raise OddsError(f"unknown bet(s) {', '.join(unknown)}: expected one of "
                        f"{', '.join(BET_KINDS + SIDE_BETS)}")
    side = [bet for bet in wanted if bet in SIDE_BETS]
    tables = _paytables(side, paytables)
    priced = _priceable(side, tables, arr.shape[-1])
    values = _values(arr[None, :])
    states = final_states(values, validate=False)
    probs = _event_probabilities(arr[None, :], states=states)
    if any(bet in BET_KINDS for bet in wanted):
        by_kind = _main_bet_events(table_rules)
        state_p = states[0] / float(sequences_total(int(values.sum())))
        pair = np.atleast_1d(np.asarray(pair_probability(values[0], n_decks), float))
    out = {}
    for bet in wanted:
        if bet in SIDE_BETS and bet not in priced:
            continue
        if bet in BET_KINDS:
            if bet.endswith("_pair"):
                tables[bet], probs_of = {"pair": table_rules.pair_pays}, {"pair": pair}
            else:
                tables[bet], masks = by_kind[bet]
                p = state_p @ masks
                probs_of = {e: p[i:i + 1] for i, e in enumerate(tables[bet])}
            out[bet] = _bet_odds(bet, tables[bet], probs_of)
        else:
            out[bet] = _bet_odds(bet, tables[bet], probs)
    return out


def _bet_odds(bet: str, pays: Mapping[str, float], probs: Mapping[str, np.ndarray]) -> BetOdds:
    ev, square, lose = (float(x[0]) for x in _moments(pays, probs))
    return BetOdds(bet, dict(pays), {e: float(probs[e][0]) for e in pays}, lose, ev,
                   float(np.sqrt(max(square - ev * ev, 0.0))))
