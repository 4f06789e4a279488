"""A finished search: its table (one row per configuration), what it chose and checked,
the family's verdicts, the best of N by chance, and the sentences that say it plainly.

Stored as ``search.parquet`` (the table, with the rest as its metadata) and, with
``--null``, ``null.parquet`` (one row per fair dataset: its best configuration and
metric), beside the run folders the search played (``run/``, ``null/``). The report reads
them; nothing re-runs.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import BaccaratError
from ..io.parquet import read_metadata
from .adjust import LEVEL

SEARCH_FILE = "search.parquet"
NULL_FILE = "null.parquet"
RUN_FOLDER = "run"
NULL_FOLDER = "null"

#: The columns of search.parquet, in order: who the configuration is, its metric where
#: chosen, where checked and over all shoes, its edges over all shoes, its rank where
#: chosen and the folds that chose it, its test over all shoes and the adjusted p-values.
COLUMNS = ("config", "space_index", "strategy", "spec", "params", "metric_in",
           "metric_out", "metric_all", "realized_edge", "expected_edge", "z_in", "rank",
           "chosen",
           "z", "p_raw", "p_holm", "p_stepdown", "verdict")

#: The verdict words of a configuration, the same on the screen, in search.parquet and
#: in the JSON: beats its expected edge once every try is counted (Romano-Wolf
#: step-down below 5%), no better than chance, or it never bet.
BEATS, CHANCE, NEVER_BET = "beats", "chance", "no bets"


@dataclass
class SearchResult:
    """A search's table, its document (choices, checks, verdicts, sentences) and, with a
    null, the best metric of each fair dataset."""

    table: pd.DataFrame
    document: dict[str, Any]
    null: pd.DataFrame | None = None
    path: Path | None = None

    @property
    def sentence(self) -> str:
        """The search's family-wise verdict in words, the screen's first sentence."""
        return str(self.document["sentence"])

    @property
    def found(self) -> bool:
        """Whether the family-wise verdict says some configuration beats its expected
        edge (``verdict.found`` in the JSON)."""
        return bool(self.document["verdict"]["found"])

    #: The columns a notebook shows first: who, its metric where chosen and checked,
    #: rank, and the p-values counting every try.
    SHOWN = ("spec", "metric_in", "metric_out", "metric_all", "z_in", "rank", "p_raw", "p_holm",
             "p_stepdown", "verdict")

    def __repr__(self) -> str:
        count = len(self.table)
        return (f"SearchResult({count} configuration{'s' if count != 1 else ''}"
                + (f", {self.path}" if self.path is not None else "") + f")\n{self.sentence}")

    def _repr_html_(self) -> str:
        """In a notebook: the verdict in words, then the configurations by rank where
        chosen (the first 20)."""
        import html

        shown = self.table.sort_values("rank", kind="stable").head(20)[list(self.SHOWN)]
        more = len(self.table) - len(shown)
        tail = f"<p>{more:,} more in <code>.table</code></p>" if more > 0 else ""
        return (f"<p>{html.escape(self.sentence)}</p>"
                + shown.to_html(index=False, float_format=lambda v: f"{v:.4g}") + tail)

    def to_json(self) -> dict[str, Any]:
        """Everything, as plain JSON values (NaN as null)."""
        rows = json.loads(self.table.to_json(orient="records"))
        out = {**self.document, "configurations": rows}
        if self.null is not None:
            out["null"] = {**self.document.get("null", {}),
                           "best": [float(v) for v in self.null["best_metric"]],
                           "best_spec": [str(s) for s in self.null["best_spec"]]}
        return plain(out)

    def write(self, folder: Path) -> None:
        """``search.parquet`` (and ``null.parquet``) into ``folder``, each atomically; the
        null first, so a folder with ``search.parquet`` is complete."""
        import pyarrow as pa

        from ..io.parquet import write_table_atomic

        if self.null is not None:
            write_table_atomic(pa.Table.from_pandas(self.null, preserve_index=False),
                               folder / NULL_FILE, {**plain(self.document), "kind": "search null"})
        write_table_atomic(pa.Table.from_pandas(self.table, preserve_index=False),
                           folder / SEARCH_FILE, {**plain(self.document), "kind": "search"})
        self.path = folder

    @classmethod
    def load(cls, folder: str | Path) -> SearchResult:
        """Open a search folder (its ``search.parquet``, and ``null.parquet`` if any)."""
        folder = Path(folder)
        path = folder / SEARCH_FILE
        if not path.is_file():
            raise BaccaratError(f"{folder} holds no {SEARCH_FILE}: is it a folder written "
                                f"by `baccarat search`?")
        document = read_metadata(path)
        if document.get("kind") != "search":
            raise BaccaratError(f"{path} is not a search result")
        document.pop("kind", None)
        null = pd.read_parquet(folder / NULL_FILE) if (folder / NULL_FILE).is_file() else None
        return cls(pd.read_parquet(path), document, null, folder)


def plain(value: Any) -> Any:
    """``value`` with NaN and infinities as None and numpy scalars as Python's, nested:
    JSON has no NaN."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def percent_points(value: float, fmt: str) -> str:
    """A metric value as the sentences print it."""
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else fmt.format(value)


