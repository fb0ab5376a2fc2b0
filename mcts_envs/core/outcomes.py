"""Compiled helpers that turn a game's result into returns and graded scores.

Games whose state keeps a status code ``0 ongoing, 1 player 0 won, 2 player 1 won, 3 draw`` (the
convention of the built-in board games) call these from their ``returns`` / ``score`` kernels.
"""

from __future__ import annotations

from mcts_envs.core.numba_cache import njit

ONGOING, PLAYER_0_WON, PLAYER_1_WON, DRAW = 0, 1, 2, 3


@njit(cache=True)
def returns_from_status(status, out):
    """Writes +1/-1 to ``out[2]`` for a won status, zeros for a draw or an unfinished game."""
    out[0] = 0.0
    out[1] = 0.0
    if status == PLAYER_0_WON:
        out[0] = 1.0
        out[1] = -1.0
    elif status == PLAYER_1_WON:
        out[0] = -1.0
        out[1] = 1.0


@njit(cache=True)
def win_score_from_status(status, out):
    """Writes 1 for a win, 0 for a loss, 0.5 each for a draw or an unfinished game."""
    returns_from_status(status, out)
    out[0] = (out[0] + 1.0) * 0.5
    out[1] = (out[1] + 1.0) * 0.5


@njit(cache=True)
def no_chance_outcomes(state, outcomes, probabilities):
    """The ``chance_outcomes`` kernel of a game without chance nodes: never any outcome."""
    return 0
