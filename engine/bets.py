"""Bet kinds and what each pays on each coup, under the table's rules.

Every coup falls in one of a few *coup classes* (outcome, the special hands the variants
care about, the two pair flags). What a unit stake on each bet kind nets depends only on
the class and the rules, so settlement is one table lookup per coup for all bets at once.
"""

from __future__ import annotations

import functools

import numpy as np

from .cards import RANK_OF_CODE
from .coups import BANKER, PLAYER, TIE, Coups
from .jit import njit
from .rules import TableRules

#: Every bet a strategy can stake on, in the order of stake columns everywhere.
BET_KINDS = ("banker", "player", "tie", "player_pair", "banker_pair", "dragon7", "panda8",
             "super6")
MAIN_BETS = ("banker", "player", "tie")
SIDE_BETS = tuple(kind for kind in BET_KINDS if kind not in MAIN_BETS)
KIND_INDEX = {kind: i for i, kind in enumerate(BET_KINDS)}

# The special hand of a coup, as far as any bet cares. UNKNOWN: no totals (outcomes only);
# BANKER_7_UNSURE / PLAYER_8_UNSURE: totals without cards, so whether that winning 7 / 8
# took three cards is not known (only the bets that care about it cannot settle).
PLAIN, BANKER_3CARD_7, PLAYER_3CARD_8, BANKER_6, UNKNOWN, BANKER_7_UNSURE, PLAYER_8_UNSURE = (
    range(7))
N_SPECIAL = 7
# Whether a hand's first two cards are a pair: unknown without the cards, or when a
# zero-valued card was recorded without its rank ("0": a 10 and a K are not a pair).
NO_PAIR, PAIR, PAIR_UNKNOWN = range(3)
N_PAIR_STATES = 3
N_CLASSES = 3 * N_SPECIAL * N_PAIR_STATES * N_PAIR_STATES


def coup_class(outcome: np.ndarray, special: np.ndarray, player_pair: np.ndarray,
               banker_pair: np.ndarray) -> np.ndarray:
    """The class index of each coup (see ``payout_table``); pair flags are the pair states."""
    return (((outcome.astype(np.int16) * N_SPECIAL + special) * N_PAIR_STATES + player_pair)
            * N_PAIR_STATES + banker_pair).astype(np.int16)


def classify_coups(coups: Coups) -> np.ndarray:
    """The class of every coup in a coups table (what each bet needs to know about it).

    With totals but no cards, the number of cards is unknown: a winning Banker 7 or Player 8
    is ambiguous, so those coups cannot settle Dragon 7 (and the EZ Banker bet) or Panda 8;
    every other bet but the pairs settles from the totals. Without the cards, or
    with two zero-valued cards one of which was recorded without its rank ("0"), whether a
    hand is a pair is unknown: the pair bets cannot be settled on that coup.
    """
    out = np.empty(len(coups.outcome), dtype=np.int16)
    _classify(np.ascontiguousarray(coups.cards), np.ascontiguousarray(coups.outcome),
              np.ascontiguousarray(coups.player_total),
              np.ascontiguousarray(coups.banker_total), RANK_OF_CODE, out)
    return out


@njit(cache=True, inline="always")
def _pair_state(rank_of, first, second):  # pragma: no cover - compiled
    """NO_PAIR, PAIR, or PAIR_UNKNOWN when a card's rank is not known (code rank 0 = "0")."""
    r1 = rank_of[first]
    r2 = rank_of[second]
    if r1 == 0 or r2 == 0:
        # A rank-less zero-valued card pairs with no 1-9, but may pair with a 10/J/Q/K.
        if (r1 == 0 or r1 >= 10) and (r2 == 0 or r2 >= 10):
            return PAIR_UNKNOWN
        return NO_PAIR
    return PAIR if r1 == r2 else NO_PAIR


