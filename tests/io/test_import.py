"""Recorded-shoe import: every format round-trips dealt shoes; every check and error fires.

Expected values come from dealing (``generate_coups``, the reference), from hand-written
files whose outcomes and totals are worked out by hand, and from the printed drawing rules
(docs/architecture.md, "The game"), never from the importer itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from baccarat.cards import NO_CARD, VALUE_OF_CODE, parse_card
from baccarat.coups import BANKER, PLAYER, TIE, Coups
from baccarat.deal import generate_coups
from baccarat.io.importers import (
    FORMATS,
    ImportDataError,
    InvalidCoupError,
    UnknownFormatError,
    detect_format,
    import_files,
    writers,
)
from baccarat.io.parquet import write_coups
from baccarat.rules import TableRules
from baccarat.shoe import shuffled_shoes

DATA = Path(__file__).resolve().parents[2] / "data"
OUTCOME = {"B": BANKER, "P": PLAYER, "T": TIE}


def rules(**values: object) -> TableRules:
    return TableRules.model_validate(values)


@pytest.fixture(scope="module")
def dealt() -> Coups:
    """Three real 8-deck shoes, labelled like a recorder would."""
    coups = generate_coups(rules(), 31, np.arange(3))
    coups.label = np.array([f"T1-shoe{s}" for s in coups.shoe], dtype=object)
    return coups


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_same_coups(got: Coups, want: Coups, cards: bool = True) -> None:
    np.testing.assert_array_equal(got.shoe, want.shoe)
    np.testing.assert_array_equal(got.coup, want.coup)
    np.testing.assert_array_equal(got.outcome, want.outcome)
    if cards:
        np.testing.assert_array_equal(got.cards, want.cards)
        np.testing.assert_array_equal(got.player_total, want.player_total)
        np.testing.assert_array_equal(got.banker_total, want.banker_total)
    else:
        assert (got.cards == NO_CARD).all()
        assert (got.player_total == -1).all() and (got.banker_total == -1).all()
    assert got.valid is not None and got.valid.all()


def outcomes(letters: str) -> list[int]:
    return [OUTCOME[c] for c in letters]


# ------------------------------------------------------------------ round trips

CARD_WRITERS = {
    "cards-blank": ("csv", lambda c, p: writers.write_csv(c, p, "cards")),
    "cards-NA": ("csv", lambda c, p: writers.write_csv(c, p, "cards", missing="NA")),
    "cards-tab-no-totals": ("csv", lambda c, p: writers.write_csv(
        c, p, "cards", delimiter="\t", totals=False, coup=True)),
    "hands": ("csv", lambda c, p: writers.write_csv(c, p, "hands")),
    "hands-no-winner": ("csv", lambda c, p: writers.write_csv(
        c, p, "hands", totals=False, winner=False, hand_separator=" ")),
    "json-nested": ("json", lambda c, p: writers.write_json(c, p)),
    "json-flat": ("json", lambda c, p: writers.write_json(c, p, nested=False, totals=False)),
    "parquet-cards": ("parquet", lambda c, p: writers.write_parquet(c, p, "cards")),
    "parquet-hands": ("parquet", lambda c, p: writers.write_parquet(c, p, "hands")),
}


@pytest.mark.parametrize("kind", list(CARD_WRITERS))
def test_card_level_formats_round_trip(kind: str, dealt: Coups, tmp_path: Path) -> None:
    fmt, write_it = CARD_WRITERS[kind]
    path = write_it(dealt, tmp_path / f"recorded.{fmt if fmt != 'csv' else 'txt'}")
    assert detect_format(path) == fmt
    got = import_files([path])
    assert_same_coups(got, dealt)
    assert list(got.label) == list(dealt.label)
    assert (got.burn_shown == NO_CARD).all()
    assert got.decks == 8


def test_own_coups_file_reads_back(dealt: Coups, tmp_path: Path) -> None:
    path = tmp_path / "coups.parquet"
    write_coups(dealt, path, rules())
    assert detect_format(path) == "parquet"
    got = import_files([path])
    assert_same_coups(got, dealt)
    assert list(got.label) == list(dealt.label)


OUTCOME_WRITERS = {
    "scorecard-string": lambda c, p: writers.write_scorecard(c, p),
    "scorecard-letters": lambda c, p: writers.write_scorecard(c, p, style="letters"),
    "scorecard-words": lambda c, p: writers.write_scorecard(c, p, style="words"),
    "csv-letters": lambda c, p: writers.write_csv(c, p, "outcomes"),
    "csv-words": lambda c, p: writers.write_csv(c, p, "outcomes", words=True, coup=True),
    "parquet-words": lambda c, p: writers.write_parquet(c, p, "outcomes", words=True),
}


@pytest.mark.parametrize("kind", list(OUTCOME_WRITERS))
def test_outcome_formats_round_trip(kind: str, dealt: Coups, tmp_path: Path) -> None:
    path = OUTCOME_WRITERS[kind](dealt, tmp_path / "outcomes.dat")
    got = import_files([path])
    assert_same_coups(got, dealt, cards=False)
    assert list(got.label) == list(dealt.label)


def test_sequences_round_trip_in_every_container(dealt: Coups, tmp_path: Path) -> None:
    sequences = writers.dealing_order(dealt)
    labels = ["T1-shoe0", "T1-shoe1", "T1-shoe2"]
    text = writers.write_sequences(sequences, tmp_path / "shoes.txt", labels)
    long_rows = pd.DataFrame({
        "shoe": np.repeat(labels, [s.size for s in sequences]),
        "card": writers.card_text(np.concatenate(sequences)),
    })
    long_rows.to_csv(tmp_path / "long.csv", index=False)
    pd.DataFrame({"label": labels, "cards": [" ".join(writers.card_text(s)) for s in sequences]}
                 ).to_parquet(tmp_path / "whole.parquet")
    (tmp_path / "shoes.json").write_text(json.dumps(
        [{"shoe": lab, "cards": list(writers.card_text(s))}
         for lab, s in zip(labels, sequences, strict=True)]
    ))
    for path in (text, tmp_path / "long.csv", tmp_path / "whole.parquet",
                 tmp_path / "shoes.json"):
        got = import_files([path])
        assert_same_coups(got, dealt)
        assert list(got.label) == list(dealt.label)
    assert detect_format(text) == "sequence"


def physical_record(table: TableRules, seed: int, shoes: int) -> tuple[Coups, list[np.ndarray]]:
    """Generated coups and each shoe's cards as a recorder saw them: the burn (if any) and
    every card dealt, up to the end of the last coup."""
    reference = generate_coups(table, seed, np.arange(shoes))
    shuffled = shuffled_shoes(table.decks, seed, np.arange(shoes))
    sequences = []
    for s in range(shoes):
        burned = 0
        if table.burn == "standard":  # the printed burn rule: show one, burn that many more
            first = int(VALUE_OF_CODE[shuffled[s, 0]])
            burned = 1 + (10 if first == 0 else first)
        used = int((reference.cards[reference.shoe == s] >= 0).sum())
        sequences.append(shuffled[s, : burned + used])
    return reference, sequences


def test_sequence_with_the_burn_deals_like_the_generator(tmp_path: Path) -> None:
    """Dealt with an explicit standard burn, the physical record gives exactly the
    generator's coups, burn card shown included."""
    table = rules(burn="standard")
    reference, sequences = physical_record(table, 5, 2)
    path = writers.write_sequences(sequences, tmp_path / "physical.txt", ["a", "b"])
    got = import_files([path], rules=table)
    np.testing.assert_array_equal(got.cards, reference.cards)
    np.testing.assert_array_equal(got.outcome, reference.outcome)
    np.testing.assert_array_equal(got.burn_shown, reference.burn_shown)
    assert (got.burn_shown != NO_CARD).all()


