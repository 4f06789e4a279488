"""Systems: a selection, a staking plan and session rules played as one strategy.

:class:`System` is what a SPEC of parts makes (``streak:n=4 | dalembert |
stop:win=50,per=shoe``): it plays its selection and staking plan through the ordinary
strategy contract (``start`` / ``wager`` / ``settle``), so the replay, the checks, the
trace and the ledger treat it as any strategy, and it hands its session rules to the
engine (``session_rules()``). A whole strategy (a plugin, ``counter``) may stand in for
the selection and the staking plan: ``my_file.py:Mine | stop:loss=100``.

:class:`Preset` is the other shape: today's whole strategies (``martingale``,
``streak``, ``counter``, ...) written with one name and one flat set of parameters,
each routed to the part it belongs to (``martingale:side=player,max_doublings=5`` is
``always:side=player | martingale:max_doublings=5``). Their outputs (name, SPEC,
parameters, ledger) are those of the strategies they replace.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, NamedTuple

import numpy as np
from pydantic import PrivateAttr, ValidationError, model_validator

from ..bets import BET_KINDS, MAIN_BETS
from .base import HookReturnError, Result, Strategy, Table, Wager, describe_value, kind_hint
from .kinds import check_offered
from .parts import END, NO_BET, Choice, Part, Selection, SessionRule, Staking, kind_codes


class Parts(NamedTuple):
    """A system's parts: its selection, its staking plan and its session rules."""

    selection: Selection
    staking: Staking
    rules: tuple[SessionRule, ...] = ()


#: The modules of the built-in parts: their selections are trusted to choose valid codes.
_BUILTIN_PREFIX = "baccarat.strategies."


class Composed(Strategy):
    """Plays a selection and a staking plan through the strategy contract.

    Each run (``start``) plays fresh copies of the configured parts (``parts()``): their
    state is the run's, and the configuration is left as it was.
    """

    def parts(self) -> Parts | None:
        """The configured parts (None for a whole strategy with session rules only)."""
        raise NotImplementedError

    def component_classes(self) -> tuple[type, ...]:
        """The classes whose code plays this configuration (for locating errors)."""
        parts = self.parts()
        return (type(self),) if parts is None else \
            (type(self), type(parts.selection), type(parts.staking))

    def _fresh_parts(self) -> Parts:
        parts = self.parts()
        assert parts is not None
        return Parts(*copy.deepcopy((parts.selection, parts.staking)), parts.rules)

    def start(self, table: Table) -> None:
        live = self._fresh_parts()
        self._live = live
        self._kind_names = _checked_kinds(live.selection.kinds())
        self._kinds = kind_codes(self._kind_names)
        for kind, _ in self._kinds:
            if kind not in MAIN_BETS:
                check_offered(self.spec(), kind, table.rules)
        # A plugin's codes and stakes are checked at every coup; the built-ins' are right
        # by making.
        self._strict = not type(live.selection).__module__.startswith(_BUILTIN_PREFIX)
        self._strict_stakes = not type(live.staking).__module__.startswith(_BUILTIN_PREFIX)
        for part in (live.selection, live.staking):
            part.clear_state()
            part.start(table)
        # What each coup calls, bound once (a part that does not learn is not called).
        self._choose = live.selection.choose
        self._ev = None if type(live.selection).ev is Selection.ev else live.selection.ev
        self._stakes = live.staking.stakes
        self._learners = tuple(part.settle for part in (live.selection, live.staking)
                               if type(part).settle is not Part.settle)
        self._choice = Choice(NO_BET, None, self._kind_names)  # refilled at every coup

    def wager(self, table: Table) -> Wager:
        side = self._choose(table)
        choice = self._choice
        choice.side = side
        choice.ev = None if self._ev is None else self._ev()
        amount = self._stakes(table, choice)
        if self._strict_stakes:
            _check_stakes(amount, table.n)
        return compose_wager(side, amount, self._kinds, table.n, self._strict)

    def settle(self, table: Table, result: Result) -> None:
        for learn in self._learners:
            learn(table, result)

    # The finite-state declaration (strategies/finite_state.py) of the whole system: the
    # pair of its parts' states, where both parts declare one (``not_finite`` says why
    # not on a preset whose part cannot; baccarat.risk reads a System's parts itself).
    def _declared(self) -> Parts:
        parts = self.parts()
        if parts is None:
            raise TypeError(f"{self.spec()!r} plays a whole strategy: its declaration is "
                            f"the strategy's own")
        return parts

    def initial_state(self) -> tuple[Any, Any]:
        """(the selection's state, the staking plan's state) before the first coup."""
        parts = self._declared()
        return (parts.selection.initial_state(),  # type: ignore[attr-defined]
                parts.staking.initial_state())  # type: ignore[attr-defined]

    def shoe_state(self, state: tuple[Any, Any]) -> tuple[Any, Any]:
        """Each part's state when a shoe opens."""
        from .finite_state import shoe_state

        parts = self._declared()
        return (shoe_state(parts.selection, state[0]), shoe_state(parts.staking, state[1]))

    def next_state(self, state: tuple[Any, Any], outcome: str, result: str) -> tuple[Any, Any]:
        """Both parts learn the coup."""
        parts = self._declared()
        return (parts.selection.next_state(state[0], outcome, result),  # type: ignore
                parts.staking.next_state(state[1], outcome, result))  # type: ignore

    def stakes_of(self, state: tuple[Any, Any]) -> dict[str, float]:
        """The staking plan's amount on the kind the selection picks (nothing for no bet
        or for the end of the session)."""
        parts = self._declared()
        kind = parts.selection.bet_of(state[0])  # type: ignore[attr-defined]
        if isinstance(kind, int):
            kind = BET_KINDS[kind] if kind >= 0 else None
        if kind is None or kind == "end":
            return {}
        return {kind: parts.staking.stake_of(state[1])}  # type: ignore[attr-defined]


