"""The table rules and the session rules as two groups of options, declared once.

Every command that takes them is decorated with :func:`table_rules` and/or
:func:`session_rules`: the options are added to its signature (typer reads it) under their
own heading in ``--help``, and the command is called with what they make, ``rules`` (a
``TableRules``; ``rule_sets`` for a command that plays several) and ``session`` (a
``SessionPolicy``). Adding a rule is one edit here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import BaccaratError

TABLE_PANEL = "Table rules"
SESSION_PANEL = "Session rules"


def _option(help: str, panel: str, *names: str, **extra: Any) -> Any:
    return typer.Option(*names, help=help, rich_help_panel=panel, **extra)


def _table(help: str, *names: str, **extra: Any) -> Any:
    return _option(help, TABLE_PANEL, *names, **extra)


def _session(help: str, *names: str, **extra: Any) -> Any:
    return _option(help, SESSION_PANEL, *names, **extra)


# The table rules' options, each declared here once (other commands take some of them).
RulesFile = Annotated[Path | None, _table("TOML or JSON file of table rules", "--rules")]
RulesFiles = Annotated[list[Path] | None, _table(
    "TOML or JSON rules file (the flags below override it); backtest takes several, "
    "playing every strategy under each over the same shoes", "--rules")]
Decks = Annotated[int | None, _table("decks in the shoe (1-8)")]
Commission = Annotated[float | None, _table("Banker commission (0.05 = 5%)")]
TiePays = Annotated[int | None, _table("Tie pays 8 or 9 to 1")]
VariantOpt = Annotated[str | None, _table("standard, ez or super6", "--variant")]
CutCard = Annotated[int | None, _table("cards behind the cut card")]
Burn = Annotated[str | None, _table("burn procedure: standard, none or fixed")]
TableMin = Annotated[float | None, _table("table minimum stake")]
TableMax = Annotated[float | None, _table("table maximum stake")]

#: The table rules a command decorated with :func:`table_rules` takes.
TABLE_OPTIONS: list[tuple[str, Any, Any]] = [
    ("rules_file", RulesFiles, None), ("decks", Decks, None),
    ("commission", Commission, None), ("tie_pays", TiePays, None),
    ("variant", VariantOpt, None), ("cut_card", CutCard, None), ("burn", Burn, None),
    ("table_min", TableMin, None), ("table_max", TableMax, None),
]

#: The session rules: (name, annotation, default).
SESSION_OPTIONS: list[tuple[str, Any, Any]] = [
    ("bankroll", Annotated[float, _session(
        "starting bankroll per session (at least the table minimum)")], 1000.0),
    ("session_shoes", Annotated[int, _session(
        "shoes per session (at most the shoes in the dataset)", min=1)], 1),
    ("when_short", Annotated[str, _session(
        "when the bankroll cannot pay the stake asked for: stop (the session is busted) "
        "or reduce (stake what is left, in whole chips with --chip)")], "stop"),
    ("stop_loss", Annotated[float | None, _session(
        "stop a session once it has lost this much (a positive amount)")], None),
    ("win_goal", Annotated[float | None, _session(
        "stop a session once it has won this much (a positive amount)")], None),
    ("max_coups", Annotated[int | None, _session(
        "stop a session after N coups (N at least 1)")], None),
    ("trailing_stop", Annotated[float | None, _session(
        "stop a session once its bankroll is this far below the highest it reached")],
     None),
    ("losses_in_row", Annotated[int | None, _session(
        "stop a session after N losing bets in a row (a push or a coup without a bet "
        "neither counts nor breaks the run)")], None),
    ("stops_per", Annotated[str, _session(
        "session (the stops above end the session) or shoe (they end play in the shoe; "
        "the session goes on at its next shoe)")], "session"),
    ("chip", Annotated[float | None, _session(
        "round every stake to the nearest multiple of this chip (a stake rounded to 0 is "
        "no bet)")], None),
    ("below_min", Annotated[str, _session(
        "a stake below the table minimum: raise (to the minimum), skip (no bet on the "
        "coup) or stop (the session ends, stop_reason below_min)")], "raise"),
    ("last_session", Annotated[str, _session(
        "a last session with fewer shoes than --session-shoes: keep (play it) or drop "
        "(leave it out)")], "keep"),
]

#: The stops ``--stops-per shoe`` moves to their per-shoe fields.
PER_SHOE = ("stop_loss", "win_goal", "max_coups", "trailing_stop", "losses_in_row")


def session_policy(*, stops_per: str, **fields: Any) -> Any:
    """The ``SessionPolicy`` of the session options: ``--stops-per shoe`` moves the stops
    to their per-shoe fields (``shoe_stop_loss``, ...)."""
    from ..replay import SessionPolicy

    if stops_per not in ("session", "shoe"):
        hint = " (did you mean 'shoe'?)" if stops_per.lower().startswith("shoe") else \
            " (did you mean 'session'?)" if stops_per.lower().startswith("sess") else ""
        raise BaccaratError(f"--stops-per {stops_per}: expected session or shoe{hint}")
    if stops_per == "shoe":
        for name in PER_SHOE:
            fields[f"shoe_{name}"] = fields.pop(name)
    return SessionPolicy(**fields)


def rule_sets_of(rules_file: list[Path] | None, **flags: Any) -> list[Any]:
    """One ``TableRules`` per ``--rules`` file (one from the flags alone without a file),
    each with the flags given on top."""
    from .common import build_rules

    files: list[Path | None] = list(rules_file) if rules_file else [None]
    return [build_rules(path, **flags) for path in files]


def session_rules(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``command`` the session options; it is called with ``session=`` the policy."""
    return _with_options(command, SESSION_OPTIONS, "session",
                         lambda values: session_policy(**values))


def table_rules(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``command`` the table options; it is called with ``rules=`` the table (one
    ``--rules`` file at most), or with ``rule_sets=`` (every file's) if it takes that."""
    several = "rule_sets" in inspect.signature(command).parameters

    def make(values: dict[str, Any]) -> Any:
        sets = rule_sets_of(**values)
        if several:
            return sets
        if len(sets) > 1:
            raise BaccaratError("--rules: this command plays one rule set; give one file")
        return sets[0]

    return _with_options(command, TABLE_OPTIONS, "rule_sets" if several else "rules", make)


def _with_options(command: Callable[..., Any], options: list[tuple[str, Any, Any]],
                  target: str, make: Callable[[dict[str, Any]], Any]) -> Callable[..., Any]:
    """``command`` with the parameter ``target`` replaced by ``options`` in its signature;
    called, it gets ``target=make(the options' values)``."""
    names = [name for name, _, _ in options]

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs[target] = make({name: kwargs.pop(name) for name in names})
        return command(*args, **kwargs)

    signature = inspect.signature(command, eval_str=True)  # typer reads the evaluated form
    kept = [p for p in signature.parameters.values() if p.name != target]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                               annotation=annotation) for name, annotation, default in options]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*kept, *added])
    wrapper.__annotations__ = {p.name: p.annotation for p in [*kept, *added]}
    return wrapper