def test_whole_shoe_with_burn_and_cut_card(tmp_path: Path) -> None:
    """A whole shuffled shoe, every card, dealt with an explicit burn and cut card, stops
    where the generator stops."""
    table = rules(burn="standard", cut_card=14, extra_coup_after_cut=True)
    reference = generate_coups(table, 8, np.arange(2))
    whole = list(shuffled_shoes(8, 8, np.arange(2)))
    path = writers.write_sequences(whole, tmp_path / "whole.txt", ["a", "b"])
    got = import_files([path], rules=table)
    assert_same_coups(got, reference)
    with pytest.raises(ImportDataError, match="ends in the middle of coup"):
        import_files([path], rules=rules(burn="standard"))  # no cut card: all 416 dealt
    # (the 416 cards of a whole shoe almost never make whole coups; these two do not)


def test_sequence_has_no_burn_by_default(tmp_path: Path) -> None:
    reference, sequences = physical_record(rules(burn="none"), 6, 2)
    path = writers.write_sequences(sequences, tmp_path / "plain.txt", ["a", "b"])
    got = import_files([path])  # the default rules say burn = standard: not for sequences
    assert_same_coups(got, reference)
    assert got.cards[0, 0] == sequences[0][0]
    assert (got.burn_shown == NO_CARD).all()


