"""The batched API on a GPU: ``VectorGame(game, n, device="cuda")`` (numba-cuda).

Needs the ``cuda`` extra (``pip install "mcts-envs[cuda]"``: numba-cuda with the CUDA 12
toolkit's compiler libraries) and, to run, an NVIDIA GPU and driver; without a GPU the same code
runs under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1`` set before numba-cuda is
imported), which is how the tests check it. The CPU package never imports this one.

* :mod:`mcts_envs.cuda.device`: the package's compiled functions as CUDA device functions.
* :mod:`mcts_envs.cuda.simulator`: their Python versions for the simulator.
* :mod:`mcts_envs.cuda.vector`: :class:`~mcts_envs.cuda.vector.CudaVectorGame`.
"""

from __future__ import annotations

import importlib.util

__all__ = ["CPU_ONLY_GAMES"]

#: Games that ``device="cuda"`` refuses, and why.
CPU_ONLY_GAMES = {
    "tantrix": "its kernels allocate working arrays (np.empty) while they run, which device code "
    "cannot do",
}

if importlib.util.find_spec("numba_cuda") is None:
    raise ImportError(
        "VectorGame(device='cuda') needs numba-cuda (NVIDIA's CUDA target for numba): "
        'pip install "mcts-envs[cuda]"'
    )