def compose_wager(side: np.ndarray | int, amount: np.ndarray | float,
                  kinds: tuple[tuple[str, int], ...], n: int, strict: bool) -> Wager:
    """The wager of ``amount`` per session on the kind coded in ``side`` (``NO_BET``:
    nothing; ``END``: the session ends), ``kinds`` being the kinds ``side`` may name."""
    if type(side) is np.ndarray and not strict:  # the built-ins' arrays: one where per kind
        if side.dtype == np.bool_:  # a selection of one kind: True bets it
            return _made({kinds[0][0]: np.where(side, amount, 0.0)})
        return _made({kind: np.where(side == code, amount, 0.0) for kind, code in kinds})
    if isinstance(side, int | np.integer):
        code = int(side)
        if code >= 0:
            if strict and code not in dict((c, k) for k, c in kinds):
                raise HookReturnError("choose", _bad_codes(np.array([code]), kinds))
            return _made({BET_KINDS[code]: np.asarray(amount)})
        if code == END:
            return Wager.end(np.ones(n, dtype=bool))
        if strict and code != -1:
            raise HookReturnError("choose", _bad_codes(np.array([code]), kinds))
        return Wager({})
    side = np.asarray(side)
    if side.dtype == np.bool_ and len(kinds) == 1 and side.shape == (n,):
        return Wager({kinds[0][0]: np.where(side, amount, 0.0)})
    if strict and (side.shape != (n,) or side.dtype.kind not in "iu"):
        letters = ("; letters are the simple form's (SimpleSelection.pick): the array form "
                   "returns codes, BANKER, PLAYER, TIE, NO_BET or END from "
                   "baccarat.strategies"
                   if side.dtype.kind in "US" else "")
        shown = repr(side.item()) if side.ndim == 0 else _shape(side)
        raise HookReturnError("choose", f"choose() returned {shown}; expected an integer code "
                              f"per session, shape ({n},) (or one code for all){letters}")
    stakes = {kind: np.where(side == code, amount, 0.0) for kind, code in kinds}
    if not strict:
        return Wager(stakes)
    known = np.isin(side, [c for _, c in kinds] + [-1, END])
    if not known.all():
        raise HookReturnError("choose", _bad_codes(side[~known], kinds))
    ended = side == END
    return Wager(stakes, stop=ended if ended.any() else None)


