"""Batches of compiled random playouts, generic over games.

The game's kernels are passed in as numba dispatchers, so one compiled loop serves every game
(numba specialises it per game) and a batch costs a single call from Python.

Numba keys a cached specialisation by the dispatcher objects passed in; every
:class:`~mcts_envs.core.game.KernelGame` pins its kernels' identities
(:func:`mcts_envs.core.jit.pin_identity`), so the on-disk cache is hit in every process.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.numba_cache import njit
from mcts_envs.core.seeding import make_rng


@njit(cache=True)
def run_random_playouts(random_playout, returns, start, count, rng):
    """Plays ``count`` random games from ``start`` (unchanged); returns wins/draws as counts.

    Returns:
        ``int64[3]``: games won by player 0, won by player 1, drawn.
    """
    totals = np.zeros(3, np.int64)
    work = start.copy()
    result = np.zeros(2, np.float64)
    for _ in range(count):
        work[:] = start
        random_playout(work, rng)
        returns(work, result)
        if result[0] > 0.0:
            totals[0] += 1
        elif result[1] > 0.0:
            totals[1] += 1
        else:
            totals[2] += 1
    return totals


def random_playout_statistics(game, state: np.ndarray, count: int, seed: int) -> np.ndarray:
    """Outcome counts ``[player 0 wins, player 1 wins, draws]`` of ``count`` seeded random playouts.

    Raises:
        InvalidSeedError: if ``seed`` is not a non-negative int.
    """
    kernels = game.kernels
    return run_random_playouts(
        kernels.random_playout, kernels.returns, game.check_state(state), int(count), make_rng(seed)
    )
