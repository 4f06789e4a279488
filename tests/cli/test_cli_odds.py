"""``baccarat odds``: JSON shape and values, --remaining, --compare, and bad input."""

from __future__ import annotations

import json

import pytest
from baccarat.cli import app
from typer.testing import CliRunner

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["odds", *args])


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_default_is_the_published_eight_deck_table():
    data = run_json()
    assert set(data) == {"decks", "probabilities", "pair_probability_one_hand", "house_edge"}
    assert data["decks"] == 8
    assert set(data["probabilities"]) == {"banker", "player", "tie"}
    assert set(data["house_edge"]) == {"banker", "player", "tie", "player_pair", "banker_pair"}
    probs = {k: round(v, 6) for k, v in data["probabilities"].items()}
    assert probs == {"banker": 0.458597, "player": 0.446247, "tie": 0.095156}
    # one hand's first two cards of a rank, 8 decks: (13 * 32 * 31) / (416 * 415)
    assert data["pair_probability_one_hand"] == pytest.approx(13 * 32 * 31 / (416 * 415))
    edges = {k: round(v, 6) for k, v in data["house_edge"].items()}
    assert edges["banker"] == 0.010579
    assert edges["player"] == 0.012351
    assert edges["tie"] == 0.143596
    assert round(data["house_edge"]["player_pair"] * 100, 2) == 10.36


def test_json_variants_list_their_side_bets():
    ez = run_json("--variant", "ez")["house_edge"]
    assert round(ez["banker"], 6) == 0.010183
    assert round(ez["dragon7"], 6) == 0.076113
    assert round(ez["panda8"], 6) == 0.101876
    assert "super6" not in ez
    s6 = run_json("--variant", "super6")["house_edge"]
    assert round(s6["banker"] * 100, 4) == 1.4581
    assert "super6" in s6 and "dragon7" not in s6
    tie9 = run_json("--tie-pays", "9")["house_edge"]
    assert round(tie9["tie"] * 100, 3) == 4.844
    # Pays given on the command line are used: Panda 8 at 26:1 returns one more unit a win.
    p_panda = 1 - ez["panda8"]  # (25 + 1) * p - 1 = -edge  ->  26 p = 1 - edge
    richer = run_json("--variant", "ez", "--panda8-pays", "26")["house_edge"]["panda8"]
    assert richer == pytest.approx(1 - 27 * p_panda / 26, abs=1e-12)


