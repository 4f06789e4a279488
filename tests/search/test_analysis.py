"""``baccarat analyze``: the statistics, their fair references, and what they find."""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest
from baccarat import Run
from baccarat.analysis import analyze_coups
from baccarat.analysis.frame import frame_of_coups
from baccarat.analysis.planted import clumped_shoes, streaky_outcomes
from baccarat.analysis.reference import natural_lengths
from baccarat.analysis.significance import holm
from baccarat.analysis.statistics import derived_road_marks, outcome_statistics
from baccarat.cli import app
from baccarat.coups import coups_from_outcomes
from baccarat.deal import generate_coups
from baccarat.io.parquet import write_coups
from baccarat.roads import DERIVED_ROADS, RED, big_road, derived_road
from baccarat.rules import TableRules
from baccarat.shuffles import generate_model_coups, parse_shuffle
from typer.testing import CliRunner


def test_outcome_statistics_by_hand() -> None:
    # Shoe 0: B B T P P B (decisions B B P P B): runs BB, PP, B -> 3 runs of lengths 2, 2, 1.
    # Shoe 1: P T P P B: runs PPP, B -> lengths 3, 1. Ties 1 and 1.
    frame = frame_of_coups(coups_from_outcomes(["BBTPPB", "PTPPB"]))
    stats = {k: float(v[0]) for k, v in outcome_statistics(frame).items()}
    assert stats["banker_share"] == pytest.approx(4 / 11)
    assert stats["tie_share"] == pytest.approx(2 / 11)
    assert stats["ties_per_shoe_sd"] == 0.0
    assert stats["coups_per_shoe"] == 5.5
    assert stats["big_road_columns"] == 2.5
    assert stats["longest_run"] == 2.5
    assert stats["run_share_1"] == pytest.approx(2 / 5)
    assert stats["run_share_2"] == pytest.approx(2 / 5)
    assert stats["run_share_3"] == pytest.approx(1 / 5)
    # Pairs of decisions inside a shoe: BB BP PP PB | PP PP PB.
    # After B: B, P -> 1/2 B. After P: P, B, P, P, B -> 2/5 B.
    assert stats["lag1_banker"] == pytest.approx(1 / 2 - 2 / 5)
    # Wald-Wolfowitz: shoe 0 n1=3 n2=2: E = 1 + 12/5 = 3.4, Var = 12 * (12 - 5) / (25 * 4);
    # shoe 1 n1=1 n2=3: E = 1 + 6/4 = 2.5, Var = 6 * (6 - 4) / (16 * 3).
    var = 12 * 7 / 100 + 6 * 2 / 48
    assert stats["runs_z"] == pytest.approx(((3 - 3.4) + (2 - 2.5)) / np.sqrt(var))


def test_derived_road_marks_agree_with_the_roads_module() -> None:
    rng = np.random.default_rng(5)
    shoes = ["".join(rng.choice(list("BPT"), size=int(rng.integers(1, 60)), p=[.46, .45, .09]))
             for _ in range(60)]
    frame = frame_of_coups(coups_from_outcomes(shoes))
    decided = frame.outcome != 2
    side, shoe = frame.outcome[decided], frame.shoe[decided]
    starts = np.flatnonzero(np.r_[True, (side[1:] != side[:-1]) | (shoe[1:] != shoe[:-1])])
    lengths = np.diff(np.r_[starts, side.size])
    for k in DERIVED_ROADS:
        red, marks, run_shoe = derived_road_marks(lengths, shoe[starts], k)
        for s, text in enumerate(shoes):
            expected = derived_road(big_road([{"B": 0, "P": 1, "T": 2}[c] for c in text]), k)
            assert marks[run_shoe == s].sum() == len(expected)
            assert red[run_shoe == s].sum() == sum(m == RED for m in expected)


def test_natural_lengths_are_the_cut_cards() -> None:
    # Shoes dealt to the end, then told where the cut card would have stopped them, give
    # the very coups counts the generator gives with the cut card.
    for rules in (TableRules(), TableRules(cut_card=60, extra_coup_after_cut=True),
                  TableRules(decks=2, burn="fixed", burn_count=5), TableRules(burn="none")):
        ids = np.arange(300)
        full = generate_coups(rules, 3, ids, deal_to_end=True)
        cut = generate_coups(rules, 3, ids)
        counts = np.bincount(full.shoe, minlength=ids.size)
        first = np.r_[0, np.cumsum(counts)[:-1]]
        natural = natural_lengths(full.cards, counts, full.burn_shown[first], rules)
        assert (natural == np.bincount(cut.shoe, minlength=ids.size)).all()


def test_holm_by_hand() -> None:
    adjusted = holm(np.array([0.01, 0.04, 0.03, 0.5]))
    assert adjusted == pytest.approx([0.04, 0.09, 0.09, 0.5])