def _checked_kinds(kinds: object) -> tuple[str, ...]:
    """A selection's ``kinds()``: a tuple (or list) of bet kinds' names, else an error
    saying what it returned."""
    if not isinstance(kinds, tuple | list) or not all(isinstance(k, str) for k in kinds):
        raise HookReturnError("kinds", f"kinds() returned {describe_value(kinds)}; expected "
                              f"a tuple of bet kinds, e.g. ('banker', 'player')")
    for kind in kinds:
        if kind not in BET_KINDS:
            raise HookReturnError("kinds", f"kinds() returned {kind!r}, which is not a bet "
                                  f"kind{kind_hint(kind)}; known: {', '.join(BET_KINDS)}")
    return tuple(kinds)


def _check_stakes(amount: object, n: int) -> None:
    """Refuse what a plugin staking plan's ``stakes()`` returned unless it is a number or a
    numeric array of one stake per session (the engine refuses NaN and negative ones)."""
    value = amount if isinstance(amount, np.ndarray) else (
        np.asarray(amount) if isinstance(amount, int | float | np.number | list | tuple)
        else None)
    if value is None or value.dtype.kind not in "iuf" or value.shape not in ((), (n,)):
        raise HookReturnError("stakes", f"stakes() returned {describe_value(amount)}; "
                              f"expected a number or a numeric array of shape ({n},), one "
                              f"stake per session")


def _made(stakes: dict[str, np.ndarray]) -> Wager:
    """A wager of stakes on known kinds, made without ``Wager``'s checks (the kinds come from
    BET_KINDS; the engine checks the amounts as it checks every wager's)."""
    wager = Wager.__new__(Wager)
    wager.stakes = stakes
    wager.stop = None
    return wager


def _shape(value: np.ndarray) -> str:
    return f"an array of shape {value.shape} and dtype {value.dtype}"


def _bad_codes(codes: np.ndarray, kinds: tuple[tuple[str, int], ...]) -> str:
    named = ", ".join(f"{code} ({kind})" for kind, code in kinds)
    return (f"choose() returned the code {int(codes[0])}, which is not one of its kinds() "
            f"({named}), NO_BET (-1) or END (-2)")


# --- Presets: today's whole strategies --------------------------------------------------------


class Preset(Composed):
    """A system written with one name: a selection and a staking plan whose parameters are
    this class's fields, each routed to its part (``routes``: field -> (kind, part
    field)). The name, SPEC and parameters are those of a whole strategy."""

    selection_class: ClassVar[type[Selection]]
    staking_class: ClassVar[type[Staking]]
    routes: ClassVar[dict[str, tuple[str, str]]] = {}

    @model_validator(mode="after")
    def _parts_accept(self) -> Preset:
        try:
            self.parts()
        except ValidationError as exc:  # a rule across fields (max_stake >= base, ...)
            raise ValueError(exc.errors()[0]["msg"].removeprefix("Value error, ")) from None
        return self

    def parts(self) -> Parts:
        values: dict[str, dict[str, Any]] = {"selection": {}, "staking": {}}
        for field, (kind, part_field) in self.routes.items():
            values[kind][part_field] = getattr(self, field)
        return Parts(self.selection_class(**values["selection"]),
                     self.staking_class(**values["staking"]))

    def _fresh_parts(self) -> Parts:
        return self.parts()  # made afresh from the fields: nothing to copy