# ------------------------------------------------------------------ hand-written files

def test_scorecard_spellings_and_labels(tmp_path: Path) -> None:
    path = write(tmp_path, "card.txt", "\n".join([
        "# recorded at table 3",
        "shoe-1: BPPTB",
        "",
        "S2,b,p,t",
        "2024-05-01 14:30 table 3: Banker, player, TIE, banker",
        "S4 BP BT",
        "ppbb",
    ]) + "\n")
    assert detect_format(path) == "scorecard"
    got = import_files([path])
    assert list(got.outcome) == outcomes("BPPTB" "BPT" "BPTB" "BPBT" "PPBB")
    assert list(got.shoe) == [0] * 5 + [1] * 3 + [2] * 4 + [3] * 4 + [4] * 4
    assert list(got.coup[:6]) == [1, 2, 3, 4, 5, 1]
    labels = [got.label[got.shoe == s][0] for s in range(5)]
    assert labels == ["shoe-1", "S2", "2024-05-01 14:30 table 3", "S4", "card.txt:7"]
    assert (got.cards == NO_CARD).all() and (got.player_total == -1).all()


def test_outcome_per_line_words_any_case(tmp_path: Path) -> None:
    path = write(tmp_path, "o.csv", "Shoe;Coup;Result\nA;1;Banker\nA;2;PLAYER\nA;3;tie\n"
                                    "B;1;player\nB;2;b\n")
    got = import_files([path])
    assert list(got.outcome) == outcomes("BPTPB")
    assert list(got.shoe) == [0, 0, 0, 1, 1] and list(got.label) == list("AAABB")


def test_outcomes_without_shoe_column_split_on_coup_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, "o.csv", "hand,winner\n1,B\n2,P\n1,T\n2,T\n3,B\n")
    got = import_files([path])
    assert list(got.shoe) == [0, 0, 1, 1, 1]
    assert list(got.label) == ["o.csv:2"] * 2 + ["o.csv:4"] * 3


def test_one_file_without_shoe_column_is_one_shoe(tmp_path: Path) -> None:
    path = write(tmp_path, "o.csv", "winner\nB\nP\nT\n")
    got = import_files([path])
    assert list(got.shoe) == [0, 0, 0] and list(got.coup) == [1, 2, 3]


def test_card_spellings_and_worked_totals(tmp_path: Path) -> None:
    # P: As 10h (1) draws 9♥ -> 0; B: k 0 (0) draws after a 9: draws T -> 0: tie
    # P: Th 6 (6) stands; B: 1 4 (5) draws 2C when player stands -> 7: banker wins
    path = write(tmp_path, "c.csv", "p1,p2,p3,b1,b2,b3\nAs,10h,9♥,k,0,T\nTh,6,,1,4,2C\n")
    got = import_files([path])
    assert list(got.player_total) == [0, 6] and list(got.banker_total) == [0, 7]
    assert list(got.outcome) == [TIE, BANKER]
    want = [parse_card(t) for t in ("AS", "10H", "9H", "K", "0", "10")]
    assert list(got.cards[0]) == want


