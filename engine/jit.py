"""Compiled kernels that load numba only where they run.

``njit`` here takes the options of :func:`numba.njit` and gives back a :class:`Kernel`:
importing a module of kernels does not import numba (about a third of a second and
150 MB before the first kernel is even looked up), so ``baccarat --help``,
``baccarat strategies`` and anything else that runs no kernel start at once. The first
call of a kernel imports numba, compiles it (or loads it from numba's cache) and from
then on behaves exactly as the ``numba.njit`` dispatcher it wraps.

Kernels call kernels: numba types a global name by its value, so before compiling a
kernel every :class:`Kernel` it names among its module's globals (those it calls,
including ones imported from other modules) is replaced by its numba dispatcher, and
the name :data:`prange` by :func:`numba.prange`. Inlining (``inline="always"``), caching
(``cache=True``) and ``parallel=True`` then work as with ``numba.njit``.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from typing import Any


def prange(*args: int) -> range:
    """``numba.prange`` in kernels (a parallel loop), ``range`` until numba is loaded."""
    return range(*args)


#: Every kernel defined so far in this process, in order (``baccarat.warm`` counts what
#: numba compiled and loaded of them).
DEFINED: list[Kernel] = []


class Kernel:
    """A function to be compiled by ``numba.njit(*signatures, **options)`` on its first call."""

    def __init__(self, func: Callable[..., Any], signatures: tuple[Any, ...],
                 options: dict[str, Any]) -> None:
        self.py_func = func
        self._signatures = signatures
        self._options = options
        self._dispatcher: Any = None
        self._binding = False
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.__wrapped__ = func
        DEFINED.append(self)

    def compiled(self) -> Any:
        """The numba dispatcher (imports numba and binds the kernel's callees first)."""
        if self._dispatcher is None:
            with interrupts_held():
                return self._make_dispatcher()
        return self._dispatcher

    def _make_dispatcher(self) -> Any:
        if self._dispatcher is None:
            import numba

            if not self._binding:  # a kernel that calls itself is bound once
                self._binding = True
                # Callees first: with explicit signatures numba compiles when decorating.
                _bind(self.py_func)
            if self._dispatcher is None:
                self._dispatcher = numba.njit(*self._signatures, **self._options)(
                    self.py_func)
        return self._dispatcher

    @property
    def dispatched(self) -> Any:
        """The numba dispatcher if the kernel has been compiled or bound, else None."""
        return self._dispatcher

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        dispatcher = self._dispatcher if self._dispatcher is not None else self.compiled()
        if not dispatcher.overloads:  # the first call compiles or loads the machine code
            with interrupts_held():
                return dispatcher(*args, **kwargs)
        return dispatcher(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # signatures, parallel_diagnostics, ...
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        state = "compiled" if self._dispatcher is not None else "not compiled yet"
        return f"<Kernel {self.__module__}.{self.__qualname__} ({state})>"


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back while a kernel is compiled or loaded, and deliver it after.

    numba (and llvmlite) call back into Python while they build or load machine code; a
    KeyboardInterrupt raised inside such a callback is printed as "Exception ignored"
    with a traceback and lost, and the command goes on. Here the interrupt is only noted,
    and raised once the machine code is in place (``baccarat.children.signals_deferred``)."""
    from .children import signals_deferred

    with signals_deferred(signal.SIGINT):
        yield


def _bind(func: Callable[..., Any]) -> None:
    """Replace the kernels (and ``prange``) that ``func`` names in its module's globals by
    what numba types: their dispatchers (compiled first) and ``numba.prange``."""
    import numba

    namespace = func.__globals__
    for name in func.__code__.co_names:
        value = namespace.get(name)
        if isinstance(value, Kernel):
            namespace[name] = value.compiled()
        elif value is prange:
            namespace[name] = numba.prange


def is_loaded(kernel: Any) -> bool:
    """Whether ``kernel`` has a compiled specialisation in this process (compiled, or
    loaded from numba's cache): calling it again costs no compile and no cache load."""
    dispatcher = kernel._dispatcher if isinstance(kernel, Kernel) else kernel
    return bool(getattr(dispatcher, "overloads", None))


def njit(*args: Any, **options: Any) -> Any:
    """Like ``numba.njit``: ``@njit``, ``@njit(**options)`` or ``@njit(signature, ...)``
    (explicit signatures: one specialisation each, no other is compiled), but compiled on
    the first call."""
    if len(args) == 1 and callable(args[0]) and not options:
        return Kernel(args[0], (), {})
    return lambda func: Kernel(func, args, options)
