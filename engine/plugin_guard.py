"""Plugin code kept to the past and to itself while it runs.

The replay calls a plugin's hooks inside :func:`plugin_code` (``guard_for``: the engine's
own strategies and parts run without it). While a hook runs, in the
thread that runs it, an audit hook (``sys.addaudithook``, added once per process, the
first time plugin code runs) refuses what would let a plugin see the engine's state or end
the command: frame introspection (``sys._getframe``, ``sys._current_frames``, a
traceback's or a generator's frame, tracing and profiling), the garbage collector's lists
of objects, forking and starting processes, signalling, and replacing a function's code.
Code of this package, numba, llvmlite or pandas doing one of these from inside a hook (an
engine function the hook calls, a kernel compiling, a warning's stack level) is not
refused: the innermost frame outside the standard library says whose doing it is. Every
attempt of the plugin is kept, whether it catches the refusal or not, and ends the hook's
call with :class:`PluginRefused` naming what was tried and where (that frame). A hook that
replaces a function of one of the engine's modules has it put back, and is refused the
same way. Outside plugin code the audit hook returns at once.
"""

from __future__ import annotations

import functools
import importlib.util
import operator
import os
import sys
import sysconfig
import threading
import types
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from .errors import BaccaratError, shown_path

#: Audit events refused while plugin code runs, and what they are, for messages.
REFUSED = {
    "sys._getframe": "frame introspection (sys._getframe)",
    "sys._current_frames": "frame introspection (sys._current_frames)",
    "sys._current_exceptions": "frame introspection (sys._current_exceptions)",
    "sys.settrace": "tracing (sys.settrace)",
    "sys.setprofile": "profiling (sys.setprofile)",
    "sys.addaudithook": "an audit hook (sys.addaudithook)",
    "gc.get_objects": "garbage-collector introspection (gc.get_objects)",
    "gc.get_referrers": "garbage-collector introspection (gc.get_referrers)",
    "gc.get_referents": "garbage-collector introspection (gc.get_referents)",
    "os.fork": "forking (os.fork)",
    "os.forkpty": "forking (os.forkpty)",
    "os.posix_spawn": "starting a process (os.posix_spawn)",
    "os.spawn": "starting a process (os.spawn)",
    "os.exec": "replacing the process (os.exec)",
    "os.system": "starting a process (os.system)",
    "subprocess.Popen": "starting a process (subprocess.Popen)",
    "os.kill": "signalling a process (os.kill)",
    "os.killpg": "signalling a process (os.killpg)",
}
#: Attributes whose reading or writing the interpreter audits and that are refused: the
#: frames behind a traceback, generator or coroutine, and a function's code.
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
CODE_ATTRIBUTES = frozenset({"__code__"})

_PACKAGE = "baccarat"
_STDLIB = tuple(str(Path(p)) + os.sep for p in {
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]})


class PluginRefused(BaccaratError):
    """Plugin code tried what a plugin may not do while it plays."""


class _State(threading.local):
    depth = 0          # plugin code running in this thread (nested calls count)
    busy = False       # the audit hook itself is running
    attempts: list[str]


_state = _State()
_installed = False
_snapshot: dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]] = {}
_snapshot_modules = 0


def _audit(event: str, args: tuple[Any, ...]) -> None:
    state = _state
    if not state.depth or state.busy:
        return
    what = REFUSED.get(event)
    if what is None:
        if event == "object.__getattr__" and len(args) > 1 and args[1] in FRAME_ATTRIBUTES:
            what = f"frame introspection ({args[1]})"
        elif event == "object.__setattr__" and len(args) > 1 and args[1] in CODE_ATTRIBUTES:
            what = "replacing a function's code (__code__)"
        elif event.startswith("os.exec") or event.startswith("os.spawn"):
            what = f"starting a process ({event})"
        else:
            return
    state.busy = True
    try:
        frame = _asker()
        if frame is not None and frame.f_code.co_filename.startswith(_trusted()):
            return  # the engine's own code, or numba compiling, called from the hook
        where = f" at {shown_path(frame.f_code.co_filename)}:{frame.f_lineno}" if frame \
            else ""
        attempt = f"{what}{where}"
        state.attempts.append(attempt)
    finally:
        state.busy = False
    raise PluginRefused(f"refused {attempt}: a plugin sees only its table and what it keeps "
                        f"itself, and ends nothing but its own call")


@functools.cache
def _trusted() -> tuple[str, ...]:
    """The folders of the code that may do what a plugin may not while a hook runs: this
    package (a hook calls the engine), numba and llvmlite (compiling a kernel reads the
    frames of its own tracebacks), pandas (a warning's stack level)."""
    folders = [str(Path(__file__).resolve().parent)]
    for name in ("numba", "llvmlite", "pandas"):
        spec = importlib.util.find_spec(name)
        folders += list(spec.submodule_search_locations or []) if spec else []
    return tuple(folder + os.sep for folder in folders)


