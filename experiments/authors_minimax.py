"""The Ataxx paper's depth-limited minimax *as published* (an experiment-local opponent).

Not an agent of the package: it reproduces a defect. In the authors' code (GitHub
``leoribeiro/mcts-ataxx``, ``minimax.py``, as quoted in issue 14) a leaf is scored for the player
who *just moved into it* (``player = -1 * board.current_player(state)``) and the search stops at
``depth >= max_depth``; the tree still maximises at the root player's nodes and minimises at the
opponent's. At ``max_depth = 2`` every leaf follows an opponent's reply, so the value maximised is
the *opponent's* share of the stones: the player picks the move after which the opponent's worst
reply still leaves the opponent the most stones, i.e. it plays to lose. At depth 3 the leaves
follow the root player's own move and the search is a correct minimax.

Importing this module registers the kind ``authors_minimax_as_published`` (option ``depth``,
default 2) with :func:`mcts_envs.agents.spec.register_agent`; the Ataxx experiment imports it in its
workers (``agent_modules``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcts_envs.agents.base import ForwardModelAgent, search_buffer_size
from mcts_envs.agents.spec import register_agent
from mcts_envs.core.errors import IllegalActionError, InvalidOptionError
from mcts_envs.core.game import CHANCE, TERMINAL, Game
from mcts_envs.core.seeding import check_seed

NAME = "authors_minimax_as_published"


@njit(cache=True)
def published_value(
    state,
    depth,
    max_depth,
    root_player,
    current_player,
    legal_actions,
    apply_action,
    heuristic,
    buffer_size,
):
    """The published recursion: at ``depth >= max_depth`` or a terminal state, the score of the
    player who just moved (the root player after an odd number of plies); max at root nodes, min elsewhere."""
    player = current_player(state)
    if player == TERMINAL or depth >= max_depth:
        # the player who made the last move: turns alternate (Ataxx passes are moves), so it is
        # the root player after an odd number of plies and the opponent after an even number
        mover = root_player if depth % 2 == 1 else 1 - root_player
        return heuristic(state, mover)
    actions = np.empty(buffer_size, np.int64)
    count = legal_actions(state, actions)
    maximizing = player == root_player
    best = -1.0 if maximizing else 2.0
    for i in range(count):
        child = state.copy()
        apply_action(child, actions[i])
        value = published_value(
            child,
            depth + 1,
            max_depth,
            root_player,
            current_player,
            legal_actions,
            apply_action,
            heuristic,
            buffer_size,
        )
        if (maximizing and value > best) or (not maximizing and value < best):
            best = value
    return best


class AuthorsMinimaxAsPublished(ForwardModelAgent):
    """Depth-limited minimax with the published leaf scoring (see the module docstring).

    Ties go to the first move in the game's action order, as the published ``max`` does.

    Args:
        seed: accepted for the spec protocol (the agent is deterministic).
        depth: ``max_depth`` of the published code (2 plays to lose; 3 is a correct minimax).
    """

    name = NAME

    def __init__(self, *, seed: int | None = None, depth: int = 2) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InvalidOptionError(f"{NAME}: depth must be an int >= 1, got {depth!r}")
        self.seed = check_seed(seed)
        self.depth = depth

    def action_values(self, game: Game, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(legal actions, the published value of each)``."""
        player = game.current_player(state)
        if player < 0 or player == CHANCE:
            raise IllegalActionError(f"{NAME} needs a player to move")
        kernels = game.kernels
        actions = game.legal_actions(state)
        values = np.empty(len(actions), np.float64)
        for i, action in enumerate(actions):
            child = game.apply(state, int(action))
            values[i] = published_value(
                child,
                1,
                self.depth,
                player,
                kernels.current_player,
                kernels.legal_actions,
                kernels.apply_action,
                kernels.heuristic,
                search_buffer_size(game),
            )
        return actions, values

    def prepare(self, game: Game) -> None:
        """Compile the recursion for ``game`` (one search from the initial position)."""
        self.act_state(game, game.initial_state())

    def act_state(self, game: Game, state: np.ndarray) -> int:
        actions, values = self.action_values(game, state)
        return int(actions[int(np.argmax(values))])


register_agent(NAME, AuthorsMinimaxAsPublished)
