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
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pydantic import ValidationError

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
    """Strategies installed by other packages under the ``baccarat.strategies`` entry points."""
    found: dict[str, type[Strategy]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = ep.load()
        except Exception as exc:  # a broken plugin should not hide the others
            raise StrategyError(f"plugin {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        found[ep.name] = _checked_class(cls, f"plugin {ep.name!r}")
    return found


def available_strategies() -> dict[str, type[Strategy]]:
    """Every strategy loadable by a plain name: built-ins and installed plugins."""
    return {**plugin_strategies(), **builtin_strategies()}


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
        return _checked_class(getattr(module, class_name), reference)
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
            raise StrategyError(f"strategy file {path} failed to import: {exc}") from exc
        return module
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise StrategyError(f"cannot import strategy module {target!r}: {exc}") from exc


def _is_strategy_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Strategy) and value is not Strategy


def _checked_class(value: Any, where: str) -> type[Strategy]:
    if not _is_strategy_class(value):
        raise StrategyError(f"{where} is not a Strategy subclass")
    return value  # type: ignore[no-any-return]


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
    """Parse ``key=value,key=[1,2,3]`` into a dict; list values stay lists."""
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
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def make_strategy(cls: type[Strategy], params: dict[str, Any], spec: str = "") -> Strategy:
    """An instance of ``cls`` with ``params``; unknown or invalid ones get a clear error."""
    fields = list(cls.model_fields)
    for key in params:
        if key not in fields:
            raise StrategyError(
                f"strategy {cls.name or cls.__name__!r} has no parameter {key!r}"
                f"{_hint(key, fields)}; parameters: {', '.join(fields)}"
            )
    try:
        return cls(**params)
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