def p_text(p: float) -> str:
    """``p = 0.042``, or ``p < 0.001`` below what three decimals show."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def times_in(count: int, total: int) -> str:
    """``3 times in 200`` / ``once in 200`` / ``never in 200``."""
    if count == 0:
        return f"in none of {total:,}"
    if count == 1:
        return f"once in {total:,}"
    return f"{count:,} times in {total:,}"


def ranked_by(metric: dict[str, Any]) -> str:
    """What the configurations are ranked by, as the table titles say it: standard
    errors for the default metric, else the metric and its direction."""
    if metric["name"] == "edge_over_expected":
        return "standard errors above expected edge (z)"
    return (f"{metric['title'].lower()} "
            f"({'higher' if metric['higher'] else 'lower'} is better)")


def sd_text(z: float) -> str:
    """``+2.1 standard errors`` (``1.0 standard error``)."""
    if not math.isfinite(z):
        return "no standard error (it never bet)"
    return f"{z:+.1f} standard error{'' if abs(round(z, 1)) == 1 else 's'}"


def _named(specs: list[str]) -> str:
    return ", ".join(specs[:3]) + (f" and {len(specs) - 3} more" if len(specs) > 3 else "")


def family_sentence(*, tried: int, shoes: int, beats: list[str], best_spec: str,
                    best_z: float, best_p: float, reality_check: float,
                    spa: float) -> str:
    """The screen's one family-wise answer, first: which configurations beat their
    expected edge counting every one tried (the step-down at 5%), and where Reality
    Check and SPA, which test the best alone, stand beside it."""
    counted = (f"Counting all {tried:,} configurations tried, over all {shoes:,} shoes, "
               if tried > 1 else f"Over all {shoes:,} shoes, ")
    others = f"Reality Check {p_text(reality_check)}, SPA {p_text(spa)}"
    if ((reality_check < LEVEL) == bool(beats)) and ((spa < LEVEL) == bool(beats)):
        others += " agree"
    else:
        others += (": they test the best alone, each configuration against one fixed "
                   "standard error; the verdict is the step-down's, which bootstraps each "
                   "one's own")
    if not beats:
        head = ("none beats its expected edge: the best, " if tried > 1 else
                "it does not beat its expected edge: ")
        return (counted + head + f"{best_spec}, is {sd_text(best_z)} from it (step-down "
                f"{p_text(best_p)}; {others}).")
    one = len(beats) == 1
    return (counted + f"{len(beats)} beat{'s' if one else ''} {'its' if one else 'their'} "
            f"expected edge (step-down at 5%): {_named(beats)} ({others}). On fair shoes "
            f"a search flags one about 1 time in 20: check it on shoes this search has "
            f"not seen.")


def null_sentences(*, tried: int, shoes: int, null: dict[str, Any], best_spec: str,
                   found: bool) -> list[str]:
    """What chance gives a search of this size, in standard errors from the expected
    edge, and where the observed best stands in it, agreeing with the family-wise
    verdict (``found``) or saying why it differs."""
    n = null["datasets"]
    first = (f"On {shoes:,} fair shoes, the best of {tried:,} configurations is "
             f"{sd_text(null['median'])} from its expected edge half the time, and "
             f"{null['one_in_20']:+.1f} or more one time in 20 ({n:,} fair datasets of the "
             f"same shape).")
    rare = null["p"] < LEVEL
    second = (f"Here the best, {best_spec}, is {null['observed']:+.1f}: fair shoes give a "
              f"best this far out {times_in(null['as_good'], n)} ({p_text(null['p'])})")
    if rare == found:
        second += (", agreeing with the verdict." if found else
                   ": luck alone gives a best like this, as the verdict says.")
    elif rare:
        second += (": rare for the best alone, but the step-down, the verdict, judges it "
                   "against its own bootstrapped spread and does not flag it.")
    else:
        second += (": what luck gives the best of this many, yet the step-down, the "
                   "verdict, flags it against its own bootstrapped spread.")
    return [first, second]


def checked_sentence(split: dict[str, Any], metric: dict[str, Any],
                     beats: list[str]) -> str:
    """What the chosen configuration showed where it was chosen, and on the shoes held
    back from the choice: the one-sided test it passes or not, and how that stands
    beside the family-wise verdict (the configurations in ``beats``)."""
    fmt = metric["fmt"]
    if split["scheme"] == "none":
        return "No shoes were held back (--holdout 0): the choice is not checked."
    out = split["out"]
    above = out["p"] < LEVEL
    chosen = {f["spec"] for f in split["folds"]}
    flagged = bool(chosen & set(beats))
    test = (f"realized edge {out['realized_edge']:+.2%} against expected "
            f"{out['expected_edge']:+.2%}; one-sided, that its realized edge is above its "
            f"expected edge: {p_text(out['p'])}")
    if above == flagged:
        test += ", agreeing with the verdict."
    elif above:
        test += (": one test of one choice on part of the shoes, which the verdict over "
                 "all of them, counting every configuration tried, does not confirm.")
    else:
        test += (": the shoes held back alone are too few to confirm the verdict, "
                 "which counts every shoe.")
    if split["scheme"] == "hold-out":
        fold = split["folds"][0]
        how = (f"{sd_text(fold['z_in'])} from its expected edge"
               if metric["name"] == "edge_over_expected"
               else percent_points(fold["metric_in"], fmt))
        return (f"Chosen on shoes {fold['choose_text']}: {fold['spec']} at {how}. On "
                f"shoes {fold['evaluate_text']}, held back: {test}")
    where = ("the shoes before it" if split["scheme"] == "walk-forward"
             else "the other folds' shoes")
    return (f"{split['description'].capitalize()}: each fold chosen on {where} "
            f"({len(chosen)} different choice{'s' if len(chosen) > 1 else ''}); on the "
            f"{out['sessions']:,} sessions evaluated: {test}")


def fold_lines(split: dict[str, Any], metric: dict[str, Any]) -> list[str]:
    """One line per fold of a walk-forward or cross-validation: the shoes it chose on,
    its choice and metric there, the shoes it was checked on and its metric there."""
    if split["scheme"] not in ("walk-forward", "cross-validation"):
        return []
    fmt = metric["fmt"]
    return [f"{fold['name'].capitalize()}: chosen on shoes {fold['choose_text']}, "
            f"{fold['spec']} at {percent_points(fold['metric_in'], fmt)}; checked on "
            f"shoes {fold['evaluate_text']}: {percent_points(fold['metric_out'], fmt)}."
            for fold in split["folds"]]


def chosen_column(folds: list[dict[str, Any]], configs: int) -> np.ndarray:
    """Per configuration, the folds in which it was chosen ("" where none)."""
    names: list[list[str]] = [[] for _ in range(configs)]
    for fold in folds:
        names[fold["config"]].append(fold["name"])
    return np.array([", ".join(n) for n in names], dtype=object)


__all__ = ["BEATS", "CHANCE", "NEVER_BET", "NULL_FILE", "NULL_FOLDER", "RUN_FOLDER",
           "SEARCH_FILE", "SearchResult", "checked_sentence", "family_sentence", "fold_lines",
           "null_sentences", "ranked_by", "sd_text"]
