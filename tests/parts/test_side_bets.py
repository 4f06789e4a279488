"""Side bets: settlement from hand-made coups, refusals, and realized vs exact house edges.

Payouts are worked out by hand from the printed rules (docs/architecture.md): pairs 11:1 on the
first two cards of a hand being the same *rank*; EZ: Dragon 7 (Banker wins with a
three-card 7) 40:1 and the Banker bet pushes on it, Panda 8 (Player wins with a three-card
8) 25:1; Super 6: the side bet pays 12:1 on a Banker win with 6, and the Banker bet pays
1:2 on it; no commission under EZ and Super 6.
"""

from __future__ import annotations

import numpy as np
import pytest
from baccarat import Run, Session, backtest
from baccarat.cards import NO_CARD
from baccarat.coups import coups_from_outcomes
from baccarat.replay import StrategyFault
from baccarat.rules import TableRules
from baccarat.strategies.base import Strategy, Table, Wager
from baccarat.strategies.presets import SideBetPreset as SideBet
from baccarat.strategies.registry import StrategyError, expand_spec
from hand_made import StakeOn, assert_within, hand_coups

# The coups, and what a unit stake on each kind nets on each, by hand.
COUPS = [
    # 1. P K,3,2 = 5; B 2,2 (a pair of 2s) draws on 4 against a third card 2, 3 -> 7:
    #    Banker wins with a three-card 7 (Dragon 7).
    ("KS 3H 2D", "2C 2H 3S"),
    # 2. P A,4 = 5 draws 3 -> 8; B 10,6 = 6 stands (third card 3): Player wins with a
    #    three-card 8 (Panda 8).
    ("AS 4D 3C", "10H 6C"),
    # 3. P 3,2 = 5 draws K -> 5; B 4,2 = 6 stands (third card 0): Banker wins with a
    #    two-card 6.
    ("3C 2D KC", "4H 2S"),
    # 4. P 10,K = 0 (same value, different ranks: no pair) draws 9 -> 9; B Q,Q (a pair)
    #    = 0 draws 8 -> 8: Player wins with 9.
    ("10S KH 9D", "QS QD 8C"),
    # 5. P 4,4 (a pair) = 8, B 8,K = 8: naturals, a tie.
    ("4S 4H", "8C KD"),
    # 6. P 2,2 (a pair) = 4 draws K -> 4; B A,2 = 3 draws (third card not 8) 3 -> 6:
    #    Banker wins with a three-card 6.
    ("2S 2D KS", "AC 2C 3H"),
]

#                 banker standard/EZ/Super 6, player, tie, P pair, B pair, D7, P8, S6
BY_HAND: dict[int, dict[str, float | tuple[float, float, float]]] = {
    1: {"banker": (0.95, 0.0, 1.0), "player": -1, "tie": -1, "player_pair": -1,
        "banker_pair": 11, "dragon7": 40, "panda8": -1, "super6": -1},
    2: {"banker": (-1, -1, -1), "player": 1, "tie": -1, "player_pair": -1,
        "banker_pair": -1, "dragon7": -1, "panda8": 25, "super6": -1},
    3: {"banker": (0.95, 1.0, 0.5), "player": -1, "tie": -1, "player_pair": -1,
        "banker_pair": -1, "dragon7": -1, "panda8": -1, "super6": 12},
    4: {"banker": (-1, -1, -1), "player": 1, "tie": -1, "player_pair": -1,
        "banker_pair": 11, "dragon7": -1, "panda8": -1, "super6": -1},
    5: {"banker": (0, 0, 0), "player": 0, "tie": 8, "player_pair": 11,
        "banker_pair": -1, "dragon7": -1, "panda8": -1, "super6": -1},
    6: {"banker": (0.95, 1.0, 0.5), "player": -1, "tie": -1, "player_pair": 11,
        "banker_pair": -1, "dragon7": -1, "panda8": -1, "super6": 12},
}
VARIANTS = {"standard": 0, "ez": 1, "super6": 2}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_bet_settles_from_the_cards_as_worked_out_by_hand(variant: str) -> None:
    from baccarat.odds import bets_offered

    coups = hand_coups([COUPS])
    rules = TableRules(variant=variant)
    offered = bets_offered(rules)  # a bet the table does not offer is refused (test_replay)
    result = backtest(coups, [StakeOn(kind=kind) for kind in offered], rules=rules)
    ledger = result.ledger
    for config, kind in enumerate(offered):
        rows = ledger[ledger["config"] == config].sort_values("coup")
        expected = []
        for coup in range(1, len(COUPS) + 1):
            unit = BY_HAND[coup][kind]
            expected.append(10 * (unit[VARIANTS[variant]] if isinstance(unit, tuple) else unit))
        assert rows[kind].tolist() == [10.0] * len(COUPS)
        np.testing.assert_allclose(rows["net"].to_numpy(), expected, rtol=0, atol=1e-9,
                                   err_msg=f"{kind} under {variant}")


