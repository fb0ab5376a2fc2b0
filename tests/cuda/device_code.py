"""Child program: every CUDA kernel of a game's vector compiles to PTX, without a GPU.

Run as ``python -m tests.cuda.device_code GAME [MAJOR.MINOR]`` (default compute capability
8.0). numba-cuda compiles the device functions a kernel calls for the compute capability of the
*current GPU*; with none, this process answers that question with the capability asked for
(``numba.cuda.dispatcher.get_current_device``, replaced here and nowhere else), and
``numba.cuda.compile_ptx`` compiles each kernel of :func:`mcts_envs.cuda.vector._compile` for
the argument types a ``VectorGame(device="cuda")`` passes. PTX is what the driver turns into
machine code on a GPU of that capability. Prints one line per kernel (PTX size, seconds), then
``ok GAME``.
"""

from __future__ import annotations

import sys
import time
import types

import numba
from numba import cuda
from numba.cuda import dispatcher

from mcts_envs.cuda import vector as cuda_vector
from mcts_envs.vector import VectorGame


def argument_types(plan: VectorGame) -> dict[str, tuple]:
    """The numba types of each kernel's arguments as a CUDA vector of ``plan``'s game passes
    them (host arrays of the same dtypes, dimensions and C layout as the device buffers)."""
    buf = numba.typeof(plan._buf)
    int64_1d, int64_2d = numba.types.int64[::1], numba.types.int64[:, ::1]
    boolean, int64 = numba.types.boolean, numba.types.int64
    rngs = numba.typeof(plan._buf.rngs)
    observation = numba.typeof(plan._buf.observation)
    return {
        "check": (numba.typeof(plan._buf.mask), numba.typeof(plan._buf.active), int64_1d, boolean,
                  int64_1d),
        "step": (buf, int64_1d, boolean, boolean),
        "random_actions": (buf, rngs, int64_1d),
        "rollout": (buf, rngs, int64, int64_1d),
        "set_rows": (buf, int64_1d, int64_2d, int64_1d),
        "observe": (int64_2d, int64_1d, int64_1d, boolean, observation),
        "gather": (numba.types.int8[:, ::1], int64_1d, numba.types.int8[:, ::1]),
        "scatter": (numba.types.uint64[:, ::1], int64_1d, numba.types.uint64[:, ::1]),
    }  # fmt: skip


def main(game: str, capability: tuple[int, int]) -> None:
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=capability)
    plan = VectorGame(game, 1, 0)
    kernels = cuda_vector._compile(plan._kernels, plan._config)
    for name, signature in argument_types(plan).items():
        start = time.perf_counter()
        ptx, _ = cuda.compile_ptx(getattr(kernels, name).py_func, signature, cc=capability)
        assert ".entry" in ptx and f"sm_{capability[0]}{capability[1]}" in ptx, name
        print(f"{game} {name}: {len(ptx):,} bytes of PTX in {time.perf_counter() - start:.1f} s")
    print("ok", game)


if __name__ == "__main__":
    major, minor = (sys.argv[2] if len(sys.argv) > 2 else "8.0").split(".")
    main(sys.argv[1], (int(major), int(minor)))
