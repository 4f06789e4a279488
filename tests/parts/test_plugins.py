"""Strategy discovery: built-in names, modules, files, installed entry points; SPEC errors."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
from baccarat import Run, backtest
from baccarat.coups import coups_from_outcomes
from baccarat.strategies.registry import StrategyError, expand_spec, load_class, register

PLUGIN_SOURCE = textwrap.dedent('''
    import numpy as np
    from baccarat.strategies.base import Strategy, Wager

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


def test_unknown_strategy_gets_the_closest_match_or_every_name_by_kind():
    with pytest.raises(StrategyError, match=r"^unknown strategy 'martingail' \(did you mean "
                                            r"'martingale'\?\); `baccarat strategies` lists "
                                            r"every strategy and part$"):
        load_class("martingail")
    with pytest.raises(StrategyError, match=r"^unknown strategy 'zzz'; selections: .*streak; "
                                            r"staking plans: .*martingale.*; session rules: "
                                            r"stop; whole strategies: .*side_bet"):
        load_class("zzz")


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
    from baccarat.strategies.registry import builtin_strategies

    flat = builtin_strategies()["flat"]

    class Impostor(flat):  # type: ignore[misc, valid-type]
        name = "flat"

    with pytest.raises(StrategyError, match="already registered"):
        register(Impostor)


def test_simple_and_array_forms_give_identical_ledgers():
    examples = Path(__file__).resolve().parents[2] / "examples"
    simple = f"{examples / 'simple_martingale.py'}:SimpleMartingale"
    coups = coups_from_outcomes(["BPPTPPBPPPPBTB", "PPPPPPPPB", "TTBPB"])
    a = backtest(coups, ["martingale"]).ledger
    b = backtest(coups, [simple]).ledger
    columns = ["session", "coup", "banker", "player", "net", "bankroll"]
    assert np.array_equal(a[columns].to_numpy(), b[columns].to_numpy())


# --------------------------------------------------------------------------- names, parameters

UNNAMED_SOURCE = textwrap.dedent('''
    import numpy as np
    from baccarat.strategies.base import Strategy, Wager

    class EVPlayerAfterBanker(Strategy):
        """Bet Player after a Banker win (no name given)."""

        def wager(self, table):
            return Wager.on(player=np.where(table.last_outcome == 0, self.base, 0.0))
''')

FLAT_IMPOSTOR = textwrap.dedent('''
    from baccarat.strategies.base import SimpleStrategy

    class MyFlat(SimpleStrategy):
        """Flat on Player, under the built-in flat's name."""
        name = "flat"

        def bet(self, view):
            return {"player": self.base}