def test_reference_means_match_the_exact_values() -> None:
    # The bootstrap's means against what is known exactly (enumeration, composition).
    coups = generate_coups(TableRules(), 11, np.arange(40))
    table = analyze_coups(coups, n_reference=300).table.set_index("statistic")
    exact = table.dropna(subset=["exact_mean"])
    assert set(exact.index) >= {"banker_share", "tie_share", "player_pair_share",
                                "equal_adjacent_share", "natural_share", "runs_z"}
    error = (exact["reference_mean"] - exact["exact_mean"]).abs()
    assert (error < 4 * exact["reference_sd"] / np.sqrt(300)).all(), error
    assert exact.loc["banker_share", "exact_mean"] == pytest.approx(0.458597, abs=1e-6)
    assert exact.loc["tie_share", "exact_mean"] == pytest.approx(0.095156, abs=1e-6)


def test_fair_datasets_raise_few_false_alarms() -> None:
    # A small version of benchmarks/bench_analysis_false_alarms.py (200 datasets there):
    # at a family-wise 5%, 12 fair datasets should give at most 2 alarms (P(3 or more)
    # = 2% at the nominal rate).
    alarms = 0
    for trial in range(12):
        coups = generate_coups(TableRules(), 500 + trial, np.arange(30))
        analysis = analyze_coups(coups, n_reference=100, seed=trial, table_shoes=5)
        assert len(analysis.table) == 27
        alarms += not analysis.flagged.empty
    assert alarms <= 2


def test_a_streaky_chain_is_found() -> None:
    # P(same side as the last decision) = 0.55 instead of about 0.5: 60 shoes of 80 coups.
    analysis = analyze_coups(streaky_outcomes(60, 80, 0.55, seed=1), n_reference=100)
    flagged = set(analysis.flagged["statistic"])
    assert {"lag1_banker", "runs_z"} <= flagged
    assert "stands out" in analysis.verdict and "runs" in analysis.verdict
    assert "card statistics left out" in " ".join(analysis.notes)
    # ... while an independent chain (P(same) = 0.5) at the same size is not.
    fair = analyze_coups(streaky_outcomes(60, 80, 0.5, seed=2), n_reference=100)
    assert not {"lag1_banker", "runs_z"} & set(fair.flagged["statistic"])


def test_clumped_card_values_are_found() -> None:
    # One card in ten followed by a card of the same value on purpose: 40 shoes.
    analysis = analyze_coups(clumped_shoes(40, 0.1, seed=3), n_reference=100)
    assert "equal_adjacent_share" in set(analysis.flagged["statistic"])


def test_riffled_discards_are_found() -> None:
    # riffle:1: each shoe the last one's cards after a single riffle; 40 shoes, tables of 8.
    model = parse_shuffle("riffle:1", table_shoes=8)
    coups = generate_model_coups(TableRules(), 9, np.arange(40), model)
    analysis = analyze_coups(coups, n_reference=100, table_shoes=8)
    row = analysis.table.set_index("statistic").loc["carry_over_share"]
    assert row.stands_out and row.z > 20
    # Without knowing the tables, the same shoes show nothing: each shoe alone is uniform.
    alone = analyze_coups(coups, n_reference=100)
    assert "carry_over_share" not in set(alone.table["statistic"])


def run_cli(*args: str):
    """Invoke ``baccarat`` with ``args`` in-process."""
    return CliRunner().invoke(app, list(args))


def test_cli_analyze_writes_the_table_and_json(tmp_path) -> None:
    coups = generate_coups(TableRules(), 2, np.arange(20))
    path = write_coups(coups, tmp_path / "coups.parquet", TableRules())
    result = run_cli("analyze", str(path), "--reference", "40", "--out", str(tmp_path / "a"))
    assert result.exit_code == 0, result.output
    assert "Verdict:" in result.output
    table = pd.read_parquet(tmp_path / "a" / "analysis.parquet")
    assert {"observed", "reference_mean", "reference_low", "reference_high", "p",
            "p_adjusted"} <= set(table.columns)
    assert len(pd.read_parquet(tmp_path / "a" / "reference.parquet")) == 40
    again = run_cli("analyze", str(path), "--reference", "40", "--out", str(tmp_path / "a"))
    assert again.exit_code == 2 and "already exists" in again.output
    as_json = run_cli("analyze", str(path), "--reference", "40", "--out",
                      str(tmp_path / "a"), "--json", "--force")
    document = json.loads(as_json.stdout)
    assert document["shoes"] == 20 and len(document["statistics"]) == len(table)
    missing = run_cli("analyze", str(tmp_path / "nothing.parquet"))
    assert missing.exit_code == 2 and "no coups file" in missing.output