def test_tie_nine_to_one_and_pair_payout_follow_the_rules() -> None:
    coups = hand_coups([COUPS])
    rules = TableRules(tie_pays=9, pair_pays=5)
    ledger = backtest(coups, [StakeOn(kind="tie"), StakeOn(kind="player_pair")], rules=rules).ledger
    tie = ledger[ledger["config"] == 0].sort_values("coup")["net"].tolist()
    pair = ledger[ledger["config"] == 1].sort_values("coup")["net"].tolist()
    assert tie == [-10, -10, -10, -10, 90, -10]
    assert pair == [-10, -10, -10, -10, 50, 50]


def test_pairs_go_by_rank_and_a_rankless_zero_cannot_settle_a_pair() -> None:
    # "0" is a zero-valued card recorded without its rank: with a K it may or may not be a
    # pair, with a 5 it cannot be one.
    maybe = hand_coups([[("0 KH 5D", "3S 4C")]])   # P 0 = draws 5 -> 5; B 7 stands: B wins
    never = hand_coups([[("0 5H", "9S KC")]])      # P 5 vs B natural 9: B wins
    assert backtest(never, [StakeOn(kind="player_pair")]).ledger["net"].tolist() == [-10]
    # The other bets of that coup still settle.
    assert backtest(maybe, [StakeOn(kind="banker")]).ledger["net"].tolist() == [9.5]
    with pytest.raises(StrategyFault, match=r"shoe 0, coup 1: a stake on player_pair cannot "
                                            r"be settled"):
        backtest(maybe, [StakeOn(kind="player_pair")])


def test_side_bets_on_outcomes_only_are_refused() -> None:
    coups = coups_from_outcomes(["BPB", "PPT"])
    for kind, variant in (("player_pair", "ez"), ("dragon7", "ez"), ("super6", "super6")):
        with pytest.raises(StrategyFault, match=rf"session 0, shoe 0, coup 1: a stake on {kind} "
                                                r"cannot be settled: the dataset lacks the cards"):
            backtest(coups, [StakeOn(kind=kind)], rules=TableRules(variant=variant))
    with pytest.raises(StrategyFault, match="cannot be settled"):
        backtest(coups, ["side_bet"])
    # Main bets still settle on outcomes.
    assert backtest(coups, ["flat"]).ledger["net"].tolist()[:3] == [9.5, -10, 9.5]


def test_totals_without_cards_settle_only_what_the_totals_decide() -> None:
    # Totals recorded, cards not: a Banker 6 is known (Super 6 settles), a pair is not, and
    # a Banker 7 may or may not be a three-card 7 (Dragon 7 cannot settle on it), while a
    # Banker 5 surely is no Dragon 7.
    coups = hand_coups([[("3C 2D KC", "4H 2S"), ("KS 3H 2D", "2C 2H 3S"),
                         ("3C AD KC", "AS 4D")]])
    coups.cards[:] = NO_CARD
    super6 = TableRules(variant="super6")
    s6 = backtest(coups, [StakeOn(kind="super6"), StakeOn(kind="banker")], rules=super6).ledger
    assert s6[s6["config"] == 0]["net"].tolist() == [120, -10, -10]
    assert s6[s6["config"] == 1]["net"].tolist() == [5, 10, 10]  # the Banker 6 pays 1:2
    ez = TableRules(variant="ez")
    both = backtest(coups.take(np.array([0, 2])), [StakeOn(kind="banker")], rules=ez)
    assert both.ledger["net"].tolist() == [10, 10]
    with pytest.raises(StrategyFault, match="coup 2: a stake on banker cannot be settled"):
        backtest(coups, [StakeOn(kind="banker")], rules=ez)
    with pytest.raises(StrategyFault, match="coup 1: a stake on banker_pair cannot be settled"):
        backtest(coups, [StakeOn(kind="banker_pair")])
    with pytest.raises(StrategyFault, match="coup 2: a stake on dragon7 cannot be settled"):
        backtest(coups, [StakeOn(kind="dragon7")], rules=TableRules(variant="ez"))
    only_five = coups.take(np.array([2]))
    five = backtest(only_five, [StakeOn(kind="dragon7")], rules=TableRules(variant="ez"))
    assert five.ledger["net"].tolist() == [-10]


