"""The side bets' exact odds: published house edges, an independent enumeration, brute force.

The independent enumeration below is plain Python written apart from the engine: its own
drawing rules, its own settlement of each bet from the issue's wording, the pairs by
conditioning on the Player's two cards. Only the pays are read from the engine's data.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from baccarat.bets import SIDE_BET_PAYTABLES, side_bet_nets
from baccarat.cards import parse_card
from baccarat.coups import BANKER, Coups
from baccarat.deal import generate_coups
from baccarat.odds import OddsError, expected_values, house_edges, shoe_counts
from baccarat.odds.side_bets import SIDE_BETS, full_shoe_cards, odds, side_bet_evs
from baccarat.rules import TableRules

#: Published 8-deck house edges (Wizard of Odds and the casinos' own sheets), in %.
PUBLISHED_8_DECKS = {
    ("dragon_bonus_player", None): 2.65, ("dragon_bonus_banker", None): 9.37,
    ("lucky6", None): 11.70, ("lucky6", "macau"): 16.68, ("big_tiger", None): 15.25,
    ("small_tiger", None): 14.33, ("tiger_tie", None): 11.50, ("big", None): 4.35,
    ("small", None): 5.28, ("perfect_pair", None): 13.03,
}


@pytest.mark.parametrize(("bet", "paytable"), list(PUBLISHED_8_DECKS))
def test_published_house_edges(bet: str, paytable: str | None) -> None:
    tables = {bet: paytable} if paytable else None
    edge = odds(decks=8, paytables=tables, bets=[bet])[bet].house_edge
    assert round(edge * 100, 2) == PUBLISHED_8_DECKS[bet, paytable]


# --- the independent enumeration -------------------------------------------------------

def _banker_draws(banker: int, third: int | None) -> bool:
    if third is None:
        return banker <= 5
    return {0: True, 1: True, 2: True, 3: third != 8, 4: 2 <= third <= 7,
            5: 4 <= third <= 7, 6: third in (6, 7)}.get(banker, False)


def _coup_ends(values: list[int]) -> dict[tuple[int, int, int, int], int]:
    """Ordered six-card sequences of the value counts ``values`` by the coup's end
    (player total, banker total, player cards, banker cards)."""
    c = list(values)
    left = sum(c)
    ends: dict[tuple[int, int, int, int], int] = {}

    def add(key: tuple[int, int, int, int], w: int) -> None:
        ends[key] = ends.get(key, 0) + w

    for p1, b1, p2, b2 in itertools.product(range(10), repeat=4):
        w = 1
        for v in (p1, b1, p2, b2):
            w *= c[v]
            c[v] -= 1
        if w > 0:
            n = left - 4
            pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
            if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
                add((pt, bt, 2, 2), w * n * (n - 1))
            elif pt >= 6:  # Player stands, Banker draws on 0-5
                for b3 in range(10):
                    add((pt, (bt + b3) % 10, 2, 3), w * c[b3] * (n - 1))
            else:
                for p3 in range(10):
                    w3 = w * c[p3]
                    c[p3] -= 1
                    if w3 > 0:
                        if _banker_draws(bt, p3):
                            for b3 in range(10):
                                add(((pt + p3) % 10, (bt + b3) % 10, 3, 3), w3 * c[b3])
                        else:
                            add(((pt + p3) % 10, bt, 3, 2), w3 * (n - 1))
                    c[p3] += 1
        for v in (p1, b1, p2, b2):
            c[v] += 1
    return ends


def _end_event(bet: str, pt: int, bt: int, pc: int, bc: int) -> str | None:
    """The paying event of a coup's end for ``bet``, in the issue's words; None: it loses."""
    natural = {"player": pc == 2 and pt >= 8, "banker": bc == 2 and bt >= 8}
    if bet.startswith("dragon_bonus_"):
        side = bet.rsplit("_", 1)[1]
        mine, theirs = (pt, bt) if side == "player" else (bt, pt)
        if mine == theirs:
            return "natural_tie" if natural["player"] and natural["banker"] else None
        if mine < theirs:
            return None
        if natural[side]:
            return f"{side}_natural_win"
        return f"{side}_wins_by_{mine - theirs}" if mine - theirs >= 4 else None
    if bet in ("tiger", "small_tiger", "big_tiger", "lucky6"):
        if bt > pt and bt == 6:
            return "banker_two_card_6" if bc == 2 else "banker_three_card_6"
        return None
    if bet == "tiger_tie" or bet.startswith("egalite_"):
        return f"tie_{pt}" if pt == bt else None
    if bet == "big":
        return "five_or_six_cards" if pc + bc >= 5 else None
    if bet == "small":
        return "four_cards" if pc + bc == 4 else None
    raise AssertionError(bet)


def _pair_events(classes: list[int]) -> dict[str, Fraction]:
    """P(one hand a pair, exactly), P(both, different), P(both, same), P(either): two hands
    of two cards from ``classes`` (a count per rank, or per card), by the Player's cards."""
    n = sum(classes)
    out = {"one": Fraction(0), "different": Fraction(0), "same": Fraction(0)}
    for a in range(len(classes)):
        for b in range(len(classes)):
            w = classes[a] * (classes[b] - (a == b))
            if w == 0:
                continue
            left = list(classes)
            left[a] -= 1
            left[b] -= 1
            banker_pairs = [x * (x - 1) for x in left]
            banker_pair = Fraction(sum(banker_pairs), (n - 2) * (n - 3))
            p = Fraction(w, n * (n - 1))
            if a == b:
                same = Fraction(banker_pairs[a], (n - 2) * (n - 3))
                out["same"] += p * same
                out["different"] += p * (banker_pair - same)
                out["one"] += p * (1 - banker_pair)
            else:
                out["one"] += p * banker_pair
    out["either"] = out["one"] + out["different"] + out["same"]
    return out


