"""Strategy discovery: built-in names, modules, files, installed entry points; SPEC errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine.backtest import backtest
from engine.coups import coups_from_outcomes
from strategies.registry import StrategyError, expand_spec, load_class, register

PLUGIN_SOURCE = textwrap.dedent('''
    import numpy as np
    from strategies.base import Strategy, Wager

    class PlayerAfterBanker(Strategy):
        """Bet Player after a Banker win."""
        name = "player_after_banker"

        def wager(self, table):
            stake = np.where(table.last_outcome == 0, self.base, 0.0)
            return Wager.on(player=stake)
''')

OUTCOMES = ["BPBBTPB"]
# stakes follow each B: coups 2, 4, 5, 7 ... by hand: B->bet P on coup 2 (P wins +10),
# coup 3 no bet (last P), coup 4 bet (after B at 3): B -> -10, coup 5 bet (after B): T -> 0,
# coup 6: last outcome is T (a tie is the last result): no bet, coup 7: last P: no bet.
EXPECTED_NET = [0, 10, 0, -10, 0, 0, 0]


def check(spec: str) -> None:
    res = backtest(coups_from_outcomes(OUTCOMES), [spec])
    assert res.ledger["net"].tolist() == EXPECTED_NET


def test_plugin_from_file(tmp_path: Path):
    path = tmp_path / "my_plugin.py"
    path.write_text(PLUGIN_SOURCE)
    check(f"{path}:PlayerAfterBanker")


def test_plugin_from_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "my_plugins_mod.py").write_text(PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    check("my_plugins_mod:PlayerAfterBanker")


def test_plugin_from_installed_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # A real installed distribution as importlib.metadata sees one: a module and a
    # .dist-info folder declaring the entry point, on sys.path.
    (tmp_path / "ep_plugin_mod.py").write_text(PLUGIN_SOURCE)
    info = tmp_path / "ep_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[baccarat.strategies]\nafter_banker = ep_plugin_mod:PlayerAfterBanker\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    check("after_banker")


def test_unknown_strategy_lists_options_and_closest_match():
    with pytest.raises(StrategyError, match=r"unknown strategy 'martingail' \(did you mean "
                                            r"'martingale'\?\); available: .*flat"):
        load_class("martingail")


def test_unknown_parameter_gets_did_you_mean():
    with pytest.raises(StrategyError, match=r"no parameter 'bsae' \(did you mean 'base'\?\)"):
        expand_spec("flat:bsae=10")


def test_invalid_parameter_value_is_reported():
    with pytest.raises(StrategyError, match="invalid parameters in 'flat:base=-5'"):
        expand_spec("flat:base=-5")


def test_missing_file_and_class_are_reported(tmp_path: Path):
    with pytest.raises(StrategyError, match="does not exist"):
        load_class(str(tmp_path / "nope.py") + ":X")
    path = tmp_path / "p.py"
    path.write_text(PLUGIN_SOURCE)
    with pytest.raises(StrategyError, match="has no class 'PlayerAfterBankr' \\(did you mean"):
        load_class(f"{path}:PlayerAfterBankr")


def test_grid_expansion():
    configs = expand_spec("flat:base=[10,20,40],side=[banker,player]")
    assert [(c.base, c.side) for c in configs] == [
        (10, "banker"), (10, "player"), (20, "banker"), (20, "player"), (40, "banker"),
        (40, "player")]


def test_duplicate_registration_refused():
    from strategies.builtins import progressions  # noqa: F401
    from strategies.registry import builtin_strategies

    flat = builtin_strategies()["flat"]

    class Impostor(flat):  # type: ignore[misc, valid-type]
        name = "flat"

    with pytest.raises(StrategyError, match="already registered"):
        register(Impostor)


def test_simple_and_array_forms_give_identical_ledgers():
    examples = Path(__file__).resolve().parents[1] / "examples"
    simple = f"{examples / 'simple_martingale.py'}:SimpleMartingale"
    coups = coups_from_outcomes(["BPPTPPBPPPPBTB", "PPPPPPPPB", "TTBPB"])
    a = backtest(coups, ["martingale"]).ledger
    b = backtest(coups, [simple]).ledger
    columns = ["session", "coup", "banker", "player", "net", "bankroll"]
    assert np.array_equal(a[columns].to_numpy(), b[columns].to_numpy())