def test_mixed_outcome_only_and_card_rows(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", "player,banker,winner\n9-K,A-7,P\n,,B\nNA,NA,t\n")
    got = import_files([path])
    assert list(got.outcome) == [PLAYER, BANKER, TIE]
    assert got.cards[1].tolist() == [NO_CARD] * 6 and got.player_total[1] == -1
    assert got.player_total[0] == 9 and got.banker_total[0] == 8


def test_shoe_ids_run_across_files_in_order(tmp_path: Path) -> None:
    a = write(tmp_path, "a.txt", "BPB\nPP\n")
    b = write(tmp_path, "b.csv", "shoe,winner\nX,T\nY,B\nY,B\n")
    got = import_files([a, b])
    assert list(got.shoe) == [0, 0, 0, 1, 1, 2, 3, 3]
    assert list(got.shoe_ids()) == [0, 1, 2, 3]
    assert [got.label[got.shoe == s][0] for s in range(4)] == ["a.txt:1", "a.txt:2", "X", "Y"]


def test_json_nested_objects_and_json_lines(tmp_path: Path) -> None:
    nested = write(tmp_path, "n.json", json.dumps({"shoes": [
        {"label": "S1", "coups": [{"player": {"cards": ["9", "K"], "total": 9},
                                   "banker": {"cards": ["A", "7"], "total": 8}}]},
        {"coups": [{"winner": "Tie"}, {"winner": "banker"}]},
    ]}, indent=2))
    got = import_files([nested])
    assert list(got.shoe) == [0, 1, 1]
    assert list(got.outcome) == [PLAYER, TIE, BANKER]
    assert got.label[0] == "S1" and got.label[1].startswith("n.json:")
    lines = write(tmp_path, "l.jsonl", '{"shoe": 1, "winner": "P"}\n{"shoe": 1, "winner": "T"}\n')
    assert list(import_files([lines]).outcome) == [PLAYER, TIE]


def test_parquet_with_card_lists_and_float_totals(tmp_path: Path) -> None:
    path = tmp_path / "lists.parquet"
    pd.DataFrame({
        "Shoe": ["a", "a", "b"],
        "player": [["9", "K"], ["A", "5"], None],
        "banker": [["A", "7"], ["K", "4", "2"], None],
        "player_total": [9.0, np.nan, np.nan],   # pandas stores a column with gaps as float
        "Winner": ["P", None, "banker"],
    }).to_parquet(path)
    got = import_files([path])
    assert list(got.outcome) == [PLAYER, TIE, BANKER]  # A-5 (6) v K-4-2 (6): a tie
    assert list(got.player_total) == [9, 6, -1] and list(got.banker_total) == [8, 6, -1]
    assert list(got.shoe) == [0, 0, 1]
    scalar = write(tmp_path, "s.json", "5\n")
    with pytest.raises(ImportDataError, match="expected an object"):
        import_files([scalar])


# ------------------------------------------------------------------ the drawing rules

# (player hand, banker hand, valid by the printed rules?)
DRAWING_CASES = [
    ("A-5", "K-4", False),      # player stands on 6; banker 4 must draw when player stands
    ("A-5", "K-4-2", True),
    ("2-3", "K-7", False),      # player must draw on 5
    ("2-3-8", "2-A", True),     # banker 3 stands when player's third card is 8
    ("2-3-8", "2-A-5", False),
    ("K-Q-6", "3-3-K", True),   # banker 6 draws on a third card of 6
    ("K-Q-6", "3-3", False),
    ("9-K", "3-2-5", False),    # a natural ends the coup
    ("9-K", "3-2", True),
    ("6-K", "7-K", True),       # both stand
    ("6-K-2", "7-K", False),    # player stands on 6
    ("A-2-7", "5-K-4", True),   # banker 5 draws on 7
    ("2-2-A", "2-2", True),     # banker 4 stands on an ace
    ("2-2-A", "2-2-5", False),
    ("K-Q-2", "4-3-A", False),  # banker 7 never draws
    ("K-Q-2", "4-3", True),
]


@pytest.mark.parametrize(("player", "banker", "valid"), DRAWING_CASES)
def test_drawing_rules_are_checked(player: str, banker: str, valid: bool,
                                   tmp_path: Path) -> None:
    path = write(tmp_path, "d.csv", f"player,banker\n{player},{banker}\n")
    if valid:
        assert import_files([path]).valid.all()
    else:
        with pytest.raises(InvalidCoupError, match=r"d\.csv:2: shoe d\.csv:2, coup 1: "):
            import_files([path])


def test_drawing_violation_names_file_line_coup_and_how_many_more(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", "\n".join([
        "shoe,player,banker,winner",
        "S1,9-K,3-2,P",      # fine
        "S1,A-5,K-4,P",      # banker should have drawn
        "S1,2-3-8,2-A,T",    # fine (3 vs 3)
        "S1,6-K-2,7-K,B",    # player drew on 6
        "S2,2-2-A,2-2-5,P",  # banker drew on 4 after an ace
    ]) + "\n")
    with pytest.raises(InvalidCoupError) as err:
        import_files([path])
    lines = str(err.value).splitlines()
    assert lines[0].startswith("3 problems in the recorded coups; pass --keep-invalid")
    assert lines[1:] == [
        f"  {path}:3: shoe S1, coup 2: banker draws on 4 when player stands, but stood "
        f"(player A-5, banker K-4)",
        f"  {path}:5: shoe S1, coup 4: player stands on 6 but drew a third card (player "
        f"6-K-2, banker 7-K)",
        f"  {path}:6: shoe S2, coup 1: banker stands on 4 after player's third card A "
        f"(value 1), but drew a third card (player 2-2-A, banker 2-2-5)",
    ]