def preset(name: str, doc: str, selection: type[Selection], staking: type[Staking], *,
           rename: dict[str, str] | None = None, hidden: tuple[str, ...] = (),
           fields: dict[str, tuple[Any, Any]] | None = None,
           namespace: dict[str, Any] | None = None, class_name: str = "",
           order: tuple[str, ...] = ()) -> type[Preset]:
    """A ``Preset`` class called ``name``: the staking plan's ``base``, then the selection's
    fields, then the staking plan's, as its own fields (``rename``: part field -> preset
    field; ``hidden``: part fields left at their defaults; ``fields``: a preset field's
    own annotation and ``Field``, e.g. another default; ``order``: the fields in this
    order, as the strategy it replaces listed them: its SPECs are written the same)."""
    rename, fields = rename or {}, fields or {}
    annotations: dict[str, Any] = {}
    body: dict[str, Any] = {}
    routes: dict[str, tuple[str, str]] = {}
    ordered: list[tuple[str, type[Part], str]] = [("staking", staking, "base")]
    ordered += [("selection", selection, f) for f in selection.model_fields]
    ordered += [("staking", staking, f) for f in staking.model_fields if f != "base"]
    for kind, part, field in ordered:
        if field in hidden:
            continue
        flat = rename.get(field, field)
        info = part.model_fields[field]
        annotation, default = fields.get(flat, (info.annotation, copy.copy(info)))
        annotations[flat], body[flat] = annotation, default
        routes[flat] = (kind, field)
    if order:
        annotations = {name: annotations[name] for name in order}
    cls_name = class_name or "".join(word.capitalize() for word in name.split("_"))
    reasons = [str(reason) for reason in (getattr(selection, "not_finite", ""),
                                          getattr(staking, "not_finite", "")) if reason]
    namespace = {"__annotations__": annotations, **body, "__doc__": doc,
                 "__module__": "baccarat.strategies.presets", "__qualname__": cls_name,
                 "name": name,
                 "needs_cards": selection.needs_cards or staking.needs_cards,
                 "needs_roads": selection.needs_roads or staking.needs_roads,
                 "selection_class": selection, "staking_class": staking, "routes": routes,
                 **({"not_finite": reasons[0]} if reasons else {}), **(namespace or {})}
    return type(cls_name, (Preset,), namespace)


# --- Systems written as parts -----------------------------------------------------------------


