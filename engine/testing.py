"""Testing helpers for strategy authors: play a strategy over a few coups, get its ledger.

``play(strategy, "BPPTB")`` runs the real replay engine (the same ``baccarat.replay.replay``
every backtest runs, with the same table rules, bankroll and stop rules) over the coups
given, and returns the coup-by-coup ledger as a pandas DataFrame, the table
``baccarat trace`` prints. A plugin's unit test is then three lines::

    from .testing import play

    def test_bets_banker_after_two_players():
        assert play("my_plugin.py:MyPlugin", "PPBB")["banker"].tolist() == [0, 0, 10, 0]

The ledger's columns, one row per coup a session played:

- ``session``, ``shoe``, ``coup`` (the coup's number in its shoe), ``outcome`` ("B", "P",
  "T");
- when the coups record them: ``player_cards`` and ``banker_cards`` (e.g. "4S 3H 9D"),
  ``player_total`` and ``banker_total``;
- the stake on each kind: ``banker``, ``player`` and ``tie`` always, a side bet's column
  when the strategy staked on it;
- ``net`` (what the strategy won or lost on the coup), ``expected_net`` (the exact
  expected value of its stakes on the coup: from the full shoe, or from the cards left
  for strategies that see the cards) and ``bankroll`` (after the coup);
- for strategies that use the roads (``needs_roads``, or ``roads=True``), the roads'
  newest marks after the coup: ``big_road`` (the side and length of the current big road
  column, "B3"; "T" while only ties have been dealt) and ``big_eye_boy``, ``small_road``,
  ``cockroach_pig`` ("red" or "blue" when the coup added a mark to that road, "" if not).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .bets import BET_KINDS, MAIN_BETS
from .cards import LABEL_OF_CODE
from .coups import CARD_COLUMNS, OUTCOME_LABELS, Coups, coups_from_outcomes
from .errors import BaccaratError
from .replay import ConfigLedger, SessionGrid, SessionPolicy, WhenShort, replay
from .rules import TableRules
from .strategies.base import Strategy

if TYPE_CHECKING:
    import pandas as pd

ROAD_COLUMNS = ("big_road", "big_eye_boy", "small_road", "cockroach_pig")


class PlayError(BaccaratError):
    """Input ``play`` cannot use: coups it cannot read, a strategy it cannot make."""


def play(strategy: Strategy | type[Strategy] | str, coups: Any, *,
         bankroll: float = 1000.0, rules: TableRules | None = None, shoe: int | None = None,
         session_shoes: int = 1, when_short: WhenShort = "stop",
         stop_loss: float | None = None, win_goal: float | None = None,
         max_coups: int | None = None, roads: bool | None = None,
         session: SessionPolicy | None = None) -> pd.DataFrame:
    """Play ``strategy`` over ``coups`` with the replay engine and return its ledger.

    ``strategy`` is an instance (a copy of it plays, so the instance is left as it was), a
    class (played with its defaults) or a SPEC string as ``--strategy`` takes it
    (``"martingale:base=5"``, ``"my_plugin.py:MyPlugin"``; one configuration, not a grid).
    ``coups`` is a string of outcome letters for one shoe ("BPPTB", spaces ignored), a list
    of such strings (one shoe each), a ``Coups`` table, a DataFrame of coups (columns as
    ``baccarat generate`` writes them; ``shoe``, ``coup`` and the cards optional), or the
    path of a coups Parquet dataset; ``shoe`` keeps one shoe of it. The table plays by
    ``rules`` (the defaults if None) with ``bankroll`` per session and the stop rules
    given, as ``backtest`` does. ``roads`` adds the roads' newest marks (by default when
    the strategy declares ``needs_roads``). ``session``: every session rule at once (as
    ``baccarat.Session``), instead of the few given one by one. See the module docstring
    for the columns.
    """
    config = make_one_strategy(strategy)
    table = to_coups(coups, shoe=shoe)
    rules = _with_dataset_decks(rules, table)
    policy = session or SessionPolicy(
        bankroll=bankroll, when_short=when_short, stop_loss=stop_loss, win_goal=win_goal,
        max_coups=max_coups, session_shoes=session_shoes)
    from .backtest import check_policy

    check_policy(policy, (rules,))  # the rules backtest holds a session to
    grid, (ledger,) = replay(table, [config], rules, policy)
    with_roads = config.needs_roads if roads is None else roads
    return ledger_frame(grid, table, ledger, roads=with_roads)


def _with_dataset_decks(rules: TableRules | None, coups: Coups) -> TableRules:
    """The rules to play by: a coups file's deck count is its own (as in ``backtest``), and
    rules that set another one explicitly are refused."""
    rules = rules or TableRules()
    if not coups.decks or rules.decks == coups.decks:
        return rules
    if "decks" in rules.model_fields_set:
        raise PlayError(f"the coups were dealt from {coups.decks}-deck shoes, but the rules "
                        f"say decks = {rules.decks}")
    return rules.model_copy(update={"decks": coups.decks})


def make_one_strategy(strategy: Strategy | type[Strategy] | str) -> Strategy:
    """A fresh configuration from an instance (copied), a class or a one-configuration SPEC."""
    if isinstance(strategy, Strategy):
        return copy.deepcopy(strategy)
    if isinstance(strategy, type) and issubclass(strategy, Strategy):
        from .strategies.registry import make_strategy

        return make_strategy(strategy, {})
    if isinstance(strategy, str):
        from .strategies.registry import expand_spec

        configs = expand_spec(strategy)
        if len(configs) != 1:
            raise PlayError(f"{strategy!r} is a grid of {len(configs)} configurations; "
                            f"play one at a time (give each parameter one value)")
        return configs[0]
    raise PlayError(f"strategy must be a Strategy instance, class or SPEC string, not "
                    f"{type(strategy).__name__}")


def to_coups(coups: Any, shoe: int | None = None) -> Coups:
    """A ``Coups`` table from anything ``play`` accepts (see ``play``), one shoe if asked."""
    import pandas as pd

    if isinstance(coups, Coups):
        table = coups
    elif isinstance(coups, pd.DataFrame):
        table = _coups_from_frame(coups)
    elif isinstance(coups, str) and _is_outcomes(coups):
        table = _from_letters([coups])
    elif isinstance(coups, str | Path):
        if not Path(coups).exists():
            raise (PlayError(f"{coups!r} is neither outcome letters (B, P, T) nor an "
                             f"existing coups file") if isinstance(coups, str)
                   else FileNotFoundError(f"no coups file at {coups}"))
        table = _read_dataset(Path(coups), shoe)
    elif isinstance(coups, Sequence) and all(isinstance(s, str) for s in coups):
        table = _from_letters(list(coups))
    else:
        raise PlayError(f"cannot play over a {type(coups).__name__}: give outcome letters "
                        f"(\"BPPTB\"), a list of them, a Coups table, a DataFrame or a path")
    if shoe is not None:
        rows = np.flatnonzero(table.shoe == shoe)
        if rows.size == 0:
            ids = np.unique(table.shoe)
            held = f"{ids[0]}..{ids[-1]} ({ids.size} shoes)" if ids.size else "none"
            raise PlayError(f"no shoe {shoe} in the coups; shoe ids held: {held}")
        table = table.take(rows)
    return table


def _is_outcomes(text: str) -> bool:
    letters = text.replace(" ", "").upper()
    return bool(letters) and set(letters) <= set(OUTCOME_LABELS)


def _from_letters(shoes: list[str]) -> Coups:
    cleaned = [s.replace(" ", "") for s in shoes]
    try:
        return coups_from_outcomes(cleaned)
    except ValueError as exc:
        raise PlayError(f"outcomes: {exc}") from None


def _read_dataset(path: Path, shoe: int | None = None) -> Coups:
    """A coups Parquet file or folder, or only one shoe of it (the others are not read)."""
    import pyarrow.parquet as pq

    from .io.inputs import import_in_memory, is_coups_parquet
    from .io.parquet import check_complete, read_coups, read_metadata

    if not is_coups_parquet(path):  # anything `baccarat import` reads, imported in memory
        table = import_in_memory(path)
        if shoe is None:
            return table
        picked = table.take(np.flatnonzero(table.shoe == shoe))
        if not len(picked):
            ids = table.shoe_ids()
            held = f"{ids[0]}..{ids[-1]} ({ids.size} shoes)" if ids.size else "none"
            raise PlayError(f"no shoe {shoe} in {path}; shoe ids held: {held}")
        return picked
    if shoe is None:
        table, _ = read_coups(path)
        return table
    check_complete(path)
    coups = Coups.from_arrow(pq.read_table(path, filters=[("shoe", "=", shoe)]))
    decks = (read_metadata(path).get("rules") or {}).get("decks")
    coups.decks = int(decks) if decks else None
    if not len(coups):
        ids = np.unique(pq.read_table(path, columns=["shoe"]).column("shoe").to_numpy())
        held = f"{ids[0]}..{ids[-1]} ({ids.size} shoes)" if ids.size else "none"
        raise PlayError(f"no shoe {shoe} in {path}; shoe ids held: {held}")
    return coups


def _coups_from_frame(frame: pd.DataFrame) -> Coups:
    """A coups DataFrame (storage columns; only ``outcome`` required) as a ``Coups``."""
    import pyarrow as pa

    if "outcome" not in frame.columns:
        raise PlayError(f"the DataFrame has no 'outcome' column; columns: "
                        f"{', '.join(map(str, frame.columns))}")
    frame = frame.reset_index(drop=True)
    n = len(frame)
    if "shoe" not in frame.columns:
        frame = frame.assign(shoe=0)
    if "coup" not in frame.columns:
        frame = frame.assign(coup=frame.groupby("shoe").cumcount() + 1)
    frame = frame.assign(outcome=frame["outcome"].astype(str).str.upper())
    for name in CARD_COLUMNS:  # any spelling parse_card reads ("Th", "10h", "9♥")
        if name in frame.columns:
            frame[name] = _canonical_cards(frame[name], name)
    frame = frame.sort_values(["shoe", "coup"], kind="stable").reset_index(drop=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    for name in CARD_COLUMNS:
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(n, pa.string()))
    for name in ("player_total", "banker_total"):
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(n, pa.int8()))
    coups = Coups.from_arrow(table)
    bad = np.flatnonzero(coups.outcome < 0)
    if bad.size:
        i = int(bad[0])
        raise PlayError(f"DataFrame row {i} (shoe {coups.shoe[i]}, coup {coups.coup[i]}): "
                        f"outcome {frame['outcome'].iloc[i]!r} is not B, P or T")
    return coups


def _canonical_cards(column: pd.Series, name: str) -> pd.Series:
    """A card column with every card spelt as the coups table stores it ("TH" -> "10H")."""
    from .cards import parse_card

    values = column.astype(object)
    present = values.notna() & (values.astype(str).str.strip() != "")
    labels: dict[str, str] = {}
    for position, text in zip(values.index[present], values[present].astype(str), strict=True):
        if text not in labels:
            try:
                labels[text] = LABEL_OF_CODE[parse_card(text)]
            except BaccaratError as exc:
                raise PlayError(f"DataFrame row {position}, {name}: {exc}") from None
    return values.where(present, None).map(lambda v: labels.get(str(v)) if v else None)


def ledger_frame(grid: SessionGrid, coups: Coups, ledger: ConfigLedger,
                 roads: bool = False) -> pd.DataFrame:
    """One configuration's ledger from ``replay`` as the DataFrame ``play`` returns."""
    import pandas as pd

    session_index, step = np.nonzero(ledger.played)
    rows = grid.rows[session_index, step]
    frame: dict[str, Any] = {
        "session": grid.session_ids[session_index],
        "shoe": coups.shoe[rows],
        "coup": coups.coup[rows].astype(np.int64),
        "outcome": np.array(OUTCOME_LABELS, dtype=object)[coups.outcome[rows]],
    }
    if coups.has_cards:
        labels = np.array([*LABEL_OF_CODE, ""], dtype=object)  # index -1: no card
        cards = coups.cards[rows]
        for hand, columns in (("player", (0, 1, 2)), ("banker", (3, 4, 5))):
            words = labels[cards[:, columns]]
            frame[f"{hand}_cards"] = [" ".join(w for w in row if w) for row in words]
    if coups.has_totals:
        frame["player_total"] = coups.player_total[rows].astype(np.int64)
        frame["banker_total"] = coups.banker_total[rows].astype(np.int64)
    for kind in BET_KINDS:
        stake = ledger.stakes.get(kind)
        if stake is not None or kind in MAIN_BETS:
            frame[kind] = stake[session_index, step] if stake is not None else np.zeros(rows.size)
    frame["net"] = ledger.net[session_index, step]
    frame["expected_net"] = ledger.expected_net()[session_index, step]
    frame["bankroll"] = ledger.bankroll[session_index, step]
    if roads:
        marks = road_marks(grid, coups)
        for name in ROAD_COLUMNS:
            frame[name] = marks[name][session_index, step]
    return pd.DataFrame(frame)


