"""Kernels run as machine code loaded without numba: what a short run starts with.

A kernel loaded from numba's cache costs a fresh process about 0.4 s of CPU before it
runs: importing numba and building its CPU target (its typing and lowering registries),
about what the fused path takes to play a 300,000-shoe backtest. A kernel declared
``njit(..., native=True)`` (``baccarat.jit``) avoids both once it has been built: numba
compiles it as a C function of raw pointers (``numba.cfunc``), the machine code of that
function and of every kernel it calls is kept in a file, and later processes load the
file with llvmlite's JIT linker (a hundredth of a second) and call the code through
ctypes. numba is then never imported.

What a native kernel must be (checked when it is built; a kernel that is not runs through
numba as any other, and ``refused`` says why):

- it allocates nothing (the caller passes every array it writes, scratch included) and
  raises nothing (a refusal is a return code): either would need numba's runtime, which
  the loaded code does without; the error paths numba compiles in all the same (for a
  division by zero, say) are replaced by a trap;
- its arguments are C-contiguous numpy arrays and numbers (a Python int is an int64, a
  float a float64, a bool a boolean, a numpy scalar its own type, as numba types them);
  it returns a number, a boolean or nothing.

A built file is named by everything its code depends on (``_digest``): the source files
of the kernel and of every kernel it calls (found as ``baccarat.jit`` finds them to bind
them), the values of the module constants they read, the argument types, numba's and llvmlite's
versions and the processor (its name and features). An edit to any of these builds
afresh; a damaged file is built again. The files live beside numba's (the kernel module's
``__pycache__``, or ``NUMBA_CACHE_DIR``) and are written atomically.
``BACCARAT_NATIVE=0`` turns the native path off.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import inspect
import json
import os
import re
import tempfile
import types
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .jit import interrupts_held

#: The environment variable that turns the native path off ("0").
SWITCH = "BACCARAT_NATIVE"

#: Every kernel refused this process, by name, with the reason.
refused: dict[str, str] = {}

#: Every kernel whose code this process loaded as native code (a native kernel and every
#: kernel it calls), by name.
loaded: set[str] = set()


class NotNative(Exception):
    """These arguments (or this kernel) cannot take the native path."""


def enabled() -> bool:
    """Whether native kernels are used (``BACCARAT_NATIVE`` is not "0")."""
    return os.environ.get(SWITCH, "1") != "0"


# --- the arguments ------------------------------------------------------------------------

def _arg_key(value: Any) -> str:
    """The type of one argument as the file name and the C signature need it."""
    if isinstance(value, np.ndarray):
        if not value.flags.c_contiguous or value.dtype.hasobject:
            raise NotNative("an array that is not C-contiguous numbers")
        return f"{value.dtype.str}:{value.ndim}"
    if isinstance(value, (bool, np.bool_)):
        return "?"
    if isinstance(value, np.generic):
        return np.dtype(type(value)).str
    if isinstance(value, int):
        return "<i8"
    if isinstance(value, float):
        return "<f8"
    raise NotNative(f"an argument of type {type(value).__name__}")


_CTYPES = {"|b1": ctypes.c_bool, "?": ctypes.c_bool, "|i1": ctypes.c_int8,
           "|u1": ctypes.c_uint8, "<i2": ctypes.c_int16, "<u2": ctypes.c_uint16,
           "<i4": ctypes.c_int32, "<u4": ctypes.c_uint32, "<i8": ctypes.c_int64,
           "<u8": ctypes.c_uint64, "<f4": ctypes.c_float, "<f8": ctypes.c_double}


def _c_args(args: tuple[Any, ...]) -> Iterator[Any]:
    """The C arguments: an array as its data pointer and its shape, a number as itself."""
    for value in args:
        if isinstance(value, np.ndarray):
            yield value.ctypes.data
            yield from value.shape
        else:
            yield value


def _c_argtypes(keys: tuple[str, ...]) -> list[Any]:
    out: list[Any] = []
    for key in keys:
        if ":" in key:
            out += [ctypes.c_void_p] + [ctypes.c_int64] * int(key.split(":")[1])
        else:
            out.append(_CTYPES[key])
    return out


# --- what the code depends on ---------------------------------------------------------------

def _closure(func: Callable[..., Any]) -> list[Callable[..., Any]]:
    """``func`` and every kernel it calls, directly or not (as ``baccarat.jit`` binds them)."""
    seen: dict[int, Callable[..., Any]] = {}
    todo = [func]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen[id(f)] = f
        for value in _globals_read(f).values():
            inner = getattr(value, "py_func", None)
            if callable(inner):
                todo.append(inner)
    return sorted(seen.values(), key=lambda f: (f.__module__, f.__qualname__))


def _globals_read(func: Callable[..., Any]) -> dict[str, Any]:
    """The module globals ``func`` names (in nested code objects too)."""
    names: set[str] = set()
    codes = [func.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    namespace = func.__globals__
    return {name: namespace[name] for name in sorted(names) if name in namespace}


def _fingerprint(value: Any) -> str:
    """What a global's value contributes to the digest (a kernel: its name, as its own
    source is in the digest already)."""
    if hasattr(value, "py_func"):
        return f"kernel {value.py_func.__module__}.{value.py_func.__qualname__}"
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    if isinstance(value, np.ndarray):
        return f"array {value.dtype.str} {value.shape} " + hashlib.sha256(
            np.ascontiguousarray(value).tobytes()).hexdigest()
    if isinstance(value, (int, float, complex, str, bytes, bool, type(None), tuple,
                          np.generic)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, type) or callable(value):
        name = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
        try:
            return f"{name} {_source_digest(inspect.getfile(value))}"
        except (OSError, TypeError):
            return f"{name} {getattr(value, '_fields', '')}"
    return f"{type(value).__name__} {value!r}"


@functools.cache
def _versions() -> str:
    return " ".join(f"{name} {metadata.version(name)}" for name in ("numba", "llvmlite"))


def _digest(func: Callable[..., Any], keys: tuple[str, ...], machine: str) -> str:
    """The name of the code of ``func`` for these argument types on this processor: the
    digest of its code (``_code_digest``), then that of the argument types."""
    types_digest = hashlib.sha256(" ".join(keys).encode()).hexdigest()[:12]
    return f"{_code_digest(func, machine)}.{types_digest}"


def _code_digest(func: Callable[..., Any], machine: str) -> str:
    """The digest of the sources and constants ``func``'s code is made from, numba's and
    llvmlite's versions and the processor."""
    h = hashlib.sha256()
    for part in (machine, _versions()):
        h.update(part.encode() + b"\0")
    for f in _closure(func):
        h.update(f"{f.__module__}.{f.__qualname__} {_source_digest(f.__code__.co_filename)}"
                 f"\0".encode())
        for name, value in _globals_read(f).items():
            h.update(f"{name}={_fingerprint(value)}\0".encode())
    return h.hexdigest()[:24]


