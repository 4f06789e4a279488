"""Exact risk of simple-form systems that declare nothing: the state is what their own
methods keep on ``self`` (``strategies/derived_state.py``). Figures against a hand
enumeration of every outcome sequence, and against the built-in's hand-written
declaration."""

from __future__ import annotations

import itertools
from pathlib import Path

import baccarat
import pytest

DATA = Path(__file__).parents[1] / "data"
SYSTEMS = f"{DATA / 'simple_systems.py'}"
EXAMPLES = Path(__file__).parents[2] / "examples"


def outcome_odds() -> dict[str, float]:
    """Banker, Player and Tie of an 8-deck shoe: a Banker bet loses on a Player win."""
    odds = baccarat.odds().set_index("bet")["p_lose"]
    player, banker = float(odds["banker"]), float(odds["player"])
    return {"B": banker, "P": player, "T": 1.0 - banker - player}


def enumerated(coups: int, play) -> dict[float, float]:
    """The distribution of a session's net over every outcome sequence of ``coups``."""
    p = outcome_odds()
    out: dict[float, float] = {}
    for seq in itertools.product("BPT", repeat=coups):
        net = round(play(seq), 6)
        prob = 1.0
        for letter in seq:
            prob *= p[letter]
        out[net] = out.get(net, 0.0) + prob
    return out


def after_player_flat(seq) -> float:  # AfterPlayer | flat (base 10)
    net = 0.0
    for previous, now in zip(("",) + seq, seq, strict=False):
        if previous == "P":
            net += {"B": 9.5, "P": -10.0, "T": 0.0}[now]
    return net


def after_player_step_up(seq) -> float:  # AfterPlayer | StepUp
    net, units = 0.0, 1
    for previous, now in zip(("",) + seq, seq, strict=False):
        if previous != "P" or now == "T":
            continue
        if now == "B":
            net, units = net + 9.5 * units, 1
        else:
            net, units = net - 10.0 * units, min(units + 1, 3)
    return net


@pytest.mark.parametrize(("spec", "play"), [
    (f"{SYSTEMS}:AfterPlayer | flat", after_player_flat),
    (f"{SYSTEMS}:AfterPlayer | {SYSTEMS}:StepUp", after_player_step_up)])
def test_a_newcomers_trigger_and_staking_plan_get_the_hand_enumerated_distribution(spec, play):
    frame = baccarat.risk(spec, coups=5)
    got = dict(zip(frame["net"].round(6), frame["probability"], strict=True))
    want = enumerated(5, play)
    assert set(got) == set(want)
    for net, probability in want.items():
        assert got[net] == pytest.approx(probability, rel=1e-12, abs=1e-15), net


def test_a_simple_martingale_has_the_built_in_martingales_distribution():
    """The example's SimpleMartingale declares nothing; the built-in's state is written by
    hand. Over a shoe's session the two chains give the same distribution."""
    plugin = baccarat.risk(f"{EXAMPLES / 'simple_martingale.py'}:SimpleMartingale")
    builtin = baccarat.risk("martingale")
    assert plugin["net"].tolist() == builtin["net"].tolist()
    assert plugin["probability"].to_numpy() == pytest.approx(
        builtin["probability"].to_numpy(), rel=1e-9, abs=1e-15)
    assert plugin.attrs["risk_of_ruin"] == pytest.approx(builtin.attrs["risk_of_ruin"],
                                                         rel=1e-9)


@pytest.mark.parametrize(("name", "said"), [
    ("ReadsHistory", "pick() reads view.history"),
    ("OwesTheNet", "lost() reads net"),
    ("KeepsAList", "reset() keeps self.seen = list")])
def test_a_state_beyond_its_own_numbers_is_refused_with_the_reason(name, said):
    with pytest.raises(baccarat.BaccaratError, match=said.replace("(", r"\(").replace(
            ")", r"\)")):
        baccarat.risk(f"{SYSTEMS}:{name} | flat" if name != "OwesTheNet"
                      else f"{SYSTEMS}:AfterPlayer | {SYSTEMS}:{name}", coups=4)


def test_the_command_simulates_what_it_cannot_follow_and_says_why():
    from baccarat.cli import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["risk", "-s", f"{SYSTEMS}:ReadsHistory | flat",
                                      "--check", "200"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "no exact figures" in text and "pick() reads view.history" in text
    assert "the simulation instead" in text
