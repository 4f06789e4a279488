"""Putting a strategy through the contract: the checks ``baccarat check-strategy`` reports.

A plugin can look right on a handful of coups and still be wrong in ways a backtest hides:
state kept on the class or the module (shared by every session, so results depend on
which sessions run together), a table it writes into, stakes that are negative, not
numbers, or on a bet the table does not offer, results that change from one run to the
next. ``check_strategy`` plays the strategy with the real replay engine over generated
shoes, several ways, and compares the ledgers:

- in one chunk, then in chunks of 1 and of 7 sessions (a fresh copy of the configuration
  for each chunk, as each backtest chunk gets): the same ledger, session by session;
- over the same shoes in the reverse order: the same ledger, shoe by shoe;
- a second time from a fresh configuration: the same ledger (determinism);
- while it plays, every call (``start``, ``wager``, ``settle``) is watched: a change to
  any array of the table (or of the result it is shown) is a write; every stake returned
  is checked (a number per session, finite, not negative, on a kind the table offers).
  A write is undone and a bad stake left out, so the other checks still run;
- its speed in coups per second, playing unwatched over more shoes (1,000 sessions by
  default; the median of three runs), and the time a 10,000-shoe backtest would take.

``backtest`` runs the cheap half itself (``check_plugins``): a plugin it has not seen
checked plays a few shoes in one chunk and in chunks of one session, and a plugin whose
ledger differs is refused with the first coup that differs. A plugin that passes (here,
or every check of ``check-strategy``) is remembered by its source, in the user's cache
(``$BACCARAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/baccarat-backtest`` or
``~/.cache/baccarat-backtest``), so later runs skip it.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .bets import BET_KINDS
from .coups import Coups
from .deal import generate_coups
from .errors import BaccaratError
from .odds import bets_offered
from .replay import SessionPolicy, replay
from .rules import TableRules
from .strategies.base import Result, Strategy, Table, Wager

if TYPE_CHECKING:
    import pandas as pd

#: The chunk sizes (sessions per chunk) the chunking check replays with.
CHUNK_SIZES = (1, 7)
_TABLE_ARRAYS = ("start_bankroll", "bankroll", "coup", "shoe_coup", "new_shoe", "active",
                 "last_outcome", "history", "seen", "remaining")
_TABLE_VALUES = ("n", "rules", "roads")
_RESULT_ARRAYS = ("outcome", "player_total", "banker_total", "net", "staked", "played")


@dataclass
class Check:
    """One check: its name, whether it passed (None: could not be run) and why."""

    name: str
    passed: bool | None = None
    detail: str = ""
    error: BaseException | None = field(default=None, repr=False)  # what was raised


@dataclass
class _Watch:
    """What the watched calls saw: the first write and the first bad stakes, with where."""

    offered: frozenset[str]
    writes: list[str] = field(default_factory=list)
    stakes: list[str] = field(default_factory=list)
    unoffered: list[str] = field(default_factory=list)

    def first(self, problems: list[str], message: str) -> None:
        if not problems:
            problems.append(message)


def _snapshot(obj: Any, arrays: tuple[str, ...], values: tuple[str, ...]) -> dict[str, Any]:
    """Each attribute's object (plain attributes only: a property may build a new view on
    every read) and a copy of each array's contents."""
    own = vars(obj) if hasattr(obj, "__dict__") else {}
    shot: dict[str, Any] = {}
    for name in (*arrays, *values):
        value = getattr(obj, name, None)
        contents = np.array(value, copy=True) if name in arrays and value is not None else None
        shot[name] = (own.get(name, _PROPERTY) if name in own else _PROPERTY, contents)
    return shot


_PROPERTY = object()


def _undo_writes(obj: Any, label: str, shot: dict[str, Any], what: str, watch: _Watch,
                 where: str) -> None:
    """Record (the first) and undo every change the call made to ``obj``'s attributes."""
    own = vars(obj) if hasattr(obj, "__dict__") else {}
    for name, (before, contents) in shot.items():
        if before is not _PROPERTY and own.get(name) is not before:
            watch.first(watch.writes, f"{what}() replaced {label}.{name} ({where})")
            own[name] = before
            continue
        now = getattr(obj, name, None)
        if contents is not None and not _same(now, contents):
            watch.first(watch.writes, f"{what}() wrote into {label}.{name} ({where})")
            try:
                np.copyto(now, contents)  # type: ignore[arg-type]
            except (ValueError, TypeError):  # not writable after all: nothing to undo
                pass


