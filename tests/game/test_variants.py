"""Rule variants side by side: one replay, each configuration under its own rules.

``baccarat.replay.replay(..., config_rules=[standard, ez, super6])`` plays the same shoes
once, each configuration paid by its own table. The payouts are worked out by hand from
the printed rules (docs/architecture.md): standard Banker pays 0.95; EZ pays Banker 1:1 but pushes a
Banker win with a three-card 7; Super 6 pays Banker 1:1 but 1:2 on a Banker win with 6.
"""

from __future__ import annotations

import numpy as np
import pytest
from baccarat.replay import SessionPolicy, StrategyFault, replay
from baccarat.rules import TableRules
from baccarat.strategies.base import Strategy, Table, Wager
from baccarat.strategies.presets import FlatPreset as Flat
from baccarat.strategies.presets import SideBetPreset as SideBet
from baccarat.strategies.registry import StrategyError
from hand_made import StakeOn, hand_coups

STANDARD = TableRules()
EZ = TableRules(variant="ez")
SUPER6 = TableRules(variant="super6")

SHOE = [
    ("KS 3H 2D", "2C 2H 3S"),   # Banker wins with a three-card 7
    ("3C 2D KC", "4H 2S"),      # Banker wins with a two-card 6
    ("2S 2D KS", "AC 2C 3H"),   # Banker wins with a three-card 6
    ("9C KD", "5S 2H"),         # Player natural 9 against 7
    ("4S 4H", "8C KD"),         # tie, naturals 8
    ("QS 5C", "9S 9H"),         # Banker 8 (natural) against Player 5: a plain Banker win
]


def nets(ledger) -> list[float]:  # type: ignore[no-untyped-def]
    """The net result of each coup of the first session."""
    return ledger.net[0, ledger.played[0]].tolist()


def test_banker_bet_paid_by_each_configuration_own_rules() -> None:
    coups = hand_coups([SHOE])
    _, ledgers = replay(coups, [Flat(), Flat(), Flat()], STANDARD,
                        config_rules=[STANDARD, EZ, SUPER6])
    standard, ez, super6 = (nets(ledger) for ledger in ledgers)
    assert standard == pytest.approx([9.5, 9.5, 9.5, -10, 0, 9.5], abs=1e-12)
    assert ez == [0, 10, 10, -10, 0, 10]            # the three-card 7 pushes
    assert super6 == [10, 5, 5, -10, 0, 10]         # a Banker 6 pays half
    for ledger, start in zip(ledgers, [1000.0] * 3, strict=True):
        assert ledger.bankroll[0, 5] == pytest.approx(start + ledger.net[0].sum(), abs=1e-9)


def test_player_and_tie_are_paid_alike_but_tie_pays_by_its_rules() -> None:
    coups = hand_coups([SHOE])
    tie9 = TableRules(tie_pays=9)
    configs: list[Strategy] = [Flat(side="player"), Flat(side="player"), Flat(side="tie"),
                               Flat(side="tie")]
    _, ledgers = replay(coups, configs, STANDARD, config_rules=[EZ, SUPER6, STANDARD, tie9])
    assert nets(ledgers[0]) == nets(ledgers[1]) == [-10, -10, -10, 10, 0, -10]
    assert nets(ledgers[2]) == [-10, -10, -10, -10, 80, -10]
    assert nets(ledgers[3]) == [-10, -10, -10, -10, 90, -10]


def test_side_bets_under_their_variants_in_one_replay() -> None:
    coups = hand_coups([SHOE])
    configs: list[Strategy] = [SideBet(bet="dragon7"), SideBet(bet="super6"),
                               SideBet(bet="banker_pair"), SideBet(bet="player_pair")]
    _, ledgers = replay(coups, configs, STANDARD, config_rules=[EZ, SUPER6, STANDARD, EZ])
    assert nets(ledgers[0]) == [400, -10, -10, -10, -10, -10]
    assert nets(ledgers[1]) == [-10, 120, 120, -10, -10, -10]
    assert nets(ledgers[2]) == [110, -10, -10, -10, -10, 110]   # 2C 2H and 9S 9H
    assert nets(ledgers[3]) == [-10, -10, 110, -10, 110, -10]   # 2S 2D and 4S 4H


def test_each_configuration_sees_its_own_rules_and_the_same_shoes() -> None:
    class RulesProbe(Strategy):
        name = "rules_probe"
        _seen_rules: TableRules

        def start(self, table: Table) -> None:
            self._seen_rules = table.rules

        def wager(self, table: Table) -> Wager:
            return Wager.on(banker=np.full(table.n, self.base))

    probes: list[Strategy] = [RulesProbe(), RulesProbe(), RulesProbe()]
    coups = hand_coups([SHOE, SHOE[::-1]])
    grid, ledgers = replay(coups, probes, STANDARD, SessionPolicy(session_shoes=1),
                           config_rules=[STANDARD, EZ, SUPER6])
    assert [p._seen_rules.variant for p in probes] == [  # type: ignore[attr-defined]
        "standard", "ez", "super6"]
    assert grid.shape == (2, 6)
    # The reversed shoe nets the same per coup, in reverse order, under each variant.
    for ledger in ledgers:
        assert ledger.net[1].tolist() == ledger.net[0][::-1].tolist()


def test_a_variant_that_lacks_a_side_bet_refuses_it_and_lengths_must_match() -> None:
    coups = hand_coups([SHOE])
    with pytest.raises(StrategyError, match="dragon7 bet is not offered .*variant=ez"):
        replay(coups, [SideBet(bet="dragon7"), SideBet(bet="dragon7")], STANDARD,
               config_rules=[EZ, SUPER6])
    # A strategy that stakes regardless (no offer check of its own) is refused by the engine.
    with pytest.raises(StrategyFault, match="panda8 is not offered under 8 decks, Super 6"):
        replay(coups, [StakeOn(kind="panda8")], STANDARD, config_rules=[SUPER6])
    with pytest.raises(ValueError, match="one rule set per strategy configuration"):
        replay(coups, [Flat(), Flat()], STANDARD, config_rules=[EZ])


def test_backtest_cli_plays_every_strategy_under_each_rules_file(tmp_path):
    import pandas as pd
    from baccarat.cli import app
    from typer.testing import CliRunner

    (tmp_path / "std.toml").write_text('variant = "standard"\n')
    (tmp_path / "ez.toml").write_text('variant = "ez"\n')
    (tmp_path / "d6.toml").write_text("decks = 6\n")
    out = tmp_path / "run"
    args = ["backtest", "--shoes", "300", "--seed", "5", "-s", "flat", "-s", "flat:side=player",
            "--rules", str(tmp_path / "std.toml"), "--rules", str(tmp_path / "ez.toml"),
            "--out", str(out), "--ledger", "none"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = pd.read_parquet(out / "summary.parquet")
    assert summary["rules"].tolist() == ["8 decks, standard 5%, tie 8:1"] * 2 + [
        "8 decks, EZ, tie 8:1"] * 2
    # Player bets pay alike under both: the same shoes give the same sessions.
    assert summary.loc[1, "mean_net"] == summary.loc[3, "mean_net"]
    assert summary.loc[0, "house_edge"] == pytest.approx(0.010579, abs=1e-6)
    assert summary.loc[2, "house_edge"] == pytest.approx(0.010183, abs=1e-6)
    refused = CliRunner().invoke(app, [*args[:-4], "--rules", str(tmp_path / "d6.toml"),
                                       "--out", str(tmp_path / "r2")])
    assert refused.exit_code == 2
    assert "must deal the same shoes; decks 8 vs 6" in refused.output
    assert not (tmp_path / "r2").exists()
