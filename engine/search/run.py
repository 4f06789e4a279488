"""``search()``: many configurations over the same shoes, chosen and checked honestly.

1. The specs' space is expanded (or sampled, ``sample``/``seed``) into configurations.
2. All of them play the dataset in one backtest (``run/``).
3. The sessions are split (hold-out, walk-forward or cross-validation folds, in the
   dataset's order); each fold picks the best configuration on its choosing sessions by
   the metric and is judged on its evaluation sessions.
4. Over all sessions, every configuration's p-value of "its realized edge beats its
   expected edge" is adjusted for the number tried (Holm, Romano-Wolf), and the best
   gets White's Reality Check and Hansen's SPA p-values.
5. With ``null`` N, the same configurations play N fair datasets of the same shape in one
   more backtest (``null/``): the distribution of the best metric by chance, and where the
   observed best stands in it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..coups import Coups
from ..errors import BaccaratError, ChunkFailed, Interrupted
from ..job import BacktestJob, Run
from ..metrics import edge_verdict, ratio_interval
from ..replay import SessionPolicy
from ..rules import TableRules
from .adjust import (
    DEFAULT_REPS,
    LEVEL,
    FamilyTests,
    edge_tests,
    family_tests,
    studentized,
)
from .metric import BASE_COLUMNS, SearchMetric, parse_metric
from .null import check_null_shape, play_null
from .result import (
    BEATS,
    CHANCE,
    COLUMNS,
    NEVER_BET,
    NULL_FOLDER,
    RUN_FOLDER,
    SEARCH_FILE,
    SearchResult,
    checked_sentence,
    chosen_column,
    family_sentence,
    null_sentences,
)
from .sessions import SessionMatrix, read_sessions
from .space import Space
from .splits import Split, fold_split, holdout_split, id_ranges, name_ids

#: The most configurations a search plays without ``--sample``.
MAX_GRID = 100_000

def search(
    coups: Coups | str | Path,
    strategies: Sequence[str],
    *,
    metric: str | None = None,
    holdout: float | None = None,
    folds: int | None = None,
    walk_forward: bool = False,
    sample: int | None = None,
    seed: int = 0,
    null: int = 0,
    null_seed: int | None = None,
    reps: int = DEFAULT_REPS,
    rules: TableRules | None = None,
    session: SessionPolicy | None = None,
    out: str | Path | None = None,
    force: bool = False,
    workers: int | None = 1,
    command: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> SearchResult:
    """Search the configurations ``strategies`` stand for over the shoes of ``coups``.

    ``metric`` says what "best" means (default: realized edge minus expected edge);
    ``holdout`` (default 0.5) is the share of the sessions, the last ones, held back from
    the choice to check it on; ``folds`` K with ``walk_forward`` chooses on the sessions
    before each of K folds instead (without ``walk_forward``: on the other folds).
    ``sample`` K draws K configurations from the space with ``seed``. ``null`` N plays the
    same configurations over N fair datasets of the same shape (seed ``null_seed``,
    default ``seed``). ``reps`` bootstrap samples feed the step-down and the SPA. The
    outputs go to the folder ``out`` (a temporary one when None): ``search.parquet``,
    ``null.parquet``, and the run folders ``run/`` and ``null/``.
    ``session``: the session rules (``baccarat.Session``), as ``backtest`` takes them.
    ``progress(stage, done, total)`` is told how the runs advance.
    """
    started = time.perf_counter()
    chosen_metric = parse_metric(metric)
    if folds is not None and holdout is not None:
        raise BaccaratError("give holdout or folds, not both", params=("holdout", "folds"))
    if walk_forward and folds is None:
        raise BaccaratError("walk_forward=True needs folds K (the number of folds)",
                            params=("walk_forward", "folds"))
    if null < 0:
        raise BaccaratError(f"null {null}: expected a number of fair datasets, 0 or more",
                            params=("null",))
    if null == 1:
        raise BaccaratError("null 1: one fair dataset gives no distribution; use 0 (none) "
                            "or 2 or more (200 read the one-in-20 figure well)", params=("null",))
    if reps < 100:
        raise BaccaratError(f"reps {reps}: expected at least 100 bootstrap samples",
                            params=("reps",))
    policy = session or SessionPolicy()
    session_shoes = policy.session_shoes
    space = Space(list(strategies))
    if sample is not None:
        indices, configs = space.sample(sample, seed)
    elif len(space) > MAX_GRID:
        raise BaccaratError(f"the specs stand for {len(space):,} configurations, more than "
                            f"{MAX_GRID:,} to play whole; draw some with sample K "
                            f"(and seed S)", params=("sample", "seed"))
    else:
        indices, configs = list(range(len(space))), list(space)
    with _pinned(coups):  # the same shoes from the first read to the null's last
        coups = _in_memory(coups, rules)
        first_read = _files_identity(coups)
        shoe_ids, lengths = dataset_shoes(coups)
        sessions = -(-shoe_ids.size // max(session_shoes, 1))
        split = (fold_split(sessions, folds, walk_forward) if folds is not None
                 else holdout_split(sessions, 0.5 if holdout is None else holdout))
        if null:
            check_null_shape(shoe_ids.size, session_shoes, len(configs), null)
        stack = contextlib.ExitStack()
        temp = None
        folder = Path(out) if out is not None else Path()
        with stack, _named_as(out, lambda: folder):
            if out is None:
                import tempfile

                temp = tempfile.TemporaryDirectory(prefix="baccarat-search-")
                folder = Path(temp.name) / "search"
                folder.mkdir()
            else:
                from ..io.owner import claim_output

                folder = stack.enter_context(claim_output(
                    out, force=force, folder=True, ours=is_search_folder, what="search")).temp
            how = Run(workers=workers, ledger=False, force=True, chunk_shoes=chunk_shoes(
                configs, rules or TableRules(), shoe_ids.size, workers))

            def stage(name: str) -> Callable[[int, int], None] | None:
                if progress is None:
                    return None
                return lambda n_coups, n_sessions: progress(name, n_sessions, n_coups)

            from ..backtest import play

            timings: dict[str, float] = {}
            clock = time.perf_counter()

            def lap(name: str) -> None:
                nonlocal clock
                now = time.perf_counter()
                timings[name] = round(now - clock, 3)
                clock = now

            run = play(BacktestJob(coups, configs, rules=rules, session=policy,
                                   run=replace(how, out=folder / RUN_FOLDER,
                                               progress=stage("search") or False),
                                   command=command))
            matrix = read_sessions(folder / RUN_FOLDER, len(configs), (*BASE_COLUMNS,
                                                                      *chosen_metric.columns))
            lap("play")
            if _files_identity(coups) != first_read:  # swapped since the shoes were counted
                raise BaccaratError(
                    f"{coups} changed while the search read it (its files are not those "
                    f"its hold-out split was made from); run the search again once nothing "
                    f"replaces it")
            if matrix.sessions != sessions:
                raise BaccaratError(f"{run.info['dataset']['description']}: {matrix.sessions} "
                                    f"sessions played, {sessions} expected")
            shoes_of = session_shoe_ids(shoe_ids, session_shoes)
            table, split_doc = choose_and_check(matrix, chosen_metric, split, shoes_of, configs)
            lap("choose")
            family = family_tests(matrix.columns["net"], matrix.columns["wagered"],
                                  matrix.columns["expected_net"], reps=reps, seed=seed)
            lap("adjust")
            with_tests(table, family)
            table.insert(1, "space_index", np.asarray(indices, dtype=np.int64))
            metric_doc = {"name": chosen_metric.name, "title": chosen_metric.title,
                          "fmt": chosen_metric.fmt, "higher": chosen_metric.higher}
            z_all = family.tests.z
            best_z = int(np.argmax(z_all))  # the family-wise best: the largest z
            best_all = best_z if chosen_metric.studentize else chosen_metric.best(
                table["metric_all"].to_numpy())
            beats = [str(s) for s in table.loc[table["verdict"] == BEATS].sort_values(
                "p_stepdown")["spec"]]
            best_spec = str(table["spec"][best_z])
            rules_used = TableRules(**run.info["rules"])
            shoes = int(shoe_ids.size)
            opening = family_sentence(tried=len(configs), shoes=shoes, beats=beats,
                                      best_spec=best_spec, best_z=float(z_all[best_z]),
                                      best_p=float(family.stepdown[best_z]),
                                      reality_check=family.reality_check, spa=family.spa)
            document: dict[str, Any] = {
                "version": run.info["version"],
                "command": command or "",
                "verdict": {"found": bool(beats), "configurations": beats,
                            "sentence": opening},
                "dataset": {**run.info["dataset"], "sessions": sessions,
                            "session_shoes": session_shoes},
                "rules": run.info["rules"],
                "policy": run.info["policy"],
                "space": {"specs": list(strategies), "size": len(space), "tried": len(configs),
                          "sample": sample, "seed": seed},
                "metric": metric_doc,
                "split": split_doc,
                "family": {"level": LEVEL, "reps": reps, "seed": seed, "beats": beats,
                           "best_config": best_z, "best_spec": best_spec,
                           "best_z": float(z_all[best_z]),
                           "reality_check": family.reality_check, "spa": family.spa},
                "best": {"config": best_all, "spec": str(table["spec"][best_all]),
                         "metric": float(table["metric_all"][best_all])},
                "runs": {"observed": RUN_FOLDER},
            }
            sentences = [opening]
            null_table = None
            if null:
                fair_how = replace(how, chunk_shoes=chunk_shoes(
                    configs, rules_used, shoe_ids.size * null, workers))
                result = play_null(configs, lengths, rules_used, null,
                                   seed if null_seed is None else null_seed,
                                   folder / NULL_FOLDER, policy, fair_how,
                                   progress=stage("fair datasets"))
                lap("null")
                null_doc = result.summary(float(z_all[best_z]))
                document["null"] = null_doc
                document["runs"]["null"] = NULL_FOLDER
                sentences += null_sentences(tried=len(configs), shoes=shoes, null=null_doc,
                                            best_spec=best_spec, found=bool(beats))
                null_table = result.table([str(s) for s in table["spec"]], shoes)
            sentences.append(checked_sentence(split_doc, metric_doc, beats))
            document["sentence"] = opening
            document["sentences"] = sentences
            searched = SearchResult(table[list(COLUMNS)], document, null_table)
            document["timings"] = timings
            document["seconds"] = round(time.perf_counter() - started, 3)
            searched.write(folder)
    searched.path = Path(out) if out is not None else None
    if temp is not None:
        searched._temp = temp  # type: ignore[attr-defined]  # lives as long as the result
    return searched


def with_tests(table: pd.DataFrame, family: FamilyTests) -> None:
    """Add each configuration's test to the table: z, the raw, Holm and step-down
    p-values, and the verdict (beats its expected edge where the step-down p is below
    the level; never bet where it staked nothing)."""
    table["z"] = family.tests.z
    table["p_raw"] = family.tests.p
    table["p_holm"] = family.holm
    table["p_stepdown"] = family.stepdown
    table["verdict"] = np.where(~np.isfinite(family.tests.statistic), NEVER_BET,
                                np.where(family.stepdown < LEVEL, BEATS, CHANCE))


def _pinned(coups: Coups | str | Path) -> contextlib.AbstractContextManager[object]:
    """Hold the dataset file against our writers (``generate --force``, ``import
    --force``) for the whole search: its hold-out, folds and null all read the same
    shoes, not only each backtest for its own run."""
    if isinstance(coups, Coups) or not Path(coups).exists():
        return contextlib.nullcontext()
    from ..io.owner import pinned

    return pinned(coups)


def _files_identity(coups: Coups | str | Path) -> list[tuple[str, int, int, int, int]]:
    """Each file of a stored dataset by (name, device, inode, size, mtime): the same list
    later means the same files, not others moved or written into their place."""
    if isinstance(coups, Coups) or not Path(coups).exists():
        return []
    from ..io.parquet import parquet_files

    found = []
    for file in parquet_files(Path(coups)):
        stat = os.stat(file)
        found.append((str(file), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return found


def _in_memory(coups: Coups | str | Path, rules: TableRules | None) -> Coups | str | Path:
    """A file that is not a coups Parquet dataset imported in memory, as ``backtest``
    takes anything ``baccarat import`` reads; anything else as it is."""
    if isinstance(coups, Coups) or not Path(coups).exists():
        return coups
    from ..io.inputs import import_in_memory, is_coups_parquet

    return coups if is_coups_parquet(coups) else import_in_memory(coups, rules)


@contextlib.contextmanager
def _named_as(out: str | Path | None, temporary: Callable[[], Path]) -> Iterator[None]:
    """Errors raised while the search writes under its temporary folder name the folder
    the user gave (``out``), as every other message does; an interrupted search says it
    wrote nothing (the folder is claimed whole: it appears only when complete)."""
    try:
        yield
    except KeyboardInterrupt:
        kept = "" if out is None else f" ({out} is as it was)"
        raise Interrupted(f"interrupted: the search wrote nothing{kept}") from None
    except ChunkFailed as exc:  # the folder is claimed whole: nothing to resume
        kept = "" if out is None else f" ({out} is as it was)"
        raise ChunkFailed(exc.message, f"the search wrote nothing{kept}") from exc.__cause__
    except BaccaratError as exc:
        where = str(temporary())
        if out is None or where in ("", ".") or where not in str(exc):
            raise
        renamed = copy.copy(exc)
        renamed.args = (str(exc).replace(where, str(out)), *exc.args[1:])
        raise renamed from None


def is_search_folder(path: Path) -> bool:
    """Whether ``path`` is a folder a search wrote (its ``search.parquet`` says so), which
    ``--force`` may replace."""
    from ..io.parquet import read_metadata

    file = path / SEARCH_FILE
    if not path.is_dir() or not file.is_file():
        return False
    try:
        return read_metadata(file).get("kind") == "search"
    except Exception:  # unreadable: not ours to replace
        return False


#: The most configuration-shoes a chunk settles on the fused path (each keeps a session
#: row of some 35 columns, about 300 bytes: some 300 MB per chunk at most).
FUSED_CONFIG_SHOES = 1_000_000


def chunk_shoes(configs: list[Any], rules: TableRules, shoes: int,
                workers: int | None) -> int:
    """Shoes per chunk for a search over ``shoes`` shoes: at most the backtest's bound on
    the replay's grids counted over the configurations the replay plays (the fused path
    keeps no grid) and a bound on the sessions tables of all, and as many chunks as make
    every worker's share the same. Fewer, bigger chunks mean fewer replay steps, each over
    more sessions; whole rounds mean no worker waits on a last lone chunk (the 39-grid's
    null of 60,000 shoes: 4 chunks of 15,000 on 2 workers, not 20,000, 20,000 and a
    third round of 20,000 for one of them)."""
    from ..backtest import CHUNK_CONFIG_SHOES, DEFAULT_CHUNK_SHOES
    from ..fused import fused_plan
    from ..parallel import resolve_workers

    plan = fused_plan(configs, rules, None, ledger=False, expected="auto")
    replayed = len(configs) - (len(plan.configs) if plan is not None else 0)
    most = max(1, min(DEFAULT_CHUNK_SHOES, CHUNK_CONFIG_SHOES // max(replayed, 1),
                      FUSED_CONFIG_SHOES // max(len(configs), 1)))
    shoes = max(shoes, 1)
    running = max(1, min(resolve_workers(workers, shoes), shoes))
    chunks = math.ceil(shoes / most)
    rounds = math.ceil(chunks / running)
    return math.ceil(shoes / (rounds * running))


def dataset_shoes(coups: Coups | str | Path) -> tuple[np.ndarray, np.ndarray]:
    """The dataset's shoe ids in order and each shoe's number of coups (reads only the
    shoe column of a file)."""
    if isinstance(coups, Coups):
        shoe = coups.shoe
    else:
        import pyarrow.dataset as ds

        from ..io.parquet import check_complete, parquet_files

        path = Path(coups)
        if not path.exists():
            raise FileNotFoundError(f"no coups file at {path}")
        check_complete(path)
        files = parquet_files(path)
        if not files:
            raise BaccaratError(f"{path} holds no Parquet files; expected a coups table")
        try:
            shoe = ds.dataset([str(f) for f in files], format="parquet").to_table(
                columns=["shoe"]).column("shoe").to_numpy()
        except Exception as exc:  # pyarrow's errors name the file and column
            raise BaccaratError(f"{path}: no readable shoe column ({exc}); expected what "
                                f"`baccarat generate` or `baccarat import` writes") from None
    if not len(shoe):
        raise BaccaratError("the dataset holds no coups")
    starts = np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]])
    lengths = np.diff(np.r_[starts, len(shoe)]).astype(np.int64)
    return np.asarray(shoe[starts], dtype=np.int64), lengths


def session_shoe_ids(shoe_ids: np.ndarray, session_shoes: int) -> list[np.ndarray]:
    """The shoe ids of each session (``session_shoes`` consecutive shoes)."""
    return [shoe_ids[i:i + session_shoes] for i in range(0, shoe_ids.size, session_shoes)]


def part_figures(columns: dict[str, np.ndarray], metric: SearchMetric) -> dict[str, Any]:
    """One configuration's figures over some sessions (1 x sessions matrices): the metric,
    the realized edge with its 95% interval, the expected edge, the verdict on it and the
    one-sided p-value of "realized beats expected"."""
    net, wagered = columns["net"][0], columns["wagered"][0]
    edge, low, high = ratio_interval(net, wagered)
    total = float(wagered.sum())
    expected = float(columns["expected_net"][0].sum()) / total if total > 0 else math.nan
    p = float(edge_tests(columns["net"], columns["wagered"], columns["expected_net"]).p[0])
    return {"sessions": int(net.size), "metric": float(metric.values(columns)[0]),
            "realized_edge": edge, "low": low, "high": high, "expected_edge": expected,
            "edge_verdict": edge_verdict(low, high, expected), "p": p}


def choose_and_check(matrix: SessionMatrix, metric: SearchMetric, split: Split,
                     shoes_of: list[np.ndarray], configs: list[Any],
                     ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every configuration's metric where chosen, where checked and over all sessions,
    its studentized statistic where chosen and its rank there (by that statistic for the
    default metric, by the metric for any other); each fold's choice; the chosen
    configurations' figures on the sessions they were checked on, concatenated in
    order."""
    every = metric.values(matrix.columns)
    folds_doc = []
    inside = np.zeros((len(split.folds), matrix.configs))
    z_inside = np.zeros((len(split.folds), matrix.configs))
    picked: list[tuple[int, np.ndarray]] = []
    for f, fold in enumerate(split.folds):
        part = matrix.take(fold.choose)
        values = metric.values(part)
        inside[f] = values
        z_inside[f] = studentized(part["net"], part["wagered"], part["expected_net"])
        best = metric.best(z_inside[f] if metric.studentize else values)
        picked.append((best, fold.evaluate))
        choose_ids = np.concatenate([shoes_of[i] for i in fold.choose])
        evaluate_ids = (np.concatenate([shoes_of[i] for i in fold.evaluate])
                        if fold.evaluate.size else np.empty(0, np.int64))
        entry = {"name": fold.name, "config": best, "spec": configs[best].spec(),
                 "metric_in": float(values[best]), "z_in": float(z_inside[f][best]),
                 "choose_shoes": id_ranges(choose_ids), "choose_text": name_ids(choose_ids),
                 "evaluate_shoes": id_ranges(evaluate_ids),
                 "evaluate_text": name_ids(evaluate_ids)}
        if fold.evaluate.size:
            one = {name: values_[best:best + 1, fold.evaluate]
                   for name, values_ in matrix.columns.items()}
            entry["metric_out"] = float(metric.values(one)[0])
        folds_doc.append(entry)
    evaluated = split.evaluated
    outside = (metric.values(matrix.take(evaluated)) if evaluated.size
               else np.full(matrix.configs, np.nan))
    metric_in = inside.mean(axis=0) if len(split.folds) > 1 else inside[0]
    z_in = z_inside.mean(axis=0) if len(split.folds) > 1 else z_inside[0]
    table = pd.DataFrame({
        "config": np.arange(matrix.configs, dtype=np.int64),
        "strategy": [c.name for c in configs],
        "spec": [c.spec() for c in configs],
        "params": [json.dumps(c.params(), sort_keys=True) for c in configs],
        "metric_in": metric_in,
        "metric_out": outside,
        "metric_all": every,
        "z_in": z_in,
        "rank": metric.ranks(z_in if metric.studentize else metric_in),
        "chosen": chosen_column(folds_doc, matrix.configs),
    })
    sums = {name: matrix.columns[name].sum(axis=1) for name in BASE_COLUMNS}
    with np.errstate(invalid="ignore", divide="ignore"):
        table.insert(7, "realized_edge", np.where(sums["wagered"] > 0, sums["net"] /
                                                  np.where(sums["wagered"] > 0,
                                                           sums["wagered"], 1), np.nan))
        table.insert(8, "expected_edge", np.where(sums["wagered"] > 0, sums["expected_net"] /
                                                  np.where(sums["wagered"] > 0,
                                                           sums["wagered"], 1), np.nan))
    doc: dict[str, Any] = {"scheme": split.scheme, "description": split.describe(),
                           "holdout": split.holdout, "folds": folds_doc}
    if evaluated.size:
        composite = {name: np.concatenate([values[best, where] for best, where in picked])[
            None, :] for name, values in matrix.columns.items()}
        doc["out"] = part_figures(composite, metric)
        if split.scheme == "hold-out":
            best = picked[0][0]
            doc["in"] = part_figures({name: values[best:best + 1, split.folds[0].choose]
                                      for name, values in matrix.columns.items()}, metric)
    return table, doc


__all__ = ["MAX_GRID", "choose_and_check", "dataset_shoes", "search"]
