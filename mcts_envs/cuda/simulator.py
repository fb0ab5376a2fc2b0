"""The package's compiled functions as plain Python, for numba's CUDA simulator.

Under the simulator (``NUMBA_ENABLE_CUDASIM=1``) a device function is the Python function
itself, run by one Python thread per simulated CUDA thread, with arrays that are the
simulator's wrappers of NumPy arrays. The game kernels call each other through numba CPU
dispatchers, which cannot take those wrappers, so :func:`python_function` gives a kernel's own
Python function (the same source and bytecode, nothing rewritten) whose globals name the Python
versions of what it calls, recursively:

* a numba dispatcher: its Python function, treated the same way;
* a function with a numba ``@overload``: the implementation the overload picks for the
  argument types of each call, treated the same way;
* one of the package's ``@intrinsic`` functions (bit counts, word stores, borrowed views): its
  meaning in NumPy (:data:`INTRINSICS`); an intrinsic without one is refused by name.

This is what numba-cuda does when it compiles a kernel for a real GPU: every dispatcher called
from device code is compiled again for the device from its Python function.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic
from numba.core.typing.templates import builtin_registry

from mcts_envs.core import bits, numba_compat

__all__ = ["INTRINSICS", "python_function"]

_ALL_BITS = (1 << 64) - 1


def _raw(array: Any) -> np.ndarray:
    """The NumPy array behind a simulator array (or the array itself)."""
    item = getattr(array, "_item", None)  # FakeWithinKernelCUDAArray wraps a FakeCUDAArray
    if item is not None:
        array = item
    return getattr(array, "_ary", array)


def _count_ones(value: Any) -> Any:
    return type(value)(bin(int(value) & _ALL_BITS).count("1"))


def _count_trailing_zeros(value: Any) -> Any:
    word = int(value) & _ALL_BITS
    width = np.dtype(type(value)).itemsize * 8
    return type(value)(width if word == 0 else (word & -word).bit_length() - 1)


def _store_word(array: Any, index: Any, word: Any) -> None:
    data = _raw(array).reshape(-1).view(np.uint8)  # a view: the array is C-contiguous
    raw = np.asarray(word).astype(np.asarray(word).dtype.newbyteorder("<")).tobytes()
    data[int(index) : int(index) + len(raw)] = np.frombuffer(raw, np.uint8)


def _borrow(value: Any) -> Any:
    return value


#: The package's intrinsics and what each computes, in NumPy.
INTRINSICS: dict[Any, Callable[..., Any]] = {
    bits._count_ones: _count_ones,
    bits._count_trailing_zeros: _count_trailing_zeros,
    bits.store_word: _store_word,
    numba_compat.borrow: _borrow,
}

_DONE: dict[Any, Callable[..., Any]] = {}


def python_function(function: Any) -> Callable[..., Any]:
    """``function``'s Python function with its globals naming Python versions of what it calls.

    ``function``: a numba dispatcher or a plain Python function (e.g. a kernel that a test or a
    batched step wants to run under the simulator).

    Raises:
        TypeError: if it calls an intrinsic that has no NumPy meaning in :data:`INTRINSICS`.
    """
    source = function.py_func if isinstance(function, Dispatcher) else function
    # an overload builds a new function object per call: the same code is one Python version
    key = source.__code__ if source.__closure__ is None else source
    done = _DONE.get(key)
    if done is not None:
        return done
    namespace = dict(source.__globals__)
    copy = types.FunctionType(
        source.__code__, namespace, source.__name__, source.__defaults__, source.__closure__
    )
    copy.__kwdefaults__ = source.__kwdefaults__
    copy.__qualname__ = source.__qualname__
    copy.__module__ = source.__module__
    _DONE[key] = copy  # before the callees: recursion ends here
    for name in _global_names(source.__code__):
        if name in namespace:
            namespace[name] = _python_value(namespace[name], f"{source.__qualname__}: {name}")
    return copy


def _global_names(code: types.CodeType) -> set[str]:
    """Names a code object (and the code objects nested in it) may load as globals."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def _python_value(value: Any, where: str) -> Any:
    """What a global of a compiled function means in Python (see the module docstring)."""
    if isinstance(value, Dispatcher):
        return python_function(value)
    if isinstance(value, _Intrinsic):
        meaning = INTRINSICS.get(value)
        if meaning is None:
            raise TypeError(
                f"{where} is the intrinsic {value._name!r}, which has no Python meaning for "
                "numba's CUDA simulator: add it to mcts_envs.cuda.simulator.INTRINSICS"
            )
        return meaning
    if isinstance(value, types.FunctionType):
        chooser = _overload_of(value)
        if chooser is not None:
            return _overloaded(chooser)
    return value


def _overload_of(function: types.FunctionType) -> Callable[..., Any] | None:
    """The function given to ``@overload(function)``, or None when there is none."""
    for registered, function_type in builtin_registry.globals:
        if registered is function:
            for template in getattr(function_type, "templates", ()):
                chooser = getattr(template, "_overload_func", None)
                if chooser is not None:
                    return chooser
    return None


def _overloaded(chooser: Callable[..., Any]) -> Callable[..., Any]:
    """A Python function that calls the implementation ``chooser`` picks for its arguments."""

    def call(*args: Any) -> Any:
        chosen = chooser(*(numba.typeof(_raw(arg)) for arg in args))
        return python_function(chosen)(*args)

    return call