''')


def test_a_plugin_without_a_name_is_labelled_by_its_class_in_snake_case(tmp_path: Path):
    path = tmp_path / "unnamed.py"
    path.write_text(UNNAMED_SOURCE)
    res = backtest(coups_from_outcomes(OUTCOMES), [f"{path}:EVPlayerAfterBanker"])
    assert res.summary["strategy"].tolist() == ["ev_player_after_banker"]
    assert set(res.ledger["strategy"]) == {"ev_player_after_banker"}
    assert res.ledger["net"].tolist() == EXPECTED_NET


def test_a_module_plugin_under_a_builtin_name_is_refused_naming_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "impostor_mod.py").write_text(FLAT_IMPOSTOR)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(StrategyError, match=r"^impostor_mod:MyFlat is named 'flat', which is "
                       r"already baccarat\.strategies\.presets\.Flat; give MyFlat another "
                       r"`name = \.\.\.`"):
        expand_spec("impostor_mod:MyFlat")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_path_plugin_under_a_builtin_name_is_labelled_with_its_file(tmp_path: Path,
                                                                      workers: int):
    path = tmp_path / "my_flat.py"
    path.write_text(FLAT_IMPOSTOR)
    res = backtest(None, [f"{path}:MyFlat", "flat"], shoes=20, seed=4,
                   run=Run(chunk_shoes=10, workers=workers))
    assert res.summary["strategy"].tolist() == ["flat@my_flat.py", "flat"]
    ledger = res.ledger
    assert set(ledger[ledger["config"] == 0]["strategy"]) == {"flat@my_flat.py"}
    assert (ledger[ledger["config"] == 0]["player"] > 0).all()  # its own bets, not flat's


def _install(tmp_path: Path, package: str, entry_points_text: str) -> None:
    info = tmp_path / f"{package}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[baccarat.strategies]\n{entry_points_text}\n")


def test_installed_plugins_under_a_taken_name_are_refused_naming_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "ep_twice_mod.py").write_text(PLUGIN_SOURCE + UNNAMED_SOURCE)
    _install(tmp_path, "first-plugin", "after = ep_twice_mod:PlayerAfterBanker")
    _install(tmp_path, "second-plugin", "after = ep_twice_mod:EVPlayerAfterBanker")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(StrategyError, match=r"two installed plugins are named 'after': "
                       r"ep_twice_mod:.* \(package .*-plugin\) and ep_twice_mod:.*-plugin\)"):
        load_class("after")


def test_an_installed_plugin_under_a_builtin_name_is_refused_naming_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "ep_builtin_mod.py").write_text(PLUGIN_SOURCE)
    _install(tmp_path, "shadow-plugin", "martingale = ep_builtin_mod:PlayerAfterBanker")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(StrategyError, match=r"the installed plugin ep_builtin_mod:"
                       r"PlayerAfterBanker \(package shadow-plugin\) is named 'martingale', "
                       r"which is the built-in baccarat\.strategies\.presets\.Martingale"):
        load_class("flat")


def test_a_plugin_installed_or_removed_after_a_lookup_is_seen_and_otherwise_read_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Installed entry points are read once and kept while nothing on ``sys.path`` changes
    (baccarat.entry_points): a package installed or removed afterwards (its folder's time
    changes) is seen at the next lookup. The folder's times are set back, as for a
    folder last changed a while ago."""
    import sys
    from importlib import metadata

    import baccarat.entry_points as entry_points

    def settle(seconds_ago: float) -> None:
        then = entry_points.time.time() - seconds_ago
        os.utime(tmp_path, (then, then))

    reads: list[str] = []
    read = metadata.entry_points

    def counted(**kwargs: str) -> object:
        reads.append(kwargs["group"])
        return read(**kwargs)

    monkeypatch.setattr(entry_points.metadata, "entry_points", counted)
    (tmp_path / "late_mod.py").write_text(PLUGIN_SOURCE)
    settle(60)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *[p for p in sys.path if p]])
    with pytest.raises(StrategyError, match="unknown strategy 'late_after'"):
        load_class("late_after")
    before = len(reads)
    assert before > 0 and set(reads) == {"baccarat.strategies"}
    with pytest.raises(StrategyError, match="unknown strategy 'late_after'"):
        load_class("late_after")
    assert len(reads) == before  # nothing changed: not read again

    _install(tmp_path, "late-plugin", "late_after = late_mod:PlayerAfterBanker")
    assert load_class("late_after").__name__ == "PlayerAfterBanker"  # changed just now
    settle(30)
    assert load_class("late_after").__name__ == "PlayerAfterBanker"
    before = len(reads)
    assert load_class("late_after").__name__ == "PlayerAfterBanker"
    assert len(reads) == before

    for path in (tmp_path / "late-plugin-1.0.dist-info").iterdir():
        path.unlink()
    (tmp_path / "late-plugin-1.0.dist-info").rmdir()
    settle(10)
    with pytest.raises(StrategyError, match="unknown strategy 'late_after'"):
        load_class("late_after")


TYPED_SOURCE = textwrap.dedent('''
    from typing import Literal

    from baccarat.strategies.base import SimpleStrategy

    class Typed(SimpleStrategy):
        """Parameters of every kind."""
        cap: float | None = 5.0
        skip_ties: bool = False
        tag: str = "x"
        side: Literal["banker", "player"] = "banker"
        every: int = 1

        def bet(self, view):
            return {self.side: self.base}