def test_natural_and_player_messages(tmp_path: Path) -> None:
    path = write(tmp_path, "n.csv", "player,banker\n9-K,3-2-5\n")
    with pytest.raises(InvalidCoupError, match="natural 9 ends the coup, but banker drew"):
        import_files([path])
    path = write(tmp_path, "p.csv", "player,banker\n2-3,K-7\n")
    with pytest.raises(InvalidCoupError, match="player draws on 5 but stood"):
        import_files([path])


def test_recorded_total_must_match_cards(tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", "player,banker,player_total,banker_total,winner\n"
                                    "9-K,A-7,9,8,P\n6-K,7-K,6,6,B\n")
    with pytest.raises(InvalidCoupError, match=r"t\.csv:3: shoe t\.csv:2, coup 2: recorded "
                                               r"banker total 6 but the banker cards 7-K make 7"):
        import_files([path])


def test_recorded_winner_must_match_cards_and_totals(tmp_path: Path) -> None:
    path = write(tmp_path, "w.csv", "player,banker,winner\n6-K,7-K,P\n")
    with pytest.raises(InvalidCoupError, match="recorded winner Player but the cards make "
                                               "player 6, banker 7: Banker"):
        import_files([path])
    path = write(tmp_path, "w2.csv", "player_total,banker_total,winner\n3,5,Tie\n")
    with pytest.raises(InvalidCoupError, match="recorded totals make player 3, banker 5"):
        import_files([path])


def test_keep_invalid_flags_and_keeps_recorded_winner(tmp_path: Path) -> None:
    path = write(tmp_path, "k.csv", "player,banker,player_total,banker_total,winner\n"
                                    "A-5,K-4,6,4,B\n9-K,A-7,9,8,P\n6-K,7-K,6,7,P\n")
    got = import_files([path], keep_invalid=True)
    assert list(got.valid) == [False, True, False]
    assert list(got.outcome) == [BANKER, PLAYER, PLAYER]  # as recorded, not as the cards say
    assert list(got.player_total) == [6, 9, 6] and list(got.banker_total) == [4, 8, 7]


# ------------------------------------------------------------------ cards per rank

NATURALS = ["4-5,A-7", "3-6,A-6", "2-7,A-5", "Q-8,A-3", "J-9,A-2"]  # five aces, all else once


def test_too_many_of_a_rank(tmp_path: Path) -> None:
    path = write(tmp_path, "r.csv", "player,banker,winner\n"
                 + "".join(f"{c},P\n" for c in NATURALS))
    assert import_files([path], rules=rules(decks=2)).valid.all()
    with pytest.raises(InvalidCoupError, match=r"r\.csv:6: shoe r\.csv:2, coup 5: too many "
                                               r"cards of rank A: 5 in the shoe, where 1 deck "
                                               r"holds 4"):
        import_files([path], rules=rules(decks=1))
    kept = import_files([path], rules=rules(decks=1), keep_invalid=True)
    assert list(kept.valid) == [True, True, True, True, False]


def test_too_many_copies_of_one_suited_card(tmp_path: Path) -> None:
    rows = "".join("9-K,AS-7,P\n" if i % 2 == 0 else "9-Q,AS-7,P\n" for i in range(9))
    path = write(tmp_path, "s.csv", "player,banker,winner\n" + rows)
    with pytest.raises(InvalidCoupError, match=r"coup 9: too many copies of AS: 9 in the shoe, "
                                               r"where 8 decks hold 8"):
        import_files([path])