def _same(now: Any, contents: np.ndarray) -> bool:
    if not isinstance(now, np.ndarray) or now.shape != contents.shape:
        return False
    equal = now == contents
    if equal.all():
        return True
    return bool((equal | (np.isnan(now) & np.isnan(contents))).all()) \
        if now.dtype.kind == "f" else False


def _place(table: Table) -> str:
    playing = np.flatnonzero(table.active)
    session = int(playing[0]) if playing.size else 0
    return f"session {session}, coup {int(table.coup[session]) + 1}"


def _checked_wager(wager: Any, table: Table, watch: _Watch) -> Wager:
    """``wager`` with every impossible stake recorded and left out."""
    if not isinstance(wager, Wager):
        watch.first(watch.stakes, f"wager() returned {type(wager).__name__}, expected a Wager "
                                  f"({_place(table)})")
        return Wager({})
    kept: dict[str, np.ndarray] = {}
    active = table.active
    for kind, stake in wager.stakes.items():
        try:
            values = np.broadcast_to(np.asarray(stake, dtype=np.float64), (table.n,)).copy()
        except (TypeError, ValueError):
            watch.first(watch.stakes, f"the stake on {kind} is {_describe(stake)}, expected "
                                      f"a number per session ({table.n},) ({_place(table)})")
            continue
        bad = active & ~(np.isfinite(values) & (values >= 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            watch.first(watch.stakes, f"stake {values[i]:g} on {kind} in session {i}, coup "
                                      f"{int(table.coup[i]) + 1}: not a finite non-negative "
                                      f"number")
            values[bad] = 0.0
        if kind not in watch.offered and (active & (values != 0)).any():
            i = int(np.flatnonzero(active & (values != 0))[0])
            watch.first(watch.unoffered, f"stake on {kind} in session {i}, coup "
                                         f"{int(table.coup[i]) + 1}; {table.rules.label()} "
                                         f"offers {', '.join(sorted(watch.offered))}")
            continue
        kept[kind] = values
    return Wager(kept)


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return f"{type(value).__name__} {value!r}"[:80]


def watched(config: Strategy, watch: _Watch, writes: bool = True) -> Strategy:
    """A copy of ``config`` whose every call is watched (see the module docstring); with
    ``writes`` False only its stakes are (watching writes copies the table at each call)."""
    cls = type(config)

    def start(self: Strategy, table: Table) -> None:
        shot = _snapshot(table, _TABLE_ARRAYS, _TABLE_VALUES) if writes else {}
        cls.start(self, table)
        _undo_writes(table, "table", shot, "start", watch, "before the first coup")

    def wager(self: Strategy, table: Table) -> Wager:
        shot = _snapshot(table, _TABLE_ARRAYS, _TABLE_VALUES) if writes else {}
        where = _place(table) if writes else ""
        stakes = cls.wager(self, table)
        _undo_writes(table, "table", shot, "wager", watch, where)
        return _checked_wager(stakes, table, watch)

    def settle(self: Strategy, table: Table, result: Result) -> None:
        if not writes:
            cls.settle(self, table, result)
            return
        shot = _snapshot(table, _TABLE_ARRAYS, _TABLE_VALUES)
        seen = _snapshot(result, _RESULT_ARRAYS, ())
        where = _place(table)
        cls.settle(self, table, result)
        _undo_writes(table, "table", shot, "settle", watch, where)
        _undo_writes(result, "result", seen, "settle", watch, where)

    namespace = {"start": start, "wager": wager, "settle": settle,
                 "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                 "__doc__": cls.__doc__}
    subclass: type[Strategy] = type(cls.__name__, (cls,), namespace)
    instance = copy.deepcopy(config)  # every field and private value as configured
    object.__setattr__(instance, "__class__", subclass)  # past the model's state guard
    return instance


def _ledger(coups: Coups, config: Strategy, rules: TableRules, policy: SessionPolicy,
            first_session: int = 0) -> pd.DataFrame:
    from .testing import ledger_frame

    grid, (ledger,) = replay(coups, [config], rules, policy, first_session=first_session)
    return ledger_frame(grid, coups, ledger)


def _chunked(coups: Coups, config: Strategy, rules: TableRules, policy: SessionPolicy,
             size: int) -> pd.DataFrame:
    import pandas as pd

    shoe = coups.shoe
    starts = np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]])
    bounds = np.r_[starts[::size], len(coups)]
    frames = []
    for c, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        frames.append(_ledger(coups.take(slice(int(lo), int(hi))), copy.deepcopy(config),
                              rules, policy, first_session=c * size))
    return pd.concat(frames, ignore_index=True)


