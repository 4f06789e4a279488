"""Finding strategies by name: built-ins, modules, files and installed plugins.

A ``--strategy SPEC`` is ``name`` or ``name:key=value,key=value``; ``name`` may also be
``package.module:Class`` or ``path/to/file.py:Class`` (then parameters follow a second
colon). A value written as a list, ``key=[10,20,40]``, expands into one configuration per
value, a grid when several keys have lists.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import itertools
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.entry_points import installed
from engine.errors import BaccaratError

from .base import Strategy

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
    from . import builtins  # noqa: F401  (registers them)

    return dict(sorted(_BUILTINS.items()))


def plugin_strategies() -> dict[str, type[Strategy]]:
    """Strategies installed by other packages under the ``baccarat.strategies`` entry points.

    Two plugins under one name, or a plugin under a built-in's name, are refused with both
    sources named: a name must say which strategy it is.
    """
    found: dict[str, type[Strategy]] = {}
    sources: dict[str, str] = {}
    builtins = builtin_strategies()
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


def _source(cls: type[Strategy]) -> str:
    """Where a strategy class comes from, for messages: module.Class (file)."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    if cls.__module__.startswith("baccarat_plugin_") and file:
        return f"{file}:{cls.__qualname__}"
    return f"{cls.__module__}.{cls.__qualname__}"


def available_strategies() -> dict[str, type[Strategy]]:
    """Every strategy loadable by a plain name: built-ins and installed plugins."""
    return {**plugin_strategies(), **builtin_strategies()}


def _check_name_free(cls: type[Strategy], reference: str) -> None:
    """Refuse a strategy loaded as ``module:Class`` under a name another one has."""
    taken = available_strategies().get(cls.name)
    if taken is not None and taken is not cls:
        raise StrategyError(
            f"{reference} is named {cls.name!r}, which is already {_source(taken)}; give "
            f"{cls.__qualname__} another `name = ...` (or load it by path, where its label "
            f"carries the file name)")


def load_class(reference: str) -> type[Strategy]:
    """The strategy class named by a built-in/plugin name, ``module:Class`` or ``file.py:Class``."""
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
    known = available_strategies()
    if reference not in known:
        raise StrategyError(
            f"unknown strategy {reference!r}{_hint(reference, list(known))}; "
            f"available: {', '.join(known)}"
        )
    return known[reference]


def _load_module(target: str) -> Any:
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        if not path.is_file():
            raise StrategyError(f"strategy file {path} does not exist")
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
        except Exception as exc:
            del sys.modules[module_name]
            raise StrategyError(f"strategy file {path} failed to import: "
                                f"{_first_line(exc)}") from exc
        return module
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise StrategyError(f"cannot import strategy module {target!r}: {exc}") from exc


def _is_strategy_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Strategy) and value is not Strategy


def _checked_class(value: Any, where: str) -> type[Strategy]:
    """``value`` if it is a strategy class whose parameters can be validated.

    Strategy classes build their validators on first use (``defer_build``), so a field type
    pydantic cannot check (a numpy array, say) would otherwise surface only when the
    strategy is first made, as a traceback: it is built here, where its source is known.
    """
    if not _is_strategy_class(value):
        raise StrategyError(f"{where} is not a Strategy subclass")
    try:
        value.model_rebuild()
    except Exception as exc:
        raise StrategyError(f"{where}: {_unchecked_field(value)}cannot be checked: "
                            f"{_first_line(exc)}") from exc
    return value  # type: ignore[no-any-return]


def _first_line(error: BaseException) -> str:
    """The first line of an error's message (pydantic's go on with links and hints)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _unchecked_field(cls: type[Strategy]) -> str:
    """``field NAME (TYPE) of CLASS ``: the first field pydantic cannot validate, for messages."""
    from pydantic import TypeAdapter

    for name, info in cls.model_fields.items():
        try:
            TypeAdapter(info.annotation)  # type: ignore[arg-type]
        except Exception:
            shown = getattr(info.annotation, "__name__", repr(info.annotation))
            return f"field {name!r} ({shown}) of {cls.__qualname__} "
    return f"the parameters of {cls.__qualname__} "


def _hint(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def split_spec(spec: str) -> tuple[str, str]:
    """Split a SPEC into (class reference, parameter text)."""
    parts = spec.split(":")
    if len(parts) == 1:
        return spec, ""
    if "=" in parts[-1] or parts[-1] == "":
        return ":".join(parts[:-1]), parts[-1]
    return spec, ""


def parse_params(text: str, where: str = "") -> dict[str, Any]:
    """Parse ``key=value,key=[1,2,3]`` into a dict of texts; list values stay lists.

    The values stay text: :func:`make_strategy` reads each by its field's type.
    """
    params: dict[str, Any] = {}
    for item in _split_top_level(text):
        if not item.strip():
            continue
        if "=" not in item:
            raise StrategyError(f"parameter {item!r} in {where or text!r} is not key=value")
        key, raw = item.split("=", 1)
        params[key.strip()] = _parse_value(raw.strip())
    return params


def _split_top_level(text: str) -> list[str]:
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return items


def _parse_value(raw: str) -> Any:
    if raw.startswith("[") and raw.endswith("]"):
        return [_parse_value(v.strip()) for v in raw[1:-1].split(",") if v.strip()]
    return raw


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


def make_strategy(cls: type[Strategy], params: dict[str, Any], spec: str = "") -> Strategy:
    """An instance of ``cls`` with ``params``; unknown or invalid ones get a clear error."""
    fields = list(cls.model_fields)
    for key in params:
        if key not in fields:
            raise StrategyError(
                f"strategy {cls.name or cls.__name__!r} has no parameter {key!r}"
                f"{_hint(key, fields)}; parameters: {', '.join(fields)}"
            )
    values = {key: field_value(cls.model_fields[key].annotation, value)
              for key, value in params.items()}
    try:
        return cls(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise StrategyError(f"invalid parameters in {spec or cls.name!r}: {problems}") from None


def expand_spec(spec: str) -> list[Strategy]:
    """Every configuration a SPEC stands for (one, or a grid over its list values)."""
    reference, param_text = split_spec(spec)
    cls = load_class(reference)
    params = parse_params(param_text, spec)
    list_keys = [k for k, v in params.items() if isinstance(v, list)]
    if not list_keys:
        return [make_strategy(cls, params, spec)]
    configs = []
    for combo in itertools.product(*(params[k] for k in list_keys)):
        chosen = dict(zip(list_keys, combo, strict=True))
        configs.append(make_strategy(cls, {**params, **chosen}, spec))
    return configs


def describe(cls: type[Strategy]) -> str:
    """The one-line description of a strategy (its docstring's first line)."""
    doc = (cls.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""
