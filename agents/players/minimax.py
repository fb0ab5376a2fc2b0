"""minimax2: plain depth-2 minimax over a game's compiled static heuristic (the Ataxx paper's opponent).

The agent tries each of its moves, then every reply of the opponent, and scores the position
reached with the game's ``heuristic(state, root_player)`` kernel (for Ataxx: the mover's share of
the stones). A move is worth the minimum over the replies (the maximum where the same player moves
again: turns need not alternate); chance nodes average over their outcomes and do not count as a
ply; terminal states score ``(returns[root_player] + 1) / 2``. The best move is played, ties are
broken uniformly by the agent's seeded generator. No pruning: this is the plain baseline.

The compiled search releases the GIL and reads a stop flag (``int64[1]``, see
:func:`mcts_envs.agents.players.alphabeta.new_stop_flag`) at every node: :meth:`Minimax2Agent.search` with a flag
deepens one ply at a time up to ``depth`` and, once another thread sets the flag, answers with
the best move of the last completed depth (how a UAI engine's ``stop`` is served).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.agents.base import (
    ForwardModelAgent,
    check_decision,
    check_number,
    decision_state,
    game_and_state,
    search_buffer_size,
)
from mcts_envs.core.game import CHANCE, TERMINAL, Game
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.seeding import check_seed


@njit(cache=True, nogil=True)  # kernels as arguments: cached as KernelGame pins their identities
def minimax_value(state, plies, root_player, k, buffer_size, stop):
    """Plain minimax value in [0, 1] of ``state`` for ``root_player``, ``plies`` decisions deep
    (``k``: the game's :class:`~mcts_envs.core.game.GameKernels`); returns early with a
    meaningless value once ``stop[0]`` is set."""
    if stop[0] != 0:
        return 0.0
    player = k.current_player(state)
    if player == TERMINAL:
        result = np.zeros(2, np.float64)
        k.returns(state, result)
        return (result[root_player] + 1.0) * 0.5
    if player != CHANCE and plies <= 0:
        return k.heuristic(state, root_player)
    actions = np.empty(buffer_size, np.int64)
    probabilities = np.empty(buffer_size, np.float64)
    if player == CHANCE:  # the probability-weighted mean; not a ply
        count = k.chance_outcomes(state, actions, probabilities)
        next_plies = plies
    else:
        count = k.legal_actions(state, actions)
        next_plies = plies - 1
    maximizing = player == root_player
    best = 0.0 if player == CHANCE else (-1.0 if maximizing else 2.0)
    for i in range(count):
        child = state.copy()
        k.apply_action(child, actions[i])
        value = minimax_value(child, next_plies, root_player, k, buffer_size, stop)
        if stop[0] != 0:
            return 0.0
        if player == CHANCE:
            best += probabilities[i] * value
        elif (maximizing and value > best) or (not maximizing and value < best):
            best = value
    return best


@njit(cache=True, nogil=True)  # kernels as arguments: cached as KernelGame pins their identities
def root_values(state, actions, plies, k, buffer_size, stop):
    """``float64[len(actions)]``: minimax value of each root action for the player to move
    (NaN for the actions not searched to the end once ``stop[0]`` is set). Releases the GIL."""
    root_player = k.current_player(state)
    values = np.full(len(actions), np.nan)
    for i in range(len(actions)):
        child = state.copy()
        k.apply_action(child, actions[i])
        value = minimax_value(child, plies - 1, root_player, k, buffer_size, stop)
        if stop[0] != 0:
            break
        values[i] = value
    return values


#: Largest ``depth`` option: plain minimax costs ``b ** depth`` leaves, so depths beyond a
#: handful never finish anyway; the bound keeps the compiled recursion within its stack.
MAX_DEPTH = 32

#: The flag of searches nobody stops (never written).
_NEVER_STOP = np.zeros(1, np.int64)


class Minimax2Agent(ForwardModelAgent):
    """Plain depth-2 minimax on the game's static heuristic; ties broken by the seeded generator.

    The baseline opponent of the Ataxx MCTS paper (there, the heuristic is the mover's share of
    the stones; each game documents its ``heuristic`` kernel).

    Args:
        seed: seed of the tie-breaking generator.
        depth: plies searched (2 is minimax2; other depths are allowed for experiments).
    """

    name = "minimax2"

    def __init__(self, *, seed: int | None = None, depth: int = 2) -> None:
        depth = check_number("minimax2", "depth", depth, 1, MAX_DEPTH, integer=True)
        self.seed = check_seed(seed)
        self.depth = depth
        self._generator = np.random.default_rng(self.seed)

    def action_values(
        self,
        game: Game,
        state: np.ndarray,
        depth: int | None = None,
        stop: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(legal actions, their values in [0, 1] for the player to move)``, ``depth`` plies
        deep (default the agent's); NaN for actions left unsearched once ``stop[0]`` is set.

        Raises:
            IllegalActionError: if no player is to move (terminal or chance node).
        """
        state, _ = check_decision("minimax2", game, state)
        actions = game.legal_actions(state)
        plies = self.depth if depth is None else depth
        flag = _NEVER_STOP if stop is None else stop
        values = root_values(state, actions, plies, game.kernels, search_buffer_size(game), flag)
        return actions, values

    def search(self, game: Game, state: np.ndarray, stop: np.ndarray) -> tuple[int, float, int]:
        """``(action, value in [0, 1] for the mover, depth completed)`` of a search that
        another thread can stop: depths 1, 2, ... up to ``depth``, each searched in full;
        once ``stop[0]`` is set, the answer of the last completed depth (depth 1 is always
        completed first). Finished unstopped, the answer is :meth:`act_state`'s.

        Raises:
            IllegalActionError: if no player is to move (terminal or chance node).
        """
        completed = None
        for depth in range(1, self.depth + 1):
            actions, values = self.action_values(game, state, depth, None if depth == 1 else stop)
            if np.isnan(values).any():
                break
            completed = (actions, values, depth)
            if stop[0] != 0:
                break
        actions, values, depth = completed
        return (*self._pick(actions, values), depth)

    def prepare(self, game: Game) -> None:
        """Compile (or load from numba's disk cache) the search for ``game``; prints nothing."""
        state = decision_state(game)
        actions = game.legal_actions(state)[:1]
        root_values(state, actions, 1, game.kernels, search_buffer_size(game), _NEVER_STOP)

    def _choose(self, game: Game, state: np.ndarray) -> tuple[int, float]:
        return self._pick(*self.action_values(game, state))

    def _pick(self, actions: np.ndarray, values: np.ndarray) -> tuple[int, float]:
        best = values.max()
        ties = np.flatnonzero(values == best)
        return int(actions[ties[self._generator.integers(len(ties))]]), float(best)

    def act_state(self, game: Game, state: np.ndarray) -> int:
        return self._choose(game, state)[0]

    def policy(self, env_or_game: Any, state: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """One-hot on the chosen move; value ``2 * best - 1`` in [-1, 1] for the player to move."""
        game, state = game_and_state(env_or_game, state)
        action, value = self._choose(game, state)
        probs = np.zeros(game.info.num_actions, np.float64)
        probs[action] = 1.0
        return probs, 2.0 * value - 1.0
