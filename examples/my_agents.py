"""An agent kind of your own, ``greedy``: from this file's folder, ``mcts-envs match tictactoe
greedy random --agent-module my_agents`` (docs: guides/your-agent.md)."""

from __future__ import annotations

import numpy as np

from mcts_envs.agents.base import ForwardModelAgent, check_number
from mcts_envs.agents.spec import register_agent


class GreedyAgent(ForwardModelAgent):
    """The move after which the game's heuristic is best for the mover (ties broken at
    random); with probability ``epsilon`` a uniformly random legal move instead."""

    def __init__(self, epsilon: float = 0.0, seed: int | None = None) -> None:
        self.epsilon = check_number("greedy", "epsilon", epsilon, 0.0, 1.0, integer=False)
        self.rng = np.random.default_rng(seed)

    def act_state(self, game, state) -> int:
        legal = game.legal_actions(state)
        if self.rng.random() < self.epsilon:
            return int(self.rng.choice(legal))
        mover = game.current_player(state)
        values = np.array([game.heuristic(game.apply(state, a), mover) for a in legal])
        return int(self.rng.choice(legal[values == values.max()]))


register_agent("greedy", GreedyAgent)