def road_marks(grid: SessionGrid, coups: Coups) -> dict[str, np.ndarray]:
    """The roads' newest marks after every coup of the grid, (sessions, steps) each.

    The roads are those the replay keeps (``baccarat.roads.RoadState``), started afresh at
    each new shoe and advanced one coup at a time across all sessions.
    """
    from .roads import BLUE, DERIVED_ROADS, RED, RoadState

    n, width = grid.shape
    state = RoadState(n)
    opens = np.r_[True, coups.shoe[1:] != coups.shoe[:-1]] | (coups.coup == 1) \
        if len(coups) else np.zeros(0, dtype=bool)
    colour = np.array(["", "red", "blue"], dtype=object)  # by mark: 0 none, RED 1, BLUE -1
    out = {name: np.full((n, width), "", dtype=object) for name in ROAD_COLUMNS}
    for t in range(width):
        dealt = grid.rows[:, t] >= 0
        rows = np.where(dealt, grid.rows[:, t], 0)
        new_shoe = dealt & (opens[rows] | (t == 0))
        if new_shoe.any():
            state.reset(new_shoe)
        before = [state.mark_count(k) for k in DERIVED_ROADS]
        state.append(np.where(dealt, coups.outcome[rows], 0).astype(np.int64), dealt)
        side, streak = state.side, state.streak
        cell = np.where(side >= 0,
                        np.array(OUTCOME_LABELS, dtype=object)[np.maximum(side, 0)]
                        + streak.astype(str), "T")
        out["big_road"][:, t] = np.where(dealt, cell, "")
        for k, name in zip(DERIVED_ROADS, ROAD_COLUMNS[1:], strict=True):
            added = dealt & (state.mark_count(k) > before[k - 1])
            last = state.last_colour(k)
            index = np.where(last == RED, 1, np.where(last == BLUE, 2, 0))
            out[name][:, t] = np.where(added, colour[index], "")
    return out


__all__ = ["PlayError", "ROAD_COLUMNS", "ledger_frame", "make_one_strategy", "play",
           "road_marks", "to_coups"]