def _reversed(coups: Coups) -> Coups:
    shoe = coups.shoe
    starts = np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]])
    bounds = np.r_[starts, len(coups)]
    pieces = [np.arange(bounds[i], bounds[i + 1]) for i in range(len(starts) - 1, -1, -1)]
    return coups.take(np.concatenate(pieces))


def difference(a: pd.DataFrame, b: pd.DataFrame, how: str) -> str:
    """The first coup where two ledgers differ, in words ("" when they are the same).

    Rows are matched by (shoe, coup); the stakes, the net and the bankroll are compared.
    """
    key = ["shoe", "coup"]
    a = a.sort_values(key, kind="stable").reset_index(drop=True)
    b = b.sort_values(key, kind="stable").reset_index(drop=True)
    if len(a) != len(b) or not (a[key].to_numpy() == b[key].to_numpy()).all():
        return f"{len(a):,} coups played in the first run, {len(b):,} {how}"
    compared = [c for c in (*BET_KINDS, "net", "bankroll") if c in a or c in b]
    zeros = np.zeros(len(a))
    left = {c: a[c].to_numpy(float) if c in a else zeros for c in compared}
    right = {c: b[c].to_numpy(float) if c in b else zeros for c in compared}
    differs = np.zeros(len(a), dtype=bool)
    for name in compared:
        differs |= np.abs(left[name] - right[name]) > 1e-9
    if not differs.any():
        return ""
    i = int(np.flatnonzero(differs)[0])
    name = next(c for c in compared if abs(left[c][i] - right[c][i]) > 1e-9)
    return (f"shoe {a['shoe'][i]}, coup {a['coup'][i]}: {name} {left[name][i]:g} in the "
            f"first run, {right[name][i]:g} {how}")


def check_strategy(make: Callable[[], Strategy], *, shoes: int = 60, seed: int = 0,
                   rules: TableRules | None = None, session: SessionPolicy | None = None,
                   speed_shoes: int = 1000, speed_repeat: int = 3,
                   ) -> tuple[list[Check], dict[str, Any]]:
    """Run every check on the configuration ``make()`` builds (called afresh for each run,
    as a new process would) over ``shoes`` generated shoes, each a session under the
    session rules ``session`` (one shoe each: the chunking checks cut by sessions); the
    speed is measured over ``speed_shoes``. Returns the checks in order and the figures
    measured."""
    rules = rules or TableRules()
    policy = session or SessionPolicy()
    if policy.session_shoes != 1:
        raise BaccaratError(f"session_shoes {policy.session_shoes}: check-strategy plays "
                            f"sessions of one shoe", params=("session_shoes",))
    coups = generate_coups(rules, seed, np.arange(shoes, dtype=np.int64))
    watch = _Watch(offered=frozenset(bets_offered(rules)))
    checks = {name: Check(name) for name in (
        "plays without an error", "places a bet", "no writes to the table",
        "stakes are finite, non-negative numbers", "stakes only on bets the table offers",
        "same ledger whatever the chunking", "same ledger whatever the order of the sessions",
        "same ledger on a second run", "speed")}
    figures: dict[str, Any] = {"shoes": shoes, "coups": len(coups), "seed": seed,
                               "rules": rules.label()}
    played = checks["plays without an error"]
    try:
        reference = _ledger(coups, watched(make(), watch), rules, policy)
    except Exception as exc:  # whatever a plugin raises is a finding, not a crash
        played.passed, played.detail, played.error = False, _message(exc), exc
        if "read-only" in played.detail.lower() or "wrote into its table" in played.detail:
            checks["no writes to the table"].passed = False
            checks["no writes to the table"].detail = played.detail
        return list(checks.values()), figures
    played.passed = True
    played.detail = f"{shoes} shoes, {len(coups):,} coups, {rules.label()}"
    _bets_placed(checks["places a bet"], reference, shoes)
    for name, problems in (("no writes to the table", watch.writes),
                           ("stakes are finite, non-negative numbers", watch.stakes),
                           ("stakes only on bets the table offers", watch.unoffered)):
        checks[name].passed = not problems
        checks[name].detail = problems[0] if problems else ""
    # The later runs undo writes only if the first saw some (watching them costs a copy
    # of the table per call); every run leaves out the same impossible stakes.
    writes = bool(watch.writes)
    _compare(checks["same ledger whatever the chunking"], reference, lambda: [
        (f"in chunks of {size} session{'s' if size > 1 else ''}",
         _chunked(coups, watched(make(), watch, writes), rules, policy, size))
        for size in CHUNK_SIZES])
    _compare(checks["same ledger whatever the order of the sessions"], reference, lambda: [
        ("with the shoes in reverse order",
         _ledger(_reversed(coups), watched(make(), watch, writes), rules, policy))])
    _compare(checks["same ledger on a second run"], reference, lambda: [
        ("on the second run", _ledger(coups, watched(make(), watch, writes), rules, policy))])
    speed_coups = generate_coups(rules, seed, np.arange(speed_shoes, dtype=np.int64))
    _measure(checks["speed"], figures, make, speed_coups, rules, policy, speed_repeat,
             clean=not (watch.writes or watch.stakes or watch.unoffered))
    return list(checks.values()), figures


