"""Table rules: the shoe, the cut card, and what every bet pays.

Variants are values of one model, not code paths: the dealing, the odds and the
payouts all read the same ``TableRules``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import BaccaratError

Variant = Literal["standard", "ez", "super6"]
BurnProcedure = Literal["standard", "none", "fixed"]


class RulesError(BaccaratError):
    """Rules that cannot be used, with the field and the reason."""


class TableRules(BaseModel):
    """The rules a table deals and pays by (defaults: 8 decks, 5% commission, tie 8:1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    decks: int = Field(8, ge=1, le=8, description="number of 52-card decks in the shoe")
    burn: BurnProcedure = Field(
        "standard",
        description="standard: show the first card and burn that many (10/J/Q/K = 10); "
        "none; fixed: burn burn_count cards face down",
    )
    burn_count: int = Field(0, ge=0, le=20, description="cards burned when burn = fixed")
    cut_card: int = Field(
        7, ge=6, le=200, description="cards behind the cut card; its coup is the last"
    )
    extra_coup_after_cut: bool = Field(
        False, description="deal one more coup after the coup in which the cut card appears"
    )
    commission: float = Field(0.05, ge=0.0, lt=1.0, description="Banker win commission")
    tie_pays: Literal[8, 9] = Field(8, description="Tie pays 8:1 or 9:1")
    variant: Variant = Field("standard", description="standard, ez (no commission) or super6")
    pair_pays: float = Field(11.0, gt=0, description="Player/Banker pair pays N:1")
    dragon7_pays: float = Field(40.0, gt=0, description="EZ Dragon 7 pays N:1")
    panda8_pays: float = Field(25.0, gt=0, description="EZ Panda 8 pays N:1")
    super6_pays: float = Field(12.0, gt=0, description="Super 6 side bet pays N:1")
    table_min: float = Field(10.0, gt=0, description="smallest stake accepted on a bet")
    table_max: float = Field(5000.0, gt=0, description="largest stake accepted on a bet")

    @model_validator(mode="after")
    def _limits_ordered(self) -> TableRules:
        if self.table_max < self.table_min:
            raise ValueError(
                f"table_max ({self.table_max}) is below table_min ({self.table_min})"
            )
        return self

    @property
    def cards_in_shoe(self) -> int:
        """Number of cards in a full shoe."""
        return 52 * self.decks

    @property
    def banker_commission(self) -> float:
        """Commission actually charged on a Banker win (none under EZ and Super 6)."""
        return self.commission if self.variant == "standard" else 0.0

    def label(self) -> str:
        """A short human label: '8 decks, standard 5%, tie 8:1'."""
        if self.variant == "standard":
            kind = f"standard {self.commission * 100:g}%"
        else:
            kind = {"ez": "EZ", "super6": "Super 6"}[self.variant]
        return f"{self.decks} decks, {kind}, tie {self.tie_pays}:1"

    def to_json(self) -> str:
        """The rules as a JSON object string (stored in every output's metadata)."""
        return json.dumps(self.model_dump(), sort_keys=True)


def _explain(error: Any) -> str:
    """A validation error's message; an unknown key lists the rules that exist."""
    if error["type"] == "extra_forbidden":
        return f"unknown rule; the rules are {', '.join(TableRules.model_fields)}"
    return str(error["msg"])


def rules_from_mapping(values: dict[str, Any], source: str = "rules") -> TableRules:
    """Build rules from a mapping, turning validation failures into one readable error."""
    try:
        return TableRules(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'rules'}: {_explain(err)}"
            for err in exc.errors()
        )
        raise RulesError(f"invalid rules in {source}: {problems}") from None


def _read_rules_file(path: Path) -> dict[str, Any]:
    """The rules file's mapping of rule names to values (its ``[rules]`` table if it has one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(f"cannot read rules file {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise RulesError(f"cannot read rules file {path}: not UTF-8 text ({exc.reason} "
                         f"at byte {exc.start})") from None
    try:
        if path.suffix.lower() == ".json":
            values = json.loads(text)
        else:
            values = tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesError(f"cannot parse rules file {path}: {exc}") from None
    if not isinstance(values, dict):
        raise RulesError(f"rules file {path} must hold an object of rule names to values, "
                         f"not a {type(values).__name__}")
    if isinstance(values.get("rules"), dict):
        values = {**values["rules"], **({"paytables": values["paytables"]}
                                        if "paytables" in values else {})}
    return values


def load_rules(path: str | Path, overrides: dict[str, Any] | None = None) -> TableRules:
    """Read rules from a TOML or JSON file; ``overrides`` (e.g. CLI flags) win over the file.

    The file's ``paytables`` table (the side bets', :func:`load_paytables`) is not a rule."""
    path = Path(path)
    values = {key: value for key, value in _read_rules_file(path).items()
              if key != "paytables"}
    values = {**values, **(overrides or {})}
    return rules_from_mapping(values, source=str(path))


def load_paytables(path: str | Path) -> dict[str, dict[str, float]]:
    """The side bets' paytables a rules file gives in its ``paytables`` table, each by name
    (``lucky6 = "macau"``) or as a table of events to pays (``[paytables.tiger_tie]``,
    ``tie_6 = 40``); checked against :data:`baccarat.bets.SIDE_BET_PAYTABLES`."""
    from .bets import SIDE_BET_PAYTABLES, side_bet_paytable

    path = Path(path)
    given = _read_rules_file(path).get("paytables", {})
    if not isinstance(given, dict):
        raise RulesError(f"rules file {path}: paytables must be a table of side bets to "
                         f"paytable names or tables of events to pays")
    tables = {}
    for bet, table in given.items():
        if bet not in SIDE_BET_PAYTABLES:
            raise RulesError(f"rules file {path}: paytables.{bet}: unknown side bet; the "
                             f"side bets are {', '.join(SIDE_BET_PAYTABLES)}")
        if not isinstance(table, (str, dict)):
            raise RulesError(f"rules file {path}: paytables.{bet}: expected a paytable name "
                             f"or a table of events to pays, got {table!r}")
        try:
            tables[bet] = side_bet_paytable(bet, table)
        except (ValueError, TypeError) as exc:
            raise RulesError(f"rules file {path}: paytables.{bet}: {exc}") from None
    return tables