@njit(cache=True)
def _classify(cards, outcome, player_total, banker_total, rank_of, out):  # pragma: no cover
    """Write each coup's class into ``out``."""
    for i in range(outcome.shape[0]):
        o = outcome[i]
        pt = player_total[i]
        bt = banker_total[i]
        has_cards = cards[i, 0] >= 0
        special = PLAIN
        if o == BANKER and bt == 6:
            special = BANKER_6
        if has_cards:
            if o == BANKER and bt == 7 and cards[i, 5] >= 0:
                special = BANKER_3CARD_7
            elif o == PLAYER and pt == 8 and cards[i, 2] >= 0:
                special = PLAYER_3CARD_8
        elif bt < 0 or pt < 0:
            special = UNKNOWN
        elif o == BANKER and bt == 7:
            special = BANKER_7_UNSURE
        elif o == PLAYER and pt == 8:
            special = PLAYER_8_UNSURE
        ppair = PAIR_UNKNOWN
        bpair = PAIR_UNKNOWN
        if has_cards:
            ppair = _pair_state(rank_of, cards[i, 0], cards[i, 1])
            bpair = _pair_state(rank_of, cards[i, 3], cards[i, 4])
        out[i] = ((o * N_SPECIAL + special) * N_PAIR_STATES + ppair) * N_PAIR_STATES + bpair


def payout_table(rules: TableRules) -> np.ndarray:
    """Net result of a unit stake, shape (N_CLASSES, len(BET_KINDS)); NaN = cannot settle.

    A stake on a NaN cell means the dataset lacks what that bet needs (cards, totals).
    Built once per rules (some 3 ms, asked for by every replay): a copy is returned.
    """
    return _payout_table(rules).copy()


@functools.lru_cache(maxsize=64)
def _payout_table(rules: TableRules) -> np.ndarray:
    table = np.full((N_CLASSES, len(BET_KINDS)), np.nan)
    for outcome in (BANKER, PLAYER, TIE):
        for special in range(N_SPECIAL):
            for ppair in range(N_PAIR_STATES):
                for bpair in range(N_PAIR_STATES):
                    row = coup_class(np.array([outcome]), np.array([special]),
                                     np.array([ppair]), np.array([bpair]))[0]
                    table[row] = _unit_results(rules, outcome, special, ppair, bpair)
    return table


def _unit_results(rules: TableRules, outcome: int, special: int, ppair: int,
                  bpair: int) -> list[float]:
    known = special != UNKNOWN
    nan = float("nan")
    if outcome == BANKER:
        banker = 1.0 - rules.banker_commission
        if rules.variant == "ez" and special == BANKER_3CARD_7:
            banker = 0.0
        elif rules.variant == "super6" and special == BANKER_6:
            banker = 0.5
        if (not known and rules.variant != "standard") or (
                special == BANKER_7_UNSURE and rules.variant == "ez"):
            banker = nan
        player, tie = -1.0, -1.0
    elif outcome == PLAYER:
        banker, player, tie = -1.0, 1.0, -1.0
    else:
        banker, player, tie = 0.0, 0.0, float(rules.tie_pays)
    pairs = [nan if pair == PAIR_UNKNOWN else (rules.pair_pays if pair == PAIR else -1.0)
             for pair in (ppair, bpair)]
    special_bets = [
        rules.dragon7_pays if special == BANKER_3CARD_7
        else nan if special == BANKER_7_UNSURE else -1.0,
        rules.panda8_pays if special == PLAYER_3CARD_8
        else nan if special == PLAYER_8_UNSURE else -1.0,
        rules.super6_pays if special == BANKER_6 else -1.0,
    ]
    if not known:
        special_bets = [nan] * len(special_bets)
    return [banker, player, tie, *pairs, *special_bets]


# The side bets casinos deal beside the main bets, as data: each bet's paytables (the
# first is the default, the standard published one), each a mapping from the events that
# pay to what a unit stake nets on them (0: the stake is pushed, returned); on every other
# coup the stake is lost. An event is a fact about one coup, defined once below
# (:func:`final_events` for the coup's end, :data:`FIRST_FOUR_EVENTS` for the first two
# cards of each hand); the events of one paytable never overlap.

def _dragon_bonus(side: str) -> dict[str, float]:
    """Dragon Bonus on ``side``: a natural win 1, a non-natural win by 9 points 30, by 8 10,
    by 7 6, by 6 4, by 5 2, by 4 1; a natural tie pushes."""
    margins = {9: 30.0, 8: 10.0, 7: 6.0, 6: 4.0, 5: 2.0, 4: 1.0}
    return {f"{side}_natural_win": 1.0,
            **{f"{side}_wins_by_{k}": pays for k, pays in margins.items()},
            "natural_tie": 0.0}


