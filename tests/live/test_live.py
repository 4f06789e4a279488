"""``baccarat live`` without the full screen: the entry line, the file, the session, the
systems and ``--plain`` driven through stdin.

Coups with cards are checked against hands worked out by hand from the drawing rules
(docs/architecture.md, "The game"); the file is read back by ``baccarat import``'s own
reader; the EV against the odds engine on a composition counted here; the systems'
bankrolls against sums worked out here from the outcomes.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from baccarat.cards import parse_card
from baccarat.cli import app
from baccarat.coups import BANKER, PLAYER, TIE
from baccarat.errors import BaccaratError
from baccarat.io.importers import import_files
from baccarat.io.owner import OutputBusyError, OutputExistsError
from baccarat.live.entry import Burn, Coup, EntryError, NewShoe, Undo, parse_line
from baccarat.live.journal import Journal, JournalError
from baccarat.live.scorecard import Scorecard
from baccarat.live.screen import View, cards_section, plain_screen
from baccarat.live.session import CardsLeft, LiveSession
from baccarat.live.systems import make_systems
from baccarat.roads import all_roads
from baccarat.rules import TableRules
from typer.testing import CliRunner

runner = CliRunner()


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(word) for word in text.split())


# ----------------------------------------------------------------------------- the entry line


def test_outcome_keys_and_pair_flags() -> None:
    assert parse_line("b") == Coup(BANKER)
    assert parse_line(" P ") == Coup(PLAYER)
    assert parse_line("tie") == Coup(TIE)
    assert parse_line("b pp") == Coup(BANKER, player_pair=True)
    assert parse_line("t bp pp") == Coup(TIE, player_pair=True, banker_pair=True)
    assert parse_line("bpp") == Coup(BANKER, player_pair=True)
    assert parse_line("p+bp") == Coup(PLAYER, banker_pair=True)
    assert parse_line("") is None
    assert parse_line("u") == Undo() and parse_line("undo") == Undo()
    assert parse_line("n") == NewShoe()
    assert parse_line("burn 7h") == Burn(parse_card("7H"))


def test_cards_as_dealt_follow_the_drawing_rules() -> None:
    # P 9S KD = 9, B 3H 5C = 8: two naturals, Player wins 9-8 on four cards
    coup = parse_line("9s 3h kd 5c")
    assert coup == Coup(PLAYER, player=cards("9S KD"), banker=cards("3H 5C"),
                        player_total=9, banker_total=8)
    # P AS 3C = 4 draws 5S -> 9; B 2H 4D = 6 stands on a third card of 5 -> Player 9-6
    coup = parse_line("as 2h 3c 4d 5s")
    assert coup == Coup(PLAYER, player=cards("AS 3C 5S"), banker=cards("2H 4D"),
                        player_total=9, banker_total=6)
    # P 6S KD = 6 stands; B 3H 2C = 5 draws (player stood) 5D -> 0: Player 6-0
    coup = parse_line("6s 3h kd 2c 5d")
    assert coup == Coup(PLAYER, player=cards("6S KD"), banker=cards("3H 2C 5D"),
                        player_total=6, banker_total=0)
    # P 2S 2H = 4 draws 3C -> 7; B KS 3D = 3 draws on a third card of 3 (not 8) -> 4H -> 7:
    # a tie, with a Player pair (2S 2H)
    coup = parse_line("2s ks 2h 3d 3c 4h")
    assert coup == Coup(TIE, player_pair=True, player=cards("2S 2H 3C"),
                        banker=cards("KS 3D 4H"), player_total=7, banker_total=7)
    assert "Tie 7-7" in coup.describe() and "Player pair" in coup.describe()


@pytest.mark.parametrize(("line", "message"), [
    # P 9S KD is a natural: the fifth card cannot belong to this coup
    ("9s 3h kd 5c 2h", "player 9 (9S KD) is a natural, so the coup ends after 4 cards; "
                       "2H is too many"),
    # P AS 3C = 4 must draw: four cards are not the whole coup
    ("as 2h 3c 4d", "player 4 (AS 3C) draws a third card, so the coup takes 5 cards; "
                    "4 given"),
    # P 6 stands, B 5 draws: a fifth card is needed
    ("6s 3h kd 2c", "player 6 (6S KD) stands and banker 5 (3H 2C) draws, so the coup "
                    "takes 5 cards; 4 given"),
    # B 2H 4D = 6 stands on the player's third card 5: the sixth card is one too many
    ("as 2h 3c 4d 5s 6h", "banker 6 (2H 4D) stands on a third card of 5, so the coup ends "
                          "after 5 cards; 6H is too many"),
    ("9s 3h", "2 cards given: a coup starts with four"),
    ("9s 3h kd zz", "unknown card 'zz' at card 4"),
    ("hello", "'hello' is neither an outcome (b, p, t), the cards of a coup"),
    ("b xx", "'xx' is not a pair flag"),
    ("burn", "the burn is one card shown face up"),
    # a long line (a paste gone wrong) is quoted by its start and length, so that the two
    # lines of the app's message still say what is wrong
    ("x" * 3000, "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (3,000 characters) is neither an "
                 "outcome (b, p, t)"),
])
def test_a_line_that_is_not_a_coup_says_why(line: str, message: str) -> None:
    with pytest.raises(BaccaratError) as caught:
        parse_line(line)
    assert message in str(caught.value)


# ----------------------------------------------------------------------------- the file


def new_session(path: Path, rules: TableRules | None = None) -> LiveSession:
    return LiveSession(Journal.create(path, rules or TableRules()))


def test_the_file_reads_back_through_import_to_the_same_coups(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    session = new_session(path)
    lines = ["burn 7h", "9s 3h kd 5c", "as 2h 3c 4d 5s", "t pp", "2s ks 2h 3d 3c 4h", "n",
             "b bp", "p", "6s 3h kd 2c 5d"]
    for line in lines:
        command = parse_line(line)
        assert command is not None
        session.apply(command)
    session.close()
    coups = import_files([path])
    assert coups.shoe.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert coups.coup.tolist() == [1, 2, 3, 4, 1, 2, 3]
    assert coups.outcome.tolist() == [PLAYER, PLAYER, TIE, TIE, BANKER, PLAYER, PLAYER]
    assert coups.cards[1].tolist() == [*cards("AS 3C 5S"), *cards("2H 4D"), -1]
    assert coups.cards[2].tolist() == [-1] * 6  # entered by its outcome only
    assert coups.player_total[3] == 7 and coups.banker_total[6] == 0
    # the same file resumes to the same shoes, burn and pair flags included
    again = LiveSession(Journal.resume(path))
    assert [len(s.coups) for s in again.shoes] == [4, 3]
    assert again.shoes[0].burn == parse_card("7H")
    assert again.shoes[0].coups[2] == Coup(TIE, player_pair=True)
    assert again.shoes[1].coups[0] == Coup(BANKER, banker_pair=True)
    again.close()


def test_an_existing_file_is_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text("my own notes\n")
    with pytest.raises(OutputExistsError, match="already exists; continue it with --resume"):
        Journal.create(path, TableRules())
    assert path.read_text() == "my own notes\n"
    with pytest.raises(JournalError, match="not a scorecard baccarat live wrote"):
        Journal.resume(path)
    assert path.read_text() == "my own notes\n"
    assert not (tmp_path / ".mine.csv.lock").exists()


def test_one_owner_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    session = new_session(path)
    with pytest.raises(OutputBusyError, match=rf"in use by another run \(pid {os.getpid()}\)"):
        Journal.resume(path)
    session.close()
    LiveSession(Journal.resume(path)).close()


def test_undo_takes_the_last_entry_out_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    session = new_session(path)
    for line in ("b", "p", "n", "burn 4d", "9s 3h kd 5c"):
        command = parse_line(line)
        assert command is not None
        session.apply(command)
    full = path.read_bytes()
    assert session.undo().startswith("undone: shoe 2, coup 1")
    assert session.undo() == "undone: the burn card 4D of shoe 2"
    assert session.undo() == "undone: the start of shoe 2; back in shoe 1"
    assert path.read_bytes() == full[:full.index(b"# shoe 2")]
    assert session.apply(Coup(TIE)) == "shoe 1, coup 3: Tie"
    session.undo()
    session.undo()
    session.undo()
    with pytest.raises(EntryError, match="nothing to undo"):
        session.undo()
    session.close()
    assert import_files.__name__  # the file holds only its header and the first shoe line
    assert path.read_text().splitlines()[-1] == "# shoe 1"


def test_a_line_cut_short_by_a_crash_is_kept_as_a_comment(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    session = new_session(path)
    session.apply(Coup(BANKER))
    session.close()
    with path.open("ab") as f:
        f.write(b"1,2,,,,,,,,,P")  # no newline: the write a power cut stopped
    resumed = LiveSession(Journal.resume(path))
    assert [len(s.coups) for s in resumed.shoes] == [1]
    assert "cut short" in resumed.journal.notes[0]
    resumed.apply(Coup(PLAYER))
    resumed.close()
    text = path.read_text()
    assert "# cut short, kept as it was: 1,2,,,,,,,,,P\n" in text
    assert import_files([path]).outcome.tolist() == [BANKER, PLAYER]


def test_resume_refuses_other_rules(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    new_session(path, TableRules(decks=6)).close()
    with pytest.raises(JournalError, match="other rules"):
        Journal.resume(path, TableRules(decks=8))
    session = LiveSession(Journal.resume(path))
    assert session.rules.decks == 6
    session.close()


def test_cards_a_shoe_no_longer_holds_are_refused(tmp_path: Path) -> None:
    session = new_session(tmp_path / "one-deck.csv", TableRules(decks=1))
    session.apply(parse_line("9s 3h kd 5c"))  # type: ignore[arg-type]
    with pytest.raises(EntryError, match="9S: a 1-deck shoe holds 1, and 2 would be seen"):
        session.apply(parse_line("9s 2h kh 4c"))  # type: ignore[arg-type]
    assert len(session.shoe.coups) == 1  # nothing recorded
    session.close()


# ----------------------------------------------------------------------------- cards and EV


def test_cards_left_and_ev_come_from_the_odds_engine(tmp_path: Path) -> None:
    from baccarat.odds import expected_values

    rules = TableRules(decks=2, variant="ez")
    session = new_session(tmp_path / "ez.csv", rules)
    for line in ("burn 7h", "9s 3h kd 5c", "as 2h 3c 4d 5s"):
        session.apply(parse_line(line))  # type: ignore[arg-type]
    left = session.cards_left()
    assert left is not None and left.ev is not None
    # two decks by rank (A..K), less the burn 7 and the nine cards of the coups
    counts = np.full(13, 8)
    for rank in (7, 9, 13, 3, 5, 1, 3, 5, 2, 4):
        counts[rank - 1] -= 1
    exact = expected_values(counts, rules)
    assert left.ev == {kind: exact[kind] for kind in
                       ("banker", "player", "tie", "player_pair", "banker_pair", "dragon7",
                        "panda8")}
    assert left.by_value.tolist() == [32 - 1, 7, 7, 6, 7, 6, 8, 7, 8, 7]
    session.apply(Coup(BANKER))  # a coup without its cards: what is left is unknown
    assert session.cards_left() is None
    session.close()


def test_a_positive_bet_is_highlighted() -> None:
    left = CardsLeft(np.array([40, 4, 4, 4, 4, 4, 4, 4, 4, 4]),
                     {"banker": -0.01, "player": 0.0123, "tie": -0.2})
    view = View(shoe=1, rules_label="", tallies=None, roads=all_roads([]),  # type: ignore[arg-type]
                burn=None, cards=left, cards_known=True)
    line = cards_section(view, 80)[1]
    assert line.plain == "EV   B -1.000% P +1.230% T -20.000%"
    styled = {line.plain[span.start:span.end]: str(span.style) for span in line.spans}
    assert "on green" in styled["+1.230%"]
    assert "on green" not in styled.get("-1.000%", "")


def test_every_bet_of_an_ez_table_fits_80_columns_whole() -> None:
    """EZ offers seven bets: at three decimals their EVs take 82 columns (P8's was cut to
    ``-10.16`` at 80); two decimals fit, rounded, nothing cut. Narrower, the line wraps."""
    evs = {"banker": -0.010250, "player": -0.012330, "tie": -0.143160,
           "player_pair": -0.103680, "banker_pair": -0.103680, "dragon7": -0.074210,
           "panda8": -0.101640}
    view = View(shoe=1, rules_label="", tallies=None, roads=all_roads([]),  # type: ignore[arg-type]
                burn=None, cards=CardsLeft(np.full(10, 30), evs), cards_known=True)
    at_80 = cards_section(view, 80)
    assert [line.plain for line in at_80[1:]] == [
        "EV   B -1.03% P -1.23% T -14.32% PP -10.37% BP -10.37% D7 -7.42% P8 -10.16%"]
    at_100 = cards_section(view, 100)
    assert at_100[1].plain.endswith("D7 -7.421% P8 -10.164%")
    at_50 = [line.plain.rstrip() for line in cards_section(view, 50)]
    assert all(len(line) <= 50 for line in at_50) and len(at_50) == 4
    assert " ".join(at_50).split() == (
        "Left 0:30 A:30 2:30 3:30 4:30 5:30 6:30 7:30 8:30 9:30 (300) "
        "EV B -1.0% P -1.2% T -14.3% PP -10.4% BP -10.4% D7 -7.4% P8 -10.2%").split()


# ----------------------------------------------------------------------------- systems


def test_systems_stake_and_bankroll_through_the_replay(tmp_path: Path) -> None:
    session = new_session(tmp_path / "table.csv")
    card = Scorecard(session, make_systems(["flat", "martingale:max_doublings=6",
                                            "always:side=player | flat | stop:win=15"]))
    assert [s.stake_text() for s in card.view().systems] == ["B 10", "B 10", "P 10"]
    for line in ("p", "p", "t", "b", "p", "p", "p"):
        card.handle(line)
    flat, martingale, player = card.view().systems
    # flat Banker: five Player wins cost 10 each, the Banker win paid 9.50, the tie pushed
    assert flat.bankroll == 1000 - 50 + 9.5 and flat.stake_text() == "B 10"
    # Martingale: lost 10, 20, pushed 40, won 40 (+38), lost 10, 20, 40: next 80
    assert martingale.bankroll == 1000 - 10 - 20 + 38 - 10 - 20 - 40
    assert martingale.stake_text() == "B 80"
    # Player with a win goal of 15: +10, +10 (= +20 >= 15): stopped after coup 2
    assert player.bankroll == 1020 and player.stake_text() == "stopped: win_goal"
    card.handle("n")  # a new shoe goes on with the same session
    assert card.view().systems[1].stake_text() == "B 80"
    card.close()


def test_a_system_the_table_cannot_play_says_why_beside_the_others(tmp_path: Path) -> None:
    card = Scorecard(new_session(tmp_path / "t.csv"),
                     make_systems(["flat", "counter:bet=tie"]))
    card.handle("b")
    flat, counter = card.view().systems
    assert not isinstance(flat, str) and flat.stake_text() == "B 10"
    assert isinstance(counter, str) and "counts the cards; enter every coup" in counter
    card.close()


def test_a_long_spec_is_shown_whole(tmp_path: Path) -> None:
    spec = "streak:n=4 | dalembert | stop:win=50.0,loss=200.0,per=shoe"
    card = Scorecard(new_session(tmp_path / "t.csv"), make_systems(["flat", spec]))
    card.handle("b")
    text = plain_screen(card.view(), 80)
    assert spec in text.splitlines()
    assert "  next no bet" in text and all(len(line) <= 80 for line in text.splitlines())
    card.close()


# ----------------------------------------------------------------------------- --plain


def test_plain_is_driven_through_stdin(tmp_path: Path) -> None:
    out = tmp_path / "table.csv"
    lines = "\n".join(["b", "p", "zz", "9s 3h kd 5c", "b pp", "u", "quit", "p"]) + "\n"
    result = runner.invoke(app, ["live", "--plain", "--out", str(out), "-s", "flat"],
                           input=lines, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    screens = result.output.split("\nShoe ")
    assert "'zz' is neither an outcome" in result.output
    assert "undone: shoe 1, coup 4 (Banker, Player pair)" in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines()[:-1])  # the screens
    last = screens[-1].splitlines()
    assert last[0].startswith("1  coup 3  B 1 P 2 T 0  pairs P 0 B 0")
    assert "flat" in screens[-1] and "next B 10" in screens[-1]
    assert result.output.rstrip().endswith(
        f"kept 3 coups of 1 shoe in {out} (continue with --resume {out}; baccarat import "
        f"reads it)")
    # the 'p' after quit is never read
    assert import_files([out]).outcome.tolist() == [BANKER, PLAYER, PLAYER]


def test_plain_screen_shows_roads_and_asks_as_words() -> None:
    # shoe BBPBP: the hand-drawn asks of tests/game/test_roads_ask.py
    from baccarat.live.session import Tallies
    from baccarat.roads import outcomes_from_labels

    roads = all_roads(outcomes_from_labels("BBPBP"))
    view = View(shoe=1, rules_label="8 decks", tallies=Tallies(5, 3, 2, 0, 0, 0), roads=roads,
                burn=None, cards=None, cards_known=False)
    text = plain_screen(view, 80)
    assert "Big eye boy B red P blue" in text
    assert "Small road B red P blue" in text
    assert "Cockroach B blue P red" in text  # the longest name that fits 25 columns
    lines = text.splitlines()
    # the bead plate's one column (B B P B P down) beside the big road (BB | P | B | P)
    assert [line[:1] for line in lines[2:8]] == ["B", "B", "P", "B", "P", ""]
    assert lines[2][26:] == "B P B P" and lines[3][26:] == "B"


def test_live_refuses_bad_flags_in_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["live", "--plain", "--out", str(tmp_path / "a.csv"),
                                 "--resume", str(tmp_path / "b.csv")])
    assert result.exit_code == 2
    assert "error: --resume" in result.output and "give one of them" in result.output
    result = runner.invoke(app, ["live", "--plain", "--resume", str(tmp_path / "none.csv")])
    assert result.exit_code == 2 and "no scorecard at" in result.output
    result = runner.invoke(app, ["live", "--plain", "--out", str(tmp_path / "c.csv"),
                                 "-s", "nosuchsystem"], input="quit\n")
    assert result.exit_code == 2 and "error:" in result.output
    assert not (tmp_path / "c.csv").exists()


def test_without_out_each_session_gets_a_file_of_its_own(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import datetime

    from baccarat.cli.live import default_out

    monkeypatch.chdir(tmp_path)
    # a user's file under the name the minute gives: the next free name, the file untouched
    start = datetime(2026, 12, 5, 4, 25, 59)
    (tmp_path / "live-2026-12-05-0425.csv").write_text("my own notes\n")
    assert default_out(start, tmp_path) == tmp_path / "live-2026-12-05-0425-2.csv"
    (tmp_path / "live-2026-12-05-0425-2.csv").mkdir()  # a folder takes a name too
    assert default_out(start, tmp_path) == tmp_path / "live-2026-12-05-0425-3.csv"
    for f in tmp_path.iterdir():
        if f.is_dir():
            f.rmdir()
        else:
            f.unlink()
    # two sessions in a row without --out: two files, the first as it was left
    first = runner.invoke(app, ["live", "--plain", "-s", "flat"], input="b\np\n")
    assert first.exit_code == 0, first.output
    (written,) = tmp_path.glob("live-*.csv")
    kept = written.read_bytes()
    second = runner.invoke(app, ["live", "--plain"], input="t\n")
    assert second.exit_code == 0, second.output
    files = sorted(tmp_path.glob("live-*.csv"))
    assert len(files) == 2 and written.read_bytes() == kept
    assert [import_files([f]).outcome.tolist() for f in (written, *set(files) - {written})] == [
        [BANKER, PLAYER], [TIE]]
    assert f"in {written.name} (continue with --resume {written.name};" in first.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [f.name for f in files]  # no lock left


def test_the_folders_above_the_file_are_made(tmp_path: Path) -> None:
    out = tmp_path / "tables" / "monday" / "table.csv"
    result = runner.invoke(app, ["live", "--plain", "--out", str(out)], input="b\n")
    assert result.exit_code == 0, result.output
    assert import_files([out]).outcome.tolist() == [BANKER]
    assert sorted(p.name for p in out.parent.iterdir()) == ["table.csv"]


@pytest.mark.parametrize(("row", "message"), [
    ("1,2,ZZ,KD,,3H,5C,,9,8,P,,", "line 5: unknown card 'ZZ'"),
    ("1,2,9S,KD,,3H,5C,,9,8,Player,,", "line 5: outcome 'Player' is not B, P or T"),
    ("1,2,9S,KD,,3H,5C,,9,8,B,,", "line 5: the cards make Player 9-8 (9S KD | 3H 5C), but "
                                  "the row says B"),
    ("one,2,,,,,,,,,B,,", "line 5: shoe and coup must be whole numbers, got 'one', '2'"),
])
def test_resume_names_what_is_wrong_in_a_row(tmp_path: Path, row: str, message: str) -> None:
    """A row edited by hand says what is wrong with it (a bad card or outcome was reported
    as 'shoe and coup must be whole numbers')."""
    path = tmp_path / "table.csv"
    session = new_session(path)
    session.apply(Coup(BANKER))
    session.close()
    with path.open("a") as handle:
        handle.write(row + "\n")
    with pytest.raises(JournalError) as refused:
        Journal.resume(path)
    assert str(refused.value).startswith(f"{path}, {message}")


def test_the_side_bets_edge_for_the_cards_left_is_shown(tmp_path: Path) -> None:
    """With the cards entered, the session prices every side bet from the cards left; on
    a full 8-deck shoe they are the published house edges (Dragon Bonus Player 2.65%,
    Banker 9.37%; Big 4.35%, Small 5.28%), and the screen names the best of them."""
    session = new_session(tmp_path / "full.csv", TableRules())
    left = session.cards_left()
    assert left is not None and left.side_ev is not None
    for bet, edge in (("dragon_bonus_player", 0.0265), ("dragon_bonus_banker", 0.0937),
                      ("big", 0.0435), ("small", 0.0528)):
        assert left.side_ev[bet] == pytest.approx(-edge, abs=5e-5), bet
    assert "perfect_pair" not in left.side_ev  # the suits are not counted
    view = View(shoe=1, rules_label="", tallies=None, roads=all_roads([]),  # type: ignore[arg-type]
                burn=None, cards=left, cards_known=True)
    lines = [line.plain for line in cards_section(view, 80)]
    assert lines[-1] == "Side none above 0; best dragon_bonus_player -2.65%"
    ahead = CardsLeft(left.by_value, left.ev, {**left.side_ev, "big": 0.0123})
    view.cards = ahead
    side = cards_section(view, 80)[-1]
    assert side.plain == "Side big +1.23%"
    assert any("on green" in str(span.style) for span in side.spans)
    session.close()


def test_the_systems_play_under_the_session_rules_backtest_takes(tmp_path: Path) -> None:
    """live takes the session rules as backtest does: Martingale from 500 with a stop loss
    of 25 over B P P P stakes 10 (+9.5), 10 (-10), 20 (-20), then stops: -20.5 is not
    yet -25, the third loss makes it -60.5."""
    runner = CliRunner()
    out = tmp_path / "s.csv"
    result = runner.invoke(app, ["live", "--plain", "--out", str(out), "-s", "martingale",
                                 "--bankroll", "500", "--stop-loss", "25"],
                           input="b\np\np\np\nquit\n")
    assert result.exit_code == 0, result.output
    assert "martingale  next stopped: stop_loss bankroll 439.50 (-60.50)" in result.output
    refused = runner.invoke(app, ["live", "--plain", "--out", str(tmp_path / "t.csv"),
                                  "-s", "flat", "--bankroll", "5"], input="quit\n")
    assert refused.exit_code == 2
    assert "--bankroll must be at least the table minimum 10" in refused.output
    assert not (tmp_path / "t.csv").exists()  # refused before the scorecard was made