def test_sequence_with_too_many_of_a_rank(tmp_path: Path) -> None:
    # 1 deck, dealt P B P B: two ties of naturals (9-9 v A-7) and 9-K v A-7: five 9s,
    # the fifth is card 9
    path = write(tmp_path, "q.txt", "S: 9 A 9 7 9 A 9 7 9 A K 7\n")
    with pytest.raises(InvalidCoupError, match=r"q\.txt:1: shoe S, card 9: too many cards of "
                                               r"rank 9: 5 in the shoe"):
        import_files([path], format="sequence", rules=rules(decks=1))
    kept = import_files([path], format="sequence", rules=rules(decks=1), keep_invalid=True)
    assert not kept.valid.any() and len(kept) == 3


# ------------------------------------------------------------------ other errors

def test_unknown_card_names_text_and_place(tmp_path: Path) -> None:
    path = write(tmp_path, "u.csv", "p1,p2,b1,b2\n9,K,A,7\n4,1Z,A,7\n")
    with pytest.raises(ImportDataError, match=r"unknown card '1Z' at .*u\.csv:3"):
        import_files([path])
    hands = write(tmp_path, "h.csv", "player,banker\n9-K,A-7\n9-K,A-X7\n")
    with pytest.raises(ImportDataError, match=r"unknown card 'X7' at .*h\.csv:3"):
        import_files([hands])
    seq = write(tmp_path, "s.txt", "S1: 9 K A 7\nS2: 9 K A 11\n")
    with pytest.raises(ImportDataError, match=r"unknown card '11' at .*s\.txt:2"):
        import_files([seq], format="sequence")
    js = write(tmp_path, "j.json", '[\n {"player": "9-K", "banker": "A-7"},\n'
                                   ' {"player": "9-K", "banker": "A-Z"}\n]\n')
    with pytest.raises(ImportDataError, match=r"unknown card 'Z' at .*j\.json:3"):
        import_files([js])
    pq_path = tmp_path / "p.parquet"
    pd.DataFrame({"player": ["9-K", "9-K"], "banker": ["A-7", "A-?"]}).to_parquet(pq_path)
    with pytest.raises(ImportDataError, match=r"unknown card '\?' at .*p\.parquet row 2"):
        import_files([pq_path])


def test_unknown_outcome_and_bad_total(tmp_path: Path) -> None:
    path = write(tmp_path, "o.csv", "winner\nB\nDragon\n")
    with pytest.raises(ImportDataError, match=r"o\.csv:3: unknown outcome 'Dragon'"):
        import_files([path])
    path = write(tmp_path, "sc.txt", "S1: BPPXB\n")
    with pytest.raises(ImportDataError, match=r"sc\.txt:1: 'BPPXB'"):
        import_files([path], format="scorecard")
    path = write(tmp_path, "t.csv", "player_total,banker_total,winner\n3,12,B\n")
    with pytest.raises(ImportDataError, match=r"t\.csv:2: banker total '12'"):
        import_files([path])


def test_sequence_ending_mid_coup_names_the_shoe(tmp_path: Path) -> None:
    # P A,5 (6) stands; B K,4 (4) must draw: the fifth card is missing
    path = write(tmp_path, "m.txt", "good: 9 A K 7\nshort: A K 5 4\n")
    with pytest.raises(ImportDataError, match=r"m\.txt:2: shoe short: the sequence of 4 cards "
                                              r"ends in the middle of coup 1"):
        import_files([path], format="sequence")


def test_detection_of_headers_and_lines(tmp_path: Path) -> None:
    cases = {
        "date,table,dealer,winner\n2024-05-01,3,Ann,B\n": "csv",
        "player,banker\n9-K,A-7\n": "csv",          # 'player' is a word and a column
        "Banker,Player\nPlayer,Tie\n": "scorecard",  # every line is outcomes
        "S1,B,P,P\nS2,P,P\n": "scorecard",
        "BPPB\nBPXB\n": "scorecard",                 # the reader names the bad line
        "S1: 9 K A 7 2 3 4 5 6 1Z\n": "sequence",     # likewise the bad card
        "\ufeff# comment\n\nshoe;coup;result\nA;1;B\n": "csv",
    }
    for i, (text, fmt) in enumerate(cases.items()):
        assert detect_format(write(tmp_path, f"f{i}.txt", text)) == fmt, text
    with pytest.raises(ImportDataError, match=r"f4\.txt:2: 'BPXB'"):
        import_files([tmp_path / "f4.txt"])
    with pytest.raises(ImportDataError, match=r"unknown card '1Z' at .*f5\.txt:1"):
        import_files([tmp_path / "f5.txt"])
    assert list(import_files([tmp_path / "f0.txt"]).outcome) == [BANKER]