#: Egalite: one bet per tie total, what a tie on that total pays.
EGALITE_PAYS = {0: 150.0, 1: 215.0, 2: 220.0, 3: 200.0, 4: 120.0, 5: 110.0, 6: 45.0,
                7: 45.0, 8: 80.0, 9: 80.0}

#: Every side bet beyond :data:`BET_KINDS`: its paytables by name, the default first.
SIDE_BET_PAYTABLES: dict[str, dict[str, dict[str, float]]] = {
    "dragon_bonus_player": {"standard": _dragon_bonus("player")},
    "dragon_bonus_banker": {"standard": _dragon_bonus("banker")},
    "tiger": {"standard": {"banker_two_card_6": 12.0, "banker_three_card_6": 20.0}},
    "small_tiger": {"standard": {"banker_two_card_6": 22.0}},
    "big_tiger": {"standard": {"banker_three_card_6": 50.0}},
    "tiger_tie": {"standard": {"tie_6": 45.0}, "retired": {"tie_6": 35.0}},
    "tiger_pair": {"standard": {"one_pair": 4.0, "two_pairs": 20.0, "same_pair": 100.0}},
    "lucky6": {"standard": {"banker_two_card_6": 12.0, "banker_three_card_6": 23.0},
               "macau": {"banker_two_card_6": 12.0, "banker_three_card_6": 20.0}},
    "perfect_pair": {"standard": {"perfect_pair": 25.0}},
    "either_pair": {"standard": {"either_pair": 5.0}},
    "big": {"standard": {"five_or_six_cards": 0.54}},
    "small": {"standard": {"four_cards": 1.5}},
    **{f"egalite_{t}": {"standard": {f"tie_{t}": pays}} for t, pays in EGALITE_PAYS.items()},
}

#: The events settled by the first two cards of each hand, whatever the coup's end:
#: exactly one hand's two cards a pair (same rank); both, of different ranks; both, of the
#: same rank; either hand a pair; either hand a perfect pair (same rank and suit).
FIRST_FOUR_EVENTS = ("one_pair", "two_pairs", "same_pair", "either_pair", "perfect_pair")
#: The events that need the suits of the first four cards.
SUITED_EVENTS = ("perfect_pair",)


def final_events(player_total: np.ndarray, banker_total: np.ndarray,
                 player_cards: np.ndarray, banker_cards: np.ndarray) -> dict[str, np.ndarray]:
    """Every event of the coup's end (boolean arrays by name), from the final totals and
    how many cards each hand holds (2 or 3). A hand of two cards totalling 8 or 9 is a
    natural (no hand draws after one)."""
    pt = np.asarray(player_total)
    bt = np.asarray(banker_total)
    cards = np.asarray(player_cards) + np.asarray(banker_cards)
    banker_wins, player_wins, tie = bt > pt, pt > bt, bt == pt
    natural = {"player": (np.asarray(player_cards) == 2) & (pt >= 8),
               "banker": (np.asarray(banker_cards) == 2) & (bt >= 8)}
    events = {
        "banker_two_card_6": banker_wins & (bt == 6) & (np.asarray(banker_cards) == 2),
        "banker_three_card_6": banker_wins & (bt == 6) & (np.asarray(banker_cards) == 3),
        "natural_tie": tie & natural["player"] & natural["banker"],
        "four_cards": cards == 4,
        "five_or_six_cards": cards >= 5,
    }
    for side, wins, margin in (("player", player_wins, pt - bt), ("banker", banker_wins, bt - pt)):
        events[f"{side}_natural_win"] = wins & natural[side]
        for k in range(4, 10):
            events[f"{side}_wins_by_{k}"] = wins & ~natural[side] & (margin == k)
    for t in range(10):
        events[f"tie_{t}"] = tie & (pt == t)
    return events