def how_played(strategy: Strategy, rules: TableRules, policy: SessionPolicy
               ) -> dict[str, str]:
    """Which path a backtest plays ``strategy`` on (``engine``: "compiled" or "replay",
    with the reason for the replay) and whether exact risk follows it (``exact_risk``:
    "yes" or the reason it simulates), worked out on a session of a few coups."""
    from .backtest import engine_paths
    from .errors import BaccaratError
    from .risk.exact import exact_risk

    path = engine_paths([strategy], rules, None, policy, "auto", "auto")[0]
    engine = ("compiled (the compiled kernel)" if path == "compiled" else
              "replay (the kernel plays the built-in parts and the published counts)")
    try:
        exact_risk(strategy, rules, policy, coups=EXACT_PROBE_COUPS, time_limit=10.0)
        exact = "yes (baccarat risk gives its exact distribution)"
    except BaccaratError as exc:
        exact = f"no: {exc}"
    return {"engine": engine, "exact_risk": exact}


#: The session exact risk is tried over for check-strategy's answer (short: an answer,
#: not figures).
EXACT_PROBE_COUPS = 12


def _bets_placed(check: Check, ledger: pd.DataFrame, shoes: int) -> None:
    """Pass when the ledger holds a stake: a strategy that never bets (a misspelt hook,
    a condition never met) plays a run of zeros that looks like a result."""
    staked = np.zeros(len(ledger), dtype=bool)
    for kind in BET_KINDS:
        if kind in ledger:
            staked |= ledger[kind].to_numpy(float) > 0
    check.passed = bool(staked.any())
    check.detail = (f"{int(staked.sum()):,} of {len(ledger):,} coups played staked" if
                    check.passed else f"no stake in {shoes} shoes ({len(ledger):,} coups "
                    f"played): is the method that decides the stakes named as the engine "
                    f"calls it?")


def _compare(check: Check, reference: pd.DataFrame,
             runs: Callable[[], list[tuple[str, pd.DataFrame]]]) -> None:
    try:
        found = runs()
    except Exception as exc:
        check.passed, check.detail = False, f"raised this time: {_message(exc)}"
        check.error = exc
        return
    for how, ledger in found:
        problem = difference(reference, ledger, how)
        if problem:
            check.passed, check.detail = False, problem
            return
    check.passed = True
    check.detail = "; ".join(how for how, _ in found)


def _measure(check: Check, figures: dict[str, Any], make: Callable[[], Strategy],
             coups: Coups, rules: TableRules, policy: SessionPolicy, repeat: int,
             clean: bool) -> None:
    if not clean:
        check.detail = "not measured: the engine refuses this strategy's stakes or writes"
        return
    seconds = []
    try:
        for _ in range(max(repeat, 1)):
            config = make()
            started = time.perf_counter()
            replay(coups, [config], rules, policy)
            seconds.append(time.perf_counter() - started)
    except Exception as exc:
        check.passed, check.detail, check.error = False, f"raised: {_message(exc)}", exc
        return
    rate = len(coups) / max(statistics.median(seconds), 1e-9)
    figures["coups_per_second"] = rate
    projected = PROJECTED_SHOES * len(coups) / max(coups.shoe_ids().size, 1) / rate
    figures["projected_seconds"] = projected
    check.passed = True
    check.detail = (f"{rate:,.0f} coups/s (median of {len(seconds)} runs over "
                    f"{coups.shoe_ids().size:,} sessions): a {PROJECTED_SHOES:,}-shoe "
                    f"backtest takes {_duration(projected)} on one worker")


#: The backtest whose time the speed check projects.
PROJECTED_SHOES = 10_000


