"""Table rules: defaults, loading from TOML and JSON, overrides, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baccarat.errors import BaccaratError
from baccarat.rules import RulesError, TableRules, load_rules, rules_from_mapping


def test_defaults_are_the_printed_standard_game():
    rules = TableRules()
    assert rules.decks == 8
    assert rules.cards_in_shoe == 416
    assert rules.burn == "standard"
    assert rules.cut_card == 7
    assert rules.extra_coup_after_cut is False
    assert rules.commission == 0.05
    assert rules.banker_commission == 0.05
    assert rules.tie_pays == 8
    assert rules.variant == "standard"
    assert rules.label() == "8 decks, standard 5%, tie 8:1"


def test_no_commission_variants_charge_none():
    assert TableRules(variant="ez").banker_commission == 0.0
    assert TableRules(variant="super6").banker_commission == 0.0
    assert TableRules(variant="super6", decks=6).label() == "6 decks, Super 6, tie 8:1"


def test_rules_are_frozen():
    with pytest.raises(ValueError):
        TableRules().decks = 6  # type: ignore[misc]


def test_json_round_trip():
    rules = TableRules(decks=6, cut_card=16, extra_coup_after_cut=True, tie_pays=9)
    assert TableRules(**json.loads(rules.to_json())) == rules


def test_load_toml(tmp_path: Path):
    path = tmp_path / "table.toml"
    path.write_text('decks = 6\nburn = "none"\ncut_card = 14\ntie_pays = 9\n', encoding="utf-8")
    rules = load_rules(path)
    assert (rules.decks, rules.burn, rules.cut_card, rules.tie_pays) == (6, "none", 14, 9)
    assert rules.commission == 0.05  # untouched fields keep their defaults


def test_load_toml_with_a_rules_table(tmp_path: Path):
    path = tmp_path / "table.toml"
    path.write_text('[rules]\nvariant = "ez"\ntable_min = 25\ntable_max = 2500\n',
                    encoding="utf-8")
    rules = load_rules(path)
    assert (rules.variant, rules.table_min, rules.table_max) == ("ez", 25.0, 2500.0)


def test_load_json(tmp_path: Path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"decks": 1, "burn": "fixed", "burn_count": 3}), encoding="utf-8")
    rules = load_rules(path)
    assert (rules.decks, rules.burn, rules.burn_count) == (1, "fixed", 3)


def test_overrides_win_over_the_file(tmp_path: Path):
    path = tmp_path / "table.toml"
    path.write_text("decks = 6\ncut_card = 14\n", encoding="utf-8")
    rules = load_rules(path, {"decks": 8, "extra_coup_after_cut": True})
    assert (rules.decks, rules.cut_card, rules.extra_coup_after_cut) == (8, 14, True)


@pytest.mark.parametrize(
    ("values", "field", "reason"),
    [
        ({"decks": 0}, "decks", "greater than or equal to 1"),
        ({"decks": 9}, "decks", "less than or equal to 8"),
        ({"tie_pays": 7}, "tie_pays", "8 or 9"),
        ({"table_min": 100, "table_max": 50}, "table_max", "below table_min"),
        ({"deck": 6}, "deck", "unknown rule"),
        ({"burn": "sideways"}, "burn", "'standard', 'none' or 'fixed'"),
        ({"commission": 1.0}, "commission", "less than 1"),
        ({"cut_card": 3}, "cut_card", "greater than or equal to 6"),
    ],
)
def test_invalid_values_name_the_field_and_the_reason(values, field, reason):
    with pytest.raises(RulesError) as info:
        rules_from_mapping(values, source="house.toml")
    message = str(info.value)
    assert "house.toml" in message
    assert field in message
    assert reason in message


def test_unknown_key_lists_the_known_rules():
    with pytest.raises(RulesError, match=r"deck: unknown rule; the rules are decks, burn, "):
        rules_from_mapping({"deck": 6})


@pytest.mark.parametrize(
    ("name", "text"),
    [("bad.toml", "decks = 9\n"), ("bad.json", '{"tie_pays": 7}'),
     ("bad.toml", "table_min = 100\ntable_max = 50\n"), ("bad.json", '{"decks": 0}'),
     ("bad.toml", "[rules]\nshoes = 8\n")],
)
def test_invalid_files_name_the_file(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError, match=f"invalid rules in {path}"):
        load_rules(path)


def test_an_override_can_be_the_invalid_value(tmp_path: Path):
    path = tmp_path / "table.toml"
    path.write_text("decks = 6\n", encoding="utf-8")
    with pytest.raises(RulesError, match="decks: Input should be less than or equal to 8"):
        load_rules(path, {"decks": 9})


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("broken.toml", b"decks = \n", "cannot parse rules file"),
        ("broken.json", b'{"decks": 6', "cannot parse rules file"),
        ("list.json", b"[6, 8]", "must hold an object of rule names to values, not a list"),
        ("binary.toml", b"\xff\xfe\x00", "not UTF-8 text"),
    ],
)
def test_unreadable_files_are_rules_errors(tmp_path: Path, name: str, content: bytes,
                                           expected: str):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(RulesError, match=expected) as info:
        load_rules(path)
    assert str(path) in str(info.value)


def test_a_missing_file_is_a_rules_error(tmp_path: Path):
    path = tmp_path / "absent.toml"
    with pytest.raises(BaccaratError, match=f"cannot read rules file {path}"):
        load_rules(path)
