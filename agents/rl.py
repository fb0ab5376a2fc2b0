"""Agents in RL loops: search agents as batched opponents, saved policies as arena agents.

* :class:`AgentOpponent` plays the opponent seat of a
  :class:`~mcts_envs.rl.vector_env.LearnerVectorEnv` with any agent spec (``"alphabeta"``,
  ``"mcts:iterations=200"``): one seeded agent per env, deciding on the forward model
  (``act_state``).
* :class:`SavedMaskablePPOAgent` is ``agents.adapters.MaskablePPOAgent`` loading a saved model by
  path once per process, so the arena (which builds fresh agents for every game) can play it:
  ``register_agent("ppo", SavedMaskablePPOAgent)`` then ``play_match(game, "ppo:model=PATH",
  "alphabeta", 1000)``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from agents.adapters import MaskablePPOAgent
from agents.spec import make_agent
from mcts_envs.core.errors import require_optional
from mcts_envs.core.seeding import check_seed
from mcts_envs.rl.opponents import OpponentView

__all__ = ["AgentOpponent", "SavedMaskablePPOAgent", "agent_opponent", "load_maskable_ppo"]


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


@functools.lru_cache(maxsize=8)
def load_maskable_ppo(path: str) -> Any:
    """``sb3_contrib.MaskablePPO.load(path)``, once per path and process."""
    sb3_contrib = require_optional("sb3_contrib", "train")
    return sb3_contrib.MaskablePPO.load(path, device="cpu")


class SavedMaskablePPOAgent(MaskablePPOAgent):
    """A saved ``MaskablePPO`` model as an agent kind (see the module docstring).

    Args:
        model: path of the saved model (``.zip``).
        deterministic: play the most likely action (default) or sample.
    """

    def __init__(self, model: str, deterministic: bool = True) -> None:
        super().__init__(load_maskable_ppo(str(model)), deterministic=deterministic, name="ppo")
