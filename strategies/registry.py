"""Finding strategies and parts by name, and the SPEC grammar that composes them.

A ``--strategy SPEC`` is one or more parts joined by ``|`` (spaces around it optional)::

    SPEC  := PART ( "|" PART )*
    PART  := REF [ ":" key=VALUE ( "," key=VALUE )* ]
    VALUE := text | "[" item ( "," item )* "]" | a..b | a..b:step

``REF`` is a built-in or installed name (a whole strategy such as ``martingale``, or a
part: a selection, a staking plan, a session rule), ``package.module:Class`` or
``path/to/file.py:Class`` (parameters then follow another colon). A list ``[10,20,40]``
and a range ``2..5`` (2, 3, 4, 5; ``0.5..2:0.5`` steps by 0.5, both ends included;
ranges may stand inside a list) make one configuration per value: several in one part,
or in several parts, multiply (the last key varies fastest, as ``itertools.product``).

One part alone is what it always was: a whole strategy (``martingale:side=player``), or
a part that implies the other (a staking plan bets its ``side`` every coup, a selection
stakes its ``base`` flat). Several parts compose a system
(:class:`baccarat.strategies.system.System`): at most one selection and one staking plan, any
session rules (``streak:n=4 | dalembert | stop:win=50,loss=200,per=shoe``); a whole
strategy may take the place of both (``counter | stop:loss=200``).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import json
import math
import re
import sys
import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..entry_points import installed
from ..errors import BaccaratError
from .base import Configured, Strategy

if TYPE_CHECKING:
    from .parts import Part

ENTRY_POINT_GROUP = "baccarat.strategies"

_BUILTINS: dict[str, type[Strategy]] = {}


class StrategyError(BaccaratError):
    """A strategy that cannot be found, or parameters it does not take."""


def register(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator: make ``cls`` available under ``cls.name``; duplicates are refused."""
    if not cls.name:
        raise StrategyError(f"{cls.__qualname__} has no `name` to register under")
    existing = _BUILTINS.get(cls.name)
    if existing is not None and existing is not cls:
        raise StrategyError(
            f"a strategy named {cls.name!r} is already registered ({existing.__qualname__})"
        )
    _BUILTINS[cls.name] = cls
    return cls


def builtin_strategies() -> dict[str, type[Strategy]]:
    """The built-in strategies by name."""
    from . import presets  # noqa: F401  (registers them)

    return dict(sorted(_BUILTINS.items()))


