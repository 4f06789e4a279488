"""Compare configurations across stored runs: one row each, summary metrics in table order.

Two configurations that played the same shoes (same dataset, same sessions) are paired
session by session: the difference in mean net comes with a 95% t interval on the
per-session differences. Configurations on different shoes are compared unpaired (Welch)
and the table says so. A system is judged by its edge, not its stake: the difference in
realized edge per unit staked is tested the same way (``edge_differs``), and the mean-net
difference comes with its reason in words (``diff_reason``: higher or lower edge where
the test says so, staked less or more, busted more or less), so a system that only
stakes less is never "better".
"""

from __future__ import annotations

import difflib
import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ..errors import BaccaratError
from ..io.owner import claim_output
from ..io.parquet import COMPRESSION, with_metadata
from ..metrics import SUMMARY_METRICS
from .runs import Run, Runs, load_runs
from .stats import Difference, paired_difference, welch_difference

#: The label columns of a comparison, before the metrics.
LABEL_COLUMNS = ("label", "run", "config", "strategy", "spec", "params", "rules", "dataset")
#: The difference-vs-baseline columns, after the metrics: (name, title).
DIFF_COLUMNS = (
    ("baseline", "Baseline"),
    ("pairing", "Pairing"),
    ("diff_sessions", "Sessions compared"),
    ("diff_mean_net", "Mean net - baseline"),
    ("diff_low", "Diff 95% low"),
    ("diff_high", "Diff 95% high"),
    ("significant", "Significant"),
    ("diff_edge", "Edge - baseline"),
    ("diff_edge_low", "Edge diff 95% low"),
    ("diff_edge_high", "Edge diff 95% high"),
    ("edge_differs", "Edge differs"),
    ("diff_reason", "Why the mean net differs"),
)
#: The family-wise columns, last: each verdict again, counting every configuration of the
#: table (Holm's step-down at 5%), with the p-values it comes from.
FAMILY_COLUMNS = (
    ("edge_p", "Edge p"),
    ("edge_p_holm", "Edge p, Holm"),
    ("edge_verdict_family", "Expected in, Holm?"),
    ("diff_p", "Diff p"),
    ("diff_p_holm", "Diff p, Holm"),
    ("significant_family", "Significant, Holm"),
    ("diff_edge_p", "Edge diff p"),
    ("diff_edge_p_holm", "Edge diff p, Holm"),
    ("edge_differs_family", "Edge differs, Holm"),
)
PAIRED, UNPAIRED, BASELINE = "paired", "unpaired", "baseline"


class UnknownMetricError(BaccaratError):
    """A metric name that is not in the metric table."""


class UnknownConfigurationError(BaccaratError):
    """A baseline that names no configuration of the runs."""


def metric_names() -> list[str]:
    """Every column a comparison can be sorted by, in table order."""
    return [m.name for m in SUMMARY_METRICS] + [n for n, _ in DIFF_COLUMNS[2:]] + [
        n for n, _ in FAMILY_COLUMNS if n.endswith(("_p", "_holm"))]


def check_metric(name: str) -> str:
    """``name`` if it is a metric; else an error listing them with the closest match."""
    names = metric_names()
    if name in names:
        return name
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownMetricError(f"unknown metric {name!r}{hint}; metrics: {', '.join(names)}")


@dataclass
class _Config:
    """One configuration of one run, and where its session results live."""

    run: Run
    index: int        # row in the run's summary
    config: int       # config number inside the run
    label: str