def test_side_bet_strategy_stakes_every_coup_and_refuses_bets_not_offered() -> None:
    coups = hand_coups([COUPS])
    ledger = backtest(coups, ["side_bet:bet=panda8,base=20"], rules=TableRules(variant="ez")).ledger
    assert ledger["panda8"].tolist() == [20.0] * len(COUPS)
    assert ledger["net"].tolist() == [-20, 500, -20, -20, -20, -20]
    with pytest.raises(StrategyError, match=r"dragon7 bet is not offered at a table with "
                                            r"8 decks, standard 5%.*variant=ez offer it"):
        backtest(coups, ["side_bet:bet=dragon7"])
    with pytest.raises(StrategyError, match="super6 bet is not offered.*variant=super6"):
        backtest(coups, ["side_bet:bet=super6"], rules=TableRules(variant="ez"))
    with pytest.raises(StrategyError, match="bet: Input should be 'banker', 'player'"):
        expand_spec("side_bet:bet=dragon8")
    (again,) = expand_spec(SideBet(bet="super6", base=15).spec())
    assert again.params() == {"base": 15.0, "bet": "super6"}


class TwoSideBets(Strategy):
    """Test double: 10 on Player pair and 20 on Dragon 7 every coup."""

    name = "two_side_bets"

    def wager(self, table: Table) -> Wager:
        return Wager.on(player_pair=np.full(table.n, 10.0), dragon7=np.full(table.n, 20.0))


# Published 8-deck house edges (Wizard of Odds): pairs at 11:1 10.36%; EZ Banker 1.0183%,
# Dragon 7 7.6113%, Panda 8 10.1876%; Super 6 Banker 1.4581%.
PUBLISHED = {"player_pair": 0.1036, "banker_pair": 0.1036, "ez banker": 0.010183,
             "dragon7": 0.076113, "panda8": 0.101876, "super6 banker": 0.014581}


@pytest.fixture(scope="module")
def ez_run():
    return backtest(None, ["side_bet:bet=dragon7", "side_bet:bet=panda8",
                           "side_bet:bet=player_pair", "flat", TwoSideBets()], shoes=20_000,
                    seed=606, rules=TableRules(variant="ez"), session=Session(bankroll=1e9),
                    run=Run(ledger=False)).summary


@pytest.mark.parametrize("config, key, width", [
    (0, "dragon7", 0.025), (1, "panda8", 0.02), (2, "player_pair", 0.013),
    (3, "ez banker", 0.005)])
def test_flat_side_bets_realize_the_exact_house_edge_under_ez(ez_run, config, key, width):
    row = ez_run.iloc[config]
    digits = 4 if key in ("player_pair", "banker_pair") else 6
    assert round(row.house_edge, digits) == PUBLISHED[key]
    assert_within(row, -row.house_edge)
    assert row.realized_edge_high - row.realized_edge_low < width


def test_house_edge_of_mixed_side_bets_is_weighted_by_the_amounts(ez_run):
    row = ez_run.iloc[4]
    expected = (10 * PUBLISHED["player_pair"] + 20 * PUBLISHED["dragon7"]) / 30
    assert row.house_edge == pytest.approx(expected, abs=2e-5)
    assert_within(row, -row.house_edge)


def test_super6_side_bet_and_banker_realize_their_exact_edges():
    summary = backtest(None, ["side_bet:bet=super6", "flat", "side_bet:bet=banker_pair"],
                       shoes=20_000, seed=66, rules=TableRules(variant="super6"),
                       session=Session(bankroll=1e9), run=Run(ledger=False)).summary
    super6, banker, pair = (summary.iloc[i] for i in range(3))
    assert round(banker.house_edge, 6) == PUBLISHED["super6 banker"]
    assert round(pair.house_edge, 4) == PUBLISHED["banker_pair"]
    for row in (super6, banker, pair):
        assert_within(row, -row.house_edge)
    assert super6.realized_edge_high - super6.realized_edge_low < 0.02