def test_report_adds_the_analysis_section(tmp_path) -> None:
    from baccarat import backtest

    backtest(None, ["flat"], shoes=20, seed=1, run=Run(out=tmp_path / "run", ledger=False))
    coups = generate_coups(TableRules(), 1, np.arange(20))
    path = write_coups(coups, tmp_path / "coups.parquet", TableRules())
    assert run_cli("analyze", str(path), "--reference", "40", "--out",
                   str(tmp_path / "a")).exit_code == 0
    result = run_cli("report", str(tmp_path / "run"), "--out", str(tmp_path / "r.html"),
                     "--analysis", str(tmp_path / "a"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "r.html").read_text()
    statistics = pd.read_parquet(tmp_path / "a" / "analysis.parquet")
    section = text[text.index('<section id="analysis">'):]
    section = section[:section.index("</section>")]
    assert "Are these shoes random?" in section
    # one figure per statistic, each named in its caption
    assert section.count("<figure>") == len(statistics)
    for label in statistics["label"]:
        assert f"<figcaption>{html.escape(label)}: z " in section
    missing = run_cli("report", str(tmp_path / "run"), "--out", str(tmp_path / "m.html"),
                      "--analysis", str(tmp_path / "nothing"))
    assert missing.exit_code == 2 and "no analysis.parquet" in missing.output
    assert not (tmp_path / "m.html").exists()


def test_partial_shoes_are_compared_with_fair_shoes_of_their_length() -> None:
    # A recorder who kept only the first 30 coups of each shoe: the coups-per-shoe statistic
    # is left out (it says how the shoes were recorded), and nothing else stands out.
    coups = generate_coups(TableRules(), 21, np.arange(60))
    first = coups.take(coups.coup <= 30)
    analysis = analyze_coups(first, n_reference=100)
    assert "coups_per_shoe" not in set(analysis.table["statistic"])
    assert any("60 of the 60 shoes are shorter" in note for note in analysis.notes)
    assert analysis.flagged.empty, analysis.verdict
    reference_length = analysis.table.set_index("statistic").loc["big_road_columns",
                                                                  "reference_mean"]
    assert 12 < reference_length < 16  # about 27 decisions in 30 coups, not a whole shoe


def test_tiny_and_odd_datasets_leave_out_what_they_cannot_define() -> None:
    # One shoe of four ties: no decisions, so no runs, roads or lag-1; the tie share of 1
    # stands out; nothing crashes.
    analysis = analyze_coups(coups_from_outcomes(["TTTT"]), n_reference=30)
    kept = set(analysis.table["statistic"])
    assert "runs_z" not in kept and "lag1_banker" not in kept
    assert "tie_share" in set(analysis.flagged["statistic"])
    assert any("left out" in note for note in analysis.notes)


def test_carry_over_lookup_agrees_with_numpy_isin() -> None:
    # The carry-over statistic looks each shoe's card pairs up among the previous shoe's
    # by blocks of shoes (statistics._found_in): the same answers as np.isin, with keys in
    # shoe order or not, blocks left empty, one side empty.
    from baccarat.analysis.statistics import _BIGRAMS, _SHOES_PER_TABLE, _found_in

    rng = np.random.default_rng(5)
    for trial in range(60):
        shoes = int(rng.integers(1, 3 * _SHOES_PER_TABLE))
        n_keys, n_table = (int(n) for n in rng.integers(0, 2000, 2))
        keys = rng.integers(0, shoes, n_keys) * _BIGRAMS + rng.integers(0, 40, n_keys)
        if trial % 2:
            keys = keys[np.argsort(keys // _BIGRAMS, kind="stable")]
        table = np.sort(rng.integers(0, shoes, n_table) * _BIGRAMS
                        + rng.integers(0, 40, n_table))
        assert np.array_equal(_found_in(table, keys), np.isin(keys, table)), trial



def test_progress_moves_by_datasets_and_the_figures_do_not_depend_on_the_frames(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A small dataset's references fit one batch of shoes; the bar of datasets must
    still move as they are measured (it sat at 0/100 until the end), and measuring them a
    few at a time changes no figure (partial shoes, tables of 5 shoes and cards included)."""
    import baccarat.analysis.reference as reference

    coups = generate_coups(TableRules(), 5, np.arange(10))
    coups = coups.take(~((coups.shoe == 3) & (coups.coup > 20)))  # a partial recording
    seen: list[int] = []
    framed = analyze_coups(coups, n_reference=40, seed=1, table_shoes=5, progress=seen.append)
    assert sum(seen) == 40 and len(seen) >= 20
    monkeypatch.setattr(reference, "MIN_FRAMES", 1)  # the whole batch in one frame
    whole = analyze_coups(coups, n_reference=40, seed=1, table_shoes=5)
    pd.testing.assert_frame_equal(framed.table, whole.table)
    assert framed.notes == whole.notes and any("partial" in note for note in whole.notes)