class _Nets:
    """Per-session net results of each run's configurations, read once per run."""

    def __init__(self) -> None:
        self._cache: dict[int, dict[int, tuple[np.ndarray, ...]]] = {}

    def get(self, item: _Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(session ids, first shoe, net) of one configuration, sorted by session."""
        session, first, net, _ = self._read(item)
        return session, first, net

    def edge_values(self, item: _Config) -> np.ndarray:
        """Per session, e + (net - e x wagered) / mean wagered, e the realized edge: their
        mean is e, and a mean difference of them is the difference in realized edge with
        its delta-method interval (empty when it never staked)."""
        _, _, net, wagered = self._read(item)
        total = float(wagered.sum())
        if total <= 0:
            return np.empty(0)
        edge = float(net.sum()) / total
        return edge + (net - edge * wagered) / (total / wagered.size)

    def _read(self, item: _Config) -> tuple[np.ndarray, ...]:
        key = id(item.run)
        if key not in self._cache:
            frame = item.run.sessions(["config", "session", "first_shoe", "net", "wagered"])
            frame = frame.sort_values(["config", "session"], kind="stable")
            configs = frame["config"].to_numpy()
            self._cache[key] = {}
            for config in np.unique(configs):
                part = frame[configs == config]
                self._cache[key][int(config)] = (
                    part["session"].to_numpy(), part["first_shoe"].to_numpy(),
                    part["net"].to_numpy(dtype=np.float64),
                    part["wagered"].to_numpy(dtype=np.float64))
        empty = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), np.empty(0))
        return self._cache[key].get(item.config, empty)


def configurations(runs: list[Run]) -> list[_Config]:
    """Every configuration of ``runs`` with the label the comparison gives it."""
    items: list[_Config] = []
    for run in runs:
        specs = run.summary["spec"].astype(str).tolist()
        configs = run.summary["config"].astype(int).tolist()
        for index, (spec, config) in enumerate(zip(specs, configs, strict=True)):
            label = spec if len(runs) == 1 else f"{run.label}/{spec}"
            items.append(_Config(run, index, config, label))
    counts: dict[str, int] = {}
    for item in items:
        counts[item.label] = counts.get(item.label, 0) + 1
    seen: dict[str, int] = {}
    for item in items:
        if counts[item.label] > 1:
            seen[item.label] = seen.get(item.label, 0) + 1
            item.label = f"{item.label}#{seen[item.label]}"
    return items


def same_shoes(a: _Config, b: _Config, nets: _Nets) -> bool:
    """Whether two configurations played the same shoes in the same sessions."""
    if a.run is not b.run:
        if a.run.shoes_key() != b.run.shoes_key() or a.run.session_shoes != b.run.session_shoes:
            return False
    sa, fa, _ = nets.get(a)
    sb, fb, _ = nets.get(b)
    return sa.size > 0 and np.array_equal(sa, sb) and np.array_equal(fa, fb)


def _difference(a: _Config, b: _Config, nets: _Nets) -> Difference:
    """Mean net of ``a`` minus that of ``b``: paired when they played the same shoes."""
    net_a, net_b = nets.get(a)[2], nets.get(b)[2]
    if same_shoes(a, b, nets):
        return paired_difference(net_a, net_b)
    return welch_difference(net_a, net_b)


def _edge_difference(a: _Config, b: _Config, nets: _Nets) -> Difference:
    """Realized edge of ``a`` minus that of ``b`` (per unit staked): paired session by
    session when they played the same shoes, so a system that only stakes less at the
    same edge differs by nothing."""
    x_a, x_b = nets.edge_values(a), nets.edge_values(b)
    if x_a.size and x_a.size == x_b.size and same_shoes(a, b, nets):
        return paired_difference(x_a, x_b)
    return welch_difference(x_a, x_b)


def difference_reason(row: dict[str, Any], base: dict[str, Any], edge_differs: bool) -> str:
    """Why a configuration's mean net differs from the baseline's, in words: its edge
    (only where the test says so), how much it staked, how often it busted."""
    reasons = []
    edge, base_edge = float(row["realized_edge"]), float(base["realized_edge"])
    if edge_differs:
        reasons.append("higher edge" if edge > base_edge else "lower edge")
    staked, base_staked = float(row["mean_wagered"]), float(base["mean_wagered"])
    if base_staked > 0 and abs(staked / base_staked - 1) > STAKE_TOLERANCE:
        reasons.append("staked less" if staked < base_staked else "staked more")
    bust, base_bust = float(row["bust_rate"]), float(base["bust_rate"])
    if abs(bust - base_bust) > BUST_TOLERANCE:
        reasons.append("busted more" if bust > base_bust else "busted less")
    return ", ".join(reasons)


#: How far the mean staked or the bust rate may differ from the baseline's before the
#: comparison names it as a reason (5% of the stake, one point of bust rate).
STAKE_TOLERANCE, BUST_TOLERANCE = 0.05, 0.01


def _pick_baseline(items: list[_Config], baseline: str | int | None) -> _Config:
    if baseline is None:
        return items[0]
    if isinstance(baseline, int):
        if not 0 <= baseline < len(items):
            raise UnknownConfigurationError(
                f"baseline {baseline} out of range: there are {len(items)} configurations")
        return items[baseline]
    by_label = {item.label: item for item in items}
    if baseline in by_label:
        return by_label[baseline]
    by_spec = [item for item in items if str(item.run.summary["spec"].iloc[item.index])
               == baseline]
    if len(by_spec) == 1:
        return by_spec[0]
    close = difflib.get_close_matches(baseline, list(by_label), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    what = "names several configurations" if by_spec else "is not a configuration"
    raise UnknownConfigurationError(
        f"baseline {baseline!r} {what}{hint}; configurations: {', '.join(by_label)}")


def compare(runs: Runs, sort: str | None = None, *,
            ascending: bool = False, baseline: str | int | None = None) -> pd.DataFrame:
    """One row per configuration across ``runs``: labels, summary metrics, difference.

    ``runs`` are run folders, ``BacktestResult``s or ``Run``s, or a mapping of labels to
    them (rows are labelled ``run/spec`` when there are several runs). The metric columns
    follow ``SUMMARY_METRICS``; then each row's mean net minus the baseline's (the first
    configuration unless ``baseline`` names one, by label, spec or position) with its 95%
    interval, paired session by session when both played the same shoes. ``sort`` orders
    the rows by a metric (largest first unless ``ascending``).
    """
    if sort is not None:
        check_metric(sort)
    opened = load_runs(runs)
    items = configurations(opened)
    if not items:
        raise BaccaratError("the runs hold no configurations to compare")
    base = _pick_baseline(items, baseline)
    nets = _Nets()
    rows = []
    for item in items:
        summary = item.run.summary.iloc[item.index]
        dataset = item.run.info.get("dataset") or {}
        row: dict[str, object] = {
            "label": item.label,
            "run": item.run.shown or item.run.label,
            "config": item.config,
            "strategy": summary.get("strategy", ""),
            "spec": summary["spec"],
            "params": summary.get("params", ""),
            "rules": summary.get("rules", ""),
            "dataset": dataset.get("description") or item.run.fingerprint,
        }
        for metric in SUMMARY_METRICS:
            row[metric.name] = summary[metric.name] if metric.name in summary else math.nan
        row["baseline"] = base.label
        if item is base:
            row.update(pairing=BASELINE, diff_sessions=len(nets.get(item)[2]),
                       diff_mean_net=0.0, diff_low=math.nan, diff_high=math.nan,
                       significant=False, diff_edge=0.0, diff_edge_low=math.nan,
                       diff_edge_high=math.nan, edge_differs=False, diff_reason="",
                       diff_p=math.nan, diff_edge_p=math.nan)
        else:
            diff = _difference(item, base, nets)
            edge = _edge_difference(item, base, nets)
            row.update(pairing=PAIRED if diff.paired else UNPAIRED, diff_sessions=diff.n,
                       diff_mean_net=diff.estimate, diff_low=diff.low, diff_high=diff.high,
                       significant=diff.significant, diff_edge=edge.estimate,
                       diff_edge_low=edge.low, diff_edge_high=edge.high,
                       edge_differs=edge.significant, diff_p=diff.p_value,
                       diff_edge_p=edge.p_value)
        rows.append(row)
    base_row = next(r for r in rows if r["pairing"] == BASELINE)
    for row in rows:
        if row is not base_row:
            row["diff_reason"] = difference_reason(row, base_row, bool(row["edge_differs"]))
    frame = pd.DataFrame(rows, columns=[*LABEL_COLUMNS, *(m.name for m in SUMMARY_METRICS),
                                        *(n for n, _ in DIFF_COLUMNS), "diff_p",
                                        "diff_edge_p"])
    frame = _with_family(frame)
    if sort is not None:
        frame = frame.sort_values(sort, ascending=ascending, kind="stable",
                                  na_position="last").reset_index(drop=True)
    return frame


def _with_family(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with the family-wise columns: the edge verdict and the significance of
    the difference again, Holm-adjusted over every configuration of the table."""
    from ..search.family import LEVEL, family_edge_verdicts, holm_with_gaps

    edge_p, edge_holm, edge_verdict = family_edge_verdicts(frame)
    if "edge_p" in frame.columns:  # the summary's own: moved beside its Holm twin
        frame.pop("edge_p")
    diff_p = frame.pop("diff_p").to_numpy(dtype=np.float64)
    diff_holm = holm_with_gaps(diff_p)
    diff_edge_p = frame.pop("diff_edge_p").to_numpy(dtype=np.float64)
    diff_edge_holm = holm_with_gaps(diff_edge_p)
    frame["edge_p"] = edge_p
    frame["edge_p_holm"] = edge_holm
    frame["edge_verdict_family"] = edge_verdict
    frame["diff_p"] = diff_p
    frame["diff_p_holm"] = diff_holm
    frame["significant_family"] = np.where(np.isnan(diff_holm), False, diff_holm < LEVEL)
    frame["diff_edge_p"] = diff_edge_p
    frame["diff_edge_p_holm"] = diff_edge_holm
    frame["edge_differs_family"] = np.where(np.isnan(diff_edge_holm), False,
                                            diff_edge_holm < LEVEL)
    return frame


def write_comparison(frame: pd.DataFrame, path: str | Path, *, force: bool = False) -> Path:
    """Write a comparison table to ``path`` as Parquet, saying what it is: an output of its
    own (``baccarat.io.owner.claim_output``; an existing one replaced only with ``force``)."""
    with claim_output(path, force=force, what="comparison") as claim:
        write_comparison_file(frame, claim.temp)
    return Path(path)


def write_comparison_file(frame: pd.DataFrame, path: Path) -> None:
    """The comparison's Parquet file at ``path`` (a file the caller owns)."""
    import pyarrow.parquet as pq

    runs = sorted(set(frame["run"].astype(str))) if "run" in frame else []
    table = with_metadata(pa.Table.from_pandas(frame, preserve_index=False),
                          {"kind": "comparison", "runs": runs})
    pq.write_table(table, path, compression=COMPRESSION)


def differences(runs: Runs, pairs: str = "all",
                baseline: str | int | None = None) -> pd.DataFrame:
    """The difference in mean net (a - b) for pairs of configurations, with 95% intervals.

    ``pairs="all"`` gives every pair in the order given; ``"baseline"`` each
    configuration against the baseline only.
    """
    items = configurations(load_runs(runs))
    nets = _Nets()
    if pairs == "all":
        chosen = list(itertools.combinations(items, 2))
    elif pairs == "baseline":
        base = _pick_baseline(items, baseline)
        chosen = [(item, base) for item in items if item is not base]
    else:
        raise BaccaratError(f"pairs must be 'all' or 'baseline', got {pairs!r}")
    rows = []
    for a, b in chosen:
        diff = _difference(a, b, nets)
        rows.append({"a": a.label, "b": b.label, "pairing": PAIRED if diff.paired else UNPAIRED,
                     "sessions": diff.n, "diff_mean_net": diff.estimate, "diff_low": diff.low,
                     "diff_high": diff.high, "significant": diff.significant})
    return pd.DataFrame(rows, columns=["a", "b", "pairing", "sessions", "diff_mean_net",
                                       "diff_low", "diff_high", "significant"])
