"""``baccarat import``: what it writes, what it prints, and that a failure writes nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
from baccarat.cards import NO_CARD
from baccarat.cli import app
from baccarat.coups import TIE
from baccarat.deal import generate_coups
from baccarat.io.importers import FORMATS, writers
from baccarat.io.parquet import read_coups, read_metadata
from baccarat.rules import TableRules
from baccarat.shoe import shuffled_shoes
from typer.testing import CliRunner

runner = CliRunner()
DATA = Path(__file__).resolve().parents[2] / "data"
# five naturals, one ace each on the banker side: fine for 2 decks, one ace too many for 1
NATURALS = "player,banker,winner\n" + "".join(
    f"{c},P\n" for c in ["4-5,A-7", "3-6,A-6", "2-7,A-5", "Q-8,A-3", "J-9,A-2"])
BAD = "shoe,player,banker,winner\nS1,9-K,A-7,P\nS1,A-5,K-4,B\nS1,6-K,7-K,P\n"


def contents(folder: Path) -> dict[str, bytes]:
    """Every file of an output folder by name, byte for byte."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def run(*args: str | Path):  # noqa: ANN201 - click's Result
    return runner.invoke(app, ["import", *map(str, args)])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_imports_samples_with_ids_labels_and_closing_line(tmp_path: Path) -> None:
    out = tmp_path / "coups.parquet"
    result = run(DATA / "scorecard.txt", DATA / "coups-cards.csv", "--out", out)
    assert result.exit_code == 0, result.output
    # the samples are seed-2026 shoes 100-103 (scorecard) and 300-302 (cards)
    rules = TableRules.model_validate({})
    n = len(generate_coups(rules, 2026, np.arange(100, 104))) + len(
        generate_coups(rules, 2026, np.arange(300, 303)))
    assert result.stdout.strip() == f"imported {n:,} coups from 7 shoes (2 files) to {out}"
    coups, metadata = read_coups(out)
    assert list(coups.shoe_ids()) == list(range(7))
    labels = [coups.label[coups.shoe == s][0] for s in range(7)]
    assert labels == ["shoe-1", "shoe-2", "shoe-3", "scorecard.txt:5",
                      "shoe-1", "shoe-2", "shoe-3"]
    assert metadata["source"] == "import" and metadata["formats"] == ["scorecard", "csv"]
    assert metadata["rules"]["decks"] == 8 and metadata["rules"]["burn"] == "none"
    assert coups.valid is not None and coups.valid.all()
    outcome_only = coups.shoe < 4
    assert (coups.cards[outcome_only] == NO_CARD).all()
    assert (coups.cards[~outcome_only] >= 0)[:, [0, 1, 3, 4]].all()
    assert not list(tmp_path.glob(".*.tmp"))


def test_format_flag_forces_the_format(tmp_path: Path) -> None:
    # six tens, or six ties: a scorecard by default, one coup of 10s when forced
    path = write(tmp_path, "tens.txt", "T T T T T T\n")
    out = tmp_path / "a.parquet"
    assert run(path, "--out", out).exit_code == 0
    coups, _ = read_coups(out)
    assert list(coups.outcome) == [TIE] * 6 and (coups.cards == NO_CARD).all()
    result = run(path, "--out", out, "--force", "--format", "sequence")
    assert result.exit_code == 0, result.output
    coups, _ = read_coups(out)
    assert len(coups) == 1 and coups.outcome[0] == TIE
    assert (coups.cards[0] >= 0).all() and coups.player_total[0] == 0


def test_unknown_format_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "x.txt", "BPB\n")
    result = run(path, "--out", tmp_path / "o.parquet", "--format", "xls")
    assert result.exit_code == 2
    assert "unknown format 'xls'" in result.output
    garbage = write(tmp_path, "g.txt", "nothing to see here\n")
    result = run(garbage, "--out", tmp_path / "o.parquet")
    assert result.exit_code == 2 and "cannot tell the format" in result.output
    assert not (tmp_path / "o.parquet").exists()


def test_help_lists_every_format() -> None:
    result = runner.invoke(app, ["import", "--help"])
    assert result.exit_code == 0
    text = re.sub(r"\s+", " ", result.output)
    for name in FORMATS:
        assert name in text
    for flag in ("--out", "--format", "--keep-invalid", "--force", "--quiet", "--decks",
                 "--rules", "--burn", "--cut-card"):
        assert flag in text


def test_invalid_coups_fail_and_write_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", BAD)
    out = tmp_path / "coups.parquet"
    result = run(path, "--out", out)
    assert result.exit_code == 2
    assert "2 problems in the recorded coups" in result.output
    assert f"{path}:3: shoe S1, coup 2: banker draws on 4 when player stands" in result.output
    assert f"{path}:4: shoe S1, coup 3: recorded winner Player but the cards make player " \
           f"6, banker 7: Banker" in result.output
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_failed_import_leaves_an_existing_output_untouched(tmp_path: Path) -> None:
    out = tmp_path / "coups.parquet"
    assert run(DATA / "outcomes.csv", "--out", out).exit_code == 0
    before = contents(out)
    result = run(write(tmp_path, "bad.csv", BAD), "--out", out, "--force")
    assert result.exit_code == 2
    assert contents(out) == before
    result = run(write(tmp_path, "card.csv", "p1,p2,b1,b2\n9,K,A,1Z\n"), "--out", out,
                 "--force")
    assert result.exit_code == 2 and "unknown card '1Z'" in result.output
    assert "card.csv:2" in result.output
    assert contents(out) == before


