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

SEARCH_FILE = "search.parquet"
NULL_FILE = "null.parquet"
RUN_FOLDER = "run"
NULL_FOLDER = "null"

#: The columns of search.parquet, in order: who the configuration is, its metric where
#: chosen, where checked and over all shoes, its edges over all shoes, its rank where
#: chosen and the folds that chose it, its test over all shoes and the adjusted p-values.
COLUMNS = ("config", "space_index", "strategy", "spec", "params", "metric_in",
           "metric_out", "metric_all", "realized_edge", "expected_edge", "rank", "chosen",
           "z", "p_raw", "p_holm", "p_stepdown", "verdict")

#: The verdict words of a configuration: beats its expected edge once every try is
#: counted (Romano-Wolf step-down below 5%), or no better than chance.
BEATS, CHANCE, NEVER_BET = "beats expected", "chance", "never bet"


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
        """The search's verdict in words: what chance gives, and where the best stands."""
        return str(self.document["sentence"])

    #: The columns a notebook shows first: who, its metric where chosen and checked,
    #: rank, and the p-values counting every try.
    SHOWN = ("spec", "metric_in", "metric_out", "metric_all", "rank", "p_raw", "p_holm",
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


def _reaches(value: float, metric: dict[str, Any]) -> str:
    """``beats its expected edge by +3.2% or more`` (or ``falls short of it by 0.4% at
    most`` for a negative value), ``shows mean net of 12.00 or more`` for other metrics:
    what the best reaches at least, in words."""
    fmt = metric["fmt"]
    if metric["name"] == "edge_over_expected":
        if value < 0:
            return (f"falls short of its expected edge by "
                    f"{percent_points(-value, fmt.replace('+', ''))} at most")
        return f"beats its expected edge by {percent_points(value, fmt)} or more"
    more = "or more" if metric["higher"] else "or less"
    return f"shows {metric['title'].lower()} of {percent_points(value, fmt)} {more}"


def null_sentences(*, tried: int, shoes: int, metric: dict[str, Any], null: dict[str, Any],
                   best_spec: str, observed: float, beats: int = 0) -> list[str]:
    """What chance gives a search of this size, and where the observed best stands in it:
    sentences a reader without statistics reads right. ``beats``: how many the step-down
    counts as beating their expected edge (each against its own spread, which the best
    raw value is not), so that the two verdicts are read together."""
    fmt = metric["fmt"]
    n = null["datasets"]
    median, rare = null["median"], null["one_in_20"]
    if metric["name"] == "edge_over_expected" and (median < 0) != (rare < 0):
        then = _reaches(rare, metric)
    else:  # the same words: the value alone
        then = _reaches(rare, metric).rsplit(
            " of " if metric["name"] != "edge_over_expected" else " by ", 1)[1]
    first = (f"On {shoes:,} fair shoes, the best of {tried:,} configurations "
             f"{_reaches(median, metric)} half the time, and {then} one time in 20 "
             f"({n:,} fair datasets of the same shape).")
    count = null["as_good"]
    second = (f"Here the best over all {shoes:,} shoes, {best_spec}, shows "
              f"{percent_points(observed, fmt)}: fair "
              f"shoes give a best at least this good {times_in(count, n)} "
              f"({p_text(null['p'])}).")
    if null["p"] >= 0.05 and not beats:
        third = ("That is what luck alone gives: this search shows no sign of a "
                 "winning system.")
    elif null["p"] >= 0.05:
        third = ("That best is what luck alone gives. The step-down below judges each "
                 "configuration against its own spread instead, and counts "
                 f"{beats:,} as beating {'its' if beats == 1 else 'their'} expected edge.")
    else:
        third = ("Fair shoes rarely do that well, so luck alone is an unlikely "
                 "explanation; judge it by the shoes it was not chosen on.")
    return [first, second, third]


def family_sentence(*, tried: int, shoes: int, beats: list[str], best_spec: str,
                    best_p: float, reality_check: float, spa: float) -> str:
    """The family-wise verdict over all shoes, counting every configuration tried."""
    counted = (f"Counting all {tried:,} configurations tried, over all {shoes:,} shoes, "
               if tried > 1 else f"Over all {shoes:,} shoes, ")
    if not beats:
        return (counted + ("none beats its expected edge (the best, " if tried > 1 else
                           "it does not beat its expected edge (") + f"{best_spec}: "
                f"step-down {p_text(best_p)}; Reality Check {p_text(reality_check)}, "
                f"SPA {p_text(spa)}).")
    named = ", ".join(beats[:3]) + (f" and {len(beats) - 3} more" if len(beats) > 3 else "")
    return (counted + f"{len(beats)} beat{'s' if len(beats) == 1 else ''} "
            f"{'its' if len(beats) == 1 else 'their'} expected edge at 5%: {named} "
            f"(Reality Check {p_text(reality_check)}, SPA {p_text(spa)}). On fair shoes "
            f"a search flags at least one configuration about 1 time in 20: check it on "
            f"shoes this search has not seen.")


def checked_sentence(split: dict[str, Any], metric: dict[str, Any]) -> str:
    """What the chosen configuration showed where it was chosen, and on the shoes held
    back from the choice."""
    fmt = metric["fmt"]
    if split["scheme"] == "none":
        return "No shoes were held back (--holdout 0): the choice is not checked."
    out = split["out"]
    held = out["edge_verdict"]
    holds = out["p"] < 0.05
    verdict = ("it holds up there: its realized edge beats its expected edge "
               f"({p_text(out['p'])})" if holds else
               f"it does not hold up there ({p_text(out['p'])} that its realized edge "
               f"beats its expected edge)")
    if split["scheme"] == "hold-out":
        fold = split["folds"][0]
        return (f"Chosen on shoes {fold['choose_text']}: {fold['spec']} at "
                f"{percent_points(fold['metric_in'], fmt)}. On shoes "
                f"{fold['evaluate_text']}, held back: {percent_points(out['metric'], fmt)} "
                f"(realized edge {out['realized_edge']:+.2%}, expected "
                f"{out['expected_edge']:+.2%}, {held} its 95% interval); {verdict}.")
    chosen = sorted({f["spec"] for f in split["folds"]})
    where = ("the shoes before it" if split["scheme"] == "walk-forward"
             else "the other folds' shoes")
    return (f"{split['description'].capitalize()}: each fold chosen on {where} "
            f"({len(chosen)} different choice{'s' if len(chosen) > 1 else ''}); on the "
            f"{out['sessions']:,} sessions evaluated: {percent_points(out['metric'], fmt)} "
            f"(realized edge {out['realized_edge']:+.2%}, expected "
            f"{out['expected_edge']:+.2%}); {verdict}.")


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
           "null_sentences"]
