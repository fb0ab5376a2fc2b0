"""The batched API's compiled code is found again in numba's disk cache by a new process.

Its entry points take the game's kernels as arguments, so numba's cache keys hold the kernels'
identities (:func:`mcts_envs.core.jit.pin_identity`): they must not depend on what the process
did before, e.g. an env that compiled ``observation_planes`` before the vector was built (what
``mcts-envs warmup`` does; end to end in ``tests/agents/frontends/test_warmup.py``).
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.jit import pin_identity

_SOURCE = """
from numba import njit

@njit
def observe_into(state, out):
    if out.shape[0] != 2:
        raise ValueError("observe_into writes an int8[2] array")
    out[0] = state[0]
    out[1] = state[1]
"""


def _kernel(module: str):
    namespace = {"__name__": module}
    exec(compile(_SOURCE, f"<{module}>", "exec"), namespace)
    return namespace["observe_into"]


def test_a_kernel_compiled_before_it_is_pinned_keeps_its_identity():
    compiled_first, pinned_first = _kernel("vector_cache_probe"), _kernel("vector_cache_probe")
    compiled_first(np.arange(2, dtype=np.int64), np.zeros(2, np.int8))  # numba keeps constants
    assert pin_identity(compiled_first)._MemoMixin__uuid == (
        pin_identity(pinned_first)._MemoMixin__uuid
    )


def test_a_games_vector_kernels_are_pinned_when_its_class_is_defined():
    # Before anything can compile or pickle them: the env's random playouts call Tic-Tac-Toe's
    # random_action, and numba pickles a cached function's callees with their identities.
    from mcts_envs.core.game import VectorKernels
    from mcts_envs.games.tictactoe.game import TicTacToe

    kernel = _kernel("vector_cache_probe_class")

    class Probe(TicTacToe):
        vector_kernels = VectorKernels(observation_planes=kernel)

    assert Probe.vector_kernels.observation_planes is kernel
    assert kernel._MemoMixin__uuid.startswith("vector_cache_probe_class.observe_into:")


def test_threads_run_the_single_thread_code_and_compile_no_parallel_variant():
    from numba.core.dispatcher import Dispatcher

    from mcts_envs import vector

    dispatchers = [d for d in vars(vector).values() if isinstance(d, Dispatcher)]
    assert [d.__name__ for d in dispatchers if d.targetoptions.get("parallel")] == []
    vg = vector.VectorGame("tictactoe", 130, seed=0, threads=True)
    vg.reset()
    vg.step(vg.random_actions())
    vg.random_rollout(2)
    if vg._threaded:  # more than one numba thread: the chunks run beside each other
        assert vector._step_chunk.targetoptions.get("nogil")
        assert vector._rollout_chunk.targetoptions.get("nogil")
        assert {entry.name for entry in vg._compiled.values()} <= {
            "_step_serial",  # the reset
            "_check_step",
            "_step_chunk",
            "_random_actions",
            "_rollout_chunk",
        }