def test_existing_output_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "coups.parquet"
    assert run(DATA / "scorecard.txt", "--out", out).exit_code == 0
    before = contents(out)
    result = run(DATA / "outcomes.csv", "--out", out)
    assert result.exit_code == 2 and "already exists" in result.output
    assert contents(out) == before
    result = run(DATA / "outcomes.csv", "--out", out, "--force")
    assert result.exit_code == 0
    coups, _ = read_coups(out)
    assert coups.label[0] == "shoe-1" and len(coups.shoe_ids()) == 3


def test_keep_invalid_keeps_flagged_coups(tmp_path: Path) -> None:
    out = tmp_path / "coups.parquet"
    result = run(write(tmp_path, "bad.csv", BAD), "--out", out, "--keep-invalid")
    assert result.exit_code == 0, result.output
    assert "kept 2 invalid coups" in result.stderr
    assert "imported 3 coups from 1 shoe (1 file)" in result.stdout
    coups, metadata = read_coups(out)
    assert list(coups.valid) == [True, False, False]
    assert "".join("BPT"[o] for o in coups.outcome) == "PBP"  # as recorded
    assert json.loads((out / "_dataset.json").read_text())["invalid_coups"] == 2


def test_decks_flag_and_rules_file_bound_the_rank_counts(tmp_path: Path) -> None:
    path = write(tmp_path, "n.csv", NATURALS)
    out = tmp_path / "coups.parquet"
    result = run(path, "--out", out, "--decks", "1")
    assert result.exit_code == 2
    assert "too many cards of rank A: 5 in the shoe, where 1 deck holds 4" in result.output
    rules_file = write(tmp_path, "rules.toml", "decks = 1\n")
    assert run(path, "--out", out, "--rules", rules_file).exit_code == 2
    assert not out.exists()
    result = run(path, "--out", out, "--rules", rules_file, "--decks", "2")
    assert result.exit_code == 0, result.output
    assert read_metadata(out)["rules"]["decks"] == 2


def test_burn_flag_deals_sequences_with_the_burn(tmp_path: Path) -> None:
    rules = TableRules.model_validate({"burn": "standard"})
    reference = generate_coups(rules, 9, np.arange(2))
    shuffled = shuffled_shoes(8, 9, np.arange(2))
    sequences = []
    for s in range(2):
        shown = int(shuffled[s, 0]) // 5  # rank; 10, J, Q, K burn ten
        burned = 1 + (10 if shown >= 10 else shown)
        sequences.append(shuffled[s, : burned + int((reference.cards[reference.shoe == s]
                                                     >= 0).sum())])
    path = writers.write_sequences(sequences, tmp_path / "shoes.txt", ["a", "b"])
    out = tmp_path / "coups.parquet"
    result = run(path, "--out", out, "--burn", "standard", "--quiet")
    assert result.exit_code == 0, result.output
    coups, metadata = read_coups(out)
    np.testing.assert_array_equal(coups.cards, reference.cards)
    np.testing.assert_array_equal(coups.burn_shown, reference.burn_shown)
    assert metadata["rules"]["burn"] == "standard"


def test_sequence_ending_mid_coup_names_the_shoe(tmp_path: Path) -> None:
    path = write(tmp_path, "s.txt", "one: 9 A K 7\ntwo: A K 5 4\n")
    out = tmp_path / "coups.parquet"
    result = run(path, "--out", out)
    assert result.exit_code == 2
    assert "shoe two: the sequence of 4 cards ends in the middle of coup 1" in result.output
    assert not out.exists()


def test_quiet_prints_the_closing_line_and_warnings_only(tmp_path: Path) -> None:
    out = tmp_path / "coups.parquet"
    result = run(write(tmp_path, "bad.csv", BAD), "--out", out, "--keep-invalid", "--quiet")
    assert result.exit_code == 0
    assert result.stdout.strip().splitlines() == [
        f"imported 3 coups from 1 shoe (1 file) to {out}"]
    assert result.stderr.strip().splitlines() == [
        f"warning: kept 2 invalid coups (valid=False in {out}: 1 banker's drawing rule, "
        f"1 recorded winner)"]


def test_an_error_quoting_a_line_keeps_its_brackets(tmp_path: Path):
    """A log's "[table-3]" is the user's text, not rich markup: the error quotes it whole."""
    line = "2026-11-30 21:14:03 [table-3] shoe=1 hand=1 winner=BANKER"
    source = write(tmp_path, "log.txt", f"{line}\n{line.replace('hand=1', 'hand=2')}\n")
    result = run(source, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert f"its first line {line!r}" in " ".join(result.output.split())
    assert not (tmp_path / "out").exists()


def test_words_for_two_sides_in_one_comma_list(tmp_path: Path) -> None:
    # A German evening sheet: "--words player=Spieler,tie=Unentschieden" names two sides,
    # not a Player spelling 'Spieler,tie=Unentschieden'; "banker=X,Y" still lists two
    # spellings of one side.
    (tmp_path / "abend.csv").write_text("Hand;Gewinner\n1;Bank\n2;Spieler\n3;Unentschieden\n"
                                        "4;Banco\n")
    result = CliRunner().invoke(app, [
        "import", str(tmp_path / "abend.csv"), "--out", str(tmp_path / "coups"),
        "--words", "player=Spieler,tie=Unentschieden", "--words", "banker=Bank,Banco"])
    assert result.exit_code == 0, result.output
    coups = read_coups(tmp_path / "coups").coups
    assert coups.outcome.tolist() == [0, 1, 2, 0]  # B, P, T, B