def test_rules_file(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text('variant = "ez"\ndecks = 6\n', encoding="utf-8")
    data = run_json("--rules", str(path))
    assert data["decks"] == 6
    assert "dragon7" in data["house_edge"]


def test_remaining_full_shoe_equals_decks():
    full = run_json("--side-bets")
    by_value = run_json("--side-bets", "--remaining", "128,32,32,32,32,32,32,32,32,32")
    by_card = run_json("--side-bets", "--remaining", ",".join(["8"] * 52))
    assert by_card == full
    # By value, the pair side bets cannot be priced (no ranks); the rest are the same.
    pairs = {"tiger_pair", "perfect_pair", "either_pair"}
    assert set(full["side_bets"]) - set(by_value["side_bets"]) == pairs
    for data in (full, by_value):
        for bet in pairs:
            data["side_bets"].pop(bet, None)
    assert by_value == full
    one = run_json("--side-bets", "--decks", "1")
    by_rank = run_json("--side-bets", "--decks", "1", "--remaining", ",".join(["4"] * 13))
    assert set(one["side_bets"]) - set(by_rank["side_bets"]) == {"perfect_pair"}
    del one["side_bets"]["perfect_pair"]
    assert by_rank == one


def test_side_bets_and_their_paytables():
    side = run_json("--side-bets")["side_bets"]
    assert list(side)[:2] == ["dragon_bonus_player", "dragon_bonus_banker"]  # no main bet
    assert round(side["dragon_bonus_player"]["house_edge"] * 100, 2) == 2.65
    assert side["lucky6"]["pays"] == {"banker_two_card_6": 12.0, "banker_three_card_6": 23.0}
    macau = run_json("--paytable", "lucky6=macau", "--paytable", "tiger_tie=retired")
    assert round(macau["side_bets"]["lucky6"]["house_edge"] * 100, 2) == 16.68
    assert macau["side_bets"]["tiger_tie"]["pays"] == {"tie_6": 35.0}
    text = run().stdout
    assert "dragon_bonus_banker" in text and "9.3731%" in text


def test_remaining_small_shoe_by_hand():
    # Six cards left: a 9, an 8 and four zeros; Player gets positions 1 and 3, Banker 2 and 4.
    # The hand holding the 9 wins (probability 1/3 each). Otherwise (1/3) the hand holding
    # the 8 wins (2/5 each), or the 9 and the 8 are cards 5 and 6 (1/5): both hands are 0,
    # Player draws card 5, Banker card 6, each way equally likely. So
    # P(Player) = 1/3 + 1/3 * 2/5 + 1/3 * 1/5 * 1/2 = 1/2 = P(Banker), and no tie.
    data = run_json("--decks", "1", "--remaining", "4,0,0,0,0,0,0,0,1,1")
    assert data["probabilities"] == pytest.approx({"banker": 0.5, "player": 0.5, "tie": 0.0},
                                                  abs=1e-15)
    assert data["house_edge"]["tie"] == 1.0
    assert data["house_edge"]["player"] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--remaining", "1,2,3"], "has 3 number(s): expected 10"),
        (["--paytable", "lucky6=vegas"], "no paytable 'vegas'"),
        (["--paytable", "lucky6"], "expected BET=NAME"),
        (["--remaining", "4,4,4,4,4,4,4,4,4,-1"], "count of value 9 is -1"),
        (["--remaining", "4,4,4,4,4,4,4,4,4,x"], "'x', expected a whole number"),
        (["--remaining", "129,4,4,4,4,4,4,4,4,4"], "at most 128"),
        (["--decks", "1", "--remaining", "4,5,4,4,4,4,4,4,4,4"], "1 deck"),
        (["--remaining", "1,1,1,1,1,0,0,0,0,0"], "holds 5 cards"),
        (["--compare", "--remaining", "16,4,4,4,4,4,4,4,4,4"], "drop --remaining"),
        (["--variant", "baccarat"], "variant"),
    ],
)
def test_bad_input_exits_2_with_a_clear_error(args, message):
    result = run(*args, "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr.replace("\n", "")


def test_compare_json_shape():
    rows = run_json("--compare")["compare"]
    assert len(rows) == 25
    assert {row["decks"] for row in rows} == {1, 2, 4, 6, 8}
    names = ["standard", "EZ", "Super 6", "4% comm", "tie 9:1"]
    assert [row["rules"] for row in rows[::5]] == names
    by = {(row["rules"], row["decks"]): row for row in rows}
    assert set(by["EZ", 8]["house_edge"]) >= {"dragon7", "panda8"}
    assert "super6" in by["Super 6", 1]["house_edge"]
    assert round(by["standard", 8]["house_edge"]["banker"], 6) == 0.010579
    assert round(by["tie 9:1", 8]["house_edge"]["tie"] * 100, 3) == 4.844
    assert by["4% comm", 8]["commission"] == 0.04
    assert by["EZ", 8]["commission"] == 0.0
    # Same figures as the single-table command.
    assert by["EZ", 6]["house_edge"] == run_json("--variant", "ez", "--decks", "6")["house_edge"]


def test_text_output():
    result = run()
    assert result.exit_code == 0
    assert "1.0579%" in result.stdout and "0.458597" in result.stdout
    result = run("--compare")
    assert result.exit_code == 0
    for name in ("standard", "EZ", "Super 6", "4% comm", "tie 9:1"):
        assert name in result.stdout


def test_rules_file_paytables(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text('decks = 6\n[paytables]\nlucky6 = "macau"\n[paytables.tiger_tie]\n'
                    'tie_6 = 40\n', encoding="utf-8")
    side = run_json("--rules", str(path))["side_bets"]
    assert side["lucky6"]["pays"] == {"banker_two_card_6": 12.0, "banker_three_card_6": 20.0}
    assert side["tiger_tie"]["pays"] == {"tie_6": 40.0}
    flag = run_json("--rules", str(path), "--paytable", "lucky6=standard")["side_bets"]
    assert flag["lucky6"]["pays"]["banker_three_card_6"] == 23.0  # the flag wins
    path.write_text('[paytables]\nlucky6 = "vegas"\n', encoding="utf-8")
    result = run("--rules", str(path))
    assert result.exit_code == 2 and "paytables.lucky6" in result.stderr
    path.write_text('[paytables]\ntiger = {tie_6 = 3}\n', encoding="utf-8")
    assert "pays on" in run("--rules", str(path)).stderr