def _independent_evs(cards: list[int]) -> dict[str, float]:
    """Every side bet's EV under its default paytable, from 52 counts by card."""
    ranks = [sum(cards[4 * r:4 * r + 4]) for r in range(13)]
    values = [sum(ranks[9:])] + ranks[:9]
    ends = _coup_ends(values)
    total = sum(ends.values())
    pairs = _pair_events(ranks)
    pair_events = {"one_pair": pairs["one"], "two_pairs": pairs["different"],
                   "same_pair": pairs["same"], "either_pair": pairs["either"],
                   "perfect_pair": _pair_events(cards)["either"]}
    evs = {}
    for bet in SIDE_BETS:
        pays = next(iter(SIDE_BET_PAYTABLES[bet].values()))
        if set(pays) <= set(pair_events):
            probs = {e: pair_events[e] for e in pays}
        else:
            probs = dict.fromkeys(pays, Fraction(0))
            for (pt, bt, pc, bc), w in ends.items():
                event = _end_event(bet, pt, bt, pc, bc)
                if event in pays:  # any other event loses (a Small Tiger on a 3-card 6)
                    probs[event] += Fraction(w, total)
        lose = 1 - sum(probs.values())
        evs[bet] = float(sum(Fraction(pays[e]) * p for e, p in probs.items()) - lose)
    return evs


