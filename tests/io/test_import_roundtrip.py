"""Property: coups written out in any supported shape import back to the same coups.

Shoes are dealt from a drawn seed (real dealing, so every coup passes the checks), written
the way a recorder would (writers.py), and imported: the outcomes, the cards (where the
shape holds them), the totals and the shoe boundaries must come back unchanged."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from baccarat.coups import Coups
from baccarat.deal import generate_coups
from baccarat.io.importers import import_files, writers
from baccarat.rules import TableRules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

RULES = TableRules.model_validate({})
SHAPES = ("csv-cards", "csv-hands", "csv-outcomes", "tsv-words", "json-nested", "json-flat",
          "scorecard", "sequence", "parquet", "xlsx", "sqlite", "messages")
CARDS = {"csv-cards", "csv-hands", "json-nested", "json-flat", "parquet", "xlsx", "sqlite",
         "messages", "sequence"}


def _write(coups: Coups, shape: str, folder: Path) -> Path:
    if shape == "csv-cards":
        return writers.write_csv(coups, folder / "c.csv", "cards", missing="NA", coup=True)
    if shape == "csv-hands":
        return writers.write_csv(coups, folder / "h.csv", "hands", totals=False,
                                 delimiter=";")
    if shape == "csv-outcomes":
        return writers.write_csv(coups, folder / "o.csv", "outcomes", coup=True)
    if shape == "tsv-words":
        return writers.write_csv(coups, folder / "w.tsv", "outcomes", words=True,
                                 delimiter="\t")
    if shape == "json-nested":
        return writers.write_json(coups, folder / "n.json")
    if shape == "json-flat":
        return writers.write_json(coups, folder / "f.json", nested=False)
    if shape == "scorecard":
        return writers.write_scorecard(coups, folder / "s.txt")
    if shape == "sequence":
        labels = [str(coups.label[coups.shoe == s][0]) for s in coups.shoe_ids()]
        return writers.write_sequences(writers.dealing_order(coups), folder / "q.txt", labels)
    if shape == "parquet":
        return writers.write_parquet(coups, folder / "p.parquet", "hands")
    if shape == "xlsx":
        return writers.write_xlsx(coups, folder / "x.xlsx", "cards")
    if shape == "sqlite":
        return writers.write_sqlite(coups, folder / "d.sqlite", "cards", coup=True)
    return writers.write_messages(coups, folder / "m.log")


@pytest.mark.parametrize("shape", SHAPES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), shoes=st.integers(1, 3))
def test_any_shape_imports_back_to_the_same_coups(seed: int, shoes: int, shape: str) -> None:
    coups = generate_coups(RULES, seed, np.arange(shoes))
    coups.label = np.array([f"shoe-{s + 1}" for s in coups.shoe], dtype=object)
    with tempfile.TemporaryDirectory() as folder:
        path = _write(coups, shape, Path(folder))
        got = import_files([path])
    assert len(got) == len(coups), shape
    np.testing.assert_array_equal(got.outcome, coups.outcome)
    np.testing.assert_array_equal(got.shoe, coups.shoe)
    np.testing.assert_array_equal(got.coup, coups.coup)
    if shape in CARDS:
        np.testing.assert_array_equal(got.cards, coups.cards)
        np.testing.assert_array_equal(got.player_total, coups.player_total)
        np.testing.assert_array_equal(got.banker_total, coups.banker_total)
    if shape == "messages":  # labelled by the message's shoe and table fields
        assert all(str(g).startswith(str(w)) for g, w in zip(got.label, coups.label, strict=True))
    else:
        assert list(got.label) == list(coups.label), shape
    assert got.valid is not None and got.valid.all()
