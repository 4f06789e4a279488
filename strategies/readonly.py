"""Read-only views of the engine's arrays, for what a strategy is shown.

The engine keeps the writable originals; a strategy gets read-only arrays: copies of what
the engine replaces at each coup, made when a strategy first reads them (:func:`frozen`:
their memory is an immutable ``bytes``), and, for what the engine updates in place (the
history, the card counts), windows that follow it (:func:`read_only`: NumPy's array
interface over the original's memory, marked read-only, with no reference to the
original). Nothing reachable from either (``.base``, ``.base.base``, ...,
``memoryview(a).obj``) is writable or can be made so, so even ``view.flags.writeable =
True`` is refused: nothing a strategy does to its table can change the engine's state or
another configuration's. A write through the usual ways (``a[i] = x``, ``a += x``,
``np.add(..., out=a)``, ``a.fill(x)``) raises :class:`ReadOnlyError` naming the
attribute; any other write gets NumPy's own "read-only" error, which the engine reports
with the strategy's file and line.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from ..errors import BaccaratError


class ReadOnlyError(BaccaratError):
    """A strategy tried to change the table (or a result) it was shown."""


def read_only_message(name: str) -> str:
    """Why a write into ``name`` is refused, and what to do instead."""
    return (f"{name} is read-only: the table belongs to the engine; keep your own state "
            f"on the strategy instead (e.g. self.x = np.copy({name}))")


class ReadOnlyArray(np.ndarray):
    """An ndarray a strategy can read but not write; operations on it give plain arrays."""

    _name: str = "the table"

    def __array_finalize__(self, obj: Any) -> None:
        if obj is not None:
            self._name = getattr(obj, "_name", "the table")

    def _refuse(self) -> NoReturn:
        raise ReadOnlyError(read_only_message(self._name))

    def __setitem__(self, key: Any, value: Any) -> None:
        if not self.flags.writeable:
            self._refuse()
        super().__setitem__(key, value)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        targets = list(out) if isinstance(out, tuple) else [out] if out is not None else []
        if method == "at":
            targets.append(inputs[0])
        for target in targets:
            if isinstance(target, ReadOnlyArray) and not target.flags.writeable:
                target._refuse()
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in targets[: len(targets) - (method == "at")])
        return getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs)

    def fill(self, value: Any) -> None:
        if not self.flags.writeable:
            self._refuse()
        super().fill(value)

    def put(self, *args: Any, **kwargs: Any) -> None:
        if not self.flags.writeable:
            self._refuse()
        super().put(*args, **kwargs)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        if not self.flags.writeable:
            self._refuse()
        super().sort(*args, **kwargs)

    def copy(self, order: Any = "C") -> np.ndarray:  # type: ignore[override]
        """A writable plain-array copy, for a strategy's own state."""
        return np.array(self, order=order, subok=False, copy=True)


def _plain(value: Any) -> Any:
    return value.view(np.ndarray) if isinstance(value, ReadOnlyArray) else value


#: The arrays the live windows look onto, by the window's id.
_WINDOWED: dict[int, np.ndarray] = {}


class _Window:
    """What :func:`read_only` makes its array from: NumPy's array interface over another
    array's memory, marked read-only. It holds no reference to that array (``_WINDOWED``
    keeps it alive for as long as the window lives), and exports no buffer, so NumPy finds
    nothing writable behind an array made from it and refuses to make it writable."""

    __slots__ = ("__array_interface__",)

    def __init__(self, array: np.ndarray) -> None:
        interface = array.__array_interface__
        interface["data"] = (interface["data"][0], True)
        self.__array_interface__ = interface
        _WINDOWED[id(self)] = array

    def __del__(self, windowed: dict[int, np.ndarray] = _WINDOWED) -> None:
        windowed.pop(id(self), None)


def read_only(array: np.ndarray, name: str) -> ReadOnlyArray:
    """A read-only view of ``array`` (it follows in-place updates) named ``name`` in errors;
    nothing reachable from it is writable (see :class:`_Window`)."""
    base = np.asarray(array)
    if not (base.ndim and base.size) or base.dtype.hasobject:
        return frozen(base, name)  # nothing to follow: a frozen copy
    view = np.asarray(_Window(base)).view(ReadOnlyArray)
    view._name = name
    return view


def frozen(array: np.ndarray, name: str) -> ReadOnlyArray:
    """A read-only copy of ``array`` as it is now, named ``name`` in errors: its memory is
    an immutable ``bytes``, so nothing reachable from it can be written or made writable."""
    base = np.asarray(array)
    if base.dtype.hasobject:  # no bytes hold objects: a copy no one else holds
        view = base.copy().view(ReadOnlyArray)
        view.flags.writeable = False
    else:
        view = np.frombuffer(base.tobytes(), dtype=base.dtype).reshape(base.shape).view(
            ReadOnlyArray)
    view._name = name
    return view


def frozen_source(array: np.ndarray) -> memoryview | ReadOnlyArray:
    """What a lazy view of an array the engine replaces at each coup is made from: a
    read-only buffer over ``array`` (cheap to take at every coup; nothing can be written
    through it), or a frozen copy of an empty or 0-d array."""
    base = np.asarray(array)
    if base.ndim and base.size and not base.dtype.hasobject:
        return memoryview(base).toreadonly()  # type: ignore[arg-type]
    return frozen(base, "")


def view_of(source: memoryview | ReadOnlyArray, name: str) -> ReadOnlyArray:
    """The read-only array of a ``frozen_source`` (a frozen copy of the array as it is when
    first read: nothing reachable from it is writable), or of a ``read_only`` window,
    named ``name`` in errors."""
    if isinstance(source, memoryview):
        return frozen(np.asarray(source), name)
    view = source.view(ReadOnlyArray)
    view._name = name
    return view