def _depleted(seed: int, decks: int, removed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    cards = full_shoe_cards(decks)
    for card in rng.choice(np.repeat(np.arange(52), cards), size=removed, replace=False):
        cards[card] -= 1
    return cards


@pytest.mark.parametrize(("decks", "removed", "seed"), [(8, 0, 0), (1, 0, 0), (6, 150, 1),
                                                         (2, 60, 2)])
def test_independent_enumeration(decks: int, removed: int, seed: int) -> None:
    cards = _depleted(seed, decks, removed)
    expected = _independent_evs(cards.tolist())
    got = {bet: o.ev for bet, o in odds(cards, decks=decks).items()}
    assert set(got) - {"banker", "player", "tie", "player_pair", "banker_pair"} == set(SIDE_BETS)
    for bet in SIDE_BETS:
        assert got[bet] == pytest.approx(expected[bet], abs=1e-12), bet
    batch = side_bet_evs(cards[None, :])[0]
    assert batch == pytest.approx([expected[bet] for bet in SIDE_BETS], abs=1e-12)


def test_brute_force_every_ordered_sequence() -> None:
    """Every ordered six-card sequence of a small 2-deck remainder (11 cards, a few
    duplicated: 332,640 sequences), dealt and settled one by one."""
    cards = np.zeros(52, dtype=np.int64)
    for card in (0, 0, 4, 9, 13, 13, 20, 27, 38, 44, 51):  # A♠ A♠ 2♠ 3♥ 4♥ 4♥ 6♠ 7♣ ...
        cards[card] += 1
    deck = [int(c) for c in np.repeat(np.arange(52), cards)]
    value = [min(c // 4 + 1, 10) % 10 for c in range(52)]
    seen: dict[tuple[object, ...], int] = {}  # how many sequences deal each coup
    for seq in itertools.permutations(deck, 6):
        p1, b1, p2, b2, x5, x6 = seq
        pt, bt = (value[p1] + value[p2]) % 10, (value[b1] + value[b2]) % 10
        pc = bc = 2
        if not (pt >= 8 or bt >= 8):
            third = None
            if pt <= 5:
                third, pt, pc = value[x5], (pt + value[x5]) % 10, 3
            if _banker_draws(bt, third):
                bt, bc = (bt + value[x6 if third is not None else x5]) % 10, 3
        ppair, bpair = p1 // 4 == p2 // 4, b1 // 4 == b2 // 4
        key = (pt, bt, pc, bc, ppair != bpair, ppair and bpair and p1 // 4 != b1 // 4,
               ppair and bpair and p1 // 4 == b1 // 4, ppair or bpair, p1 == p2 or b1 == b2)
        seen[key] = seen.get(key, 0) + 1
    sequences = sum(seen.values())
    assert sequences == 11 * 10 * 9 * 8 * 7 * 6
    totals: dict[str, Fraction] = dict.fromkeys(SIDE_BETS, Fraction(0))
    for (pt, bt, pc, bc, *flags), count in seen.items():
        first_four = dict(zip(("one_pair", "two_pairs", "same_pair", "either_pair",
                               "perfect_pair"), flags, strict=True))
        for bet in SIDE_BETS:
            pays = next(iter(SIDE_BET_PAYTABLES[bet].values()))
            if set(pays) <= set(first_four):
                event = next((e for e in pays if first_four[e]), None)
            else:
                event = _end_event(bet, pt, bt, pc, bc)
            totals[bet] += count * (Fraction(pays[event]) if event in pays else -1)
    got = odds(cards, decks=2)
    for bet in SIDE_BETS:
        assert got[bet].ev == pytest.approx(float(totals[bet] / sequences), abs=1e-12), bet


def test_standard_deviation_and_probabilities() -> None:
    o = odds(decks=8)["dragon_bonus_player"]
    assert o.lose + sum(o.probabilities.values()) == pytest.approx(1.0, abs=1e-15)
    square = sum(o.pays[e] ** 2 * p for e, p in o.probabilities.items()) + o.lose
    assert o.sd == pytest.approx((square - o.ev ** 2) ** 0.5, rel=1e-12)
    assert odds(decks=8)["small_tiger"].probabilities["banker_two_card_6"] == pytest.approx(
        odds(decks=8)["lucky6"].probabilities["banker_two_card_6"], abs=0)


def test_what_a_composition_can_price() -> None:
    by_value = np.array([128, 32, 32, 32, 32, 32, 32, 32, 32, 32])
    assert set(odds(by_value, bets=SIDE_BETS)) == {b for b in SIDE_BETS if "pair" not in b}
    by_rank = np.full(13, 32)
    assert set(odds(by_rank, bets=SIDE_BETS)) == set(SIDE_BETS) - {"perfect_pair"}
    assert odds(by_rank)["dragon_bonus_banker"].ev == odds(by_value)["dragon_bonus_banker"].ev
    ev = side_bet_evs(by_value[None, :], ["perfect_pair", "big"])
    assert np.isnan(ev[0, 0]) and not np.isnan(ev[0, 1])


def test_paytables_by_name_or_given() -> None:
    macau = odds(paytables={"lucky6": "macau"}, bets=["lucky6", "tiger"])
    assert macau["lucky6"].ev == macau["tiger"].ev  # Tiger pays 12 and 20 too
    given = odds(paytables={"tiger_tie": {"tie_6": 35}}, bets=["tiger_tie"])["tiger_tie"]
    assert given.ev == odds(paytables={"tiger_tie": "retired"})["tiger_tie"].ev
    with pytest.raises(OddsError, match="no paytable 'vegas'"):
        odds(paytables={"lucky6": "vegas"})
    with pytest.raises(OddsError, match="pays on"):
        odds(paytables={"lucky6": {"tie_6": 3}})
    with pytest.raises(OddsError, match="unknown side bet"):
        odds(paytables={"dragon": "standard"})


def test_generated_shoes_settle_within_the_exact_odds() -> None:
    """Every coup of 500 generated 6-deck shoes settled for every side bet from its cards
    (``side_bet_nets``): each bet's mean net is within 4 standard errors of the mean of the
    exact EVs of the cards left before each coup (by card, so every bet is priced)."""
    rules = TableRules(decks=6)
    coups = generate_coups(rules, 7, np.arange(500))
    card_class = np.where(coups.cards >= 0, (coups.cards // 5 - 1) * 4 + coups.cards % 5, -1)
    seen = np.zeros((len(coups), 52), dtype=np.int64)
    running = np.zeros(52, dtype=np.int64)
    for i in range(len(coups)):
        if i == 0 or coups.shoe[i] != coups.shoe[i - 1]:
            running[:] = 0
            burn = coups.burn_shown[i]
            if burn >= 0:
                running[(burn // 5 - 1) * 4 + burn % 5] += 1
        seen[i] = running
        for card in card_class[i]:
            if card >= 0:
                running[card] += 1
    exact = side_bet_evs(full_shoe_cards(6)[None, :] - seen)
    for k, bet in enumerate(SIDE_BETS):
        net = side_bet_nets(coups, bet)
        assert not np.isnan(net).any()
        error = net.std() / np.sqrt(net.size)
        assert abs(net.mean() - exact[:, k].mean()) < 4 * error, bet


def test_what_the_cards_cannot_settle() -> None:
    """No suits recorded: Perfect Pair cannot be settled on a pair (nor on a coup whose
    hands may be pairs), the other pairs can; a rank-less zero beside a zero: no pair bet."""
    coups = Coups(
        shoe=np.zeros(3, np.int64), coup=np.arange(3, dtype=np.int32),
        cards=np.array([[parse_card("A"), parse_card("A"), -1, parse_card("K"),
                         parse_card("9"), -1],
                        [parse_card("AS"), parse_card("AS"), -1, parse_card("KH"),
                         parse_card("9H"), -1],
                        [parse_card("0"), parse_card("K"), -1, parse_card("Q"),
                         parse_card("9"), -1]], dtype=np.int8),
        player_total=np.array([2, 2, 0]), banker_total=np.array([9, 9, 9]),
        outcome=np.array([BANKER, BANKER, BANKER]), burn_shown=np.full(3, -1, np.int8))
    assert np.isnan(side_bet_nets(coups, "perfect_pair")[0])
    assert side_bet_nets(coups, "perfect_pair")[1] == 25.0
    assert side_bet_nets(coups, "either_pair")[:2].tolist() == [5.0, 5.0]
    assert side_bet_nets(coups, "tiger_pair")[:2].tolist() == [4.0, 4.0]
    assert np.isnan(side_bet_nets(coups, "either_pair")[2])
    assert side_bet_nets(coups, "dragon_bonus_banker").tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("rules", [TableRules(), TableRules(variant="ez"),
                                   TableRules(variant="super6", decks=6),
                                   TableRules(decks=1, tie_pays=9, commission=0.04)])
def test_main_bets_in_odds_are_the_engines_figures(rules: TableRules) -> None:
    """odds() prices the bets the table offers by the engine's payout table: the same EVs
    as expected_values, full and depleted, and the SD from the same events."""
    full = odds(rules=rules)
    edges = house_edges(rules)
    assert list(full)[:len(edges)] == list(edges) and list(full)[len(edges):] == list(SIDE_BETS)
    depleted = shoe_counts(rules.decks) - np.array([6, 1, 0, 3, 2, 0, 1, 3, 2, 0])
    evs = expected_values(depleted, rules)
    got = odds(depleted, rules=rules)
    for kind in edges:
        assert full[kind].house_edge == pytest.approx(edges[kind], abs=1e-14), kind
        assert got[kind].ev == pytest.approx(evs[kind], abs=1e-14), kind
    player = full["player"]
    assert player.pays == {"player_wins": 1.0, "tie": 0.0}
    assert player.sd == pytest.approx((1 - player.probabilities["tie"] - player.ev ** 2) ** 0.5,
                                      rel=1e-12)