def _duration(seconds: float) -> str:
    """A projected time in words: "about 40 s", "about 3.5 min", "under a second"."""
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 5400:
        return f"about {seconds / 60:.1f} min"
    return f"about {seconds / 3600:.1f} h"


def _message(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, ValueError) else f"{type(exc).__name__}: {text}"


# --- The cheap half, before a backtest ------------------------------------------------------

#: The quick check plays the first QUICK_COUPS coups of QUICK_SHOES generated shoes: a
#: plugin's state shared between sessions shows within a few coups, and the check stays
#: well under a second for any plugin that plays a shoe in less than a second.
QUICK_SHOES = 6
QUICK_COUPS = 24
QUICK_SEED = 20_240


class ChunkingError(BaccaratError):
    """A plugin whose ledger depends on how the run is cut into chunks."""


def plugin_classes(config: Strategy) -> list[type]:
    """The classes of ``config`` (a composed system's parts too) that are not this
    package's own: the plugin code a run would trust."""
    return [cls for cls in config.component_classes()
            if not cls.__module__.startswith("baccarat.")]


def check_plugins(configs: Sequence[Strategy], rules: TableRules) -> None:
    """Refuse a plugin configuration whose ledger depends on the chunking, unless it was
    seen checked before (``quick_check``): raises ``ChunkingError`` naming the first coup
    that differs. A plugin that raises here is left for the run to report on its data."""
    seen: set[str] = set()
    for config in configs:
        key = checked_key(config)
        if key is None or key in seen or key in _checked_keys():
            continue
        seen.add(key)
        try:
            problem = quick_check(config, rules)
        except Exception:  # the run says what is wrong, on the user's own shoes
            continue
        if problem:
            raise ChunkingError(
                f"strategy {config.spec()!r}: its ledger depends on how the run is cut into "
                f"chunks ({problem}): something is shared between sessions (state kept on "
                f"the class or in a module, random numbers not drawn from table.rng); "
                f"`baccarat check-strategy` says more; --unchecked runs it anyway")
        remember_checked(config)


def quick_check(config: Strategy, rules: TableRules, shoes: int = QUICK_SHOES) -> str:
    """Play ``config`` over a few generated shoes in one chunk and in chunks of one
    session (a fresh copy each, as a backtest's chunks get); the first difference between
    the two ledgers in words, "" when they agree."""
    coups = generate_coups(rules, QUICK_SEED, np.arange(shoes, dtype=np.int64))
    coups = coups.take(np.flatnonzero(coups.coup <= QUICK_COUPS))
    coups.decks = rules.decks
    policy = SessionPolicy()
    whole = _ledger(coups, copy.deepcopy(config), rules, policy)
    chunked = _chunked(coups, config, rules, policy, 1)
    return difference(whole, chunked, "in chunks of 1 session").replace(
        "in the first run", "in one chunk")


def checked_key(config: Strategy) -> str | None:
    """What identifies a plugin configuration as checked: its SPEC and the source of its
    plugin classes (None when it has no plugin code, or its source cannot be read)."""
    classes = plugin_classes(config)
    if not classes:
        return None
    digest = hashlib.sha256(config.spec().encode())
    for cls in classes:
        try:
            source = Path(inspect.getsourcefile(cls) or "").read_bytes()
        except (OSError, TypeError):
            return None
        digest.update(f"{cls.__module__}:{cls.__qualname__}".encode())
        digest.update(source)
    return digest.hexdigest()


def cache_dir() -> Path:
    """Where the checked plugins are remembered."""
    if os.environ.get("BACCARAT_CACHE_DIR"):
        return Path(os.environ["BACCARAT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "baccarat-backtest"


_CHECKED_FILE = "checked-plugins.json"


def _checked_keys() -> set[str]:
    try:
        return set(json.loads((cache_dir() / _CHECKED_FILE).read_text()))
    except (OSError, ValueError, TypeError):
        return set()


def remember_checked(config: Strategy) -> None:
    """Remember that ``config`` passed the chunking check (nothing if it cannot be)."""
    key = checked_key(config)
    if key is None:
        return
    keys = _checked_keys() | {key}
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / f".{_CHECKED_FILE}.{os.getpid()}"
        temp.write_text(json.dumps(sorted(keys)))
        os.replace(temp, folder / _CHECKED_FILE)
    except OSError:  # a read-only home: the check runs again next time, nothing worse
        pass


__all__ = ["CHUNK_SIZES", "Check", "ChunkingError", "cache_dir", "check_plugins",
           "check_strategy", "checked_key", "difference", "quick_check",
           "remember_checked", "watched"]