def _source_digest(path: str) -> str:
    """The digest of a module's source file (an edit anywhere in the module builds its
    kernels afresh, as numba's own cache does); read again only when the file changed."""
    stat = os.stat(path)
    return _file_digest(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# --- the files ------------------------------------------------------------------------------

def _folder(func: Callable[..., Any]) -> Path:
    """Where the files of ``func`` live (beside numba's cache of it)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "native"
    return Path(inspect.getfile(func)).parent / "__pycache__"


def _path(func: Callable[..., Any], digest: str) -> Path:
    return _folder(func) / f"{func.__module__}.{func.__qualname__}.{digest}.native"


_MAGIC = b"baccarat-native-1\n"


def _read(path: Path) -> tuple[dict[str, Any], bytes] | None:
    """(header, object code) of a built file, None if there is none or it is damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    try:
        head, body = data[len(_MAGIC):].split(b"\n", 1)
        header = json.loads(head)
    except ValueError:
        return None
    if hashlib.sha256(body).hexdigest() != header.get("sha256"):
        return None
    return header, body


def _write(path: Path, header: dict[str, Any], body: bytes) -> None:
    """Write a built file atomically (a reader sees the old file, the new one, or none)."""
    header = {**header, "sha256": hashlib.sha256(body).hexdigest()}
    data = _MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + body
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp", delete=False) as out:
            out.write(data)
        os.replace(out.name, path)
    except OSError:  # a read-only install: the code still runs, built again next time
        try:
            os.unlink(out.name)
        except (OSError, UnboundLocalError):
            pass


# --- building (numba) ------------------------------------------------------------------------

_DECLARE = re.compile(r"^declare (.*?)@(\"[^\"]+\"|[\w.$]+)\((.*)\)(.*)$")
_EXTERNAL = re.compile(r"^(@\S+) = external global (.*)$")


def _self_contained(ir: str) -> str:
    """The module's IR with every function it calls outside itself (numba's helpers and
    Python's, on the error paths) defined as a trap, and every outside global as a local
    one: the loaded code needs nothing from numba. LLVM's intrinsics stay."""
    lines = []
    for line in ir.splitlines():
        declared = _DECLARE.match(line)
        if declared and not declared.group(2).startswith("llvm."):
            ret, name, params, rest = declared.groups()
            rest = re.sub(r"#\d+", "", rest)
            lines.append(f"define internal {ret}@{name}({params}){rest} {{\n"
                         f"  call void @llvm.trap()\n  unreachable\n}}")
            continue
        external = _EXTERNAL.match(line)
        if external:
            lines.append(f"{external.group(1)} = internal global {external.group(2)} "
                         f"zeroinitializer")
            continue
        lines.append(line)
    if "declare void @llvm.trap()" not in ir:
        lines.append("declare void @llvm.trap()")
    return "\n".join(lines) + "\n"


def _build(kernel: Any, args: tuple[Any, ...], keys: tuple[str, ...]) -> tuple[dict[str, Any],
                                                                             bytes]:
    """Compile ``kernel`` for ``args`` as a C function and return (header, object code)."""
    import llvmlite.binding as llvm
    import numba
    from numba import types as nt

    dispatcher = kernel.compiled()
    typed = tuple(numba.typeof(a) for a in args)
    dispatcher.compile(typed)
    returns = dispatcher.overloads[typed].signature.return_type
    if returns != nt.none and not isinstance(returns, (nt.Number, nt.Boolean)):
        raise NotNative(f"it returns {returns}")
    params, lines, call = [], [], []
    c_types = []
    for i, (value, kind) in enumerate(zip(args, typed, strict=True)):
        if isinstance(value, np.ndarray):
            dims = [f"a{i}_{d}" for d in range(value.ndim)]
            params += [f"a{i}", *dims]
            c_types += [nt.CPointer(kind.dtype)] + [nt.int64] * value.ndim
            lines.append(f"    b{i} = carray(a{i}, ({', '.join(dims)},))")
            call.append(f"b{i}")
        else:
            params.append(f"a{i}")
            c_types.append(kind)
            call.append(f"a{i}")
    source = (f"def native_entry({', '.join(params)}):\n" + "\n".join(lines) +
              f"\n    return kernel({', '.join(call)})\n")
    namespace = {"kernel": dispatcher, "carray": numba.carray}
    exec(compile(source, f"<native {kernel.__qualname__}>", "exec"), namespace)
    entry = numba.cfunc((nt.void if returns == nt.none else returns)(*c_types),
                        error_model="numpy")(namespace["native_entry"])
    library = entry._library  # type: ignore[attr-defined]  # numba keeps no public one
    ir = str(library._final_module)
    if "NRT_MemInfo_alloc" in ir or "NRT_Allocate" in ir:
        raise NotNative("it allocates arrays (pass them in instead)")
    if "_numba_unresolved$" in ir:
        raise NotNative("it calls code numba resolves at run time")
    module = llvm.parse_assembly(_self_contained(ir))
    module.verify()
    body = library._codegen._tm.emit_object(module)
    header = {"symbol": entry.native_name, "returns": str(returns), "keys": list(keys)}
    return header, body


# --- loading (llvmlite) ----------------------------------------------------------------------

_linker: Any = None


def _machine() -> str:
    import llvmlite.binding as llvm

    return f"{llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()}"


def _load(header: dict[str, Any], body: bytes) -> Any:
    """The ctypes function of a built file's code."""
    global _linker
    import llvmlite.binding as llvm

    if _linker is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        machine = llvm.Target.from_default_triple().create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
            reloc="default", codemodel="jitdefault")
        _linker = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    _linker.add_object_file(llvm.ObjectFileRef.from_data(body))
    _linker.finalize_object()
    address = _linker.get_function_address(header["symbol"])
    if not address:
        raise NotNative("the built code lacks its entry point")
    restype = {"none": None, "bool": ctypes.c_bool, "float64": ctypes.c_double,
               "int64": ctypes.c_int64, "uint64": ctypes.c_uint64,
               "int32": ctypes.c_int32}.get(header["returns"], ctypes.c_int64)
    function = ctypes.CFUNCTYPE(restype, *_c_argtypes(tuple(header["keys"])))(address)
    return function