def side_bet_paytable(bet: str, paytable: str | dict[str, float] | None = None
                      ) -> dict[str, float]:
    """The paytable of side bet ``bet``: by name (None: the default), or given as a mapping
    of its events to what they pay (checked: events this bet knows, pays above -1)."""
    if bet not in SIDE_BET_PAYTABLES:
        raise ValueError(f"unknown side bet {bet!r}: expected one of "
                         f"{', '.join(SIDE_BET_PAYTABLES)}")
    tables = SIDE_BET_PAYTABLES[bet]
    if paytable is None:
        return next(iter(tables.values()))
    if isinstance(paytable, str):
        if paytable not in tables:
            raise ValueError(f"side bet {bet!r} has no paytable {paytable!r}: expected "
                             f"{' or '.join(tables)}, or a mapping of events to pays")
        return tables[paytable]
    known = {event for table in tables.values() for event in table}
    table = {}
    for event, pays in paytable.items():
        if event not in known:
            raise ValueError(f"side bet {bet!r} pays on {', '.join(sorted(known))}; "
                             f"got {event!r}")
        if not float(pays) >= 0.0:
            raise ValueError(f"side bet {bet!r}: {event} pays {pays!r}, expected 0 or more")
        table[event] = float(pays)
    return table


def first_four_events(cards: np.ndarray) -> dict[str, np.ndarray]:
    """The events of :data:`FIRST_FOUR_EVENTS` on each coup (float arrays: 1, 0, or NaN where
    the cards do not tell: no cards, a zero-valued card recorded without its rank beside
    another zero-valued card, or, for Perfect Pair, a pair whose suits were not recorded),
    from the coups' card codes (n, 6): Player's first two in columns 0-1, Banker's in 3-4."""
    codes = np.asarray(cards)
    known_cards = codes[:, 0] >= 0
    safe = np.where(codes >= 0, codes, 0)
    rank, suit = RANK_OF_CODE[safe], safe % 5
    hands = []
    for first, second in ((0, 1), (3, 4)):
        r1, r2 = rank[:, first], rank[:, second]
        zero1, zero2 = (r1 == 0) | (r1 >= 10), (r2 == 0) | (r2 >= 10)
        unknown = ((r1 == 0) | (r2 == 0)) & zero1 & zero2  # as _pair_state
        pair = np.where(unknown, np.nan, (r1 == r2) & (r1 != 0))
        suited = suit[:, first] == suit[:, second]
        suits_known = (suit[:, first] != 4) & (suit[:, second] != 4)
        perfect = np.where(pair == 1.0, np.where(suits_known, suited, np.nan), pair)
        hands.append((pair, perfect, r1))
    (pp, p_perfect, p_rank), (bp, b_perfect, b_rank) = hands
    both = pp * bp
    events = {
        "one_pair": np.abs(pp - bp),
        "two_pairs": both * (p_rank != b_rank),
        "same_pair": both * (p_rank == b_rank),
        "either_pair": _either(pp, bp),
        "perfect_pair": _either(p_perfect, b_perfect),
    }
    return {e: np.where(known_cards, v, np.nan) for e, v in events.items()}


def _either(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 where either is 1, 0 where both are 0, else NaN (not known)."""
    return np.where((a == 1.0) | (b == 1.0), 1.0, np.where((a == 0.0) & (b == 0.0), 0.0, np.nan))


def side_bet_nets(coups: Coups, bet: str, paytable: str | dict[str, float] | None = None
                  ) -> np.ndarray:
    """What a unit stake on side ``bet`` nets on each coup of a card-level coups table
    (NaN where the coup does not tell: no cards, or what :func:`first_four_events` cannot
    know)."""
    pays = side_bet_paytable(bet, paytable)
    cards = np.asarray(coups.cards)
    has_cards = cards[:, 0] >= 0
    if set(pays) <= set(FIRST_FOUR_EVENTS):
        events = first_four_events(cards)
    else:
        drawn = 2 + (cards[:, 2] >= 0), 2 + (cards[:, 5] >= 0)
        events = {e: np.where(has_cards, v, np.nan) for e, v in final_events(
            coups.player_total, coups.banker_total, *drawn).items() if e in pays}
    net = np.where(has_cards, -1.0, np.nan)
    for event, pays_on in pays.items():
        net = np.where(events[event] == 1.0, pays_on, net)
        net = np.where(np.isnan(events[event]), np.nan, net)
    return net
