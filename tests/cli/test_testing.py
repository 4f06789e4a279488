"""baccarat.testing.play: a strategy's coup-by-coup ledger from the real replay engine.

Every expected value below is worked out by hand from the outcomes and the payouts
(Banker pays 0.95 with the 5% commission, Player 1:1, a tie pushes Banker/Player bets).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from baccarat.coups import coups_from_outcomes
from baccarat.deal import generate_coups
from baccarat.errors import BaccaratError
from baccarat.io.parquet import write_coups
from baccarat.rules import TableRules
from baccarat.strategies.presets import MartingalePreset as Martingale
from baccarat.testing import PlayError, play

# Martingale on Banker over B P P T B P B, stake doubling after each loss:
# 10 wins 9.5 | 10 loses | 20 loses | 40 pushes on the tie | 40 wins 38 | 10 loses | 20 wins 19
MARTINGALE_STAKES = [10, 10, 20, 40, 40, 10, 20]
MARTINGALE_NET = [9.5, -10, -20, 0, 38, -10, 19]


def test_play_a_spec_over_letters_gives_the_hand_worked_ledger():
    ledger = play("martingale", "BPPTBPB")
    assert ledger["coup"].tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert ledger["outcome"].tolist() == list("BPPTBPB")
    assert ledger["banker"].tolist() == MARTINGALE_STAKES
    assert ledger["player"].tolist() == [0] * 7
    assert ledger["net"].tolist() == MARTINGALE_NET
    bankroll = 1000.0
    for net, after in zip(MARTINGALE_NET, ledger["bankroll"], strict=True):
        bankroll += net
        assert after == pytest.approx(bankroll)


def test_expected_net_is_the_stakes_times_the_exact_edge():
    # Full-shoe EV of a unit Banker bet, 8 decks, 5% commission: -1.0579% (published 1.06%).
    ledger = play("martingale", "BPPTB")
    assert ledger["expected_net"].tolist() == pytest.approx(
        [s * -0.010579 for s in (10, 10, 20, 40, 40)], rel=1e-4)


def test_a_coups_file_plays_by_its_own_deck_count(tmp_path: Path):
    six = TableRules(decks=6)
    path = write_coups(generate_coups(six, 3, np.arange(1)), tmp_path / "six.parquet", six)
    ledger = play("flat", path)  # the EV of a 6-deck shoe: Banker -1.0558%
    assert ledger["expected_net"].iloc[0] == pytest.approx(-0.10558, rel=1e-3)
    with pytest.raises(PlayError, match="dealt from 6-deck shoes, but the rules say decks = 8"):
        play("flat", path, rules=TableRules(decks=8))


def test_class_instance_and_spec_play_alike_and_the_instance_is_left_alone():
    instance = Martingale(base=20)
    by_instance = play(instance, "BPP TBPB")  # spaces are ignored
    assert by_instance["banker"].tolist() == [s * 2 for s in MARTINGALE_STAKES]
    assert getattr(instance, "_k", None) is None  # its copy played, not the instance
    pd.testing.assert_frame_equal(play("martingale:base=20", "BPPTBPB"), by_instance)
    pd.testing.assert_frame_equal(play(Martingale, "BPPTBPB"), play("martingale", "BPPTBPB"))


def test_a_grid_spec_is_refused():
    with pytest.raises(PlayError, match="grid of 2 configurations"):
        play("martingale:base=[5,10]", "BPB")


def test_bankroll_and_rules_apply_as_in_a_backtest():
    # 30 to start: 10 lost (20 left), 20 lost (0 left): ruined, the third coup is not played.
    ledger = play("martingale", "PPP", bankroll=30)
    assert ledger["net"].tolist() == [-10, -20]
    assert ledger["bankroll"].tolist() == [20, 0]
    # A tie paying 9:1 instead of 8:1.
    assert play("flat:side=tie", "T", rules=TableRules(tie_pays=9))["net"].tolist() == [90]


def test_several_shoes_are_several_sessions_each_with_its_own_bankroll():
    ledger = play("flat:side=player", ["PP", "B"])
    assert ledger["session"].tolist() == [0, 0, 1]
    assert ledger["shoe"].tolist() == [0, 0, 1]
    assert ledger["bankroll"].tolist() == [1010, 1020, 990]


def test_cards_from_a_dataframe_show_in_the_ledger():
    coups = pd.DataFrame({
        "player_card1": ["4S", "AH"], "player_card2": ["3H", "7D"], "player_card3": [None, None],
        "banker_card1": ["KD", "5C"], "banker_card2": ["9C", "2S"], "banker_card3": [None, None],
        "player_total": [7, 8], "banker_total": [9, 7],
        "outcome": ["B", "P"],
    })
    ledger = play("flat", coups)
    assert ledger["player_cards"].tolist() == ["4S 3H", "AH 7D"]
    assert ledger["banker_cards"].tolist() == ["KD 9C", "5C 2S"]
    assert ledger["player_total"].tolist() == [7, 8]
    assert ledger["net"].tolist() == [9.5, -10]


def test_cards_spelt_as_recorded_are_read_and_a_bad_one_named():
    coups = pd.DataFrame({"player_card1": ["Th"], "player_card2": ["9♥"],
                          "banker_card1": ["as"], "banker_card2": ["8"],
                          "player_total": [9], "banker_total": [9], "outcome": ["T"]})
    ledger = play("flat", coups)
    assert ledger["player_cards"].tolist() == ["10H 9H"]
    assert ledger["banker_cards"].tolist() == ["AS 8"]
    with pytest.raises(PlayError, match=r"DataFrame row 0, banker_card1: unknown card 'ZZ'"):
        play("flat", coups.assign(banker_card1=["ZZ"]))


def test_outcome_only_coups_have_no_card_columns():
    assert "player_cards" not in play("flat", "BP").columns


def test_roads_newest_marks_for_a_road_strategy():
    # Big road of B B P B P P: columns [B B] [P] [B] [P P]. Big eye boy starts at column 3:
    # coup 4 (new column) compares columns 2 and 1 (1 vs 2 long): blue; coup 5 compares
    # 3 and 2 (1 and 1): red; coup 6 (a repeat in row 2) finds column 3 one long: blue.
    # Small road starts at coup 5: columns 3 and 1 differ: blue; coup 6: column 2 one
    # long: blue. Cockroach pig starts at coup 6: column 1 has a second row: red.
    ledger = play("road", "BBPBPP")
    assert ledger["big_road"].tolist() == ["B1", "B2", "P1", "B1", "P1", "P2"]
    assert ledger["big_eye_boy"].tolist() == ["", "", "", "blue", "red", "blue"]
    assert ledger["small_road"].tolist() == ["", "", "", "", "blue", "blue"]
    assert ledger["cockroach_pig"].tolist() == ["", "", "", "", "", "red"]
    assert "big_road" not in play("flat", "BP").columns
    assert play("flat", "TB", roads=True)["big_road"].tolist() == ["T", "B1"]


def test_a_coups_file_and_one_of_its_shoes(tmp_path: Path):
    path = write_coups(coups_from_outcomes(["PP", "BPB"]), tmp_path / "coups.parquet", None)
    ledger = play("flat", path, shoe=1)
    assert ledger["outcome"].tolist() == ["B", "P", "B"]
    with pytest.raises(PlayError, match=r"no shoe 5 in .*coups.parquet; shoe ids held: "
                                        r"0..1 \(2 shoes\)"):
        play("flat", path, shoe=5)


NEWCOMER_PLUGIN = textwrap.dedent('''
    from baccarat.strategies.base import SimpleStrategy

    class AfterTwoBankers(SimpleStrategy):
        """Bet Player after two Banker wins in a row."""
        name = "after_two_bankers"

        def reset(self):
            self.bankers = 0

        def bet(self, view):
            if self.bankers >= 2:
                return {"player": self.base}
            return {}

        def learn(self, view, outcome, net):
            if outcome == "B":
                self.bankers += 1
            elif outcome == "P":
                self.bankers = 0
''')


def test_a_plugin_file_spec_plays(tmp_path: Path):
    path = tmp_path / "after_two.py"
    path.write_text(NEWCOMER_PLUGIN)
    ledger = play(f"{path}:AfterTwoBankers", "BBPBBTBP")
    # bets Player from coup 3 (after B B), loses nothing to the tie, resets after P wins
    assert ledger["player"].tolist() == [0, 0, 10, 0, 0, 10, 10, 10]
    assert ledger["net"].tolist() == [0, 0, 10, 0, 0, 0, -10, 10]


def test_a_plugin_that_stakes_a_misspelt_kind_is_reported(tmp_path: Path):
    path = tmp_path / "typo.py"
    path.write_text(NEWCOMER_PLUGIN.replace('{"player": self.base}', '{"Player": self.base}'))
    with pytest.raises(BaccaratError, match="Player"):
        play(f"{path}:AfterTwoBankers", "BBP")


def test_bad_coups_are_refused_with_where():
    with pytest.raises(PlayError, match="neither outcome letters"):
        play("flat", "BPX")
    with pytest.raises(PlayError, match=r"DataFrame row 1 \(shoe 0, coup 2\): outcome 'X'"):
        play("flat", pd.DataFrame({"outcome": ["B", "X"]}))


def test_the_tutorials_pytest_example_passes(monkeypatch: pytest.MonkeyPatch):
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)  # the example names its plugin from the repository root
    readme = (root / "docs" / "tutorial.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    (example,) = [b for b in blocks if "from baccarat.testing import play" in b]
    namespace: dict = {}
    exec(example, namespace)  # noqa: S102 - the page's own code, run as a user would
    tests = [f for name, f in namespace.items() if name.startswith("test_")]
    assert tests
    for test in tests:
        test()


def test_a_simple_form_road_follower_shows_its_roads(tmp_path: Path):
    path = tmp_path / "eye.py"
    path.write_text(textwrap.dedent('''
        from baccarat.strategies.base import SimpleStrategy

        class FollowTheEye(SimpleStrategy):
            """Bet the side whose big eye boy mark would repeat the last one."""
            needs_roads = True

            def bet(self, view):
                last = view.roads.big_eye_boy
                if last is None:
                    return {}
                side = "banker" if view.roads.colour_if(1, "B") == last else "player"
                return {side: self.base}
    '''))
    ledger = play(f"{path}:FollowTheEye", "BBPBPP")
    # The marks as worked out in test_roads_newest_marks_for_a_road_strategy.
    assert ledger["big_eye_boy"].tolist() == ["", "", "", "blue", "red", "blue"]
    # Before coup 5 the last mark is blue (coup 4); a Banker win would repeat B in column
    # 3, row 2, beside column 2 which is one long: blue, the same, so Banker is bet. Before
    # coup 6 the last mark is red (coup 5); a Banker win would open column 5 after columns
    # 4 and 3, both one long: red, the same: Banker again. The built-in road agrees.
    assert ledger["banker"].tolist() == [0, 0, 0, 0, 10, 10]
    assert ledger["player"].tolist() == [0] * 6
    builtin = play("road", "BBPBPP")
    assert builtin["banker"].tolist() == ledger["banker"].tolist()