def test_unknown_format(tmp_path: Path) -> None:
    path = write(tmp_path, "x.txt", "hello world\nthis is not baccarat\n")
    with pytest.raises(UnknownFormatError, match="cannot tell the format"):
        detect_format(path)
    with pytest.raises(UnknownFormatError, match="cannot tell the format"):
        import_files([path])
    with pytest.raises(UnknownFormatError, match="unknown format 'xml'.*scorecard, csv"):
        import_files([path], format="xml")
    binary = tmp_path / "b.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(UnknownFormatError):
        detect_format(binary)


def test_table_structure_errors(tmp_path: Path) -> None:
    cases = {
        "no known column": ("date,table\n1,2\n", "no column this importer knows"),
        "two outcome columns": ("winner,result\nB,P\n", r"columns .winner. and .result. both "
                                r"hold the outcome but disagree: .*x\.csv:2 \(.B. vs .P.\)"),
        "cards and hands": ("p1,p2,player,banker\n9,K,9-K,A-7\n", "both card columns and hand"),
        "coup goes down": ("shoe,coup,winner\nA,1,B\nA,3,P\nA,2,T\n",
                           r"x\.csv:4: coup 2 follows coup 3"),
        "nothing recorded": ("shoe,winner\nA,B\nA,\n", r"x\.csv:3: shoe A, coup 2: no "
                                                        r"outcome, no cards"),
        "ragged": ("shoe,winner\nA,B,C,D\n", r"x\.csv:2: 4 fields"),
        "four-card hand": ("player,banker\n9-K-2-3,A-7\n", r"x\.csv:2: shoe x\.csv:2, coup 1: "
                           r"the player hand '9-K-2-3' has 4 cards"),
        "empty": ("shoe,winner\n", "no rows"),
    }
    for text, expected in cases.values():
        path = write(tmp_path, "x.csv", text)
        with pytest.raises(ImportDataError, match=expected):
            import_files([path], format="csv")
    with pytest.raises(ImportDataError, match="no such file"):
        import_files([tmp_path / "missing.csv"])


def test_incomplete_hand_is_a_problem(tmp_path: Path) -> None:
    path = write(tmp_path, "i.csv", "p1,p2,b1,b2,winner\n9,,A,7,P\n")
    with pytest.raises(InvalidCoupError, match=r"the player hand \(9-_-_\) is incomplete"):
        import_files([path])


# ------------------------------------------------------------------ the sample data

SAMPLES = {
    "scorecard.txt": "scorecard", "outcomes.csv": "csv", "coups-cards.csv": "csv",
    "coups-hands.csv": "csv", "coups.json": "json", "sequences.txt": "sequence",
    "generated-8deck-200.parquet": "parquet",
}


def test_samples_are_detected_as_documented() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for name, fmt in SAMPLES.items():
        assert detect_format(DATA / name) == fmt
        assert f"`{name}` | `{fmt}`" in readme
    for fmt in FORMATS:
        assert f"| `{fmt}` |" in readme
    total = sum(p.stat().st_size for p in DATA.iterdir() if p.is_file())
    assert total < 2_000_000


@pytest.mark.parametrize(("name", "first"), [("coups-cards.csv", 300), ("coups-hands.csv", 400),
                                             ("coups.json", 500), ("sequences.txt", 600)])
def test_card_samples_are_real_dealt_shoes(name: str, first: int) -> None:
    """The samples are seed-2026 shoes as data/README.md and make_samples.py say."""
    reference = generate_coups(rules(), 2026, np.arange(first, first + 3))
    reference.shoe = reference.shoe - first
    got = import_files([DATA / name])
    assert_same_coups(got, reference)


def test_generated_sample_is_200_shoes_of_seed_2026() -> None:
    got = import_files([DATA / "generated-8deck-200.parquet"])
    reference = generate_coups(rules(), 2026, np.arange(200))
    assert_same_coups(got, reference)