class System(Composed):
    """A system as a SPEC writes it: a selection, a staking plan and session rules.

    ``System(selection=Streak(n=4), staking=DAlembert(), rules=(Stop(win=50,
    per="shoe"),))``, or ``core=`` a whole strategy with ``rules``. A part not given is
    the one a lone part implies: ``always`` on the staking plan's ``side`` (Banker unless
    said), or ``flat`` at the selection's ``base``. ``written`` names the parts as the
    SPEC wrote them (the label and the SPEC follow it).
    """

    _selection: Selection | None = PrivateAttr(None)
    _staking: Staking | None = PrivateAttr(None)
    _core: Strategy | None = PrivateAttr(None)
    _rules: tuple[SessionRule, ...] = PrivateAttr(())
    _implied: str = PrivateAttr("")     # the kind of part filled in for a lone part

    def __init__(self, *, selection: Selection | None = None, staking: Staking | None = None,
                 rules: tuple[SessionRule, ...] | list[SessionRule] = (),
                 core: Strategy | None = None, implied: str = "") -> None:
        if core is not None:
            if selection is not None or staking is not None:
                raise ValueError("a whole strategy stands for the selection and the staking "
                                 "plan: give core, or selection and staking, not both")
            super().__init__(base=core.base)
        else:
            if selection is None or staking is None:
                raise ValueError("a system needs a selection and a staking plan")
            super().__init__(base=staking.base)
        self._selection, self._staking, self._core = selection, staking, core
        self._rules = tuple(rules)
        self._implied = implied
        self.session_rules()  # refuse a rule set twice now, not at the first coup

    # What the engine reads of a strategy, for this configuration.
    @property
    def name(self) -> str:  # type: ignore[override]  # the parts as written, joined by |
        return "|".join(part.name for part in self._written())

    @property
    def needs_cards(self) -> bool:  # type: ignore[override]
        return any(part.needs_cards for part in self._playing())

    @property
    def needs_roads(self) -> bool:  # type: ignore[override]
        return any(part.needs_roads for part in self._playing())

    def _playing(self) -> tuple[Any, ...]:
        if self._core is not None:
            return (self._core,)
        return (self._selection, self._staking)

    def _written(self) -> tuple[Any, ...]:
        """The parts as the SPEC wrote them (an implied part left out)."""
        if self._core is not None:
            played: tuple[Any, ...] = (self._core,)
        else:
            played = tuple(p for kind, p in (("selection", self._selection),
                                             ("staking", self._staking))
                           if kind != self._implied)
        return (*played, *self._rules)

    def parts(self) -> Parts | None:
        if self._core is not None:
            return None
        assert self._selection is not None and self._staking is not None
        return Parts(self._selection, self._staking, self._rules)

    def core(self) -> Strategy | None:
        """The whole strategy standing for the selection and the staking plan, if any."""
        return self._core

    def component_classes(self) -> tuple[type, ...]:
        if self._core is not None:
            return (type(self), *self._core.component_classes())
        return super().component_classes()

    def session_rules(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for rule in self._rules:
            for key, value in rule.policy().items():
                if key in merged and merged[key] != value:
                    raise ValueError(f"the session rule {key} is set twice ({merged[key]!r} "
                                     f"and {value!r}) in {self.spec()!r}")
                merged[key] = value
        return merged

    def _carried(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """What a lone part carries of the part it implies (``side`` of the implied
        ``always``, ``base`` of the implied ``flat``): every value, and those changed."""
        implied = {"selection": self._selection, "staking": self._staking}.get(self._implied)
        if implied is None:
            return {}, {}
        field = IMPLIED_FIELDS[self._implied]
        value = getattr(implied, field)
        default = type(implied).model_fields[field].default
        return {field: value}, ({field: value} if value != default else {})

    def params(self) -> dict[str, Any]:
        carried, _ = self._carried()
        if len(self._written()) == 1:  # a lone part: flat, as a whole strategy's
            return _flat(self._written()[0].params(), carried)
        out: dict[str, Any] = {}
        for i, part in enumerate(self._written()):
            values = _flat(part.params(), carried if i == 0 else {})
            out.update({f"{part.name}.{k}": v for k, v in values.items()})
        return out

    def spec(self) -> str:
        _, changed = self._carried()
        texts = []
        for i, part in enumerate(self._written()):
            text = part.spec()
            if i == 0 and changed:
                extra = ",".join(f"{k}={v}" for k, v in changed.items())
                text += ("," if ":" in text else ":") + extra
            texts.append(text)
        return " | ".join(texts)

    def start(self, table: Table) -> None:
        if self._core is None:
            super().start(table)
            return
        core = copy.deepcopy(self._core)
        core.clear_state()
        self._live_core = core
        core.start(table)

    def wager(self, table: Table) -> Wager:
        if self._core is None:
            return super().wager(table)
        return self._live_core.wager(table)

    def settle(self, table: Table, result: Result) -> None:
        if self._core is None:
            super().settle(table, result)
            return
        self._live_core.settle(table, result)

    def __repr__(self) -> str:
        return f"System({self.spec()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, System) and type(other) is type(self) \
            and self.spec() == other.spec()

    def __hash__(self) -> int:
        return hash(self.spec())


#: The field a lone part carries for the part it implies: the side ``always`` bets (a
#: staking plan alone: ``martingale:side=player``), the base ``flat`` stakes (a selection
#: alone: ``streak:base=20``).
IMPLIED_FIELDS = {"selection": "side", "staking": "base"}


def _flat(params: dict[str, Any], routed: dict[str, Any]) -> dict[str, Any]:
    """A lone part's parameters with the implied part's values it carries (``side`` of the
    implied ``always``, ``base`` of the implied ``flat``), ``base`` first."""
    merged = {**params, **routed}
    return {k: merged[k] for k in sorted(merged, key=lambda k: k != "base")}


def trusted_parts(strategy: object) -> Parts | None:
    """The parts of a built-in composition (a preset exactly, or ``System``), else None:
    a subclass that changes how it plays is not trusted with its parts' compiled forms."""
    from .presets import PRESETS

    cls = type(strategy)
    if cls is System or cls in PRESETS.values():
        return strategy.parts()  # type: ignore[attr-defined, no-any-return]
    return None


__all__ = ["Composed", "Parts", "Preset", "System", "compose_wager", "preset",
           "trusted_parts"]
