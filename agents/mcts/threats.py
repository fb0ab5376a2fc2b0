"""The immediate-win and block-loss checks made before an MCTS search (``win_check``).

A move that wins at once is played without a search. Otherwise, when some moves but not all
leave the opponent no immediate win, the search considers only those: they become the root mask
of the compiled loop (:mod:`mcts_envs.agents.mcts.search`), so a reused tree is restricted, not discarded.
"""

from __future__ import annotations

import numpy as np

from mcts_envs.core.game import TERMINAL
from mcts_envs.core.numba_cache import njit


@njit(cache=True)
def immediate_checks(k, state, actions, safe):
    """Immediate-win and block-loss checks for the player to move in ``state``.

    Writes the legal actions into ``actions`` and ``safe[i] = 1`` when after ``actions[i]`` the
    opponent (if on move) has no move that wins at once. Returns ``(winning action or -1,
    number of legal actions, number of safe ones)``; the actions after a winning one are not
    checked.
    """
    me = k.current_player(state)
    count = k.legal_actions(state, actions)
    child = np.empty(state.shape[0], np.int64)
    grandchild = np.empty(state.shape[0], np.int64)
    replies = np.empty(actions.shape[0], np.int64)
    values = np.empty(2, np.float64)
    num_safe = 0
    for i in range(count):
        child[:] = state
        k.apply_action(child, actions[i])
        mover = k.current_player(child)
        safe[i] = 1
        if mover == TERMINAL:
            k.returns(child, values)
            if values[me] > values[1 - me]:
                return actions[i], count, 0
            if values[me] < values[1 - me]:
                safe[i] = 0
        elif mover == 1 - me:
            reply_count = k.legal_actions(child, replies)
            for j in range(reply_count):
                grandchild[:] = child
                k.apply_action(grandchild, replies[j])
                if k.current_player(grandchild) == TERMINAL:
                    k.returns(grandchild, values)
                    if values[mover] > values[me]:
                        safe[i] = 0
                        break
        num_safe += safe[i]
    return -1, count, num_safe