def _asker() -> types.FrameType | None:
    """The innermost frame outside the standard library that led to the audited call
    (``_audit``'s caller's), None when there is none."""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(_STDLIB) and "site-packages" not in name) \
                and not name.startswith("<frozen"):
            return frame
        frame = frame.f_back
    return None


def _engine_functions() -> dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]]:
    """The functions (and compiled kernels, classes) of every loaded module of the
    engine, by module: what a plugin must not replace. Per module: a getter of them all
    (one C call), their values as a tuple, and by name."""
    found = {}
    for name, module in list(sys.modules.items()):
        if (name == _PACKAGE or name.startswith(_PACKAGE + ".")) and isinstance(
                module, types.ModuleType):
            entry = _entry(module)
            if entry is not None:
                found[name] = entry
    return found


def _entry(module: types.ModuleType) -> tuple[Any, tuple[Any, ...], dict[str, Any]] | None:
    """A module's functions as :func:`_engine_functions` keeps them, None for fewer than
    two (an itemgetter of one name gives the value, not a tuple)."""
    functions = {key: value for key, value in vars(module).items()
                 if callable(value) and not key.startswith("__")}
    if len(functions) < 2:
        return None
    return operator.itemgetter(*functions), tuple(functions.values()), functions


def _replaced() -> list[str]:
    """Put back each engine function a plugin replaced; their names. A kernel bound to its
    numba dispatcher as it compiled, and ``prange`` to numba's (``engine/jit.py``), are
    the engine's own doing."""
    replaced = []
    for name, (get, before, functions) in list(_snapshot.items()):
        module = sys.modules.get(name)
        if module is None:  # unloaded since (a test's module): nothing of it to guard
            del _snapshot[name]
            continue
        values = vars(module)
        try:
            if get(values) == before:  # identity, element by element, in C
                continue
        except KeyError:  # one was deleted
            pass
        from .jit import Kernel, prange

        for key, value in functions.items():
            now = values.get(key)
            if now is value:
                continue
            if now is not None and (
                    (isinstance(value, Kernel) and now is value._dispatcher)
                    or (value is prange and getattr(now, "__module__", "").startswith("numba"))):
                functions[key] = now  # the engine binding what it compiles, not a plugin
                continue
            replaced.append(f"{name}.{key}")
            values[key] = value
        _snapshot[name] = (get, tuple(functions.values()), functions)
    return replaced


def _resync() -> None:
    """Take as they are the engine functions changed while no plugin code ran (the engine
    binding a kernel, a test choosing a path): only what changes during a hook is a
    plugin's doing."""
    for name, (get, before, _) in list(_snapshot.items()):
        module = sys.modules.get(name)
        if module is None:
            del _snapshot[name]
            continue
        try:
            if get(vars(module)) == before:
                continue
        except KeyError:
            pass
        entry = _entry(module)
        if entry is not None:
            _snapshot[name] = entry
        else:
            del _snapshot[name]


def guard_for(strategy: Any) -> AbstractContextManager[None]:
    """:func:`plugin_code` for a configuration with plugin code (a class of its, or of a
    part, from outside this package), nothing for the engine's own."""
    if all(cls.__module__.startswith(_PACKAGE + ".") for cls in strategy.component_classes()):
        return nullcontext()
    return plugin_code()


@contextmanager
def plugin_code() -> Iterator[None]:
    """Run plugin code (a strategy's hook) under the refusals of the module docstring;
    raises :class:`PluginRefused` after the call when it tried any."""
    global _installed, _snapshot, _snapshot_modules
    state = _state
    outer = state.depth == 0
    if outer:
        if not _installed:
            sys.addaudithook(_audit)
            _installed = True
        if len(sys.modules) != _snapshot_modules:
            _snapshot, _snapshot_modules = _engine_functions(), len(sys.modules)
        else:
            _resync()
        state.attempts = []
    state.depth += 1
    try:
        yield
    finally:
        state.depth -= 1
    if outer:
        attempts, state.attempts = state.attempts, []
        replaced = _replaced()
        if replaced:
            attempts.append(f"replacing the engine's {', '.join(replaced)} (put back)")
        if attempts:
            raise PluginRefused(f"refused {attempts[0]}"
                                + (f" (and {len(attempts) - 1} more)" if len(attempts) > 1
                                   else "")
                                + ": a plugin sees only its table and what it keeps itself, "
                                  "and changes nothing of the engine's")


__all__ = ["PluginRefused", "REFUSED", "guard_for", "plugin_code"]