def covered(kernels: list[Any]) -> set[str]:
    """The names of the kernels whose code some native kernel of ``kernels`` has built for
    the present sources (itself and every kernel it calls): what ``baccarat warm`` need
    not compile into numba's cache for a first run."""
    machine = _machine()
    names: set[str] = set()
    for kernel in kernels:
        if not getattr(kernel, "native", False):
            continue
        func = kernel.py_func
        stem = f"{func.__module__}.{func.__qualname__}.{_code_digest(func, machine)}."
        if any(_read(path) is not None for path in _folder(func).glob(f"{stem}*.native")):
            names.update(f"{f.__module__}.{f.__qualname__}" for f in _closure(func))
    return names


# --- calling -----------------------------------------------------------------------------------

_MACHINE: list[str] = []


def call(kernel: Any, args: tuple[Any, ...]) -> Any:
    """Run ``kernel`` on ``args`` by its native code (built first if need be); raises
    :class:`NotNative` when it cannot take the native path."""
    name = f"{kernel.__module__}.{kernel.__qualname__}"
    if name in refused:
        raise NotNative(refused[name])
    keys = tuple(_arg_key(a) for a in args)
    loaded = kernel._native.get(keys)
    if loaded is None:
        try:
            with interrupts_held():
                loaded = kernel._native[keys] = _loaded(kernel, args, keys)
        except NotNative as exc:
            refused[name] = str(exc)
            raise
        except Exception as exc:  # noqa: BLE001 - numba's or llvmlite's: numba runs it
            refused[name] = f"{type(exc).__name__}: {exc}"
            raise NotNative(refused[name]) from exc
    return loaded(*_c_args(args))


def _loaded(kernel: Any, args: tuple[Any, ...], keys: tuple[str, ...]) -> Any:
    if not _MACHINE:
        _MACHINE.append(_machine())
    func = kernel.py_func
    path = _path(func, _digest(func, keys, _MACHINE[0]))
    found = _read(path)
    if found is None:
        found = _build(kernel, args, keys)
        _write(path, *found)
    function = _load(*found)
    loaded.update(f"{f.__module__}.{f.__qualname__}" for f in _closure(func))
    return function


__all__ = ["NotNative", "SWITCH", "call", "covered", "enabled", "loaded", "refused"]
