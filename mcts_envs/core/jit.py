"""Stable identities for numba dispatchers, so cached code that takes kernels as arguments loads.

Generic compiled code (playout batches, searches) takes a game's kernel dispatchers as arguments,
so numba's on-disk cache index keys contain those dispatchers. Numba matches a dispatcher across
processes by a UUID that it draws at random the first time the dispatcher is pickled, so every
new process misses the cache and recompiles (seconds per function and game). Giving each kernel
a UUID derived from its module, qualified name and bytecode before first use makes the keys equal
in every process, and a changed kernel gets a new key.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Any


def pin_identity(dispatcher: Any) -> Any:
    """Give a numba dispatcher a stable identity (see module docstring); returns it.

    Closures and functions defined inside functions keep numba's random identity, as does a
    dispatcher already pickled in this process.
    """
    py_func = getattr(dispatcher, "py_func", None)
    if (
        py_func is None
        or not hasattr(dispatcher, "_set_uuid")
        or py_func.__closure__ is not None
        or "<locals>" in py_func.__qualname__
        or getattr(dispatcher, "_MemoMixin__uuid", "unset") is not None
    ):
        return dispatcher
    code = hashlib.sha256(marshal.dumps(py_func.__code__)).hexdigest()[:16]
    dispatcher._set_uuid(f"{py_func.__module__}.{py_func.__qualname__}:{code}")
    return dispatcher


def entry_point(dispatcher: Any, sample_args: tuple[Any, ...]) -> Any:
    """The compiled code of ``dispatcher`` for the argument types of ``sample_args``.

    Compiles it, or loads it from numba's disk cache, if needed. Calling the returned function
    skips numba's per-call dispatch, which types every argument again on each call (several
    microseconds for each dispatcher passed as an argument). The caller must then pass
    arguments of exactly the sample's types every time: the same dtypes, dimensions, layouts and
    writability for arrays, and ``int``, ``float`` or ``bool`` for scalars as in the sample.
    Dispatchers that are not numba's (no ``overloads``) are returned unchanged.
    """
    if not hasattr(dispatcher, "overloads"):
        return dispatcher
    signature = tuple(dispatcher.typeof_pyval(arg) for arg in sample_args)
    return dispatcher.compile(signature)