''')


@pytest.mark.parametrize("text, expected", [
    ("cap=none", {"cap": None}), ("cap=null", {"cap": None}), ("cap=None", {"cap": None}),
    ("cap=2.5", {"cap": 2.5}), ("skip_ties=yes", {"skip_ties": True}),
    ("skip_ties=no", {"skip_ties": False}), ("skip_ties=1", {"skip_ties": True}),
    ("skip_ties=0", {"skip_ties": False}), ("skip_ties=TRUE", {"skip_ties": True}),
    ("tag=10", {"tag": "10"}), ("tag=none", {"tag": "none"}), ("every=3", {"every": 3}),
    ("side=player", {"side": "player"}),
])
def test_plugin_parameters_parse_by_their_field_types(tmp_path: Path, text: str,
                                                     expected: dict):
    path = tmp_path / "typed.py"
    path.write_text(TYPED_SOURCE)
    (config,) = expand_spec(f"{path}:Typed:{text}")
    assert {key: getattr(config, key) for key in expected} == expected
    assert type(config.every) is int and config.name == "typed"


def test_plugin_grids_and_refusals_parse_like_builtins(tmp_path: Path):
    path = tmp_path / "typed.py"
    path.write_text(TYPED_SOURCE)
    grid = expand_spec(f"{path}:Typed:cap=[none,2],skip_ties=[yes,no]")
    assert [(c.cap, c.skip_ties) for c in grid] == [(None, True), (None, False), (2, True),
                                                     (2, False)]
    with pytest.raises(StrategyError, match=r"invalid parameters .*skip_ties"):
        expand_spec(f"{path}:Typed:skip_ties=maybe")
    with pytest.raises(StrategyError, match=r"invalid parameters .*every"):
        expand_spec(f"{path}:Typed:every=none")
    # The built-ins read the same words the same way.
    (martingale,) = expand_spec("martingale:max_doublings=none")
    assert martingale.max_doublings is None


NUMPY_FIELD_SOURCE = textwrap.dedent('''
    import numpy as np
    from baccarat.strategies.base import SimpleStrategy

    class Remembers(SimpleStrategy):
        history: np.ndarray = None   # a field type pydantic cannot check

        def decide(self, view):
            return "banker"
''')


def test_a_field_pydantic_cannot_check_is_refused_when_the_file_loads(tmp_path: Path):
    """A newcomer's array parameter is named, with its class, as the plugin is loaded (the
    classes build their validators lazily, so nothing else would say it before a run)."""
    path = tmp_path / "remembers.py"
    path.write_text(NUMPY_FIELD_SOURCE)
    with pytest.raises(StrategyError) as err:
        load_class(f"{path}:Remembers")
    message = str(err.value)
    assert "field 'history' (ndarray) of Remembers" in message
    assert message.startswith(f"{path}:Remembers: ") and "\n" not in message


def test_a_plugin_that_fails_to_import_is_reported_in_one_line(tmp_path: Path):
    """pydantic's message for an attribute without annotation runs on over several lines
    (a link, a hint): the error keeps its first, the one that says what is wrong."""
    path = tmp_path / "streaky.py"
    path.write_text(textwrap.dedent('''
        from baccarat.strategies.base import SimpleStrategy

        class Streaky(SimpleStrategy):
            history = []

            def decide(self, view):
                return "banker"
    '''))
    with pytest.raises(StrategyError) as err:
        load_class(f"{path}:Streaky")
    message = str(err.value)
    assert message.startswith(f"strategy file {path} failed to import: ")
    assert "`history = []`" in message and "\n" not in message


def test_a_simple_strategy_without_bet_names_the_method_it_has_instead(tmp_path: Path):
    path = tmp_path / "misnamed.py"
    path.write_text(textwrap.dedent('''
        from baccarat.strategies.base import SimpleStrategy

        class Misnamed(SimpleStrategy):
            def decide(self, view):
                return {"banker": 10}

            def _helper(self):
                return 1
    '''))
    from baccarat.errors import StrategyFault

    with pytest.raises(StrategyFault) as err:
        backtest(coups_from_outcomes(["BPB"]), [f"{path}:Misnamed"])
    message = str(err.value)
    assert "Misnamed does not define bet(self, view)" in message
    assert "it defines decide(): the one that decides the stakes must be named bet" in message
