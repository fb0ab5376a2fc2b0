"""The package's compiled functions as CUDA device functions, from the same Python source.

Every rule lives once, in a game's ``kernels`` module, as a numba ``njit`` function (a CPU
dispatcher). :func:`device_function` compiles that same Python function for the GPU with
``numba.cuda.jit(device=True)``; the dispatchers it calls are compiled for the device the same
way by numba-cuda when the kernel that uses them is compiled (their lookup tables, module-level
NumPy arrays, become constant memory). Under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, set before numba-cuda is imported) the device function is the
Python function with its callees' Python versions (:mod:`mcts_envs.cuda.simulator`).

numba-cuda compiles device code for the compute capability of the current GPU, so compiling
needs one; ``raise`` in device code is ignored unless compiled with ``debug=True`` (the batched
step never relies on it: actions are checked before they are applied).
"""

from __future__ import annotations

import functools
from typing import Any

import numba
from numba import cuda

__all__ = ["device_function", "simulating"]


def simulating() -> bool:
    """Whether numba's CUDA simulator stands in for the GPU in this process."""
    return bool(numba.config.ENABLE_CUDASIM)


@functools.cache
def device_function(function: Any) -> Any:
    """``function`` (a numba CPU dispatcher of the package, or a plain Python function) as a CUDA
    device function compiled from the same Python function (one per dispatcher)."""
    if simulating():
        from mcts_envs.cuda.simulator import python_function

        return cuda.jit(device=True)(python_function(function))
    source = getattr(function, "py_func", function)
    return cuda.jit(device=True)(source)
