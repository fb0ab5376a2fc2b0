"""Agents in RL loops: search agents as batched opponents of a learner.

:class:`AgentOpponent` plays the opponent seat of a
:class:`~mcts_envs.rl.vector_env.LearnerVectorEnv` with any agent spec (``"alphabeta"``,
``"mcts:iterations=200"``, ``"ppo:path=model.zip"``): one seeded agent per env, deciding on the
forward model (``act_state``). (A saved policy plays in the arena as the ``ppo`` agent kind,
``mcts_envs.agents.learned.adapters.SavedPPOAgent``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcts_envs.agents.spec import make_agent
from mcts_envs.core.seeding import check_seed
from mcts_envs.rl.opponents import OpponentView

__all__ = ["AgentOpponent", "agent_opponent"]


class AgentOpponent:
    """A batched opponent from an agent spec: env ``i`` has its own agent, seeded from ``(seed, i)``.

    ``reset(seed)`` rebuilds every agent with new seeds; ``new_games`` calls the agents'
    ``reset()`` (a new game starts).

    Raises:
        UnknownAgentError / InvalidOptionError: for a bad spec (checked at construction).
    """

    def __init__(self, spec: str, seed: int | None = None) -> None:
        make_agent(spec)  # checks the spec now
        self.spec = spec
        self.name = spec
        self.reset(seed)

    def reset(self, seed: int | None) -> None:
        self.seed = check_seed(seed)
        self._entropy = np.random.SeedSequence(self.seed).entropy
        self._agents: dict[int, Any] = {}

    def _agent(self, index: int) -> Any:
        agent = self._agents.get(index)
        if agent is None:
            words = np.random.SeedSequence(self._entropy, spawn_key=(index,)).generate_state(1)
            agent = self._agents[index] = make_agent(self.spec, seed=int(words[0]))
        return agent

    def new_games(self, env_indices: np.ndarray) -> None:
        for index in env_indices:
            agent = self._agents.get(int(index))
            if agent is not None:
                agent.reset()

    def __call__(self, view: OpponentView) -> np.ndarray:
        return np.array(
            [
                self._agent(int(index)).act_state(view.game, view.states[row])
                for row, index in enumerate(view.env_indices)
            ],
            dtype=np.int64,
        )


def agent_opponent(spec: str, seed: int | None = None) -> AgentOpponent:
    """An :class:`AgentOpponent` for ``spec``."""
    return AgentOpponent(spec, seed)