def plugin_strategies() -> dict[str, type[Configured]]:
    """Strategies and parts installed by other packages under the ``baccarat.strategies``
    entry points.

    Two plugins under one name, or a plugin under a built-in's name, are refused with both
    sources named: a name must say which strategy (or part) it is.
    """
    found: dict[str, type[Configured]] = {}
    sources: dict[str, str] = {}
    builtins = _builtin_names()
    for ep in installed(ENTRY_POINT_GROUP):
        source = _entry_point_source(ep)
        if ep.name in sources and sources[ep.name] != source:
            raise StrategyError(f"two installed plugins are named {ep.name!r}: "
                                f"{sources[ep.name]} and {source}; uninstall or rename one")
        if ep.name in builtins:
            raise StrategyError(f"the installed plugin {source} is named {ep.name!r}, which is "
                                f"the built-in {_source(builtins[ep.name])}; rename the "
                                f"plugin's entry point")
        try:
            cls = ep.load()
        except Exception as exc:  # a broken plugin should not hide the others
            raise StrategyError(f"plugin {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        found[ep.name] = _checked_class(cls, f"plugin {ep.name!r}")
        sources[ep.name] = source
    return found


def _entry_point_source(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    name = getattr(dist, "name", None) or getattr(getattr(dist, "metadata", {}), "get",
                                                   lambda key: None)("Name")
    return f"{ep.value} (package {name})" if name else ep.value


def _source(cls: type[Configured]) -> str:
    """Where a strategy class comes from, for messages: module.Class (file)."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    if cls.__module__.startswith("baccarat_plugin_") and file:
        return f"{file}:{cls.__qualname__}"
    return f"{cls.__module__}.{cls.__qualname__}"


def _builtin_names() -> dict[str, type[Configured]]:
    """Every built-in name: the whole strategies' and the parts'."""
    from .parts import builtin_parts

    return {**{cls.name: cls for cls in builtin_parts().values()}, **builtin_strategies()}


def available_strategies() -> dict[str, type[Strategy]]:
    """Every whole strategy loadable by a plain name: built-ins and installed plugins."""
    plugins = {n: c for n, c in plugin_strategies().items() if issubclass(c, Strategy)}
    return {**plugins, **builtin_strategies()}  # type: ignore[dict-item]


def available_parts(kind: str | None = None) -> dict[str, type[Part]]:
    """Every part loadable by a plain name (of ``kind``, or every kind): built-ins and
    installed plugins."""
    from .parts import PART_KINDS, builtin_parts, part_kind

    kinds = PART_KINDS if kind is None else (kind,)
    found: dict[str, type[Part]] = {}
    for name, cls in plugin_strategies().items():
        if part_kind(cls) in kinds:
            found[name] = cls  # type: ignore[assignment]
    for each in kinds:
        found.update(builtin_parts(each))
    return found


def _check_name_free(cls: type[Configured], reference: str) -> None:
    """Refuse a strategy loaded as ``module:Class`` under a name another one has."""
    taken = {**available_parts(), **available_strategies()}.get(cls.name)
    if taken is not None and taken is not cls:
        raise StrategyError(
            f"{reference} is named {cls.name!r}, which is already {_source(taken)}; give "
            f"{cls.__qualname__} another `name = ...` (or load it by path, where its label "
            f"carries the file name)")


def load_class(reference: str) -> type[Strategy]:
    """The strategy class named by a built-in/plugin name, ``module:Class`` or ``file.py:Class``.

    (A part's class by the same references: :func:`load_configurable`.)
    """
    cls = load_configurable(reference)
    if not issubclass(cls, Strategy):
        raise StrategyError(f"{reference} is a {getattr(cls, 'kind', 'part')}, not a whole "
                            f"strategy; write it in a SPEC, where it combines with the others "
                            f"({reference} | flat)")
    return cls


def load_configurable(reference: str) -> type[Configured]:
    """The strategy or part class named by a built-in/plugin name (a whole strategy's name
    first), ``module:Class`` or ``file.py:Class``."""
    if ":" in reference:
        target, class_name = reference.rsplit(":", 1)
        module = _load_module(target)
        if not hasattr(module, class_name):
            options = [n for n, v in vars(module).items() if _is_strategy_class(v)]
            raise StrategyError(
                f"{target} has no class {class_name!r}{_hint(class_name, options)}; "
                f"strategies there: {', '.join(options) or 'none'}"
            )
        cls = _checked_class(getattr(module, class_name), reference)
        if not module.__name__.startswith("baccarat_plugin_"):
            _check_name_free(cls, reference)
        return cls
    known: dict[str, type[Configured]] = {**available_parts(), **available_strategies()}
    if reference not in known:
        raise _unknown(reference)
    return known[reference]


def _load_module(target: str) -> Any:
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        if not path.is_file():
            nearby = [p.name for p in path.parent.glob("*.py")] if path.parent.is_dir() else []
            raise StrategyError(f"strategy file {path} does not exist"
                                f"{_hint(path.name, nearby)}")
        module_name = f"baccarat_plugin_{abs(hash(str(path.resolve())))}"
        if module_name in sys.modules:
            return sys.modules[module_name]
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise StrategyError(f"cannot load strategy file {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # sys.exit() at import too: one line, never exit 0
            del sys.modules[module_name]
            raise StrategyError(f"strategy file {path} failed to import: "
                                f"{_first_line(exc)}{_kit_hint(exc)}") from exc
        return module
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise StrategyError(f"cannot import strategy module {target!r}: {exc}") from exc


#: Where the plugin kit's classes live, for a plugin that looked for them elsewhere.
KIT_IMPORTS = ("from baccarat.strategies import SimpleStrategy, Strategy, Selection, "
               "Staking, SimpleSelection, SimpleStaking")


def _kit_hint(exc: BaseException) -> str:
    """The import to write when a plugin imported one of our modules that does not exist:
    the old top-level names (``engine``, ``strategies``) or a guessed module
    (``baccarat.strategy``)."""
    missing = getattr(exc, "name", None) or ""
    if not isinstance(exc, ModuleNotFoundError) or \
            missing.split(".")[0] not in ("baccarat", "engine", "strategies"):
        return ""
    return (f" (the plugin kit is one import: {KIT_IMPORTS}; `baccarat new-strategy NAME` "
            f"writes a file with it)")


def _is_strategy_class(value: Any) -> bool:
    """A class a SPEC may name: a strategy or a part (not one of the contract's bases)."""
    from .base import _CONTRACT_MODULES

    return (isinstance(value, type) and issubclass(value, Configured)
            and value.__module__ not in _CONTRACT_MODULES)


def _checked_class(value: Any, where: str) -> type[Configured]:
    """``value`` if it is a strategy class whose parameters can be validated.

    Strategy classes build their validators on first use (``defer_build``), so a field type
    pydantic cannot check (a numpy array, say) would otherwise surface only when the
    strategy is first made, as a traceback: it is built here, where its source is known.
    """
    if not _is_strategy_class(value):
        raise StrategyError(f"{where} is not a Strategy subclass (nor a part: Selection, "
                            f"Staking, SessionRule)")
    try:
        value.model_rebuild()
    except Exception as exc:
        raise StrategyError(f"{where}: {_unchecked_field(value)}cannot be checked: "
                            f"{_first_line(exc)}") from exc
    return value  # type: ignore[no-any-return]


def _first_line(error: BaseException) -> str:
    """The first line of an error's message (pydantic's go on with links and hints)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _unchecked_field(cls: type[Configured]) -> str:
    """``field NAME (TYPE) of CLASS ``: the first field pydantic cannot validate, for messages."""
    from pydantic import TypeAdapter

    for name, info in cls.model_fields.items():
        try:
            TypeAdapter(info.annotation)  # type: ignore[arg-type]
        except Exception:
            shown = getattr(info.annotation, "__name__", repr(info.annotation))
            return f"field {name!r} ({shown}) of {cls.__qualname__} "
    return f"the parameters of {cls.__qualname__} "


#: What players call some systems, and the SPEC that plays them (for "did you mean").
COMMON_NAMES = {
    "banker": "always:side=banker", "player": "always:side=player", "tie": "always:side=tie",
    "1326": "one_three_two_six", "1-3-2-6": "one_three_two_six",
    "1324": "one_three_two_four", "1-3-2-4": "one_three_two_four",
    "dragon7": "count:method=dragon7", "panda8": "count:method=panda8",
    "big_eye_boy": "road:road=big_eye_boy", "bigeye": "road:road=big_eye_boy",
    "small_road": "road:road=small_road", "cockroach_pig": "road:road=cockroach_pig",
    "reverse_martingale": "paroli", "anti_martingale": "paroli", "let_it_ride": "parlay",
    "oscar": "oscars_grind", "cancellation": "labouchere",
    "stop_loss": "stop:loss=...", "win_goal": "stop:win=...", "trailing_stop": "stop:trailing=...",
}


def _unknown(reference: str) -> StrategyError:
    """The error for a name no strategy or part has: the closest name when there is one,
    else every name by kind."""
    from .parts import PART_KINDS

    if reference.startswith("[") and reference.endswith("]"):
        return StrategyError(
            f"{reference!r}: a list of parts is not a grid; lists and ranges go in a part's "
            f"parameters (streak:n=[2,3]); for several parts give one SPEC each (-s ... -s ...)")
    strategies = available_strategies()
    by_kind = {kind: available_parts(kind) for kind in PART_KINDS}
    names = [*strategies, *(name for parts in by_kind.values() for name in parts)]
    key = reference.strip().lower().replace(" ", "_")
    suggestion = COMMON_NAMES.get(key) or COMMON_NAMES.get(key.replace("_", ""))
    hint = f" (did you mean {suggestion!r}?)" if suggestion else _hint(reference, names)
    if hint:
        return StrategyError(f"unknown strategy {reference!r}{hint}; `baccarat strategies` "
                             f"lists every strategy and part")
    listed = "; ".join(f"{KIND_TITLES[kind]}: {', '.join(parts)}"
                       for kind, parts in by_kind.items())
    return StrategyError(f"unknown strategy {reference!r}; {listed}; whole strategies: "
                         f"{', '.join(strategies)}")


#: How the kinds of parts are named in messages.
KIND_TITLES = {"selection": "selections", "staking": "staking plans",
               "rules": "session rules"}


def _hint(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- The SPEC grammar ------------------------------------------------------------------------


def split_parts(spec: str) -> list[str]:
    """The parts of a SPEC, split at each ``|`` outside brackets, stripped."""
    parts = [part.strip() for part in _split_top_level(spec, "|")]
    if len(parts) > 1 and not all(parts):
        raise StrategyError(f"SPEC {spec!r} has an empty part: write parts joined by | "
                            f"(e.g. 'streak:n=4 | martingale')")
    return parts


def split_spec(spec: str) -> tuple[str, str]:
    """Split one part into (class reference, parameter text).

    The parameters start after the last colon before the first ``=``, so references with
    colons (``module:Class``, ``file.py:Class``, a Windows drive) and a range's step
    (``n=2..8:2``) are read as meant.
    """
    equals = spec.find("=")
    if equals < 0:
        return (spec[:-1], "") if spec.endswith(":") else (spec, "")
    colon = spec.rfind(":", 0, equals)
    if colon < 0:
        return spec, ""  # "key=value" with no reference: make_* names what is wrong
    return spec[:colon], spec[colon + 1:]


def parse_params(text: str, where: str = "") -> dict[str, Any]:
    """Parse ``key=value,key=[1,2,3],key=2..5`` into a dict of texts; a list or a range
    stays a sequence of texts (one configuration per value).

    The values stay text: :func:`make_strategy` reads each by its field's type.
    """
    params: dict[str, Any] = {}
    for item in _split_top_level(text, ","):
        if not item.strip():
            continue
        if "=" not in item:
            after = f" (is it part of {list(params)[-1]}'s value? `baccarat strategies` " \
                    f"shows how it is written; a list of values goes in brackets: " \
                    f"{list(params)[-1]}=[a,b])" if params else ""
            raise StrategyError(f"parameter {item!r} in {where or text!r} is not key=value; "
                                f"commas separate parameters{after}")
        key, raw = item.split("=", 1)
        params[key.strip()] = _parse_value(raw.strip(), f"{key.strip()} in {where or text!r}")
    return params


def _split_top_level(text: str, separator: str = ",") -> list[str]:
    """``text`` split at ``separator`` outside square brackets."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == separator and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return items


_NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)"
_RANGE = re.compile(rf"^({_NUMBER})\s*\.\.\s*({_NUMBER})(?:\s*:\s*({_NUMBER}))?$")


def _parse_value(raw: str, where: str = "") -> Any:
    """A value's text, a list of texts (``[a,b]``, ranges in it spelled out), or a lazy
    ``ValueRange`` (``a..b``, ``a..b:step``)."""
    if raw.count("[") != raw.count("]"):
        raise StrategyError(f"{raw!r} ({where}) opens a list with [ and does not close it "
                            f"with ], or the other way round")
    if raw.startswith("[") and raw.endswith("]"):
        values: list[str] = []
        for item in _split_top_level(raw[1:-1], ","):
            item = item.strip()
            if not item:
                continue
            value = _parse_value(item, where)
            values.extend(value if isinstance(value, ValueRange) else [value])
        return values
    match = _RANGE.match(raw)
    if match:
        first, last, step = match.groups()
        return ValueRange.parse(first, last, step, text=raw, where=where)
    return raw


@dataclass(frozen=True)
class ValueRange(Sequence[str]):
    """``first..last:step``: the values first, first + step, ... up to last (included when
    a whole number of steps away), as the texts a SPEC would write; lazy, so a space of
    millions of values costs nothing until one is read."""

    first: Decimal
    step: Decimal
    size: int
    whole: bool  # every number written without a decimal point: values are integers
    text: str = ""

    @classmethod
    def parse(cls, first: str, last: str, step: str | None, text: str = "",
              where: str = "") -> ValueRange:
        """The range of the texts ``first..last:step`` (step 1 if None)."""
        try:
            a, b = Decimal(first), Decimal(last)
            d = Decimal(step) if step is not None else Decimal(1)
        except InvalidOperation:  # pragma: no cover - the pattern admits numbers only
            raise StrategyError(f"range {text!r} ({where}) is not numbers") from None
        if d == 0:
            raise StrategyError(f"range {text!r} ({where}): the step is 0; expected a step "
                                f"that moves from {first} towards {last}")
        count = int(math.floor((b - a) / d)) + 1
        if count < 1:
            hint = f" (to count down write {first}..{last}:-1)" if step is None else ""
            raise StrategyError(f"range {text!r} ({where}) holds no value: {first} to {last} "
                                f"by {d}{hint}")
        whole = all("." not in n for n in (first, last, step or "1"))
        return cls(a, d, count, whole, text)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(index)
        value = self.first + index * self.step
        if self.whole:
            return str(int(value))
        text = format(value.normalize(), "f")
        return text if text not in ("-0",) else "0"

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(self.size))


_TRUE, _FALSE = ("true", "yes", "1", "on"), ("false", "no", "0", "off")


def field_value(annotation: Any, value: Any) -> Any:
    """A SPEC value read by the field's type, the same for plugins and built-ins.

    ``none``/``null`` is None where the field allows it; a bool field takes
    ``true/false/yes/no/1/0/on/off``; a text field keeps the text as written; any other
    field gets the value as JSON reads it (numbers), else the text, for pydantic to check.
    """
    if not isinstance(value, str):
        return value
    types = _field_types(annotation)
    word = value.strip().lower()
    if word in ("none", "null") and type(None) in types:
        return None
    if bool in types and (word in _TRUE or word in _FALSE):
        return word in _TRUE
    if str in types or not types:
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def _field_types(annotation: Any) -> set[Any]:
    """The plain types a field annotation allows (Optional/Union and Literal unpacked)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _field_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_field_types(a) for a in typing.get_args(annotation)))
    if origin is typing.Literal:
        return {type(a) for a in typing.get_args(annotation)}
    if annotation is None or annotation is type(None):
        return {type(None)}
    if annotation is typing.Any:
        return set()
    return {annotation}


def make_strategy(cls: type[Any], params: dict[str, Any], spec: str = "") -> Any:
    """An instance of ``cls`` (a strategy or a part) with ``params``; unknown or invalid
    ones get a clear error."""
    fields = list(cls.model_fields)
    entries: str | None = getattr(cls, "spec_entries", None)  # free keys: the part's entries
    free = {k: v for k, v in params.items() if k not in fields} if entries else {}
    if free and entries is not None and entries not in params:
        params = {**{k: v for k, v in params.items() if k in fields}, entries: free}
    what = f"{cls.kind} {cls.name!r}" if getattr(cls, "kind", "") else \
        f"strategy {cls.name or cls.__name__!r}"
    for key in params:
        if key not in fields:
            raise StrategyError(
                f"{what} has no parameter {key!r}{_hint(key, fields)}; parameters: "
                f"{', '.join(fields)}"
            )
    values = {key: field_value(cls.model_fields[key].annotation, value)
              for key, value in params.items()}
    try:
        return cls(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".removeprefix(": ")
            + _choice_hint(e) for e in exc.errors()
        )
        raise StrategyError(f"invalid parameters in {spec or cls.name!r}: {problems}") from None


def _choice_hint(error: Any) -> str:
    """`` (did you mean 'shoe'?)`` for a value outside a field's choices, if one is close."""
    expected = (error.get("ctx") or {}).get("expected")
    if error.get("type") not in ("literal_error", "enum") or not isinstance(expected, str):
        return ""
    options = re.findall(r"'([^']*)'", expected)
    return _hint(str(error.get("input", "")).lower(), options)


@dataclass
class PartSpec:
    """One part of a SPEC as written: its text, its class and its parameters in the order
    written (a text each, or a sequence of texts for a list or a range)."""

    text: str
    cls: type[Configured]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """"strategy" for a whole strategy, else the part's kind."""
        from .parts import part_kind

        return part_kind(self.cls) or "strategy"

    @property
    def axes(self) -> list[tuple[str, Sequence[str]]]:
        """The parameters with several values, in the order written."""
        return [(k, v) for k, v in self.params.items() if not isinstance(v, str)]


@dataclass
class SpecSpace:
    """Every configuration a SPEC stands for, counted and indexed without building them.

    ``len(space)`` multiplies the lengths of every list and range in every part;
    ``space[i]`` is the i-th configuration in ``itertools.product`` order (the parts in
    the order written, in each the keys in the order written, the last varying fastest);
    iterating gives them all, as :func:`expand_spec` does.
    """

    spec: str
    parts: list[PartSpec]

    @property
    def axes(self) -> list[tuple[int, str, Sequence[str]]]:
        """Every (part index, key, values) with several values, slowest first."""
        return [(i, key, values) for i, part in enumerate(self.parts)
                for key, values in part.axes]

    def __len__(self) -> int:
        return math.prod(len(values) for _, _, values in self.axes)

    def __getitem__(self, index: int) -> Strategy:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"configuration {index} of {size}")
        picked: dict[tuple[int, str], str] = {}
        for part_index, key, values in reversed(self.axes):
            index, at = divmod(index, len(values))
            picked[part_index, key] = values[at]
        chosen = [{k: picked.get((i, k), v) for k, v in part.params.items()}
                  for i, part in enumerate(self.parts)]
        return _compose(self.spec, self.parts, chosen)

    def __iter__(self) -> Iterator[Strategy]:
        return (self[i] for i in range(len(self)))


def spec_space(spec: str) -> SpecSpace:
    """The configurations ``spec`` stands for (see :class:`SpecSpace`); a name, parameter
    or combination that cannot be made is refused here, before anything is built."""
    texts = split_parts(spec.strip())
    parsed = []
    for text in texts:
        reference, param_text = split_spec(text)
        params = parse_params(param_text, text)
        for key, values in params.items():
            if not isinstance(values, str) and len(values) == 0:
                raise StrategyError(f"{key}=[] in {text!r} lists no value")
        parsed.append((text, reference.strip(), params))
    whole_ok = sum(1 for _, ref, _ in parsed if _rule_name(ref) is None) == 1
    parts = [PartSpec(text, _resolve(ref, whole_ok, spec, params), params)
             for text, ref, params in parsed]
    _check_shape(spec, parts)
    return SpecSpace(spec, parts)


def expand_spec(spec: str) -> list[Strategy]:
    """Every configuration a SPEC stands for (one, or a grid over its lists and ranges)."""
    return list(spec_space(spec))


def _rule_name(reference: str) -> type[Configured] | None:
    """The session-rule part ``reference`` names (None if it names none)."""
    from .parts import part_kind

    if ":" not in reference and "/" not in reference:
        return available_parts("rules").get(reference)
    try:
        cls = load_configurable(reference)
    except StrategyError:
        return None
    return cls if part_kind(cls) == "rules" else None


def _resolve(reference: str, whole_ok: bool, spec: str,
             params: dict[str, Any]) -> type[Configured]:
    """The class a part's reference names: a whole strategy's name first when the SPEC has
    room for one (it is the only part that is not a session rule), else a part's. A whole
    strategy that is also a part's name, given a parameter only the part has
    (``road:mode=red``), is the part."""
    if ":" in reference or "/" in reference or reference.endswith(".py"):
        return load_configurable(reference)
    strategies = available_strategies()
    parts = available_parts()
    if whole_ok and reference in strategies:
        whole = strategies[reference]
        part = parts.get(reference)
        if part is not None and any(k not in whole.model_fields and k in part.model_fields
                                    for k in params):
            return part
        return whole
    if reference in parts:
        return parts[reference]
    if reference in strategies:
        return strategies[reference]
    raise _unknown(reference)


def _check_shape(spec: str, parts: list[PartSpec]) -> None:
    """At most one selection, one staking plan, or one whole strategy in their place."""
    kinds = [part.kind for part in parts]
    if "strategy" in kinds and len([k for k in kinds if k != "rules"]) > 1:
        whole = parts[kinds.index("strategy")].text
        raise StrategyError(f"{spec!r}: {whole!r} is a whole strategy (a selection and a "
                            f"staking plan already); join it only with session rules (stop:"
                            f"...), or write its parts instead")
    for kind in ("selection", "staking"):
        if kinds.count(kind) > 1:
            both = [p.text for p in parts if p.kind == kind]
            other = "a selection (always, follow, streak, ...) with one staking plan" \
                if kind == "staking" else "one selection with a staking plan (flat, " \
                "martingale, ...)"
            raise StrategyError(f"{spec!r} has two {kind} parts ({both[0]!r} and "
                                f"{both[1]!r}); a system has one {kind}: write {other}")


def _compose(spec: str, parts: list[PartSpec], chosen: list[dict[str, str]]) -> Strategy:
    """One configuration from its parts' chosen parameters."""
    from .selections.basic import Always
    from .staking.progressions import Flat
    from .system import IMPLIED_FIELDS, System

    by_kind = {part.kind: (part, values) for part, values in zip(parts, chosen, strict=True)
               if part.kind != "rules"}
    try:
        rules = [make_strategy(p.cls, v, p.text) for p, v in zip(parts, chosen, strict=True)
                 if p.kind == "rules"]
        if "strategy" in by_kind:
            part, values = by_kind["strategy"]
            core = make_strategy(part.cls, values, part.text)
            return core if not rules else System(core=core, rules=rules)
        if not by_kind:
            raise StrategyError(f"{spec!r} has session rules only; join them to a system "
                                f"(e.g. 'martingale | {parts[0].text}')")
        made: dict[str, Any] = {}
        implied = ""
        for kind, other, default in (("selection", "staking", Always),
                                     ("staking", "selection", Flat)):
            if kind in by_kind:
                continue
            implied = kind
            part, values = by_kind[other]
            carried = IMPLIED_FIELDS[kind]
            own = dict(values)
            extra = {carried: own.pop(carried)} if carried in own and \
                carried not in part.cls.model_fields else {}
            by_kind[other] = (part, own)
            made[kind] = make_strategy(default, extra, part.text)
        for kind in ("selection", "staking"):
            if kind not in made:
                part, values = by_kind[kind]
                _refuse_carried(spec, part, values, implied)
                made[kind] = make_strategy(part.cls, values, part.text)
        return System(selection=made["selection"], staking=made["staking"], rules=rules,
                      implied=implied)
    except ValueError as exc:
        if isinstance(exc, StrategyError):
            raise
        raise StrategyError(f"{spec!r}: {exc}") from None


def _refuse_carried(spec: str, part: PartSpec, values: dict[str, str], implied: str) -> None:
    """In a SPEC with both a selection and a staking plan, the side is the selection's and
    the base the staking plan's: say so rather than 'no parameter side'."""
    if implied:
        return
    if part.kind == "staking" and "side" in values and "side" not in part.cls.model_fields:
        raise StrategyError(f"{part.text!r} in {spec!r}: the selection picks the side in a "
                            f"system (always:side={values['side']} | {part.cls.name} bets "
                            f"{values['side']} every coup)")
    if part.kind == "selection" and "base" in values and "base" not in part.cls.model_fields:
        raise StrategyError(f"{part.text!r} in {spec!r}: the base stake is the staking "
                            f"plan's in a system (write it there: flat:base="
                            f"{values['base']})")


def describe(cls: type[Strategy]) -> str:
    """The one-line description of a strategy (its docstring's first line)."""
    doc = (cls.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""
