"""Read-only views of the engine's arrays, for what a strategy is shown.

The engine keeps the writable originals; a strategy gets views that follow them but cannot
be written through. The views share the original memory through a read-only buffer, so
even ``view.flags.writeable = True`` is refused: nothing a strategy does to its table can
change the engine's state or another configuration's. A write through the usual ways
(``a[i] = x``, ``a += x``, ``np.add(..., out=a)``, ``a.fill(x)``) raises
:class:`ReadOnlyError` naming the attribute; any other write gets NumPy's own
"read-only" error, which the engine reports with the strategy's file and line.
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


def read_only(array: np.ndarray, name: str) -> ReadOnlyArray:
    """A read-only view of ``array`` (it follows in-place updates) named ``name`` in errors."""
    base = np.asarray(array)
    if base.ndim and base.size:
        # Through a read-only buffer: the view cannot be made writable again.
        view = np.asarray(memoryview(base).toreadonly()).view(  # type: ignore[arg-type]
            ReadOnlyArray)
    else:  # nothing to follow: a frozen copy
        view = base.copy().view(ReadOnlyArray)
        view.flags.writeable = False
    view._name = name
    return view


def frozen_source(array: np.ndarray) -> memoryview | ReadOnlyArray:
    """What a lazy view is made from: a read-only buffer over ``array`` (cheap to take at
    every coup; nothing can be written through it), or a frozen copy of an empty or 0-d
    array."""
    base = np.asarray(array)
    if base.ndim and base.size:
        return memoryview(base).toreadonly()  # type: ignore[arg-type]
    return read_only(base, "")


def view_of(source: memoryview | ReadOnlyArray, name: str) -> ReadOnlyArray:
    """The read-only array of a ``frozen_source``, named ``name`` in errors."""
    view = (np.asarray(source).view(ReadOnlyArray) if isinstance(source, memoryview)
            else source.view(ReadOnlyArray))
    view._name = name
    return view
