"""``search`` reads one dataset from its first read to its last: a dataset swapped after
the shoes were counted (its hold-out split made from them) and before the run read them
is refused, naming it, instead of a hold-out split and null lengths from the old one."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import numpy as np
import pytest
from baccarat.deal import generate_coups
from baccarat.errors import BaccaratError
from baccarat.io.parquet import write_coups
from baccarat.rules import TableRules
from baccarat.search import search

search_run = importlib.import_module("baccarat.search.run")


def test_a_dataset_swapped_after_its_first_read_is_refused(tmp_path: Path, monkeypatch):
    rules = TableRules()
    data, other = tmp_path / "shoes.parquet", tmp_path / "other.parquet"
    write_coups(generate_coups(rules, 1, np.arange(8, dtype=np.int64)), data, rules=rules)
    write_coups(generate_coups(rules, 2, np.arange(8, dtype=np.int64)), other, rules=rules)
    counted = search_run.dataset_shoes

    def count_then_swap(coups):  # another program moves a dataset into place meanwhile
        found = counted(coups)
        os.replace(other, data)
        return found

    monkeypatch.setattr(search_run, "dataset_shoes", count_then_swap)
    with pytest.raises(BaccaratError, match=r"shoes\.parquet changed while the search read "
                                            r"it"):
        search(data, ["flat", "follow"], reps=100)
